"""One compiled RAVE search: UCT with AMAF statistics (Gelly and Silver 2007), as :class:`mctslab.agents.rave.Rave`.

The tree is :class:`~mctslab.engine.tree.CompiledTree`'s arrays and three more per slot:
the AMAF visits, half points and mean of the slot's move (:class:`RaveTree`). Its kernel,
:func:`mctslab.engine.kernels.rave_uct`, is the UCT kernel with RAVE's selection value
``(1 - beta) * mean + beta * amaf_mean + c * sqrt(ln N / n)``, ``beta = sqrt(k / (3 n + k))``,
and RAVE's backup: the playout marks the ``(player, move)`` pairs it plays, and from the
leaf up every created child of every node on the path whose pair was played below that
node (in the playout, or as a tree move below it) counts the playout in its AMAF
statistics. The same random draws as the UCT kernel: with ``k`` so small that beta
vanishes, it builds UCT's tree bit for bit (``tests/test_rave_compiled.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import validation
from ..games.base import Game, State
from ..games.compiled import CompiledGame
from .tree import Budget, CompiledTree
from .uct import SearchResult, check_search, compile_seconds, search_budget

__all__ = ["BETAS", "RaveTree", "compile_rave_seconds", "search_rave"]

BETAS = 1 << 12
"""Visit counts below this have their ``beta`` kept in a per-tree table (filled as first needed)."""


class RaveTree(CompiledTree):
    """A :class:`CompiledTree` with AMAF statistics per slot, searched by the RAVE kernel.

    Attributes:
        k: the equivalence parameter (beta = 1/2 after ``k`` visits).
        amv, amw2: per slot, the AMAF visits and half points (win 2, draw 1) of the slot's
            move, for the player who made it.
        mix: per slot, ``(1 - beta) * mean + beta * amaf_mean``, the part of RAVE's selection
            value before exploration (kept by the kernel as ``mean`` is).
    """

    _ARRAYS = (
        ("mean", np.float64), ("isq", np.float64), ("mix", np.float64), ("move", np.int32), ("first", np.int32),
        ("visits", np.int32), ("wins2", np.int32), ("amv", np.int32), ("amw2", np.int32), ("nlegal", np.int16),
        ("nexp", np.int16),
    )  # fmt: skip
    KERNEL = "rave"

    def __init__(self, compiled: CompiledGame, root_state: np.ndarray, capacity: int, k: float) -> None:
        super().__init__(compiled, root_state, capacity)
        self.mix[0] = 0.5
        self.played = np.zeros((2, self.block), dtype=np.int8)  # a game's moves are 0 .. max_moves - 1
        self.betas = np.zeros(BETAS, dtype=np.float64)
        self.k = k

    def set_k(self, k: float) -> None:
        """Search on with another ``k``: when it changes, the table of beta is emptied and every mix recomputed.

        The kernel's own operations in NumPy (correctly rounded alike): the same doubles as if
        the tree had been grown with this ``k``'s mix all along.
        """
        if k == self.k:
            return
        self.k = k
        self.betas[:] = 0.0
        n = self.slots
        amv = self.amv[:n]
        seen = amv > 0  # the slots the kernel keeps a mix for (every created child once backed up)
        b = np.sqrt(k / (3 * self.visits[:n][seen].astype(np.float64) + k))
        amaf_mean = self.amw2[:n][seen] / (2.0 * amv[seen])
        self.mix[:n][seen] = (1.0 - b) * self.mean[:n][seen] + b * amaf_mean

    def _iterate(self, compiled: Any, c: float, limit: int, todo: int) -> int:
        return compiled.rave_uct(
            self.rules, self.prm, self.tab, self.root_state, self.root, c, float(self.k), limit, todo,
            self.move, self.first, self.nlegal, self.nexp, self.visits, self.wins2, self.mean, self.isq,
            self.amv, self.amw2, self.mix, self.info, self.scratch, self.played, self.roots, self.betas,
        )  # fmt: skip


def compile_rave_seconds(game: Game | None = None) -> float:
    """Compile (or load from Numba's cache) the RAVE kernel for ``game`` (``None``: every game) once; the seconds."""
    return compile_seconds(game, RaveTree, k=1.0)


def search_rave(
    game: Game,
    state: State,
    budget: Budget,
    *,
    k: float,
    seed: int,
    tree: RaveTree | None = None,
    checked: bool = False,
) -> SearchResult:
    """One RAVE search of ``state`` with the compiled engine, as :func:`~mctslab.engine.uct.search_budget` is one UCT's.

    Args:
        game, state, budget, seed, checked: as :func:`mctslab.engine.uct.search_budget` (``checked``: ``k`` too).
        k: the equivalence parameter, > 0 (:func:`mctslab.agents.rave.beta`).
        tree: a :class:`RaveTree` whose root is already ``state`` (tree reuse), or ``None``; it searches on
            with this ``k`` (:meth:`RaveTree.set_k`).

    Raises:
        TypeError, ValueError: (one line) for ``k`` not finite and > 0, a bad seed or a game without a kernel.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    if not checked:
        check_search(game, state, (seed,), fresh=tree is None)
        validation.positive_number("k", k, finite=True)
    if tree is not None:
        tree.set_k(k)
    return search_budget(game, state, budget, seed=seed, tree=tree, tree_class=RaveTree, checked=True, k=k)
