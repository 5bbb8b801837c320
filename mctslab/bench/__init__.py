"""``python -m mctslab bench``: how fast the search runs, measured, never asserted.

Every row is a budget of work from the initial position, timed as wall and CPU
seconds. Rows are measured in interleaved rounds (row 1, row 2, ..., then again) and
the median round is reported, so ratios between rows hold on a noisy machine. When
``open_spiel`` is installed, UCT rows get OpenSpiel's Python MCTS on the same game as a
reference and the ratio mctslab / OpenSpiel; a deliberately naive tutorial UCT
(:mod:`mctslab.bench.naive`) is the "before" row.

When Numba is installed (``pip install "mctslab[fast]"``), ``uct compiled`` rows run the
same searches on the compiled engine (:mod:`mctslab.engine`), with OpenSpiel's C++
``MCTSBot`` as their reference and their speed-up over the Python ``uct`` row; the time
to compile (or load from Numba's cache) the kernels is measured once, before the rounds,
and reported apart.

With ``--c``, the compiled rows are also timed against a hand-written C reference UCT
(:mod:`mctslab.bench.creference`, ``mctslab/bench/c/uct.c``) of exactly the same algorithm
and random numbers (its trees equal the engine's, slot for slot, from the same seed), built
with the system compiler; the ratio compiled / C is the median of the rounds' ratios.

The ``uct root``, ``uct tree`` and ``uct leaf`` rows (:mod:`mctslab.bench.parallel`) run the
compiled engine's parallel searches, ``uct:engine=compiled,threads=K,parallel=root|tree|leaf``,
for K = 1, 2 (and more up to the machine's CPUs): playouts per second over all threads, the
speed-up over one plain thread, and the load average before and after the rounds.

The suite lives in :mod:`mctslab.bench.suite`; the naive baseline in :mod:`mctslab.bench.naive`.
"""

from .suite import (
    BATCHED_PER_MOVE,
    FLAT_PER_MOVE,
    ROLLOUTS,
    UCT_BUDGETS,
    VARIANT_BUDGET,
    VARIANTS,
    Case,
    Report,
    Row,
    cases,
    compiled_node_bytes,
    format_report,
    machine,
    node_bytes,
    peak_memory,
    report_dict,
    run_benchmark,
)

__all__ = [
    "BATCHED_PER_MOVE",
    "Case",
    "FLAT_PER_MOVE",
    "ROLLOUTS",
    "Report",
    "Row",
    "UCT_BUDGETS",
    "VARIANTS",
    "VARIANT_BUDGET",
    "cases",
    "compiled_node_bytes",
    "format_report",
    "machine",
    "node_bytes",
    "peak_memory",
    "report_dict",
    "run_benchmark",
]
