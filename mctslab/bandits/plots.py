"""Figures for the bandit notebook: regret curves with bands, and confidence intervals at a time ``t``.

Experiments and pictures are separate: :mod:`~mctslab.bandits.experiment` computes,
these functions only draw what they are given, on an ``Axes`` you pass or a new
figure. matplotlib is imported when a function is called, so the package works
without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..ucb import SQRT2, ucb1
from ..validation import integer
from .experiment import BanditResult, Trace
from .theory import lai_robbins_bound, ucb1_regret_bound

__all__ = ["Snapshot", "plot_metric", "plot_pulls", "plot_snapshot", "snapshot"]

LABELS = {
    "regret": "cumulative regret",
    "simple_regret": "simple regret",
    "optimal_fraction": "fraction of optimal pulls",
}


def _axes(ax: Any, figsize: tuple[float, float] = (7.0, 4.5)) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_metric(
    results: Mapping[str, BanditResult] | Iterable[BanditResult],
    metric: str = "regret",
    *,
    ax: Any = None,
    band: tuple[float, float] | None = (10, 90),
    logx: bool = True,
    lai_robbins: bool = False,
    ucb1_bound: bool = False,
    colors: Mapping[str, str] | None = None,
) -> Any:
    """Mean of a measure against time for each result, with a percentile band across runs.

    Args:
        results: the results to draw (a dict from :func:`~mctslab.bandits.experiment.compare` or a list).
        metric: ``"regret"``, ``"simple_regret"`` or ``"optimal_fraction"``.
        ax: the matplotlib ``Axes`` to draw on (default: a new figure).
        band: the lower and upper percentiles of the shaded band, or ``None`` for no band.
        logx: a logarithmic time axis (where ``ln t`` growth is a straight line).
        lai_robbins: also draw the Lai-Robbins curve ``C ln t`` (Bernoulli arms).
        ucb1_bound: also draw Auer et al.'s (2002) upper bound for UCB1 with ``c = sqrt(2)``.
        colors: policy name -> matplotlib colour, to keep colours the same across panels
            (default: the colour cycle).

    Returns:
        The ``Axes``.
    """
    items = list(results.values()) if isinstance(results, Mapping) else list(results)
    ax = _axes(ax)
    for result in items:
        style = {"color": colors[result.policy]} if colors and result.policy in colors else {}
        (line,) = ax.plot(result.times, result.mean(metric), label=result.policy, lw=1.8, **style)
        if band is not None:
            low, high = result.percentiles(metric, band)
            ax.fill_between(result.times, low, high, color=line.get_color(), alpha=0.15, lw=0)
    if items and (lai_robbins or ucb1_bound):
        t = np.unique(np.concatenate([r.times for r in items]))
        if lai_robbins:
            ax.plot(t, lai_robbins_bound(items[0].means, t), "k--", lw=1.4, label="Lai-Robbins  C ln t")
        if ucb1_bound:
            ax.plot(t, ucb1_regret_bound(items[0].means, t), "k:", lw=1.4, label="UCB1 bound (Auer et al.)")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("pulls t" + (" (log scale)" if logx else ""))
    ax.set_ylabel(LABELS.get(metric, metric))
    if band is not None:
        ax.set_title(f"mean over runs; band: percentiles {band[0]:g}-{band[1]:g}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax


@dataclass(frozen=True)
class Snapshot:
    """The UCB1 confidence intervals of a single run after ``t`` pulls.

    Attributes:
        t: pulls so far.
        c: the exploration constant.
        means: true means, shape ``(K,)``.
        counts: pulls of each arm, shape ``(K,)``.
        estimates: empirical means (``nan`` for an arm never pulled).
        upper: the UCB1 index ``estimate + c sqrt(ln t / n_i)`` (``inf`` if never pulled).
        lower: ``estimate - c sqrt(ln t / n_i)``, the mirror image (``-inf`` if never pulled).
        next_arm: the arm pulled at step ``t + 1`` in the run, or ``None`` at the end.
    """

    t: int
    c: float
    means: np.ndarray
    counts: np.ndarray
    estimates: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    next_arm: int | None


def snapshot(trace: Trace, t: int, c: float = SQRT2) -> Snapshot:
    """The confidence intervals of ``trace`` after its first ``t`` pulls, from :func:`mctslab.ucb1`.

    Args:
        trace: a single run (from :func:`~mctslab.bandits.experiment.trace`).
        t: pulls to include, in ``[0, len(trace.arms)]``.
        c: the exploration constant, >= 0.

    Raises:
        TypeError: if ``t`` is not an integer.
        ValueError: if ``t`` is outside the trace or ``c < 0``.
    """
    horizon = len(trace.arms)
    t = integer("t", t, low=0, high=horizon, hint=" for this trace")
    counts = trace.counts(t)
    played = counts > 0
    estimates = np.where(played, trace.sums(t) / np.where(played, counts, 1.0), np.nan)
    upper = ucb1(np.where(played, estimates, 0.0), t, counts, c)
    lower = np.where(played, 2 * np.where(played, estimates, 0.0) - upper, -np.inf)
    next_arm = int(trace.arms[t]) if t < horizon else None
    return Snapshot(t, float(c), trace.means, counts, estimates, upper, lower, next_arm)


def plot_snapshot(snap: Snapshot, *, ax: Any = None) -> Any:
    """Draw each arm's interval ``[lower, upper]``, its estimate, its true mean and its pulls.

    The arm UCB1 pulls next (highest upper end) is drawn in red; an arm never pulled
    has an interval without end, drawn as the full [0, 1] range with an arrow.

    Returns:
        The ``Axes``.
    """
    ax = _axes(ax, (6.0, 4.0))
    k = snap.means.size
    x = np.arange(k)
    for i in x:
        color = "tab:red" if snap.next_arm == i else "tab:blue"
        if snap.counts[i] == 0:
            ax.annotate("", (i, 1.15), (i, -0.05), arrowprops={"arrowstyle": "->", "color": color, "lw": 2})
            continue
        low, high = max(snap.lower[i], -0.1), min(snap.upper[i], 1.2)
        ax.plot([i, i], [low, high], color=color, lw=6, alpha=0.35, solid_capstyle="butt")
        ax.plot(i, snap.estimates[i], "o", color=color)
        ax.text(i, -0.16, f"n={int(snap.counts[i])}", ha="center", va="top", fontsize=8)
    ax.plot(x, snap.means, "kx", ms=9, label="true mean")
    ax.set_xticks(x, [f"arm {i}" for i in x])
    ax.set_ylim(-0.25, 1.25)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axhline(1, color="grey", lw=0.5)
    ax.set_title(f"t = {snap.t}, c = {snap.c:.2f}: estimate +- c sqrt(ln t / n); red = pulled next", fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    return ax


def plot_pulls(trace: Trace, t: int | None = None, *, ax: Any = None) -> Any:
    """Pulls of each arm against time for a single run, with a marker at ``t``.

    Returns:
        The ``Axes``.
    """
    ax = _axes(ax, (6.0, 4.0))
    steps = np.arange(1, len(trace.arms) + 1)
    for i in range(trace.means.size):
        ax.plot(steps, np.cumsum(trace.arms == i), label=f"arm {i} (mean {trace.means[i]:.2f})")
    if t is not None:
        ax.axvline(t, color="k", lw=0.8, ls="--")
    ax.set_xlabel("pulls t")
    ax.set_ylabel("pulls of each arm")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return ax
