"""The benchmark suite behind ``python -m mctslab bench``: its rows, the interleaved rounds, the report.

What is measured and how is described in :mod:`mctslab.bench`.
"""

from __future__ import annotations

import gc
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from .. import engine
from ..agents import make_agent
from ..engine.rave import compile_rave_seconds
from ..games import make_game
from . import creference, openspiel, parallel
from .naive import naive_uct


@dataclass
class Case:
    """One benchmark row.

    Attributes:
        name: what is measured (``uct``, ``rollout``, ``flat``, ``naive uct``).
        game: the game spec.
        work: units of work per round (iterations or playouts).
        unit: what ``work`` counts.
        run: does the work once.
        reference: OpenSpiel's equivalent, or ``None``.
        reference_name: what the reference is (``"OpenSpiel Python"``, ``"OpenSpiel C++"``).
        baseline: the row (name) of the same game this one is compared with, or ``None``.
        c_runs: the C reference's same search (:mod:`mctslab.bench.creference`), and a maker
            of C searches ``(rng, seed) -> run``, or ``None``.
        threads: threads searching at once (the root-parallel rows, :mod:`mctslab.bench.parallel`).
        setup: run before each timing of ``run``, untimed (a compiled row resets its agent's generator), or ``None``.
    """

    name: str
    game: str
    work: int
    unit: str
    run: Callable[[], object]
    reference: Callable[[], object] | None = None
    reference_name: str = "OpenSpiel Python"
    baseline: str | None = None
    c_runs: tuple[Callable[[], object], Callable[..., Callable[[], object]]] | None = None
    threads: int = 1
    setup: Callable[[], object] | None = None


@dataclass
class Row:
    """A measured row: medians over rounds (seconds) and the rate they give."""

    name: str
    game: str
    work: int
    unit: str
    wall: float
    cpu: float
    rate: float
    openspiel_rate: float | None = None
    ratio: float | None = None
    reference: str | None = None
    speedup: float | None = None
    c_rate: float | None = None
    c_ratio: float | None = None
    mt_cost: float | None = None
    threads: int = 1


@dataclass
class Report:
    """All rows plus where they were measured.

    Attributes:
        compile_seconds: seconds to compile (or load from Numba's cache) the compiled
            engine's kernels, paid once per process; ``None`` without Numba.
        c_note: why the C reference was not measured (asked for, but no compiler), or ``None``.
    """

    rows: list[Row]
    rounds: int
    machine: dict = field(default_factory=dict)
    compile_seconds: float | None = None
    c_note: str | None = None


def _uct(game_spec: str, iterations: int, agent: str = "uct") -> Callable[[], object]:
    game = make_game(game_spec)
    spec = f"{agent}{',' if ':' in agent else ':'}iterations={iterations}"

    def run() -> object:
        return make_agent(spec, seed=0).search(game, game.initial_state())

    return run


def _compiled_uct(
    game_spec: str, iterations: int, agent: str = "uct"
) -> tuple[Callable[[], object], Callable[[], object], int]:
    """One search as a seeded agent makes it, the untimed setup that makes every run the same, and the search's seed."""
    game = make_game(game_spec)
    agent = make_agent(f"{agent}:iterations={iterations},engine=compiled", seed=0)
    start = agent.rng.getstate()

    def setup() -> None:
        agent.rng.setstate(start)  # as a fresh agent seeded 0, as the Python rows are

    def run() -> object:
        return agent.search(game, game.initial_state())

    search_seed = agent.rng.getrandbits(32)  # what the search seeds the engine with
    agent.rng.setstate(start)
    return run, setup, search_seed


def _rollouts(game_spec: str, playouts: int) -> Callable[[], object]:
    game = make_game(game_spec)

    def run() -> object:
        rng, state, rollout = random.Random(0), game.initial_state(), game.rollout
        for _ in range(playouts):
            rollout(state, rng)

    return run


