"""The cells the grader runs: the student's code (without their own check calls) and the grader's cells.

Stored outputs of a submission are never read: only its code cells' sources are taken.
From each, top-level statements that call one of the exercise's checks (the notebook's
own ``check_uct(...)`` cells, its match) are left out, and so is every later statement
that reads a name those bound (``if report.ok: ...``): the grader runs the checks
itself, so a submission is not slowed down by them and cannot fake them.

The grader's first cell runs before any student code: it imports the checks and keeps
them, with a per-run nonce, in a closure under a random private name. Its last cells
call them on what the student's cells defined and publish each report in the private
MIME type :data:`MIME` with the nonce; only those outputs are read.
"""

from __future__ import annotations

import ast
import json

from .catalogue import Exercise
from .extras import EXTRA

__all__ = ["MIME", "grader_cells", "setup_cell", "student_cells"]

MIME = "application/x-mctslab-grade+json"


def _to_python(source: str) -> str:
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with the kernel
        return source
    return TransformerManager().transform_cell(source)


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _binds(node: ast.AST) -> set[str]:
    """The names a statement binds or changes: ``x = ...``, and ``x`` in ``x[k] = ...``, ``x.a = ...``."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            base = n.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
    return out


def _calls(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Name):
                out.add(n.func.id)
            elif isinstance(n.func, ast.Attribute):
                out.add(n.func.attr)
    return out


def _keep(source: str, skip_calls: frozenset[str], tainted: set[str]) -> str:
    """The cell's source without its check calls and what reads their results (``tainted`` grows)."""
    python = _to_python(source)
    try:
        tree = ast.parse(python)
    except SyntaxError:
        return source  # runs as written: the error is the student's
    lines = python.splitlines(keepends=True)
    kept = []
    for statement in tree.body:
        definition = isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if not definition and (_calls(statement) & skip_calls or _loads(statement) & tainted):
            tainted |= _binds(statement)
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Name):
            continue  # a bare name shows a value: nothing to run
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        kept.append("".join(lines[first - 1 : statement.end_lineno]))  # a definition with its decorators
    return "".join(kept)


def student_cells(notebook: dict, exercise: Exercise) -> list[tuple[int, str]]:
    """The submission's code cells to run, as (index in the notebook, source), in order; empty ones left out."""
    tainted: set[str] = set()
    out = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        kept = _keep(source, exercise.skip_calls, tainted)
        if kept.strip():
            out.append((index, kept))
    return out


def setup_cell(exercise: Exercise, name: str, nonce: str, server: str | None = None) -> str:
    """The grader's first cell: capture the checks and the publisher before any student code runs.

    ``name`` (random) names the grading function; its inner names are random too, so a
    submission cannot find it by name. ``server``: the name of the server of :mod:`.serve`
    that answers the grader's calls of the student's functions for the parts it judges
    itself (:data:`.judge.JUDGED`); none without.
    """
    inner = name + "_"
    checks = {part.name: part.check for part in exercise.parts}
    if exercise.extra or any(where.startswith(EXTRA + ":") for where in checks.values()):
        raise ValueError("the instructor's extra checks are judged by the grader (extras.extra_check), not in a kernel")
    kwargs = {part.name: part.kwargs for part in exercise.parts}
    return f"""\
def {name}():
    import importlib, json, time
    from IPython.display import publish_display_data
    from mctslab.course.exercises.report import Report
    to_dict = Report.to_dict

    checks = {{}}
    for part, where in {json.dumps(checks)}.items():
        module, function = where.split(":")
        checks[part] = getattr(importlib.import_module(module), function)
    kwargs = {kwargs!r}
    nonce, mime = {nonce!r}, {MIME!r}

    namespace = get_ipython().user_ns

    def {inner}(part, argument, needs):
        started = time.perf_counter()
        missing = [need for need in needs if need not in namespace]
        try:
            if missing:
                raise NameError(f"{{', '.join(missing)}} not defined")
            target = argument()
        except NameError as error:
            result = {{"missing": str(error)}}
        else:
            try:
                report = checks[part](target, **kwargs[part])
                result = {{"report": to_dict(report)}}
            except BaseException as error:  # the check itself was stopped (a limit): the part fails
                result = {{"error": f"{{type(error).__name__}}: {{error}}"}}
        result.update(nonce=nonce, part=part, seconds=time.perf_counter() - started)
        publish_display_data({{mime: json.dumps(result)}})

    return {inner}


{name} = {name}()
""" + (
        f"__import__('mctslab.course.grader.serve', fromlist=['listen']).listen(get_ipython(), {server!r})\n"
        if server
        else ""
    )


def grader_cells(exercise: Exercise, name: str, judged: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """The grader's check cells, one per part but those in ``judged`` (run in the grader's process): (part, source)."""
    return [
        (part.name, f"{name}({part.name!r}, lambda: ({part.argument}), {part.needs!r})\n")
        for part in exercise.parts
        if part.name not in judged
    ]
