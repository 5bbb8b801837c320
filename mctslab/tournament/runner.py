"""Playing many games: per-game seeds, batches, and any ``concurrent.futures`` executor.

Every game of a tournament is a :class:`~mctslab.tournament.records.GameTask` whose seed
(:func:`~mctslab.tournament.records.game_seed`) is derived from the tournament's seed and
the game's place in the schedule, never from a worker id or the
order in which games finish: game ``i`` of a match seeded ``S`` is seeded with
``numpy.random.SeedSequence(S).spawn(N)[i]`` (and game ``i`` of pairing ``p`` of a round
robin with ``SeedSequence(S).spawn(P)[p].spawn(N)[i]``). So a tournament gives the same
games on one core, on a process pool, or on a Dask cluster.

Games are sent to workers in batches (:func:`default_batch_size`) so that the cost of
shipping a task, small for a process pool and larger for a cluster, does not dominate
games that take a millisecond.

Running on a Dask cluster (``pip install "mctslab[cluster]"``) is passing its executor::

    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=4, threads_per_worker=1) as cluster, Client(cluster) as client:
        result = play_match("tictactoe", "uct", "flat", games=1000, seed=1, executor=client.get_executor())

The same seed gives the same result there as on one core. Give ``batch_size`` when the
cluster has many more workers than this machine has cores (the default batch size is
computed from the local core count).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from concurrent.futures import TimeoutError as FuturesTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ..validation import integer, positive_int
from .playing import play_batch, play_games
from .records import GameResult, GameTask
from .workers import RunIncomplete, RunInterrupted, WorkerLost, init_worker, play_until_stopped

MAX_WORKERS = 256
"""The most worker processes a run may start (``workers=100_000`` would fork until the machine stops)."""

MAX_GAMES = 1_000_000
"""The most games one run may schedule: its tasks are held in memory (about 250 MB per
million), so ``games=10**9`` is refused at once instead of failing with ``MemoryError``."""


def check_games(games: int, per: int = 1) -> int:
    """``games`` (an int >= 1) if ``games * per`` fits in :data:`MAX_GAMES`.

    Args:
        games: games per pairing.
        per: pairings (1 in a match).

    Raises:
        TypeError: if ``games`` is not an integer.
        ValueError: if it is < 1, or the run would have more than :data:`MAX_GAMES` games.
    """
    games = positive_int("games", games)
    if games * per > MAX_GAMES:
        where = "" if per == 1 else f" x {per} pairings"
        raise ValueError(
            f"games must be at most {MAX_GAMES:,} in one run, got {games:,}{where}; "
            "play several runs with different seeds instead"
        )
    return games


def available_cores() -> int:
    """Cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_batch_size(games: int, workers: int) -> int:
    """Games per task: about eight tasks per worker, so that load balances, at most 100 games.

    Args:
        games: games to play, >= 0.
        workers: worker processes, >= 1.
    """
    return max(1, min(100, math.ceil(games / (8 * workers))))


def check_workers(workers: int | None, batch_size: int | None) -> None:
    """Check the ``workers`` and ``batch_size`` options: each ``None`` or an int >= 1 (workers at most 256).

    Raises:
        TypeError: if either is neither ``None`` nor an int.
        ValueError: if either is < 1.
    """
    if workers is not None:
        integer("workers", workers, low=1, high=MAX_WORKERS, hint=" (or None for every core)")
    if batch_size is not None:
        positive_int("batch_size", batch_size, hint=" (games per task, or None for automatic)")


@dataclass(frozen=True)
class Run:
    """What every game of one tournament run shares, passed down as one value instead of eight parameters.

    Attributes:
        game_spec: the game's spec (what crosses to a worker process).
        pairs: ``(A, B)`` agents of each pairing: specs (or factories, played in this process).
        root: the tournament's seed; task ``t`` is seeded with ``game_seed(root, t.seed_key)``.
        executor: any :class:`concurrent.futures.Executor` (a process pool, a Dask
            ``Client.get_executor()``...); used, not shut down. ``None``: a process pool of
            ``workers`` processes, made and shut down by :meth:`play`.
        workers: processes when no executor is given: ``None`` for every core; 1 plays in
            this process (no pool).
        batch_size: games per task, >= 1 (``None``: :func:`default_batch_size`).
        progress: show a ``tqdm`` progress bar.
        desc: the bar's label.
    """

    game_spec: str
    pairs: tuple[tuple[Any, Any], ...]
    root: int | np.random.SeedSequence
    executor: Executor | None = None
    workers: int | None = None
    batch_size: int | None = None
    progress: bool = True
    desc: str = "games"

    def play(
        self, tasks: Sequence[GameTask], done: int = 0, on_batch: Callable[[list[GameResult]], None] | None = None
    ) -> list[GameResult]:
        """Play ``tasks`` in batches and collect the results (see :func:`run_games`).

        Args:
            tasks: the games to play.
            done: games already finished (resumed), for the bar's starting point.
            on_batch: called in this process with each finished batch, as it finishes
                (how results reach the file before the run ends).
        """
        check_workers(self.workers, self.batch_size)
        n_workers = self.workers or available_cores()
        size = self.batch_size or default_batch_size(len(tasks), n_workers)
        batches = [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]
        results: list[GameResult] = []
        bar = tqdm(total=done + len(tasks), initial=done, desc=self.desc, unit="game", disable=not self.progress)

        def collect(batch_results: list[GameResult]) -> None:
            if not batch_results:
                return
            with _ctrl_c_held():  # written and counted together: the count a stop reports is what the file holds
                if on_batch is not None:
                    on_batch(batch_results)
                results.extend(batch_results)
            bar.update(len(batch_results))

        try:
            if self.executor is None and (n_workers == 1 or len(batches) <= 1):
                _run_here(self, batches, collect)
            elif self.executor is None:
                _run_on_pool(self, batches, collect, n_workers)
            else:
                _run_on_executor(self.executor, self, batches, collect)
        except KeyboardInterrupt:
            raise RunInterrupted(done + len(results), done + len(tasks)) from None
        except WorkerLost as lost:
            raise RunIncomplete(done + len(results), done + len(tasks), str(lost)) from None
        finally:
            bar.close()
        _check_complete(tasks, results, done)
        results.sort(key=lambda r: r.key)
        return results

    @property
    def where(self) -> tuple[str, tuple[tuple[Any, Any], ...], int | np.random.SeedSequence]:
        """``(game_spec, pairs, root)``: what a worker needs to play a batch (plain values, picklable)."""
        return self.game_spec, self.pairs, self.root


