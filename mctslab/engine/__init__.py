"""A compiled UCT engine (Numba): UCT and two variants, the same algorithms as the Python agents, many times faster.

Optional: ``pip install "mctslab[fast]"`` installs Numba. The UCT agent uses this engine
with ``engine="compiled"`` (``make_agent("uct:iterations=10000,engine=compiled")``); plain
``uct`` stays the readable pure-Python engine, and its seeded results do not change.

The same player, not the same random numbers:

* the same algorithm: UCB1 ``mean + c * sqrt(ln N / n)`` with the same ``c`` (unvisited
  children first, ties to the first child created), one new node per iteration for a
  uniformly random untried move, uniformly random playouts (``max_moves`` cuts one short
  as a draw), rewards 1 / 0.5 / 0 kept for the player who made each node's move (so a
  parent maximises its children's means, as in :class:`~mctslab.agents.uct.Node`), and
  the most visited child played (``final="visits"``; ties: higher mean) or the best mean
  (``final="mean"``);
* other random numbers: playouts draw from the engine's own generator, xorshift64*
  (:mod:`mctslab.games._jit`). Each search seeds it with 32 bits drawn from the agent's own
  generator (``agent.rng``, made from its ``seed``), so the same seed gives the same moves,
  game after game. The engine's generator is one per thread and separate from NumPy's global
  one; a search runs to completion before
  another starts in the same thread, so searches never share a stream.
  ``tests/test_engine.py`` checks that the two engines choose moves with the same
  frequencies, within sampling error.

Games: a game takes part with its own compiled rules, :func:`~mctslab.games.compiled_rules`
(a :class:`~mctslab.games.compiled.CompiledGame`: Numba-compiled legal moves, move and random
playout, their tables and sizes) and :meth:`~mctslab.games.CompiledEncoding.compiled_state` (a
position as an int64 vector); the engine names no game (:mod:`mctslab.engine.game_rules`).
Tic-tac-toe (boards up to 7 x 7), Connect Four (up to 63 bits of board), Ultimate
Tic-Tac-Toe with Fractio and Hex have them. The tree is a set of
parallel arrays (36 bytes per slot; see :mod:`mctslab.engine.kernels`), made as large as the
budget can need (one block of slots per iteration) up to 2^20 slots, then doubled as the
search needs; the system zeroes the pages as they are first touched, so slots never reached
cost nothing.
The budget runs in compiled calls of about 0.1 s, one random stream across them, so
Ctrl-C stops a search within a second and the chunks change no result.

A search's budget is one value, :class:`Budget` (``c``, ``iterations``, ``seconds``, ``max_moves``),
checked once when it is made and handed down unchanged: every entry point
(:func:`search_budget`, :func:`search_root_parallel`, the solver's, RAVE's, tree and leaf
parallelism's) takes it, and :meth:`CompiledTree.run` spends it. An agent's engine makes it from the
agent's parameters (:class:`~mctslab.agents.engines.CompiledEngine`); :func:`search` is the same
search with the four as keywords.

Two variants of UCT run on the same arrays, each with its own kernel and tree: MCTS-Solver
(``solver:engine=compiled``, :mod:`mctslab.engine.solver`: one more byte per slot, the proven
value) and RAVE (``rave:engine=compiled``, :mod:`mctslab.engine.rave`: AMAF counts and the
mixed value per slot). Their tests check them against the Python agents (the same player,
within sampling error) and the solver's proofs against :mod:`mctslab.exact`.

Root parallelism (``uct:engine=compiled,threads=K,parallel=root``,
:func:`search_root_parallel`): K trees of the same position searched at once in K threads
(the kernel releases the GIL), each from its own seed, their root children's visits and
wins summed; see :mod:`mctslab.engine.parallel`. Tree parallelism (``parallel=tree``: one tree
shared by K threads, virtual loss, slots and expansions claimed atomically; not reproducible
run to run) and leaf parallelism (``parallel=leaf``: K playouts of each new leaf at once,
seeded-reproducible): :mod:`mctslab.engine.shared_tree`.
"""

from . import check as _check  # noqa: F401 - registers the compiled part of check_game
from .backend import (
    EXTRA_HINT,
    MAX_THREADS,
    available,
    check_engine,
    check_parallel,
    check_supported,
    check_threads,
    games_with_kernels,
    require,
    supports,
)
from .parallel import ParallelResult, search_root_parallel
from .tree import NO_LIMIT, SLOT_BYTES, Budget, CompiledTree
from .uct import SearchResult, compile_seconds, random_results, search, search_budget

__all__ = [
    "EXTRA_HINT",
    "MAX_THREADS",
    "NO_LIMIT",
    "ParallelResult",
    "SLOT_BYTES",
    "Budget",
    "CompiledTree",
    "SearchResult",
    "available",
    "check_engine",
    "check_parallel",
    "check_supported",
    "check_threads",
    "compile_seconds",
    "games_with_kernels",
    "random_results",
    "require",
    "search",
    "search_budget",
    "search_root_parallel",
    "supports",
]
