"""Two one-player puzzles on a binary tree, of the kind Cazenave (2009) uses to study Nested Monte Carlo Search.

A game is a path from the root of a complete binary tree of depth ``depth`` to a leaf: each
move goes left (``0``) or right (``1``), and the puzzle ends after ``depth`` moves. The two
puzzles differ only in the score of the leaf reached:

* **left move** (``leftmove:depth=N``): the number of left moves in the path. Every move
  counts on its own, so a random playout's score is binomial and a level-1 search, which
  tries both moves at each step, nearly always does better than chance.
* **leftmost path** (``leftmost:depth=N``): the number of left moves *before the first right
  move*, so one right move ends the scoring. A random playout almost never scores high; a
  level-1 search always finds the leftmost path (its left move is never worse than its
  right move: see :mod:`mctslab.exact.binarytree`).

The best score of both is ``depth`` (the leftmost path). Exact distributions of the scores of
random playouts and of level-1 searches are in :mod:`mctslab.exact.binarytree`.

A state is the tuple of moves played so far (``0`` left, ``1`` right).
"""

from __future__ import annotations

from ..specs import Param
from .hooks import drawing, register_drawing
from .puzzle import Puzzle, PuzzleDrawing
from .registry import register_game

LEFT, RIGHT = 0, 1
MAX_DEPTH = 64

Path = tuple[int, ...]
"""A state: the moves played so far from the root, ``0`` (left) or ``1`` (right)."""


class BinaryTreePuzzle(Puzzle):
    """A path down a complete binary tree of depth ``depth``, scored by :meth:`score` (a subclass's rule).

    The board (:meth:`board_cells`) has two rows and ``depth`` columns: column ``i`` holds an
    ``L`` in the top row or an ``R`` in the bottom row for the ``i``-th move; a click on the next
    empty column plays left (top row) or right (bottom row).

    Args:
        depth: the number of moves, 1 to 64.

    Raises:
        ValueError: if ``depth`` is not an int from 1 to 64.
    """

    name = "binarytree"

    def __init__(self, depth: int = 10) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"{type(self).__name__}'s depth must be an int from 1 to {MAX_DEPTH}, got {depth!r}")
        self.depth = depth
        self.score_range = (0, depth)

    def initial_state(self) -> Path:
        """The root: no move yet."""
        return ()

    def check_state(self, state: Path) -> None:
        """Refuse a value that is not a path of at most ``depth`` moves ``0``/``1``.

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        if type(state) is not tuple or len(state) > self.depth or any(m not in (LEFT, RIGHT) for m in state):
            self.refuse_state(state, f"it must be a tuple of at most {self.depth} moves, each 0 (left) or 1 (right)")

    def legal_moves(self, state: Path) -> tuple[int, ...]:
        """``(0, 1)``: left and right, until the leaf."""
        return () if len(state) >= self.depth else (LEFT, RIGHT)

    def apply(self, state: Path, move: int) -> Path:
        """The path one move longer (unchecked; see :meth:`Game.play`)."""
        return (*state, move)

    def is_terminal(self, state: Path) -> bool:
        """True at a leaf: ``depth`` moves played."""
        return len(state) >= self.depth

    def render(self, state: Path) -> str:
        """The path as letters (``LLR...``) and its score when finished."""
        path = "".join(drawing(self).move_text(m, short=True) for m in state) or "(root)"
        return f"{path}, score {self.score(state)} of {self.depth}" if self.is_terminal(state) else path


@register_drawing(BinaryTreePuzzle)
class BinaryTreePuzzleDrawing(PuzzleDrawing):
    """How BinaryTreePuzzle is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """``"left"`` / ``"right"``; short: ``"L"`` / ``"R"``."""
        return ("L", "R")[move] if short else ("left", "right")[move]

    def board_cells(self, state: Path) -> list[list[str]]:
        """Two rows, ``depth`` columns: ``L`` on top or ``R`` below for each move played."""
        top = ["L" if i < len(state) and state[i] == LEFT else "" for i in range(self.game.depth)]
        bottom = ["R" if i < len(state) and state[i] == RIGHT else "" for i in range(self.game.depth)]
        return [top, bottom]

    def move_cell(self, state: Path, move: int) -> tuple[int, int]:
        """The next column, top row for left and bottom row for right."""
        return (move, len(state))

    def played_cell(self, state: Path, move: int) -> tuple[int, int]:
        """The cell of the last move, ``state`` being the path after it."""
        return (move, len(state) - 1)


@register_game(
    "leftmove",
    params=(Param("depth", int, 10, doc=f"moves in a path, 1 to {MAX_DEPTH}", show="always"),),
    summary="Left move, a toy for nested search: a path down a binary tree scoring its number of left moves",
    test_spec="leftmove:depth=4",
)
class LeftMove(BinaryTreePuzzle):
    """Left move: the score of a path is its number of left moves (0 to ``depth``)."""

    name = "leftmove"

    def score(self, state: Path) -> int:
        """The number of left moves played so far."""
        return state.count(LEFT)


@register_game(
    "leftmost",
    params=(Param("depth", int, 10, doc=f"moves in a path, 1 to {MAX_DEPTH}", show="always"),),
    summary="Leftmost path, a toy for nested search: a path down a binary tree scoring the lefts before a right",
    test_spec="leftmost:depth=4",
)
class LeftmostPath(BinaryTreePuzzle):
    """Leftmost path: the score of a path is its number of left moves before its first right move."""

    name = "leftmost"

    def score(self, state: Path) -> int:
        """The length of the run of left moves the path starts with."""
        return state.index(RIGHT) if RIGHT in state else len(state)
