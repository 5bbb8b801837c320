"""What one submission uses, all its processes together: memory, processes, disk (Linux ``/proc``).

Per-process rlimits do not bound a submission: three child processes under a 3 GB address-space
limit each held 6 GB between them, and 33 files under a 64 MB file-size limit made 2 GB. The
grader therefore reads, every :data:`~.run.POLL` seconds and at every cell's start, what the
kernel's whole process tree uses (:class:`Usage`), and ends the kernel (the whole tree at once)
when one of the submission's limits (:class:`~.sandbox.Limits`) is passed:

* **memory**: the sum of the proportional set size (PSS, ``/proc/<pid>/smaps_rollup``: a page
  shared by ``n`` processes counts ``1/n`` in each, so a forked child is not counted twice) of
  every process in the tree, the kernel included (RSS where PSS cannot be read). The RSS, cheap to
  read and never less, is summed first: the PSS is read only when that is over the limit;
* **processes**: the processes in the tree (zombies too: each holds a process id), less those
  there when the first cell started (the kernel and, under bubblewrap, its two wrappers);
* **disk**: the bytes of the files in the submission's work folder on the host (where its
  kernel's sockets are) plus, under bubblewrap, the bytes used in its home, a tmpfs of
  ``disk`` bytes (and one more MiB, so a breach is seen) mounted only inside its sandbox,
  read through ``/proc/<pid>/root``. The tmpfs also makes writing past it fail
  (``No space left on device``) before the grader looks.

It is accounting, not a kernel-enforced limit: between two readings a submission can go past a
limit by what it allocates, writes or starts in a quarter of a second, and is then ended. No
cgroup is used, so it works the same with cgroup v1, v2 or none writable (an unprivileged user):
see the README's grader section.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .cpu import TICKS, read_processes

__all__ = [
    "Usage",
    "Reading",
    "breach",
    "culprit",
    "folder_bytes",
    "memory_bytes",
    "now",
    "rss_bytes",
    "started",
    "tree",
]

MIB = 1 << 20
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def tree(root: int, processes: dict[int, tuple[int, int]] | None = None) -> list[int]:
    """Process ``root`` and all its descendants (an empty list when it is gone).

    Args:
        root: a process id.
        processes: :func:`.cpu.read_processes` (pid -> parent, CPU ticks), read once for several uses
            (default: read now).
    """
    processes = read_processes() if processes is None else processes
    if root not in processes:
        return []
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def rss_bytes(pid: int) -> int:
    """The resident set size of process ``pid`` in bytes (cheap to read; at least its PSS); 0 if gone."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


