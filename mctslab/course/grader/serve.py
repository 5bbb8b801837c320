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
from pathlib import Path
from typing import Any

from .wire import decode_call, encode, encode_reply, handles, reply_bytes, request_key, state_of

__all__ = ["MAX_FRAMES", "Rehearsal", "server"]

MAX_FRAMES = 3000
"""Frames of a traceback sent at most (a recursion past Python's default limit, 1,000, fits)."""

_ROOT = str(Path(__file__).resolve().parents[2])  # the mctslab package (as the checks' own `_PACKAGE`)


_PYTHON = tuple({str(Path(sysconfig.get_paths()[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib")})


def _where(filename: str) -> tuple[str, str]:
    """A frame's file as (kind, name): the grader maps it onto its own files (:func:`.judge.filename`).

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
        return encode_reply(*answer(decode_call(text)))

    return serve


def _answerer(namespace: dict) -> Callable[[dict], tuple[dict, list[Any]]]:
    """The function that answers a call (a request, decoded) with its reply and the call's objects."""
    from ..exercises.limits import TimeLimitExceeded, time_limit
    from ..exercises.runner import PackageCode, Student

    swapped: dict[str, Any] = {}

    def answer(call: dict) -> tuple[dict, list[Any]]:
        reply: dict[str, Any] = {"id": call["id"]}
        objects: list[Any] = []
        drawn = None
        try:
            if call["kind"] == "names":
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
        except PackageCode as err:
            reply["package"] = err.part
        except BaseException as err:  # noqa: BLE001 - whatever the student's code raised is sent back as data
            reply["raised"] = _raised(err)
        if drawn is not None and random.getstate() != drawn:
            reply["global_random"] = True  # it drew from the module `random`, not the rng given
        reply["states"] = [state_of(obj) for obj in objects]
        return reply, objects

    return answer


def _packed(line: Any) -> Any:
    """A playout's line, ``[(legal moves, index played or -1), ...]``, as bytes (each number plus one) when it
    fits: a tenth of the pickle's items for the grader to read (:func:`.judge._unpacked`); else as it is."""
    try:
        flat = [x + 1 for k, index in line for x in (k, index)]
        return bytes(flat)
    except (TypeError, ValueError):  # a number out of 0-254, or not a line of pairs of ints
        return line


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

    @property
    def cpu(self) -> float:
        """This process's CPU seconds (the kernel's own limits count the same clock)."""
        return time.process_time()

    def call(self, request: dict, objects: list[Any], limit: float, wall: float) -> tuple[dict, bool]:
        """Answer ``request`` here; log it. (``limit`` and ``wall`` are the grader's: the kernel's own limits apply.)"""
        self.calls += 1
        request["id"] = self.calls
        key = request_key(request)
        raw = reply_bytes(*self.answer(decode_call(encode(request))))
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
