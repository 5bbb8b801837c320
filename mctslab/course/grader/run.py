"""Grade one submission: run it in a fresh sandboxed kernel, rerun without the cells that died, mark it.

:func:`grade_submission` returns a plain dict (a row of ``grades.csv`` plus the reports),
so it crosses process boundaries and is appended to the results file as one JSON line.

The time limits (:class:`~.sandbox.Limits`) are CPU time of the kernel's process tree,
watched while the notebook runs (:class:`_Watch`); nbclient's own ``timeout`` and the wait
for the whole run are only the wall-clock backstop (:func:`~.sandbox.wall_backstop`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import secrets
import shutil
import tempfile
import time
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from subprocess import DEVNULL

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbclient.util import ensure_async

from .catalogue import Exercise, Part, identify
from .cells import MIME, grader_cells, setup_cell, student_cells
from .cgroups import Cgroup
from .cpu import CpuClock, read_processes
from .extras import EXTRA, PREFIX, Extras, extend, extra_check
from .judge import JUDGED, Channel, KernelGone, check_at, judge_part
from .points import share
from .sandbox import Limits, Sandbox, kill_trees, sweep
from .scheme import Scheme, default_scheme
from .usage import Usage, breach, culprit, now

__all__ = ["Limits", "Unreadable", "grade_submission", "mark", "read_submission"]

FLAGS = (
    "unreadable",
    "timeout",
    "memory",
    "disk",
    "processes",
    "crashed",
    "package-code",
    "not-written",
    "tampered",
)
"""The flags of ``grades.csv``, in the order they are written. ``unreadable``: the file is not a
notebook (not a regular file, not UTF-8, not JSON, not a notebook's structure; the reason is on
its page), scored 0. ``tampered``: a grader's cell finished without publishing its result, or a
second result carried the run's nonce (the submission replaced the grader's function or forged
its output); the part earns nothing. ``memory``, ``disk``, ``processes``: a cell took the submission
past one of its limits (:class:`~.sandbox.Limits`, all its processes together, :mod:`.usage`), or
raised ``MemoryError`` or ``No space left on device``; the kernel was ended and the cell left out."""


class Unreadable(ValueError):
    """A submission that is not a notebook; the message says why, in one line."""


def read_submission(path: Path) -> dict:
    """The notebook at ``path`` as a plain dict in nbformat 4 (nbformat 3 is upgraded with nbformat).

    Only what the grader reads is required: a JSON object whose ``cells`` is a list of objects,
    each with a string ``cell_type`` and a ``source`` that is a string or a list of strings.

    Raises:
        Unreadable: saying why it is not a notebook.
    """
    if not path.is_file():  # a folder, a pipe (reading it would wait forever) or a device named *.ipynb
        raise Unreadable("not a regular file (a folder, a pipe or a device named .ipynb)")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise Unreadable(f"cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise Unreadable(f"not UTF-8 text (byte {error.start}: {error.reason})") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise Unreadable(f"not JSON: {error}") from None
    except RecursionError:
        raise Unreadable("JSON nested too deep for a notebook") from None
    if not isinstance(data, dict):
        raise Unreadable(f"JSON holding {type(data).__name__ if data is not None else 'null'}, not a notebook")
    if data.get("nbformat") == 3 or "worksheets" in data:
        try:
            data = json.loads(json.dumps(nbformat.reads(text, as_version=4)))
        except Exception as error:  # noqa: BLE001 - nbformat's conversion fails in many ways on a bad file
            raise Unreadable(f"an nbformat-3 notebook nbformat cannot convert: {error}") from None
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise Unreadable("JSON without a list of cells, not a notebook")
    for i, cell in enumerate(cells):
        source = cell.get("source", "") if isinstance(cell, dict) else None
        if (
            not isinstance(cell, dict)
            or not isinstance(cell.get("cell_type"), str)
            or not (isinstance(source, str) or isinstance(source, list) and all(isinstance(x, str) for x in source))
        ):
            raise Unreadable(f"cell {i} is not a notebook cell (an object with a cell_type and a source)")
    return data


MAX_RUNS = 4
"""Runs of one submission at most (the first, then reruns each without the cells that died)."""


POLL = 0.25
"""Seconds between two readings of the kernel's CPU time."""

