"""The student's agent, in the grader's process: a proxy whose every call runs in the submission's kernel.

``check_uct`` and ``check_chance_uct`` take ``make_agent(seed)`` and call the agent it makes:
``search(game, state)``, ``select_move(game, state)``; they read and set its ``iterations`` and
``c``, and put a :class:`~mctslab.course.exercises.tree.CannedSearch` in place of its ``search``.
When the grader judges those parts (:mod:`.judge`), the check runs here and is handed
:meth:`Host.factory`: each agent it makes is a :class:`RemoteAgent`, a proxy of an agent made in
the kernel (:class:`.serve._Agents`), where every call of the student's code runs, under the
checks' limits and watches (:mod:`~mctslab.course.exercises.watches`). Each reply is read as
data (:mod:`.wire`: a tree comes back as nodes or :class:`~.wire.Record`\\ s of the student's
node class) and describes the agent after the call: its class, its attributes that are plain
values, the names it can call. So ``getattr(agent, "iterations")`` reads what the kernel said, and
a call returns what the student's method returned there; the verdicts are decided here.

A proxy's class is named as the student's class (messages name it) and says what the kernel
found: whether it is one of the package's agents (:func:`~mctslab.course.exercises.provenance.is_package_agent`).
That, like the package-code watch, is the kernel's claim, and can only fail a check.
"""

from __future__ import annotations

from typing import Any

from .replies import Tampered, exchange, rebuilt, timeout
from .wire import Unreadable, handles, restore

__all__ = ["Host", "RemoteAgent", "RemoteMethod"]

_PLAIN = (int, float, bool, str, type(None))


class Host:
    """The agents of one part, made and called in the kernel through ``channel``.

    Args:
        channel: the channel to the kernel (:class:`.judge.Channel`, or the kernel's own rehearsal).
        target: the part's factory, an expression in the student's names (``"lambda seed: MyUCT(seed=seed)"``).
        title: the check's name (``"check_uct"``): the name of its whole limit.
        overall: CPU seconds of the kernel the whole check may take.
    """

    def __init__(self, channel: Any, target: str, title: str, overall: float) -> None:
        self.channel = channel
        self.target = target
        self.title = title
        self.overall = overall
        self.started = channel.cpu
        self.kinds: dict[tuple, type] = {}

    def factory(self) -> RemoteFactory:
        """``make_agent(seed)`` for the check: each call makes an agent in the kernel."""
        return RemoteFactory(self)

    def send(self, request: dict, args: tuple, attached: list[Any], part: str, seconds: float | None) -> dict:
        """One call of the student's code: its reply (the arguments' and ``attached``'s new states applied).

        Raises:
            the exception the student's code raised (rebuilt), or the time limit that stopped it.
            Tampered: a reply that is not the server's.
        """
        from ..exercises.watches import merge, names

        remaining = self.overall - (self.channel.cpu - self.started)
        limit = min(seconds, remaining) if seconds else remaining
        who, within = (part, seconds) if seconds and seconds <= remaining else (self.title, self.overall)
        objects = handles((args, attached))
        request.update(target=self.target, args=args, part=part, seconds=seconds,
                       overall=remaining, title=self.title, watches=names())  # fmt: skip
        reply = exchange(self.channel, request, objects, limit, remaining, self.title, self.overall, who, within)
        if "unsendable" in reply:
            from ..exercises.runner import Unusable

            raise Unusable(f"what your agent's `{request.get('method', 'make_agent')}` returned cannot be sent to "
                           f"the grader: {reply['unsendable']}")  # fmt: skip
        try:
            restore(objects, reply.get("states"))
        except Unreadable as error:
            raise Tampered(str(error)) from None
        seen = reply.get("watches")
        if type(seen) is not dict or not all(type(k) is str and type(v) is list for k, v in seen.items()):
            raise Tampered("a reply without what its watches saw")
        merge(seen)
        if "timeout" in reply:
            error = timeout(reply["timeout"], who, within)
            counted = reply.get("counted")
            numbers = (int, float, type(None))
            if type(counted) is tuple and len(counted) == 2 and all(type(x) in numbers for x in counted):
                error.playouts, error.stalled = counted
            raise error
        if "raised" in reply:
            raise rebuilt(reply["raised"])
        return reply

    def agent(self, reply: dict) -> RemoteAgent:
        """The proxy of the agent a ``make`` reply names."""
        handle = reply.get("made")
        if type(handle) is not int or handle < 0:
            raise Tampered("an agent sent back without its number")
        agent = object.__new__(self._kind(reply))
        vars(agent).update(_remote=(self, handle, {}))
        _update(agent, reply)
        return agent

    def _kind(self, reply: dict) -> type:
        """The proxy class for the student's class (named as it; one per class)."""
        about = _checked(reply.get("described"))
        key = (*about["kind"], about["package"], about["package_class"])
        if key not in self.kinds:
            module, qualname = about["kind"]
            self.kinds[key] = type(qualname.rsplit(".", 1)[-1] or "Agent", (RemoteAgent,), {
                "__module__": module, "__qualname__": qualname, "package_agent": about["package"],
                "package_class": about["package_class"]})  # fmt: skip
        return self.kinds[key]


