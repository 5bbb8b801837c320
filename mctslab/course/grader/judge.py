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

Most calls do not cross at all: the kernel first *rehearses* the part (:class:`.serve.Rehearsal`:
it runs the check on its own copy, calling the student's function in-process) and sends every call
it made with its reply in one message; a call of the check here that asks exactly what a rehearsed
call asked (:func:`~.wire.request_key`) takes that reply (:meth:`Channel.logged`), any other goes to
the kernel. A rehearsed reply is read and checked as a reply sent for the call: the kernel could
forge either, and both only say what the student's function returned, so the rehearsal changes
what a part costs (one round trip instead of about fifty), never what it earns. An attack that
upsets the kernel's rehearsal only makes the grader call the kernel once per call, as before.

So a reply can change a diagnosis but never turn a failure into a pass: every value a check
compares is one the student's function could have returned itself. One exception is stated
rather than hidden: the package's own code is spotted by a watch inside the kernel, so a
submission that calls the reference implementation *and* silences that watch is not told
apart from one that wrote it (its results are still checked here, as any others). A reply that is
not the server's (none, two, one the grader cannot read as data) is ``tampered``: the part
earns nothing.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from ..exercises.watches import merge
from .cells import MIME
from .replies import KernelGone, Tampered, exchange, logged, rebuilt, timeout
from .wire import Unreadable, decode_bytes, decode_reply, encode, handles, request_key, restore

__all__ = ["JUDGED", "Channel", "KernelGone", "Remote", "Tampered", "check_at", "judge_part", "rebuilt"]

JUDGED = frozenset({"ucb1", "select", "expand", "simulate", "backpropagate", "wilson", "uct", "chance_uct"})
"""The parts whose checks run in the grader's process: all of them (the instructor's extra checks run in the kernel)."""

REHEARSAL_SLACK = 5.0
"""CPU seconds a rehearsal (:meth:`Channel.rehearse`) may take beyond its part's limit: the check's own
work and the copies of the calls' arguments (well under a second for 04b's parts)."""

CPU_SLACK = 0.25
"""A call is stopped by the grader after its limit and this many more seconds of the kernel's CPU
time (the watch reads it every 0.25 s): the kernel's own limit, which also says where the time went,
usually comes first; the grader's holds whatever the kernel does."""


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
        self.calls = 0
        self.memo: dict[tuple, Any] = {}  # (function, numbers) -> what it returned: see Remote.__call__
        self.comm = uuid.uuid4().hex
        self.opened = False
        self.first = len(client.nb.cells)  # calls are numbered after the notebook's cells
        self.cells: list[int] = []  # the numbers of the calls made for the part being judged
        self.closed = False
        self.log: dict[str, deque[bytes]] = {}  # request key -> the replies rehearsed for it, in order
        self.forged = False  # the student's code published a grader's result during a call (never read: flagged)

    @property
    def cpu(self) -> float:
        """The kernel's CPU seconds as the watch last read them (every :data:`.run.POLL` s and at each call's start)."""
        return self.watch.last

    def call(self, request: dict, objects: list[Any], limit: float, wall: float) -> tuple[dict, bool]:
        """Run ``request`` in the kernel; return its reply (read with ``objects``) and whether the grader
        stopped it (``limit`` CPU seconds, ``wall`` seconds on the wall).

        Raises:
            Tampered: no reply, more than one, or one that is not data or not this call's.
            KernelGone: the kernel died, or the run was ended.
        """
        if self.closed:
            raise KernelGone("the kernel is gone")
        self.calls += 1
        request["id"] = self.calls
        text = encode(request)
        future = asyncio.run_coroutine_threadsafe(self._run(text, limit + CPU_SLACK, wall), self.loop)
        try:
            outputs, stopped = future.result()
        except BaseException as error:  # noqa: BLE001 - a dead kernel, a cancelled run: nothing more to call
            self.closed = True
            raise KernelGone(f"{type(error).__name__}: {error}") from None
        if stopped:
            return {}, True
        replies = outputs
        if len(replies) != 1:
            raise Tampered(f"{len(replies)} replies to one call ({request.get('kind')} {request.get('method', '')})")
        try:
            reply = decode_reply(replies[0], objects)
        except Unreadable as error:
            raise Tampered(f"a reply that is not data: {error}") from None
        if type(reply) is dict and reply.get("id") is None and type(reply.get("unreadable")) is str:
            raise RuntimeError(f"the kernel could not read the grader's call: {reply['unreadable']}")
        if type(reply) is not dict or reply.get("id") != request["id"]:
            raise Tampered("a reply to another call")
        return reply, False

    def rehearse(self, part: str, where: str, target: str, needs: tuple[str, ...], kwargs: dict,
                 overall: float) -> bool:  # fmt: skip
        """Have the kernel rehearse the check at ``where`` on ``target`` (:class:`.serve.Rehearsal`); keep its log.

        Returns:
            Whether the grader stopped the rehearsal at its limit (``overall`` CPU seconds and
            :data:`REHEARSAL_SLACK`): the part has then used its time.

        Raises:
            Tampered: a reply that is not a log of calls.
        """
        from ..exercises.limits import backstop

        self.log = {}
        limit = overall + REHEARSAL_SLACK
        request = {"kind": "rehearse", "part": part, "where": where, "target": target, "needs": list(needs),
                   "kwargs": kwargs}  # fmt: skip
        reply, stopped = self.call(request, [], limit, backstop(limit) + 5.0)
        if stopped:
            return True
        log = reply.get("log")
        if type(log) is not list:
            raise Tampered("a rehearsal sent back without its calls")
        for entry in log:
            if not (type(entry) is tuple and len(entry) == 2 and type(entry[0]) is str and type(entry[1]) is bytes):
                raise Tampered("a rehearsed call sent back as something else than its key and its reply")
            self.log.setdefault(entry[0], deque()).append(entry[1])
        return False

    def logged(self, request: dict, objects: list[Any]) -> dict | None:
        """The rehearsed reply to ``request`` (read with ``objects``, as a reply sent for it), or None.

        Raises:
            Tampered: a rehearsed reply that is not data.
        """
        if not self.log:
            return None
        replies = self.log.get(request_key(request))
        if not replies:
            return None
        try:
            reply = decode_bytes(replies.popleft(), objects)
        except Unreadable as error:
            raise Tampered(f"a rehearsed reply that is not data: {error}") from None
        if type(reply) is not dict:
            raise Tampered("a rehearsed reply that is not one")
        return reply

    async def _run(self, text: str, limit: float, wall: float) -> tuple[list, bool]:
        """One call: a message on the server's comm (not a cell: a tenth of the kernel's work), and its answers."""
        from queue import Empty

        from nbclient.exceptions import DeadKernelError

        client, watch = self.client, self.watch
        kc = client.kc
        if not self.opened:  # the comm the server listens on (the shell channel keeps the order of messages)
            kc.shell_channel.send(kc.session.msg("comm_open", {"comm_id": self.comm, "target_name": self.server,
                                                               "data": {}}))  # fmt: skip
            self.opened = True
        index = self.first + self.calls  # past the notebook's cells: the watch and the run name it so
        self.cells.append(index)
        watch.call_started(index, limit)
        message = kc.session.msg("comm_msg", {"comm_id": self.comm, "data": {"call": text}})
        kc.shell_channel.send(message)
        msg_id = message["header"]["msg_id"]
        answers: list = []
        deadline = self.loop.time() + wall
        interrupted = False
        while True:
            try:
                msg = await kc.get_iopub_msg(timeout=max(min(deadline - self.loop.time(), 1.0), 0.01))
            except Empty:
                if not await client.km.is_alive():
                    raise DeadKernelError("the kernel died during a call") from None
                if self.loop.time() >= deadline:
                    if interrupted:  # the interrupt did not stop it either: the run is over
                        raise DeadKernelError("a call did not stop when interrupted") from None
                    watch.stopped[index] = watch.wall(wall)
                    await client.km.interrupt_kernel()
                    interrupted, deadline = True, self.loop.time() + 30.0
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg.get("msg_type")
            if kind == "comm_msg" and msg.get("content", {}).get("comm_id") == self.comm:  # not a widget's comm
                data = msg.get("content", {}).get("data")
                answers.append(data.get("reply") if isinstance(data, dict) else None)
            elif kind == "status" and msg.get("content", {}).get("execution_state") == "idle":
                break
            elif kind in ("display_data", "update_display_data") and MIME in (msg.get("content", {}).get("data") or {}):
                self.forged = True
        watch.call_ended()
        return answers, index in watch.stopped


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

    @property
    def __globals__(self) -> dict:
        """The student's globals as ``check_select`` reads them (:class:`_Globals`)."""
        return _Globals(self)

    def __call__(self, *args: Any) -> Any:
        from ..exercises.runner import Student

        seconds, part = None, self.part
        caller = sys._getframe(1)
        if caller.f_code is Student.__call__.__code__:  # the check's own wrapper: its limit per call
            wrapper = caller.f_locals.get("self")
            seconds, part = float(wrapper.seconds), str(wrapper.part)
        key = (self.target, tuple((type(a), a) for a in args))
        plain = all(type(a) in (int, float, bool, str) for a in args)
        if plain and key in self.channel.memo:  # a function of numbers, asked again (select's check asks for
            return self.channel.memo[key]  # ucb1's values on check_ucb1's grid): the value it gave
        reply, failure = self._send({"kind": "call"}, args, seconds, part)
        if failure is not None:
            raise failure
        if plain and type(reply["result"]) in (int, float, bool, str, tuple):
            self.channel.memo[key] = reply["result"]
        return reply["result"]

    def playouts(
        self, count: int, recorder: Any, node: Any, rng: Any, start: Any, plies: int
    ) -> Iterator[tuple[Any, Any]]:
        """``simulate(recorder, node, rng)`` played ``count`` times in one call: (its result,
        ``recorder.line(start, plies)``) of each (:func:`~mctslab.course.exercises.uniformity.uniformity`),
        then what stopped them, if anything.

        Each playout has the limit per call of :data:`~mctslab.course.exercises.runner.CALL_SECONDS` in the
        kernel; the grader's own limit holds for all of them together (what is left of the check's).
        """
        from ..exercises.runner import CALL_SECONDS

        request = {"kind": "playouts", "count": int(count), "start": start, "plies": int(plies)}
        reply, failure = self._send(request, (recorder, node, rng), CALL_SECONDS, self.part, batch=True)
        done = reply.get("result") if failure is None or "result" in reply else []
        if not isinstance(done, list) or len(done) > count:
            raise Tampered("playouts sent back as something else than a list of them")
        for item in done:
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], list | bytes)):
                raise Tampered("a playout sent back as something else than its result and its line")
            yield item[0], _unpacked(item[1])
        if failure is not None:
            raise failure
        if len(done) < count:
            raise Tampered("fewer playouts sent back than asked for")

    def _send(self, request: dict, args: tuple, seconds: float | None, part: str, batch: bool = False) -> tuple:
        """Send a call of the student's function on ``args``; its reply and the exception it stopped with (or None).

        The arguments' states after the call are given back to the grader's objects first.
        """
        from ..exercises.runner import PackageCode, Unusable

        remaining = self.overall - (self.channel.cpu - self.started)
        limit = min(seconds, remaining) if seconds and not batch else remaining
        who, within = (part, seconds) if seconds and seconds <= remaining else (self.title, self.overall)
        if batch:
            who, within = self.title, self.overall
        objects = handles(args)
        request.update(target=self.target, args=args, part=part, seconds=seconds, overall=remaining, title=self.title)
        reply = exchange(self.channel, request, objects, limit, remaining, self.title, self.overall, who, within)
        if reply.get("global_random") is True:  # it drew from the kernel's module `random`: the checks' watch is told
            merge({"drew": True})
        if "unsendable" in reply:
            raise Unusable(f"what `{self.target}` returned cannot be sent to the grader: {reply['unsendable']}")
        try:
            restore(objects, reply.get("states"))
        except Unreadable as error:
            raise Tampered(str(error)) from None
        if "timeout" in reply:
            return reply, timeout(reply["timeout"], who, within)
        if "package" in reply:
            return reply, PackageCode(part)
        if "raised" in reply:
            return reply, rebuilt(reply["raised"])
        if "result" not in reply:
            raise Tampered("a reply without a result")
        return reply, None


