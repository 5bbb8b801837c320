"""The sandbox a submission's kernel runs in: rlimits, a scrubbed environment, and bubblewrap where it works.

Two levels, probed once per grading run (:func:`probe`):

* ``"bwrap"``: the kernel runs under bubblewrap: the whole file system read-only
  (``--ro-bind / /``), empty ``/tmp``, ``/root`` and ``/home`` and the grader's own
  writable places hidden (``--tmpfs``), the submissions and the grades hidden wherever
  they are (in the repository checkout the package runs from too: only the package's
  folder is shown again), only the submission's temporary folder writable and its home
  in it a tmpfs of the disk limit, no network (``--unshare-net``: not even the host's
  loopback), its own PID and IPC namespaces (everything it starts dies with it), no
  capabilities (``--cap-drop ALL``, run as root) and ``--die-with-parent``;
* ``"rlimits"``: bubblewrap is missing or unprivileged user namespaces are refused; the
  kernel still runs with rlimits, a scrubbed environment, a temporary HOME and working
  folder. Processes it leaves behind are killed: the grading worker is a child
  subreaper (:func:`adopt_orphans`), so even a daemon in a session of its own stays its
  descendant (:func:`kill_descendants`), and a marker in the environment finds the rest
  (:func:`sweep`). Files outside its folder and the network are NOT protected.

Both levels set the rlimits of :data:`RLIMITS` in the kernel's ``preexec_fn`` (the
sandbox wrapper and the kernel inherit them). The time limits (:class:`Limits`) are CPU
time of the kernel's whole process tree, watched by the grader (:mod:`.cpu`), with a
generous wall-clock backstop (:func:`wall_backstop`) for a kernel that waits without working;
its memory, disk and process limits count the whole tree too (:mod:`.usage`), with hard caps
by a cgroup where one can be made (:mod:`.cgroups`).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .cgroups import Cgroup

__all__ = [
    "RLIMITS",
    "Limits",
    "Sandbox",
    "adopt_orphans",
    "kill_trees",
    "describe",
    "kill_descendants",
    "probe",
    "sweep",
    "wall_backstop",
]

GIB = 1 << 30

RLIMITS = {
    "RLIMIT_AS": 3 * GIB,  # address space: a 30 GB allocation fails with MemoryError
    "RLIMIT_CPU": 300,  # seconds of CPU per process (the kernel, each process it starts): the last line
    "RLIMIT_FSIZE": 64 << 20,  # largest file it may write
    "RLIMIT_NOFILE": 256,  # open files
    "RLIMIT_CORE": 0,  # no core dumps
}
"""Resource limits of a submission's kernel (name of the ``resource`` constant: soft = hard limit)."""

MARKER = "MCTSLAB_GRADER_RUN"
"""Environment variable set in the kernel (a per-run token) to find processes it left behind."""


WALL_PER_CPU_SECOND = 10.0
"""Seconds of wall-clock time allowed per second of a CPU limit (see :func:`wall_backstop`)."""

WALL_EXTRA = 30.0
"""Seconds of wall-clock time added to every wall-clock backstop (see :func:`wall_backstop`)."""


def wall_backstop(cpu_seconds: float) -> float:
    """The wall-clock limit behind a CPU limit: ``10 * cpu_seconds + 30`` seconds.

    The grader's limits are CPU time, so a submission is not stopped because the machine
    is busy. A kernel that uses no CPU (blocked in ``time.sleep``, ``input()`` or a lock)
    never reaches them: this much wall-clock time stops it. Generous on purpose: a correct
    submission reaches it only when it gets less than a tenth of a core.

    Args:
        cpu_seconds: the CPU limit (:attr:`Limits.cell` or :attr:`Limits.notebook`).

    Returns:
        Seconds of wall-clock time (:data:`WALL_PER_CPU_SECOND` per CPU second plus :data:`WALL_EXTRA`).
    """
    return WALL_PER_CPU_SECOND * cpu_seconds + WALL_EXTRA


@dataclass(frozen=True)
class Limits:
    """Limits of one submission: time, in seconds of CPU time of its kernel's process tree, and resources.

    CPU time is the work the kernel (and every process it starts) does, whatever the
    machine's load; a cell or a run that waits without working is stopped by the
    wall-clock backstop of :func:`wall_backstop` instead. Memory, disk and processes count
    the whole submission, all its processes together (:mod:`.usage`): a cell that goes past
    one ends the kernel and is left out of a rerun, flagged ``memory``, ``disk`` or ``processes``.

    Attributes:
        cell: CPU seconds one cell may use before the kernel is interrupted (the cell ends
            with ``KeyboardInterrupt``, flagged ``timeout``).
        notebook: CPU seconds one run of the whole notebook may use (kernel start included)
            before the run is ended.
        memory_mb: MiB of memory (PSS) all the submission's processes may hold together, the
            kernel included (a correct 04b's kernel holds about 150).
        disk_mb: MiB of files it may write (its home is a tmpfs this big under bubblewrap).
        processes: processes it may run at once besides its kernel.
    """

    cell: float = 60.0
    notebook: float = 240.0
    memory_mb: int = 2048
    disk_mb: int = 256
    processes: int = 64

    @property
    def cell_wall(self) -> float:
        """Wall-clock seconds one cell may take at most (``wall_backstop(cell)``)."""
        return wall_backstop(self.cell)

    @property
    def notebook_wall(self) -> float:
        """Wall-clock seconds one run of the notebook may take at most (``wall_backstop(notebook)``)."""
        return wall_backstop(self.notebook)


