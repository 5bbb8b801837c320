"""SameGame: a one-player puzzle. Remove groups of two or more touching blocks of one colour; the rest fall.

A move removes a group of ``n >= 2`` orthogonally adjacent blocks of the same colour
and scores ``(n - 2) ** 2``; the blocks above fall down, and a column left empty is
closed up by the columns on its right sliding left. The puzzle ends when no group of
two or more is left; clearing the whole board earns a bonus of 1000. These are the
rules and scoring of the standard 15 x 15 set with five colours used for SP-MCTS and
Nested Monte Carlo Search (Schadd et al. 2008; Cazenave 2009); here the board is
drawn from a seed, in any size, so small boards can be solved exactly
(:mod:`mctslab.exact.samegame`).

A state is a :class:`SameState`: the columns (each a tuple of colours ``1..colors``
from the bottom up, empty columns removed) and the points scored so far.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import NamedTuple

from ..specs import Param
from .hooks import drawing, register_drawing
from .puzzle import Puzzle, PuzzleDrawing
from .registry import register_game

CLEAR_BONUS = 1000
"""Points for removing every block."""

MAX_SIDE = 15
MAX_COLORS = 9


class SameState(NamedTuple):
    """A SameGame position.

    Attributes:
        columns: the non-empty columns, left to right, each a tuple of colours (ints ``1..colors``), bottom first.
        points: the points scored by the groups removed so far (without the clearing bonus).
    """

    columns: tuple[tuple[int, ...], ...]
    points: int


@lru_cache(maxsize=65_536)
def groups(columns: tuple[tuple[int, ...], ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every group of two or more blocks: a sorted tuple of its cells ``(column, height)``, by first cell."""
    seen: set[tuple[int, int]] = set()
    found = []
    for c, column in enumerate(columns):
        for h, colour in enumerate(column):
            if (c, h) in seen:
                continue
            group, stack = [], [(c, h)]
            seen.add((c, h))
            while stack:
                x, y = stack.pop()
                group.append((x, y))
                for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                    if (
                        0 <= nx < len(columns)
                        and 0 <= ny < len(columns[nx])
                        and (nx, ny) not in seen
                        and columns[nx][ny] == colour
                    ):
                        seen.add((nx, ny))
                        stack.append((nx, ny))
            if len(group) >= 2:
                found.append(tuple(sorted(group)))
    return tuple(found)


