"""The exercise checks leave the interpreter as they found it: no global state leaks from a check.

A check runs the student's code many times, and the package's own (exact answers, perfect
play). Anything either changes for the whole process would change what the next cell of
the notebook sees, or what the next check finds: issue 40 found a check that raised the
recursion limit to 10,000 for good (the exact enumeration behind ``check_simulate``), so a
student's recursive search that fails at Python's default limit in a fresh process passed
``check_uct`` run after it. :func:`unchanged_globals` saves what a check could change and
puts it back when the check ends, whatever happened inside:

* the recursion limit (``sys.setrecursionlimit``);
* the state of the ``random`` module's own generator, and of NumPy's global one (a
  student's agent that draws from them is theirs to seed: the checks leave them as they
  were, as :func:`~.runner.run_checks` always did for ``random``);
* the profile and trace functions (``sys.setprofile``, ``sys.settrace``: the checks'
  watchers use the first; a debugger the second);
* the handlers of the signals the time limits use (``SIGPROF``, ``SIGALRM``) and of
  ``SIGINT`` (an interrupt must still stop the kernel).

``tests/test_exercise_isolation.py`` runs every check that calls student code and compares
these before and after.
"""

from __future__ import annotations

import random
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = ["global_state", "unchanged_globals"]

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGPROF", "SIGALRM", "SIGINT") if hasattr(signal, name))


def global_state() -> dict[str, Any]:
    """What :func:`unchanged_globals` restores, as comparable values (the generators' states included)."""
    name, keys, position, has_gauss, gauss = np.random.get_state()  # noqa: NPY002 - read, never drawn from
    return {
        "recursion limit": sys.getrecursionlimit(),
        "random": random.getstate(),
        "numpy.random": (name, tuple(keys.tolist()), position, has_gauss, gauss),
        "profile": sys.getprofile(),
        "trace": sys.gettrace(),
        "signals": tuple(signal.getsignal(s) for s in _SIGNALS),
    }


@contextmanager
def unchanged_globals() -> Iterator[None]:
    """Run the block, then restore the process-wide state it may have changed (see the module's docstring)."""
    limit, saved_random = sys.getrecursionlimit(), random.getstate()
    saved_numpy = np.random.get_state()  # noqa: NPY002 - the legacy global generator, saved to restore
    profile, trace = sys.getprofile(), sys.gettrace()
    handlers = [(s, signal.getsignal(s)) for s in _SIGNALS]
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
        random.setstate(saved_random)
        np.random.set_state(saved_numpy)  # noqa: NPY002 - restored, never drawn from
        sys.setprofile(profile)
        sys.settrace(trace)
        for number, handler in handlers:
            if handler is not None and signal.getsignal(number) is not handler:
                try:
                    signal.signal(number, handler)
                except ValueError:  # not the main thread: signals cannot be set here (nor were they changed)
                    pass
