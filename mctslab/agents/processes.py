"""Root parallelism without Numba: ``uct:threads=K,parallel=root`` on the python engine, in K processes.

Python threads cannot search at once (the interpreter runs one at a time), so where the
compiled engine is missing (or not wanted) the K searches of root parallelism run in K
worker processes (:class:`concurrent.futures.ProcessPoolExecutor`). As in the compiled
engine's root parallelism (:mod:`mctslab.engine.parallel`): K seeds are drawn from the
agent's generator (32 bits each, the first being the seed a single search would draw), tree
``k`` is the single-process search of a fresh agent seeded with ``seeds[k]``, and the root
children's visits and wins are summed move by move
(:func:`mctslab.agents.compiled.merged_root`); the move is chosen by the summed visits
(``final="visits"``) or summed means. The results are the same run after run, and equal
to K separate seeded searches summed (``tests/test_parallel_processes.py``).

What crosses to a process is text and plain values: the game's spec, the position (a
tuple or NamedTuple), the one-search agent's class (by reference) and parameters, and a
seed, so it works from a notebook and under any start method (fork, spawn, forkserver);
the game must be one :func:`~mctslab.games.make_game` makes from its spec in a fresh
process, and the agent's class one a worker can import (a game or agent class defined only
in a notebook's session is known to forked workers, not to spawned ones). In the
program's own process the pool is made at the first such search and kept for the later
ones (starting K interpreters costs about a tenth of a second); one that broke (a worker
killed) is replaced at the next search. In a worker process (a tournament's, say) each
search makes its pool and shuts it down, so that the worker can end.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..games import make_game
from ..games.base import Game, State
from ..lifetime import die_with_parent
from .base import Analysis, legal_or_raise
from .node import Node
from .registry import make_agent

if TYPE_CHECKING:
    from .protocols import Searcher

__all__ = ["RootSums", "analyse_in_processes", "one_root", "single_spec"]


@dataclass
class RootSums:
    """K searches' root children, summed move by move (moves ascending), as :func:`~.compiled.merged_root` reads them.

    Attributes:
        seeds: the seed of each search.
        moves: every move some search created at its root, ascending.
        visits, wins: per move, the visits and the rewards (1 win, 0.5 draw) summed.
        root_visits, root_wins: the roots' visits and rewards (for the player who moved to the root) summed.
        done: iterations run, over all searches.
        max_depth: the deepest node of any search, in plies below the root.
        extras: per move, the node class's other summed statistics (its ``SUMMED``, in that order); empty when none.
    """

    seeds: tuple[int, ...]
    moves: list[int]
    visits: list[int]
    wins: list[float]
    root_visits: int
    root_wins: float
    done: int
    max_depth: int
    extras: list[tuple[float, ...]] | None = None


def single_values(agent: Searcher) -> dict[str, Any]:
    """The parameters of one of ``agent``'s K searches: its own, with one thread (``threads``, ``parallel``,
    ``virtual_loss`` at UCT's defaults where the agent declares them)."""
    values = {p.name: getattr(agent, p.name) for p in type(agent).params}
    one = {"threads": 1, "parallel": "root", "virtual_loss": 1}
    values.update({k: v for k, v in one.items() if k in values})
    return values


def single_spec(agent: Searcher) -> str:
    """The spec of one of ``agent``'s K searches: its own, without ``threads``, ``parallel`` and ``virtual_loss``."""
    return type(agent)(**single_values(agent)).spec


def one_root(
    game_spec: str, state: State, agent: str | tuple[type, dict[str, Any]], seed: int
) -> tuple[dict[int, tuple], tuple]:
    """One seeded search (in a worker process): per root child ``move: (visits, wins)``, then the child's
    other summed statistics when its node class names some (``SUMMED``, e.g. UCB1-Tuned's ``squares``), and
    ``(root visits, root wins, iterations, max depth)``.

    ``agent``: a spec, or ``(agent class, parameters)`` (the class travels by reference, so an
    agent registered after the pool started, which the workers' registry does not hold, is made too).
    """
    game = make_game(game_spec)
    made = make_agent(agent, seed=seed) if isinstance(agent, str) else agent[0](**agent[1], seed=seed)
    analysis = made.analyse(game, state)
    root = analysis.root
    summed = getattr(type(root), "SUMMED", ())
    children = {ch.move: (ch.visits, ch.wins, *(getattr(ch, name) for name in summed)) for ch in root.children}
    return children, (root.visits, root.wins, analysis.iterations, analysis.max_depth)


def _in_main_process() -> bool:
    """Whether this is the program's own process (not a worker of some pool, e.g. a tournament's)."""
    return multiprocessing.parent_process() is None


_POOLS: dict[int, ProcessPoolExecutor] = {}


