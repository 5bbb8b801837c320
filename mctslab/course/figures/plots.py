"""Drawing the experiments' results: every function draws what it is given on an ``Axes``.

Experiments and pictures are separate (:mod:`mctslab.course.experiments` computes).
Each function takes an ``ax`` (a new figure when it is ``None``) and returns it, so a
notebook cell and a figure file draw the same picture. matplotlib is imported only
when a function is called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...exact import Odds
from ...games.tictactoe import TicTacToe, TicTacToeState
from ...tournament import EloRatings, Outcomes, games_needed, wilson
from ..experiments.curves import Curve
from ..experiments.decisions import ChoiceRates, Quality
from ..experiments.strength import Grid

OUTCOME_COLOURS = {"X wins": "#3b75af", "draw": "#9a9a9a", "O wins": "#d1603d"}


def _axes(ax: Any, figsize: tuple[float, float] = (6.0, 4.0)) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_random_play(sample: Outcomes, exact: Odds, ax: Any = None) -> Any:
    """Bars of the exact outcome probabilities of random play, with the simulated rates and their intervals."""
    ax = _axes(ax, (5.0, 3.5))
    names = list(OUTCOME_COLOURS)
    exact_values = [exact.first, exact.draw, exact.second]
    counts = [sample.wins, sample.draws, sample.losses]
    xs = np.arange(3)
    ax.bar(xs, exact_values, color=list(OUTCOME_COLOURS.values()), alpha=0.55, label="exact (enumeration)")
    rates = [k / sample.games for k in counts]
    bands = np.array([wilson(k, sample.games) for k in counts])
    ax.errorbar(
        xs,
        rates,
        yerr=[np.subtract(rates, bands[:, 0]), np.subtract(bands[:, 1], rates)],
        fmt="o",
        color="black",
        capsize=4,
        label=f"{sample.games:,} random games (95%)",
    )
    for x, v in zip(xs, exact_values, strict=True):
        ax.annotate(f"{v:.1%}", (x - 0.38, v), textcoords="offset points", xytext=(0, 4), ha="left", fontsize=9)
    ax.set_xticks(xs, names)
    ax.set_ylim(0, 0.75)
    ax.set_ylabel("probability")
    ax.set_title("random play from the empty board")
    ax.legend(fontsize=8, loc="upper right")
    return ax


def plot_board(
    game: TicTacToe,
    state: TicTacToeState,
    ax: Any = None,
    values: Mapping[int, float] | None = None,
    labels: Mapping[int, str] | None = None,
    cmap: str = "RdYlGn",
    vmin: float = -1.0,
    vmax: float = 1.0,
    marked: Sequence[int] = (),
    title: str = "",
) -> Any:
    """A tic-tac-toe board: stones, empty cells coloured by ``values`` and written with ``labels``.

    Args:
        game: the tic-tac-toe game (any n x n).
        state: the position.
        ax: where to draw.
        values: cell -> number, coloured with ``cmap`` between ``vmin`` and ``vmax``.
        labels: cell -> text written in the cell.
        marked: cells outlined in black (e.g. the move a player chose).
        title: the axis' title.
    """
    import matplotlib as mpl

    ax = _axes(ax, (3.0, 3.0))
    n = game.n
    colours = mpl.colormaps[cmap]
    for cell in range(n * n):
        r, c = divmod(cell, n)
        face = "white"
        if values is not None and cell in values:
            face = colours((values[cell] - vmin) / (vmax - vmin))
        ax.add_patch(mpl.patches.Rectangle((c, n - 1 - r), 1, 1, facecolor=face, edgecolor="#555555"))
        stone = "X" if state.x >> cell & 1 else "O" if state.o >> cell & 1 else ""
        if stone:
            colour = OUTCOME_COLOURS["X wins" if stone == "X" else "O wins"]
            ax.text(c + 0.5, n - 0.5 - r, stone, ha="center", va="center", fontsize=26, color=colour, weight="bold")
        elif labels is not None and cell in labels:
            ax.text(c + 0.5, n - 0.5 - r, labels[cell], ha="center", va="center", fontsize=9)
        if cell in marked:
            ax.add_patch(mpl.patches.Rectangle((c, n - 1 - r), 1, 1, fill=False, edgecolor="black", linewidth=3))
    ax.set_xlim(0, n)
    ax.set_ylim(0, n)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def plot_choice_rates(
    rates: ChoiceRates,
    series: Mapping[str, Sequence[int]],
    ax: Any = None,
    predicted: Mapping[str, Sequence[float]] | None = None,
    xlabel: str = "playouts per move",
    title: str = "",
) -> Any:
    """How often each group of moves was chosen against the budget, with Wilson 95% bands.

    Args:
        rates: the experiment's result.
        series: legend label -> the moves counted together (e.g. ``{"centre": [4]}``).
        ax: where to draw.
        predicted: legend label -> a predicted rate per budget, drawn dashed.
        xlabel: the x axis' label.
        title: the axis' title.
    """
    ax = _axes(ax)
    for label, moves in series.items():
        band = rates.band(moves)
        (line,) = ax.plot(rates.budgets, rates.rate(moves), "o-", markersize=4, label=label)
        ax.fill_between(rates.budgets, band[:, 0], band[:, 1], color=line.get_color(), alpha=0.2, linewidth=0)
        if predicted is not None and label in predicted:
            ax.plot(rates.budgets, predicted[label], "--", color=line.get_color(), label=f"{label}: from exact odds")
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"fraction of {rates.decisions} decisions")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return ax


def plot_quality(qualities: Sequence[Quality], axes: Sequence[Any] | None = None) -> Sequence[Any]:
    """Two panels against the playouts spent: mean simple regret (log scale, +-2 standard errors), perfect-move rate."""
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(11, 4))
    left, right = axes
    for q in qualities:
        (line,) = left.plot(q.spent, q.regret, "o-", markersize=4, label=q.label)
        low = np.maximum(q.regret - 2 * q.regret_se, 1e-4)
        left.fill_between(q.spent, low, q.regret + 2 * q.regret_se, color=line.get_color(), alpha=0.2, linewidth=0)
        right.plot(q.spent, q.perfect, "o-", markersize=4, color=line.get_color(), label=q.label)
    left.set_yscale("log")
    left.set_ylabel("simple regret (flat value lost)")
    left.set_title("how far from the move pure Monte Carlo converges to")
    right.set_ylabel("fraction of perfect-play moves")
    right.set_title("how often the move is one perfect play allows")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("playouts per decision")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return axes


def plot_curves(
    curves: Sequence[Curve], rate: str = "score", ax: Any = None, xlabel: str = "playouts per decision", title: str = ""
) -> Any:
    """Curves of a rate against the budget, with Wilson 95% bands, on a log x axis."""
    ax = _axes(ax)
    for curve in curves:
        values, bands = curve.rates(rate), curve.bands(rate)
        (line,) = ax.plot(curve.xs, values, "o-", markersize=4, label=curve.label)
        ax.fill_between(curve.xs, bands[:, 0], bands[:, 1], color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel({"score": "score (wins + draws / 2)", "win": "win rate", "loss": "loss rate"}[rate])
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return ax


def plot_score_curve(
    curve: Curve, ax: Any = None, xlabel: str = "iterations per move (both sides)", title: str = ""
) -> Any:
    """One variant's score against a baseline at equal budgets, with Wilson 95% bands and the even line at 1/2.

    The budgets (``curve.xs``) are marked on the log x axis; a band that leaves the line
    at 1/2 is where the variant is shown better (above) or worse (below).
    """
    ax = plot_curves([curve], "score", ax=ax, xlabel=xlabel, title=title)
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1, label=f"even with {curve.opponent}")
    ax.set_xticks(list(curve.xs), [f"{x:g}" for x in curve.xs])
    ax.minorticks_off()
    ax.set_ylim(0.0, 1.0)
    ax.legend(fontsize=8)
    return ax


def plot_grid(grid: Grid, ax: Any = None, title: str = "") -> Any:
    """A heat map of UCT's score over ``c`` (rows) and iterations (columns), each cell written out."""
    ax = _axes(ax, (7.0, 4.5))
    scores = grid.scores()
    image = ax.imshow(scores, cmap="viridis", vmin=0.0, vmax=max(0.5, float(scores.max())), aspect="auto")
    for i in range(len(grid.cs)):
        for j in range(len(grid.budgets)):
            colour = "white" if scores[i, j] < 0.35 else "black"
            ax.text(j, i, f"{scores[i, j]:.2f}", ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(len(grid.budgets)), [str(b) for b in grid.budgets])
    ax.set_yticks(range(len(grid.cs)), [f"{c:g}" for c in grid.cs])
    ax.set_xlabel("UCT iterations per move")
    ax.set_ylabel("exploration constant c")
    games = grid.outcomes[0][0].games
    opponent = "perfect play" if grid.opponent == "perfect" else grid.opponent
    ax.set_title(title or f"UCT's score against {opponent} ({games} games per cell)")
    ax.figure.colorbar(image, ax=ax, label="score")
    return ax


