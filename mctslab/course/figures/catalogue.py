"""One function per figure in ``figures/``: run the experiment (seeded), draw it, return the figure.

Each function takes ``fast``: a tiny budget that exercises the same code in seconds
(what the tests run); without it, the budgets of the published figures. Figures are
built with :class:`matplotlib.figure.Figure`, not pyplot, so making them touches no
global state. :data:`FIGURES` maps each file name to its function; :func:`save` writes one.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from ...agents import UCT, FixedBudget
from ...exact import flat_traps, move_odds, random_play_odds
from ...games import make_game
from ...tournament import game_seed, round_robin
from ..experiments.classic import PAPER_SHAPES, Setup, run_failure
from ..experiments.classic.traps import TrapSetup, run_traps
from ..experiments.decisions import (
    choice_rates,
    decision_quality,
    monte_carlo_makers,
    predicted_flat_choices,
    random_play_sample,
    sample_positions,
)
from ..experiments.strength import budget_agent, strength_curves, uct_grid
from .classic import plot_failure, plot_traps
from .plots import (
    plot_board,
    plot_choice_rates,
    plot_curves,
    plot_elo,
    plot_games_needed,
    plot_grid,
    plot_quality,
    plot_random_play,
)

FIGURES_DIR = Path(__file__).resolve().parents[3] / "figures"
"""``figures/`` at the repository root (anchored at this file, not the working directory)."""

SEED = 2024
"""The seed of every figure (each figure derives its own streams from it)."""


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def random_play(fast: bool = False, executor: Executor | None = None) -> Any:
    """Random play's outcomes, exact and simulated, and X's margin after each first move (notebook 02)."""
    game = make_game("tictactoe")
    fig = _figure(10, 3.8)
    left, right = fig.subplots(1, 2, width_ratios=[1.4, 1])
    plot_random_play(random_play_sample(game, 500 if fast else 10_000, SEED), random_play_odds(game), ax=left)
    odds = move_odds(game, game.initial_state())
    margins = {m: o.margin(0) for m, o in odds.items()}
    labels = {m: f"win {o.first:.0%}\nloss {o.second:.0%}" for m, o in odds.items()}
    plot_board(game, game.initial_state(), ax=right, values=margins, labels=labels, vmin=-0.6, vmax=0.6)
    right.set_title("X's first move, then random play:\nexact odds (colour: wins - losses)", fontsize=10)
    return fig


def centre_opening(fast: bool = False, executor: Executor | None = None) -> Any:
    """How often flat Monte Carlo opens in the centre, against its playouts per move (notebook 02)."""
    game = make_game("tictactoe")
    start = game.initial_state()
    budgets = (1, 10) if fast else (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    decisions = 10 if fast else 400
    rates = choice_rates(game, start, _flat, budgets, decisions, SEED)
    trials = 500 if fast else 20_000
    predicted = [predicted_flat_choices(game, start, b, trials, SEED)[4] for b in budgets]
    fig = _figure(6.5, 4)
    ax = fig.subplots()
    series = {"centre (4)": [4], "a corner": [0, 2, 6, 8]}
    plot_choice_rates(rates, series, ax=ax, predicted={"centre (4)": predicted})
    ax.set_title("flat Monte Carlo's first move on the empty board")
    return fig


def flat_trap(fast: bool = False, executor: Executor | None = None) -> Any:
    """The position where pure Monte Carlo's favourite loses, and how UCT escapes it (notebook 02)."""
    game = make_game("tictactoe")
    trap = flat_traps(game)[0]
    budgets = (60, 600) if fast else (60, 120, 300, 600, 1200, 3000, 6000)
    decisions = 8 if fast else 200
    flat = choice_rates(game, trap.state, lambda b, s: FixedBudget("flat", b, seed=s), budgets, decisions, SEED)
    uct = choice_rates(game, trap.state, lambda b, s: UCT(iterations=b, seed=s), budgets, decisions, SEED)
    fig = _figure(11, 4)
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.6])
    labels = {m: f"{v:+.2f}" for m, v in trap.flat.items()}
    plot_board(game, trap.state, ax=left, values=trap.flat, labels=labels, vmin=-0.6, vmax=0.6, marked=[trap.trap])
    left.set_title(f"O to move: wins - losses per playout;\nthe favourite ({trap.trap}) loses to X {trap.refutation}")
    for label, rates in (("flat Monte Carlo", flat), ("UCT", uct)):
        (line,) = right.plot(rates.budgets, rates.rate(trap.safe), "o-", markersize=4, label=f"{label}: a safe move")
        band = rates.band(trap.safe)
        right.fill_between(rates.budgets, band[:, 0], band[:, 1], color=line.get_color(), alpha=0.2, linewidth=0)
    right.set_xscale("log")
    right.set_ylim(-0.02, 1.02)
    right.set_xlabel("playouts per decision")
    right.set_ylabel(f"fraction of {decisions} decisions")
    right.set_title("more playouts: flat gets surer of the loss, UCT finds the reply")
    right.grid(alpha=0.3)
    right.legend(fontsize=8)
    return fig


