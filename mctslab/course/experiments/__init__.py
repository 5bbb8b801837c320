"""The course's experiments: seeded, returning numbers, drawing nothing.

The notebooks import them and assert on their results; :mod:`mctslab.course.figures` draws them.

* :mod:`.decisions`: decisions graded exactly (random play, move choice rates, decision
  quality at a budget; notebooks 02 and 03);
* :mod:`.strength`: games against a fixed opponent over the budget and UCT's ``c``
  (notebooks 03 and 05), each match stored in a results file when given a folder;
* :mod:`.decisions_store`: :func:`decision_quality`'s decisions, stored one budget per line;
* :mod:`.curves`: :class:`Curve`, results against the budget, and :func:`budget_curve`
  with seats fixed (notebook 08);
* :mod:`.stored_counts`: a seeded run kept as the counts of its chunks, read back instead of
  played again (notebook 08's stored runs);
* :mod:`.improvements`: MCTS-Solver, RAVE, transpositions and decisive playouts against
  plain UCT (notebook 09);
* :mod:`.alphazero`, :mod:`.alphazero_exact` and :mod:`.alphazero_selfplay`: PUCT with the
  shipped network against UCT and against perfect play (exactly, where it can be), and the
  self-play its value learned from (notebook 10);
* :mod:`.nested`: Nested Monte Carlo Search against exact answers (notebook 12c);
* :mod:`.seeded_records`: the resumable files of seeded records in which the stored runs of
  experiments that are not matches are kept (notebooks 02 and 12c).

Racioppo 2020's reproduction (its procedure, rows and table) is :mod:`mctslab.course.reproduction`.
"""

from .curves import Curve, budget_curve
from .decisions import choice_rates, decision_quality, predicted_flat_choices, random_play_sample, sample_positions
from .strength import PERFECT, Grid, budget_agent, strength_curves, uct_grid

__all__ = [
    "PERFECT",
    "Curve",
    "Grid",
    "budget_agent",
    "budget_curve",
    "choice_rates",
    "decision_quality",
    "predicted_flat_choices",
    "random_play_sample",
    "sample_positions",
    "strength_curves",
    "uct_grid",
]
