"""Exact answers for small games, by enumeration: random play, pure Monte Carlo's target, perfect play.

Three questions about a position have exact answers when the game is small enough to
enumerate (3 x 3 tic-tac-toe has 5,478 positions, small Nim a few hundred):

* **random play**: the probabilities that player 0 wins, player 1 wins, or the game is
  drawn when both play uniformly random legal moves (as :meth:`Game.rollout` does), by
  averaging over the legal moves at every position (:func:`random_play_odds`);
* **what pure Monte Carlo estimates**: Racioppo 2020's flat Monte Carlo scores a move by
  *wins minus losses* of random playouts after it; with unlimited playouts the score per
  playout converges to :func:`flat_values`, so a finite budget is a noisy estimate of it.
  Two moves can have *exactly* the same value (-4/15 and -4/15), which float sums
  split by about 1e-16: wherever a tie or an argmax decides a claim, use
  :func:`exact_flat_values` (``fractions.Fraction``), never float ``==``;
* **perfect play**: the game-theoretic value of every move, +1 (a forced win), 0 (a draw)
  or -1 (a loss) for the player who makes it (:func:`move_values`).

Where pure Monte Carlo's target and perfect play disagree, more playouts make pure Monte
Carlo *surer* of the wrong move: :func:`flat_traps` finds those positions (notebook 02).

Results are cached per game (games are equal when their specs are), so repeated calls
are cheap. Sources: Racioppo 2020 (Peter Racioppo, "Monte Carlo Tree Search: A
Review") for the random-play rates and the flat Monte Carlo criterion; Browne et al.
(2012), "A survey of Monte Carlo tree search methods", section 3.1, on flat Monte Carlo's failures that motivate a tree.
"""

from . import kuhn  # Kuhn poker: exact best responses, exploitability, equilibria
from .alphabeta import BudgetExhausted, alphabeta, optimal_moves
from .enumeration import MAX_STATES, WIN, Enumeration, Odds, reachable_states
from .perfect_play import best_moves, move_scores, move_values, solve
from .pig import PigSolution
from .pig import solve as solve_pig
from .random_play import (
    TieRule,
    Trap,
    exact_flat_values,
    exact_move_odds,
    flat_choice_odds,
    flat_traps,
    flat_values,
    leading_moves,
    move_odds,
    random_play_odds,
)
from .samegame import Optimum, samegame_optimum

__all__ = [
    "BudgetExhausted",
    "Enumeration",
    "MAX_STATES",
    "Odds",
    "Optimum",
    "PigSolution",
    "TieRule",
    "Trap",
    "WIN",
    "alphabeta",
    "best_moves",
    "exact_flat_values",
    "exact_move_odds",
    "flat_choice_odds",
    "flat_traps",
    "flat_values",
    "kuhn",
    "leading_moves",
    "move_odds",
    "move_scores",
    "move_values",
    "optimal_moves",
    "random_play_odds",
    "reachable_states",
    "samegame_optimum",
    "solve",
    "solve_pig",
]
