"""Grade one submission: run it in a fresh sandboxed kernel, rerun without the cells that died, mark it.

:func:`grade_submission` returns a plain dict (a row of ``grades.csv`` plus the reports),
so it crosses process boundaries and is appended to the results file as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from subprocess import DEVNULL

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from .catalogue import Exercise, identify
from .cells import MIME, grader_cells, setup_cell, student_cells
from .points import PARTIAL_CREDIT
from .sandbox import Limits, Sandbox, sweep

__all__ = ["Limits", "grade_submission"]

FLAGS = ("timeout", "memory", "crashed", "package-code", "not-written", "tampered")
"""The flags of ``grades.csv``, in the order they are written. ``tampered``: a grader's cell
finished without publishing its result, or a second result carried the run's nonce (the
submission replaced the grader's function or forged its output); the part earns nothing."""

MAX_RUNS = 4
"""Runs of one submission at most (the first, then reruns each without the cells that died)."""


@dataclass
class _Run:
    notebook: nbformat.NotebookNode
    died: int | None  # index of the cell running when the kernel died or the notebook limit ran out
    why: str | None  # "timeout" or "crashed"


async def _execute(sources: list[str], sandbox: Sandbox, limits: Limits, private: frozenset[int]) -> _Run:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    work = sandbox.work
    km = AsyncKernelManager(
        kernel_name="mctslab-grader",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(sandbox.kernel_spec_dir())]),
        transport="ipc",
        ip=str(work / "k"),
        connection_file=str(work / "kernel.json"),
    )
    current = {"index": None}

    def on_cell_execute(cell: dict, cell_index: int) -> None:
        current["index"] = cell_index

    client = _Client(
        notebook,
        km=km,
        timeout=int(limits.cell),
        interrupt_on_timeout=True,
        allow_errors=True,
        startup_timeout=60,
        resources={"metadata": {"path": str(work)}},
        on_cell_execute=on_cell_execute,
    )
    client.private = private
    died, why = None, None
    task = asyncio.ensure_future(
        client.async_execute(env=sandbox.env(), preexec_fn=sandbox.preexec_fn, stdout=DEVNULL, stderr=DEVNULL)
    )
    try:
        done, _ = await asyncio.wait({task}, timeout=limits.notebook)
        if not done:  # the notebook's limit: whatever the cell running raises while cancelled, it timed out
            died, why = current["index"], "timeout"
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - nbclient reports the cancelled kernel in its own way
                pass
        else:
            try:
                task.result()
            except DeadKernelError:
                died, why = current["index"], "crashed"
    finally:
        try:
            if km.has_kernel:
                await km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001 - the kernel is gone either way
            pass
    return _Run(notebook, died, why)


def _errors(cell: dict) -> list[str]:
    return [o.get("ename", "") for o in cell.get("outputs", []) if o.get("output_type") == "error"]


class _Client(NotebookClient):
    """Runs the grader's own cells without storing them in the kernel's input history (``In``)."""

    private: frozenset[int] = frozenset()

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


def _flag_of(ename: str) -> str:
    return {"KeyboardInterrupt": "timeout", "MemoryError": "memory"}.get(ename, "crashed")


def _score(exercise: Exercise, results: dict[str, dict | None], flags: set[str]) -> dict[str, float]:
    points = {}
    for part, full in exercise.points.items():
        result = results.get(part)
        if result is None and part in results or result and "tampered" in result.get("error", ""):
            flags.add("tampered")
        report = (result or {}).get("report")
        if not report or not report.get("checks"):
            if result and "missing" in result:
                flags.add("not-written")
            elif result and "error" in result and "tampered" not in result["error"]:
                flags.add("timeout" if "TimeLimitExceeded" in result["error"] else "crashed")
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
        share = passed / len(statuses) if PARTIAL_CREDIT else float(passed == len(statuses))
        points[part] = round(full * share, 2)
    return points


