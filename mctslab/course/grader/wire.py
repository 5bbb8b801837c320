"""What crosses between the grader and a submission's kernel: calls in, values out, never code or verdicts.

The grader (:mod:`.judge`) calls the student's functions in the kernel (:mod:`.serve`): a call
goes in as a pickle of its arguments, which the kernel trusts (it comes from the grader). What
comes back is read by :func:`decode_reply` with :class:`Restricted`, an unpickler that builds
only the classes of :func:`allowed` (builtins' containers and numbers, ``random.Random``, numpy
numbers and arrays, the course's :class:`~mctslab.course.exercises.tree.TreeNode` and the games'
classes) and calls no constructor but those of :data:`REDUCIBLE`: whatever the kernel sends is
data. A value the kernel cannot send as such (a generator, a class of the student's) comes back
as an :class:`Opaque`, which shows the kernel's ``repr`` of it and is nothing else.

Mutation is returned: the objects of the arguments that can change (nodes, lists, dicts, sets,
an rng: :func:`handles`) are numbered before the call; the kernel sends back each one's state
after the call, and any reference to one of them (a ``select`` returning a node of the tree it
was given, a new child whose ``parent`` is the node expanded) as its number, so that the
grader applies the new states to its own objects (:func:`restore`) and a node returned *is*
the grader's node (``got is path[1]``).
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import io
import pickle
import random
import sys
from array import array
from collections import deque
from types import BuiltinMethodType, MethodType
from typing import Any

__all__ = [
    "Opaque",
    "Restricted",
    "Unreadable",
    "allowed",
    "decode_bytes",
    "decode_reply",
    "handles",
    "reply_bytes",
    "request_key",
    "restore",
]

MAX_REPLY = 16 << 20
"""Bytes of a reply at most (a tree of a few thousand nodes is well under 1 MB)."""

_BUILTINS = frozenset(
    {"list", "dict", "set", "frozenset", "tuple", "int", "float", "str", "bytes", "bool", "complex", "NoneType"}
)
_NUMPY = {
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
}
_COURSE = {
    ("mctslab.course.exercises.tree", "TreeNode"),
    ("mctslab.course.exercises.tree", "ArmsGame"),
    ("mctslab.course.exercises.tree", "CannedSearch"),
    ("mctslab.course.exercises.chance_game", "DiceState"),
    ("mctslab.course.exercises.chance_game", "LoadedDice"),
    ("mctslab.course.exercises.chance_game", "WatchedDice"),
    ("fractions", "Fraction"),
    ("mctslab.course.exercises.uniformity", "Recorder"),
    ("mctslab.course.exercises.expansion", "_CachingGame"),
    ("mctslab.course.grader.wire", "Opaque"),
    ("mctslab.course.grader.wire", "Record"),
    ("mctslab.course.grader.wire", "_new"),
    ("mctslab.course.grader.wire", "_set_fields"),
    ("random", "Random"),
    ("collections", "deque"),
}
_GAMES = "mctslab.games."

REDUCIBLE = {("builtins", "complex"), ("builtins", "set"), ("builtins", "frozenset"), ("random", "Random"),
             ("fractions", "Fraction"),
             ("collections", "deque"), ("mctslab.course.grader.wire", "Opaque"),
             ("mctslab.course.grader.wire", "Record"), ("mctslab.course.grader.wire", "_new"),
             ("mctslab.course.grader.wire", "_set_fields")} | _NUMPY  # fmt: skip
"""The callables a reply may call while it is read (pickle's ``REDUCE``): their arguments are data and
they do nothing but build a value. Any other class is built without calling its ``__init__``."""


class Unreadable(ValueError):
    """A reply the grader cannot read as data: too large, malformed, or naming a class it does not build."""


class Opaque:
    """A value the kernel could not send as data; it shows the kernel's ``repr`` of it and is nothing else."""

    def __init__(self, text: str = "") -> None:
        self.text = str(text)[:300]

    def __repr__(self) -> str:
        return self.text


class Record:
    """An object of a class of the student's, as its attributes alone (data: none of its methods).

    A student's own node class comes back from ``expand`` as a record of its fields, so that the
    checks read its ``parent``, ``children``... as they read a :class:`~mctslab.course.exercises.TreeNode`'s.
    """

    def __init__(self, kind: str = "object") -> None:
        self.__dict__["_kind"] = str(kind)[:100]

    def __setstate__(self, state: Any) -> None:
        if type(state) is not dict or not all(type(k) is str for k in state):
            raise Unreadable("a record's fields are not named by strings")
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"<{self.__dict__.get('_kind', 'object')} object>"


def allowed(module: str, name: str) -> bool:
    """Whether a reply may hold the class (or call the function) ``module.name``."""
    if module == "builtins":
        return name in _BUILTINS
    if (module, name) in _NUMPY or (module, name) in _COURSE:
        return True
    return module.startswith(_GAMES) and name.isidentifier() and not name.startswith("_")


_NODES = {
    ("mctslab.course.exercises.tree", "TreeNode"),
    ("mctslab.course.exercises.tree", "CannedSearch"),
    ("mctslab.course.exercises.chance_game", "WatchedDice"),
    ("mctslab.course.exercises.uniformity", "Recorder"),
    ("mctslab.course.exercises.expansion", "_CachingGame"),
}


def _new(module: str, name: str) -> Any:
    """An empty node of class ``module.name`` (one of the course's): its fields follow (:func:`_set_fields`).

    The checks' wrapped games (``Recorder``, ``_CachingGame``) pass unknown attributes to the game
    they wrap, so pickle's own way (look up ``__setstate__`` on the empty object) would recurse.
    """
    if (module, name) not in _NODES:
        raise Unreadable(f"not a node class: {module}.{name}")
    return object.__new__(getattr(importlib.import_module(module), name))


def _set_fields(obj: Any, fields: Any) -> None:
    """Give an empty node from :func:`_new` its fields."""
    if type(fields) is not dict or not all(type(k) is str for k in fields):
        raise Unreadable("a node's fields are not named by strings")
    vars(obj).update(fields)


def _fields(obj: Any) -> dict:
    """A node's fields, but the bound methods a wrapped game caches among them (``Recorder.__getattr__``)."""
    return {k: v for k, v in vars(obj).items() if not isinstance(v, MethodType | BuiltinMethodType)}


def _node_reduce(obj: Any) -> tuple:
    kind = type(obj)
    return _new, (kind.__module__, kind.__qualname__), _fields(obj), None, None, _set_fields


def _game(spec: str) -> Any:
    """The game ``spec`` names, made afresh (a call's game, sent as its spec: :func:`_game_reduce`)."""
    from ...games import make_game

    return make_game(spec)


_FRESH: dict[tuple[type, str], Any] = {}


def _game_reduce(obj: Any) -> tuple | None:
    """A registered game of the package as its spec, when ``make_game(spec)`` makes it as it is; else None.

    A tic-tac-toe game is 7 kB of tables pickled, and a check sends one with each of its 2,000 calls
    of an agent: as its spec, a few bytes, which the kernel makes again (2 microseconds).
    """
    from ...games.base import Game

    if not isinstance(obj, Game) or not type(obj).__module__.startswith("mctslab.games."):
        return None
    spec = getattr(obj, "spec", None)
    if type(spec) is not str:
        return None
    key = (type(obj), spec)
    if key not in _FRESH:
        try:
            fresh = _game(spec)
        except Exception:  # noqa: BLE001 - a spec that does not make a game: pickled as it is
            fresh = None
        _FRESH[key] = fresh if type(fresh) is type(obj) and fresh == obj else None
    fresh = _FRESH[key]
    if fresh is None or vars(obj).keys() != vars(fresh).keys():  # an attribute set on it: pickled as it is
        return None
    return _game, (spec,)


class _Caller(pickle.Pickler):
    """The grader's pickler of a call: nodes as :func:`_node_reduce` says, the package's games by spec."""

    def reducer_override(self, obj: Any) -> Any:
        if _is_node(obj) and type(obj) is not Record:
            return _node_reduce(obj)
        return _game_reduce(obj) or NotImplemented


def _type_allowed(kind: type) -> bool:
    return allowed(kind.__module__, kind.__qualname__)


class Restricted(pickle._Unpickler):  # the Python unpickler: its dispatch table can be narrowed
    """Reads a reply: only :func:`allowed` classes, only :data:`REDUCIBLE` calls; persistent ids are handles."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, data: bytes, handles: list[Any]) -> None:
        super().__init__(io.BytesIO(data))
        self.handles = handles

    def find_class(self, module: str, name: str) -> Any:
        if not allowed(module, name):
            raise Unreadable(f"a reply may not hold {module}.{name}")
        if module == "builtins" and name == "NoneType":
            return type(None)
        if module.startswith(_GAMES) and not module.removeprefix(_GAMES).replace(".", "_").isidentifier():
            raise Unreadable(f"no module {module}")
        found = getattr(importlib.import_module(module), name, None)
        if found is None or (module.startswith(_GAMES) and not isinstance(found, type)):
            raise Unreadable(f"a reply may not hold {module}.{name}")
        if isinstance(found, type) and issubclass(found, BaseException):
            raise Unreadable("a reply may not build an exception")
        return found

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is not int or not 0 <= pid < len(self.handles):
            raise Unreadable(f"a reply named no object of the call: {pid!r}")
        return self.handles[pid]

    def load_reduce(self) -> None:
        args = self.stack[-1]
        func = self.stack[-2]
        where = (getattr(func, "__module__", None), getattr(func, "__qualname__", None))
        if where not in REDUCIBLE:
            raise Unreadable(f"a reply may not call {where[0]}.{where[1]}")
        if type(args) is not tuple:
            raise Unreadable("a reply called something with arguments that are not a tuple")
        super().load_reduce()

    dispatch[pickle.REDUCE[0]] = load_reduce


_MUTABLE = (list, dict, set, deque, random.Random)


def _is_node(obj: Any) -> bool:
    kind = type(obj)
    return kind is Record or (kind.__module__, kind.__qualname__) in _NODES


def handles(value: Any) -> list[Any]:
    """The objects reachable from ``value`` that a call may change: nodes, lists, dicts, sets, deques, rngs.

    Numbered in the order found; the kernel numbers the same objects the same way (it walks
    its copy of ``value``), so a number names one object on both sides.
    """
    out: list[Any] = []
    seen: set[int] = set()
    stack = [value]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        if isinstance(obj, tuple | frozenset):
            seen.add(id(obj))
            stack.extend(reversed(list(obj)))
            continue
        if not (isinstance(obj, _MUTABLE) or _is_node(obj)):
            continue
        seen.add(id(obj))
        out.append(obj)
        if isinstance(obj, dict):
            stack.extend(reversed([x for kv in obj.items() for x in kv]))
        elif isinstance(obj, list | deque):
            stack.extend(reversed(obj))
        elif isinstance(obj, set):
            stack.extend(obj)  # a set of nodes is unusual; its order is the kernel's too (same hashes)
        elif _is_node(obj):
            stack.extend(reversed(list(vars(obj).values())))
    return out


def state_of(obj: Any) -> Any:
    """What :func:`restore` needs to make the grader's copy of ``obj`` what the kernel's became."""
    if isinstance(obj, random.Random):
        return _packed_rng(obj.getstate())
    if isinstance(obj, dict):
        return dict(obj)
    if isinstance(obj, set):
        return set(obj)
    if isinstance(obj, list | deque):
        return list(obj)
    return _fields(obj)


def _packed_rng(state: Any) -> Any:
    """An rng's state with its 625 words as bytes: one item of a pickle to read, not 625."""
    version, words, gauss = state
    return version, array("I", words).tobytes(), gauss


def _unpacked_rng(state: Any) -> Any:
    """What ``random.Random.setstate`` takes, from :func:`_packed_rng` (checked there: any other is refused)."""
    version, words, gauss = state
    if type(words) is not bytes:
        raise TypeError("an rng's words are not bytes")
    unpacked = array("I")
    unpacked.frombytes(words)
    return version, tuple(unpacked), gauss


def restore(objects: list[Any], states: Any) -> None:
    """Give each of ``objects`` (the call's :func:`handles`) its state after the call.

    Raises:
        Unreadable: ``states`` does not fit the objects (a reply that was not the server's).
    """
    if type(states) is not list or len(states) != len(objects):
        raise Unreadable("the states sent back do not match the call's objects")
    for obj, state in zip(objects, states, strict=True):
        try:
            if isinstance(obj, random.Random):
                obj.setstate(_unpacked_rng(state))
            elif isinstance(obj, dict) and type(state) is dict:
                obj.clear()
                obj.update(state)
            elif isinstance(obj, set) and type(state) is set:
                obj.clear()
                obj.update(state)
            elif isinstance(obj, list | deque) and type(state) is list:
                obj.clear()
                obj.extend(state)
            elif _is_node(obj) and type(state) is dict and all(type(k) is str for k in state):
                vars(obj).clear()
                vars(obj).update(state)
            else:
                raise Unreadable(f"a {type(state).__name__} sent back for a {type(obj).__name__}")
        except (TypeError, ValueError) as error:
            raise Unreadable(f"a state sent back does not fit: {error}") from None


def encode(value: Any) -> str:
    """A call as text (the grader's pickle: the kernel trusts the grader)."""
    buffer = io.BytesIO()
    _Caller(buffer, protocol=4).dump(value)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def decode_call(text: str) -> Any:
    """The kernel's side of :func:`encode`."""
    return pickle.loads(base64.b64decode(text))  # noqa: S301 - written by the grader, which the kernel trusts


class _Sender(pickle.Pickler):
    """The kernel's pickler: the call's objects by number, anything a reply may not hold as an :class:`Opaque`."""

    def __init__(self, file: io.BytesIO, objects: list[Any]) -> None:
        super().__init__(file, protocol=4)
        self.numbers = {id(obj): k for k, obj in enumerate(objects)}
        self.objects = objects

    def persistent_id(self, obj: Any) -> int | None:
        k = self.numbers.get(id(obj))
        return k if k is not None and self.objects[k] is obj else None

    def reducer_override(self, obj: Any) -> Any:
        if _is_node(obj) and type(obj) is not Record:
            return _node_reduce(obj)
        if isinstance(obj, type):  # a class, saved by name: one a reply may hold, or numpy's own
            if _type_allowed(obj) or obj.__module__.split(".")[0] == "numpy":
                return NotImplemented
            return Opaque, (_shown(obj),)
        kind = type(obj)
        if kind.__module__.split(".")[0] == "numpy" and not callable(obj):
            return NotImplemented  # numbers, arrays, dtypes (an object array's items come through here too)
        if callable(obj) and not isinstance(obj, random.Random) and not _is_node(obj):
            if (getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)) in REDUCIBLE:
                return NotImplemented  # numpy's scalar and _reconstruct, saved by name
            return Opaque, (_shown(obj),)
        if not _type_allowed(kind):
            fields = _student_fields(obj)
            if fields is not None:
                return Record, (kind.__qualname__,), fields  # a student's own object: its fields, as data
            return Opaque, (_shown(obj),)
        return NotImplemented


