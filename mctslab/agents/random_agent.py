"""The baseline: a uniformly random legal move."""

from __future__ import annotations

from math import floor

from ..games.base import Game, State
from ..games.kinds import TRAITS
from ..seeding import Seed
from .base import Agent, Analysis, legal_or_raise
from .registry import register_agent


@register_agent
class RandomAgent(Agent):
    """Plays a uniformly random legal move.

    Args:
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
    """

    name = "random"
    handles = TRAITS  # a uniformly random legal move is a move in every kind of game

    def __init__(self, seed: Seed = None) -> None:
        super().__init__(seed)

    def analyse(self, game: Game, state: State) -> Analysis:
        """Pick a legal move uniformly at random."""
        moves = legal_or_raise(game, state)
        return Analysis(moves[floor(self.rng.random() * len(moves))])
