"""A busy machine on demand, and clocks that do not care about one.

Students run the course on shared CPUs (Binder, Colab, a laptop with a video call open), so
the checks decide "too slow" on CPU time (:mod:`mctslab.course.exercises.limits`) and the
tests must hold however loaded the machine is:

* :func:`busy_machine` starts processes that spin beside the code under test (two per core by
  default, the load the issue was found under) and always stops them;
* :func:`burn` is slow code: it spends CPU time, as a slow student's function does
  (``time.sleep`` spends none, and a CPU limit rightly does not stop it);
* :class:`CpuClock` measures the CPU time a block spends, for asserting that a limit stopped
  code in time without asserting on the wall clock, which a busy machine stretches.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

SPIN = "while True: pass"


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def busy_machine(per_core: int = 2) -> Iterator[list[subprocess.Popen]]:
    """Keep ``per_core`` processes spinning beside the calling thread on its core, for the duration of the block.

    Each is a plain ``python -c 'while True: pass'`` at the same priority as the tests, in a
    session of its own, as another program on the machine would be (Linux's scheduler shares
    the cores between sessions first, so spinners in the tests' own session would not load a
    kernel the grader starts in a new one). The code under test gets about
    ``1 / (per_core + 1)`` of a core. They are killed on the way out, whatever happens.

    The calling thread and the spinners are held on one core for the block (its threads and the
    processes it starts inherit that), so the load on the code under test is that of a machine
    with ``per_core`` busy processes on every core, while the test suite's other workers keep the
    other cores (loading every core cost the whole suite twice as much CPU). Where a process
    cannot be held on a core (no ``sched_setaffinity``), the spinners load every core.
    """
    pinned = hasattr(os, "sched_setaffinity")
    if pinned:
        allowed = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {max(allowed)})
    try:
        spinners = [
            subprocess.Popen(
                [sys.executable, "-c", SPIN],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
            for _ in range(per_core * cores())
        ]
        try:
            time.sleep(0.2)  # let them start spinning
            assert all(p.poll() is None for p in spinners), "a spinning process died"
            yield spinners
        finally:
            for p in spinners:
                p.kill()
            for p in spinners:
                p.wait()
    finally:
        if pinned:
            os.sched_setaffinity(0, allowed)


def burn(seconds: float) -> None:
    """Spend ``seconds`` of this thread's CPU time computing (slow code, whatever the machine's load)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class CpuClock:
    """``with CpuClock() as clock: ...`` then ``clock.seconds``: the process's CPU time spent in the block."""

    def __enter__(self) -> CpuClock:
        self.began = time.process_time()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.process_time() - self.began
