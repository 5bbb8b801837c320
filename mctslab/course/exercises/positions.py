"""The positions the UCT checks play, each with a known answer (confirmed by :mod:`mctslab.exact` in tests)."""

from __future__ import annotations

import math
import random

from ...games import drawing, make_game
from ...games.base import Game, State

ONE_MOVE: dict[str, tuple[tuple[str, int], ...]] = {
    "win as X": (("XOOX.....", 6), ("XO.X.O...", 6), ("XO.OX....", 8)),
    "win as O": (("XXO.OX...", 6), ("XXO..XO..", 4)),
    "block as X": (("XOX....O.", 4), ("XO...X.O.", 4), ("XXO...O..", 4)),
    "block as O": (("XO......X", 4), ("X.O.X....", 8)),
}
"""Tic-tac-toe positions (cells 0-8, row by row) and the one right move: the only
immediate win, or the only move that stops the opponent's immediate win."""

DRAW_ESCAPES: tuple[tuple[str, int], ...] = (
    ("XO.O.X.X.", 8),
    (".X.O.XXO.", 2),
    (".X.X.O.OX", 0),
    (".OXX.O.X.", 6),
    ("XOXXO.O..", 7),
    ("XO.XO.OX.", 2),
)
"""Positions where one move draws (every game after it is drawn) and every other
move loses against perfect play: O to move in the first four, X in the last two."""

ARMS = (1.0, 0.5, 0.0, 0.0)
"""The payouts of the selection check's :class:`ArmsGame`."""

SMALL_C = 0.5
"""The second exploration constant the selection check sets (when the agent has a ``c``)."""

PERFECT_GAMES = 2
"""Games per seat against perfect play."""


def position(cells: str) -> State:
    """The tic-tac-toe state drawn by ``cells`` (9 characters ``X``, ``O`` or ``.``, row by row).

    Raises:
        ValueError: if the drawing is not a position of a game (X moves first, turns alternate).
    """
    if len(cells) != 9 or set(cells) - set("XO."):
        raise ValueError(f"a position is 9 characters X, O or '.', got {cells!r}")
    xs = [i for i, c in enumerate(cells) if c == "X"]
    os_ = [i for i, c in enumerate(cells) if c == "O"]
    if len(xs) - len(os_) not in (0, 1):
        raise ValueError(f"{cells!r}: X moves first and the players alternate")
    moves = [m for pair in zip(xs, os_ + [None], strict=False) for m in pair if m is not None]
    return make_game("tictactoe").state_from_moves(moves)


def _cells(game: Game, state: State) -> str:
    rows = drawing(game).board_cells(state)
    if rows is None:
        return game.render(state)
    return "".join(c or "." for row in rows for c in row)


def _sample_positions(game: Game) -> list[State]:
    """The initial position and two from a seeded random game: a third and two thirds of the way."""
    rng = random.Random(2024)
    states = [game.initial_state()]
    while not game.is_terminal(states[-1]):
        moves = game.legal_moves(states[-1])
        states.append(game.apply(states[-1], moves[math.floor(rng.random() * len(moves))]))
    playing = states[:-1]
    return [playing[0], playing[len(playing) // 3], playing[2 * len(playing) // 3]]