BLOCKED = "blocked in sleep, input or a lock?"
"""Said of a cell or a run stopped by a wall-clock backstop (it used far less CPU than its limit)."""


@dataclass
class _Run:
    notebook: nbformat.NotebookNode
    died: int | None  # index of the cell running when the kernel died or the notebook limit ran out
    why: str | None  # "timeout", "memory", "disk", "processes" or "crashed"
    stopped: dict[int, str]  # cell index -> which limit stopped it ("stopped after 60 s of CPU time")
    cpu: float  # seconds of CPU the kernel's process tree used in this run
    judged: dict[str, dict] = field(default_factory=dict)  # part -> result, of the parts judged here (.judge)
    calls: dict[int, str] = field(default_factory=dict)  # cell index of a call the judge made -> its part
    forged: bool = False  # a call of the student's code published a grader's result (ignored, and flagged)


class _Watch:
    """The CPU time of the kernel's process tree, per cell and for the whole run, against the limits.

    :meth:`run` polls it every :data:`POLL` seconds: a cell that has used ``limits.cell``
    CPU seconds is interrupted (``km.interrupt_kernel()``, as nbclient does on its own
    timeout: the cell ends with ``KeyboardInterrupt``). A cell still computing after a further
    ``limits.cell`` went on through the interrupt (a long call in C, which Python interrupts
    only when it returns, or an ``except`` that catches ``KeyboardInterrupt``): :meth:`run`
    then returns, which ends the run at once (the cell is left out of the rerun), rather than
    when the whole run has used ``limits.notebook``, which it returns at in any case.

    It also reads what the whole tree uses (:mod:`.usage`), at each poll and as each cell
    starts: past the submission's memory, disk or process limit, the whole tree is killed at
    once and :attr:`breach` says which cell did it (the one running, or the one just ended, or
    the one that started the processes that did it: :func:`.usage.culprit`).
    """

    def __init__(self, km: AsyncKernelManager, limits: Limits, sandbox: Sandbox | None = None) -> None:
        self.km = km
        self.limits = limits
        self.sandbox = sandbox
        self.usage: Usage | None = None
        self.base: int | None = None  # processes in the tree when the first cell started
        self.breach: tuple[int, str, str] | None = None  # (cell index, flag, what to say) of a limit passed
        self.cells: list[tuple[int, int]] = []  # (cell index, clock ticks since boot when it started)
        self.clock: CpuClock | None = None
        self.last = 0.0  # CPU seconds of the tree at the last reading
        self.index: int | None = None  # the cell running
        self.start = 0.0  # CPU seconds of the tree when it began
        self.next = limits.cell  # CPU seconds of the cell at which it is interrupted (again)
        self.cell_limits: dict[int, float] = {}  # cell index -> its own CPU limit (the judge's calls: .judge)
        self.stopped: dict[int, str] = {}

    def read(self, processes: dict[int, tuple[int, int]] | None = None) -> float | None:
        """CPU seconds the kernel's tree has used since it started; None before it has a process.

        ``processes``: :func:`.cpu.read_processes`, read once for the CPU time and :meth:`check`.
        """
        if self.clock is None:
            pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
            if pid is None:
                return None
            self.clock = CpuClock(pid)
            if self.sandbox is not None:
                home = self.sandbox.home if self.sandbox.level == "bwrap" else None
                self.usage = Usage(pid, self.sandbox.work, home, self.limits.memory_mb << 20)
        self.last = self.clock.read(processes)
        return self.last

    def check(self, index: int | None, processes: dict[int, tuple[int, int]] | None = None) -> bool:
        """Whether the tree is past a resource limit; if so, kill it and blame cell ``index``."""
        if self.usage is None or self.breach is not None:
            return self.breach is not None
        reading = self.usage.read(processes)
        if self.base is None:
            if index is None:
                return False
            self.base = reading.processes
        limits = self.limits
        found = breach(reading, self.base, limits.memory_mb << 20, limits.disk_mb << 20, limits.processes)
        cgroup = self.sandbox.cgroup if self.sandbox is not None else None
        if found is None and cgroup is not None:
            found = _capped(cgroup.hit(), limits)
        if found is None or index is None:
            return False
        index = culprit(found[0], self.usage.pids, self.cells, index)  # a process an earlier cell started?
        self.breach = (index, *found)
        self.stopped[index] = found[1]
        kill_trees({self.usage.root})  # all at once: under bubblewrap, its PID namespace with it
        if cgroup is not None:
            cgroup.kill()
        return True

    def cell_started(self, index: int) -> None:
        """nbclient's ``on_cell_execute`` hook: cell ``index`` starts now (the one before has ended)."""
        processes = read_processes()
        used = self.read(processes) or 0.0
        self.check(self.index, processes)
        self.index, self.start, self.next = index, used, self.limits.cell
        # Wait for the next clock tick (at most 10 ms): a process the cells before started has started by the tick
        # read here, one this cell starts after the tick recorded, so no process falls on a cell's first tick.
        tick = now()
        while now() == tick:
            time.sleep(0.001)
        self.cells.append((index, now()))
        if self.base is None:
            self.check(index, processes)

    def call_started(self, index: int, limit: float) -> None:
        """The judge's call ``index`` starts now, under ``limit`` CPU seconds (``/proc`` not read: the last poll's)."""
        self.cell_limits[index] = limit
        self.index, self.start, self.next = index, self.last, limit
        self.cells.append((index, now()))

    def call_ended(self) -> None:
        """The judge's call has ended: nothing runs in the kernel until the next."""
        self.index = None

    def cell_cpu(self) -> float:
        """CPU seconds the running cell has used so far."""
        return (self.read() or 0.0) - self.start

    def wall(self, seconds: float, what: str = "") -> str:
        """What to say of a cell (or, with ``what``, the run) stopped after ``seconds`` of wall-clock time."""
        used = self.cell_cpu() if not what else (self.read() or 0.0)
        return f"{what}stopped after {seconds:g} s of wall-clock time, using {used:.1f} s of CPU: {BLOCKED}"

    async def run(self) -> str:
        """Poll until the whole run has used its CPU limit; return what to say of it."""
        while True:
            await asyncio.sleep(POLL)
            processes = read_processes()  # one reading of /proc for the CPU time and the resources
            used = self.read(processes)
            if used is None:
                continue
            if used >= self.limits.notebook:
                return f"the whole run stopped after {self.limits.notebook:g} s of CPU time"
            if self.check(self.index, processes):
                continue  # the kernel is dead: nbclient ends the run
            if self.index is not None and used - self.start >= self.next:
                limit = self.cell_limits.get(self.index, self.limits.cell)  # a cell's, or a judge's call's
                if self.next > limit:  # interrupted a whole limit ago, and still computing
                    return (
                        f"stopped after {limit:g} s of CPU time, then ended with the run after "
                        f"{self.next:g} s: it went on through the interrupt (a long call in C, or an `except` "
                        "that catches KeyboardInterrupt)"
                    )
                self.stopped[self.index] = f"stopped after {limit:g} s of CPU time"
                self.next += limit
                try:
                    await self.km.interrupt_kernel()
                except Exception:  # noqa: BLE001 - a kernel that is going away: the run ends anyway
                    pass


