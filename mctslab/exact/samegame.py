"""The exact optimum of a small SameGame board, by exhaustive search with memoisation.

What can still be scored from a position depends only on its blocks, not on the points
already scored, so :func:`samegame_optimum` memoises the best remaining score per board
(the columns). A seeded 5 x 5 board with three colours has a few thousand distinct boards
below it, so its optimum takes well under a second; the standard 15 x 15 boards are far
beyond this (their best scores are records, not optima).
"""

from __future__ import annotations

from typing import NamedTuple

from ..games.samegame import CLEAR_BONUS, SameGame, SameState, groups, remove

MAX_BOARDS = 300_000
"""The most distinct boards :func:`samegame_optimum` will memoise before giving up."""


class Optimum(NamedTuple):
    """The best score of a position and a sequence of moves that reaches it.

    Attributes:
        score: the best final raw score (:meth:`SameGame.score <mctslab.games.samegame.SameGame.score>`).
        moves: moves reaching it from the position (the first best move, in move order, at each step).
        boards: the distinct boards searched (the memo's size).
    """

    score: int
    moves: tuple[int, ...]
    boards: int


def samegame_optimum(game: SameGame, state: SameState | None = None, max_boards: int = MAX_BOARDS) -> Optimum:
    """The exact best score from ``state`` (default: the initial board), with a sequence reaching it.

    Args:
        game: a SameGame.
        state: the position (default: the initial board).
        max_boards: give up after memoising this many distinct boards.

    Raises:
        ValueError: if the search meets more than ``max_boards`` distinct boards (too big a board).
    """
    state = game.initial_state() if state is None else state
    game.check_state(state)
    rows = game.rows
    memo: dict[tuple[tuple[int, ...], ...], tuple[int, int]] = {}

    def best(columns: tuple[tuple[int, ...], ...]) -> int:
        """The most points still to score from ``columns`` (bonus included); records the best move."""
        if columns in memo:
            return memo[columns][0]
        if len(memo) >= max_boards:
            raise ValueError(
                f"{game.spec} is too big to solve exactly: more than {max_boards} boards; use at most 7 x 7"
            )
        value, move = (0 if columns else CLEAR_BONUS), -1
        for cells in groups(columns):
            v = (len(cells) - 2) ** 2 + best(remove(columns, cells))
            if v > value or move < 0:
                value, move = v, cells[0][0] * rows + cells[0][1]
        memo[columns] = (value, move)
        return value

    remaining = best(state.columns)
    moves, columns = [], state.columns
    while memo[columns][1] >= 0:
        move = memo[columns][1]
        moves.append(move)
        columns = remove(columns, next(g for g in groups(columns) if g[0] == divmod(move, rows)))
    return Optimum(state.points + remaining, tuple(moves), len(memo))
