"""Experiments: many independent seeded runs at once, and what they measure.

:func:`run` plays one policy on one bandit for ``runs`` independent runs of
``steps`` pulls, all runs advanced together as NumPy arrays, and records three
measures at chosen times (a log-spaced grid by default):

* cumulative (pseudo-)regret ``sum_s gap(arm pulled at s)``: what learning cost;
* simple regret ``mu* - mu(recommended arm)``: how good the final answer is;
* the fraction of pulls that went to an optimal arm.

Randomness: the seed is split (:func:`mctslab.seeding.child_generators`, as
``numpy.random.SeedSequence.spawn`` splits it) into one stream for the bandit, one for
the policy and one for recommendations, so the
same seed gives the same result, and two policies run with the same seed face
the same reward draws (common random numbers make comparisons sharper).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from ..seeding import Seed, child_generators
from ..validation import positive_int
from .arms import Arms, BernoulliArms
from .exploration import RoundRobin, SequentialHalving, SuccessiveRejects
from .policies import UCB1, EpsilonGreedy, ExploreThenCommit, Greedy, ThompsonSampling, UCB1Tuned
from .policy import Policy, Stats, check_arm_choice

__all__ = ["METRICS", "BanditResult", "Trace", "compare", "log_grid", "run", "simulate", "trace"]

METRICS = ("regret", "simple_regret", "optimal_fraction")
"""The measures a :class:`BanditResult` records."""

SeedLike = Seed
"""What ``seed=`` accepts (see :data:`mctslab.seeding.Seed`)."""


@dataclass(frozen=True)
class BanditResult:
    """The measures of ``R`` runs of one policy, recorded at ``M`` times.

    Attributes:
        policy: the policy's name.
        means: the true means of the arms, shape ``(K,)``.
        times: the numbers of pulls after which the measures were taken, shape ``(M,)``, increasing.
        regret: cumulative pseudo-regret ``sum_s (mu* - mu_{a_s})`` up to each time, shape ``(R, M)``.
        simple_regret: ``mu* - mu`` of the recommended arm at each time, shape ``(R, M)``.
        optimal_fraction: fraction of the pulls so far that went to an optimal arm, shape ``(R, M)``.
        counts: pulls of each arm at the end, shape ``(R, K)``.
    """

    policy: str
    means: np.ndarray
    times: np.ndarray
    regret: np.ndarray
    simple_regret: np.ndarray
    optimal_fraction: np.ndarray
    counts: np.ndarray

    @property
    def runs(self) -> int:
        """The number of runs ``R``."""
        return int(self.regret.shape[0])

    @property
    def steps(self) -> int:
        """The horizon: pulls in each run."""
        return int(self.counts[0].sum())

    def metric(self, name: str = "regret") -> np.ndarray:
        """The ``(R, M)`` array of one measure, by name (one of :data:`METRICS`).

        Raises:
            ValueError: for an unknown name (the message lists the known ones).
        """
        if name not in METRICS:
            raise ValueError(f"unknown measure {name!r}; known measures: {', '.join(METRICS)}")
        return getattr(self, name)

    def mean(self, name: str = "regret") -> np.ndarray:
        """The average over runs of a measure at each recorded time, shape ``(M,)``."""
        return self.metric(name).mean(axis=0)

    def percentiles(self, name: str = "regret", q: Sequence[float] = (10, 50, 90)) -> np.ndarray:
        """Percentiles over runs of a measure at each recorded time, shape ``(len(q), M)``.

        Args:
            name: one of :data:`METRICS`.
            q: percentiles in [0, 100].
        """
        return np.percentile(self.metric(name), q, axis=0)

    def at(self, t: int, name: str = "regret") -> np.ndarray:
        """One measure in every run after exactly ``t`` pulls, shape ``(R,)``.

        Raises:
            ValueError: if ``t`` is not one of the recorded :attr:`times`.
        """
        hits = np.flatnonzero(self.times == t)
        if hits.size == 0:
            raise ValueError(
                f"t = {t} was not recorded; pass record=[..., {t}, ...] to run(). "
                f"Recorded: {self.times[:5].tolist()} ... {self.times[-3:].tolist()}"
            )
        return self.metric(name)[:, hits[0]]

    def __repr__(self) -> str:
        return (
            f"BanditResult({self.policy}, runs={self.runs}, steps={self.steps}, "
            f"mean final regret={self.regret[:, -1].mean():.4g})"
        )


def log_grid(steps: int, per_decade: int = 20) -> np.ndarray:
    """Recording times from 1 to ``steps``, evenly spaced on a log axis, plus every power of 10.

    Args:
        steps: the horizon, >= 1.
        per_decade: points per factor of 10, >= 1.

    Returns:
        Sorted unique ``int64`` times, always including 1 and ``steps``.

    Raises:
        TypeError: if ``steps`` or ``per_decade`` is not an integer.
        ValueError: if either is < 1.
    """
    steps = positive_int("steps", steps)
    per_decade = positive_int("per_decade", per_decade)
    decades = np.log10(steps)
    grid = np.round(np.logspace(0.0, decades, max(2, int(np.ceil(decades * per_decade)) + 1))).astype(np.int64)
    powers = 10 ** np.arange(int(np.floor(decades)) + 1, dtype=np.int64)
    return np.unique(np.concatenate([grid, powers, [1, steps]]))


def _as_arms(arms: Arms | Sequence[float] | np.ndarray) -> Arms:
    return arms if isinstance(arms, Arms) else BernoulliArms(arms)


def simulate(
    policy: Policy, arms: Arms | Sequence[float], *, runs: int = 1, steps: int = 1000, seed: SeedLike = 0
) -> Iterator[tuple[Stats, np.ndarray, np.ndarray]]:
    """Play ``policy`` on ``arms`` step by step, yielding after every pull.

    The engine under :func:`run` and :func:`trace`, for when you want to watch.

    Args:
        policy: the policy (its :meth:`~Policy.start` is called first).
        arms: a bandit, or a list of Bernoulli means in [0, 1].
        runs: independent runs played side by side, >= 1.
        steps: pulls in each run, >= 1.
        seed: an int, a ``SeedSequence``, a ``Generator`` or ``None`` (fresh entropy).

    Yields:
        ``(stats, chosen, rewards)`` after each step: the updated :class:`Stats` (the
        same object every time, updated in place), the arms pulled and the rewards,
        each of shape ``(runs,)``.

    Raises:
        TypeError: if ``runs`` or ``steps`` is not an integer, or ``seed`` not a seed.
        ValueError: for ``runs``/``steps`` < 1, bad means, or if the policy returns an
            invalid choice.
    """
    bandit = _as_arms(arms)
    runs = positive_int("runs", runs)
    steps = positive_int("steps", steps)
    env_rng, policy_rng, _ = child_generators(seed, 3)
    return _simulate(policy, bandit, runs, steps, env_rng, policy_rng)


_VALID_BY_CONSTRUCTION = frozenset(
    {Greedy, EpsilonGreedy, ExploreThenCommit, UCB1, UCB1Tuned, ThompsonSampling}
    | {RoundRobin, SequentialHalving, SuccessiveRejects}
)
"""The package's policies, whose ``select`` returns ``(runs,)`` integer arms in ``[0, K)`` by
construction (an argmax over the ``K`` columns, ``t % K``, survivors drawn from ``range(K)``):
:func:`check_arm_choice` (two reductions a step) is skipped for exactly these classes.
A subclass is checked like any policy a student writes, since it may change what ``select`` returns."""


def _simulate(
    policy: Policy, bandit: Arms, runs: int, steps: int, env_rng: np.random.Generator, policy_rng: np.random.Generator
) -> Iterator[tuple[Stats, np.ndarray, np.ndarray]]:
    stats = Stats(runs, bandit.k, steps)
    policy.start(runs, bandit.k, steps)
    checked = type(policy) not in _VALID_BY_CONSTRUCTION
    for _ in range(steps):
        chosen = policy.select(stats, policy_rng)
        chosen = check_arm_choice(policy, chosen, stats) if checked else chosen.astype(np.int64, copy=False)
        rewards = bandit.pull(chosen, env_rng)
        stats.update(chosen, rewards)
        yield stats, chosen, rewards


_ROWS = 256
"""Steps of pulls that :func:`run` keeps before adding up their regret (``_ROWS * runs`` integers)."""


def _add_up(
    regret: np.ndarray, optimal_pulls: np.ndarray, gaps: np.ndarray, optimal: np.ndarray, pulled: np.ndarray
) -> None:
    """Add the regret and the optimal pulls of the steps in ``pulled`` (one row per step) to the totals, in place.

    The totals are bit for bit those of ``regret += gaps[chosen]`` after every step: a
    cumulative sum adds the steps one at a time, in order (``sum`` may add pairwise, which
    rounds differently), and counts of optimal pulls are exact. Doing it every few hundred
    steps saves each step two fancy indexings and two additions.
    """
    step_regret = gaps[pulled]
    step_regret[0] += regret
    np.cumsum(step_regret, axis=0, out=step_regret)
    regret[:] = step_regret[-1]
    optimal_pulls += np.count_nonzero(optimal[pulled], axis=0)


def run(
    policy: Policy,
    arms: Arms | Sequence[float],
    *,
    runs: int = 1000,
    steps: int = 10_000,
    seed: SeedLike = 0,
    record: Iterable[int] | None = None,
    progress: bool = True,
) -> BanditResult:
    """Run ``policy`` on ``arms`` for ``runs`` independent runs of ``steps`` pulls.

    Args:
        policy: the policy to evaluate.
        arms: a bandit, or a list of Bernoulli means in [0, 1].
        runs: independent runs, >= 1 (all advanced together; memory ~ ``runs * arms``).
        steps: pulls in each run (the horizon), >= 1.
        seed: an int, a ``SeedSequence``, a ``Generator`` or ``None``; the same seed
            gives the same result.
        record: the times (numbers of pulls, in [1, steps]) at which to measure;
            default :func:`log_grid`.
        progress: show a ``tqdm`` progress bar.

    Returns:
        A :class:`BanditResult`.

    Raises:
        TypeError: if ``runs`` or ``steps`` is not an integer, or ``seed`` not a seed.
        ValueError: for ``runs``/``steps`` < 1, bad ``record`` or means.
    """
    bandit = _as_arms(arms)
    steps = positive_int("steps", steps)
    times = log_grid(steps) if record is None else np.unique(np.asarray(list(record), dtype=np.int64))
    if times.size == 0 or times[0] < 1 or times[-1] > steps:
        raise ValueError(f"record times must lie in [1, steps] = [1, {steps}], got {times.tolist()}")
    gaps = bandit.gaps
    optimal = gaps == 0
    runs = positive_int("runs", runs)
    env_rng, policy_rng, recommend_rng = child_generators(seed, 3)
    regret = np.zeros(runs)
    optimal_pulls = np.zeros(runs)
    # The arms pulled since the totals were last brought up to date, one row per step
    # (see _add_up): a step only copies its choice here.
    pulled = np.empty((min(steps, _ROWS), runs), dtype=np.int64)
    filled = 0
    shape = (runs, times.size)
    out = {name: np.empty(shape) for name in METRICS}
    record_at = [*times.tolist(), 0]  # 0: no time left to record
    j = 0
    chunk = max(1, steps // 100)
    with tqdm(total=steps, desc=policy.name, disable=not progress, leave=False) as bar:
        for stats, chosen, _ in _simulate(policy, bandit, runs, steps, env_rng, policy_rng):
            pulled[filled] = chosen
            filled += 1
            if stats.t == record_at[j]:
                _add_up(regret, optimal_pulls, gaps, optimal, pulled[:filled])
                filled = 0
                out["regret"][:, j] = regret
                out["optimal_fraction"][:, j] = optimal_pulls / stats.t
                out["simple_regret"][:, j] = gaps[policy.recommend(stats, recommend_rng)]
                j += 1
            elif filled == len(pulled):
                _add_up(regret, optimal_pulls, gaps, optimal, pulled)
                filled = 0
            if stats.t % chunk == 0:
                bar.update(chunk)
        bar.update(steps - bar.n)  # the last partial chunk, so the bar ends at 100%
        bar.refresh()
    return BanditResult(
        policy=policy.name, means=bandit.means, times=times, counts=stats.counts.astype(np.int64), **out
    )


def compare(
    policies: Iterable[Policy],
    arms: Arms | Sequence[float],
    *,
    runs: int = 1000,
    steps: int = 10_000,
    seed: SeedLike = 0,
    record: Iterable[int] | None = None,
    progress: bool = True,
) -> dict[str, BanditResult]:
    """:func:`run` several policies on the same bandit with the same seed.

    Returns:
        Policy name -> :class:`BanditResult`, in the order given.

    Raises:
        ValueError: if two policies share a name, or as :func:`run`.
    """
    results: dict[str, BanditResult] = {}
    record = None if record is None else list(record)
    for policy in policies:
        if policy.name in results:
            raise ValueError(f"two policies are both named {policy.name!r}; give them different parameters")
        results[policy.name] = run(policy, arms, runs=runs, steps=steps, seed=seed, record=record, progress=progress)
    return results


@dataclass(frozen=True)
class Trace:
    """Every pull of a single run: what the confidence-interval pictures are drawn from.

    Attributes:
        policy: the policy's name.
        means: true means of the arms, shape ``(K,)``.
        arms: the arm pulled at each step, shape ``(T,)``.
        rewards: the reward received at each step, shape ``(T,)``.
    """

    policy: str
    means: np.ndarray
    arms: np.ndarray
    rewards: np.ndarray

    def counts(self, t: int) -> np.ndarray:
        """Pulls of each arm among the first ``t`` steps, shape ``(K,)``."""
        return np.bincount(self.arms[:t], minlength=self.means.size).astype(float)

    def sums(self, t: int) -> np.ndarray:
        """Reward collected from each arm in the first ``t`` steps, shape ``(K,)``."""
        return np.bincount(self.arms[:t], weights=self.rewards[:t], minlength=self.means.size)


def trace(policy: Policy, arms: Arms | Sequence[float], *, steps: int = 1000, seed: SeedLike = 0) -> Trace:
    """Play one run and keep every pull (see :class:`Trace`).

    Args:
        policy: the policy.
        arms: a bandit, or a list of Bernoulli means in [0, 1].
        steps: the number of pulls, >= 1.
        seed: as in :func:`run`.

    Returns:
        A :class:`Trace`.
    """
    bandit = _as_arms(arms)
    pulled, got = [], []
    for _, chosen, rewards in simulate(policy, bandit, runs=1, steps=steps, seed=seed):
        pulled.append(chosen[0])
        got.append(rewards[0])
    return Trace(policy.name, bandit.means, np.array(pulled, dtype=np.int64), np.array(got))
