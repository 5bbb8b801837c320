"""``python -m mctslab.course.experiments.improvements``: play every missing game of notebook 09's matches."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from .matches import CURVE_MATCHES, MATCHES, Pairing, head_to_head
from .results import LOAD_LOG
from .timed import COMPILED_ITERATION_MATCHES, COMPILED_MATCHES, TIMED_MATCHES, timed_match


def main(argv: Sequence[str] | None = None) -> int:
    """Play every missing game of :data:`MATCHES` into ``OUT_DIR`` (default ``notebooks/data/09_improving_uct``)."""
    parser = argparse.ArgumentParser(prog="python -m mctslab.course.experiments.improvements", description=main.__doc__)
    parser.add_argument("out_dir", nargs="?", default="notebooks/data/09_improving_uct")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--only",
        default="",
        help="play only the matches whose file name contains this (e.g. engine-compiled, compiled_iterations)",
    )
    args = parser.parse_args(argv)
    Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    for pairing in [*MATCHES, *(p for p in CURVE_MATCHES if p not in MATCHES), *COMPILED_ITERATION_MATCHES]:
        if args.only in pairing.filename:
            head_to_head(pairing, args.out_dir, workers=args.workers, progress=True)
    for pairing in [*TIMED_MATCHES, *COMPILED_MATCHES]:  # one process: the clocks of concurrent games would compete
        if args.only in pairing.filename:
            _timed_with_load(pairing, Path(args.out_dir))
    return 0


def _games_in(path: Path) -> int:
    """Games stored in a results file (lines after the header; 0 when there is no file)."""
    return max(0, len(path.read_text().splitlines()) - 1) if path.is_file() else 0


def _timed_with_load(pairing: Pairing, out_dir: Path) -> None:
    """:func:`timed_match` on ``pairing``; when it played, the load averages before and after go to :data:`LOAD_LOG`."""
    before, load_before, start = _games_in(out_dir / pairing.filename), os.getloadavg(), datetime.now(timezone.utc)
    timed_match(pairing, out_dir, progress=True)
    after = _games_in(out_dir / pairing.filename)
    if after > before:  # the results file has no place for it: the load is kept beside it
        line = {
            "file": pairing.filename,
            "games": [before, after],
            "start": start.isoformat(timespec="seconds"),
            "end": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "loadavg_start": [round(x, 2) for x in load_before],
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
        }
        with open(out_dir / LOAD_LOG, "a") as f:
            f.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