def _unpacked(line: list | bytes) -> list:
    """A playout's line as :meth:`~mctslab.course.exercises.uniformity.Recorder.line` gives it, from
    :func:`.serve._packed`'s bytes (a list is taken as it is)."""
    if type(line) is not bytes:
        return line
    return [(line[i] - 1, line[i + 1] - 1) for i in range(0, len(line) - 1, 2)]


def _ask(channel: Any, request: dict, limit: float, wall: float) -> dict:
    """A call without objects (names, swaps): its rehearsed reply, or the kernel's."""
    reply = logged(channel, request, [])
    return reply if reply is not None else channel.call(request, [], limit, wall)[0]


class _Globals(dict):
    """What ``check_select``'s ``_reference_ucb1`` reads and writes of ``select``'s globals, in the kernel.

    ``get("ucb1")`` is the student's ``ucb1`` (a :class:`Remote`, which the check calls to see
    whether it is UCB1); setting it to anything else swaps the kernel's for UCB1 while ``select``
    is checked, and setting it back to the :class:`Remote` restores the student's.
    """

    def __init__(self, owner: Remote) -> None:
        super().__init__()
        self.owner = owner

    def get(self, name: str, default: Any = None) -> Any:
        from ..exercises.runner import CALL_SECONDS

        channel = self.owner.channel
        reply = _ask(channel, {"kind": "names", "names": [name], "target": name}, 2.0, 30.0)
        if name in (reply.get("present") or []) and reply.get("callable") is True:
            return Remote(channel, name, name, name, CALL_SECONDS)
        return default

    def __setitem__(self, name: str, value: Any) -> None:
        reference = not isinstance(value, Remote)
        _ask(self.owner.channel, {"kind": "swap", "target": self.owner.target, "name": name, "reference": reference},
             2.0, 30.0)  # fmt: skip


