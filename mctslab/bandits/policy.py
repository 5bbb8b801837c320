"""The interface every bandit policy implements, and the statistics it reads.

A policy plays many independent runs at once. At each step it reads a
:class:`Stats` (pull counts and reward sums, one row per run, one column per arm)
and returns one arm per run. Everything is a NumPy array, so one Python step
advances a thousand runs; this is what makes the course's regret plots take
seconds rather than minutes.

To write your own policy (as in the exercises of ``notebooks/01_bandits_and_ucb1.ipynb``),
subclass :class:`Policy` and implement :meth:`Policy.select`; use
:func:`argmax_random` to pick the best arm of each run with ties broken at random.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Policy", "Stats", "argmax_random", "check_arm_choice"]


class Stats:
    """Per-run, per-arm statistics of a batch of bandit runs (what a policy sees).

    All arrays have shape ``(runs, arms)`` and are updated in place after every step;
    policies read them and never write them.

    Attributes:
        runs: number of independent runs ``R`` (rows), >= 1.
        arms: number of arms ``K`` (columns), >= 1.
        horizon: the total number of steps the experiment will play (policies such
            as explore-then-commit and sequential halving plan with it).
        t: pulls made so far in each run (the same in every run), from 0 to ``horizon``.
        counts: ``n_i``, the number of pulls of each arm (``float64`` so that it can
            be divided without conversion).
        sums: the total reward collected from each arm.
        sumsq: the total squared reward of each arm (for variance-aware policies).
        means: ``sums / counts``, the empirical mean of each arm; 0 for an arm never pulled.
    """

    def __init__(self, runs: int, arms: int, horizon: int) -> None:
        self.runs = runs
        self.arms = arms
        self.horizon = horizon
        self.t = 0
        self.counts = np.zeros((runs, arms))
        self.sums = np.zeros((runs, arms))
        self.sumsq = np.zeros((runs, arms))
        self.means = np.zeros((runs, arms))
        # Flat offsets of each run's row, so that one pull per run is one fancy index.
        self._row_start = np.arange(runs) * arms

    def update(self, arms: np.ndarray, rewards: np.ndarray) -> None:
        """Record that run ``r`` pulled ``arms[r]`` and received ``rewards[r]``.

        Args:
            arms: integer array of shape ``(runs,)`` with values in ``[0, K)``.
            rewards: array of shape ``(runs,)`` with values in [0, 1].
        """
        flat = self._row_start + arms
        counts = self.counts.reshape(-1)
        sums = self.sums.reshape(-1)
        new_counts = counts[flat] + 1.0
        new_sums = sums[flat] + rewards
        counts[flat] = new_counts
        sums[flat] = new_sums
        self.sumsq.reshape(-1)[flat] += rewards * rewards
        self.means.reshape(-1)[flat] = new_sums / new_counts
        self.t += 1

    def __repr__(self) -> str:
        return f"Stats(runs={self.runs}, arms={self.arms}, t={self.t}, horizon={self.horizon})"


def argmax_random(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The column of the largest value in each row, ties broken uniformly at random.

    Breaking ties by the lowest index (what ``np.argmax`` does) would favour the
    first arms: a greedy player whose arms all returned 0 would always retry arm 0.

    Args:
        values: array of shape ``(runs, arms)``; ``inf`` is allowed (unplayed arms).
        rng: the generator used only for rows that have a tie.

    Returns:
        ``int64`` array of shape ``(runs,)``.
    """
    best = values.argmax(axis=1)
    top = values[np.arange(values.shape[0]), best][:, None]
    # Most steps have no tie, and one count says so: ``values < top`` is true everywhere
    # but at a row's maxima (and nowhere in a row whose maximum is NaN), so R (K - 1)
    # cells are true only when every row has one maximum. (Counting along each row, as
    # below, costs three times as much in a bandit experiment's loop.)
    below = values < top
    if np.count_nonzero(below) == below.size - below.shape[0]:
        return best
    ties = values == top
    tied_rows = np.flatnonzero(np.count_nonzero(ties, axis=1) > 1)
    if tied_rows.size:
        # A uniform number on every tied column and 0 elsewhere: the largest wins.
        scores = rng.random((tied_rows.size, values.shape[1])) * ties[tied_rows]
        best[tied_rows] = scores.argmax(axis=1)
    return best


def check_arm_choice(policy: Policy, arms: object, stats: Stats) -> np.ndarray:
    """Check what :meth:`Policy.select` returned; explain the mistake if it is wrong.

    Returns:
        The choice as an ``int64`` array of shape ``(runs,)``.

    Raises:
        ValueError: if the choice has the wrong shape, is not integer, or names an
            arm outside ``[0, K)``.
    """
    choice = np.asarray(arms)
    if choice.shape != (stats.runs,):
        raise ValueError(
            f"{policy!r}.select() must return one arm per run, shape ({stats.runs},), got shape {choice.shape}"
        )
    if choice.dtype.kind not in "iu":
        raise ValueError(f"{policy!r}.select() must return integer arm indices, got dtype {choice.dtype}")
    low, high = int(choice.min()), int(choice.max())
    if low < 0 or high >= stats.arms:
        bad = low if low < 0 else high
        raise ValueError(f"{policy!r}.select() chose arm {bad}; arms are numbered 0 to {stats.arms - 1}")
    return choice.astype(np.int64, copy=False)


class Policy(ABC):
    """A bandit policy: which arm to pull next, in every run at once.

    Subclasses implement :meth:`select`; those that plan ahead or keep their own
    memory override :meth:`start`, which is called before each experiment.
    :meth:`recommend` answers the best-arm question (simple regret) and by default
    names the arm with the highest empirical mean.
    """

    @property
    def name(self) -> str:
        """A short label for legends and tables, e.g. ``"UCB1(c=1.41)"``."""
        return type(self).__name__

    def start(self, runs: int, arms: int, horizon: int) -> None:  # noqa: B027 (optional hook)
        """Forget everything and prepare for ``runs`` runs of ``horizon`` steps on ``arms`` arms.

        The default does nothing; policies with their own state override it.
        """

    @abstractmethod
    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        """The arm to pull next in each run.

        Args:
            stats: the statistics so far (read only).
            rng: the policy's own generator; use it for every random choice.

        Returns:
            Integer array of shape ``(stats.runs,)`` with values in ``[0, stats.arms)``.
        """

    def recommend(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        """The arm each run would name as the best if it had to stop now.

        The default is the empirical best arm among those pulled at least once
        (ties at random); an unplayed arm is named only when nothing has been pulled.
        """
        return argmax_random(np.where(stats.counts > 0, stats.means, -np.inf), rng)

    def __repr__(self) -> str:
        return self.name