def _init_worker(parent_pid: int) -> None:
    """Set up a search worker: it dies with its parent (even a SIGTERM or SIGKILL of the parent, which runs
    no clean-up, leaves no orphan) and leaves Ctrl-C to the parent, which stops it (:func:`_stop`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)


def _new_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(os.getpid(),))


def _pool(workers: int) -> ProcessPoolExecutor:
    """The kept pool of ``workers`` processes (made when first asked)."""
    if workers not in _POOLS:
        _POOLS[workers] = _new_pool(workers)
    return _POOLS[workers]


def _stop(pool: ProcessPoolExecutor) -> None:
    """Kill ``pool``'s workers at once (their searches are abandoned) and shut it down without waiting.

    On Ctrl-C the pool's own shutdown would wait for the searches under way (26 s for a long one).
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)  # the pool's own thread cancels what has not started
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=1.0)
    for workers, kept in list(_POOLS.items()):
        if kept is pool:
            del _POOLS[workers]


def _run(jobs: list[tuple[str, State, Any, int]]) -> list[tuple]:
    """Every job in its own process: in the kept pool in the main process; elsewhere (a worker process of
    a tournament, say) in a pool made for this search and shut down after it, so that no pool outlives
    the worker (a kept one there held the worker's exit, and its parent's, for ever)."""
    if not _in_main_process():
        pool = _new_pool(len(jobs))
        try:
            found = list(pool.map(one_root, *zip(*jobs, strict=True)))
        except BaseException:  # Ctrl-C, or the worker told to stop: the searches are abandoned at once
            _stop(pool)
            raise
        pool.shutdown()
        return found
    try:
        return _map(_pool(len(jobs)), jobs)
    except BrokenProcessPool:  # a worker was killed (e.g. by hand): a new pool, once
        _POOLS.pop(len(jobs)).shutdown(wait=False, cancel_futures=True)
        return _map(_pool(len(jobs)), jobs)


def _map(pool: ProcessPoolExecutor, jobs: list[tuple[str, State, Any, int]]) -> list[tuple]:
    """The jobs' results from the kept ``pool``; on Ctrl-C (or any other stop) its workers are killed at once."""
    try:
        return list(pool.map(one_root, *zip(*jobs, strict=True)))
    except BrokenProcessPool:
        raise
    except BaseException:
        _stop(pool)
        raise


def search_in_processes(
    game: Game, state: State, agent_spec: str | tuple[type, dict[str, Any]], seeds: tuple[int, ...]
) -> RootSums:
    """``len(seeds)`` searches of ``state`` by the agent ``agent_spec``, one per process, their roots summed.

    ``agent_spec``: a spec, or ``(agent class, parameters)`` (see :func:`one_root`).

    Raises:
        BrokenProcessPool: when a worker died twice in a row (the pool is made again once).
    """
    found = _run([(game.spec, state, agent_spec, seed) for seed in seeds])
    visits: dict[int, int] = {}
    wins: dict[int, float] = {}
    extras: dict[int, tuple[float, ...]] = {}
    for children, _ in found:  # in seed order: the same float sums every run
        for move, (v, w, *more) in children.items():
            visits[move] = visits.get(move, 0) + v
            wins[move] = wins.get(move, 0.0) + w
            extras[move] = tuple(a + b for a, b in zip(extras.get(move, (0.0,) * len(more)), more, strict=True))
    moves = sorted(visits)
    return RootSums(
        seeds=tuple(seeds),
        moves=moves,
        visits=[visits[m] for m in moves],
        wins=[wins[m] for m in moves],
        root_visits=sum(r[0] for _, r in found),
        root_wins=sum(r[1] for _, r in found),
        done=sum(r[2] for _, r in found),
        max_depth=max(r[3] for _, r in found),
        extras=[extras[m] for m in moves],
    )


def analyse_in_processes(agent: Searcher, game: Game, state: State) -> Analysis:
    """:meth:`UCT.analyse <mctslab.agents.uct.UCT.analyse>` for ``threads=K`` on the python engine (see the module).

    ``Analysis.root`` is a :class:`~mctslab.agents.node.Node` of one level (the summed
    root); ``Analysis.iterations`` counts the iterations of all K searches.
    """
    from .compiled import merged_root

    if agent.rule_class is not type(agent).rule_class:  # the K searches are made from the class and parameters
        raise ValueError(
            f"rule_class={agent.rule_class.__name__} set on this agent: its K searches in K processes are made from"
            f" its class and parameters ({type(agent).rule_class.__name__}); use threads=1, or a class naming the rule"
        )
    legal_or_raise(game, state)
    seeds = tuple(agent.rng.getrandbits(32) for _ in range(agent.threads))
    sums = search_in_processes(game, state, (type(agent), single_values(agent)), seeds)
    root = merged_root(game, state, sums, agent.node_class if getattr(agent.node_class, "SUMMED", ()) else Node)
    return Analysis(
        agent.final_move(root),
        agent.move_stats(root),
        iterations=sums.done,
        max_depth=sums.max_depth,
        root=root,
        rule=agent.rule.name,
    )
