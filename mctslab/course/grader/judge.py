"""The checks of :data:`JUDGED` parts run in the grader's own process; the kernel only serves calls.

Like a programming-contest judge: the check (``check_ucb1``...) runs here, in the grader's
worker, and is handed a :class:`Remote` instead of the student's function. Each call of it is
one cell run in the submission's kernel (:class:`Channel`), where the server of :mod:`.serve`
calls the student's own function and sends back the result (and the arguments' new states)
as data (:mod:`.wire`). Every verdict is computed here, on those values; nothing the kernel
holds (the checks' modules, ``json``, ``builtins``, a profile hook, a thread, the display
outputs) takes part in it, so no code in a submission can change a verdict.

What a reply can still say, being data about the student's own call:

* a result: what the student's function returned; a forged one only claims what the
  function could have returned itself, and is checked like it;
* an exception: its type's name, its message and its frames' names and files, rebuilt here
  as an exception with a traceback of those names (:func:`rebuilt`). The checks read it only to
  say *where* the student's code failed; the check that saw it fails whatever it says;
* a time limit that ran out, or the package's own code found (:mod:`~mctslab.course.exercises.provenance`):
  these too only ever fail a check. The kernel's own limits give the usual diagnosis; the
  grader's are the ones that hold: a call is stopped here after its limit of the kernel's CPU
  time (read from ``/proc``, :class:`~.run._Watch`), or its wall-clock backstop, whatever the
  kernel does.

So a reply can change a diagnosis but never turn a failure into a pass. A reply that is
not the server's (none, two, one the grader cannot read as data) is ``tampered``: the part
earns nothing.
"""

from __future__ import annotations

import asyncio
import builtins
import math
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from types import FunctionType, TracebackType
from typing import Any

from .wire import MIME, Opaque, Unreadable, decode_reply, encode, handles, restore

__all__ = ["JUDGED", "Channel", "KernelGone", "Remote", "Tampered", "judge_part", "rebuilt"]

JUDGED = frozenset({"ucb1", "wilson"})
"""The parts whose checks run in the grader's process (the others still run in the kernel)."""

CPU_SLACK = (1.25, 0.5)
"""A call stopped by the grader after ``1.25 x its limit + 0.5 s`` of the kernel's CPU time: the
kernel's own limit (the usual diagnosis) comes first; the grader's holds when that one was disabled."""


class Tampered(BaseException):
    """The kernel's reply to a call was not the server's: none, several, or not readable as data."""


class KernelGone(BaseException):
    """The kernel died or was stopped during a call: the run ends (the grader's run says why)."""


class Channel:
    """Calls into one kernel, made from the checks' thread and run as cells on the grader's event loop.

    Args:
        client: the nbclient running the submission (its kernel is up).
        loop: the event loop the client runs on.
        server: the name of the server (:func:`.serve.server`) in the kernel.
        watch: the run's CPU watch (``run._Watch``): the kernel's CPU time and each cell's limit.
    """

    def __init__(self, client: Any, loop: asyncio.AbstractEventLoop, server: str, watch: Any) -> None:
        self.client = client
        self.loop = loop
        self.server = server
        self.watch = watch
        self.cpu = watch.read() or 0.0  # the kernel's CPU seconds after the last call
        self.calls = 0
        self.cells: list[int] = []  # the notebook's indices of the cells run for calls
        self.closed = False

    def call(self, request: dict, objects: list[Any], limit: float, wall: float) -> tuple[dict, float, bool]:
        """Run ``request`` in the kernel; return its reply (read with ``objects``), the CPU it used, and
        whether the grader stopped it (a limit).

        Raises:
            Tampered: no reply, more than one, or one that is not data or not this call's.
            KernelGone: the kernel died, or the run was ended.
        """
        if self.closed:
            raise KernelGone("the kernel is gone")
        self.calls += 1
        request["id"] = self.calls
        text = encode(request)
        future = asyncio.run_coroutine_threadsafe(self._run(text, limit * CPU_SLACK[0] + CPU_SLACK[1], wall), self.loop)
        try:
            outputs, used, stopped = future.result()
        except BaseException as error:  # noqa: BLE001 - a dead kernel, a cancelled run: nothing more to call
            self.closed = True
            raise KernelGone(f"{type(error).__name__}: {error}") from None
        if stopped:
            return {}, used, True
        replies = [
            o.get("data", {}).get(MIME)
            for o in outputs
            if o.get("output_type") == "display_data" and MIME in o.get("data", {})
        ]
        if len(replies) != 1:
            raise Tampered(f"{len(replies)} replies to one call")
        try:
            reply = decode_reply(replies[0], objects)
        except Unreadable as error:
            raise Tampered(f"a reply that is not data: {error}") from None
        if type(reply) is not dict or reply.get("id") != request["id"]:
            raise Tampered("a reply to another call")
        return reply, used, False

    async def _run(self, text: str, limit: float, wall: float) -> tuple[list, float, bool]:
        import nbformat

        cell = nbformat.v4.new_code_cell(f"{self.server}({text!r})\n")
        cells = self.client.nb.cells
        cells.append(cell)
        index = len(cells) - 1
        self.cells.append(index)
        self.watch.cell_limits[index] = limit
        task = asyncio.ensure_future(self.client.async_execute_cell(cell, index, store_history=False))
        done, _ = await asyncio.wait({task}, timeout=wall)
        if not done:  # blocked without computing: the grader's own wall-clock backstop
            self.watch.stopped[index] = self.watch.wall(wall)
            await self.client.km.interrupt_kernel()
        await task
        before, after = self.cpu, self.watch.read() or self.cpu
        self.cpu = after
        outputs = list(cell.get("outputs", []))
        cell.outputs, cell.source = [], ""  # read: the notebook need not keep each call's payload
        return outputs, after - before, index in self.watch.stopped


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


