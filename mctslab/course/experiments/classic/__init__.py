"""Classic results re-run on synthetic trees whose exact answer is known (notebooks 11 and 11b).

* :mod:`.players`: the root-move choosers of Kocsis & Szepesvári 2006 (UCT, plain Monte
  Carlo, Monte Carlo with minimax backup, alpha-beta at a node budget);
* :mod:`.failure`: their failure rate on random P-game trees against the budget,
  resumable (:func:`run_failure`);
* :mod:`.traps`: UCT, minimax of depth k + 1 and MCTS-Solver on trees with a planted level-k
  trap (Ramanujan, Sabharwal & Selman 2010; :func:`~.traps.run_traps`);
* :mod:`.census`: the share of positions with a shallow trap in tic-tac-toe, Connect Four and
  Ultimate tic-tac-toe (:func:`~.census.run_census`).

``python -m mctslab.course.experiments.classic`` regenerates the stored results of both notebooks.
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