def _flat(game_spec: str, per_move: int, batched: bool = False) -> tuple[Callable[[], object], int]:
    game = make_game(game_spec)
    moves = len(game.legal_moves(game.initial_state()))
    spec = f"flat:playouts={per_move}" + (",batched=true" if batched else "")

    def run() -> object:
        return make_agent(spec, seed=0).select_move(game, game.initial_state())

    return run, per_move * moves


UCT_BUDGETS = {"tictactoe": 20_000, "connect4": 5_000, "uttt": 2_000}
ROLLOUTS = {"tictactoe": 50_000, "connect4": 10_000, "uttt": 2_000, "fractio": 5_000, "nim": 50_000}
FLAT_PER_MOVE = {"tictactoe": 2_000, "tictactoe:n=4,k=3": 200, "connect4": 1_000, "uttt": 20}
VARIANTS = ("solver", "rave", "transpositions", "uct:playout=decisive")
"""UCT's variants (notebook 09), benchmarked on Connect Four at :data:`VARIANT_BUDGET` iterations
beside plain UCT's row: their cost per iteration relative to UCT."""
VARIANT_BUDGET = 1_000
COMPILED_ROWS = ("uct compiled", "rave compiled", "solver compiled", *parallel.NAMES)
"""Rows timed with the cycle collector off (compiled searches: a pause there would collect the Python rows' trees)."""
BATCHED_PER_MOVE = {"tictactoe": (100, 2_000), "tictactoe:n=4,k=3": (200,)}
"""Flat Monte Carlo with ``batched=true`` (NumPy playouts): Racioppo 2020's 100 per move, and more."""


def cases(scale: float = 1.0, compare: bool = True, c_reference: bool = False) -> list[Case]:
    """The benchmark rows; ``scale`` multiplies every budget (the tests use a small one).

    ``c_reference``: the compiled rows also time the C reference (the caller checks that it can be built).
    """

    def n(x: int) -> int:
        return max(1, int(x * scale))

    out = []
    for game, its in UCT_BUDGETS.items():
        reference = openspiel.uct_search(game, n(its)) if compare and openspiel.available() else None
        out.append(Case("uct", game, n(its), "iterations", _uct(game, n(its)), reference))
    if engine.available():
        for game, its in UCT_BUDGETS.items():
            reference = openspiel.cpp_uct_search(game, n(its)) if compare and openspiel.available() else None
            run, setup, search_seed = _compiled_uct(game, n(its))
            c_runs = creference.timed_searches(game, n(its), search_seed) if c_reference else None
            row = Case("uct compiled", game, n(its), "iterations", run, reference, "OpenSpiel C++", "uct", c_runs)
            row.setup = setup
            out.append(row)
        for name, games in (("rave", ("connect4", "uttt")), ("solver", ("connect4",))):
            for game in games:  # the variants compiled; x python: over the variant's own (Connect Four) row
                run, setup, _ = _compiled_uct(game, n(UCT_BUDGETS[game]), name)
                out.append(
                    Case(f"{name} compiled", game, n(UCT_BUDGETS[game]), "iterations", run, baseline=name, setup=setup)
                )
        for name, game, k, work, run in parallel.parallel_runs(n):  # root, tree and leaf parallelism
            out.append(Case(name, game, work, "iterations", run, baseline=parallel.NAME, threads=k))
    for agent in VARIANTS:
        out.append(Case(agent, "connect4", n(VARIANT_BUDGET), "iterations", _uct("connect4", n(VARIANT_BUDGET), agent)))
    naive_budget = n(2_000)
    out.append(Case("naive uct", "tictactoe", naive_budget, "iterations", lambda: naive_uct(naive_budget)))
    for game, playouts in ROLLOUTS.items():
        out.append(Case("rollout", game, n(playouts), "playouts", _rollouts(game, n(playouts))))
    for game, per_move in FLAT_PER_MOVE.items():
        run, work = _flat(game, n(per_move))
        out.append(Case("flat", game, work, "playouts", run))
    for game, budgets in BATCHED_PER_MOVE.items():
        for per_move in budgets:
            run, work = _flat(game, n(per_move), batched=True)
            out.append(Case("flat numpy", game, work, "playouts", run))
    return out