def plot_elo(elo: EloRatings, ax: Any = None, title: str = "") -> Any:
    """Elo ratings with their 95% intervals, best at the top."""
    ax = _axes(ax, (6.0, 0.5 + 0.45 * len(elo.names)))
    order = elo.ranking()[::-1]
    ys = np.arange(len(order))
    values = np.array([elo.elo[i] for i in order])
    lows = np.array([elo.ci95[i][0] for i in order])
    highs = np.array([elo.ci95[i][1] for i in order])
    ax.errorbar(values, ys, xerr=[values - lows, highs - values], fmt="o", capsize=4, color="#3b75af")
    ax.set_yticks(ys, [elo.names[i] for i in order])
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("Elo (relative to the mean), 95% interval")
    if title:
        ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_games_needed(base: float = 0.5, ax: Any = None, differences: Sequence[float] | None = None) -> Any:
    """Games per agent needed to tell a score of ``base + d`` from ``base`` (95% confidence, 80% power)."""
    ax = _axes(ax, (5.5, 3.8))
    ds = np.array(differences if differences is not None else np.geomspace(0.02, 0.4, 30))
    ds = ds[base + ds <= 1.0]
    needed = [games_needed(base + d, base) for d in ds]
    ax.plot(ds, needed, "-", color="#3b75af")
    for d in (0.05, 0.1, 0.2):
        if base + d <= 1.0:
            n = games_needed(base + d, base)
            ax.plot([d], [n], "o", color="#d1603d")
            ax.annotate(f"{n:,}", (d, n), textcoords="offset points", xytext=(6, 4), fontsize=9)
    ax.set_xscale("log")
    ax.set_yscale("log")
    # Less than two decades of x: matplotlib would label minor ticks too, and they overlap.
    ticks = [t for t in (0.02, 0.05, 0.1, 0.2, 0.4) if ds.min() <= t <= ds.max()]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"true difference in score (from {base:g})")
    ax.set_ylabel("games per agent")
    ax.set_title("games needed to see a difference")
    ax.grid(alpha=0.3, which="both")
    return ax
