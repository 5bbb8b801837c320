"""Perfect play from the exact enumeration of :mod:`mctslab.exact`: a cheap perfect opponent."""

from __future__ import annotations

from math import floor

from ..exact import MAX_STATES, move_scores
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
        ValueError: when asked to play a game too large to enumerate: at once when the game
            bounds the positions that follow above :data:`~mctslab.exact.MAX_STATES`
            (:meth:`~mctslab.games.base.Game.position_bound`; Fractio, Connect Four, Ultimate
            Tic-Tac-Toe but near their end), else once the enumeration meets that many.
    """

    name = "perfect"
    experiment = True

    def analyse(self, game: Game, state: State) -> Analysis:
        """A best move (random among equals) and the position's value in [0, 1] for the player to move."""
        legal_or_raise(game, state)
        bound = game.position_bound(state)
        if bound is not None and bound > MAX_STATES:  # refused now, not after enumerating MAX_STATES positions
            raise ValueError(
                f"perfect cannot play this position of {game.spec}: up to {bound:,} positions follow it, more than "
                f"the {MAX_STATES:,} exact play enumerates; play small games, or use uct or minimax:depth=..."
            )
        scores = move_scores(game, state)
        top = max(scores.values())
        best = [m for m, s in scores.items() if s == top]
        move = best[floor(self.rng.random() * len(best))]
        return Analysis(move, value=((top > 0) - (top < 0) + 1) / 2)