def _time(fn: Callable[[], object], collect: bool = True) -> tuple[float, float]:
    """Wall and CPU seconds of ``fn()``; ``collect=False``: with the garbage collector off meanwhile."""
    if not collect:
        gc.disable()
        try:
            return _time(fn)
        finally:
            gc.enable()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def c_ratio(ratios: Sequence[float]) -> float:
    """Compiled / C over rounds that alternate which of the two runs first: each order weighs the same.

    ``ratios[r]`` is round ``r``'s C time over the compiled time (the compiled row first in
    even rounds, C first in odd ones). The result is the geometric mean of the two orders'
    medians, so an odd number of rounds does not tilt it toward one order (one round: its ratio).

    Raises:
        ValueError: for no ratios.
    """
    if not ratios:
        raise ValueError("c_ratio needs at least one round's ratio")
    orders = [statistics.median(ratios[start::2]) for start in (0, 1) if ratios[start::2]]
    return math.prod(orders) ** (1 / len(orders))


def machine() -> dict:
    """Python version, implementation and machine, recorded with every report."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "system": platform.system(),
        "cpus": os.cpu_count(),
        "openspiel": openspiel.available(),
        "load": parallel.load_average(),
    }


def run_benchmark(
    rounds: int = 5,
    scale: float = 1.0,
    compare: bool = True,
    progress: bool = True,
    c_reference: bool = False,
    only: tuple[str, ...] | None = None,
) -> Report:
    """Measure every row ``rounds`` times, interleaved, and keep the medians.

    The compiled rows (and their C searches) run once untimed first: a row's first search
    touches fresh memory (a 6 MB tic-tac-toe tree took 2.5 times as long the first time).

    Args:
        rounds: measurements per row, >= 1 (the median is reported).
        scale: budget multiplier, > 0 (1 is the documented benchmark).
        compare: include OpenSpiel's MCTS when it is installed.
        progress: show a progress bar.
        c_reference: time the C reference (:mod:`mctslab.bench.creference`) beside each compiled
            row in every round: after it in even rounds, before it in odd ones, so neither side
            always meets the caches and heap the row before left. The ratio compiled / C is
            :func:`c_ratio` of the rounds' ratios. Without a C compiler, :attr:`Report.c_note` says it was skipped.
        only: measure only the rows with these names (``("uct compiled",)``); ``None``: all.

    Raises:
        ValueError: for ``rounds < 1``, ``scale <= 0`` or a name in ``only`` that no row has.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    if not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    from tqdm.auto import tqdm

    compile_seconds = engine.compile_seconds() + compile_rave_seconds() if engine.available() else None
    c_note = None
    if c_reference:
        c_note = (
            creference.unavailable()
            if engine.available()
            else "the C reference is skipped: the compiled engine needs Numba"
        )
    todo = cases(scale, compare, c_reference and c_note is None)
    load = parallel.load_average()
    if only is not None:
        names = sorted({c.name for c in todo})
        unknown = [name for name in only if name not in names]
        if unknown:
            raise ValueError(f"no benchmark row named {unknown[0]!r}; rows: {', '.join(names)}")
        todo = [c for c in todo if c.name in only]
    c_times: dict[int, list[tuple[float, float, float]]] = {i: [] for i in range(len(todo))}
    walls: dict[int, list[float]] = {i: [] for i in range(len(todo))}
    cpus: dict[int, list[float]] = {i: [] for i in range(len(todo))}
    refs: dict[int, list[float]] = {i: [] for i in range(len(todo))}
    total = rounds * (len(todo) + sum(c.reference is not None for c in todo))
    for case in todo:  # each compiled row and its C search once, untimed: first touches of fresh memory are not speed
        if case.name in COMPILED_ROWS:
            if case.setup is not None:
                case.setup()
            _time(case.run, False)
            if case.c_runs is not None:
                _time(case.c_runs[0], False)
    with tqdm(total=total, disable=not progress, desc="bench") as bar:
        for r in range(rounds):
            for i, case in enumerate(todo):
                c_first = case.c_runs is not None and r % 2 == 1
                if c_first:  # every other round the C search comes first (see c_reference)
                    c_wall = _time(case.c_runs[0], False)[0]
                if case.setup is not None:
                    case.setup()
                # The compiled rows run with the collector off: a pause there would collect the Python
                # rows' cyclic trees, no cost of theirs (and collecting before them would chill their caches).
                wall, cpu = _time(case.run, collect=case.name not in COMPILED_ROWS)
                walls[i].append(wall)
                cpus[i].append(cpu)
                bar.update()
                if case.c_runs is not None:
                    if not c_first:
                        c_wall = _time(case.c_runs[0], False)[0]
                    # what the old generator costs: C on MT19937 and on xorshift64*, seeded alike (times summed)
                    mt_wall = _time(case.c_runs[1]("mt", 1 + len(c_times[i])), False)[0]
                    xs_wall = _time(case.c_runs[1]("xorshift", 1 + len(c_times[i])), False)[0]
                    c_times[i].append((c_wall, c_wall / wall, mt_wall, xs_wall))
                if case.reference is not None:
                    refs[i].append(_time(case.reference)[0])
                    bar.update()
    rows = []
    for i, case in enumerate(todo):
        wall = statistics.median(walls[i])
        row = Row(case.name, case.game, case.work, case.unit, wall, statistics.median(cpus[i]), case.work / wall)
        row.threads = case.threads
        if refs[i]:
            row.openspiel_rate = case.work / statistics.median(refs[i])
            row.ratio = row.rate / row.openspiel_rate
            row.reference = case.reference_name
        if c_times[i]:
            row.c_rate = case.work / statistics.median(t[0] for t in c_times[i])
            row.c_ratio = c_ratio([t[1] for t in c_times[i]])
            row.mt_cost = sum(t[2] for t in c_times[i]) / sum(t[3] for t in c_times[i])
        rows.append(row)
    for row, case in zip(rows, todo, strict=True):
        base = [r for r in rows if case.baseline and (r.name, r.game, r.threads) == (case.baseline, case.game, 1)]
        if base:
            row.speedup = row.rate / base[0].rate
    measured_on = machine()
    measured_on["load"], measured_on["load_end"] = load, parallel.load_average()
    return Report(rows, rounds, measured_on, compile_seconds, c_note)


