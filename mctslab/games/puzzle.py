"""What every one-player puzzle with a raw score shares: one player, no winner, the score normalised.

A puzzle subclasses :class:`Puzzle`, sets :attr:`~mctslab.games.base.Game.score_range` and
implements :meth:`Puzzle.score` (with the other rules of :class:`~mctslab.games.base.Game`);
:meth:`Puzzle.returns` is the score normalised onto [0, 1]. SameGame and the binary-tree
puzzles are puzzles.
"""

from __future__ import annotations

from abc import abstractmethod

from .base import Game, State
from .hooks import Drawing, register_drawing


class Puzzle(Game):
    """A one-player game scored by a raw :meth:`score` in :attr:`score_range`."""

    num_players = 1

    @abstractmethod
    def score(self, state: State) -> int:
        """The raw score of ``state`` (of a finished puzzle, its final score)."""

    def to_move(self, state: State) -> int:
        """Always player 0: the only player."""
        return 0

    def winner(self, state: State) -> None:
        """None: a puzzle has a score, not a winner."""
        return None

    def returns(self, state: State) -> tuple[float]:
        """The final score normalised onto [0, 1] (:meth:`Game.normalise`).

        Raises:
            ValueError: if the puzzle is not over.
        """
        if not self.is_terminal(state):
            raise ValueError("returns() needs a finished game; this one is still in progress")
        return (self.normalise(self.score(state)),)


@register_drawing(Puzzle)
class PuzzleDrawing(Drawing):
    """How Puzzle is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def mark(self, player: int) -> str:
        """The one player's name."""
        return "solver"
