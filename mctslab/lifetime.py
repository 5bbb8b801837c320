"""Child processes that never outlive their parent: on Linux the kernel's ``PR_SET_PDEATHSIG``, else a watchdog.

Used by every pool this package starts (a tournament's workers, :mod:`mctslab.agents.processes`'
K searches), so that even a SIGKILL or SIGTERM of the main process, which runs no clean-up,
leaves no orphan burning a core.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

__all__ = ["PR_SET_PDEATHSIG", "WATCH_SECONDS", "die_with_parent"]

PR_SET_PDEATHSIG = 1
"""``prctl`` option (linux/prctl.h): the signal a process gets when its parent dies."""

WATCH_SECONDS = 0.5
"""How often the watchdog thread checks that the parent is alive (where prctl is not available)."""


def _parent_alive(parent_pid: int) -> bool:
    return os.getppid() == parent_pid


def _watch(parent_pid: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if not _parent_alive(parent_pid):
            os._exit(1)


def die_with_parent(parent_pid: int) -> bool:
    """Make this process end when ``parent_pid`` (its parent) does; True if the kernel does it (Linux).

    Otherwise a daemon thread checks every :data:`WATCH_SECONDS`. If the parent is
    already gone, the process exits at once.
    """
    by_kernel = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            by_kernel = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):  # no libc.prctl: fall back to the watchdog
            by_kernel = False
    if not _parent_alive(parent_pid):  # the parent died before prctl took effect
        os._exit(1)
    if not by_kernel:
        threading.Thread(target=_watch, args=(parent_pid,), name="mctslab-watchdog", daemon=True).start()
    return by_kernel
