"""Regenerate the course's figures.

Usage: ``python -m mctslab.course.figures [--fast] [--out DIR] [--workers N] [NAME ...]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import FIGURES, FIGURES_DIR, save


def main(argv: list[str] | None = None) -> int:
    """Make the figures named (default: all) and print where each went; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m mctslab.course.figures", description=__doc__)
    known = ", ".join(FIGURES)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"figures to make (default: all): {known}")
    parser.add_argument("--fast", action="store_true", help="tiny budgets: check that every figure builds, in seconds")
    parser.add_argument("--out", type=Path, default=FIGURES_DIR, help=f"output folder (default: {FIGURES_DIR})")
    parser.add_argument("--workers", type=int, default=1, help="processes for the games (default: 1)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in FIGURES]
    if unknown:
        parser.error(f"unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    import matplotlib

    matplotlib.use("Agg")
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    failed = 0
    try:
        for name in args.names or list(FIGURES):
            began = time.perf_counter()
            try:
                path = save(name, args.out, fast=args.fast, executor=pool)
            except RuntimeError as err:  # e.g. no graphviz for the tree: say so, make the others
                print(f"skipped {name}: {err}", file=sys.stderr)
                failed += 1
                continue
            print(f"{path}  ({time.perf_counter() - began:.1f} s)")
    finally:
        if pool is not None:
            pool.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
