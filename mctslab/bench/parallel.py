"""The benchmark's parallel rows: ``uct:engine=compiled,threads=K,parallel=root|tree|leaf`` for K = 1, 2, ...

``uct root`` rows: one move's search from the initial position by a seeded agent (every
round the same K trees), ``THREAD_BUDGETS`` iterations per tree; its work is K times that
(all trees' iterations). ``uct tree`` rows: one shared tree of K times ``THREAD_BUDGETS``
iterations, searched by K threads (:func:`~mctslab.engine.shared_tree.search_tree_parallel`;
its K = 1 row runs the shared-tree kernel in one thread: the price of its atomic
operations). ``uct leaf`` rows: ``THREAD_BUDGETS`` leaves, each simulated K times
(:func:`~mctslab.engine.shared_tree.search_leaf_parallel`); its work is the K playouts of
each leaf. So every row's work is its root's visits (playouts), ``per second`` counts them
per wall second, and every speed-up is over the ``uct root`` threads=1 row of the same game:
plain UCT in one thread. The budgets are ten times the single-search rows' so that
starting the threads and making the trees (well under a millisecond) is not what is
timed. The load average is recorded before and after the rounds: other processes on the
cores take from the speed-up.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..agents import make_agent
from ..games import make_game

__all__ = [
    "LEAF",
    "NAME",
    "NAMES",
    "THREAD_BUDGETS",
    "TREE",
    "format_threads",
    "leaf_parallel",
    "load_average",
    "parallel_runs",
    "root_parallel",
    "thread_counts",
    "tree_parallel",
]

NAME = "uct root"
"""The root-parallel rows' name (``--only 'uct root'``); their threads=1 row is every parallel row's baseline."""
TREE, LEAF = "uct tree", "uct leaf"
"""The tree- and leaf-parallel rows' names."""
NAMES = (NAME, TREE, LEAF)
KINDS = {NAME: "root", TREE: "tree", LEAF: "leaf"}
THREAD_BUDGETS = {"tictactoe": 200_000, "connect4": 50_000, "uttt": 20_000}
"""Iterations per tree of the root-parallel rows: ten times the single-search rows' budgets."""


def thread_counts(cpus: int | None = None) -> tuple[int, ...]:
    """K = 1, 2, then doubling up to the machine's CPUs, and the CPU count itself (``(1, 2)`` on 1 or 2 CPUs)."""
    if cpus is None:
        cpus = os.cpu_count() or 1
    counts = [1, 2]
    while counts[-1] * 2 <= cpus:
        counts.append(counts[-1] * 2)
    if cpus > counts[-1]:
        counts.append(cpus)
    return tuple(counts)


def root_parallel(game_spec: str, iterations: int, threads: int) -> Callable[[], object]:
    """One seeded move's search with ``threads`` trees of ``iterations`` each (every run the same trees)."""
    game = make_game(game_spec)
    agent = make_agent(f"uct:iterations={iterations},engine=compiled,threads={threads}", seed=0)
    start = agent.rng.getstate()

    def run() -> object:
        agent.rng.setstate(start)  # as a fresh agent seeded 0
        return agent.analyse(game, game.initial_state())

    return run


def _shared_search(kind: str, game_spec: str, iterations: int, threads: int) -> Callable[[], object]:
    from math import sqrt

    from ..engine import Budget
    from ..engine.shared_tree import search_leaf_parallel, search_tree_parallel

    search = search_tree_parallel if kind == "tree" else search_leaf_parallel
    game = make_game(game_spec)
    state = game.initial_state()
    seeds = list(range(1, threads + 1))
    budget = Budget(c=sqrt(2), iterations=iterations)

    def run() -> object:
        return search(game, state, budget, seeds=seeds)

    return run


def tree_parallel(game_spec: str, iterations: int, threads: int) -> Callable[[], object]:
    """One search of a tree of ``iterations`` iterations (in all) shared by ``threads`` threads (seeds 1 to K)."""
    return _shared_search("tree", game_spec, iterations, threads)


def leaf_parallel(game_spec: str, leaves: int, threads: int) -> Callable[[], object]:
    """One leaf-parallel search of ``leaves`` leaves, each simulated ``threads`` times (seeds 1 to K)."""
    return _shared_search("leaf", game_spec, leaves, threads)