def run_games(
    game_spec: str,
    pairs: Sequence[tuple[str, str]],
    root: int | np.random.SeedSequence,
    tasks: Sequence[GameTask],
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    batch_size: int | None = None,
    progress: bool = True,
    desc: str = "games",
    done: int = 0,
    on_batch: Callable[[list[GameResult]], None] | None = None,
) -> list[GameResult]:
    """Play ``tasks`` in batches on ``executor`` (or a process pool) and collect the results.

    Args:
        game_spec: the game's spec.
        pairs: ``(A, B)`` agents of each pairing: specs.
        root: the tournament's seed.
        tasks: the games to play.
        executor: any :class:`concurrent.futures.Executor` (a process pool, a Dask
            ``Client.get_executor()``...); it is used, not shut down. ``None``: a
            process pool of ``workers`` processes, made and shut down here.
        workers: processes when no executor is given: ``None`` for every core; 1 plays
            in this process (no pool).
        batch_size: games per task, >= 1 (default :func:`default_batch_size`).
        progress: show a ``tqdm`` progress bar.
        desc: the bar's label.
        done: games already finished (resumed), for the bar's starting point.
        on_batch: called in this process with each finished batch, as it finishes
            (how results reach the file before the run ends).

    Returns:
        The results, sorted by ``(pair, index)``.

    Raises:
        TypeError, ValueError: if ``workers`` or ``batch_size`` is not an int >= 1 or ``None``.
        RunInterrupted: on Ctrl-C, here or in a worker (SIGINT sent to one worker stops the
            whole run), once the finished games have reached ``on_batch``.
        RunIncomplete: if a worker died (e.g. killed by the system when memory ran out) or
            the results do not match the tasks one to one: the run did not finish.
    """
    check_workers(workers, batch_size)
    run = Run(game_spec, tuple(tuple(p) for p in pairs), root, executor, workers, batch_size, progress, desc)
    return run.play(tasks, done, on_batch)


def _check_complete(tasks: Sequence[GameTask], results: list[GameResult], done: int) -> None:
    """Every task has exactly one result, and nothing else came back: a run never ends with a fraction of its games.

    Raises:
        RunIncomplete: saying how many games are missing (or came back twice, or were never asked for).
    """
    wanted = {t.key for t in tasks}
    got = [r.key for r in results]
    kept = len(wanted.intersection(got))
    if kept == len(wanted) == len(got):
        return
    if len(set(got)) != len(got) or not wanted.issuperset(got):
        reason = "the workers returned games that were not asked for, or the same game twice"
    else:
        reason = f"{len(wanted) - kept} of the {len(wanted)} games to play came back unplayed"
    raise RunIncomplete(done + kept, done + len(tasks), reason)


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold a SIGINT that arrives in the block until its end, then raise ``KeyboardInterrupt`` there.

    Only in the main thread (where Python runs signal handlers), and only when SIGINT
    raises ``KeyboardInterrupt`` (its default handler); otherwise the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    held: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if held:
        raise KeyboardInterrupt


GRACE_SECONDS = 1.0
"""After Ctrl-C, how long the main process waits for workers to send the games they finished."""

Collect = Callable[[list[GameResult]], None]


def _run_here(run: Run, batches: list[list[GameTask]], collect: Collect) -> None:
    """Play in this process; on Ctrl-C, keep the games of the batch finished so far."""
    for batch in batches:
        finished: list[GameResult] = []
        try:
            for result in play_games(*run.where, batch):
                finished.append(result)
        except KeyboardInterrupt:
            collect(finished)
            raise
        collect(finished)


