"""Time limits and progress for the exercise checks: nothing a student writes makes a check hang.

A check runs the student's code inside :func:`time_limit`; when the code does not return
in time (a loop that never moves up the tree, a budget of 20,000 iterations hard-coded),
:class:`TimeLimitExceeded` interrupts it and the check reports a failure that names the
part and the limit, instead of a kernel that has to be interrupted by hand.

How: a real-time interval timer (``signal.setitimer``) whose handler raises
:class:`TimeLimitExceeded` in the code that is running. It is a ``BaseException``, so a
student's ``except Exception`` cannot swallow it. Limits nest (a limit per call inside a
limit for the whole check): the inner one never outlives the outer. Pure Python code is
interrupted between two bytecodes; a single C call that never returns (a huge
``list(range(10**12))``) is not, which is why the grader runs submissions in a fresh
process with its own limit as well. Signals reach only the main thread of a process on
Unix; elsewhere (a thread, Windows) :func:`time_limit` runs the code without a limit and
says so through :func:`limits_available`.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm.auto import tqdm

__all__ = ["LateBar", "TimeLimitExceeded", "limits_available", "progress", "time_limit"]

PROGRESS_AFTER = 2.0
"""Seconds a check runs before its progress bar appears (a quick check shows none)."""

SWALLOWED_AGAIN = 0.25
"""Seconds after which an expired limit raises again, if the code caught it (a bare ``except:``)."""


class TimeLimitExceeded(BaseException):
    """The student's code did not return within its limit.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that ``except Exception`` in the
    code under test does not catch it.

    Attributes:
        part: what was running (``"backpropagate"``, ``"your agent's select_move"``).
        seconds: the limit that ran out.
    """

    def __init__(self, part: str, seconds: float) -> None:
        super().__init__(f"{part} did not return within {seconds:g} s")
        self.part = part
        self.seconds = seconds


def limits_available() -> bool:
    """True when :func:`time_limit` can interrupt code here (Unix, main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


_active: list[tuple[float, str, float]] = []
"""The limits in force, outermost first: (deadline on the monotonic clock, part, seconds)."""


def _on_alarm(signum: int, frame: Any) -> None:
    now = time.monotonic()
    for deadline, part, seconds in _active:  # outermost first: its expiry is the cause if both expired
        if now >= deadline - 1e-3:
            signal.setitimer(signal.ITIMER_REAL, SWALLOWED_AGAIN)  # cleared when the block exits
            raise TimeLimitExceeded(part, seconds)
    _arm()  # woke early (a clock's rounding): sleep until the nearest deadline


def _arm() -> None:
    if _active:
        remaining = min(deadline for deadline, _, _ in _active) - time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-3))
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextmanager
def time_limit(seconds: float, part: str) -> Iterator[None]:
    """Run the ``with`` block for at most ``seconds`` of wall-clock time.

    Args:
        seconds: the limit, > 0.
        part: what runs, for the message (the student's function: ``"backpropagate"``).

    Raises:
        TimeLimitExceeded: from inside the block, when the limit (or an enclosing one) runs out.
        ValueError: for a limit that is not a positive number.
    """
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds > 0:
        raise ValueError(f"a time limit is a number of seconds > 0, got {seconds!r}")
    if not limits_available():
        yield
        return
    outermost = not _active
    previous = signal.signal(signal.SIGALRM, _on_alarm) if outermost else None
    _active.append((time.monotonic() + seconds, part, float(seconds)))
    _arm()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)  # no alarm while the stack of limits changes
        _active.pop()
        _arm()
        if outermost:
            signal.signal(signal.SIGALRM, previous)


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
