"""What the enhancements cost: tree nodes with and without transpositions, seconds per playout and per iteration.

Timings on a shared machine move from run to run, so each is measured in several
interleaved rounds and reported as a :class:`Timings`: the median of the rounds and the
spread of the per-round ratios to a baseline: order statistics of those ratios bracket
the median ratio with a stated, distribution-free confidence (:meth:`Timings.ratio_interval`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from statistics import median

from tqdm.auto import tqdm

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


@dataclass(frozen=True)
class Timings:
    """Seconds per unit (a playout, an iteration) of several contenders, one value per interleaved round.

    Attributes:
        baseline: the contender the ratios divide by (``"random"``, ``"uct"``).
        seconds: per contender, its seconds per unit in each round (rounds in order).
    """

    baseline: str
    seconds: dict[str, tuple[float, ...]]

    @property
    def rounds(self) -> int:
        """How many rounds were timed."""
        return len(self.seconds[self.baseline])

    def median(self, name: str) -> float:
        """The median over the rounds of ``name``'s seconds per unit."""
        return median(self.seconds[name])

    def ratios(self, name: str) -> tuple[float, ...]:
        """``name``'s seconds divided by the baseline's, round by round (both timed in the same round)."""
        return tuple(a / b for a, b in zip(self.seconds[name], self.seconds[self.baseline], strict=True))

    def ratio(self, name: str) -> float:
        """The median of :meth:`ratios`: how many times the baseline's cost ``name`` costs."""
        return median(self.ratios(name))

    def ratio_interval(self, name: str) -> tuple[float, float]:
        """An interval on the median ratio: the ``k``-th smallest and ``k``-th largest per-round ratio.

        ``k`` is the largest depth whose :meth:`confidence` is at least 95% (1 with fewer
        than 6 rounds: the smallest and the largest); 9 rounds give ``k = 2``, so one
        disturbed round on either side does not widen the interval.
        """
        r, k = sorted(self.ratios(name)), self._depth()
        return (r[k - 1], r[-k])

    def _depth(self) -> int:
        k = 1
        while k < self.rounds // 2 and _coverage(self.rounds, k + 1) >= Fraction(95, 100):
            k += 1
        return k

    def confidence(self) -> Fraction:
        """Coverage of :meth:`ratio_interval` for the true median ratio, if the rounds are independent.

        Each round's ratio falls below the true median with probability 1/2, so the
        ``k``-th smallest of ``n`` lies above it only if fewer than ``k`` fall below:
        ``1 - 2 P(Binomial(n, 1/2) < k)`` (63/64 for ``n = 7, k = 1``; 0.961 for ``n = 9, k = 2``).
        """
        return _coverage(self.rounds, self._depth())


def _coverage(n: int, k: int) -> Fraction:
    """``1 - 2 P(Binomial(n, 1/2) < k)``: the coverage of ``(x(k), x(n + 1 - k))`` for the median."""
    return 1 - 2 * sum(Fraction(comb(n, i), 2**n) for i in range(k))


def _per_unit(run: Callable[[], int], min_seconds: float) -> float:
    """Seconds per unit of work: ``run()`` (returning the units it did) repeated until ``min_seconds`` have passed."""
    units, start = 0, time.perf_counter()
    while True:
        units += run()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / units


def playout_costs(
    game: Game,
    policies: Sequence[str] = ("random", "decisive", "antidecisive"),
    playouts: int = 20,
    rounds: int = 9,
    seed: int = 0,
    min_seconds: float = 0.02,
    progress: bool = False,
) -> Timings:
    """Seconds per playout from the initial position, per policy, the policies interleaved in ``rounds`` rounds.

    ``"random"`` is the game's own fast rollout (what UCT plays by default) and the
    baseline of the ratios. Each policy plays batches of ``playouts`` playouts until at
    least ``min_seconds`` have passed in the round (a fast rollout timed over a few
    microseconds would measure the clock, not the rollout); a first round, not kept,
    warms the caches up.
    """
    times: dict[str, list[float]] = {p: [] for p in policies}
    state = game.initial_state()
    for r in tqdm(range(-1, rounds), desc=f"playouts on {game.spec}", disable=not progress):
        for policy in policies:
            rng = random.Random(seed + r)

            def run(policy: str = policy, rng: random.Random = rng) -> int:
                for _ in range(playouts):
                    if policy == "random":
                        game.rollout(state, rng)
                    else:
                        policy_rollout(game, state, rng, None, policy)
                return playouts

            seconds = _per_unit(run, min_seconds)
            if r >= 0:
                times[policy].append(seconds)
    return Timings(policies[0], {p: tuple(t) for p, t in times.items()})


def iteration_costs(
    game: Game,
    specs: Sequence[str],
    iterations: int = 300,
    rounds: int = 9,
    min_seconds: float = 0.05,
    progress: bool = False,
) -> Timings:
    """Seconds per iteration of each agent (searches from the initial position), interleaved in ``rounds`` rounds.

    The first spec (``"uct"``) is the baseline of the ratios. Each agent runs searches of
    ``iterations`` iterations until at least ``min_seconds`` have passed in the round; a
    first round, not kept, warms the caches up.
    """
    times: dict[str, list[float]] = {s: [] for s in specs}
    state = game.initial_state()
    for r in tqdm(range(-1, rounds), desc=f"iterations on {game.spec}", disable=not progress):
        for spec in specs:
            agent = make_agent(spec, seed=max(r, 0))
            agent.iterations = iterations

            def run(agent: UCT = agent) -> int:
                agent.search(game, state)
                return iterations

            seconds = _per_unit(run, min_seconds)
            if r >= 0:
                times[spec].append(seconds)
    return Timings(specs[0], {s: tuple(t) for s, t in times.items()})
