"""Compile every kernel of the engine once, into Numba's cache, so that no later process waits for the compiler.

Numba compiles a kernel the first time it is called and keeps the machine code in its
cache (:mod:`mctslab.engine.kernels`); a fresh install has an empty cache, so the first
process to use each kernel pays for compiling it (about 4 minutes of CPU for all of them, each
kernel once per game file; more on a busy machine). ``./run`` (``./run course``, ``./run test``)
warms a cache kept inside ``.venv`` once per install, by running this module, and again when the kernels' source
changes::

    NUMBA_CACHE_DIR=.venv/numba-cache python -m mctslab.engine.warm

Every kernel is compiled once per game file's compiled rules (:mod:`mctslab.engine.game_rules`),
whatever the game's parameters: :func:`warm` runs a few iterations of each compiled search on
each registered game that has compiled rules.
"""

from __future__ import annotations

import time

__all__ = ["warm"]


def warm() -> float:
    """Call every compiled kernel once (compiling it, or loading it from Numba's cache); the seconds it took.

    A few iterations of each search (UCT, MCTS-Solver, RAVE, root, tree and leaf
    parallelism), a few compiled playouts and :func:`mctslab.check_game`'s replay, on each
    registered game with compiled rules.

    Raises:
        ImportError: (one line, naming the extra) if Numba is not installed: the compiled engine is optional.
    """
    from .backend import kernel_games, require
    from .check import compiled_fault
    from .parallel import search_root_parallel
    from .rave import search_rave
    from .shared_tree import search_leaf_parallel, search_tree_parallel
    from .solver import search as search_solver
    from .tree import Budget
    from .uct import random_results, search_budget

    require()
    start = time.perf_counter()
    budget = Budget(c=1.4, iterations=16)
    for game in kernel_games():
        state = game.initial_state()
        search_budget(game, state, budget, seed=0)
        search_solver(game, state, budget, seed=0)
        search_rave(game, state, budget, k=250.0, seed=0)
        for parallel in (search_root_parallel, search_tree_parallel, search_leaf_parallel):
            parallel(game, state, budget, seeds=(1, 2))
        random_results(game, state, playouts=2, seed=0)  # the compiled playouts of flat Monte Carlo
        compiled_fault(game, [list(game.legal_moves(state)[:1])])  # check_game's lock step (the replay kernel)
    return time.perf_counter() - start


if __name__ == "__main__":  # a command: ``python -m mctslab.engine.warm``
    print(f"[mctslab] Numba kernels compiled or loaded from the cache in {warm():.1f} s")  # noqa: T201