async def _drive(client: NotebookClient, judge: Callable[[NotebookClient], Awaitable[None]] | None, **kwargs) -> None:
    """What ``client.async_execute(**kwargs)`` does (every cell, in order), then ``judge`` with the kernel still up."""
    client.reset_execution_trackers()
    async with client.async_setup_kernel(**kwargs):
        reply = await ensure_async(client.kc.kernel_info())
        await client.async_wait_for_reply(reply)
        for index, cell in enumerate(list(client.nb.cells)):
            await client.async_execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
        if judge is not None:
            await judge(client)


async def _execute(
    sources: list[str],
    sandbox: Sandbox,
    limits: Limits,
    private: frozenset[int],
    judged: list[tuple[Part, str]] = (),  # type: ignore[assignment]
    server: str = "",
    extra: str = "",
) -> _Run:
    """Run ``sources`` in a fresh kernel; then the checks of ``judged`` (part, the check's ``module:function``)
    in this process, calling the student's functions through the kernel's ``server`` (:mod:`.judge`).
    ``extra``: the instructor's extra checks (:mod:`.extras`) that ``"<extra>:..."`` checks name."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    work = sandbox.work
    for left in work.iterdir():  # each run starts empty: what a run wrote counts in no other (a rerun's disk)
        shutil.rmtree(left) if left.is_dir() and not left.is_symlink() else left.unlink()
    sandbox.home.mkdir()
    km = AsyncKernelManager(
        kernel_name="mctslab-grader",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(sandbox.kernel_spec_dir())]),
        transport="ipc",
        ip=str(work / "k"),
        connection_file=str(work / "kernel.json"),
    )
    watch = _Watch(km, limits, sandbox)

    def on_cell_execute(cell: dict, cell_index: int) -> None:
        watch.cell_started(cell_index)

    client = _Client(
        notebook,
        km=km,
        timeout=math.ceil(limits.cell_wall),  # the wall-clock backstop; the CPU limit is the watch's
        interrupt_on_timeout=True,
        allow_errors=True,
        startup_timeout=60,
        resources={"metadata": {"path": str(sandbox.home)}},  # its home: a tmpfs under bubblewrap
        on_cell_execute=on_cell_execute,
    )
    client.private = private
    client.watch = watch
    try:
        sandbox.cgroup = Cgroup(limits.memory_mb, limits.processes)
    except OSError:
        sandbox.cgroup = None  # no hard caps here: the accounting alone
    died, why, cpu = None, None, 0.0
    results: dict[str, dict] = {}
    calls: dict[int, str] = {}
    forged: list[bool] = []

    async def judge(client: NotebookClient) -> None:
        channel = Channel(client, asyncio.get_running_loop(), server, watch)

        def work() -> None:
            for part, check in judged:
                channel.cells.clear()
                try:
                    module, function = check.split(":")
                    if module == EXTRA:  # the instructor's own check, run here: no rehearsal (a call each)
                        verdict = extra_check(extra, function, part.name.removeprefix(PREFIX))
                        results[part.name] = judge_part(channel, part.name, verdict, part.argument, part.needs, {})
                    else:
                        results[part.name] = judge_part(
                            channel, part.name, check_at(check), part.argument, part.needs, part.kwargs, check
                        )
                finally:
                    calls.update(dict.fromkeys(channel.cells, part.name))

        try:
            await asyncio.to_thread(work)
        except KernelGone as gone:
            raise DeadKernelError(str(gone)) from None
        finally:
            channel.closed = True
            forged.append(channel.forged)

    task = asyncio.ensure_future(
        _drive(
            client,
            judge if judged else None,
            env=sandbox.env(),
            preexec_fn=sandbox.preexec_fn,
            stdout=DEVNULL,
            stderr=DEVNULL,
        )
    )
    watcher = asyncio.ensure_future(watch.run())
    try:
        done, _ = await asyncio.wait({task, watcher}, timeout=limits.notebook_wall, return_when=FIRST_COMPLETED)
        if task not in done:  # the notebook's limit: whatever the cell running raises while cancelled, it timed out
            died, why = watch.index, "timeout"
            said = watcher.result() if watcher in done else watch.wall(limits.notebook_wall, "the whole run ")
            if died is not None:
                watch.stopped[died] = said
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - nbclient reports the cancelled kernel in its own way
                pass
        else:
            try:
                task.result()
            except DeadKernelError:
                died, why = watch.index, "crashed"
                watch.check(watch.index)  # killed at a hard cap (its cgroup says so)?
        if watch.breach is not None:  # the grader killed it: a resource limit
            died, why = watch.breach[0], watch.breach[1]
    finally:
        watcher.cancel()
        cpu = watch.clock.seconds if watch.clock else 0.0
        try:
            if km.has_kernel:
                await km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001 - the kernel is gone either way
            pass
        if sandbox.cgroup is not None:
            sandbox.cgroup.close()  # what is left in it killed, then removed
            sandbox.cgroup = None
    return _Run(notebook, died, why, watch.stopped, cpu, results, calls, any(forged))


def _capped(hit: str | None, limits: Limits) -> tuple[str, str] | None:
    """What to say of a hard cap of the cgroup hit (``"memory"`` or ``"processes"``), as :func:`.usage.breach` does."""
    if hit == "memory":
        said = f"a process of it was killed at its hard memory cap (limit {limits.memory_mb} MB per submission)"
        return "memory", said
    if hit == "processes":
        return "processes", f"it was refused a new process at its hard cap (limit {limits.processes} per submission)"
    return None


def _errors(cell: dict) -> list[tuple[str, str]]:
    """The errors a cell raised: (name, message) each."""
    outputs = cell.get("outputs", [])
    return [(o.get("ename", ""), str(o.get("evalue", ""))) for o in outputs if o.get("output_type") == "error"]


class _Client(NotebookClient):
    """Runs the grader's own cells without storing them in the kernel's input history (``In``).

    nbclient's own ``timeout`` is the wall-clock backstop: when it runs out, the watch
    records that it was wall-clock time (and how little CPU the cell used).
    """

    private: frozenset[int] = frozenset()
    watch: _Watch | None = None

    async def _async_handle_timeout(self, timeout: int, cell=None):  # noqa: ANN001, ANN202
        watch = self.watch
        if watch is not None and watch.index is not None:
            watch.stopped[watch.index] = watch.wall(timeout)
        return await super()._async_handle_timeout(timeout, cell)

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):  # noqa: ANN001, ANN201
        store = store_history and cell_index not in self.private
        return await super().async_execute_cell(cell, cell_index, execution_count, store)


def _results(cell: dict, nonce: str, part: str) -> dict | None:
    """The result the grader's cell published for ``part``; a second one carrying the nonce is a forgery."""
    found = []
    for output in cell.get("outputs", []):
        data = output.get("data", {}).get(MIME) if output.get("output_type") == "display_data" else None
        if data is None:
            continue
        try:
            result = json.loads(data) if isinstance(data, str) else dict(data)
        except (ValueError, TypeError):
            continue
        if result.get("nonce") == nonce:
            found.append(result)
    if len(found) > 1 or (found and found[0].get("part") != part):
        return {"error": "more than one result for this part: the submission tampered with the grader"}
    return found[0] if found else None


