"""What the enhancements cost: tree nodes with and without transpositions, seconds per playout and per iteration."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from ....agents import UCT, make_agent
from ....agents.playouts import policy_rollout
from ....agents.transpositions import TranspositionUCT
from ....games.base import Game


def node_counts(game: Game, budgets: Sequence[int], seed: int = 0) -> list[tuple[int, int, int]]:
    """``(iterations, UCT's tree nodes, positions with transpositions)`` from the initial position, per budget."""
    rows = []
    for n in budgets:
        tree = UCT(iterations=n, seed=seed).search(game, game.initial_state())
        agent = TranspositionUCT(iterations=n, seed=seed)
        agent.search(game, game.initial_state())
        rows.append((n, tree.size(), len(agent.table)))
    return rows


def playout_costs(
    game: Game,
    policies: Sequence[str] = ("random", "decisive", "antidecisive"),
    playouts: int = 20,
    rounds: int = 3,
    seed: int = 0,
) -> dict[str, float]:
    """Median seconds per playout from the initial position, per policy, the policies interleaved in rounds.

    ``"random"`` is the game's own fast rollout (what UCT plays by default). Timings on a
    loaded machine are noisy: compare the ratios, not the seconds.
    """
    times: dict[str, list[float]] = {p: [] for p in policies}
    state = game.initial_state()
    for r in range(rounds):
        for policy in policies:
            rng = random.Random(seed + r)
            start = time.perf_counter()
            for _ in range(playouts):
                if policy == "random":
                    game.rollout(state, rng)
                else:
                    policy_rollout(game, state, rng, None, policy)
            times[policy].append((time.perf_counter() - start) / playouts)
    return {p: sorted(t)[len(t) // 2] for p, t in times.items()}


def iteration_costs(game: Game, specs: Sequence[str], iterations: int = 300, rounds: int = 3) -> dict[str, float]:
    """Median seconds per iteration of each agent (a search from the initial position), interleaved in rounds.

    Divide by the ``"uct"`` entry for the cost relative to plain UCT; timings on a loaded
    machine are noisy, the ratios less so.
    """
    times: dict[str, list[float]] = {s: [] for s in specs}
    state = game.initial_state()
    for r in range(rounds):
        for spec in specs:
            agent = make_agent(spec, seed=r)
            agent.iterations = iterations
            start = time.perf_counter()
            agent.search(game, state)
            times[spec].append((time.perf_counter() - start) / iterations)
    return {s: sorted(t)[len(t) // 2] for s, t in times.items()}