def check_at(where: str) -> Callable[..., Any]:
    """The check function at ``"module:function"`` (one of the package's checks, imported here)."""
    module, function = where.split(":")
    if not module.startswith("mctslab."):
        raise ValueError(f"not one of the package's checks: {where}")
    return getattr(importlib.import_module(module), function)


def judge_part(channel: Channel, part: str, check: Callable[..., Any], target: str, needs: tuple[str, ...],
               kwargs: dict, where: str | None = None) -> dict:  # fmt: skip
    """Run ``check`` here on the student's ``target`` in the kernel; the part's result, as the grader's cell gives it.

    ``where``: the check's ``"module:function"``, for the kernel to rehearse it first (:meth:`Channel.rehearse`);
    without it (or a channel that does not rehearse), every call goes to the kernel.

    Returns:
        ``{"report": ...}``, ``{"missing": ...}`` or ``{"error": ...}``, with ``part`` and ``seconds``.

    Raises:
        KernelGone: the kernel died or the run was ended during the check.
    """
    from ..exercises.runner import CHECK_SECONDS

    started = time.perf_counter()
    try:
        overall = CHECK_SECONDS.get(part) or float(getattr(sys.modules[check.__module__], "TOTAL_SECONDS", 30.0))
        before = channel.cpu  # the rehearsal's time counts in the part's
        spent = (
            where is not None
            and hasattr(channel, "rehearse")
            and channel.rehearse(part, where, target, needs, kwargs, overall)
        )
        named = _ask(channel, {"kind": "names", "names": list(needs), "target": target}, 2.0, 30.0)
        present = named.get("present")
        if not isinstance(present, list):
            raise Tampered("a reply without the names asked for")
        missing = [need for need in needs if need not in present]
        if missing:
            result: dict = {"missing": f"{', '.join(missing)} not defined"}
        elif not target.isidentifier():  # a factory of agents (check_uct's `lambda seed: MyUCT(seed=seed)`)
            from .proxy import Host

            host = Host(channel, target, f"check_{part}", overall)
            host.started = before if not spent else -math.inf
            function = host.factory()
            result = {"report": check(function, **kwargs).to_dict()}
        else:
            function: Any = Remote(channel, target, part, f"check_{part}", overall)
            function.started = before if not spent else -math.inf  # stopped at its limit: no time left
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