def windowed_budget(fast: bool = False, executor: Executor | None = None) -> Any:
    """Simple regret and perfect-move rate of flat, windowed, halving and UCT at equal budgets (notebook 03)."""
    game = make_game("tictactoe")
    positions = sample_positions(game, 6 if fast else 80, SEED, min_moves=5)
    budgets = (30, 120) if fast else (30, 60, 120, 240, 480, 960)
    repeats = 2 if fast else 25
    qualities = [
        decision_quality(game, positions, label, make, budgets, repeats, SEED)
        for label, make in monte_carlo_makers().items()
    ]
    fig = _figure(11, 4)
    plot_quality(qualities, fig.subplots(1, 2))
    return fig


def strength_vs_budget(fast: bool = False, executor: Executor | None = None) -> Any:
    """Score and loss rate against perfect play, against the budget, for each agent (notebook 05)."""
    kinds = {"flat": "flat", "window (Racioppo 2020)": "window", "halving": "halving", "UCT": "uct"}
    budgets = (25, 400) if fast else (25, 50, 100, 200, 400, 800, 1600, 3200)
    curves = strength_curves(
        "tictactoe", kinds, budgets, games=4 if fast else 400, seed=SEED, executor=executor, workers=1
    )
    fig = _figure(11, 4)
    left, right = fig.subplots(1, 2)
    plot_curves(list(curves.values()), "score", ax=left, title="score against perfect play (0.5 = never loses)")
    plot_curves(list(curves.values()), "loss", ax=right, title="games lost against perfect play")
    return fig


def uct_c_budget(fast: bool = False, executor: Executor | None = None) -> Any:
    """UCT's score against perfect play over the exploration constant and the budget (notebook 05)."""
    cs = (0.25, 1.414) if fast else (0.1, 0.25, 0.5, 1.0, 1.414, 2.0, 4.0)
    budgets = (25, 200) if fast else (25, 50, 100, 200, 400, 800, 1600)
    grid = uct_grid("tictactoe", cs, budgets, games=4 if fast else 200, seed=SEED, executor=executor, workers=1)
    fig = _figure(7.5, 4.5)
    plot_grid(grid, ax=fig.subplots())
    return fig


def round_robin_elo(fast: bool = False, executor: Executor | None = None) -> Any:
    """Elo ratings of the five agents on tic-tac-toe and Connect Four, with 95% intervals (notebook 05)."""
    fig = _figure(11, 3.8)
    left, right = fig.subplots(1, 2)
    ttt = ["random", budget_agent("flat", 450), budget_agent("window", 450), "uct:iterations=450", "minimax"]
    c4 = ["random", budget_agent("flat", 300), budget_agent("halving", 300), "uct:iterations=300", "minimax:depth=4"]
    for ax, game, agents, games in (
        (left, "tictactoe", ttt, 4 if fast else 200),
        (right, "connect4", c4, 2 if fast else 40),
    ):
        result = round_robin(
            game, agents, games, game_seed(SEED, (len(agents),)), executor=executor, workers=1, progress=False
        )
        plot_elo(result.elo, ax=ax, title=f"{game}: round robin, {games} games per pairing")
    return fig


def games_needed(fast: bool = False, executor: Executor | None = None) -> Any:
    """Games per agent needed to see a difference in score, against its size (notebook 05)."""
    fig = _figure(5.5, 3.8)
    plot_games_needed(0.5, ax=fig.subplots())
    return fig


def ucb1_regret(fast: bool = False, executor: Executor | None = None) -> Any:
    """Cumulative regret of UCB1 and others on five Bernoulli machines, log time axis (notebook 01)."""
    from ...bandits import UCB1, BernoulliArms, EpsilonGreedy, ThompsonSampling, compare
    from ...bandits.plots import plot_metric

    machines = BernoulliArms([0.1, 0.3, 0.5, 0.7, 0.9])
    steps = 200 if fast else 10_000
    results = compare(
        [EpsilonGreedy(0.1), UCB1(), ThompsonSampling()],
        machines,
        runs=10 if fast else 400,
        steps=steps,
        seed=SEED,
        progress=False,
    )
    fig = _figure(6.5, 4)
    ax = fig.subplots()
    plot_metric(results, "regret", ax=ax, lai_robbins=True)
    ax.set_title("regret on five slot machines (bands: 10th-90th percentile)")
    return fig


