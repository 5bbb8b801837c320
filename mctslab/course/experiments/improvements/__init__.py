"""The experiments of notebook 09, "Improving UCT": what each enhancement buys, measured.

* :mod:`.races`: :func:`iterations_to_win`, how many iterations a UCT agent (or a
  variant) needs on a position with a forced win before the move it would play is a
  winning one and stays one up to a limit, and :func:`win_race` on :data:`CONNECT4_ENDGAMES`
  (MCTS-Solver against UCT);
* :mod:`.matches`: every variant against plain UCT (:func:`head_to_head`) at equal
  iterations and equal time, RAVE over budgets (:func:`measured_curve`), each match a
  :func:`mctslab.tournament.play_match` into a results file;
* :mod:`.timed`: the equal-time matches that record what each side's clock allowed
  (:func:`timed_match`): :data:`TIMED_MATCHES` on the Python engine, :data:`COMPILED_MATCHES`
  (the compiled solver and RAVE against the compiled UCT) and, at equal iterations,
  :data:`COMPILED_ITERATION_MATCHES` (the same pairs at :data:`COMPILED_ITERATIONS` per move);
* :mod:`.results`: the measured table (:func:`measured_table`) and what each clock
  allowed (:func:`reach`), read back from those files, and where they are
  (:func:`stored_games`: beside the notebook or in the installed course, else an error
  saying how to make them);
* :mod:`.costs`: tree nodes of UCT against positions stored with transpositions
  (:func:`node_counts`), seconds per playout (:func:`playout_costs`) and per iteration
  (:func:`iteration_costs`).

Everything is seeded; ``python -m mctslab.course.experiments.improvements`` plays what is
missing (resumable), at the size of :data:`MATCHES`, :data:`CURVE_MATCHES`,
:data:`TIMED_MATCHES` and :data:`COMPILED_MATCHES` (the last two in one process, whatever
``--workers``: concurrent games would share the cores their clocks measure).
"""

from .costs import Timings, iteration_costs, node_counts, playout_costs
from .matches import (
    COSTLY_GAMES,
    CURVE_BUDGETS,
    CURVE_GAMES,
    CURVE_MATCHES,
    CURVE_VARIANT,
    GAMES,
    ITERATIONS,
    MATCHES,
    SECONDS,
    SEED,
    VARIANTS,
    Pairing,
    curve_matches,
    head_to_head,
    matches,
    measured_curve,
    stored_match,
)
from .races import CONNECT4_ENDGAMES, Race, iterations_to_win, win_race
from .results import (
    COMPARISONS,
    LOAD_LOG,
    STORED_GAMES,
    TABLE_MATCHES,
    MeasuredTable,
    Reach,
    Row,
    bonferroni,
    detectable_score,
    machine_load,
    measured_table,
    reach,
    stored_games,
)
from .timed import (
    COMPILED_BASELINE,
    COMPILED_GAMES,
    COMPILED_ITERATION_MATCHES,
    COMPILED_ITERATIONS,
    COMPILED_MATCHES,
    COMPILED_SECONDS,
    COMPILED_VARIANTS,
    TIMED_GAMES,
    TIMED_MATCHES,
    TimedMatch,
    compiled_iteration_matches,
    compiled_matches,
    is_timed,
    timed_match,
    timed_matches,
    warm_up,
)

__all__ = [
    "COMPARISONS",
    "COMPILED_BASELINE",
    "COMPILED_GAMES",
    "COMPILED_ITERATION_MATCHES",
    "COMPILED_ITERATIONS",
    "COMPILED_MATCHES",
    "COMPILED_SECONDS",
    "COMPILED_VARIANTS",
    "CONNECT4_ENDGAMES",
    "COSTLY_GAMES",
    "CURVE_BUDGETS",
    "CURVE_GAMES",
    "CURVE_MATCHES",
    "CURVE_VARIANT",
    "GAMES",
    "ITERATIONS",
    "LOAD_LOG",
    "MATCHES",
    "SECONDS",
    "SEED",
    "STORED_GAMES",
    "TABLE_MATCHES",
    "TIMED_GAMES",
    "TIMED_MATCHES",
    "VARIANTS",
    "MeasuredTable",
    "Pairing",
    "Race",
    "Reach",
    "Row",
    "TimedMatch",
    "Timings",
    "bonferroni",
    "compiled_iteration_matches",
    "compiled_matches",
    "detectable_score",
    "curve_matches",
    "head_to_head",
    "stored_match",
    "is_timed",
    "iteration_costs",
    "iterations_to_win",
    "machine_load",
    "matches",
    "measured_curve",
    "measured_table",
    "node_counts",
    "playout_costs",
    "reach",
    "stored_games",
    "timed_match",
    "timed_matches",
    "warm_up",
    "win_race",
]