def _run_on_executor(executor: Executor, run: Run, batches: list[list[GameTask]], collect: Collect) -> None:
    """Play on the caller's executor (used, not shut down); on Ctrl-C, cancel what has not started."""
    futures = [executor.submit(play_batch, *run.where, batch) for batch in batches]
    try:
        for future in as_completed(futures):
            collect(future.result())
    finally:
        for future in futures:
            future.cancel()


def _run_on_pool(run: Run, batches: list[list[GameTask]], collect: Collect, n_workers: int) -> None:
    """Play on a process pool of :mod:`~mctslab.tournament.workers` that stop on Ctrl-C and die with us.

    On Ctrl-C (here, or in the whole process group as a terminal sends it), SIGINT goes
    to every worker, which returns the games it finished; those that arrive within
    :data:`GRACE_SECONDS` are collected, then every worker is killed.
    """
    pool = ProcessPoolExecutor(max_workers=n_workers, initializer=init_worker, initargs=(os.getpid(),))
    futures: list[Future] = []
    collected: set[Future] = set()
    try:
        futures = [pool.submit(play_until_stopped, *run.where, batch) for batch in batches]
        for future in as_completed(futures):
            finished, stopped = future.result()
            collected.add(future)
            collect(finished)
            if stopped:  # SIGINT reached a worker (sent to it alone, or to a group whose main process ignores it)
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        _salvage(pool, [f for f in futures if f not in collected], collect)
        raise
    except BrokenProcessPool:
        processes = _processes(pool)
        _collect_finished([f for f in futures if f not in collected], collect)
        _settle(pool)
        reason = _how_died(processes)
        _kill_workers(processes)
        raise WorkerLost(reason) from None
    except BaseException:
        _kill_workers(_processes(pool))
        raise
    finally:
        pool.shutdown(wait=not _stopping(futures), cancel_futures=True)


def _stopping(futures: list[Future]) -> bool:
    return any(not f.done() for f in futures)


def _processes(pool: ProcessPoolExecutor) -> list:
    """The pool's worker processes (``multiprocessing.Process``), read before a shutdown forgets them."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _collect_finished(futures: list[Future], collect: Collect) -> None:
    """Collect the batches among ``futures`` that finished normally (the others are lost)."""
    for future in futures:
        if future.done() and not future.cancelled() and future.exception() is None:
            collect(future.result()[0])


SETTLE_SECONDS = 10.0
"""How long a broken pool's manager thread may take to end its workers and reap them."""


def _settle(pool: ProcessPoolExecutor) -> None:
    """Wait for a broken pool's manager thread to end the other workers and reap them all.

    It reaps each worker (``waitpid``) and stores its exit code a moment later; read from this
    thread in between, a killed worker's code would be lost (``waitpid`` finds no child), and a
    busy machine makes that moment long: the run then blamed the pool's own SIGTERM. Once the
    thread has ended, every code is stored. At most :data:`SETTLE_SECONDS`: a worker that does
    not end is killed after (:func:`_kill_workers`).
    """
    thread = getattr(pool, "_executor_manager_thread", None)
    if thread is not None:
        thread.join(SETTLE_SECONDS)


def _how_died(processes: list) -> str:
    """Why the pool broke, one clause: the first worker that a signal other than ours killed."""
    for process in processes:
        code = process.exitcode
        if code is not None and code < 0 and -code != signal.SIGTERM:  # SIGTERM: the pool ending the others
            name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
            hint = " (the system may have run out of memory)" if -code == signal.SIGKILL else ""
            return f"a worker process (pid {process.pid}) was killed by {name}{hint}"
        if code is not None and code > 0:
            return f"a worker process (pid {process.pid}) exited with status {code}"
    if any(process.exitcode == -signal.SIGTERM for process in processes):
        return "a worker process was killed (by SIGTERM, or by the system: it may have run out of memory)"
    return "a worker process ended abruptly"


def _salvage(pool: ProcessPoolExecutor, futures: list[Future], collect: Collect) -> None:
    """After Ctrl-C: stop the workers, collect the games they finished, then kill them.

    The batches not yet sent to a worker are cancelled by the pool's own thread
    (``shutdown(cancel_futures=True)``): a future cancelled from here would stay among the
    pool's pending items, and killing the workers would then make that thread set an
    exception on it (an ``InvalidStateError`` traceback printed from the thread).
    """
    processes = _processes(pool)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        try:
            os.kill(process.pid, signal.SIGINT)  # a SIGINT sent to this process alone must reach them too
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + GRACE_SECONDS
    try:
        for future in as_completed(futures, timeout=max(0.0, deadline - time.monotonic())):
            try:
                finished, _ = future.result()
            except Exception:  # cancelled, or a worker that died or failed: its games are lost, the others kept
                continue
            collect(finished)
    except (FuturesTimeout, KeyboardInterrupt):  # a second Ctrl-C: stop waiting
        pass
    finally:
        _kill_workers(processes)


def _kill_workers(processes: list) -> None:
    """SIGKILL every worker still running (the pool's own shutdown would wait for their games)."""
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:  # reaped, so nothing of the run outlives it
        process.join(timeout=1.0)