def _published(cell: dict) -> bool:
    """Whether a cell of the student's published a result as the grader's cells do (a forgery: never read)."""
    return any(MIME in (output.get("data") or {}) for output in cell.get("outputs", []))


NO_SPACE = ("No space left on device", "Disk quota exceeded")
"""What a write past the disk limit raises (the tmpfs home is full): flagged ``disk``."""


def _flag_of(ename: str, evalue: str = "") -> str:
    if any(said in evalue for said in NO_SPACE):
        return "disk"
    return {"KeyboardInterrupt": "timeout", "MemoryError": "memory"}.get(ename, "crashed")


def mark(exercise: Exercise, results: dict[str, dict | None], flags: set[str], scheme: Scheme) -> dict[str, float]:
    """The points of each part of ``exercise`` from its checks' ``results`` under ``scheme``; ``flags`` grows.

    Also how a rerun marks again, from the stored reports, a submission whose scheme alone changed.
    """
    points = {}
    for part, full in scheme.of(exercise).items():
        result = results.get(part)
        if result is None and part in results or result and "tampered" in result.get("error", ""):
            flags.add("tampered")
        report = (result or {}).get("report")
        if not report or not report.get("checks"):
            if result and "missing" in result:
                flags.add("not-written")
            elif result and "error" in result and "tampered" not in result["error"]:
                stopped_by_limit = any(e in result["error"] for e in ("TimeLimitExceeded", "KeyboardInterrupt"))
                flags.add("timeout" if stopped_by_limit else "crashed")
            points[part] = 0.0
            continue
        statuses = [c.get("status") for c in report["checks"]]
        passed = statuses.count("passed")
        if "not written yet" in statuses:
            flags.add("not-written")
        for check in report["checks"]:
            detail = str(check.get("detail", ""))
            if check.get("status") == "failed" and "did not return within" in detail:
                flags.add("timeout")
            if check.get("status") == "failed" and "the package's" in detail:
                flags.add("package-code")
        earned = share(report["checks"]) if scheme.partial_credit else float(passed == len(statuses))
        points[part] = round(full * earned, 2)
    return points


