"""Pictures of the AlphaZero notebook: the training run and a network's priors on boards.

Each function draws what it is given on an ``Axes`` (or a new figure) and returns it, as
:mod:`mctslab.course.figures.plots` does; the numbers come from :mod:`mctslab.alphazero`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...games import drawing
from ...games.base import Game, State
from .plots import _axes


def plot_training(log: Sequence[dict], axes: Any = None) -> Any:
    """Two panels: the training loss per round, and the evaluations' scores with their Wilson intervals.

    Args:
        log: the records of :func:`mctslab.alphazero.training.read_log`.
        axes: two ``Axes`` side by side (a new figure when ``None``).
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    left, right = axes
    rounds = [r["round"] for r in log]
    left.plot(rounds, [r["loss"] for r in log], marker=".", color="#3b75af")
    left.set(xlabel="round of self-play", ylabel="training loss", title="loss (policy + value)")
    evals = [r for r in log if "eval" in r]
    for key, colour in (("vs_uct", "#d1603d"), ("vs_perfect", "#4a9a5a")):
        points = [(r["round"], r["eval"][key]) for r in evals if key in r["eval"]]
        if not points:
            continue
        xs = [x for x, _ in points]
        ys = [e["score"] for _, e in points]
        err = [[e["score"] - e["low"] for _, e in points], [e["high"] - e["score"] for _, e in points]]
        right.errorbar(xs, ys, yerr=err, marker="o", capsize=4, color=colour, label=f"vs {points[0][1]['opponent']}")
    right.axhline(0.5, color="#9a9a9a", lw=1, ls="--")
    from matplotlib.ticker import MaxNLocator

    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    right.set(xlabel="round of self-play", ylabel="PUCT+net score", ylim=(0, 1), title="evaluations (95% Wilson)")
    right.legend(loc="lower right")
    return axes


def plot_priors(game: Game, state: State, policy: np.ndarray, value: float, ax: Any = None, title: str = "") -> Any:
    """The network's prior of every legal move as a heat map on the board, its value in the title.

    Args:
        game: a game whose moves map to board cells (:meth:`Game.move_cell`).
        state: the position.
        policy: the prior of each move id (``network_encoding(game).policy_size`` entries).
        value: the network's value for the player to move.
        ax: where to draw (a new figure when ``None``).
        title: a first line for the title.
    """
    ax = _axes(ax, (3.2, 3.4))
    cells = drawing(game).board_cells(state)
    rows, cols = len(cells), len(cells[0])
    heat = np.zeros((rows, cols))
    for move in game.legal_moves(state):
        r, c = drawing(game).move_cell(state, move)
        heat[r, c] = policy[move]
    top = max(0.5, heat.max())
    ax.imshow(heat, cmap="Oranges", vmin=0, vmax=top)
    for r in range(rows):
        for c in range(cols):
            text = cells[r][c] or (f"{100 * heat[r, c]:.0f}%" if heat[r, c] else "")
            colour = "white" if heat[r, c] > 0.6 * top else "black"  # readable on the darkest cells
            ax.text(c, r, text, ha="center", va="center", fontsize=16 if cells[r][c] else 11, color=colour)
    ax.set_xticks([])
    ax.set_yticks([])
    player = drawing(game).mark(game.to_move(state))
    ax.set_title(f"{title}\n{player} to move, value {value:.2f}".strip(), fontsize=10)
    return ax


def plot_trap_rates(rows: Sequence[Any], ax: Any = None, confidence: float = 0.95) -> Any:
    """The share of trap positions where each agent avoids the losing move, against its budget.

    Args:
        rows: :class:`mctslab.course.experiments.alphazero.TrapRate` rows (one line per agent kind).
        ax: where to draw (a new figure when ``None``).
        confidence: of the Wilson error bars (a deterministic agent's exact rate has none).
    """
    ax = _axes(ax, (5.5, 3.6))
    kinds: dict[str, list[Any]] = {}
    for row in rows:
        kinds.setdefault(row.agent.split(":")[0], []).append(row)
    for (kind, points), colour in zip(kinds.items(), ("#3b75af", "#d1603d"), strict=False):
        xs = [p.budget for p in points]
        ys = [p.safe / p.searches for p in points]
        err = [[y - p.interval(confidence)[0] for y, p in zip(ys, points, strict=True)],
               [p.interval(confidence)[1] - y for y, p in zip(ys, points, strict=True)]]  # fmt: skip
        label = "PUCT + network" if kind == "puct" else kind.upper()
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=4, color=colour, label=label)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="simulations per move", ylabel="searches avoiding the trap", ylim=(0, 1.02))
    ax.set_title(f"the traps of notebook 02 (UCT: {100 * confidence:.1f}% Wilson; PUCT: exact)", fontsize=10)
    ax.legend(loc="lower right")
    return ax