def format_report(report: Report) -> str:
    """The report as a text table."""
    main = [r for r in report.rows if r.name not in parallel.NAMES]  # the threads' rows: their own tables
    names = [r.name if len(r.name) <= 10 else r.name.replace(" compiled", " (nb)") for r in main]
    width = max([len("what"), *map(len, names)])  # the longest name sets the column (uct:playout=decisive)
    head = f"{'what':<{width}} {'game':<17} {'work':>8} {'unit':<10} {'wall s':>8} {'cpu s':>8} {'per second':>11}"
    head += f" {'OpenSpiel/s':>11} {'ratio':>6} {'x python':>8}"
    with_c = any(r.c_rate for r in report.rows)
    head += f" {'C/s':>11} {'x C':>6} {'C MT':>7}" if with_c else ""
    lines = [head, "-" * len(head)] if main else []
    for r, name in zip(main, names, strict=True):
        ref = f"{r.openspiel_rate:>11,.0f} {r.ratio:>6.1f}" if r.openspiel_rate else f"{'':>11} {'':>6}"
        ref += f" {r.speedup:>8.1f}" if r.speedup else (f" {'':>8}" if r.c_rate else "")
        ref += f" {r.c_rate:>11,.0f} {r.c_ratio:>6.2f} {r.mt_cost:>7.2f}" if r.c_rate else ""
        lines.append(
            f"{name:<{width}} {r.game:<17} {r.work:>8} {r.unit:<10} {r.wall:>8.3f} {r.cpu:>8.3f} {r.rate:>11,.0f} {ref}"
        )
    m = report.machine
    spiel = "installed" if m["openspiel"] else "not installed (pip install -e .[compare])"
    load = ""
    if m.get("load") and m.get("load_end"):
        load = f"; load average {m['load'][0]:.2f} before, {m['load_end'][0]:.2f} after"
    lines.append(
        f"median of {report.rounds} interleaved rounds; Python {m['python']} ({m['implementation']}), "
        f"{m['system']} {m['machine']}, {m['cpus']} CPUs; OpenSpiel {spiel}{load}"
    )
    if report.compile_seconds is not None:
        lines.append(
            "uct (nb): the compiled engine (mctslab.engine, Numba); its OpenSpiel column is the C++ MCTSBot, "
            "the others' OpenSpiel's Python MCTS;"
        )
        lines.append(
            "  x python: its speed over the uct row of the same game (rave (nb): over the rave row, solver (nb): over"
            f" the solver row); kernels compiled or loaded from Numba's cache in {report.compile_seconds:.1f} s, once"
            " per process, not in the rows"
        )
    else:
        lines.append("compiled engine: not measured (Numba not installed: pip install -e .[fast])")
    if with_c:
        lines.append(
            "C/s: the C reference UCT (mctslab/bench/c/uct.c: the engine's algorithm and random numbers, its trees"
            " bit for bit), timed after the compiled row in even rounds and before it in odd ones;"
        )
        lines.append(
            "  x C: compiled / C, the rounds' ratios' median in each order, the two medians' geometric mean;"
            " C MT: C's time on Numba's MT19937 (the engine's generator until 2026-11-30) over its time on"
            " xorshift64* (one search per round on each, seeded alike, times summed)"
        )
    if report.c_note:
        lines.append(report.c_note)
    threads = parallel.format_threads(report.rows, m)
    return "\n".join(lines + ([""] if threads else []) + threads)


