"""Pictures of notebooks 11 and 11b: a small P-game with its exact values, failure rates, planted traps."""

from __future__ import annotations

from typing import Any

from ...exact.alphabeta import move_values
from ...games import drawing
from ...games.pgame import PGame, PGameState
from ...viz.tree import NO_DOT_MESSAGE, _graph_class
from ..experiments.classic import LABELS, FailureCurves
from ..experiments.classic.traps import TrapResults
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


def draw_pgame(game: PGame) -> Any:
    """The whole of a small P-game tree as a graphviz drawing, with its exact values.

    Each edge carries its move's value; a leaf shows its sum and result; an inner node
    shows the exact minimax result for MAX (+1 win, 0 draw, -1 loss), found by
    :func:`mctslab.exact.alphabeta.move_values`; the optimal moves are drawn in bold.
    Shows itself as SVG, PNG and text (an outline) in a notebook.

    Raises:
        ValueError: for a tree of more than 64 leaves (too big to read).
    """
    leaves = game.branching**game.depth
    if leaves > 64:
        raise ValueError(f"draw_pgame draws trees of at most 64 leaves; {game.spec} has {leaves}")
    graph = _graph_class()(
        graph_attr={"rankdir": "LR", "nodesep": "0.1", "ranksep": "0.35"}, node_attr={"fontsize": "10"}
    )
    lines: list[str] = []
    _draw(game, game.initial_state(), graph, lines)
    graph.text = NO_DOT_MESSAGE + "\n\n" + "\n".join(lines)
    return graph


def _draw(game: PGame, state: PGameState, graph: Any, lines: list[str]) -> None:
    name = "n" + ("".join(map(str, state.path)) or "root")
    indent = "  " * len(state.path)
    if game.is_terminal(state):
        winner = game.winner(state)
        result = "draw" if winner is None else f"{drawing(game).mark(winner)} wins"
        graph.node(
            name,
            f"{state.total:+d}\n{result}",
            shape="box",
            color=("grey", "#3b75af", "#d1603d")[0 if winner is None else 1 + winner],
        )
        lines.append(f"{indent}leaf {state.total:+d}: {result}")
        return
    values = move_values(game, state)
    best = max(values.values()) if game.to_move(state) == 0 else min(values.values())
    graph.node(name, f"{drawing(game).mark(game.to_move(state))}\n{best:+.0f}", shape="ellipse")
    lines.append(f"{indent}{drawing(game).mark(game.to_move(state))} to move, exact value {best:+.0f}")
    for move in game.legal_moves(state):
        child = game.apply(state, move)
        graph.edge(
            name,
            "n" + "".join(map(str, child.path)),
            label=f"{game.move_value(state, move):+d}",
            penwidth="2.5" if values[move] == best else "1",
        )
        _draw(game, child, graph, lines)


def plot_traps(results: TrapResults, axes: Any = None) -> Any:
    """Two panels against the trap level k: UCT's estimates (the trap, truth 0; its best other move), who plays it.

    Intervals: 95% normal intervals on the mean estimates; Wilson intervals on the shares. The
    right panel also shows the share of trees where another root move wins (exact): there the
    trap costs the game.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(8.5, 3.6), layout="constrained")  # readable in a narrow window
    left, right = axes
    levels = [r.level for r in results.rows]
    for label, estimates, style in (
        ("UCT's estimate of the trap", [r.estimate_ci() for r in results.rows], "-"),
        ("of its best other move", [r.other_ci() for r in results.rows], "--"),
    ):
        left.errorbar(
            levels,
            [m for m, _, _ in estimates],
            yerr=[[m - lo for m, lo, _ in estimates], [hi - m for m, _, hi in estimates]],
            marker="o",
            capsize=3,
            ls=style,
            color=COLOURS["uct"],
            label=label,
        )
    left.axhline(0, ls=":", color="grey", label="exact value of the trap (a loss)")
    left.set(xlabel="trap level k", ylabel="value for MAX", ylim=(-0.05, 1.05), xticks=levels)
    left.legend(fontsize="small", loc="center right")
    wins = [r.counts["other_wins"] / r.trees for r in results.rows]
    right.plot(levels, wins, ls="--", marker=".", color="grey", label="another move wins (exact)")
    for field, label, colour in (
        ("uct_trap", "UCT plays it", COLOURS["uct"]),
        ("solver_trap", "MCTS-Solver plays it", COLOURS["mmmc"]),
        ("minimax_trap", "minimax depth k+1 plays it", COLOURS["alphabeta"]),
        ("solver_proved", "MCTS-Solver proves it lost", COLOURS["mc"]),
    ):
        shares = [r.counts[field] / r.trees for r in results.rows]
        cis = [r.ci(field) for r in results.rows]
        low = [s - lo for s, (lo, _) in zip(shares, cis, strict=True)]
        high = [hi - s for s, (_, hi) in zip(shares, cis, strict=True)]
        right.errorbar(levels, shares, yerr=[low, high], marker="o", capsize=3, label=label, color=colour)
    right.set(xlabel="trap level k", ylabel=f"share of {results.setup.trees} trees", ylim=(-0.05, 1.05), xticks=levels)
    right.legend(fontsize="small", loc="upper right")  # clear of the lines: the proofs reach 1 only at k <= 3
    return axes
