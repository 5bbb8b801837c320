"""The benchmark's root-parallel rows: ``uct:engine=compiled,threads=K,parallel=root`` for K = 1, 2, ...

Each row is one move's search from the initial position by a seeded agent (every round
the same K trees), ``THREAD_BUDGETS`` iterations per tree; its work is K times that (all
trees' iterations), so ``per second`` counts iterations over all threads and the speed-up
is that rate over the ``threads=1`` row's of the same game. The budgets are ten times the
single-search rows' so that starting the threads and making the trees (well under a
millisecond) is not what is timed. The load average is recorded before and after the
rounds: other processes on the cores take from the speed-up.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..agents import make_agent
from ..games import make_game

__all__ = ["NAME", "THREAD_BUDGETS", "format_threads", "load_average", "root_parallel", "thread_counts"]

NAME = "uct root"
"""The rows' name (``--only 'uct root'``)."""
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


def load_average() -> tuple[float, float, float] | None:
    """The 1, 5 and 15 minute load averages (``None`` where the system keeps none)."""
    try:
        return tuple(round(x, 2) for x in os.getloadavg())  # type: ignore[return-value]
    except (AttributeError, OSError):
        return None


def format_threads(rows: list, machine: dict) -> list[str]:
    """The root-parallel rows as lines of text (none when there are no such rows)."""
    rows = [r for r in rows if r.name == NAME]
    if not rows:
        return []
    head = f"{'threads':>7} {'game':<17} {'per tree':>9} {'wall s':>8} {'cpu s':>8} {'iterations/s':>13}"
    head += f" {'speed-up':>8} {'cpu eff':>7}"
    lines = ["root parallelism (uct:engine=compiled,threads=K,parallel=root):", head, "-" * len(head)]
    for r in rows:
        speedup = f"{r.speedup:>8.2f}" if r.speedup else f"{'':>8}"
        one = [b for b in rows if b.game == r.game and b.threads == 1]
        efficiency = f"{one[0].cpu / one[0].work * r.work / r.cpu:>7.2f}" if one and r.cpu > 0 else f"{'':>7}"
        lines.append(
            f"{r.threads:>7} {r.game:<17} {r.work // r.threads:>9,} {r.wall:>8.3f} {r.cpu:>8.3f} {r.rate:>13,.0f}"
            f" {speedup} {efficiency}"
        )
    lines.append(
        "  iterations/s: all trees' iterations per wall second; speed-up: over threads=1 on the same game;"
        " cpu eff: CPU seconds per iteration of threads=1 over this row's (on K idle cores the speed-up is"
        " about K times it; other processes lower the speed-up much more than it)"
    )
    lines.append(
        f"  {machine['cpus']} CPUs; load average (1, 5, 15 min) {machine.get('load')} before the rounds,"
        f" {machine.get('load_end')} after"
    )
    return lines
