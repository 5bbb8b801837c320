"""Tree and leaf parallelism: K threads on one compiled UCT tree (Chaslot, Winands and van den Herik 2008).

**Tree parallelism** (``uct:engine=compiled,threads=K,parallel=tree,virtual_loss=V``,
:func:`search_tree_parallel`): K Python threads each call the compiled kernel
:func:`mctslab.engine.kernels.uct_tree` (``nogil=True``) on the *same* arrays, without
locks around the iterations. A thread adds ``V`` virtual visits, counted as losses, to
every node of its path below the root as it descends (``SharedTree.vloss``) and takes them
off at the backup, so the other threads' selections turn away from the paths being
searched (``V = 0``: no virtual loss). The root, which no thread chooses, gets none, and
its ``mean`` is stored once at the end (it is the line every thread writes). The budget
is shared: ``iterations`` is the total of the tree (all threads together; root parallelism's
is per tree), ``seconds`` the wall time.

What is made safe (atomic operations, :func:`~mctslab.engine.kernels._atomic_add`,
:func:`~mctslab.engine.kernels._atomic_cas`, LLVM's ``atomicrmw``/``cmpxchg``):

* slot allocation: a block of slots is reserved by compare-and-swap on ``info[0]``, which
  never passes the arrays' end (a block that does not fit is not taken: the thread
  simulates from the node, every thread stops, and the arrays grow between rounds, the
  threads waiting at a barrier);
* expansion: only the thread that takes a node's lock (``lock[node]`` 0 -> 1 by
  compare-and-swap) gives the node its block or creates a child; the child's arrays are
  written before the node's ``nexp`` is published (release store, read with acquire), so
  no thread ever reads a half-made child. A thread that finds the lock held treats the
  node as a leaf for this iteration: it simulates from the node (a playout from a
  position already in the tree, counted in ``ends[node]``);
* counts: ``visits``, ``wins2``, ``vloss`` and ``ends`` change by atomic adds, so no visit,
  reward or virtual loss is ever lost, and the iterations are claimed from a shared
  counter (:data:`~mctslab.engine.kernels.CLAIM` at a time; a claim past the budget, or
  not run when a call ends, is given back): after the search the root's visits are
  exactly the iterations done. A thread that sees the counter spent while another's
  claim is being given back stops early; the others run what is left.

The races left, and what a lost update does:

* ``mean`` and ``isq`` are plain stores made from the counts the thread's own atomic adds
  returned; two threads backing up one node store in either order, so the stored value
  may come from the older pair of counts (one playout behind), or from visits one ahead
  of wins (the other thread's reward not yet added). Until the node's next backup its
  selection value is then slightly off. After the threads join, :func:`~mctslab.engine.kernels.settle`
  stores every slot's ``mean`` and ``isq`` again from its counts: the final tree is exact.
* selection reads ``mean``, ``isq``, ``visits``, ``wins2`` and ``vloss`` of the children
  without synchronising: it may use a value a backup is just changing (each value read is
  whole: aligned 32- and 64-bit loads), so two threads may choose differently than one
  thread would; this changes which paths are searched, never the tree's consistency.
* ``info[1]`` (the deepest node) is a plain racy maximum: a thread may overwrite a deeper
  value just stored by another, so :attr:`SearchResult.tree.max_depth` may be below the
  deepest node (a statistic only).

The invariant this guarantees after the search, tested in ``tests/test_parallel_tree.py``:
for every created slot ``s``, ``visits[s] == ends[s] + sum(visits[child] for its children)``
exactly (no visit is lost; ``ends[s]`` counts the playouts that started at ``s``: the one
of its creation, plus one each time a thread found it locked or the tree full; with one
thread, 1 below the root and 0 at it, as in plain UCT); the root's visits equal the iterations
done; the expanded nodes' blocks never overlap and fill the slots below ``info[0]``
exactly (``info[0] == 1 + sum(nlegal)``), so no node is at or beyond ``info[0]``; every
``vloss`` is 0 again; every node's children are distinct legal moves of its position.

Not reproducible run to run for K > 1: which thread reaches a node first depends on the
threads' timing. Thread ``k`` seeds its own generator with ``seeds[k]``; with one thread
the tree is :func:`mctslab.engine.search`'s, bit for bit.

**Leaf parallelism** (``parallel=leaf``, :func:`search_leaf_parallel`): one thread selects
and expands as plain UCT (:func:`~mctslab.engine.kernels.uct_leaf`); each new leaf is
simulated K times at once, by that thread and K - 1 worker threads
(:func:`~mctslab.engine.kernels.leaf_worker`) that wait for it by spinning on an atomic
counter (then yielding the core, :data:`~mctslab.engine.kernels.SPINS`), and the K results
are backed up together. ``iterations`` counts leaves (each with K playouts: the root gets K
visits per iteration). Reproducible: worker ``k`` plays the ``k``-th playout of every leaf
from its own seeded generator and the results are counts (their order does not matter), so
the same seeds build the same tree whatever the timing; with K = 1 it is
:func:`mctslab.engine.search`. The waiting costs a hand-over per leaf: on playouts of
microseconds it can be slower than one thread (``python -m mctslab bench`` prints it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..games.base import Game, State
from .backend import check_virtual_loss
from .parallel import prepare_threads, roots_filled, run_threads
from .tree import CHUNK_SECONDS, MAX_CHUNK, MAX_VISITS, NO_LIMIT, Budget, CompiledTree
from .uct import SearchResult

__all__ = ["LeafTree", "SharedTree", "search_leaf_parallel", "search_tree_parallel"]

TREE_CHUNK = 512
"""Iterations of a tree-parallel thread's first compiled call (and of every call under a deadline); later calls
double while they take under a quarter of :data:`~mctslab.engine.tree.CHUNK_SECONDS` (Ctrl-C is seen between calls)."""


class SharedTree(CompiledTree):
    """A :class:`CompiledTree` with the arrays tree parallelism adds: per slot, the virtual
    visits pending (``vloss``), the expansion lock (``lock``) and the playouts that ended there (``ends``)."""

    _ARRAYS = (*CompiledTree._ARRAYS, ("vloss", np.int32), ("lock", np.int32), ("ends", np.int32))

    def iterate_shared(self, compiled: Any, c: float, limit: int, todo: int, vl: int, work: np.ndarray,
                       scratch: np.ndarray) -> int:  # fmt: skip
        """One compiled call of at most ``todo`` iterations by this thread (``scratch``: the thread's own)."""
        return compiled.uct_tree(
            self.rules, self.prm, self.tab, self.root_state, self.root, c, limit, todo, vl,
            self.move, self.first, self.nlegal, self.nexp, self.visits, self.wins2, self.mean, self.isq,
            self.vloss, self.lock, self.ends, self.info, work, scratch, self.roots,
        )  # fmt: skip

    def full(self) -> bool:
        """Whether fewer than one block of slots is free (the threads stop; the arrays grow)."""
        return int(self.info[0]) + self.block > self.move.shape[0]


class LeafTree(CompiledTree):
    """A :class:`CompiledTree` searched by leaf parallelism: K playouts per new leaf, K - 1 by workers.

    Attributes:
        k: playouts per leaf (the threads).
        ctl: the control array the workers spin on (see :data:`~mctslab.engine.kernels.LEAF_GENERATION`).
        leaf_st: the leaf's position, published to the workers.
        results: the workers' playout results (entry ``k`` is worker ``k``'s).
    """

    def __init__(self, *args: Any, k: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.k = k
        self.ctl = np.zeros(3, dtype=np.int64)
        self.leaf_st = self.root_state.copy()
        self.results = np.zeros(k, dtype=np.int64)

    def _iterate(self, compiled: Any, c: float, limit: int, todo: int) -> int:
        # visits grow by k per leaf: the root's count stays within MAX_VISITS
        todo = max(0, min(todo, (MAX_VISITS - int(self.visits[self.root])) // self.k))
        return compiled.uct_leaf(
            self.rules, self.prm, self.tab, self.root_state, self.root, c, limit, todo, self.k,
            self.move, self.first, self.nlegal, self.nexp, self.visits, self.wins2, self.mean, self.isq,
            self.info, self.scratch, self.roots, self.ctl, self.leaf_st, self.results,
        )  # fmt: skip


def _result(tree: CompiledTree, done: int) -> SearchResult:
    tree.iterations = int(tree.visits[tree.root])
    tree.max_depth = int(tree.info[1])
    return SearchResult(tree, done)


def search_tree_parallel(
    game: Game, state: State, budget: Budget, *, seeds: Sequence[int], virtual_loss: int = 1
) -> SearchResult:
    """Tree parallelism: ``len(seeds)`` threads search one shared tree of ``state`` at once (see the module).

    Args:
        game, state: the position (checked; not over).
        budget: as :func:`mctslab.engine.uct.search_budget`; its ``iterations`` are the shared tree's, all
            threads together, its ``seconds`` the wall time of the search.
        seeds: one 32-bit seed per thread (their number is the number of threads).
        virtual_loss: virtual visits (losses) a thread adds to each node of its path, >= 0.

    Returns:
        The tree (a :class:`SharedTree`) and its root children, as :func:`mctslab.engine.search`.
        Not reproducible run to run with more than one thread.

    Raises:
        TypeError, ValueError: (one line) for a bad virtual loss, seed or number of seeds, a game without a kernel.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    seeds = tuple(seeds)
    check_virtual_loss("virtual_loss", virtual_loss)
    compiled, (rules, root_state) = prepare_threads(game, state, seeds)
    tree = SharedTree.for_budget(rules, root_state, budget)
    roots_filled()  # every entry of the shared table filled: the threads only read it
    total = min(NO_LIMIT if budget.iterations is None else budget.iterations, MAX_VISITS)
    work = np.array([0, total], dtype=np.int64)
    limit, c = budget.limit, float(budget.c)
    scratches = [np.empty(compiled.SCRATCH, dtype=np.int64) for _ in seeds]
    tree.iterate_shared(compiled, c, limit, 0, virtual_loss, work, scratches[0])  # compiled (or loaded) once
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
    stop = threading.Event()
    barrier = threading.Barrier(len(seeds))
    again = [True]

    def one(k: int) -> int:
        compiled.seed(seeds[k])  # this thread's own generator
        done, chunk = 0, TREE_CHUNK
        barrier.wait()  # all start together (else the first thread may do a small budget alone)
        while True:
            while not stop.is_set():
                start = time.perf_counter()
                done += tree.iterate_shared(compiled, c, limit, chunk, virtual_loss, work, scratches[k])
                if deadline is None and time.perf_counter() - start < CHUNK_SECONDS / 4 and chunk < MAX_CHUNK:
                    chunk *= 2
                if tree.full() or work[0] >= work[1] or (deadline is not None and time.perf_counter() >= deadline):
                    break
            if barrier.wait() == 0:  # one thread, while the others wait: grow the arrays (if full), or end
                made = int(tree.info[2])
                again[0] = made < total and not stop.is_set()
                again[0] = again[0] and (deadline is None or time.perf_counter() < deadline)
                if again[0] and tree.full():
                    tree._grow(made)
                work[0] = made  # every claim not run is given back
            barrier.wait()
            if not again[0]:
                return done

    def on_stop() -> None:
        stop.set()
        barrier.abort()

    done = sum(run_threads([lambda k=k: one(k) for k in range(len(seeds))], "mctslab-tree", on_stop))
    compiled.settle(tree.visits, tree.wins2, tree.mean, tree.isq, tree.slots, tree.roots)
    return _result(tree, done)


def search_leaf_parallel(game: Game, state: State, budget: Budget, *, seeds: Sequence[int]) -> SearchResult:
    """Leaf parallelism: one tree of ``state``, each new leaf simulated ``len(seeds)`` times at once (see the module).

    Args:
        game, state: the position (checked; not over).
        budget: as :func:`mctslab.engine.uct.search_budget`; its ``iterations`` count leaves (each
            simulated K times: K times the playouts), its ``seconds`` the wall time of the search.
        seeds: one 32-bit seed per thread; thread 0 selects (and plays one playout per leaf).

    Returns:
        The tree (a :class:`LeafTree`) and its root children, as :func:`mctslab.engine.search`;
        the same seeds give the same tree, whatever the threads' timing.

    Raises:
        TypeError, ValueError: (one line) for too many leaves for K threads, a bad seed or number of seeds, a game
            without a kernel.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    seeds = tuple(seeds)
    k = len(seeds)
    if budget.iterations is not None and budget.iterations > MAX_VISITS // max(k, 1):
        raise ValueError(
            f"iterations={budget.iterations} with threads={k}: leaf parallelism counts K visits per leaf in 32 bits,"
            f" at most {MAX_VISITS // k} leaves; use fewer"
        )
    compiled, (rules, root_state) = prepare_threads(game, state, seeds)
    tree = LeafTree.for_budget(rules, root_state, budget, k=k)
    prm, tab = rules.prm, rules.tab
    roots_filled()
    limit = budget.limit
    stop = threading.Event()
    tree.ctl[compiled.LEAF_STOP] = 1  # compiled (or loaded) once, before the threads: both return at once
    compiled.leaf_worker(rules, prm, tab, 0, 0, tree.ctl, tree.leaf_st, tree.results, limit, tree.scratch)
    tree._iterate(compiled, float(budget.c), limit, 0)
    tree.ctl[compiled.LEAF_STOP] = 0

    def select() -> int:
        try:
            compiled.seed(seeds[0])
            return tree.run(budget, stop)
        finally:
            tree.ctl[compiled.LEAF_STOP] = 1  # the workers return

    def worker(j: int) -> int:
        compiled.seed(seeds[j])
        scratch = np.empty(compiled.SCRATCH, dtype=np.int64)
        compiled.leaf_worker(rules, prm, tab, j, 0, tree.ctl, tree.leaf_st, tree.results, limit, scratch)
        return 0

    def on_stop() -> None:
        stop.set()
        tree.ctl[compiled.LEAF_STOP] = 1

    jobs = [select] + [lambda j=j: worker(j) for j in range(1, k)]
    done = run_threads(jobs, "mctslab-leaf", on_stop)[0]
    return _result(tree, done)
