"""Root parallelism: K compiled UCT searches of one position at once, in K threads, their roots summed.

Root parallelization (Chaslot, Winands and van den Herik 2008, "Parallel Monte-Carlo
Tree Search"): each thread builds its own tree of the same position, with nothing shared
during the search; at the end the root children's visits (and wins) are summed move by
move and the move is chosen by the summed visits. Here the threads are Python threads
that each run the compiled kernel :func:`mctslab.engine.kernels.uct`, compiled with
``nogil=True``, so they run on separate cores at once.

The budget is per tree: ``iterations`` iterations in *each* tree (K times the playouts of
one search), and ``seconds`` the wall time every tree searches for, as each of the
paper's threads searches for the whole time of a move.

Reproducible: tree ``k`` seeds the engine's generator with ``seeds[k]``. That generator is
one per thread (its state kept in Numba's thread-local random state, :mod:`mctslab.games._jit`;
a new thread's is seeded from ``os.urandom`` on first use), so each thread seeds its own state, inside the thread,
before its search. Tree ``k`` is then exactly the single-thread search
:func:`mctslab.engine.search` with ``seed=seeds[k]``, whatever the order in which the
threads run (``tests/test_parallel_root.py`` compares the sums with K separate searches).

Shared between the threads: the game's constant tables ``prm`` and ``tab`` (read only)
and the per-process table of ``sqrt(ln n)`` and ``1 / sqrt(n)`` that the kernels fill as
first needed. :func:`search_root_parallel` fills that table completely
(:func:`mctslab.engine.kernels.fill_roots`) before any thread starts, so during the
search the threads only read it (the one store left, for n = 1, writes the 0.0 already
there). Every tree, its scratch arrays and its root position are the thread's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..games.base import Game, State
from .backend import check_supported, check_threads, kernels
from .tree import CHUNK_SECONDS, Budget, CompiledTree, _roots
from .uct import _encoded, check_search, compile_seconds

__all__ = ["ParallelResult", "prepare_threads", "roots_filled", "run_threads", "search_root_parallel"]


@lru_cache(maxsize=1)
def roots_filled() -> np.ndarray:
    """The kernels' shared table of ``sqrt(ln n)`` and ``1 / sqrt(n)``, filled for every ``n`` (once per process)."""
    table = _roots()
    kernels().fill_roots(table)
    return table


@dataclass
class ParallelResult:
    """K trees' root children, summed move by move (moves ascending).

    Attributes:
        trees: the K trees (tree ``k`` searched with ``seeds[k]``).
        seeds: the seeds of the engine's generator, one per tree.
        moves: every move some tree created at its root, ascending.
        visits: per move, the visits summed over the trees.
        wins: per move, the rewards (1 win, 0.5 draw) summed over the trees.
        done: iterations run, over all trees.
    """

    trees: list[CompiledTree]
    seeds: tuple[int, ...]
    moves: list[int]
    visits: list[int]
    wins: list[float]
    done: int

    @property
    def means(self) -> list[float]:
        """Per move, summed wins / summed visits."""
        return [w / v for w, v in zip(self.wins, self.visits, strict=True)]

    @property
    def root_visits(self) -> int:
        """The roots' visits summed."""
        return sum(int(t.visits[t.root]) for t in self.trees)

    @property
    def root_wins(self) -> float:
        """The roots' rewards (for the player who moved to the root) summed."""
        return sum(int(t.wins2[t.root]) for t in self.trees) / 2

    @property
    def max_depth(self) -> int:
        """The deepest node added in any tree, in plies below the root."""
        return max(t.max_depth for t in self.trees)


def _summed(trees: list[CompiledTree]) -> tuple[list[int], list[int], list[float]]:
    """Moves (ascending), summed visits and summed wins of the trees' root children."""
    visits: dict[int, int] = {}
    wins2: dict[int, int] = {}
    for tree in trees:
        for s in tree.children():
            m = int(tree.move[s])
            visits[m] = visits.get(m, 0) + int(tree.visits[s])
            wins2[m] = wins2.get(m, 0) + int(tree.wins2[s])
    moves = sorted(visits)
    return moves, [visits[m] for m in moves], [wins2[m] / 2 for m in moves]


def prepare_threads(game: Game, state: State, seeds: tuple[int, ...]) -> tuple[Any, tuple]:
    """Check a parallel search's call, compile the kernels once; the kernels module and the encoded position.

    Its budget was checked when it was made (:class:`~mctslab.engine.tree.Budget`).

    Raises:
        TypeError, ValueError: (one line) for a game without a kernel, a bad seed or number of seeds.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    check_supported(game)
    check_threads("threads", len(seeds))
    check_search(game, state, seeds, fresh=True)
    compiled = kernels()
    compile_seconds(game)  # compiled (or loaded) once, before any thread
    return compiled, _encoded(game, state)


def run_threads(jobs: list[Callable[[], int]], name: str, on_stop: Callable[[], None]) -> list[int]:
    """Run the jobs in threads at once; their results.

    On Ctrl-C, or an error in one job, ``on_stop()`` tells every job to end (a job waiting at a
    barrier gets :class:`threading.BrokenBarrierError`); the error raised is the job's own, not
    the others' broken barrier.
    """

    def guarded(job: Callable[[], int]) -> int:
        try:
            return job()
        except BaseException:
            on_stop()
            raise

    with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix=name) as pool:
        futures = [pool.submit(guarded, job) for job in jobs]
        try:
            pending = set(futures)
            while pending:  # waits of a tenth of a second: Ctrl-C is seen between them
                _, pending = wait(pending, timeout=CHUNK_SECONDS)
        except BaseException:
            on_stop()
            raise
    errors = [f.exception() for f in futures if f.exception() is not None]
    if errors:
        raise next((e for e in errors if not isinstance(e, threading.BrokenBarrierError)), errors[0])
    return [f.result() for f in futures]


def search_root_parallel(game: Game, state: State, budget: Budget, *, seeds: Sequence[int]) -> ParallelResult:
    """``len(seeds)`` compiled UCT searches of ``state`` at once, one per thread; their roots summed.

    Args:
        game, state: the position (checked; not over).
        budget: as :func:`mctslab.engine.uct.search_budget`, for *each* tree (``iterations`` per
            tree; ``seconds`` of wall time for every tree).
        seeds: one 32-bit seed per tree (the number of seeds is the number of threads, 1 to
            :data:`~mctslab.engine.backend.MAX_THREADS`).

    Raises:
        TypeError, ValueError: (one line) for a game without a kernel, a bad seed or number of seeds.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    seeds = tuple(seeds)
    compiled, (rules, root_state) = prepare_threads(game, state, seeds)
    trees = [CompiledTree.for_budget(rules, root_state.copy(), budget) for _ in seeds]
    roots_filled()  # before the threads: they only read the shared table
    stop = threading.Event()

    def one(tree: CompiledTree, seed: int) -> int:
        compiled.seed(seed)  # this thread's own generator, seeded in the thread
        return tree.run(budget, stop)

    # Ctrl-C (or an error in one tree): the others stop after their current call
    jobs = [lambda tree=tree, seed=seed: one(tree, seed) for tree, seed in zip(trees, seeds, strict=True)]
    done = sum(run_threads(jobs, "mctslab-root", stop.set))
    moves, visits, wins = _summed(trees)
    return ParallelResult(trees, seeds, moves, visits, wins, done)
