"""One parameter system for games and agents: a game declares :class:`~mctslab.specs.Param` s, its spec is generated.

``register_game`` takes the parameters as agents declare theirs; the game's ``spec`` is
written by :func:`~mctslab.specs.spec_text` from the values the game holds (never by hand),
``check_game`` checks the round trip, and ``python -m mctslab games`` lists each parameter's
default and doc. The spec texts are those the games wrote by hand before (results files,
notebooks and tournaments key on them).
"""

from __future__ import annotations

import pathlib
import re

import pytest
from game_for_tests import Race

import mctslab
from mctslab import GameContractError, check_game, make_game
from mctslab.cli import main
from mctslab.games import GAMES, describe_games, register_game
from mctslab.specs import Param, spec_text

GOAL = Param("goal", int, 10, doc="the count to reach, 2 to 40", show="always")

KNOWN_SPECS = {
    "tictactoe": "tictactoe:n=3,k=3",
    "tictactoe:n=4": "tictactoe:n=4,k=4",
    "connect4:rows=4": "connect4:rows=4,cols=7,k=4",
    "nim": "nim:heaps=3-4-5",
    "nim:heaps=7": "nim:heaps=7",
    "pig": "pig:target=100,die=6",
    "pig:horizon=5,target=10": "pig:target=10,die=6,horizon=5",
    "leftmost:depth=3": "leftmost:depth=3",
    "samegame": "samegame:rows=5,cols=5,colors=3,seed=0",
    "traps": "traps:branching=4,depth=10,level=3,density=10,seed=0",
    "hex": "hex:size=11",
    "pgame": "pgame:branching=2,depth=20,seed=0",
    "uttt": "uttt",
    "fractio": "fractio",
    "kuhn": "kuhn",
    "phantom_ttt": "phantom_ttt",
}
"""Specs -> the spec text each game wrote by hand before its spec was generated (byte for byte)."""


@pytest.fixture
def registered():
    """Register games for one test; forget them after."""
    names = []

    def add(name, cls, params, **kwargs):
        names.append(name)
        return register_game(name, cls, params, **kwargs)

    yield add
    for name in names:
        GAMES.pop(name, None)


def test_a_game_registered_with_params_gets_its_spec_generated_and_it_round_trips(registered):
    # before: register_game took converters only ({"goal": int}), and each game wrote its spec by hand
    class Relay(Race):
        """Race under another name, with no spec of its own."""

    registered("relay", Relay, (GOAL,), test_spec="relay:goal=5")
    game = make_game("relay:goal=5")
    assert type(game) is Relay and game.spec == "relay:goal=5" == spec_text("relay", (GOAL,), game)
    assert make_game(game.spec) == game and hash(make_game(game.spec)) == hash(game)
    assert Relay().spec == "relay:goal=10" and Race(goal=5).spec == "race:goal=5"  # each class its own name
    assert GAMES["relay"].declared == (GOAL,) and GAMES["relay"].params == {"goal": int}
    check_game(game, games=2)


def test_every_built_in_game_declares_params_and_its_spec_is_the_one_they_generate():
    folder = pathlib.Path(mctslab.__file__).parent / "games"
    for name, entry in GAMES.items():
        if not entry.factory.__module__.startswith("mctslab.games."):
            continue  # the tests' own games
        assert entry.declared is not None, f"{name}: declare its parameters with Param (register_game(params=...))"
        game = make_game(entry.test_spec or name)
        assert game.spec == spec_text(name, entry.declared, game), name
    by_hand = re.compile(r"self\.spec\s*=|^\s+spec\s*=\s*\"", re.M)  # self.spec = ... or a class's spec = "..."
    written = [p.name for p in folder.glob("*.py") if by_hand.search(p.read_text())]
    assert not written, f"game files that write a spec by hand: {written}"


@pytest.mark.parametrize("spec", sorted(KNOWN_SPECS))
def test_a_generated_spec_is_the_text_the_game_wrote_by_hand(spec):
    game = make_game(spec)
    assert game.spec == KNOWN_SPECS[spec] and repr(game) == f"make_game({KNOWN_SPECS[spec]!r})"
    assert make_game(game.spec) == game and make_game(game.spec).spec == game.spec


def test_check_game_refuses_a_hand_written_spec_that_disagrees_with_the_declared_params(registered):
    class HandWritten(Race):
        """A spec written by hand, zero-padded: it rebuilds an equal game, but it is not the generated one."""

        def __init__(self, goal: int = 10) -> None:
            super().__init__(goal)
            self.spec = f"handwritten:goal={goal:02d}"

    registered("handwritten", HandWritten, (GOAL,))
    assert make_game("handwritten:goal=06") == HandWritten(6)  # the old check (rebuilds an equal game) passes
    with pytest.raises(GameContractError, match=r"spec 'handwritten:goal=06' is not the one its declared param"):
        check_game(HandWritten(6), games=1)


def test_check_game_refuses_a_param_that_does_not_read_back_or_is_not_held(registered):
    class Rounded(Race):
        """Its goal is written rounded down to an even number: goal=7 reads back as 6."""

    class Misnamed(Race):
        """Declares ``length`` but holds ``goal``."""

        def __init__(self, length: int = 10) -> None:
            super().__init__(goal=length)

    registered("rounded", Rounded, (Param("goal", int, 10, show="always", format=lambda g: str(g - g % 2)),))
    with pytest.raises(GameContractError, match=r"parameter goal=7 must read back the same from 'rounded:goal=6'"):
        check_game(Rounded(7), games=1)
    registered("misnamed", Misnamed, (Param("length", int, 10, show="always"),))
    with pytest.raises(GameContractError, match=r"declares the parameter 'length' but holds no attribute"):
        check_game(Misnamed(6), games=1)
    with pytest.raises(AttributeError, match=r"Misnamed declares the parameter 'length' .* self\.length"):
        _ = Misnamed(6).spec


def test_register_game_refuses_what_would_make_a_spec_lie(registered):
    class Twice(Race):
        """Registered under a first name; its spec says so."""

    registered("twice", Twice, (GOAL,))
    with pytest.raises(ValueError, match="Twice is registered as 'twice'"):
        registered("twice2", Twice, (GOAL,))
    with pytest.raises(ValueError, match="declares a parameter twice"):
        registered("twice3", Race, (GOAL, GOAL))
    with pytest.raises(TypeError, match="takes params as Param"):
        registered("twice4", Race, (GOAL, int))
    assert Twice(4).spec == "twice:goal=4"


def test_a_game_with_converters_only_still_writes_its_own_spec(registered):
    class Own(Race):
        """The older form: a converter per parameter, the spec written by the game (a notebook's game)."""

        def __init__(self, goal: int = 10) -> None:
            super().__init__(goal)
            self.spec = f"own:goal={goal}"

    registered("own", Own, {"goal": int})
    assert GAMES["own"].declared is None and make_game("own:goal=4").spec == "own:goal=4"
    check_game(make_game("own:goal=4"), games=1)


def test_the_games_listing_shows_each_parameter_with_its_default_and_doc(capsys):
    text = describe_games()
    for name, entry in GAMES.items():
        block = text[text.index(f"\n{name}  ") if not text.startswith(f"{name}  ") else 0 :]
        for p in entry.declared or ():
            default = "" if p.default is None else p.format(p.default)
            assert f"\n    {p.name}={default}  {p.doc}".rstrip() in block, (name, p.name)
    assert "\n    heaps=3-4-5  the heap sizes" in text and "\n    k=  stones in a row" in text
    assert main(["games"]) == 0
    assert capsys.readouterr().out == text + "\n"