def memory_bytes(pid: int) -> int:
    """The memory process ``pid`` holds: its PSS (RSS where ``smaps_rollup`` cannot be read), in bytes; 0 if gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return rss_bytes(pid)


def started(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (field 22 of ``/proc/<pid>/stat``); None if gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def now() -> int:
    """Clock ticks since boot now (``/proc/uptime``), comparable with :func:`started`."""
    try:
        return int(float(Path("/proc/uptime").read_text().split()[0]) * TICKS)
    except (OSError, ValueError, IndexError):
        return 0


def culprit(flag: str, pids: list[int], cells: list[tuple[int, int]], running: int) -> int:
    """The cell to blame for passing the limit ``flag``: the one that started the processes that did it.

    A cell may start a process that grows, or forks, while later cells run: for ``memory``, the
    cell during which the process holding the most started; for ``processes``, the cell during which
    most of them started. A process there before the first cell (the kernel, its wrappers), a
    ``disk`` limit, or processes gone: the cell ``running``.

    Args:
        flag: ``"memory"``, ``"disk"`` or ``"processes"``.
        pids: the processes of the tree.
        cells: (cell index, :func:`now` when it started) of each cell run so far, in order.
        running: the cell running (or just ended) when the limit was passed.
    """
    if flag == "disk" or not cells or not pids:
        return running
    when = {pid: started(pid) for pid in pids}

    def cell_of(tick: int | None) -> int | None:
        if tick is None or tick < cells[0][1]:
            return None  # there before any cell: the kernel's own
        return [index for index, begun in cells if begun <= tick][-1]

    if flag == "memory":
        heaviest = max(pids, key=memory_bytes)
        found = cell_of(when[heaviest])
        return running if found is None else found
    counts: dict[int, int] = {}
    for pid in pids:
        cell = cell_of(when[pid])
        if cell is not None:
            counts[cell] = counts.get(cell, 0) + 1
    return max(counts, key=lambda c: counts[c]) if counts else running


def folder_bytes(folder: Path) -> int:
    """The bytes the files under ``folder`` take on disk (each file once, symbolic links not followed)."""
    total, seen = 0, set()
    for parent, folders, files in os.walk(folder):
        for name in files + folders:
            try:
                info = os.lstat(os.path.join(parent, name))
            except OSError:
                continue
            if (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += info.st_blocks * 512
    return total


@dataclass(frozen=True)
class Reading:
    """What a submission uses at one moment.

    Attributes:
        memory: bytes of memory its processes hold together (PSS; the sum of their RSS, which is
            more, when that is within the limit given to :class:`Usage`).
        processes: processes in its kernel's tree (the kernel and its wrappers included).
        disk: bytes of files in its work folder and home.
    """

    memory: int
    processes: int
    disk: int


class Usage:
    """Reads what the kernel's process tree and its folders use (see the module's docstring).

    Args:
        root: the process at the root of the tree (the kernel, or the ``bwrap`` process running it).
        work: the submission's work folder on the host.
        home: its home inside the sandbox (a tmpfs there), or None without bubblewrap.
        memory: bytes of memory allowed: PSS, slower to read, is read only when the RSS is over it.
    """

    def __init__(self, root: int, work: Path, home: Path | None, memory: int = 0) -> None:
        self.root = root
        self.memory = memory
        self.work = work
        self.home = home
        self.inside: int | None = None  # a process of the tree that sees the sandbox's tmpfs
        self.pids: list[int] = []  # the tree at the last reading

    def _tmpfs_bytes(self, pids: list[int]) -> int:
        if self.home is None:
            return 0
        outside = os.stat(self.home).st_dev if self.home.exists() else None
        candidates = ([self.inside] if self.inside in pids else []) + [p for p in pids if p != self.root]
        for pid in candidates:
            place = f"/proc/{pid}/root{self.home}"
            try:
                if os.stat(place).st_dev == outside:
                    continue  # the host's folder: not (yet) inside the sandbox
                info = os.statvfs(place)
            except OSError:
                continue
            self.inside = pid
            return (info.f_blocks - info.f_bfree) * info.f_frsize
        return 0

    def read(self, processes: dict[int, tuple[int, int]] | None = None) -> Reading:
        """What the tree and the folders use now (``processes``: see :func:`tree`)."""
        pids = tree(self.root, processes)
        self.pids = pids
        memory = sum(rss_bytes(pid) for pid in pids)
        if memory > self.memory:  # the PSS counts once the pages processes share
            memory = sum(memory_bytes(pid) for pid in pids)
        return Reading(memory, len(pids), folder_bytes(self.work) + self._tmpfs_bytes(pids))


def breach(reading: Reading, base: int, memory: int, disk: int, processes: int) -> tuple[str, str] | None:
    """The first limit ``reading`` is over, as (flag, what to say on the page); None when within all.

    Args:
        reading: what the submission uses now.
        base: processes in the tree before any of the submission's cells ran.
        memory: bytes of memory allowed, all processes together.
        disk: bytes of files allowed.
        processes: processes the submission may start (beyond ``base``).
    """
    if reading.memory > memory:
        said = f"its processes held {reading.memory / MIB:.0f} MB of memory together"
        return "memory", f"{said} (limit {memory / MIB:g} MB per submission)"
    if reading.disk > disk:
        return "disk", f"it wrote {reading.disk / MIB:.1f} MB of files (limit {disk / MIB:g} MB per submission)"
    if reading.processes - base > processes:
        said = f"it ran {reading.processes - base} processes at once"
        return "processes", f"{said} (limit {processes} per submission)"
    return None