def _run_rounds(notebook: dict, exercise: Exercise, sandbox: Sandbox, limits: Limits) -> dict:
    name, nonce = f"_{secrets.token_hex(8)}", secrets.token_hex(16)
    student = student_cells(notebook, exercise)
    checks = grader_cells(exercise, name)
    removed: dict[int, str] = {}  # student cell (index in the submission) -> why it was left out
    dropped_parts: dict[str, str] = {}
    flags: set[str] = set()
    results: dict[str, dict | None] = {}
    for _ in range(MAX_RUNS):
        kept = [(i, s) for i, s in student if i not in removed]
        parts = [(p, s) for p, s in checks if p not in dropped_parts]
        sources = [setup_cell(exercise, name, nonce)] + [s for _, s in kept] + [s for _, s in parts]
        private = frozenset([0, *range(1 + len(kept), len(sources))])
        run = asyncio.run(_execute(sources, sandbox, limits, private))
        cells = run.notebook.cells
        new = {}
        for position, (index, _) in enumerate(kept, start=1):
            for ename in _errors(cells[position])[:1]:
                new[index] = _flag_of(ename)
        if run.died is not None and 1 <= run.died <= len(kept):
            new[kept[run.died - 1][0]] = run.why or "crashed"
        base = 1 + len(kept)
        results = {p: _results(cells[base + k], nonce, p) for k, (p, _) in enumerate(parts) if base + k != run.died}
        checking = set()  # flags of the grader's cells: only the last run's count
        for k, (p, _) in enumerate(parts):  # a grader's cell that failed: stopped (a limit), or tampered with
            for ename in _errors(cells[base + k])[:1]:
                checking.add(_flag_of(ename))
                results[p] = {"error": f"the grader's cell for {p} failed: {ename}"}
        if run.died == 0:  # the grader's own setup cell: nothing to mark
            checking.add(run.why or "crashed")
            break
        dropped = None
        if run.died is not None and run.died >= base:
            dropped = parts[run.died - base][0]
            dropped_parts[dropped] = run.why or "crashed"
        flags |= set(new.values()) | set(dropped_parts.values())
        removed.update(new)
        if not new and dropped is None:
            break
    flags |= checking
    points = _score(exercise, results, flags)
    return {
        "points": points,
        "reports": {p: results.get(p) for p in exercise.points},
        "flags": flags,
        "removed": {str(k): v for k, v in removed.items()},
        "dropped": dropped_parts,
    }


def grade_submission(
    path: Path, root: Path, level: str, limits: Limits | None = None, hidden: tuple[Path, ...] = ()
) -> dict:
    """Grade the notebook at ``path`` (a submission under ``root``); return its row and reports.

    Returns:
        A dict: ``submission`` (path relative to ``root``), ``exercise``, ``score``,
        ``max_score``, ``points`` (per part), ``flags`` (sorted as :data:`FLAGS`),
        ``seconds``, ``reports`` (per part: the check's ``Report.to_dict()`` under
        ``"report"``, or ``"missing"``/``"error"``), ``removed`` (cells left out of the
        final run, and why) and ``left_behind`` (processes killed after the kernel).
    """
    started = time.perf_counter()
    limits = limits or Limits()
    row: dict = {"submission": str(path.relative_to(root)), "exercise": None, "points": {}, "reports": {}}
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        defined = {n for c in notebook.get("cells", []) for n in _defined(c)}
    except (OSError, ValueError) as error:
        row.update(score=0.0, max_score=0.0, flags="crashed", seconds=0.0, error=f"not a notebook: {error}")
        return row
    exercise = identify(path.name, defined)
    if exercise is None:
        row.update(score=0.0, max_score=0.0, flags="not-written", seconds=0.0, error="no known exercise")
        return row
    token = secrets.token_hex(12)
    work = Path(tempfile.mkdtemp(prefix="mg-"))
    try:
        sandbox = Sandbox(work, level, token, hidden)
        graded = _run_rounds(notebook, exercise, sandbox, limits)
    finally:
        left = sweep(token)
        shutil.rmtree(work, ignore_errors=True)
    flags = graded.pop("flags")
    points = graded["points"]
    row.update(
        exercise=exercise.key,
        score=round(sum(points.values()), 2),
        max_score=sum(exercise.points.values()),
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
