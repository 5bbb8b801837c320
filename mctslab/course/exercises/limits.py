"""Time limits and progress for the exercise checks: nothing a student writes makes a check hang.

A check runs the student's code inside :func:`time_limit`; when the code does not return
in time (a loop that never moves up the tree, a budget of 20,000 iterations hard-coded),
:class:`TimeLimitExceeded` interrupts it and the check reports a failure that names the
part and the limit, instead of a kernel that has to be interrupted by hand.

What is measured: **CPU time**, the seconds this process spends computing (all its
threads: ``time.process_time``), never the seconds on the wall. On a busy machine (a
shared Binder or Colab, a laptop with a video call open) the student's code gets a
fraction of a core and runs longer on the wall, but spends the same CPU time: so a limit
on CPU time measures the student's work, not the machine's load. Each limit is set a
large factor above the reference answer's CPU time (each constant says by how much).
A wall-clock limit stays only as a backstop (:func:`backstop`) against code that is blocked
without computing (``time.sleep``, ``input()``, a lock that is never released), which no CPU
limit ever stops; its message says that it measured the wall and how little CPU the code
used. The backstop does not count the time the machine's load kept the code waiting for a
core, where Linux says how long that was (:func:`awake_seconds`): code that computes then
reaches its CPU limit first however busy the machine, so the backstop can be short (twice
the limit and 5 s more). Where the wait cannot be measured (not Linux), it is five times
longer, so that a machine five times busier than idle still stops on the CPU limit.

How: two interval timers, whose handler raises :class:`TimeLimitExceeded` in the code that
is running. While a limit is in force, ``ITIMER_PROF`` ticks every :data:`TICK` seconds of
the process's CPU time (``SIGPROF``) and ``ITIMER_REAL`` every :data:`WALL_TICK` seconds of the
wall (``SIGALRM``); each tick compares the precise CPU clock and :func:`awake_seconds` with the
deadlines. Linux samples a process's CPU time for its timers coarsely (a CPU timer re-armed
at each call of the student's function fired an outer limit of 0.3 s after 0.6-1.5 s) and,
on a busy machine, late: the wall-clock ticks keep the limits on time. It is a ``BaseException``, so a
student's ``except Exception`` cannot swallow it. Limits nest (a limit per call inside a
limit for the whole check): the inner one never outlives the outer. Pure Python code is
interrupted between two bytecodes; a single C call that never returns (a huge
``list(range(10**12))``) is not, which is why the grader runs submissions in a fresh
process with its own limits as well. Signals reach only the main thread of a process on
Unix; elsewhere (a thread, Windows) :func:`time_limit` runs the code without a limit and
says so through :func:`limits_available`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tqdm.auto import tqdm

__all__ = [
    "LateBar",
    "TimeLimitExceeded",
    "awake_seconds",
    "backstop",
    "cpu_seconds",
    "measures_waiting",
    "limits_available",
    "progress",
    "time_limit",
]

PROGRESS_AFTER = 2.0
"""Seconds on the wall (what a person waits) a check runs before its progress bar appears (a quick one shows none)."""

SWALLOWED_AGAIN = 0.25
"""Seconds after which an expired limit raises again, if the code caught it (a bare ``except:``)."""

TICK = 0.01
"""CPU seconds between two looks at the deadlines (``SIGPROF``)."""

WALL_TICK = 0.02
"""Wall-clock seconds between two more looks (``SIGALRM``). Linux checks a process's CPU timer only at
the scheduler's ticks that find it running, so on a busy machine ``SIGPROF`` comes late (a 2.5 s
limit fired after 4.7 s of CPU time with five processes per core); a look every 20 ms of the wall
reads the precise CPU clock, so a CPU limit fires at most about this late whatever the load."""

BACKSTOP_FACTOR = 2.0
"""The wall-clock backstop of a limit of ``s`` CPU seconds is ``BACKSTOP_FACTOR * s + BACKSTOP_SECONDS``
(times :data:`UNMEASURED` where the time spent waiting for a core cannot be left out)."""

BACKSTOP_SECONDS = 5.0
"""See :data:`BACKSTOP_FACTOR`."""

UNMEASURED = 5.0
"""How much longer the backstop is where the run-queue wait is not measured (the wall then includes it)."""

CPU = "CPU"
WALL = "wall"


def cpu_seconds() -> float:
    """The CPU time this process has used so far, in seconds (what the limits measure)."""
    return time.process_time()


_schedstat: tuple[int, int] | None = None
"""(pid, file descriptor) of this thread's ``/proc/thread-self/schedstat``, opened in the main thread."""


