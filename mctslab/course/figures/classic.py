"""Pictures of notebook 11: failure rate against the budget on random P-game trees (Kocsis & Szepesvári 2006)."""

from __future__ import annotations

from typing import Any

from ..experiments.classic import LABELS, FailureCurves
from .plots import _axes

COLOURS = {"uct": "#3b75af", "mc": "#d1603d", "mmmc": "#4a9a5a", "alphabeta": "#8a5aa8"}


def plot_failure(curves: FailureCurves, ax: Any = None, title: str = "") -> Any:
    """Each algorithm's failure rate against N (log scale), with 95% Wilson intervals.

    A dotted line marks the exact failure rate of a uniformly random root move.
    """
    ax = _axes(ax)
    for algorithm in curves.algorithms():
        points = curves.curve(algorithm)
        xs = [p.budget for p in points]
        ys = [p.rate for p in points]
        cis = [p.ci() for p in points]
        low = [y - lo for y, (lo, _) in zip(ys, cis, strict=True)]
        high = [hi - y for y, (_, hi) in zip(ys, cis, strict=True)]
        colour = COLOURS[algorithm]
        ax.errorbar(xs, ys, yerr=[low, high], marker="o", ms=3, capsize=2, label=LABELS[algorithm], color=colour)
    ax.axhline(float(curves.random_rate), ls=":", color="grey", label="random root move (exact)")
    ax.set_xscale("log", base=2)
    setup = curves.setup
    ax.set(
        xlabel="N (iterations; positions for alpha-beta)",
        ylabel="failure rate",
        ylim=(0, None),
        title=title or f"P-game B={setup.branching}, D={setup.depth}, {setup.trees} trees",
    )
    ax.legend(fontsize="small")
    return ax
