"""What theory says regret should look like: the curves the experiments are plotted against.

* :func:`hoeffding_radius`: how far an empirical mean of ``n`` rewards in [0, 1] can
  be above or below the truth, except with probability ``delta`` (Hoeffding 1963).
  With ``delta = t^-4`` it is UCB1's exploration term with ``c = sqrt(2)``.
* :func:`lai_robbins_bound`: no reasonable policy can do better, asymptotically,
  than ``ln n * sum_i gap_i / kl(mu_i, mu*)`` (Lai and Robbins 1985).
* :func:`ucb1_regret_bound`: UCB1 with ``c = sqrt(2)`` never does worse than
  ``sum_i 8 ln n / gap_i + (1 + pi^2/3) sum_i gap_i`` (Auer, Cesa-Bianchi and
  Fischer 2002, Theorem 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .arms import check_means

__all__ = ["bernoulli_kl", "hoeffding_radius", "lai_robbins_bound", "lai_robbins_coefficient", "ucb1_regret_bound"]


def hoeffding_radius(n: float | np.ndarray, delta: float | np.ndarray) -> float | np.ndarray:
    """One-sided Hoeffding radius ``sqrt(ln(1/delta) / (2 n))``.

    For ``n`` independent rewards in [0, 1] with mean ``mu`` and empirical mean ``m``,
    Hoeffding's inequality ``P(m - mu >= u) <= exp(-2 n u^2)`` gives
    ``P(m - mu >= hoeffding_radius(n, delta)) <= delta``, and the same below.
    Setting ``delta = t^-4`` gives ``sqrt(2 ln t / n)``, the UCB1 bonus.

    Args:
        n: number of samples, > 0 (scalar or array).
        delta: the allowed failure probability, in (0, 1].

    Returns:
        The radius, a float or an array of the broadcast shape.

    Raises:
        ValueError: if ``n <= 0`` or ``delta`` is outside (0, 1].
    """
    n_arr, d_arr = np.asarray(n, dtype=float), np.asarray(delta, dtype=float)
    if np.any(n_arr <= 0):
        raise ValueError(f"the number of samples n must be > 0, got {n!r}")
    if np.any((d_arr <= 0) | (d_arr > 1)):
        raise ValueError(f"delta is a probability of failure and must be in (0, 1], got {delta!r}")
    radius = np.sqrt(np.log(1.0 / d_arr) / (2.0 * n_arr))
    return float(radius) if radius.ndim == 0 else radius


def bernoulli_kl(p: float | np.ndarray, q: float | np.ndarray) -> float | np.ndarray:
    """Kullback-Leibler divergence ``kl(p, q)`` between Bernoulli(p) and Bernoulli(q), in nats.

    ``kl(p, q) = p ln(p / q) + (1 - p) ln((1 - p) / (1 - q))``, with ``0 ln 0 = 0``; it is
    ``inf`` when ``q`` is 0 or 1 and ``p`` is not.

    Args:
        p: first mean, in [0, 1] (scalar or array).
        q: second mean, in [0, 1].

    Returns:
        ``kl(p, q) >= 0``, a float or an array of the broadcast shape.

    Raises:
        ValueError: if ``p`` or ``q`` lies outside [0, 1].
    """
    p_arr, q_arr = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    for name, arr in (("p", p_arr), ("q", q_arr)):
        if np.any(~((arr >= 0) & (arr <= 1))):
            raise ValueError(f"bernoulli_kl needs means in [0, 1]; {name} = {arr!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.where(p_arr > 0, p_arr * np.log(p_arr / q_arr), 0.0)
        down = np.where(p_arr < 1, (1 - p_arr) * np.log((1 - p_arr) / (1 - q_arr)), 0.0)
    kl = up + down
    return float(kl) if kl.ndim == 0 else kl


def lai_robbins_coefficient(means: Sequence[float] | np.ndarray) -> float:
    """The constant ``C = sum over suboptimal arms of gap_i / kl(mu_i, mu*)`` for Bernoulli arms.

    Lai and Robbins (1985) proved that every policy whose regret is ``o(n^a)`` for
    every ``a > 0`` on every Bernoulli bandit satisfies
    ``liminf regret(n) / ln n >= C``. It is an asymptotic statement: at small ``n`` a
    policy may be below ``C ln n``.

    Args:
        means: the true Bernoulli means, in [0, 1]; at least one arm.

    Returns:
        ``C >= 0`` (0 when all arms are equally good).

    Raises:
        ValueError: if ``means`` is empty or outside [0, 1].
    """
    mu = check_means(means)
    best = mu.max()
    sub = mu[mu < best]
    if sub.size == 0:
        return 0.0
    return float(np.sum((best - sub) / bernoulli_kl(sub, best)))


def lai_robbins_bound(means: Sequence[float] | np.ndarray, t: float | np.ndarray) -> float | np.ndarray:
    """The Lai-Robbins asymptotic lower bound ``C ln t`` on regret (see :func:`lai_robbins_coefficient`).

    Args:
        means: the true Bernoulli means, in [0, 1].
        t: the number of pulls, >= 1 (scalar or array).

    Returns:
        ``C ln t``, a float or an array shaped like ``t``.

    Raises:
        ValueError: if ``means`` is invalid or ``t < 1``.
    """
    t_arr = np.asarray(t, dtype=float)
    if np.any(t_arr < 1):
        raise ValueError(f"t counts pulls and must be >= 1, got {t!r}")
    bound = lai_robbins_coefficient(means) * np.log(t_arr)
    return float(bound) if bound.ndim == 0 else bound


def ucb1_regret_bound(means: Sequence[float] | np.ndarray, t: float | np.ndarray) -> float | np.ndarray:
    """Auer, Cesa-Bianchi and Fischer's (2002) upper bound on UCB1's expected regret, ``c = sqrt(2)``.

    ``sum_i 8 ln t / gap_i + (1 + pi^2 / 3) sum_i gap_i`` over the suboptimal arms
    (their Theorem 1). It holds for every ``t`` and any rewards in [0, 1], and it is
    loose: the ``8`` comes from the proof, not from UCB1.

    Args:
        means: the true means, in [0, 1].
        t: the number of pulls, >= 1 (scalar or array).

    Returns:
        The bound, a float or an array shaped like ``t``.

    Raises:
        ValueError: if ``means`` is invalid or ``t < 1``.
    """
    mu = check_means(means)
    t_arr = np.asarray(t, dtype=float)
    if np.any(t_arr < 1):
        raise ValueError(f"t counts pulls and must be >= 1, got {t!r}")
    gaps = mu.max() - mu
    gaps = gaps[gaps > 0]
    bound = 8.0 * np.log(t_arr) * np.sum(1.0 / gaps) + (1.0 + math.pi**2 / 3.0) * np.sum(gaps)
    return float(bound) if bound.ndim == 0 else bound
