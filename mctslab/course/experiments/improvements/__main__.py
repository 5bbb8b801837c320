"""``python -m mctslab.course.experiments.improvements``: play every missing game of notebook 09's matches."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from .matches import CURVE_MATCHES, MATCHES, TIMED_MATCHES, head_to_head, timed_match


def main(argv: Sequence[str] | None = None) -> int:
    """Play every missing game of :data:`MATCHES` into ``OUT_DIR`` (default ``notebooks/data/09_improving_uct``)."""
    parser = argparse.ArgumentParser(prog="python -m mctslab.course.experiments.improvements", description=main.__doc__)
    parser.add_argument("out_dir", nargs="?", default="notebooks/data/09_improving_uct")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", default="", help="play only the matches whose file name contains this")
    args = parser.parse_args(argv)
    Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    for pairing in [*MATCHES, *(p for p in CURVE_MATCHES if p not in MATCHES)]:
        if args.only in pairing.filename:
            head_to_head(pairing, args.out_dir, workers=args.workers, progress=True)
    for pairing in TIMED_MATCHES:  # one process: the clocks of concurrent games would compete
        if args.only in pairing.filename:
            timed_match(pairing, args.out_dir, progress=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