def _waited() -> float:
    """Seconds the main thread has spent runnable but waiting for a core (Linux's run-queue delay), or 0."""
    global _schedstat
    try:
        if _schedstat is None or _schedstat[0] != os.getpid():  # a forked child has its own main thread
            if threading.current_thread() is not threading.main_thread():
                return 0.0  # opened by the main thread only: thread-self is the thread that opens it
            _schedstat = (os.getpid(), os.open("/proc/thread-self/schedstat", os.O_RDONLY))
        return int(os.pread(_schedstat[1], 64, 0).split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def measures_waiting() -> bool:
    """True where the time spent waiting for a core is known (Linux's ``/proc/thread-self/schedstat``)."""
    _waited()
    return _schedstat is not None


def awake_seconds() -> float:
    """A clock of the main thread's time running or blocked, leaving out time spent waiting for a core.

    It runs like ``time.monotonic()`` on a quiet machine; on a busy one it leaves out the
    time the code was ready to run but had no core (where ``/proc`` says it: Linux). The
    wall-clock backstop measures this, so only code that waits (sleeps, reads, locks)
    reaches it.
    """
    return time.monotonic() - _waited()


def backstop(seconds: float) -> float:
    """The wall-clock seconds after which code under a limit of ``seconds`` CPU seconds is stopped anyway.

    Measured on :func:`awake_seconds`, which leaves out the time spent waiting for a core
    where Linux says it (:func:`measures_waiting`); elsewhere the backstop is :data:`UNMEASURED`
    times longer.
    """
    seconds = BACKSTOP_FACTOR * seconds + BACKSTOP_SECONDS
    return seconds if measures_waiting() else UNMEASURED * seconds


class TimeLimitExceeded(BaseException):
    """The student's code did not return within its limit.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that ``except Exception`` in the
    code under test does not catch it.

    Attributes:
        part: what was running (``"backpropagate"``, ``"your agent's select_move"``).
        seconds: the limit that ran out: CPU seconds, or wall-clock seconds when ``clock`` is ``"wall"``.
        clock: ``"CPU"`` (the code computed for too long) or ``"wall"`` (the backstop:
            the code waited, blocked, for too long).
        used: the CPU seconds the code had used when a wall-clock backstop stopped it (None for ``"CPU"``).
        samples: when the CPU limit ran out, the stacks its ticks found, one every :data:`TICK` of
            CPU time: where the time went (``(file, function)`` pairs, innermost first).
    """

    def __init__(self, part: str, seconds: float, clock: str = CPU, used: float | None = None) -> None:
        self.part = part
        self.seconds = seconds
        self.clock = clock
        self.used = used
        self.samples: list[tuple[tuple[str, str], ...]] = []  # see :func:`_sample`; set when a limit raises
        super().__init__(f"{part} did not return within {self.within}")

    @property
    def within(self) -> str:
        """The limit and what it measured: ``"2 s of CPU time"``, or the backstop's wall-clock seconds and why."""
        if self.clock == CPU:
            return f"{self.seconds:g} s of CPU time"
        used = f"{self.used:.1f}" if self.used is not None else "little"
        return (
            f"{self.seconds:g} s of wall-clock time (not counting time the machine's load kept it waiting for a "
            f"core), using only {used} s of CPU time: was it waiting, in `time.sleep`, `input()` or a lock?"
        )


def limits_available() -> bool:
    """True when :func:`time_limit` can interrupt code here (Unix, main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@dataclass
class _Limit:
    part: str
    seconds: float  # CPU seconds
    cpu_start: float
    wall_start: float
    fired: tuple[str, float] | None = None  # (clock, its reading) when this limit last raised: it may be caught
    samples: list[tuple[tuple[str, str], ...]] = field(default_factory=list)  # the stacks the CPU ticks found

    @property
    def cpu_deadline(self) -> float:
        return self.cpu_start + self.seconds

    @property
    def wall_deadline(self) -> float:
        return self.wall_start + backstop(self.seconds)


_active: list[_Limit] = []
"""The limits in force, outermost first."""


def _expired() -> TimeLimitExceeded | None:
    """The limit that has run out, outermost first (its expiry is the cause if several have), or None.

    A limit that has raised already raises again only :data:`SWALLOWED_AGAIN` seconds later
    (code that catches it with a bare ``except:`` is stopped again; the checker's own code,
    on its way out of the limit, is not interrupted twice).
    """
    cpu, wall = cpu_seconds(), awake_seconds()
    for limit in _active:
        if limit.fired is not None and (cpu if limit.fired[0] == CPU else wall) - limit.fired[1] < SWALLOWED_AGAIN:
            continue
        if cpu >= limit.cpu_deadline:
            limit.fired = (CPU, cpu)
            err = TimeLimitExceeded(limit.part, limit.seconds)
            err.samples = list(limit.samples)
            return err
        if wall >= limit.wall_deadline:
            limit.fired = (WALL, wall)
            return TimeLimitExceeded(limit.part, backstop(limit.seconds), WALL, cpu - limit.cpu_start)
    return None


_UNINTERRUPTED = (__file__, contextlib.__file__)
"""Code a limit never raises in: this module's and ``contextlib``'s, which enter and leave the limits."""


SAMPLED_FRAMES = 64
"""How many frames of the interrupted stack a CPU tick records, innermost first."""


def _sample(frame: Any) -> None:
    """Record, for every limit in force, the stack a CPU tick interrupted: ``(file, function)``, innermost first.

    A tick comes every :data:`TICK` of CPU time, so the stacks are a profile of where the
    limited code spent its CPU time: what took the time, rather than the line that happened
    to run when the limit ran out (:attr:`TimeLimitExceeded.samples`).
    """
    stack = []
    while frame is not None and len(stack) < SAMPLED_FRAMES:
        stack.append((frame.f_code.co_filename, frame.f_code.co_name))
        frame = frame.f_back
    sample = tuple(stack)
    for limit in _active:
        limit.samples.append(sample)


def _on_timer(signum: int, frame: Any) -> None:
    if signum == signal.SIGPROF and frame is not None and _active:
        _sample(frame)
    if frame is not None and frame.f_code.co_filename in _UNINTERRUPTED:
        # Entering or leaving a limit: raising here would skip the bookkeeping (a limit left in force).
        return  # the next tick looks again, once the code under the limit runs
    err = _expired()
    if err is not None:
        raise err


@contextmanager
def time_limit(seconds: float, part: str) -> Iterator[None]:
    """Run the ``with`` block for at most ``seconds`` of CPU time (and a wall-clock backstop).

    Args:
        seconds: the limit in CPU seconds, > 0. The block is also stopped after
            :func:`backstop` ``(seconds)`` seconds on the wall, if it waits rather than computes.
        part: what runs, for the message (the student's function: ``"backpropagate"``).

    Raises:
        TimeLimitExceeded: from inside the block, when the limit (or an enclosing one) runs
            out; its ``clock`` says which clock ran out, its message says the same.
        ValueError: for a limit that is not a positive number.
    """
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds > 0:
        raise ValueError(f"a time limit is a number of seconds > 0, got {seconds!r}")
    if not limits_available():
        yield
        return
    if _active and signal.getsignal(signal.SIGPROF) is not _on_timer:
        _active.clear()  # limits left behind by a block that never exited (a generator never closed)
    outermost = not _active
    previous = None
    if outermost:
        previous = (signal.signal(signal.SIGPROF, _on_timer), signal.signal(signal.SIGALRM, _on_timer))
        signal.setitimer(signal.ITIMER_PROF, TICK, TICK)  # both tick while any limit is in force
        signal.setitimer(signal.ITIMER_REAL, WALL_TICK, WALL_TICK)
    depth = len(_active)
    _active.append(_Limit(part, float(seconds), cpu_seconds(), awake_seconds()))
    try:
        yield
    finally:
        del _active[depth:]
        if previous is not None:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGPROF, previous[0])
            signal.signal(signal.SIGALRM, previous[1])


class LateBar:
    """A progress bar that appears only once its work has run :data:`PROGRESS_AFTER` seconds.

    Made late rather than with tqdm's own ``delay``, which the notebook widget bar of
    ``tqdm.auto`` ignores (it would show, and be stored in the notebook, for every quick
    check). Use it as tqdm: ``update(n)``, ``close()``, or as a context manager.
    """

    def __init__(self, total: int, description: str, enabled: bool = True) -> None:
        self.total = total
        self.description = description
        self.enabled = enabled
        self.done = 0
        self.began = time.perf_counter()
        self.bar: tqdm | None = None
        self.postfix = ""

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps; start showing the bar if the work has run long enough."""
        self.done += n
        if self.bar is None and self.enabled and time.perf_counter() - self.began > PROGRESS_AFTER:
            self.bar = tqdm(total=self.total, desc=self.description, initial=self.done - n, leave=False)
            if self.postfix:
                self.bar.set_postfix_str(self.postfix, refresh=False)
        if self.bar is not None:
            self.bar.update(n)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        """What the bar shows after its counts (the check running), kept until the bar appears."""
        self.postfix = text
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=refresh)

    def close(self) -> None:
        """Close the bar, if it was shown."""
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> LateBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(total: int, description: str, enabled: bool = True) -> LateBar:
    """A progress bar for a check's ``total`` steps that appears only after :data:`PROGRESS_AFTER` seconds.

    Args:
        total: the number of steps (searches, games).
        description: what is counted (``"check_uct"``).
        enabled: ``False`` for no bar at all.
    """
    return LateBar(total, description, enabled)
