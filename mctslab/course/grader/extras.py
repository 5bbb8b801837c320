"""The instructor's extra checks: a Python file of theirs (``--extra-checks FILE``) the student edition never carries.

The file defines, at its top level, one function per exercise part it adds a check to,
named ``extra_<part>`` (``extra_ucb1``, ``extra_uct``, ``extra_chance_uct``)::

    def extra_ucb1(ucb1):
        \"\"\"An unvisited child is worth more than any visited one.\"\"\"
        return ucb1(0.0, 0, 10) > 1e9, "ucb1 of a child never visited should be infinite"

Each receives what the part's own check receives (the student's function; for ``uct`` and
``chance_uct``, a function of a seed that builds the student's agent) and returns ``True``
or ``False``, or ``(passed, message)``; an exception it raises (the student's code failing)
fails it with the exception as the message. Its docstring's first line is the check's title.
Each is a part of its own, a column of ``grades.csv`` named like the function, and earns
the points ``--points FILE`` gives it (``extra_ucb1 = 5`` under ``[points.04b]``: required).

The file is read and run here, in the grader's process, never in a submission's kernel: like
the exercise's own checks, each extra check is judged by the grader (:mod:`.judge`), its calls
of the student's function (or agent) answered by the kernel. It is never written anywhere a
student sees: only its messages reach their report and feedback.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .catalogue import EXERCISES, Exercise, Part

__all__ = ["EXTRA", "PREFIX", "Extras", "combined_checks", "extend", "extra_check", "load_extras"]

PREFIX = "extra_"
"""The extra check of part ``p`` is the function ``extra_p``, and the column ``extra_p``."""

EXTRA = "<extra>"
"""The module a :class:`.catalogue.Part` names for an extra check (``"<extra>:extra_ucb1"``)."""


@dataclass(frozen=True)
class Extras:
    """The instructor's extra checks, read and validated.

    Attributes:
        source: the file's text (carried into the kernels).
        path: where it was read, for messages.
        parts: per exercise key, the extra parts (their ``check`` is ``"<extra>:extra_<part>"``).
    """

    source: str
    path: str
    parts: dict[str, tuple[Part, ...]]

    def digest(self) -> str:
        """A hash of the file's text: a change grades every submission again."""
        return hashlib.sha256(self.source.encode()).hexdigest()

    def names(self) -> dict[str, tuple[str, ...]]:
        """Per exercise key, the names of its extra parts (columns of ``grades.csv``)."""
        return {key: tuple(p.name for p in parts) for key, parts in self.parts.items()}


def load_extras(path: Path) -> Extras:
    """Read and check the instructor's extra checks (see the module's docstring); nothing of it runs here.

    Raises:
        ValueError: (one line) for a file that cannot be read, is not Python, defines no
            ``extra_<part>`` function, or names a part no exercise has.
    """
    what = f"--extra-checks {path}"
    try:
        source = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise ValueError(f"{what}: cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{what}: not UTF-8 text") from None
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as error:
        raise ValueError(f"{what}: not Python: line {error.lineno}: {error.msg}") from None
    owner = {part.name: (key, part) for key, exercise in EXERCISES.items() for part in exercise.parts}
    parts: dict[str, list[Part]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith(PREFIX):
            continue
        base = node.name[len(PREFIX) :]
        if base not in owner:
            raise ValueError(f"{what}: {node.name} names no part; parts: {', '.join(owner)} (extra_<part>)")
        key, part = owner[base]
        parts.setdefault(key, []).append(Part(node.name, f"{EXTRA}:{node.name}", part.argument, part.needs))
    if not parts:
        raise ValueError(f"{what}: defines no extra_<part> function (e.g. def extra_ucb1(ucb1): ...)")
    return Extras(source, str(path), {key: tuple(found) for key, found in parts.items()})


def extend(exercise: Exercise, extras: Extras | None) -> Exercise:
    """``exercise`` with the extra parts ``extras`` gives it (checked after its own), and their source."""
    if extras is None or exercise.key not in extras.parts:
        return exercise
    return dataclasses.replace(exercise, parts=exercise.parts + extras.parts[exercise.key], extra=extras.source)


def combined_checks(checks: str, extras: Extras | None) -> str:
    """The checks' digest (:func:`.scheme.checks_digest`) with the extra checks' (unchanged without any)."""
    if extras is None:
        return checks
    return hashlib.sha256(f"{checks}:{extras.digest()}".encode()).hexdigest()


_LOADED: dict[str, dict] = {}


def extra_check(source: str, function: str, part: str) -> Any:
    """The check of the extra part ``function`` of ``source`` (the instructor's file), as the grader runs it.

    A function of the student's target returning a :class:`~mctslab.course.exercises.report.Report` of one
    check: passed or failed as the instructor's function says (``True``/``False`` or ``(passed,
    message)``); an exception fails it with the exception as the message, ``NotImplementedError``
    (a stub the student left as given) is "not written yet". ``part``: the part a failure blames.
    """
    from ..exercises.report import NOT_WRITTEN, Check, Report

    key = hashlib.sha256(source.encode()).hexdigest()
    if key not in _LOADED:
        namespace: dict = {"__name__": "extra_checks"}
        exec(compile(source, "the instructor's extra checks", "exec"), namespace)  # noqa: S102 - the instructor's
        _LOADED[key] = namespace
    instructor = _LOADED[key][function]

    def check(target: Any) -> Report:
        title = ((instructor.__doc__ or "").strip().splitlines() or [instructor.__name__])[0]
        status = None
        try:
            said = instructor(target)
        except NotImplementedError:
            status, message = NOT_WRITTEN, "not written yet: the function still raises NotImplementedError"
        except Exception as error:  # noqa: BLE001 - the student's code failing under the instructor's check
            passed, message = False, f"{type(error).__name__}: {error}"
        else:
            passed, message = said if isinstance(said, tuple) else (said, "")
        status = status or ("passed" if passed else "failed")
        found = Check(instructor.__name__, title, status, str(message), part if status == "failed" else None)
        return Report(instructor.__name__, [found])

    return check
