"""Perfect play from the exact enumeration of :mod:`mctslab.exact`: a cheap perfect opponent."""

from __future__ import annotations

from math import floor

from ..exact import move_scores
from ..games.base import Game, State
from .base import Agent, Analysis, legal_or_raise
from .registry import register_agent


@register_agent
class PerfectPlayer(Agent):
    """Perfect play from the exact enumeration: the same choices as full-depth minimax, for free.

    Among the moves with the best :func:`move_scores` (quickest win, slowest loss), it
    picks one at random exactly as :class:`~mctslab.agents.minimax.Minimax` does, so with
    the same seed the two play the same moves. The difference is cost: the enumeration
    is done once per game and process, not once per game played, which makes perfect
    play a cheap opponent for experiments of thousands of games (notebook 05).

    Args:
        seed: randomness for breaking ties (see :func:`mctslab.seeding.make_rng`).

    Raises:
        ValueError: when asked to play a game too large to enumerate.
    """

    name = "perfect"
    experiment = True

    def analyse(self, game: Game, state: State) -> Analysis:
        """A best move (random among equals) and the position's value in [0, 1] for the player to move."""
        legal_or_raise(game, state)
        scores = move_scores(game, state)
        top = max(scores.values())
        best = [m for m, s in scores.items() if s == top]
        move = best[floor(self.rng.random() * len(best))]
        return Analysis(move, value=((top > 0) - (top < 0) + 1) / 2)