# -- the student's function, called in the kernel -------------------------------------------
class Remote:
    """Stands for the student's function ``target`` in a check run here; each call is run in the kernel.

    Called through :class:`~mctslab.course.exercises.runner.Student` (most parts), it takes that
    wrapper's limit per call and its part; otherwise only the whole check's limit applies.
    """

    def __init__(self, channel: Channel, target: str, part: str, title: str, overall: float) -> None:
        self.channel = channel
        self.target = target
        self.__name__ = target
        self.part = part
        self.title = title
        self.overall = overall
        self.started = channel.cpu

    def __repr__(self) -> str:
        return f"<function {self.target}>"

    def __call__(self, *args: Any) -> Any:
        from ..exercises.limits import TimeLimitExceeded, backstop
        from ..exercises.runner import PackageCode, Student, Unusable

        seconds, part = None, self.part
        caller = sys._getframe(1)
        if caller.f_code is Student.__call__.__code__:  # the check's own wrapper: its limit per call
            wrapper = caller.f_locals.get("self")
            seconds, part = float(wrapper.seconds), str(wrapper.part)
        remaining = self.overall - (self.channel.cpu - self.started)
        if remaining <= 0:
            raise TimeLimitExceeded(self.title, self.overall)
        limit = min(seconds, remaining) if seconds else remaining
        who, within = (part, seconds) if seconds and seconds <= remaining else (self.title, self.overall)
        objects = handles(args)
        request = {"kind": "call", "target": self.target, "args": args, "part": part, "seconds": seconds,
                   "overall": remaining, "title": self.title}  # fmt: skip
        reply, used, stopped = self.channel.call(request, objects, limit, backstop(limit) + 5.0)
        if stopped or (used > limit * CPU_SLACK[0] + CPU_SLACK[1] / 2 and "timeout" not in reply):
            raise TimeLimitExceeded(who, within)
        if "unsendable" in reply:
            raise Unusable(f"what `{self.target}` returned cannot be sent to the grader: {reply['unsendable']}")
        try:
            restore(objects, reply.get("states"))
        except Unreadable as error:
            raise Tampered(str(error)) from None
        if "timeout" in reply:
            raise _timeout(reply["timeout"], who, within)
        if "package" in reply:
            raise PackageCode(part)
        if "raised" in reply:
            raise rebuilt(reply["raised"])
        if "result" not in reply:
            raise Tampered("a reply without a result")
        return reply["result"]


def _timeout(data: Any, who: str, within: float) -> BaseException:
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


def judge_part(channel: Channel, part: str, check: Callable[..., Any], target: str, needs: tuple[str, ...],
               kwargs: dict) -> dict:  # fmt: skip
    """Run ``check`` here on the student's ``target`` in the kernel; the part's result, as the grader's cell gives it.

    Returns:
        ``{"report": ...}``, ``{"missing": ...}`` or ``{"error": ...}``, with ``part`` and ``seconds``.

    Raises:
        KernelGone: the kernel died or the run was ended during the check.
    """
    from ..exercises.runner import CHECK_SECONDS

    started = time.perf_counter()
    try:
        named, _, _ = channel.call({"kind": "names", "names": list(needs), "target": target}, [], 2.0, 30.0)
        present = named.get("present")
        if not isinstance(present, list):
            raise Tampered("a reply without the names asked for")
        missing = [need for need in needs if need not in present]
        if missing:
            result: dict = {"missing": f"{', '.join(missing)} not defined"}
        else:
            function: Any = Remote(channel, target, part, f"check_{part}", CHECK_SECONDS.get(part, 30.0))
            if named.get("callable") is not True:
                function = named.get("repr")
            result = {"report": check(function, **kwargs).to_dict()}
    except Tampered as error:
        result = {"error": f"the submission tampered with the grader's calls ({error})"}
    except KernelGone:
        raise
    except BaseException as error:  # noqa: BLE001 - the check itself was stopped: the part fails
        result = {"error": f"{type(error).__name__}: {error}"}
    result.update(part=part, seconds=time.perf_counter() - started)
    return result