def parallel_runs(n: Callable[[int], int]) -> list[tuple[str, str, int, int, Callable[[], object]]]:
    """Every parallel row as ``(name, game, threads, work, run)``; ``n`` scales a budget.

    Root and tree rows: ``n(THREAD_BUDGETS[game])`` iterations per thread (work: K times
    that); leaf rows: that many leaves, each simulated K times (work: K times that).
    """
    runs = []
    for name in NAMES:
        for game, its in THREAD_BUDGETS.items():
            for k in thread_counts():
                if name == NAME:
                    run = root_parallel(game, n(its), k)
                elif name == TREE:
                    run = tree_parallel(game, k * n(its), k)
                else:
                    run = leaf_parallel(game, n(its), k)
                runs.append((name, game, k, k * n(its), run))
    return runs


def load_average() -> tuple[float, float, float] | None:
    """The 1, 5 and 15 minute load averages (``None`` where the system keeps none)."""
    try:
        return tuple(round(x, 2) for x in os.getloadavg())  # type: ignore[return-value]
    except (AttributeError, OSError):
        return None


def format_threads(rows: list, machine: dict) -> list[str]:
    """The parallel rows as lines of text, a table per kind (none when there are no such rows)."""
    lines = []
    base = {r.game: r for r in rows if r.name == NAME and r.threads == 1}
    per = {NAME: "per tree", TREE: "in all", LEAF: "leaves"}
    for name in NAMES:
        kind_rows = [r for r in rows if r.name == name]
        if not kind_rows:
            continue
        head = f"{'threads':>7} {'game':<17} {per[name]:>9} {'wall s':>8} {'cpu s':>8} {'playouts/s':>13}"
        head += f" {'speed-up':>8} {'cpu eff':>7}" + (f" {'us/leaf':>8} {'+ vs K=1':>8}" if name == LEAF else "")
        title = f"{KINDS[name]} parallelism (uct:engine=compiled,threads=K,parallel={KINDS[name]}):"
        lines += ([""] if lines else []) + [title, head, "-" * len(head)]
        for r in kind_rows:
            speedup = f"{r.speedup:>8.2f}" if r.speedup else f"{'':>8}"
            one = base.get(r.game)
            efficiency = f"{one.cpu / one.work * r.work / r.cpu:>7.2f}" if one and r.cpu > 0 else f"{'':>7}"
            budget = r.work // r.threads if name != TREE else r.work
            line = f"{r.threads:>7} {r.game:<17} {budget:>9,} {r.wall:>8.3f} {r.cpu:>8.3f} {r.rate:>13,.0f}"
            line += f" {speedup} {efficiency}"
            if name == LEAF:  # the wall time of one leaf (its K playouts), and what K threads add to it
                single = next((b for b in kind_rows if b.game == r.game and b.threads == 1), None)
                per_leaf = 1e6 * r.wall / budget
                extra = f"{per_leaf - 1e6 * single.wall / budget:>8.2f}" if single and r.threads > 1 else f"{'':>8}"
                line += f" {per_leaf:>8.2f} {extra}"
            lines.append(line)
    if not lines:
        return []
    lines.append(
        "  playouts/s: the root's visits (all trees', for root) per wall second (for root and tree, the"
        " iterations; for leaf, K per leaf); speed-up: over root's threads=1 row (plain UCT, one thread) on the"
        " same game; cpu eff: CPU seconds per playout of that row over this row's (on K idle cores the"
        " speed-up is about K times it; other processes lower the speed-up much more than it). Leaf"
        " parallelism hands every leaf to K - 1 waiting threads and waits for their playouts: on playouts of"
        " microseconds that hand-over can cost more than the playouts it shares (us/leaf: wall microseconds per"
        " leaf, its K playouts included; + vs K=1: what the hand-over and the slowest of K playouts add)"
    )
    lines.append(
        f"  {machine['cpus']} CPUs; load average (1, 5, 15 min) {machine.get('load')} before the rounds,"
        f" {machine.get('load_end')} after"
    )
    return lines
