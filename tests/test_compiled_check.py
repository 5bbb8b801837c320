"""check_game checks a game's compiled rules: their declared sizes, and lock step with the Python rules."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mctslab import GameContractError, check_game
from mctslab.engine import available
from mctslab.games.compiled import register_compiled
from mctslab.games.connect4 import ConnectFour, ConnectFourCompiled, compiled_game
from mctslab.games.tictactoe import TicTacToe, TicTacToeCompiled

needs_numba = pytest.mark.skipif(not available(), reason="the lock step needs Numba")


class WrongK(ConnectFour):
    """Connect Four whose compiled rules win with 3 in a row: they end games the Python rules play on."""


@register_compiled(WrongK)
class _WrongKCompiled(ConnectFourCompiled):
    def compiled(self):
        return compiled_game(self.game.rows, self.game.cols, 3)


class Swapped(TicTacToe):
    """Tic-tac-toe whose compiled_state puts O's stones where the compiled rules keep X's."""


@register_compiled(Swapped)
class _SwappedCompiled(TicTacToeCompiled):
    def compiled_state(self, state):
        return (state.result, self.game.to_move(state), state.o, state.x)


@needs_numba
@pytest.mark.parametrize(
    "game,message",
    [(WrongK(), "the compiled legal moves .* are not"), (Swapped(), "the compiled rules reach .*compiled_state")],
)
def test_compiled_rules_that_disagree_with_the_python_rules_are_caught(game, message):
    with pytest.raises(GameContractError, match=message) as err:
        check_game(game, games=10, seed=0)
    assert "\n" not in str(err.value)


class FewMoves(TicTacToe):
    pass


@register_compiled(FewMoves)
class _FewMovesCompiled(TicTacToeCompiled):
    def compiled(self):
        return replace(super().compiled(), max_moves=8)


class ShortGames(TicTacToe):
    pass


@register_compiled(ShortGames)
class _ShortGamesCompiled(TicTacToeCompiled):
    def compiled(self):
        return replace(super().compiled(), max_plies=4)


class WrongResult(TicTacToe):
    pass


@register_compiled(WrongResult)
class _WrongResultCompiled(TicTacToeCompiled):
    def compiled_state(self, state):
        return (-1, self.game.to_move(state), state.x, state.o)


@pytest.mark.parametrize(
    "game,message",
    [
        (FewMoves(), "must be at most max_moves=8"),
        (ShortGames(), "passes max_plies=4"),
        (WrongResult(), r"compiled_state\(\)\[0\] must be the result"),
    ],
)
def test_declared_sizes_and_the_result_field_are_checked_on_random_games(game, message):
    with pytest.raises(GameContractError, match=message):
        check_game(game, games=10, seed=0)
