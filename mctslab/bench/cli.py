"""The ``bench`` subcommand of ``python -m mctslab`` (registered by :mod:`mctslab.cli`); it prints its tables."""

from __future__ import annotations

import argparse
import json

from .suite import compiled_node_bytes, format_report, node_bytes, peak_memory, report_dict, run_benchmark

SUMMARY = "measure search speed (UCT, playouts, flat Monte Carlo; OpenSpiel when installed)"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``bench`` options."""
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the median is reported (default 5)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every budget (default 1)")
    parser.add_argument("--no-compare", action="store_true", help="skip OpenSpiel even when it is installed")
    parser.add_argument(
        "--c",
        action="store_true",
        help="also time the C reference UCT beside the compiled rows (built with the system compiler; skipped without)",
    )
    parser.add_argument(
        "--only", default=None, help="measure only these rows, comma-separated names (e.g. 'uct compiled')"
    )
    parser.add_argument(
        "--memory", action="store_true", help="also bytes per node and the peak memory of 1,000,000 iterations"
    )
    parser.add_argument("--bandits", action="store_true", help="also the bandit policies (1,000 x 10,000 x 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Measure and print; returns 0."""
    if not 1 <= args.rounds <= 1000:
        raise ValueError(f"--rounds must be from 1 to 1000, got {args.rounds}")
    if not 0 < args.scale <= 1000:  # also refuses nan and inf (an endless benchmark)
        raise ValueError(f"--scale must be > 0 and at most 1000, got {args.scale}")
    only = None if args.only is None else tuple(name.strip() for name in args.only.split(","))
    report = run_benchmark(
        args.rounds,
        args.scale,
        compare=not args.no_compare,
        progress=not args.no_progress,
        c_reference=args.c,
        only=only,
    )
    result = report_dict(report)
    text = [format_report(report)]
    if args.memory:
        per_node = node_bytes()
        peak = peak_memory(iterations=max(1, int(1_000_000 * args.scale)))
        compiled = compiled_node_bytes()
        result["memory"] = {"tracemalloc_bytes_per_node": per_node, **peak, "compiled_bytes_per_node": compiled}
        text.append(
            f"memory: {per_node:.0f} bytes per Connect Four tree node (tracemalloc); "
            f"UCT {peak['iterations']:,} iterations on {peak['game']}: {peak['nodes']:,} nodes, "
            f"peak RSS {peak['peak_rss_mb']:.0f} MB ({peak['search_mb']:.0f} MB for the search, "
            f"{peak['bytes_per_node']:.0f} bytes per node), {peak['seconds']:.1f} s"
        )
        if compiled is not None:
            text.append(f"compiled engine: {compiled:.0f} bytes per Connect Four tree node (arrays in use)")
    if args.bandits:
        from ..bandits.bench import bench_bandits
        from ..bandits.bench import format_table as bandit_table

        rows = bench_bandits(runs=max(1, int(1000 * args.scale)))
        result["bandits"] = rows
        text.append(bandit_table(rows))
    print(json.dumps(result, indent=2) if args.json else "\n\n".join(text))
    return 0