def _limit() -> None:
    try:
        os.setsid()  # jupyter_client may have made it a session leader already
    except OSError:
        pass
    for name, value in RLIMITS.items():
        kind = getattr(resource, name)
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))


def _needed() -> list[Path]:
    """Folders the kernel must read: the mctslab package, the virtual environment and the base Python.

    The package's folder itself, not the folder holding it: that may be a repository checkout
    holding the submissions or the grades, which are hidden.
    """
    places = {Path(__file__).resolve().parents[2], Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    places.add(Path(sys.executable).resolve().parents[1])
    return sorted(places)


def _hide(place: Path, needed: list[Path], shown: set[Path]) -> list[str]:
    """bubblewrap's arguments hiding the folder ``place`` (an empty tmpfs over it) but what the kernel needs in it."""
    out = ["--tmpfs", str(place)]
    for need in needed:  # what the kernel needs inside a hidden place is shown again, read-only
        if need.is_relative_to(place) and need != place and need not in shown:
            shown.add(need)
            out += ["--ro-bind", str(need), str(need)]
    return out


def _bwrap_prefix(work: Path, hidden: tuple[Path, ...], disk_bytes: int) -> list[str]:
    """bubblewrap's arguments: everything read-only, the writable places and ``hidden`` hidden, ``work`` writable.

    The kernel's home (``work/home``, also its working folder) is a tmpfs of ``disk_bytes``
    mounted only inside the sandbox. A hidden folder inside what the kernel needs (submissions in
    the repository checkout the package runs from) is hidden after that is shown again; a hidden
    file is replaced by an empty one.
    """
    prefix = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    places = [Path(p) for p in ("/tmp", "/root", "/home", "/var/tmp", "/dev/shm", tempfile.gettempdir())]
    private = {p.resolve() for p in hidden if p.is_dir()}  # the submissions, the grades: hidden wherever they are
    needed = _needed()
    shown: set[Path] = set()
    covered: dict[Path, bool] = {}  # each place hidden (True) or shown again (False) so far
    for place in sorted({p.resolve() for p in places if p.is_dir()} | private):  # a folder before what is in it
        if str(place) == "/" or place in needed:
            continue  # the system or what the kernel needs: stays read-only
        if place not in private and any(place.is_relative_to(n) for n in needed):
            continue  # a writable place inside what the kernel needs (a temporary folder in the venv)
        above = [c for c in covered if place.is_relative_to(c)]
        if above and covered[max(above, key=lambda c: len(c.parts))]:
            continue  # inside a place hidden already
        covered[place] = True
        prefix += _hide(place, needed, shown)
        covered.update({n: False for n in shown if n.is_relative_to(place)})
    for file in sorted({p.resolve() for p in hidden if p.is_file()}):
        above = [c for c in covered if file.is_relative_to(c)]
        if not above or not covered[max(above, key=lambda c: len(c.parts))]:  # visible: an empty file over it
            prefix += ["--ro-bind", "/dev/null", str(file)]
    home = work / "home"
    prefix += ["--bind", str(work), str(work), "--size", str(disk_bytes), "--tmpfs", str(home), "--chdir", str(home)]
    if os.geteuid() == 0:  # as root, the kernel would keep its capabilities (and could unmount what hides)
        prefix += ["--cap-drop", "ALL"]
    prefix += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--"]
    return prefix


def probe() -> str:
    """``"bwrap"`` when bubblewrap runs here with new user, PID and network namespaces, else ``"rlimits"``."""
    if shutil.which("bwrap") is None:
        return "rlimits"
    command = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net"]
    command += ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--", "true"]
    try:
        done = subprocess.run(command, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "rlimits"
    return "bwrap" if done.returncode == 0 else "rlimits"


def describe(level: str, limits: Limits | None = None) -> str:
    """One line saying what the sandbox of ``level`` protects and, with ``limits``, how each submission is limited."""
    if level == "bwrap":
        line = (
            "sandbox: bubblewrap (read-only file system outside each submission's folder, submissions and "
            "grades hidden, no network, own PID namespace) + rlimits"
        )
    else:
        line = (
            "sandbox: rlimits, scrubbed environment and temporary folders only (bubblewrap or unprivileged "
            "user namespaces unavailable): submissions can read and write files outside their folder and "
            "use the network"
        )
    if limits is None:
        return line
    disk = "a tmpfs home of that size, and its folder" if level == "bwrap" else "its folder"
    return (
        f"{line}; per submission, all its processes together (read from /proc every 0.25 s, the whole kernel "
        f"ended past one): memory {limits.memory_mb} MB (PSS), disk {limits.disk_mb} MB ({disk}), "
        f"{limits.processes} processes"
    )


class Sandbox:
    """The kernel spec, environment and ``preexec_fn`` for one submission's kernel in ``work``.

    Args:
        work: the submission's temporary folder (its HOME and working folder; short path,
            for the kernel's Unix sockets).
        level: ``"bwrap"`` or ``"rlimits"`` (see :func:`probe`).
        token: the run's marker value (:data:`MARKER`).
        hidden: more folders (and files) to hide from the kernel (the submissions, the grades).
        disk_mb: MiB of files the kernel may write (:attr:`Limits.disk_mb`): under bubblewrap its home
            is a tmpfs of that size and one MiB more (a write past the limit is then seen, not just refused).
    """

    def __init__(
        self, work: Path, level: str, token: str, hidden: tuple[Path, ...] = (), disk_mb: int = Limits.disk_mb
    ) -> None:
        self.work = work
        self.hidden = hidden
        self.disk_bytes = (disk_mb + 1) << 20
        self.cgroup: Cgroup | None = None  # the run's cgroup with hard caps, where one can be made (:mod:`.cgroups`)
        self.level = level
        self.token = token
        self.home = work / "home"
        self.home.mkdir(exist_ok=True)
        self.specs = work / "kernels"

    def kernel_spec_dir(self) -> Path:
        """Write the kernel spec ``mctslab-grader`` and return the folder of kernel specs."""
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        argv += ["--IPKernelApp.parent_handle=0", "--HistoryManager.enabled=False"]
        if self.level == "bwrap":
            argv = _bwrap_prefix(self.work, self.hidden, self.disk_bytes) + argv
        folder = self.specs / "mctslab-grader"
        folder.mkdir(parents=True, exist_ok=True)
        spec = {"argv": argv, "display_name": "mctslab grader", "language": "python", "interrupt_mode": "message"}
        (folder / "kernel.json").write_text(json.dumps(spec))
        return self.specs

    def env(self) -> dict[str, str]:
        """A scrubbed environment: PATH, a temporary HOME, where mctslab lives, no display, no proxies.

        Where this Python keeps its bytecode in a cache folder of its own (``PYTHONPYCACHEPREFIX``,
        as ``./run`` sets it), the kernels read it there too (read-only in the sandbox; they never
        write bytecode) rather than compile mctslab from source at every start.
        """
        package_root = str(Path(__file__).resolve().parents[3])
        cache = {"PYTHONPYCACHEPREFIX": sys.pycache_prefix} if sys.pycache_prefix else {}
        return {
            **cache,
            "PATH": os.pathsep.join(p for p in (str(Path(sys.executable).parent), "/usr/bin", "/bin")),
            "HOME": str(self.home),
            "TMPDIR": str(self.home),
            "LANG": "C.UTF-8",
            "PYTHONPATH": package_root,
            "PYTHONDONTWRITEBYTECODE": "1",
            "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": str(self.home / ".matplotlib"),
            "JUPYTER_RUNTIME_DIR": str(self.home / ".runtime"),
            "IPYTHONDIR": str(self.home / ".ipython"),
            "TQDM_DISABLE": "1",
            MARKER: self.token,
        }

    def preexec_fn(self) -> None:
        """Applied in the kernel's process before exec: a new session, :data:`RLIMITS`, the run's cgroup."""
        _limit()
        if self.cgroup is not None:
            try:
                self.cgroup.join()
            except OSError:
                pass  # no hard caps for this run: the accounting still limits it


def sweep(token: str) -> int:
    """Kill every process whose environment carries this run's marker; return how many were found."""
    needle = f"{MARKER}={token}".encode()
    found = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found += 1
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass
    return found


def adopt_orphans() -> bool:
    """Make this process a child subreaper (Linux): a daemon a kernel starts stays its descendant.

    Call it only in a process that does nothing but grade (a worker): every descendant of
    it is killed after each submission (:func:`kill_descendants`). False where unsupported.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            out[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def kill_descendants() -> int:
    """Kill every descendant of this process (what a submission left running); return how many."""
    found = kill_trees({os.getpid()}, include_roots=False)
    for pid in found:  # reap the children, as their subreaper
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    return len(found)


def kill_trees(roots: set[int], include_roots: bool = True) -> list[int]:
    """Kill the processes ``roots`` (unless ``include_roots`` is false) and all their descendants at once.

    Every process is found before any is killed (an orphan would otherwise leave the tree). Nothing
    is reaped here (a pool's workers are reaped by the pool). Returns the processes killed.
    """
    parents = _parents()
    found = [
        pid
        for pid in parents
        if (include_roots and pid in roots) or any(_descends(pid, root, parents) for root in roots)
    ]
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return found


def _descends(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    seen = 0
    while pid in parents and seen < 1000:
        pid, seen = parents[pid], seen + 1
        if pid == ancestor:
            return True
    return False