def _run_rounds(notebook: dict, exercise: Exercise, sandbox: Sandbox, limits: Limits, scheme: Scheme) -> dict:
    name, nonce, server = f"_{secrets.token_hex(8)}", secrets.token_hex(16), f"_{secrets.token_hex(8)}"
    student = student_cells(notebook, exercise)
    everything = JUDGED | {part.name for part in exercise.parts if part.check.startswith(EXTRA + ":")}
    checks = grader_cells(exercise, name, everything)  # none: every part is judged here
    judged = [part for part in exercise.parts if part.name in everything]
    # The kernel's first cell carries neither these checks nor the instructor's file.
    setup = dataclasses.replace(exercise, parts=tuple(p for p in exercise.parts if p.name not in everything), extra="")
    removed: dict[int, str] = {}  # student cell (index in the submission) -> why it was left out
    stopped: dict[str, str] = {}  # student cell (index) or part -> which time limit stopped it
    cpu = 0.0
    dropped_parts: dict[str, str] = {}
    flags: set[str] = set()
    results: dict[str, dict | None] = {}
    for _ in range(MAX_RUNS):
        kept = [(i, s) for i, s in student if i not in removed]
        parts = [(p, s) for p, s in checks if p not in dropped_parts]
        sources = [setup_cell(setup, name, nonce, server)] + [s for _, s in kept] + [s for _, s in parts]
        private = frozenset([0, *range(1 + len(kept), len(sources))])
        here = [(part, part.check) for part in judged if part.name not in dropped_parts]
        run = asyncio.run(_execute(sources, sandbox, limits, private, here, server, exercise.extra))
        cpu += run.cpu
        cells = run.notebook.cells
        new = {}
        for position, (index, _) in enumerate(kept, start=1):
            for ename, evalue in _errors(cells[position])[:1]:
                new[index] = _flag_of(ename, evalue)
                if new[index] == "disk":
                    stopped[str(index)] = f"{ename}: {evalue[:200]} (limit {limits.disk_mb} MB per submission)"
        if run.died is not None and 1 <= run.died <= len(kept):
            new[kept[run.died - 1][0]] = run.why or "crashed"
        for position, (index, _) in enumerate(kept, start=1):
            if new.get(index) not in (None, "crashed") and position in run.stopped:
                stopped[str(index)] = run.stopped[position]
        base = 1 + len(kept)
        results = {p: _results(cells[base + k], nonce, p) for k, (p, _) in enumerate(parts) if base + k != run.died}
        results.update({p: result for p, result in run.judged.items() if run.calls.get(run.died) != p})
        checking = set()  # flags of the grader's cells: only the last run's count
        for k, (p, _) in enumerate(parts):  # a grader's cell that failed: stopped (a limit), or tampered with
            for ename, evalue in _errors(cells[base + k])[:1]:
                checking.add(_flag_of(ename, evalue))
                said = f" ({run.stopped[base + k]})" if ename == "KeyboardInterrupt" and base + k in run.stopped else ""
                results[p] = {"error": f"the grader's cell for {p} failed: {ename}{said}"}
        if run.died == 0:  # the grader's own setup cell: nothing to mark
            checking.add(run.why or "crashed")
            if run.why != "crashed" and 0 in run.stopped:
                stopped["setup"] = run.stopped[0]
            break
        dropped = None
        if run.died is not None and run.died >= base:
            dropped = parts[run.died - base][0] if run.died < len(sources) else run.calls.get(run.died)
        if dropped is not None:
            dropped_parts[dropped] = run.why or "crashed"
            if run.why != "crashed" and run.died in run.stopped:
                stopped[dropped] = run.stopped[run.died]
        flags |= set(new.values()) | set(dropped_parts.values())
        if run.forged or any(_published(cells[position]) for position in range(1, base)):
            flags.add("tampered")  # a grader's result published by the student's code: ignored, but said
        removed.update(new)
        if not new and dropped is None:
            break
    flags |= checking
    points = mark(exercise, results, flags, scheme)
    return {
        "points": points,
        "reports": {p: results.get(p) for p in exercise.points},
        "flags": flags,
        "removed": {str(k): v for k, v in removed.items()},
        "dropped": dropped_parts,
        "stopped": stopped,
        "cpu_seconds": round(cpu, 2),
    }


