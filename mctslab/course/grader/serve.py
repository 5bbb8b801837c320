"""The kernel's side of the judge: call the student's own functions for the grader, send back what happened.

The grader's first cell makes a server (:func:`listen`) before any student code runs; the
grader (:mod:`.judge`) then sends each call as a message on the kernel's comm (no cell is run). The server finds the
student's function by name in the kernel's namespace, calls it on the arguments sent (under the
checks' own time limit and watch for the package's code, as :class:`~mctslab.course.exercises.runner.Student`
would), and publishes a reply (:mod:`.wire`): the result, the arguments' states after the call,
or what stopped it (the exception's type, message and the names and files of its frames), as the
comm's answer.

Nothing here is trusted by the grader: a submission may replace this server, or answer in its
place. The grader reads a reply as data (:func:`.wire.decode_reply`) and decides every verdict
itself, so a forged reply can only claim what the student's function could have returned;
a missing or doubled reply is ``tampered``.

A part's calls are first *rehearsed* here (:class:`Rehearsal`): the kernel runs the part's check
itself, on its own copy of the checks, calling the student's function through this same server
in-process, and sends back every call it made with its reply, in one message. The grader then
runs the check, and answers each of its calls with the rehearsed reply made for exactly that call
(the same request, byte for byte), calling the kernel only for a call that was not rehearsed
so (:meth:`.judge.Channel.logged`). A rehearsed reply is a reply like any other, read as data and
checked the same way: the rehearsal saves the round trips (three messages through the kernel's
shell each, about 3 ms of CPU on each side), never decides anything.
"""

from __future__ import annotations

import io
import math
import pickle
import random
import sysconfig
import time
import traceback
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from .wire import decode_call, encode, encode_reply, handles, reply_bytes, request_key, state_of

__all__ = ["MAX_FRAMES", "Rehearsal", "server"]

MAX_FRAMES = 3000
"""Frames of a traceback sent at most (a recursion past Python's default limit, 1,000, fits)."""

_ROOT = str(Path(__file__).resolve().parents[2])  # the mctslab package (as the checks' own `_PACKAGE`)