_READ = ("children", "visits", "wins", "move", "parent", "state", "untried", "player")
"""The fields of a node the checks read: kept in a record when the student's class computes them (properties)."""


def _student_fields(obj: Any) -> dict | None:
    """An object of a student's class as its fields: its ``__dict__``, its slots, and the properties of :data:`_READ`.

    None when it has no fields named by strings (a value of a C type, say).
    """
    fields = getattr(obj, "__dict__", None)
    out = dict(fields) if type(fields) is dict else {}
    kind = type(obj)
    for klass in kind.__mro__:
        slots = vars(klass).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if isinstance(name, str) and name not in out and name not in ("__dict__", "__weakref__"):
                try:
                    out[name] = getattr(obj, name)
                except AttributeError:  # a slot never set
                    pass
    for name in _READ:
        if name not in out and isinstance(getattr(kind, name, None), property):
            try:
                out[name] = getattr(obj, name)
            except Exception:  # noqa: BLE001 - a property that raises: as if absent
                pass
    if not out and type(fields) is not dict:
        return None
    return out if all(type(k) is str for k in out) else None


def _shown(obj: Any) -> str:
    try:
        return repr(obj)[:300]
    except Exception:  # noqa: BLE001 - a student's __repr__ that raises
        return f"<{type(obj).__name__} object>"


