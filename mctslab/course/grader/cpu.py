"""CPU time of a process tree (Linux ``/proc``): what a submission's kernel has used, whatever the machine's load.

The grader's limits count the work a submission does, not the wall-clock time it waits for
a core on a busy machine. :func:`tree_cpu` adds up, for a process and all its descendants,
the CPU time each has used and the CPU time of the children each has reaped
(``utime + stime + cutime + cstime`` of ``/proc/<pid>/stat``). Under bubblewrap the kernel is
a descendant of the ``bwrap`` process, and orphans inside its PID namespace are reaped by
it, so the whole tree's work is counted. :class:`CpuClock` keeps the total from going back
when a process leaves the tree without being reaped inside it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CpuClock", "read_processes", "tree_cpu"]

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""Clock ticks per second: the unit of the times in ``/proc/<pid>/stat``."""


def read_processes() -> dict[int, tuple[int, int]]:
    """Every process now: pid -> (parent pid, ticks of CPU used by it and the children it reaped)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone since the listing
        fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        # fields[0] is the state (field 3 of proc(5)): ppid is field 4, utime..cstime are fields 14-17.
        out[int(entry.name)] = (int(fields[1]), sum(int(f) for f in fields[11:15]))
    return out


def tree_cpu(root: int, processes: dict[int, tuple[int, int]] | None = None) -> float:
    """Seconds of CPU used so far by process ``root`` and all its descendants (reaped children included).

    Args:
        root: a process id (the kernel's, or the ``bwrap`` process that runs it).
        processes: :func:`read_processes`, read once for several uses (default: read now).

    Returns:
        The total in seconds; 0.0 when ``root`` is gone.
    """
    processes = read_processes() if processes is None else processes
    if root not in processes:
        return 0.0
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    ticks, todo = 0, [root]
    while todo:
        pid = todo.pop()
        ticks += processes[pid][1]
        todo += children.get(pid, [])
    return ticks / TICKS


class CpuClock:
    """The CPU time of a process tree, read again on each call, that never goes back.

    A process that leaves the tree before a process of the tree reaps it (an orphan
    adopted outside the tree, without bubblewrap) takes its time with it; the clock then
    stays where it was until the tree has used that much again. (Without bubblewrap such a
    process is killed after the submission anyway, and ``RLIMIT_CPU`` bounds each process.)

    Args:
        root: the process id at the root of the tree.
    """

    def __init__(self, root: int) -> None:
        self.root = root
        self.seconds = 0.0

    def read(self, processes: dict[int, tuple[int, int]] | None = None) -> float:
        """Seconds of CPU the tree has used so far (at least what the last call returned).

        Args:
            processes: :func:`read_processes`, read once for several uses (default: read now).
        """
        self.seconds = max(self.seconds, tree_cpu(self.root, processes))
        return self.seconds