def report_dict(report: Report) -> dict:
    """The report as plain data for ``--json``."""
    return {
        "rounds": report.rounds,
        "machine": report.machine,
        "compile_seconds": report.compile_seconds,
        "c_note": report.c_note,
        "rows": [asdict(r) for r in report.rows],
    }


def node_bytes(game: str = "connect4", iterations: int = 20_000) -> float:
    """Average bytes allocated per UCT tree node (node, state, child list), by tracemalloc."""
    import tracemalloc

    g = make_game(game)
    agent = make_agent(f"uct:iterations={iterations}", seed=0)
    tracemalloc.start()
    root = agent.search(g, g.initial_state())
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return current / root.size()


def compiled_node_bytes(game: str = "connect4", iterations: int = 20_000) -> float | None:
    """Bytes per node of the compiled engine's tree arrays in use (``None`` without Numba).

    The arrays hold one slot per legal move of every expanded node (see
    :mod:`mctslab.engine.kernels`), so this counts the untried moves' slots too.
    """
    if not engine.available():
        return None
    g = make_game(game)
    tree = make_agent(f"uct:iterations={iterations},engine=compiled", seed=0).search(g, g.initial_state()).tree
    return tree.bytes_per_node()


def peak_memory(game: str = "connect4", iterations: int = 1_000_000) -> dict:
    """Peak resident memory of a fresh process running one UCT search of ``iterations``.

    Runs in a subprocess so that the numbers are the search's own.
    """
    code = (
        "import resource, time\n"
        "from mctslab import make_game, make_agent\n"
        f"g = make_game({game!r})\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "t = time.perf_counter()\n"
        f"root = make_agent('uct:iterations={iterations}', seed=0).search(g, g.initial_state())\n"
        "t = time.perf_counter() - t\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(base, peak, root.size(), t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    base_kb, peak_kb, nodes, seconds = int(out[0]), int(out[1]), int(out[2]), float(out[3])
    return {
        "game": game,
        "iterations": iterations,
        "nodes": nodes,
        "seconds": seconds,
        "peak_rss_mb": peak_kb / 1024,
        "search_mb": (peak_kb - base_kb) / 1024,
        "bytes_per_node": (peak_kb - base_kb) * 1024 / nodes,
    }