def uct_tree(fast: bool = False, executor: Executor | None = None) -> Any:
    """The tree UCT builds in 1,000 iterations from Bradberry 2015's kind of position (notebook 04); needs graphviz."""
    from ...viz import draw_tree

    game = make_game("tictactoe")
    state = game.state_from_moves([0, 3, 1, 4])
    iterations = 100 if fast else 1000
    root = UCT(iterations=iterations, seed=0).search(game, state)
    title = f"UCT, {iterations:,} iterations: X to move, 2 wins"
    return draw_tree(root, game, depth=2, top_k=3, mean=True, title=title)


def _pgame_failure(shape: int, fast: bool) -> Any:
    """One shape of :data:`PAPER_SHAPES`: failure rate against N of the four algorithms (notebook 11).

    Resumable: the results live in ``notebooks/data/11_classic_experiments`` (``fast``: a
    temporary folder, 6 trees, 3 budgets).
    """
    import tempfile

    setup = PAPER_SHAPES[shape]
    fig = _figure(6.5, 4.2)
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(tmp) if fast else FIGURES_DIR.parent / "notebooks" / "data" / "11_classic_experiments"
        if fast:
            setup = Setup(setup.branching, setup.depth, (16, 64, 256), 6)
        plot_failure(run_failure(setup, out_dir, progress=False), ax=fig.subplots())
    return fig


def pgame_failure_b2_d20(fast: bool = False, executor: Executor | None = None) -> Any:
    """Failure rate against N on P-games with B=2, D=20 (Kocsis & Szepesvari 2006; notebook 11)."""
    return _pgame_failure(0, fast)


def pgame_failure_b8_d8(fast: bool = False, executor: Executor | None = None) -> Any:
    """Failure rate against N on P-games with B=8, D=8 (Kocsis & Szepesvari 2006; notebook 11)."""
    return _pgame_failure(1, fast)


def planted_traps(fast: bool = False, executor: Executor | None = None) -> Any:
    """UCT's estimate of a planted level-k trap, and who plays or proves it, against k (notebook 11b).

    Resumable, in ``notebooks/data/11_classic_experiments`` (``fast``: a temporary folder,
    3 trees of 8 plies, levels 1 and 5, at 300 iterations).
    """
    import tempfile

    fig = _figure(10, 3.8)
    with tempfile.TemporaryDirectory() as tmp:
        if fast:
            results = run_traps(TrapSetup(levels=(1, 5), trees=3, iterations=300, depth=8), Path(tmp), progress=False)
        else:
            results = run_traps(TrapSetup(), FIGURES_DIR.parent / "notebooks" / "data" / "11_classic_experiments")
        plot_traps(results, axes=fig.subplots(1, 2))
    return fig


def _flat(budget: int, seed: Any) -> FixedBudget:
    """Flat Monte Carlo with ``budget`` playouts per move on the empty 3 x 3 board (9 moves)."""
    return FixedBudget("flat", 9 * budget, seed=seed)


FIGURES: dict[str, Callable[..., Any]] = {
    "random_play.png": random_play,
    "centre_opening.png": centre_opening,
    "flat_trap.png": flat_trap,
    "windowed_budget.png": windowed_budget,
    "strength_vs_budget.png": strength_vs_budget,
    "uct_c_budget.png": uct_c_budget,
    "round_robin_elo.png": round_robin_elo,
    "games_needed.png": games_needed,
    "ucb1_regret.png": ucb1_regret,
    "uct_tree.svg": uct_tree,
    "pgame_failure_b2_d20.png": pgame_failure_b2_d20,
    "pgame_failure_b8_d8.png": pgame_failure_b8_d8,
    "planted_traps.png": planted_traps,
}
"""File name in ``figures/`` -> the function that makes it."""


def save(name: str, out_dir: Path, fast: bool = False, executor: Executor | None = None) -> Path:
    """Make the figure ``name`` and write it to ``out_dir / name``; return the path.

    PNGs are written at 100 dpi without metadata that changes from run to run; the
    graphviz tree is written as SVG.

    Raises:
        KeyError: for an unknown figure (the message lists them).
        RuntimeError: for the tree when graphviz's ``dot`` program is missing.
    """
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / name
    made = FIGURES[name](fast=fast, executor=executor)
    if path.suffix == ".svg":
        from ...viz import dot_available

        if not dot_available():
            raise RuntimeError(f"{name} needs graphviz's dot program (Debian/Ubuntu: apt-get install graphviz)")
        path.write_bytes(made.pipe(format="svg"))
    else:
        made.savefig(path, dpi=100, metadata={"Software": None})
    return path
