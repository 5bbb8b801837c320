"""Classic results re-run on synthetic trees whose exact answer is known (notebook 11).

* :mod:`.players`: the root-move choosers of Kocsis & Szepesvári 2006 (UCT, plain Monte
  Carlo, Monte Carlo with minimax backup, alpha-beta at a node budget);
* :mod:`.failure`: their failure rate on random P-game trees against the budget,
  resumable (:func:`run_failure`).
"""

from .failure import PAPER_SHAPES, FailureCurves, Point, Setup, results_folder, run_failure
from .players import ALGORITHMS, LABELS, alphabeta_move, choose, mmmc_move

__all__ = [
    "ALGORITHMS",
    "LABELS",
    "PAPER_SHAPES",
    "FailureCurves",
    "Point",
    "Setup",
    "alphabeta_move",
    "choose",
    "mmmc_move",
    "results_folder",
    "run_failure",
]
