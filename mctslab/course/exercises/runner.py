"""How a part check runs the student's function: under a time limit, watched for the package's code.

:class:`Student` wraps the function being checked: every call runs under
:func:`~.limits.time_limit` (:data:`CALL_SECONDS`) and :func:`~.provenance.watching`, so
an endless loop stops at its limit and an answer that runs the package's own
implementation is found out. :func:`run_checks` runs a part's checks in order, the
whole under :data:`CHECK_SECONDS`, and turns whatever happens into a :class:`Report`:
nothing the student writes makes it hang or raise (only ``KeyboardInterrupt`` goes
through). An error is blamed on the student's function (where in it, by the traceback),
never on a frame of the checker.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .isolation import unchanged_globals
from .limits import CPU, TimeLimitExceeded, cpu_seconds, time_limit
from .parts_diagnoses import PACKAGE_CODE, TIMEOUT_HINTS, say
from .provenance import watching
from .report import FAILED, NOT_WRITTEN, PASSED, SKIPPED, Check, Report
from .student import _where

__all__ = ["CALL_SECONDS", "CHECK_SECONDS", "WEIGHTS", "Outcome", "Student", "Unusable", "run_checks"]

Outcome = tuple[bool, str]

CALL_SECONDS = 2.0
"""Limit of one call of a student's part, in CPU seconds (:mod:`.limits`). The reference's
slowest call, a tic-tac-toe playout, takes about 30 microseconds of CPU (watched for the
package's code; 6 unwatched) on the course's machine, a check's other calls less: 2 s
leaves a factor of more than 10,000 for a slow machine or slow code, and an endless loop
costs a student 2 s of CPU (more on the wall when the machine is busy)."""

CHECK_SECONDS: dict[str, float] = {"ucb1": 10.0, "select": 10.0, "expand": 10.0, "simulate": 30.0,
                                   "backpropagate": 10.0}  # fmt: skip
"""Limit of a whole part check, in CPU seconds. The reference passes ``check_simulate`` (about
3,500 playouts) in 0.15 s of CPU and each other part check in under 0.05 s: a factor of 200
at least (``tests/test_exercise_parts.py`` measures the reference against these limits)."""

WEIGHTS: dict[str, dict[str, float]] = {
    "ucb1": {"unvisited": 2, "formula": 3},
    "select": {"untried": 3, "choice": 3, "descent": 3, "read_only": 1, "terminal": 2},
    "expand": {"child": 3, "point_of_view": 3, "untried": 3, "every_move": 3, "random": 1, "shared": 2,
               "terminal": 2},
    "simulate": {"finished": 3, "draw": 2, "seeded": 1, "random": 3},
    "backpropagate": {"path": 3, "point_of_view": 3, "returns": 1},
}  # fmt: skip
"""Each part check's weight in the part's partial credit (:attr:`~.report.Check.weight`), by part and check
name: 3 a wrong result, 2 a result off in degree or an edge case, 1 a secondary check (the tree left as it
was); a name not listed weighs 1."""

_PACKAGE = str(Path(__file__).resolve().parents[2])


class Unusable(Exception):
    """What the student's function returned cannot be checked (None, not a number...); the message says why."""


class PackageCode(Exception):
    """The student's function ran the package's own implementation of its part."""

    def __init__(self, part: str) -> None:
        super().__init__(part)
        self.part = part


class Student:
    """The student's ``function`` for ``part``, each call under :data:`CALL_SECONDS` and watched.

    Calling it calls ``function``; raises :class:`PackageCode` when the package's own
    implementation of ``part`` ran inside, :class:`~.limits.TimeLimitExceeded` when the
    call does not return in time; the function's own exceptions propagate.
    """

    def __init__(self, function: Callable[..., Any], part: str, seconds: float | None = None) -> None:
        self.function = function
        self.part = part
        self.seconds = CALL_SECONDS if seconds is None else seconds

    def __call__(self, *args: Any) -> Any:
        with time_limit(self.seconds, self.part), watching((self.part,)) as seen:
            try:
                result = self.function(*args)
            except Exception:
                if seen:  # the package's code, used on a node it was not written for
                    raise PackageCode(self.part) from None
                raise
        if seen:
            raise PackageCode(self.part)
        return result


def none_returned(part: str, value: Any, doing: str) -> None:
    """Raise :class:`Unusable` (diagnosis ``no_return``) when ``value`` is None."""
    if value is None:
        raise Unusable(say(part, "no_return", f" {doing}: is a `return` missing at the end of `{part}`?"))


def _students(err: BaseException) -> bool:
    """True when the traceback of ``err`` passes through code outside the package (the student's)."""
    frames = traceback.extract_tb(err.__traceback__)
    return any(not str(Path(f.filename).resolve()).startswith(_PACKAGE) for f in frames)


Step = tuple[str, str, Callable[[], Outcome]] | tuple[str, str, Callable[[], Outcome], str]


def run_checks(title: str, function: Any, checks: Sequence[Step], part: str | None = None) -> Report:
    """Run ``checks`` (name, title, check, and optionally a hint for an error) in order into a :class:`Report`.

    Args:
        title: the report's title (``"check_select"``).
        function: the student's function (for its name).
        checks: each ``check()`` returns ``(passed, detail)``; a 4th item is added to the
            message when the student's function raises during that check.
        part: the student's function the checks blame (the default: ``function``'s name);
            every :class:`Check` carries it.

    A stub (``NotImplementedError``) makes every check "not written yet"; a time limit
    that runs out, or the package's own code found, fails that check and skips the rest.
    """
    began, began_cpu = time.perf_counter(), cpu_seconds()
    name = part or getattr(function, "__name__", "your function")
    overall = CHECK_SECONDS.get(name, 30.0)
    report = Report(title)
    halted: tuple[str, str] | None = None
    if not callable(function):
        halted = (FAILED, f"{title} checks a function, `{name}` itself (without parentheses); it got {function!r}")
    with unchanged_globals():  # a student's global `random` is theirs, and so is the recursion limit (isolation)
        for key, what, check, *hint in checks:
            if halted is not None:
                report.checks.append(
                    Check(key, what, halted[0], halted[1], name, weight=WEIGHTS.get(name, {}).get(key, 1.0))
                )
                continue
            start = time.perf_counter()
            status, detail, halted = _one(title, name, check, hint[0] if hint else "", (overall, began_cpu))
            weight = WEIGHTS.get(name, {}).get(key, 1.0)
            report.checks.append(Check(key, what, status, detail, name, time.perf_counter() - start, weight))
    report.seconds = time.perf_counter() - began
    return report


def _one(title: str, name: str, check: Callable[[], Outcome], hint: str, clock: tuple[float, float]) -> tuple:
    """Run one check; its status, its detail and, when the rest must not run, their (status, detail).

    ``clock`` is the limit of the whole check and the CPU time (:func:`~.limits.cpu_seconds`) when it began.
    """
    overall, began = clock
    try:
        with time_limit(max(overall - (cpu_seconds() - began), 0.05), title):
            ok, detail = check()
    except NotImplementedError as err:
        stub = _where(err).removeprefix(" in `").removesuffix("`") or name
        return NOT_WRITTEN, f"not written yet: fill in `{stub}` above, then run this check again", (
            NOT_WRITTEN, f"waiting for `{stub}`")  # fmt: skip
    except TimeLimitExceeded as err:
        if err.part == title and err.clock == CPU:
            detail = (
                f"`{name}` is too slow: {title} did not finish within {overall:g} s of CPU time (the reference's "
                f"answer passes it in well under a second): {TIMEOUT_HINTS.get(name, 'does it loop forever?')}"
            )
        elif err.clock == CPU:
            detail = f"`{err.part}` did not return within {err.within}: {TIMEOUT_HINTS.get(err.part, '')}"
        else:  # the wall-clock backstop: the code waited rather than computed, so the loop hints do not apply
            detail = f"`{name}` did not return within {err.within}"
        return FAILED, detail.rstrip(": "), (SKIPPED, f"skipped: `{name}` must return in time first")
    except PackageCode as err:
        detail = say(
            err.part,
            "package_code",
            f" implementation, {PACKAGE_CODE.get(err.part, 'mctslab')}: it "
            "would pass without teaching anything. Write your own, in plain Python (the game's rules and TreeNode are "
            "yours to use)",
        )
        return FAILED, detail, (SKIPPED, f"skipped: waits for your own `{err.part}`")  # fmt: skip
    except Unusable as err:
        return FAILED, str(err), None
    except SystemExit as err:  # exit() or sys.exit() in the student's code would end the check, not the kernel
        return FAILED, f"`{name}` called exit ({err!r}): return a value instead", None
    except Exception as err:  # the student's bug: report it, never raise
        if _students(err):
            detail = f"`{name}` raised {type(err).__name__}{_where(err)}: {err}"
            return FAILED, f"{detail}. {hint[:1].upper()}{hint[1:]}" if hint else detail, None
        return (
            FAILED,
            (
                f"the check could not use what `{name}` returned ({type(err).__name__}: {err}): see what `{name}` "
                "must return in its docstring"
            ),
            None,
        )
    return (PASSED if ok else FAILED), detail, None
