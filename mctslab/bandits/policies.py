"""Policies that earn while they learn (cumulative regret): from greedy to Thompson sampling.

Each is a small class with the interface of :class:`~mctslab.bandits.policy.Policy`.
The list runs from what goes wrong to what works:

* :class:`Greedy` always plays the best-looking arm and can lock onto a bad one.
* :class:`EpsilonGreedy` explores at random a fixed fraction of the time: regret grows linearly.
* :class:`ExploreThenCommit` explores uniformly for a while, then never again.
* :class:`UCB1` plays the arm with the highest upper confidence bound, the formula
  :func:`mctslab.ucb1` that UCT uses at every node (Auer, Cesa-Bianchi and Fischer 2002).
* :class:`UCB1Tuned` replaces Hoeffding's worst-case variance with the observed one
  (same paper; the variant MoGo used in its tree, Gelly et al. 2006).
* :class:`ThompsonSampling` plays each arm with the probability that it is the best
  under a Beta posterior (Thompson 1933; Agrawal and Goyal 2012).
"""

from __future__ import annotations

import math

import numpy as np

from ..ucb import SQRT2, ucb1
from ..validation import non_negative_number, positive_int, probability
from .policy import Policy, Stats, argmax_random

__all__ = ["EpsilonGreedy", "ExploreThenCommit", "Greedy", "ThompsonSampling", "UCB1", "UCB1Tuned"]


def _untried_first(stats: Stats) -> np.ndarray:
    """Empirical means, with ``+inf`` for arms never pulled (so they are tried first)."""
    if stats.counts.min() > 0:
        return stats.means  # every arm pulled (most steps): nothing to replace, and callers only read it
    return np.where(stats.counts > 0, stats.means, np.inf)


class Greedy(Policy):
    """Try every arm once, then always pull the arm with the best empirical mean.

    Pure exploitation. With Bernoulli arms it can lock onto a bad arm for ever: if
    the best arm pays 0 on its first pull while a worse arm pays 1, the worse arm's
    mean never falls to 0, so the best arm is never tried again. Its regret is
    linear in the horizon (``notebooks/01_bandits_and_ucb1.ipynb``).
    """

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        return argmax_random(_untried_first(stats), rng)


class EpsilonGreedy(Policy):
    """With probability ``epsilon`` pull a uniformly random arm, otherwise act greedily.

    The oldest fix for :class:`Greedy` (Sutton and Barto, *Reinforcement Learning*,
    section 2.2). A fixed ``epsilon`` never stops exploring, so its regret grows
    linearly, about ``epsilon * mean gap`` per step; a decreasing ``epsilon`` is one of
    the notebook's exercises.

    Args:
        epsilon: the exploration probability, in [0, 1] (default 0.1).

    Raises:
        TypeError: if ``epsilon`` is not a number.
        ValueError: if ``epsilon`` is outside [0, 1].
    """

    def __init__(self, epsilon: float = 0.1) -> None:
        self.epsilon = probability("epsilon", epsilon, hint=" (a probability)")

    @property
    def name(self) -> str:
        return f"EpsilonGreedy(epsilon={self.epsilon:g})"

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        greedy = argmax_random(_untried_first(stats), rng)
        explore = rng.random(stats.runs) < self.epsilon
        return np.where(explore, rng.integers(0, stats.arms, size=stats.runs), greedy)


class ExploreThenCommit(Policy):
    """Pull every arm ``m`` times in turn, then commit to the empirical best for good.

    Its regret is of order ``m * sum of gaps`` plus a linear term if the commitment
    is wrong; the best ``m`` depends on the gaps and the horizon, which a player
    does not know (Lattimore and Szepesvari, *Bandit Algorithms*, 2020, chapter 6).

    Args:
        m: pulls of each arm in the exploration phase, >= 1 (default 50).

    Raises:
        TypeError: if ``m`` is not an integer.
        ValueError: if ``m`` < 1.
    """

    def __init__(self, m: int = 50) -> None:
        self.m = positive_int("m (pulls of each arm before committing)", m)
        self._commit: np.ndarray | None = None

    @property
    def name(self) -> str:
        return f"ExploreThenCommit(m={self.m})"

    def start(self, runs: int, arms: int, horizon: int) -> None:
        self._commit = None

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        if stats.t < self.m * stats.arms:
            return np.full(stats.runs, stats.t % stats.arms)
        if self._commit is None:
            self._commit = argmax_random(stats.means, rng)
        return self._commit