def grade_submission(
    path: Path,
    root: Path,
    level: str,
    limits: Limits | None = None,
    hidden: tuple[Path, ...] = (),
    scratch: Path | None = None,
    scheme: Scheme | None = None,
    extras: Extras | None = None,
) -> dict:
    """Grade the notebook at ``path`` (a submission under ``root``); return its row and reports.

    ``scheme``: the points and the partial-credit policy (default: the package's, :mod:`.points`).
    ``extras``: the instructor's extra checks (:mod:`.extras`), parts of their own after the exercise's.

    Returns:
        A dict: ``submission`` (path relative to ``root``), ``exercise``, ``score``,
        ``max_score``, ``points`` (per part), ``flags`` (sorted as :data:`FLAGS`),
        ``seconds``, ``reports`` (per part: the check's ``Report.to_dict()`` under
        ``"report"``, or ``"missing"``/``"error"``), ``removed`` (cells left out of the
        final run, and why), ``dropped`` (the grader's cells left out, and why),
        ``stopped`` (for each cell, by its index, or part stopped by a time limit: which
        one, ``"stopped after 60 s of CPU time"`` or ``"stopped after 630 s of wall-clock
        time, using 0.1 s of CPU: blocked in sleep, input or a lock?"``), ``cpu_seconds``
        (CPU time of the kernels, all runs) and ``left_behind`` (processes killed after the kernel).
    """
    started = time.perf_counter()
    limits = limits or Limits()
    scheme = scheme or default_scheme()
    row: dict = {"submission": str(path.relative_to(root)), "exercise": None, "points": {}, "reports": {}}
    try:
        notebook = read_submission(path)
    except Unreadable as error:
        known = identify(path.name, set())  # its exercise, from its name alone: scored 0 out of that
        known = extend(known, extras) if known else None
        row.update(
            exercise=known.key if known else None,
            score=0.0,
            max_score=sum(scheme.of(known).values()) if known else 0.0,
            flags="unreadable",
            seconds=round(time.perf_counter() - started, 2),
            error=f"not a notebook: {error}",
        )
        return row
    defined = {n for c in notebook["cells"] for n in _defined(c)}
    exercise = identify(path.name, defined)
    if exercise is None:
        row.update(score=0.0, max_score=0.0, flags="not-written", seconds=0.0, error="no known exercise")
        return row
    exercise = extend(exercise, extras)
    token = secrets.token_hex(12)
    work = Path(tempfile.mkdtemp(prefix="mg-", dir=scratch))  # in the run's scratch folder, removed with it
    try:
        sandbox = Sandbox(work, level, token, hidden, limits.disk_mb)
        graded = _run_rounds(notebook, exercise, sandbox, limits, scheme)
    finally:
        left = sweep(token)
        shutil.rmtree(work, ignore_errors=True)
    flags = graded.pop("flags")
    points = graded["points"]
    row.update(
        exercise=exercise.key,
        score=round(sum(points.values()), 2),
        max_score=sum(scheme.of(exercise).values()),
        flags=" ".join(f for f in FLAGS if f in flags),
        seconds=round(time.perf_counter() - started, 2),
        left_behind=left,
        **graded,
    )
    return row


def _defined(cell: dict) -> set[str]:
    import ast

    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else str(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
