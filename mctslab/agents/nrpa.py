"""Nested Rollout Policy Adaptation (Rosin 2011, IJCAI): nested search that learns its playout policy.

NRPA keeps a **policy**, a weight per move code; a level-0 search is a playout drawing each move
with probability proportional to ``exp(weight)``. A level-``n`` search runs ``iterations``
level-``n - 1`` searches, each from a copy of its policy, keeps the best sequence found (a tie
replaces it, as in the paper's ``>=``) and after each one *adapts* its policy towards that best
sequence: along it, the weight of the move played rises by ``alpha`` and every legal move's
weight falls by ``alpha`` times its probability under the policy before the step (a gradient
step on the sequence's log-likelihood).

The code of a move here is the move itself (Rosin's codes are domain knowledge; a move number
is what every game offers). The agent (``nrpa:level=L,iterations=N``) searches once, from the
first position it is asked about, and then plays the best sequence found.
"""

from __future__ import annotations

import math
import random
from typing import Any

from ..games.base import Game, State
from ..games.kinds import ONE_PLAYER
from ..seeding import Seed
from ..validation import positive_number
from .base import Agent, Analysis, Param, check_positive_int, legal_or_raise
from .nmcs import NestedResult, level_checker, play_to_end
from .registry import register_agent

Policy = dict[int, float]
"""Move code -> weight; a code not in the dict weighs 0."""

MAX_LEVEL = 3
"""The deepest level the agent accepts: a level-n search runs ``iterations ** n`` playouts."""


RolloutResult = NestedResult
"""What an NRPA search found: the best sequence's normalised score, its moves, the playouts and their random moves."""


def _weights(policy: Policy, legal: tuple[int, ...]) -> list[float]:
    """``exp(weight)`` of each legal move's code."""
    return [math.exp(policy.get(m, 0.0)) for m in legal]


def policy_playout(game: Game, state: State, policy: Policy, rng: random.Random) -> RolloutResult:
    """A level-0 search: moves drawn with probability proportional to ``exp(policy[move])``."""

    def choose(legal: tuple[int, ...]) -> int:
        weights = _weights(policy, legal)
        u, total = rng.random() * sum(weights), 0.0
        for m, w in zip(legal, weights, strict=True):
            total += w
            if u < total:
                return m
        return legal[-1]

    return play_to_end(game, state, choose)


def adapt(game: Game, state: State, policy: Policy, moves: tuple[int, ...], alpha: float) -> Policy:
    """The policy moved towards ``moves`` played from ``state`` (Rosin 2011's ``Adapt``); ``policy`` is not changed."""
    new = dict(policy)
    for move in moves:
        legal = game.legal_moves(state)
        weights = _weights(policy, legal)
        z = sum(weights)
        new[move] = new.get(move, 0.0) + alpha
        for m, w in zip(legal, weights, strict=True):
            new[m] = new.get(m, 0.0) - alpha * w / z
        state = game.apply(state, move)
    return new


def nrpa(
    game: Game, state: State, level: int, policy: Policy, rng: random.Random, iterations: int = 100, alpha: float = 1.0
) -> RolloutResult:
    """A level-``level`` NRPA search from ``state`` (level 0: one playout of ``policy``).

    Args:
        game: a one-player game.
        state: where to start.
        level: nesting level, >= 0.
        policy: the starting policy (not changed).
        rng: the random stream of the playouts.
        iterations: level ``level - 1`` searches per level (Rosin's N, 100 in the paper).
        alpha: the adaptation step (1 in the paper).
    """
    if level == 0:
        return policy_playout(game, state, policy, rng)
    best: RolloutResult | None = None
    playouts = random_moves = 0
    for _ in range(iterations):
        found = nrpa(game, state, level - 1, policy, rng, iterations, alpha)
        playouts += found.playouts
        random_moves += found.random_moves
        if best is None or found.score >= best.score:
            best = found
        policy = adapt(game, state, policy, best.moves, alpha)
    assert best is not None  # iterations >= 1
    return RolloutResult(best.score, best.moves, playouts, random_moves)


_check_level = level_checker(MAX_LEVEL)


def _check_alpha(name: str, value: Any) -> float:
    return positive_number(name, value, finite=True)


@register_agent
class NestedRolloutPolicyAdaptation(Agent):
    """Nested Rollout Policy Adaptation (Rosin 2011) for one-player puzzles: search once, play the best sequence.

    Args:
        level: 1 to 3.
        iterations: searches of the level below per level (the paper's N).
        alpha: the policy's adaptation step.
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
    """

    name = "nrpa"
    handles = frozenset({ONE_PLAYER})
    params = (
        Param("level", int, 1, _check_level, "nesting level"),
        Param("iterations", int, 100, check_positive_int, "searches of the level below per level"),
        Param("alpha", float, 1.0, _check_alpha, "the adaptation step"),
    )

    def __init__(self, level: int = 1, iterations: int = 100, alpha: float = 1.0, seed: Seed = None) -> None:
        super().__init__(seed)
        self.set_params(level=level, iterations=iterations, alpha=alpha)
        self._plan: tuple[State, tuple[int, ...]] | None = None

    def reset(self) -> None:
        """Forget the sequence found."""
        self._plan = None

    def analyse(self, game: Game, state: State) -> Analysis:
        """The next move of the best sequence found; a new search from ``state`` if it is not on that sequence."""
        legal_or_raise(game, state)
        spent = 0
        if self._plan is None or self._plan[0] != state or not self._plan[1]:
            found = nrpa(game, state, self.level, {}, self.rng, self.iterations, self.alpha)
            self._plan, spent = (state, found.moves), found.playouts
        move = self._plan[1][0]
        self._plan = (game.apply(state, move), self._plan[1][1:])
        return Analysis(move, iterations=spent)
