"""Reproducing Racioppo 2020: its procedure, its defects, its tables, corrected.

* :mod:`.paper_code`: the paper's notebook code, transcribed, defects marked (slow; the oracle);
* :mod:`.outcomes`: exact outcome probabilities of random playouts on 3 x 3 tic-tac-toe,
  correct and as the paper plays them;
* the agent, :class:`mctslab.agents.RacioppoMonteCarlo` (``racioppo:...``): the paper's pure
  and windowed Monte Carlo with each defect a switch (``procedure="paper"``: all on;
  ``"corrected"``: all off), fast because it samples playout counts from the exact
  probabilities; it lives with the other agents, in :mod:`mctslab.course.reproduction.agent`;
* :mod:`.rows`: every published number, with its notebook cell;
* :mod:`.experiments`: :func:`reproduce`, which re-runs them under both procedures, and
  :func:`without_each_defect`;
* :mod:`.table`: the resulting :class:`ReproductionTable`, with intervals and fit p-values;
* :mod:`.exact_rows`: the exact rates of the pure Monte Carlo (window 1) rows, by enumerating
  every game, and of their defect ablation (stored in ``data/exact_rows.json``);
* :mod:`.ablation`: window 3 as O with each defect switched off or on alone, 10,000 seeded
  games per variant (stored in ``data/ablation_w3-o.json``; resumable).
* :mod:`.stored`: notebook 08's table, planned rows and budget curves, stored as per-chunk
  counts (``data/reproduction_rows.json``, ``data/budget_curves.json``; resumable), which the
  notebook reads instead of playing its games again.

Win rate against the playout budget: :func:`mctslab.course.experiments.curves.budget_curve`.

Notebook: ``notebooks/08_reproducing_racioppo_2020.ipynb``.
"""

from .experiments import measure, reproduce, without_each_defect
from .rows import PAPER_ROWS, PLANNED_ROWS, Row
from .table import Measurement, ReproductionTable, fit_p_value

__all__ = [
    "PAPER_ROWS",
    "PLANNED_ROWS",
    "Measurement",
    "ReproductionTable",
    "Row",
    "fit_p_value",
    "measure",
    "reproduce",
    "without_each_defect",
]
