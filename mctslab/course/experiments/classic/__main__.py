"""Regenerate notebooks 11 and 11b's stored results: ``python -m mctslab.course.experiments.classic [OUT_DIR]``.

The failure rates on P-games (notebook 11), then the planted traps and the trap census (notebook 11b).
Resumable: stop it and run it again, it goes on where it stopped. Prints each table and
the seconds it took.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .census import CENSUS_POSITIONS, run_census
from .failure import PAPER_SHAPES, run_failure
from .traps import TrapSetup, run_traps

DEFAULT_DIR = Path("notebooks/data/11_classic_experiments")


def main(argv: list[str]) -> None:
    """Run (or read back) every shape of :data:`PAPER_SHAPES` into ``argv[0]`` (default: the notebook's data)."""
    out_dir = Path(argv[0]) if argv else DEFAULT_DIR
    for setup in PAPER_SHAPES:
        start = time.perf_counter()
        curves = run_failure(setup, out_dir)
        print(f"{setup.name}: {setup.trees} trees, {time.perf_counter() - start:.0f} s")
        print(curves)
    start = time.perf_counter()
    traps = run_traps(TrapSetup(), out_dir)
    print(f"planted traps: {time.perf_counter() - start:.0f} s")
    print(traps)
    start = time.perf_counter()
    census = run_census(out_dir, CENSUS_POSITIONS)
    print(f"trap census: {CENSUS_POSITIONS} positions per game and source, {time.perf_counter() - start:.0f} s")
    print(census)


if __name__ == "__main__":
    main(sys.argv[1:])
