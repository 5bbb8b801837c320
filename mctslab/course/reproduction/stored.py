"""Notebook 08's stored runs: its table, the planned rows and the budget curves, kept as counts.

Notebook 08 plays about 50,000 seeded games and 40,000 seeded first moves (its table, UCT and
minimax in the same table, and the win rate against the playout budget). Their counts are
stored chunk by chunk (:mod:`mctslab.course.experiments.stored_counts`) in :data:`FOLDER`, beside
the stored ablation and exact rows: :data:`~mctslab.course.reproduction.experiments.ROWS_FILE`
for :func:`~mctslab.course.reproduction.experiments.reproduce`'s rows and
:data:`~mctslab.course.experiments.curves.CURVES_FILE` for
:func:`~mctslab.course.experiments.curves.budget_curve`'s points. The notebook passes
``folder=FOLDER``: it reads what is stored and plays only what is missing (at ``SCALE = 10``,
the games beyond the stored ones, which are then stored too). Every game and trial is seeded
by its place, so a number read back is the number played afresh
(``tests/test_stored_reproduction.py`` plays a chunk of each kind again).

:func:`notebook_runs` makes the notebook's calls, with its settings (:data:`SEED`,
:data:`GAMES`, ...). Regenerate the stored runs (resumable; delete the two files first to
play everything again; about a minute of CPU) with::

    nice -n 10 python -m mctslab.course.reproduction.stored
"""

from __future__ import annotations

import argparse
import os
from concurrent.futures import Executor
from pathlib import Path

from ..experiments.curves import Curve, budget_curve
from .experiments import reproduce
from .rows import PAPER_ROWS, PLANNED_ROWS
from .table import ReproductionTable

FOLDER = Path(__file__).with_name("data")
"""Where notebook 08's runs are stored (in the package, beside ``ablation_w3-o.json`` and ``exact_rows.json``)."""

SEED = 2020
GAMES = 1000
"""Games per row and procedure of the table (10,000 for random play and first moves)."""
PLANNED_GAMES = 100
"""Games per planned row against random play (UCT and minimax); self-play gets a fifth."""
CURVE_GAMES, UCT_CURVE_GAMES = 400, 100
"""Games per point of the budget curves: pure Monte Carlo, UCT."""
CURVE_PLAYOUTS = (1, 2, 5, 10, 20, 50, 100)
"""Playouts per move of the budget curves' pure Monte Carlo (UCT: five times as many iterations per decision)."""


def notebook_runs(
    scale: int = 1,
    folder: str | os.PathLike | None = FOLDER,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> tuple[ReproductionTable, ReproductionTable, ReproductionTable, dict[tuple[str, str], Curve]]:
    """Notebook 08's runs at ``SCALE = scale``, stored in ``folder``: ``(table, planned, planned_self, curves)``.

    The same calls as the notebook's cells, with its settings: what ``folder`` holds is read,
    the rest played and stored there.
    """
    table = reproduce(
        PAPER_ROWS, games=GAMES * scale, seed=SEED, executor=executor, workers=workers, progress=progress, folder=folder
    )
    vs_random = [row for row in PLANNED_ROWS if not row.key.endswith("both")]
    self_play = [row for row in PLANNED_ROWS if row.key.endswith("both")]
    options = {"seed": SEED, "procedures": ("corrected",), "executor": executor, "workers": workers}
    planned = reproduce(vs_random, games=PLANNED_GAMES * scale, progress=progress, folder=folder, **options)
    planned_self = reproduce(self_play, games=PLANNED_GAMES * scale // 5, progress=progress, folder=folder, **options)
    budget = [5 * p for p in CURVE_PLAYOUTS]
    curves = {}
    for seat in ("x", "o"):
        for procedure in ("paper", "corrected"):
            specs = [f"racioppo:playouts={p},procedure={procedure}" for p in CURVE_PLAYOUTS]
            curves[(seat, procedure)] = budget_curve(
                f"pure MC, {procedure} procedure", specs, budget, seat=seat, games=CURVE_GAMES * scale, seed=SEED,
                executor=executor, workers=workers, folder=folder,
            )  # fmt: skip
        uct_specs = [f"uct:iterations={b}" for b in budget]
        curves[(seat, "uct")] = budget_curve(
            "UCT", uct_specs, budget, seat=seat, games=UCT_CURVE_GAMES * scale, seed=SEED,
            executor=executor, workers=workers, folder=folder,
        )  # fmt: skip
    return table, planned, planned_self, curves


def main(argv: list[str] | None = None) -> int:
    """``python -m mctslab.course.reproduction.stored``: play (or finish playing) notebook 08's stored runs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=int, default=1, help="the notebook's SCALE (default 1)")
    parser.add_argument("--folder", default=str(FOLDER), help="where the counts are stored (default: the package's)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    args = parser.parse_args(argv)
    notebook_runs(args.scale, args.folder, workers=args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
