"""What the kernel says, read as data: exceptions rebuilt from their names, limits, rehearsed replies.

Shared by the judge (:mod:`.judge`: the student's functions) and the agents' proxy (:mod:`.proxy`):
the kernel sends what stopped a call as data (:func:`.serve._raised`, a time limit's numbers), and
these rebuild it on the grader's side as an exception the checks read (:func:`rebuilt`,
:func:`timeout`); a reply that is not the server's is :class:`Tampered`.
"""

from __future__ import annotations

import builtins
import math
import sys
import sysconfig
from pathlib import Path
from types import FunctionType, TracebackType
from typing import Any

from .wire import Opaque

__all__ = ["KernelGone", "Tampered", "exchange", "filename", "logged", "rebuilt", "timeout"]


class Tampered(BaseException):
    """The kernel's reply to a call was not the server's: none, several, or not readable as data."""


class KernelGone(BaseException):
    """The kernel died or was stopped during a call: the run ends (the grader's run says why)."""


# -- exceptions, rebuilt from data ----------------------------------------------------------
def _student_file() -> str:
    return "/<kernel>"


_PACKAGE = str(Path(__file__).resolve().parents[2])
_STDLIB = str(Path(sysconfig.get_paths()["stdlib"]).resolve())


def filename(where: Any) -> str:
    """The file a frame of the kernel's is shown in here (a kind and a name from :func:`.serve._where`).

    The package's and Python's files map onto this side's (the checks tell the student's code
    from them by path); the student's onto ``/<kernel>/...``, a path that exists nowhere here,
    so that reading a traceback never reads a file of the grader's.
    """
    if not (isinstance(where, tuple) and len(where) == 2 and all(isinstance(x, str) for x in where)):
        return "/<kernel>/?"
    kind, name = where
    name = name[:500]
    if kind == "package" and ".." not in name:
        return f"{_PACKAGE}/{name}"
    if kind == "python":
        return f"{_STDLIB}/<kernel>/{Path(name).name}"
    if kind == "generated":
        return name if name.startswith("<") and name.endswith(">") else f"<{name}>"
    return "/<kernel>/" + name.lstrip("/")


def _template() -> Any:
    return _getframe()


_getframe = sys._getframe
_FRAMES: dict[tuple[str, str], Any] = {}


def _frame(file: str, name: str) -> Any:
    """A real frame whose code has ``name`` and ``file`` (for a traceback's entry)."""
    key = (file, name)
    if key not in _FRAMES:
        code = _template.__code__.replace(co_name=name, co_filename=file)
        if hasattr(code, "co_qualname"):
            code = code.replace(co_qualname=name)
        _FRAMES[key] = FunctionType(code, {"_getframe": _getframe})()
    return _FRAMES[key]


_FOREIGN: dict[tuple[str, str], type] = {}


def _foreign(module: str, name: str) -> type:
    """An exception class named as the kernel's (a student's own, or a library's): only its name is kept."""
    key = (module, name)
    if key not in _FOREIGN:
        short = name.rsplit(".", 1)[-1] or "Exception"
        _FOREIGN[key] = type(short, (Exception,), {"__module__": module, "__qualname__": name})
    return _FOREIGN[key]


def rebuilt(data: Any) -> BaseException:
    """The exception the kernel described (:func:`.serve._raised`), with a traceback of its frames' names.

    Builtin exceptions are rebuilt as themselves (``SystemExit`` and ``KeyboardInterrupt`` too), any
    other as a plain ``Exception`` subclass of the same name; its traceback has the kernel's frames
    (each a frame of :func:`_template`'s code renamed), so the checks' own readers
    (``runner._students``, ``student._where``) name the student's function as they do in a kernel.

    Raises:
        Tampered: ``data`` is not what a server sends.
    """
    try:
        (module, name), args, message, frames = data["type"], data["args"], data["message"], data["frames"]
        if not (isinstance(module, str) and isinstance(name, str) and isinstance(message, str)):
            raise TypeError
        if not isinstance(frames, list) or len(frames) > 10_000:
            raise TypeError
        entries = [(filename(f), int(line), str(fn)[:200]) for f, line, fn in frames]
    except (KeyError, TypeError, ValueError):
        raise Tampered("an exception described in a way the server does not") from None
    module, name = module[:200], name[:200]
    kind = getattr(builtins, name, None) if module == "builtins" else None
    if not (isinstance(kind, type) and issubclass(kind, Exception | SystemExit | KeyboardInterrupt)):
        kind = _foreign(module, name)
    try:
        error = kind(*args) if isinstance(args, tuple) and not any(isinstance(a, Opaque) for a in args) else None
    except Exception:  # noqa: BLE001 - arguments this side's class does not take
        error = None
    if error is None:
        error = kind(message) if kind is not KeyError else _foreign(module, name)(message)
    tb = None
    for file, line, fn in reversed(entries):
        tb = TracebackType(tb, _frame(file, fn), 0, max(line, 0))
    return error.with_traceback(tb)


def logged(channel: Any, request: dict, objects: list[Any]) -> dict | None:
    """The channel's rehearsed reply to ``request``, or None (a channel without rehearsals: always None)."""
    logged = getattr(channel, "logged", None)
    return logged(request, objects) if logged is not None else None


def timeout(data: Any, who: str, within: float) -> BaseException:
    """The kernel's own limit ran out: its clock and where its time went (diagnosis only)."""
    from ..exercises.limits import CPU, WALL, TimeLimitExceeded

    try:
        part, seconds, clock, used, samples = data
        clock = clock if clock in (CPU, WALL) else CPU
        error = TimeLimitExceeded(str(part), float(seconds), clock, None if used is None else float(used))
        error.samples = [tuple((filename(f), str(n)[:200]) for f, n in stack) for stack in samples[:200]]
    except (TypeError, ValueError):
        return TimeLimitExceeded(who, within)
    if not math.isfinite(error.seconds) or error.seconds <= 0:
        return TimeLimitExceeded(who, within)
    return error


def exchange(channel: Any, request: dict, objects: list[Any], limit: float, remaining: float, title: str,
             overall: float, who: str, within: float) -> dict:  # fmt: skip
    """The reply to ``request``: its rehearsed one, or the kernel's, called under ``limit`` CPU seconds.

    The check's profile hook (its watch for the package's code) is off meanwhile: nothing of the
    student's runs here, and it is slow.

    Raises:
        TimeLimitExceeded: for ``title`` (``overall`` seconds) when nothing is left of the check's time;
            for ``who`` (``within`` seconds) when the grader stopped the call at its limit.
    """
    from ..exercises.limits import TimeLimitExceeded, backstop

    hook = sys.getprofile()
    sys.setprofile(None)
    try:
        reply, stopped = logged(channel, request, objects), False
        if reply is None:  # not rehearsed so: the kernel is called
            if remaining <= 0:
                raise TimeLimitExceeded(title, overall)
            reply, stopped = channel.call(request, objects, limit, backstop(limit) + 5.0)
    finally:
        sys.setprofile(hook)
    if stopped:
        raise TimeLimitExceeded(who, within)
    return reply
