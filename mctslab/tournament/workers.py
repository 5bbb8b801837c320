"""Worker processes that stop when asked and never outlive the run that started them.

A tournament's process pool runs :func:`play_until_stopped` in workers set up by
:func:`init_worker`. Two promises follow:

* **Ctrl-C stops everything within about a second, keeping every finished game.**
  In a worker, SIGINT (a terminal's Ctrl-C reaches every process of the run; the main
  process also forwards it, for a SIGINT sent to the main process alone) interrupts the
  game being played, and the batch returns the games it finished, so the main process
  can write them before it stops. Every later batch returns at once, without playing.
* **Workers die with their parent.** On Linux a worker asks the kernel for SIGKILL when
  its parent dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere, or if that fails, a watchdog
  thread checks twice a second that the parent is still there. So even a SIGKILL of
  the main process (which runs no clean-up) leaves no orphan burning a core.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..lifetime import die_with_parent
from .locks import release_inherited
from .playing import play_games

if TYPE_CHECKING:
    import numpy as np

    from .records import GameResult, GameTask

_stop = False  # set by SIGINT: play nothing more
_playing = False  # inside a batch: SIGINT may interrupt the game being played


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (SIGINT) after saving what had finished.

    A ``KeyboardInterrupt``, so code that stops on Ctrl-C still does; it says what was kept.

    Attributes:
        finished: games finished (read from the results file or played) when the run stopped.
        total: games in the run.
        out: the results file holding the finished games, or ``None`` if there is none.
    """

    def __init__(self, finished: int, total: int, out: str | None = None) -> None:
        self.finished, self.total, self.out = finished, total, out
        super().__init__(self.message())

    def message(self) -> str:
        """One line: what was kept and how to resume."""
        if self.out is not None:
            return (
                f"interrupted: {self.finished} of {self.total} games finished and are in {self.out}; "
                "run the same command again to play the other games"
            )
        return (
            f"interrupted: {self.finished} of {self.total} games finished, none kept "
            "(give --out FILE, or out=, to keep finished games and resume)"
        )


class RunIncomplete(RuntimeError):
    """A run that ended without every game of its schedule: a worker died, or games came back missing.

    Attributes:
        finished: games finished (read from the results file or played) when the run ended.
        total: games in the run.
        reason: what went wrong, one clause (e.g. "a worker process was killed by SIGKILL").
        out: the results file holding the finished games, or ``None`` if there is none.
    """

    def __init__(self, finished: int, total: int, reason: str, out: str | None = None) -> None:
        self.finished, self.total, self.reason, self.out = finished, total, reason, out
        super().__init__(self.message())

    def message(self) -> str:
        """One line: why the run did not finish, what was kept and how to resume."""
        if self.out is not None:
            kept = f"{self.finished} of {self.total} games finished and are in {self.out}; "
            return f"run did not finish: {self.reason}; {kept}run the same command again to play the other games"
        return (
            f"run did not finish: {self.reason}; {self.finished} of {self.total} games finished, none kept "
            "(give --out FILE, or out=, to keep finished games and resume)"
        )


class WorkerLost(RuntimeError):
    """A pool worker died mid-run (killed by the system, e.g. out of memory); the message says how."""


def _on_sigint(signum: int, frame) -> None:
    global _stop
    if _stop:  # already stopping: a second Ctrl-C must not interrupt the clean-up
        return
    _stop = True
    if _playing:
        raise KeyboardInterrupt


def init_worker(parent_pid: int) -> None:
    """Set up a pool worker: SIGINT stops the batch (:func:`play_until_stopped`); die with the parent.

    It also closes its copies of the results files' lock descriptors, so that the lock ends
    with the run, not with the last worker.
    """
    release_inherited()
    signal.signal(signal.SIGINT, _on_sigint)
    die_with_parent(parent_pid)


def play_until_stopped(
    game_spec: str,
    pairs: Sequence[tuple[str, str]],
    root: int | np.random.SeedSequence,
    tasks: Sequence[GameTask],
) -> tuple[list[GameResult], bool]:
    """Play a batch as :func:`~mctslab.tournament.playing.play_batch` does, unless SIGINT stops it.

    Returns:
        ``(results, stopped)``: the games finished, in order, and whether SIGINT
        stopped the batch before its end (then ``results`` holds the games finished
        before it; the game it interrupted is not among them).
    """
    global _playing
    results: list[GameResult] = []
    if _stop:
        return results, True
    try:
        _playing = True
        for result in play_games(game_spec, pairs, root, tasks):
            results.append(result)
            if _stop:
                break
        _playing = False
    except KeyboardInterrupt:
        _playing = False
    return results, _stop
