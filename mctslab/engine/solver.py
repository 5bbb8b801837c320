"""MCTS-Solver on the compiled engine: :class:`SolverTree` (UCT's arrays, a proven value per slot), :func:`search`.

The same algorithm as :class:`mctslab.agents.solver.Solver` (Winands, Bjornsson and Saito
2008, with proven draws), run by the kernel :func:`mctslab.engine.kernels.solver_uct`:
terminal nodes proven with their result, proofs backed up minimax-style, a proven win for
the chooser selected at once, a proven loss never while another child is open, a proven
node backing up its value instead of a playout. The budget, chunks, Ctrl-C, growth and
tree reuse are :class:`~mctslab.engine.CompiledTree`'s and :func:`mctslab.engine.search`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..games.base import Game, State
from ..games.compiled import CompiledGame
from . import uct
from .tree import Budget, CompiledTree
from .uct import SearchResult

__all__ = ["UNPROVEN", "SolverTree", "compile_seconds", "search"]

UNPROVEN = -1
"""``SolverTree.proven`` of a slot whose value is not known (else 0 loss, 1 draw, 2 win, in half points)."""


class SolverTree(CompiledTree):
    """A :class:`~mctslab.engine.CompiledTree` with ``proven``: per slot (int8), the value for who made its move.

    ``proven[slot]`` is :data:`UNPROVEN` while unknown, else 0 (a loss), 1 (a draw) or 2 (a
    win) in half points, as ``wins2`` counts them (:class:`mctslab.agents.solver.SolverNode`'s
    ``proven`` is half of it). Slots are marked when the kernel creates them; growth copies
    ``proven`` with the other arrays.
    """

    _ARRAYS = (*CompiledTree._ARRAYS, ("proven", np.int8))
    KERNEL = "solver"

    def __init__(self, compiled: CompiledGame, root_state: np.ndarray, capacity: int) -> None:
        super().__init__(compiled, root_state, capacity)
        self.proven[0] = UNPROVEN

    def _iterate(self, compiled: Any, c: float, limit: int, todo: int) -> int:
        """One call of the kernel :func:`~mctslab.engine.kernels.solver_uct`."""
        return compiled.solver_uct(
            self.rules, self.prm, self.tab, self.root_state, self.root, c, limit, todo,
            self.move, self.first, self.nlegal, self.nexp, self.visits, self.wins2, self.mean, self.isq,
            self.info, self.scratch, self.roots, self.proven,
        )  # fmt: skip

    def value(self, slot: int | None = None) -> float | None:
        """The proven value of ``slot`` (default the root) for the player who made its move: 1, 0.5, 0, or ``None``."""
        p = int(self.proven[self.root if slot is None else slot])
        return None if p == UNPROVEN else p / 2


def compile_seconds(game: Game | None = None) -> float:
    """Compile (or load from Numba's cache) the solver's kernel for ``game`` (``None``: every game) once; the seconds.

    Called by :func:`search` before its clock starts, so a timed first move is not spent compiling.
    """
    return uct.compile_seconds(game, SolverTree)


def search(game: Game, state: State, budget: Budget, *, seed: int, tree: SolverTree | None = None) -> SearchResult:
    """One MCTS-Solver search of ``state``, compiled: :func:`mctslab.engine.uct.search_budget` on a :class:`SolverTree`.

    Args and raises as :func:`~mctslab.engine.uct.search_budget` (``tree``: a :class:`SolverTree` whose
    root is already ``state``, for tree reuse). ``SearchResult.tree`` is the
    :class:`SolverTree` (its :meth:`SolverTree.value` of the root: the proof, if any).
    """
    return uct.search_budget(game, state, budget, seed=seed, tree=tree, tree_class=SolverTree)