def reply_bytes(reply: Any, objects: list[Any]) -> bytes:
    """The kernel's reply as a pickle: ``objects`` (the call's handles, the kernel's copies) by number."""
    buffer = io.BytesIO()
    try:
        _Sender(buffer, objects).dump(reply)
    except Exception as error:  # noqa: BLE001 - what the student returned cannot be pickled at all
        buffer = io.BytesIO()
        _Sender(buffer, []).dump({"id": reply.get("id"), "unsendable": _shown(error), "states": None})
    return buffer.getvalue()


def encode_reply(reply: Any, objects: list[Any]) -> str:
    """The kernel's reply as text (:func:`reply_bytes`)."""
    return base64.b64encode(reply_bytes(reply, objects)).decode("ascii")


_VOLATILE = frozenset({"id", "overall"})  # a call's number and the CPU time left: not what is asked


def request_key(request: dict) -> str:
    """What a call asks (its kind, function, arguments as they are now, limit per call...), as a digest.

    Computed by the grader and by the kernel's rehearsal (:class:`.serve.Rehearsal`) with the
    same pickler, so that the same call on equal arguments has the same key on both sides.
    """
    buffer = io.BytesIO()
    _Caller(buffer, protocol=4).dump({k: _interned(v) for k, v in request.items() if k not in _VOLATILE})
    return hashlib.sha256(buffer.getvalue()).hexdigest()


