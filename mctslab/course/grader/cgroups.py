"""Hard caps by a cgroup where one can be made: memory and process ids no submission can go far past.

The grader's limits are accounting (:mod:`.usage`): read every quarter of a second, so between two
readings a submission can allocate or fork past them. Where this process may make a child of its
own cgroup with the ``memory`` and ``pids`` controllers (cgroup v2 with both delegated to it, or
cgroup v1 with both mounted and writable, e.g. as root), each submission's kernel runs in one of
its own, with hard caps above the limits (:data:`MEMORY_HEADROOM`, :data:`TASKS_HEADROOM`): the
system refuses or kills past them, and the grader flags the submission as for a limit passed
(``memory`` when a process of it was killed for memory, ``processes`` when a fork was refused).
Elsewhere (an unprivileged user without delegation) there are no hard caps, only the accounting;
:func:`probe` says which, in the grader's line at start.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["Cgroup", "probe", "sweep"]

ROOT = Path("/sys/fs/cgroup")
MEMORY_HEADROOM = 1.25
"""The memory cap is this times the memory limit (the accounting flags the submission first)."""
TASKS_HEADROOM = 256
"""Tasks (threads count, unlike in the limit) the cap allows beyond 4 times the process limit."""


def _own(controller: str) -> Path | None:
    """The folder of this process's cgroup for ``controller`` (``""``: the v2 one), or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(",") or (not controller and names == ""):
            base = ROOT / controller if controller else (ROOT if (ROOT / "cgroup.controllers").exists() else None)
            if base is None:
                return None
            return base / path.lstrip("/")
    return None


def _places() -> tuple[str, dict[str, Path]] | None:
    """Where to make the cgroups: ``("v2", {"": folder})`` or ``("v1", {"memory": ..., "pids": ...})``."""
    unified = _own("")
    if unified is not None:
        try:
            delegated = (unified / "cgroup.subtree_control").read_text().split()
        except OSError:
            delegated = []
        if {"memory", "pids"} <= set(delegated) and os.access(unified, os.W_OK):
            return "v2", {"": unified}
    memory, pids = _own("memory"), _own("pids")
    if memory and pids and os.access(memory, os.W_OK) and os.access(pids, os.W_OK):
        return "v1", {"memory": memory, "pids": pids}
    return None


class Cgroup:
    """The cgroup(s) of one submission's kernel, with hard caps; remove with :meth:`close`.

    Args:
        memory_mb: the submission's memory limit (the cap is :data:`MEMORY_HEADROOM` times it).
        processes: its process limit (the cap on tasks is 4 times it plus :data:`TASKS_HEADROOM`).

    Raises:
        OSError: where no cgroup can be made (see :func:`probe`).
    """

    def __init__(self, memory_mb: int, processes: int) -> None:
        found = _places()
        if found is None:
            raise OSError("no writable cgroup with memory and pids controllers")
        self.version, parents = found
        name = f"{_prefix()}{secrets.token_hex(6)}"
        self.folders = {key: parent / name for key, parent in parents.items()}
        memory = str(int(memory_mb * MEMORY_HEADROOM) << 20)
        tasks = str(4 * processes + TASKS_HEADROOM)
        try:
            for folder in self.folders.values():
                folder.mkdir()
            if self.version == "v2":
                (self.folders[""] / "memory.max").write_text(memory)
                (self.folders[""] / "pids.max").write_text(tasks)
            else:
                (self.folders["memory"] / "memory.limit_in_bytes").write_text(memory)
                (self.folders["pids"] / "pids.max").write_text(tasks)
        except OSError:
            self.close()
            raise

    def join(self) -> None:
        """Move the calling process into the cgroup(s) (in the kernel's ``preexec_fn``, before exec)."""
        for folder in self.folders.values():
            (folder / "cgroup.procs").write_text("0")

    def _counter(self, key: str, file: str, field: str) -> int:
        try:
            for line in (self.folders[key] / file).read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == field:
                    return int(value)
        except (OSError, ValueError, KeyError):
            pass
        return 0

    def hit(self) -> str | None:
        """``"memory"`` when a process was killed at the memory cap, ``"processes"`` when a fork was refused."""
        memory, pids = ("", "") if self.version == "v2" else ("memory", "pids")
        file = "memory.events" if self.version == "v2" else "memory.oom_control"
        if self._counter(memory, file, "oom_kill") > 0:
            return "memory"
        if self._counter(pids, "pids.events", "max") > 0:
            return "processes"
        return None

    def kill(self) -> None:
        """Kill every process in the cgroup(s)."""
        for _ in range(10):
            pids = set()
            for folder in self.folders.values():
                try:
                    pids |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
                except (OSError, ValueError):
                    pass
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def close(self) -> None:
        """Kill what is left in the cgroup(s) and remove them."""
        self.kill()
        for folder in self.folders.values():
            for _ in range(50):  # a killed process leaves its cgroup when it is reaped
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


RUN_VARIABLE = "MCTSLAB_GRADING_RUN"
"""Names one grading run for its workers (which inherit it): :func:`grading_run` sets it."""


def _prefix() -> str:
    """The start of the names of this grading run's cgroups: the run's own name, which its workers inherit.

    Not the process group alone: two grading runs started from one shell script (or one test
    run's two workers) share it, and one's :func:`sweep` would kill the other's kernels.
    """
    return f"mctslab-{os.environ.get(RUN_VARIABLE) or os.getpgrp()}-"


@contextlib.contextmanager
def grading_run() -> Iterator[str]:
    """Name a grading run for its cgroups while it lasts (its worker processes started inside inherit it)."""
    before = os.environ.get(RUN_VARIABLE)
    os.environ[RUN_VARIABLE] = name = f"{os.getpid()}r{secrets.token_hex(3)}"
    try:
        yield name
    finally:
        if before is None:
            os.environ.pop(RUN_VARIABLE, None)
        else:
            os.environ[RUN_VARIABLE] = before


def sweep(wait: float = 0.5) -> int:
    """Remove the cgroups of this grading run a killed worker left (what is in them killed); return how many.

    Args:
        wait: seconds to wait at most, in all, for killed processes to leave them.
    """
    found = _places()
    if found is None:
        return 0
    folders = [f for parent in found[1].values() for f in parent.glob(f"{_prefix()}*") if f.is_dir()]
    deadline = time.monotonic() + wait
    removed = 0
    for folder in folders:
        while True:
            try:
                for pid in (folder / "cgroup.procs").read_text().split():
                    os.kill(int(pid), signal.SIGKILL)
                folder.rmdir()
                removed += 1
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)
    return removed


def probe() -> str:
    """One line on the hard caps: the cgroup version used, or that there are none here."""
    try:
        Cgroup(64, 1).close()
    except OSError:
        return "no hard caps (no cgroup with memory and pids controllers can be made here): accounting only"
    version = _places()[0]
    return f"hard caps by cgroup {version} ({MEMORY_HEADROOM:g} x memory, 4 x processes + {TASKS_HEADROOM} tasks)"
