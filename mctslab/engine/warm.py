"""Compile every kernel of the engine once, into Numba's cache, so that no later process waits for the compiler.

Numba compiles a kernel the first time it is called and keeps the machine code in its
cache (:mod:`mctslab.engine.kernels`); a fresh install has an empty cache, so the first
process to use each kernel pays for compiling it (about a minute for all of them, more on
a busy machine). ``./run`` (``./run course``, ``./run test``) warms a cache kept inside
``.venv`` once per install, by running this module, and again when the kernels' source
changes::

    NUMBA_CACHE_DIR=.venv/numba-cache python -m mctslab.engine.warm

Every kernel takes the same argument types whatever the game (a game is a ``kind``
number and int64 arrays), so one call of each compiles it for all of them: :func:`warm`
runs a few iterations of each compiled agent and variant on each game that has kernels.
"""

from __future__ import annotations

import time

__all__ = ["WARM_SPECS", "warm"]

WARM_SPECS = (
    "uct:iterations=16,engine=compiled",
    "solver:iterations=16,engine=compiled",
    "rave:iterations=16,engine=compiled",
    "uct:iterations=16,engine=compiled,threads=2,parallel=root",
    "uct:iterations=16,engine=compiled,threads=2,parallel=tree",
    "uct:iterations=16,engine=compiled,threads=2,parallel=leaf",
)
"""One agent per compiled kernel (plain UCT, MCTS-Solver, RAVE and the three kinds of parallelism)."""


def warm() -> float:
    """Call every compiled kernel once (compiling it, or loading it from Numba's cache); the seconds it took.

    Raises:
        ImportError: (one line, naming the extra) if Numba is not installed: the compiled engine is optional.
    """
    from ..agents import make_agent
    from ..games import make_game
    from .backend import games_with_kernels, require
    from .uct import random_results

    require()
    start = time.perf_counter()
    for name in games_with_kernels():
        game = make_game(name)
        state = game.initial_state()
        for spec in WARM_SPECS:
            make_agent(spec, seed=0).select_move(game, state)
        random_results(game, state, playouts=2, seed=0)  # the compiled playouts of flat Monte Carlo
    return time.perf_counter() - start


if __name__ == "__main__":  # a command: ``python -m mctslab.engine.warm``
    print(f"[mctslab] Numba kernels compiled or loaded from the cache in {warm():.1f} s")  # noqa: T201