def _interned(value: Any) -> Any:
    """``value`` with its names interned: a pickle shares equal strings only when they are one object (a
    name the grader took from its catalogue, the kernel from the call it was sent), which must not matter."""
    if type(value) is str:
        return sys.intern(value)
    if type(value) in (list, tuple) and all(type(v) is str for v in value):
        return type(value)(sys.intern(v) for v in value)
    return value


def decode_reply(text: Any, objects: list[Any]) -> Any:
    """A reply read as data (:class:`Restricted`); references to the call's objects are ``objects``.

    Raises:
        Unreadable: not text, too large, or not a reply the grader builds.
    """
    if not isinstance(text, str) or len(text) > MAX_REPLY:
        raise Unreadable("a reply that is not text, or too large")
    try:
        data = base64.b64decode(text.encode("ascii"), validate=True)
    except Exception as error:  # noqa: BLE001 - not base64
        raise Unreadable(f"a reply that is not a value: {type(error).__name__}") from None
    return decode_bytes(data, objects)


def decode_bytes(data: Any, objects: list[Any]) -> Any:
    """A reply's pickle (:func:`reply_bytes`) read as data (:class:`Restricted`), as :func:`decode_reply`.

    Raises:
        Unreadable: not bytes, too large, or not a reply the grader builds.
    """
    if type(data) is not bytes or len(data) > MAX_REPLY:
        raise Unreadable("a reply that is not bytes, or too large")
    try:
        return Restricted(data, objects).load()
    except Unreadable:
        raise
    except Exception as error:  # noqa: BLE001 - a malformed pickle fails in many ways
        raise Unreadable(f"a reply that is not a value: {type(error).__name__}") from None
