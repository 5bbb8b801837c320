"""Regenerate notebook 11's full-scale failure rates: ``python -m mctslab.course.experiments.classic [OUT_DIR]``.

Resumable: stop it and run it again, it goes on where it stopped. Prints each shape's
table and the seconds it took.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .failure import PAPER_SHAPES, run_failure

DEFAULT_DIR = Path("notebooks/data/11_classic_experiments")


def main(argv: list[str]) -> None:
    """Run (or read back) every shape of :data:`PAPER_SHAPES` into ``argv[0]`` (default: the notebook's data)."""
    out_dir = Path(argv[0]) if argv else DEFAULT_DIR
    for setup in PAPER_SHAPES:
        start = time.perf_counter()
        curves = run_failure(setup, out_dir)
        print(f"{setup.name}: {setup.trees} trees, {time.perf_counter() - start:.0f} s")
        print(curves)


if __name__ == "__main__":
    main(sys.argv[1:])