_PYTHON = tuple({str(Path(sysconfig.get_paths()[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib")})


def _where(filename: str) -> tuple[str, str]:
    """A frame's file as (kind, name): the grader maps it onto its own files (:func:`.replies.filename`).

    Kinds: ``"package"`` (mctslab's, the path inside it), ``"python"`` (the standard library or an
    installed package), ``"generated"`` (``<frozen ...>``, ``<string>``) and ``"student"`` (any other).
    """
    if filename.startswith("<") and not filename.startswith("<ipython"):
        return "generated", filename
    try:
        resolved = str(Path(filename).resolve())
    except (OSError, ValueError):
        return "student", filename
    if resolved.startswith(_ROOT + "/"):
        return "package", resolved[len(_ROOT) + 1 :]
    if resolved.startswith(_PYTHON):
        return "python", filename
    return "student", filename


def _raised(err: BaseException) -> dict:
    frames = [(_where(f.filename), f.lineno or 0, f.name) for f in traceback.extract_tb(err.__traceback__)]
    if len(frames) > MAX_FRAMES:
        frames = frames[: MAX_FRAMES // 2] + frames[-MAX_FRAMES // 2 :]
    try:
        message = str(err)[:2000]
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises
        message = ""
    kind = type(err)
    return {"type": (kind.__module__, kind.__qualname__), "args": err.args, "message": message, "frames": frames}


def _reference_ucb1(wins: float, visits: int, parent_visits: int, c: float = math.sqrt(2)) -> float:
    """UCB1 in the student's signature, in place of a wrong ``ucb1`` while ``select`` is checked."""
    from ...ucb import ucb1

    return math.inf if visits == 0 else ucb1(wins / visits, parent_visits, visits, c)


def listen(shell: Any, target: str) -> None:
    """Answer the grader's calls on the kernel's comm ``target`` (a comm message each way: no cell is run).

    Args:
        shell: the kernel's IPython shell (``get_ipython()``), whose namespace holds the student's functions.
        target: the comm target's name (random, chosen by the grader).
    """
    serve = server(shell.user_ns)

    def opened(comm: Any, message: Any) -> None:
        comm.on_msg(lambda msg: comm.send({"reply": serve(msg["content"]["data"]["call"])}))

    shell.kernel.comm_manager.register_target(target, opened)


def server(namespace: dict) -> Callable[[str], str]:
    """The function that answers a call (its text, :func:`.wire.encode`) with a reply's text, reading the
    student's names in ``namespace``."""
    answer = _answerer(namespace)

    def serve(text: str) -> str:
        try:
            call = decode_call(text)
        except Exception as error:  # noqa: BLE001 - a call naming a class this kernel cannot import
            return encode_reply({"id": None, "unreadable": f"{type(error).__name__}: {error}"[:500]}, [])
        return encode_reply(*answer(call))

    return serve


def _answerer(namespace: dict) -> Callable[[dict], tuple[dict, list[Any]]]:
    """The function that answers a call (a request, decoded) with its reply and the call's objects."""
    from ..exercises.limits import TimeLimitExceeded, time_limit
    from ..exercises.runner import PackageCode, Student

    swapped: dict[str, Any] = {}
    agents = _Agents(namespace)

    def answer(call: dict) -> tuple[dict, list[Any]]:
        reply: dict[str, Any] = {"id": call["id"]}
        objects: list[Any] = []
        drawn = None
        try:
            if call["kind"] in _Agents.KINDS:  # check_uct's calls of the student's agent (judge's proxy)
                objects = handles((call["args"], agents.attached(call)))
                agents.answer(call, reply)
            elif call["kind"] == "names":
                present = [name for name in call["names"] if name in namespace]
                reply["present"] = present
                target = namespace.get(call["target"]) if call.get("target") else None
                reply["callable"] = callable(target)
                reply["repr"] = target if not callable(target) else None
            elif call["kind"] == "swap":  # check_select: the student's ucb1 swapped for UCB1 while select is checked
                space = getattr(namespace.get(call["target"]), "__globals__", namespace)
                if call["reference"]:
                    swapped.setdefault(call["name"], space.get(call["name"]))
                    space[call["name"]] = _reference_ucb1
                elif call["name"] in swapped:
                    space[call["name"]] = swapped.pop(call["name"])
            elif call["kind"] == "rehearse":  # the part's check run here, each call answered by `answer` itself
                reply["log"] = Rehearsal(answer).run(call)
            else:
                function = namespace[call["target"]]
                args = call["args"]
                objects = handles(args)
                drawn = random.getstate()
                with time_limit(call["overall"], call["title"]):
                    if call["kind"] == "playouts":  # check_simulate's playouts, all in one call: (result, line) each
                        reply["result"] = done = []
                        student = Student(function, call["part"], call["seconds"])
                        for _ in range(call["count"]):
                            got = student(*args)
                            done.append((got, _packed(args[0].line(call["start"], call["plies"]))))
                    elif call["seconds"] is not None:
                        reply["result"] = Student(function, call["part"], call["seconds"])(*args)
                    else:
                        reply["result"] = function(*args)
        except TimeLimitExceeded as err:
            samples = [tuple((_where(f), name) for f, name in stack) for stack in err.samples[:200]]
            reply["timeout"] = (err.part, err.seconds, err.clock, err.used, samples)
            if hasattr(err, "playouts"):  # what the agent had done when stopped (_Playouts), for the diagnosis
                reply["counted"] = (err.playouts, err.stalled)
        except PackageCode as err:
            reply["package"] = err.part
        except BaseException as err:  # noqa: BLE001 - whatever the student's code raised is sent back as data
            reply["raised"] = _raised(err)
        if drawn is not None and random.getstate() != drawn:
            reply["global_random"] = True  # it drew from the module `random`, not the rng given
        reply["states"] = [state_of(obj) for obj in objects]
        return reply, objects

    return answer


class _Agents:
    """The student's agents made for the grader's proxy (:mod:`.proxy`), numbered in the order made.

    ``make`` evaluates the part's factory (the catalogue's expression, the grader's own text) in
    the student's namespace once and calls it; ``method`` calls a method of an agent made before;
    ``setattr`` sets one of its attributes. Each call of the student's code runs under the checks'
    limits (the call's own, and what is left of the whole check's), with ``_Playouts`` counting the
    playouts of the game it was given and the watches the grader's check was running
    (:mod:`~mctslab.course.exercises.watches`) around it; each reply describes the agent as it is
    after the call (:func:`described`).
    """

    KINDS = frozenset({"make", "method", "setattr"})

    def __init__(self, namespace: dict) -> None:
        self.namespace = namespace
        self.made: list[Any] = []
        self.kept: list[list[Any]] = []  # per agent: the objects set on it that are not plain values
        self.factories: dict[str, Any] = {}

    def attached(self, call: dict) -> list[Any]:
        """The objects set on the call's agent so far (their states go back with each reply, as the arguments')."""
        return self.kept[call["agent"]] if call["kind"] != "make" else []

    def answer(self, call: dict, reply: dict) -> None:
        from ...games.base import Game
        from ..exercises.limits import TimeLimitExceeded, cpu_seconds, time_limit
        from ..exercises.student import _Playouts

        args = tuple(call["args"])
        reply["watches"] = {}
        if call["kind"] == "setattr":
            agent = self.made[call["agent"]]
            setattr(agent, call["name"], args[0])
            if type(args[0]) not in _PLAIN:
                self.kept[call["agent"]].append(args[0])
            reply["described"] = described(agent)
            return
        if call["kind"] == "make":
            if call["target"] not in self.factories:
                self.factories[call["target"]] = eval(call["target"], self.namespace)  # noqa: S307 - the grader's text
            function = self.factories[call["target"]]
        else:
            agent = self.made[call["agent"]]
            function = getattr(agent, call["method"])
        seen: dict[str, Any] = {}
        try:
            counted = _Playouts(args[0]) if args and isinstance(args[0], Game) else None  # the check's count
            with _Watched(call["watches"], seen), time_limit(call["overall"], call["title"]), counted or nullcontext():
                try:
                    with time_limit(call["seconds"], call["part"]):
                        result = function(*args)
                except TimeLimitExceeded as err:
                    if counted is not None and counted.n:  # what the agent had done, for the diagnosis
                        err.playouts, err.stalled = counted.n, cpu_seconds() - counted.last
                    raise
        finally:
            reply["watches"] = seen
        if call["kind"] == "make":
            self.made.append(result)
            self.kept.append([])
            reply["made"] = len(self.made) - 1
            reply["described"] = described(result)
        else:
            reply["result"] = result
            reply["described"] = described(agent)


class _Watched:
    """Run the block under the watches named (those the grader's check was running), their findings into ``seen``."""

    def __init__(self, names: Any, seen: dict[str, Any]) -> None:
        self.names = set(names)
        self.seen = seen

    def __enter__(self) -> None:
        from ..exercises.causes import Swallowed
        from ..exercises.provenance import watching
        from ..exercises.student import _NoneReturns

        self.package = watching() if "package" in self.names else None
        self.parts = self.package.__enter__() if self.package is not None else None
        self.nones = _NoneReturns().__enter__() if "nones" in self.names else None
        self.swallowed = Swallowed().__enter__() if "swallowed" in self.names else None
        self.drawn = None
        if "global_random" in self.names:
            from ..exercises.chance_probes import _GlobalRandom

            self.drawn = _GlobalRandom().__enter__()

    def __exit__(self, kind: Any, error: Any, tb: Any) -> None:
        if self.drawn is not None:
            self.drawn.__exit__(kind, error, tb)
            self.seen["global_random"] = list(self.drawn.names)
        if self.swallowed is not None:
            self.swallowed.__exit__(kind, error, tb)
            self.seen["swallowed"] = self.swallowed.served()
        if self.nones is not None:
            self.nones.__exit__(kind, error, tb)
            self.seen["nones"] = self.nones.served(error)
        if self.package is not None:
            self.package.__exit__(None, None, None)
            self.seen["package"] = sorted(self.parts)


_PLAIN = (int, float, bool, str, type(None))


def described(agent: Any) -> dict:
    """What the grader's proxy knows of an agent: its class, its plain attributes, the names it can call."""
    from ..exercises.agent_probes import _package_class
    from ..exercises.provenance import is_package_agent

    attrs: dict[str, Any] = {}
    callables: list[str] = []
    try:
        names = dir(agent)
    except Exception:  # noqa: BLE001 - a class whose __dir__ raises: nothing is known of it
        names = []
    for name in names[:500]:
        if type(name) is not str or name.startswith("__"):
            continue
        try:
            value = getattr(agent, name)
        except Exception:  # noqa: BLE001 - a property that raises: as if absent
            continue
        if callable(value):
            callables.append(name)
        elif type(value) in _PLAIN:
            attrs[name] = value
    kind = type(agent)
    package = is_package_agent(agent)
    return {"kind": (str(kind.__module__), str(kind.__qualname__)), "attrs": attrs, "callables": callables,
            "package": package, "package_class": _package_class(agent) if package else None}  # fmt: skip


def _packed(line: Any) -> Any:
    """A playout's line, ``[(legal moves, index played or -1), ...]``, as bytes (each number plus one) when it
    fits: a tenth of the pickle's items for the grader to read (:func:`.judge._unpacked`); else as it is."""
    try:
        flat = [x + 1 for k, index in line for x in (k, index)]
        return bytes(flat)
    except (TypeError, ValueError):  # a number out of 0-254, or not a line of pairs of ints
        return line


LOG_BYTES = 6 << 20
"""Bytes of rehearsed replies after which the rehearsal stops (the grader calls the rest itself): with the
last reply, their message in base64 stays under :data:`.wire.MAX_REPLY` unless that reply alone is 6 MB."""


class _Full(BaseException):
    """The rehearsal's log is full (:data:`LOG_BYTES`): the rehearsal ends there."""


class _Local(pickle.Unpickler):
    """The kernel reads its own replies back (it trusts itself): the call's objects by number."""

    def __init__(self, data: bytes, objects: list[Any]) -> None:
        super().__init__(io.BytesIO(data))
        self.objects = objects

    def persistent_load(self, pid: Any) -> Any:
        return self.objects[pid]


class Rehearsal:
    """A channel inside the kernel: a part's check run here, each call answered in-process and logged.

    It plays the grader's :class:`~.judge.Channel` for :func:`~.judge.judge_part`: each call is
    sent through the wire's own encoding (so that the function works on copies, as it does
    when the grader calls), answered by the server's ``answer``, and read back onto the check's
    objects; the log keeps each call's :func:`~.wire.request_key` and its reply as sent. The
    check's own result is dropped: the grader runs the check again on its side.

    Args:
        answer: the server's function answering a decoded request (:func:`_answerer`).
    """

    def __init__(self, answer: Callable[[dict], tuple[dict, list[Any]]]) -> None:
        self.answer = answer
        self.calls = 0
        self.memo: dict[tuple, Any] = {}
        self.cells: list[int] = []
        self.closed = False
        self.log: list[tuple[str, bytes]] = []
        self.size = 0

    @property
    def cpu(self) -> float:
        """This process's CPU seconds (the kernel's own limits count the same clock)."""
        return time.process_time()

    def call(self, request: dict, objects: list[Any], limit: float, wall: float) -> tuple[dict, bool]:
        """Answer ``request`` here; log it. (``limit`` and ``wall`` are the grader's: the kernel's own limits apply.)

        Raises:
            _Full: the log holds :data:`LOG_BYTES` already: the rehearsal ends, the grader makes this call and
                the rest itself.
        """
        if self.size >= LOG_BYTES:  # before the call: a call made is a call logged, never made twice
            raise _Full
        self.calls += 1
        request["id"] = self.calls
        key = request_key(request)
        raw = reply_bytes(*self.answer(decode_call(encode(request))))
        self.size += len(raw) + len(key)
        self.log.append((key, raw))
        return _Local(raw, objects).load(), False

    def run(self, call: dict) -> list[tuple[str, bytes]]:
        """Run the check of ``call`` (``where``, ``part``, ``target``, ``needs``, ``kwargs``); the calls it made."""
        from ..exercises import limits
        from .judge import check_at, judge_part

        shown, limits.PROGRESS_AFTER = limits.PROGRESS_AFTER, math.inf  # no progress bar: no one watches a rehearsal
        try:
            judge_part(self, call["part"], check_at(call["where"]), call["target"], tuple(call["needs"]),
                       dict(call["kwargs"]))  # fmt: skip
        except BaseException:  # noqa: BLE001, S110 - stopped (an interrupt): the calls made so far stand
            pass
        finally:
            limits.PROGRESS_AFTER = shown
        return self.log