def remove(columns: tuple[tuple[int, ...], ...], cells: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """The columns after removing ``cells``: blocks above fall, empty columns close up."""
    gone: dict[int, set[int]] = {}
    for c, h in cells:
        gone.setdefault(c, set()).add(h)
    out = []
    for c, column in enumerate(columns):
        if c in gone:
            column = tuple(colour for h, colour in enumerate(column) if h not in gone[c])
        if column:
            out.append(column)
    return tuple(out)


def _parse_seed(text: str) -> int:
    return int(text)


@register_game(
    "samegame",
    params=(
        Param("rows", int, 5, doc=f"the board's height, 2 to {MAX_SIDE}", show="always"),
        Param("cols", int, 5, doc=f"the board's width, 2 to {MAX_SIDE}", show="always"),
        Param("colors", int, 3, doc=f"the number of colours, 2 to {MAX_COLORS}", show="always"),
        Param("seed", _parse_seed, 0, doc="the board: cells drawn with random.Random(seed)", show="always"),
    ),
    summary="SameGame, a one-player puzzle: remove groups of one colour, (n-2)^2 points each (seeded board)",
    test_spec="samegame:rows=4,cols=4,colors=3,seed=1",
)
class SameGame(Puzzle):
    """SameGame on a ``rows x cols`` board of ``colors`` colours drawn from ``seed``.

    A move is the cell of the group's lowest block in its leftmost column, as
    ``column * rows + height`` (height 0 at the bottom): :meth:`legal_moves` lists one move per
    group of two or more, ascending. The raw score (:meth:`score`) is the points of the
    groups removed plus :data:`CLEAR_BONUS` for an empty board; :meth:`returns`
    normalises it from :attr:`score_range` (0 to ``(rows * cols - 2) ** 2 + 1000``, the
    whole board removed at once) onto [0, 1].

    Args:
        rows: the board's height, 2 to 15.
        cols: the board's width, 2 to 15.
        colors: the number of colours, 2 to 9.
        seed: the board: each cell's colour is drawn uniformly with ``random.Random(seed)``,
            column by column from the bottom.

    Raises:
        ValueError: if a size or the number of colours is out of range.
    """

    def __init__(self, rows: int = 5, cols: int = 5, colors: int = 3, seed: int = 0) -> None:
        for name, value, low, high in (
            ("rows", rows, 2, MAX_SIDE),
            ("cols", cols, 2, MAX_SIDE),
            ("colors", colors, 2, MAX_COLORS),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"SameGame's {name} must be an int from {low} to {high}, got {value!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"SameGame's seed must be an int, got {seed!r}")
        self.rows, self.cols, self.colors, self.seed = rows, cols, colors, seed
        self.score_range = (0, (rows * cols - 2) ** 2 + CLEAR_BONUS)
        rng = random.Random(seed)
        board = tuple(tuple(1 + int(rng.random() * colors) for _ in range(rows)) for _ in range(cols))
        self._initial = SameState(board, 0)

    @staticmethod
    def from_columns(columns: tuple[tuple[int, ...], ...]) -> SameState:
        """A state with the given columns (bottom first) and no points yet, for tests and examples."""
        return SameState(tuple(tuple(c) for c in columns if c), 0)

    def initial_state(self) -> SameState:
        """The seeded board, no points yet."""
        return self._initial

    def check_state(self, state: SameState) -> None:
        """Refuse a value that is not a board of this game's size and colours.

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        columns, points = state
        if type(points) is not int or points < 0:
            self.refuse_state(state, "its points must be an int >= 0")
        if type(columns) is not tuple or len(columns) > self.cols:
            self.refuse_state(state, f"its columns must be a tuple of at most {self.cols} columns")
        for column in columns:
            if (
                type(column) is not tuple
                or not 1 <= len(column) <= self.rows
                or not all(type(x) is int and 1 <= x <= self.colors for x in column)
            ):
                self.refuse_state(state, f"each column must hold 1 to {self.rows} colours from 1 to {self.colors}")

    def legal_moves(self, state: SameState) -> tuple[int, ...]:
        """One move per group of two or more blocks (its first cell, ``column * rows + height``), ascending."""
        rows = self.rows
        return tuple(g[0][0] * rows + g[0][1] for g in groups(state.columns))

    def group(self, state: SameState, move: int) -> tuple[tuple[int, int], ...]:
        """The cells ``(column, height)`` that ``move`` removes.

        Raises:
            ValueError: if ``move`` is not a legal move of ``state``.
        """
        cell = divmod(move, self.rows)
        for g in groups(state.columns):
            if g[0] == cell:
                return g
        raise ValueError(f"move {move} removes no group here; legal moves: {self.legal_moves(state)}")

    def apply(self, state: SameState, move: int) -> SameState:
        """Remove the group of ``move``, score ``(n - 2) ** 2`` (unchecked; see :meth:`Game.play`)."""
        cells = self.group(state, move)
        return SameState(remove(state.columns, cells), state.points + (len(cells) - 2) ** 2)

    def is_terminal(self, state: SameState) -> bool:
        """True when no group of two or more is left."""
        return not groups(state.columns)

    def score(self, state: SameState) -> int:
        """The raw score: points so far, plus :data:`CLEAR_BONUS` if the board is empty."""
        return state.points + (CLEAR_BONUS if not state.columns else 0)

    def render(self, state: SameState) -> str:
        """The board (top row first, letters for colours, ``.`` empty) and the points so far."""
        lines = ["".join(cell or "." for cell in row) for row in drawing(self).board_cells(state)]
        done = " (finished)" if self.is_terminal(state) else ""
        return "\n".join(lines) + f"\npoints {state.points}, score {self.score(state)}{done}"


@register_drawing(SameGame)
class SameGameDrawing(PuzzleDrawing):
    """How SameGame is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """``"col 2 h 0"``; short: ``"2.0"``."""
        c, h = divmod(move, self.game.rows)
        return f"{c}.{h}" if short else f"col {c} h {h}"

    def board_cells(self, state: SameState) -> list[list[str]]:
        """The board, top row first: a colour as a letter ``A``, ``B``..., an empty cell ``""``."""
        grid = [["" for _ in range(self.game.cols)] for _ in range(self.game.rows)]
        for c, column in enumerate(state.columns):
            for h, colour in enumerate(column):
                grid[self.game.rows - 1 - h][c] = chr(ord("A") + colour - 1)
        return grid

    def move_cell(self, state: SameState, move: int) -> tuple[int, int]:
        """The ``(row, column)`` of the move's first block, row 0 at the top."""
        c, h = divmod(move, self.game.rows)
        return (self.game.rows - 1 - h, c)

    def click_move(self, state: SameState, row: int, col: int) -> int | None:
        """The move removing the group that holds the clicked block, or None."""
        cell = (col, self.game.rows - 1 - row)
        for g in groups(state.columns):
            if cell in g:
                return g[0][0] * self.game.rows + g[0][1]
        return None
