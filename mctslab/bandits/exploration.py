"""Policies for the best-arm question (simple regret): spend a budget, then name one arm.

At the root of a search tree nobody is paid for the playouts; what counts is the
move played at the end. That is a *pure exploration* problem (Bubeck, Munos and
Stoltz 2009): the measure is the simple regret ``mu* - mu_recommended`` after the
budget, not the rewards collected on the way.

* :class:`RoundRobin` gives every arm the same number of pulls: Racioppo 2020's flat
  Monte Carlo, ``it`` playouts for each move.
* :class:`SequentialHalving` (Karnin, Koren and Somekh 2013) plays in rounds and
  keeps the better half after each: Racioppo 2020's "windowed" Monte Carlo (search all
  moves, then the best 4, then the best 2) done with a budget that adds up.
* :class:`SuccessiveRejects` (Audibert, Bubeck and Munos 2010) drops the single
  worst arm after each of ``K - 1`` phases of growing length.

All three plan with the horizon (the budget), which :meth:`Policy.start` receives.
"""

from __future__ import annotations

import math

import numpy as np

from .policy import Policy, Stats, argmax_random

__all__ = ["EliminationPolicy", "RoundRobin", "SequentialHalving", "SuccessiveRejects"]


class RoundRobin(Policy):
    """Pull the arms in turn, 0, 1, ..., K-1, 0, 1, ... (uniform allocation).

    It never adapts, so its cumulative regret is linear; but its simple regret
    falls exponentially in the budget (Bubeck, Munos and Stoltz 2009), which is why
    flat Monte Carlo (Racioppo 2020) already picks good moves.
    """

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        return np.full(stats.runs, stats.t % stats.arms)


class EliminationPolicy(Policy):
    """Phases of round-robin pulls over the surviving arms, dropping the worst after each.

    Subclasses define :meth:`schedule`; this class plays it. Within a phase every
    surviving arm is pulled the same number of times, in turn; at the end of the
    phase the survivors are ranked by empirical mean (ties at random) and the
    best ``keep`` stay. Budget left after the last phase goes to the survivors in
    turn. :meth:`recommend` names the best survivor.
    """

    def __init__(self) -> None:
        self._phases: list[tuple[int, int]] = []
        self._active: np.ndarray | None = None

    def schedule(self, arms: int, horizon: int) -> list[tuple[int, int]]:
        """The phases as ``(pulls of each surviving arm, survivors kept afterwards)``.

        Raises:
            ValueError: if the horizon is too short for the method.
        """
        raise NotImplementedError

    def start(self, runs: int, arms: int, horizon: int) -> None:
        self._phases = self.schedule(arms, horizon)
        self._active = np.tile(np.arange(arms), (runs, 1))
        self._phase = 0
        self._phase_start = 0

    def _phase_length(self) -> float:
        if self._phase >= len(self._phases):
            return math.inf  # after the schedule, the survivors share what is left
        return self._phases[self._phase][0] * self._active.shape[1]

    def select(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        if self._active is None or self._active.shape[0] != stats.runs:
            raise ValueError(f"{self!r}: call start(runs, arms, horizon) before select()")
        # Close every phase that ends now (a phase may be empty).
        while stats.t - self._phase_start >= self._phase_length():
            self._phase_start += self._phase_length()
            keep = self._phases[self._phase][1]
            means = np.take_along_axis(stats.means, self._active, axis=1)
            # Sort by mean, best first; a random secondary key breaks ties fairly.
            order = np.lexsort((rng.random(means.shape), -means), axis=1)[:, :keep]
            self._active = np.take_along_axis(self._active, order, axis=1)
            self._phase += 1
        survivors = self._active.shape[1]
        return self._active[:, (stats.t - self._phase_start) % survivors]

    def recommend(self, stats: Stats, rng: np.random.Generator) -> np.ndarray:
        if self._active is None or self._active.shape[0] != stats.runs:
            return super().recommend(stats, rng)
        means = np.take_along_axis(stats.means, self._active, axis=1)
        return np.take_along_axis(self._active, argmax_random(means, rng)[:, None], axis=1)[:, 0]

    @property
    def survivors(self) -> np.ndarray | None:
        """The arms in play in the current (or final) phase of each run, shape ``(runs, m)``.

        ``None`` before :meth:`start`. When the budget ends exactly with the last
        phase, the last phase's arms are still listed; :meth:`recommend` names the
        best of them, which is the arm the final elimination would keep.
        """
        return None if self._active is None else self._active.copy()


class SequentialHalving(EliminationPolicy):
    """Halve the field each round: ``ceil(log2 K)`` rounds with equal budget per round.

    In a round with ``m`` surviving arms, each is pulled
    ``floor(n / (m * ceil(log2 K)))`` times; then the better ``ceil(m / 2)`` stay.
    With budget ``n`` its simple regret decays like ``exp(-n / (8 H2 log2 K))``
    (Karnin, Koren and Somekh 2013, Theorem 4.1); Gumbel MuZero uses it at the
    root (Danihelka et al. 2022).

    Raises:
        ValueError: from :meth:`start` if the budget cannot give every arm at least
            one pull in the first round (``n < K * ceil(log2 K)``).
    """

    def schedule(self, arms: int, horizon: int) -> list[tuple[int, int]]:
        rounds = max(1, math.ceil(math.log2(arms))) if arms > 1 else 0
        if rounds and horizon < arms * rounds:
            raise ValueError(
                f"sequential halving on {arms} arms needs a budget of at least "
                f"K * ceil(log2 K) = {arms * rounds} pulls, got {horizon}"
            )
        phases, m = [], arms
        for _ in range(rounds):
            phases.append((horizon // (m * rounds), math.ceil(m / 2)))
            m = math.ceil(m / 2)
        return phases


class SuccessiveRejects(EliminationPolicy):
    """Drop the worst arm after each of ``K - 1`` phases (Audibert, Bubeck and Munos 2010).

    With ``logbar(K) = 1/2 + sum_{i=2..K} 1/i`` and
    ``n_k = ceil((n - K) / (logbar(K) * (K + 1 - k)))`` (``n_0 = 0``), phase ``k``
    pulls each of the ``K + 1 - k`` survivors ``n_k - n_{k-1}`` times. The total is
    at most ``n``, and the probability of naming a wrong arm is at most
    ``K (K - 1) / 2 * exp(-(n - K) / (logbar(K) H2))`` (their Theorem 2).

    Raises:
        ValueError: from :meth:`start` if the budget is not larger than ``K``.
    """

    def schedule(self, arms: int, horizon: int) -> list[tuple[int, int]]:
        if arms == 1:
            return []
        if horizon <= arms:
            raise ValueError(f"successive rejects on {arms} arms needs a budget larger than K = {arms}, got {horizon}")
        logbar = 0.5 + sum(1.0 / i for i in range(2, arms + 1))
        phases, previous = [], 0
        for k in range(1, arms):
            n_k = math.ceil((horizon - arms) / (logbar * (arms + 1 - k)))
            phases.append((n_k - previous, arms - k))
            previous = n_k
        return phases