class UCB1(Policy):
    """Pull the arm with the highest upper confidence bound ``mean + c * sqrt(ln t / n_i)``.

    The index is :func:`mctslab.ucb1`, the same function UCT calls at every node,
    with ``t`` the number of pulls so far and ``n_i`` those of arm ``i``. An arm never
    pulled has an infinite bound, so every arm is pulled once first. With
    ``c = sqrt(2)`` the expected regret after ``n`` pulls is at most
    ``sum_i 8 ln n / gap_i + (1 + pi^2 / 3) sum_i gap_i`` (Auer, Cesa-Bianchi and
    Fischer 2002, Theorem 1; see :func:`mctslab.bandits.theory.ucb1_regret_bound`).

    Args:
        c: the exploration constant, >= 0 (default ``sqrt(2)``); 0 is greedy.

    Raises:
        TypeError: if ``c`` is not a number.
        ValueError: if ``c`` is negative.
    """

    def __init__(self, c: float = SQRT2) -> None:
        self.c = non_negative_number("the exploration constant c", c, hint=" (sqrt(2) in Auer et al. 2002)")

    @property
    def name(self) -> str:
        return f"UCB1(c={self.c:.3g})"

    def index(self, stats: Stats) -> np.ndarray:
        """The upper confidence bound of every arm in every run, shape ``(runs, arms)``."""
        return ucb1(stats.means, stats.t, stats.counts, self.c)

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        return argmax_random(self.index(stats), rng)


class UCB1Tuned(Policy):
    """UCB1 with the observed variance in the confidence width (Auer et al. 2002, section 4).

    Hoeffding's inequality assumes the worst variance a [0, 1] reward can have, 1/4.
    UCB1-Tuned uses an upper estimate ``V_i = s_i^2 + sqrt(2 ln t / n_i)`` of arm ``i``'s
    variance instead, capped at 1/4:
    ``mean_i + sqrt(ln t / n_i * min(1/4, V_i))``. That is :func:`mctslab.ucb1` with
    ``c = 1`` and ``n_i / min(1/4, V_i)`` plays in place of ``n_i``, so it is computed
    with that one function. There is no regret bound for it, but it does better than
    UCB1 in practice; MoGo used it at every node (Gelly et al. 2006).
    """

    def index(self, stats: Stats) -> np.ndarray:
        """The UCB1-Tuned bound of every arm in every run, shape ``(runs, arms)``."""
        n = stats.counts
        safe_n = np.maximum(n, 1.0)  # unplayed arms: any finite value, their effective count stays 0
        log_t = math.log(max(stats.t, 1))
        variance = np.maximum(stats.sumsq / safe_n - stats.means**2, 0.0)
        v = np.minimum(0.25, variance + np.sqrt(2.0 * log_t / safe_n))
        # v > 0 wherever t > 1; at t = 1 the bonus is 0 whatever the effective count.
        return ucb1(stats.means, stats.t, n / np.maximum(v, 1e-300), 1.0)

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        return argmax_random(self.index(stats), rng)


class ThompsonSampling(Policy):
    """Sample a mean for every arm from its Beta posterior and pull the largest (Beta-Bernoulli).

    With prior ``Beta(a, b)`` and ``s_i`` successes in ``n_i`` pulls, arm ``i``'s posterior
    is ``Beta(a + s_i, b + n_i - s_i)`` (:meth:`posterior`). For 0/1 rewards this is
    the exact Bayesian update; for rewards in between, ``s_i`` is the reward sum (the
    usual fractional generalisation). Thompson (1933) proposed it; Agrawal and
    Goyal (2012) and Kaufmann, Korda and Munos (2012) proved that for Bernoulli arms
    it attains the Lai-Robbins lower bound.

    Args:
        a: the prior's first parameter (pseudo-successes), > 0 (default 1).
        b: the prior's second parameter (pseudo-failures), > 0 (default 1, so the
            prior is uniform on [0, 1]).

    Raises:
        TypeError: if ``a`` or ``b`` is not a number.
        ValueError: if ``a`` or ``b`` is not positive.
    """

    def __init__(self, a: float = 1.0, b: float = 1.0) -> None:
        self.a = non_negative_number("the prior parameter a", a)
        self.b = non_negative_number("the prior parameter b", b)
        if self.a == 0.0 or self.b == 0.0:
            raise ValueError(f"the Beta prior needs a > 0 and b > 0, got a={a!r}, b={b!r}")

    @property
    def name(self) -> str:
        if self.a == 1.0 and self.b == 1.0:
            return "Thompson"
        return f"Thompson(a={self.a:g}, b={self.b:g})"

    def posterior(self, stats: Stats) -> tuple[np.ndarray, np.ndarray]:
        """The Beta posterior parameters ``(alpha, beta)`` of every arm, each of shape ``(runs, arms)``."""
        return self.a + stats.sums, self.b + (stats.counts - stats.sums)

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        alpha, beta = self.posterior(stats)
        # Beta(alpha, beta) = X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta);
        # two gamma draws are faster than numpy's beta() for array parameters.
        x = rng.standard_gamma(alpha)
        y = rng.standard_gamma(beta)
        # Independent continuous draws tie with probability 0, so plain argmax is fair.
        return np.argmax(x / (x + y), axis=1)
