"""A game's parts for other consumers are adapters registered beside it: looked up, refused by name, checked.

The drawing adapter's own tests are in ``test_game_hooks.py``; here the network encoding (PUCT's net,
AlphaZero's training) and the compiled rules (the compiled engine).
"""

from __future__ import annotations

import pytest

from mctslab import GameContractError, check_game, make_game
from mctslab.games.adapters import MissingAdapterError
from mctslab.games.base import Game
from mctslab.games.compiled import compiled_encoding, compiled_rules
from mctslab.games.network import NetworkEncoding, network_encoding, register_network
from mctslab.games.tictactoe import TicTacToe, TicTacToeNetwork


def test_the_network_encoding_is_an_adapter_and_a_game_without_one_is_refused_by_name():
    assert not {"features", "policy_size", "symmetries"} & set(vars(Game))
    ttt = make_game("tictactoe:n=4,k=3")
    encoding = network_encoding(ttt)
    assert isinstance(encoding, TicTacToeNetwork) and encoding.policy_size == 16 and len(encoding.symmetries()) == 8
    assert network_encoding(make_game("connect4:rows=4,cols=5,k=3")).policy_size == 5
    for spec in ("nim", "uttt"):  # Ultimate is a stone game too: the stone games' encoding is registered per game
        with pytest.raises(MissingAdapterError, match=rf"{make_game(spec).spec} has no network encoding: register a"):
            network_encoding(make_game(spec))
    assert make_game("nim").policy_size is None  # what code written before the split reads


class _MirrorFirst(TicTacToe):
    """Tic-tac-toe whose network encoding lists a mirror image before the identity."""


@register_network(_MirrorFirst)
class _MirrorFirstNetwork(TicTacToeNetwork):
    def symmetries(self):
        return tuple(reversed(super().symmetries()))


class _SetsPolicySize(TicTacToe):
    """Tic-tac-toe that sets ``policy_size`` on itself, as games did before the split (the consumers ignore it)."""

    def __init__(self) -> None:
        super().__init__()
        self.policy_size = 9


def test_check_game_checks_a_network_encoding_and_refuses_its_names_on_the_game():
    with pytest.raises(GameContractError, match="symmetries.. must start with the identity"):
        check_game(_MirrorFirst(), games=2)
    with pytest.raises(GameContractError, match="sets policy_size, a name of its network adapter"):
        check_game(_SetsPolicySize(), games=2)
    with pytest.raises(TypeError, match="features belongs to the game's network adapter"):
        type("Featured", (TicTacToe,), {"features": lambda self, state: None})
    with pytest.raises(TypeError, match="subclasses NetworkEncoding"):
        register_network(TicTacToe)(object)
    assert issubclass(TicTacToeNetwork, NetworkEncoding)


def test_the_compiled_rules_are_an_adapter_the_engine_looks_up_and_a_game_without_them_is_refused_by_name():
    assert not {"compiled", "compiled_state"} & set(vars(Game))
    fractio = make_game("fractio")
    assert type(compiled_encoding(fractio)).__name__ == "UltimateTicTacToeCompiled"  # its base's, its own parameters
    assert compiled_rules(fractio).prm.tolist() != compiled_rules(make_game("uttt")).prm.tolist()
    assert compiled_rules(make_game("hex:size=9")) is None and compiled_rules(make_game("hex:size=7")).fields == 4
    with pytest.raises(MissingAdapterError, match=r"nim:heaps=3-4-5 has no compiled rules: register a Compiled"):
        compiled_encoding(make_game("nim"))
    assert compiled_rules(make_game("nim")) is None and make_game("nim").compiled() is None  # old callers' answer
    with pytest.raises(TypeError, match="compiled_state belongs to the game's compiled adapter"):
        type("Encoded", (TicTacToe,), {"compiled_state": lambda self, state: ()})