def _checked(about: Any) -> dict:
    """A description of an agent (:func:`.serve.described`), checked to be one.

    Raises:
        Tampered: anything else.
    """
    try:
        kind, attrs, callables = about["kind"], about["attrs"], about["callables"]
        ok = (
            type(about) is dict
            and type(kind) is tuple and len(kind) == 2 and all(type(k) is str and k for k in kind)
            and type(attrs) is dict and all(type(k) is str and type(v) in _PLAIN for k, v in attrs.items())
            and type(callables) is list and all(type(k) is str for k in callables)
            and type(about["package"]) is bool
            and (about["package_class"] is None or type(about["package_class"]) is str)
        )  # fmt: skip
    except (KeyError, TypeError):
        ok = False
    if not ok:
        raise Tampered("an agent described in a way the server does not")
    return about


def _update(agent: RemoteAgent, reply: dict) -> None:
    about = _checked(reply.get("described"))
    host, handle, _ = vars(agent)["_remote"]
    vars(agent)["_remote"] = (host, handle, {"attrs": about["attrs"], "callables": frozenset(about["callables"])})
    vars(agent).setdefault("_attached", [])


class RemoteFactory:
    """``make_agent(seed)``: an agent made in the kernel by the part's factory (a :class:`RemoteAgent`)."""

    __name__ = "make_agent"

    def __init__(self, host: Host) -> None:
        self.host = host

    def __call__(self, *args: Any) -> RemoteAgent:
        return self.served_call("make_agent", None, *args)

    def served_call(self, part: str, seconds: float | None, *args: Any) -> RemoteAgent:
        """The call under the check's limit per call, ``seconds`` (counted in the kernel)."""
        return self.host.agent(self.host.send({"kind": "make"}, args, [], part, seconds))


class RemoteAgent:
    """An agent made in the kernel: its plain attributes as the kernel last said, its methods called there.

    Setting an attribute sets it on the kernel's agent; of an object set so (a canned ``search``),
    the kernel keeps its copy with the agent, and sends back its state with each later call.
    """

    package_agent = False
    package_class: str | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or "_remote" not in vars(self):
            raise AttributeError(name)
        _, _, about = vars(self)["_remote"]
        if name in about["callables"]:
            return RemoteMethod(self, name)
        if name in about["attrs"]:
            return about["attrs"][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        host, handle, _ = vars(self)["_remote"]
        attached = vars(self)["_attached"]
        reply = host.send({"kind": "setattr", "agent": handle, "name": name}, (value,), attached, name, 2.0)
        if type(value) not in _PLAIN:  # the kernel keeps its copy with the agent: its state comes back with each call
            attached.append(value)
        _update(self, reply)

    def __repr__(self) -> str:
        return f"<{type(self).__qualname__} object in the kernel>"


class RemoteMethod:
    """A method of a :class:`RemoteAgent`, called in the kernel."""

    def __init__(self, agent: RemoteAgent, name: str) -> None:
        self.agent = agent
        self.__name__ = name

    def __call__(self, *args: Any) -> Any:
        return self.served_call(self.__name__, None, *args)

    def served_call(self, part: str, seconds: float | None, *args: Any) -> Any:
        """The call under the check's limit per call, ``seconds``, for ``part`` (counted in the kernel)."""
        host, handle, _ = vars(self.agent)["_remote"]
        request = {"kind": "method", "agent": handle, "method": self.__name__}
        reply = host.send(request, args, vars(self.agent)["_attached"], part, seconds)
        if "result" not in reply:
            raise Tampered("a reply without a result")
        _update(self.agent, reply)
        return reply["result"]
