"""Specs: the short strings that name a game or an agent.

A spec is a registered name with optional ``key=value`` parameters after a colon,
separated by commas: ``"tictactoe"``, ``"tictactoe:n=4,k=3"``,
``"uct:iterations=1000,c=1.414"``, ``"nim:heaps=3-4-5"``. The command line, the
tournament code and the notebooks all use them, so one parser lives here, with the one
declaration of a parameter (:class:`Param`) and the writer of a spec from declared
parameters (:func:`spec_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class SpecError(ValueError):
    """A game or agent spec that cannot be understood (unknown name, parameter or value)."""


@dataclass(frozen=True)
class Entry:
    """One registered name: how to build it and which parameters it takes.

    Attributes:
        factory: called with the converted parameters as keyword arguments.
        params: parameter name -> converter from the spec's text to a Python value.
        summary: one line shown in error messages and ``--help``.
    """

    factory: Callable[..., Any]
    params: Mapping[str, Callable[[str], Any]] = field(default_factory=dict)
    summary: str = ""


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and a dict of raw values.

    Raises:
        SpecError: if the spec is not a string or is malformed (empty name,
            a parameter without ``=``, a parameter given twice).
    """
    if not isinstance(spec, str):
        raise SpecError(f"a spec must be a string such as 'uct:iterations=1000', not {type(spec).__name__}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if not name:
        raise SpecError(f"empty name in spec {spec!r}")
    params: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise SpecError(f"malformed parameter {part!r} in spec {spec!r}: expected key=value")
        if key in params:
            raise SpecError(f"parameter {key!r} given twice in spec {spec!r}")
        params[key] = value
    return name, params


def build(spec: str, registry: Mapping[str, Entry], kind: str, **extra: Any) -> Any:
    """Build the object a spec names from ``registry``.

    Args:
        spec: the spec string.
        registry: name -> :class:`Entry`.
        kind: ``"game"`` or ``"agent"``, for error messages.
        **extra: keyword arguments passed to the factory as they are (e.g. ``seed``).

    Raises:
        SpecError: naming the known names or parameters when the spec does not fit.
    """
    name, raw = parse_spec(spec)
    if name not in registry:
        known = ", ".join(sorted(registry))
        raise SpecError(f"unknown {kind} {name!r}; known {kind}s: {known}")
    entry = registry[name]
    kwargs: dict[str, Any] = {}
    for key, text in raw.items():
        if key not in entry.params:
            known = ", ".join(sorted(entry.params)) or "none"
            raise SpecError(f"unknown parameter {key!r} for {kind} {name!r}; known parameters: {known}")
        try:
            kwargs[key] = entry.params[key](text)
        except (TypeError, ValueError) as err:
            raise SpecError(f"bad value {text!r} for parameter {key!r} of {kind} {name!r}: {err}") from None
    try:
        return entry.factory(**kwargs, **extra)
    except SpecError:
        raise
    except ValueError as err:  # a TypeError is about an extra argument (e.g. the seed): let it say so itself
        raise SpecError(f"{kind} spec {spec!r}: {err}") from None


def format_value(value: Any) -> str:
    """A parameter value as spec text: ``true``/``false``, ``4-2`` for a tuple, floats exactly.

    A float is written with ``:g`` when that reads back as the same float, else with
    ``repr`` (so ``c=1.414`` stays short and ``c=0.1 + 0.2`` still round-trips).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    if isinstance(value, (tuple, list, frozenset, set)):
        return "-".join(map(str, value))
    return str(value)


@dataclass(frozen=True)
class Param:
    """One parameter of an agent or a game: how a spec names it, reads it, checks it, writes it.

    An agent class lists its parameters in :attr:`Agent.params <mctslab.agents.base.Agent.params>`;
    :func:`mctslab.make_agent` parses a spec's ``key=value`` pairs with :attr:`parse`,
    :meth:`Agent.set_params <mctslab.agents.base.Agent.set_params>` checks and stores the values
    with :attr:`check`, and the spec is written from the stored values (:func:`spec_text`). So
    every parameter round-trips, and none is written by hand. A game declares its parameters
    the same way, to :func:`mctslab.games.register_game` (``params=(Param(...), ...)``); its
    constructor checks its arguments and holds each value under the parameter's name, and its
    spec is generated from them (:class:`mctslab.games.registry.GeneratedSpec`).

    Attributes:
        name: the keyword in the spec and in the constructor; also the attribute that
            holds the value on the agent or game.
        parse: spec text -> value (e.g. ``int``, :func:`mctslab.specs.to_bool`); raises
            ``ValueError`` on bad text.
        default: the constructor's default.
        check: ``check(name, value)`` returns the value to store (normalised) or raises
            ``TypeError`` (wrong type) or ``ValueError`` (out of range); ``None``: any value.
        doc: one line for ``--help`` and error messages.
        show: when the parameter is written into the spec: ``"changed"`` (value is not
            the default), ``"always"`` (value is not ``None``), or a predicate on the holder.
        format: value -> spec text (default :func:`format_value`).
    """

    name: str
    parse: Callable[[str], Any]
    default: Any = None
    check: Callable[[str, Any], Any] | None = None
    doc: str = ""
    show: str | Callable[[Any], bool] = "changed"
    format: Callable[[Any], str] = format_value

    def validate(self, value: Any) -> Any:
        """The value to store, checked (``None`` is left to the check: it may mean "unset")."""
        return value if self.check is None else self.check(self.name, value)

    def shown(self, holder: Any) -> bool:
        """Whether this parameter appears in the spec of ``holder`` (the agent or game holding its value)."""
        value = getattr(holder, self.name)
        if callable(self.show):
            return bool(self.show(holder))
        if self.show == "always":
            return value is not None
        return value is not None and value != self.default


def spec_text(name: str, params: tuple[Param, ...], holder: Any) -> str:
    """The spec of ``holder`` (an agent or a game): ``name`` and each shown parameter's value as it holds it.

    ``name:key=value,...`` with the parameters in declared order, each written by its
    :attr:`Param.format`; a parameter left out when not :meth:`Param.shown`.
    """
    parts = [f"{p.name}={p.format(getattr(holder, p.name))}" for p in params if p.shown(holder)]
    return name + (":" + ",".join(parts) if parts else "")


def to_bool(text: str) -> bool:
    """Convert ``true/false/yes/no/1/0`` (any case) to a bool."""
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected true or false")


def to_int_list(text: str) -> tuple[int, ...]:
    """Convert ``"3-4-5"`` to ``(3, 4, 5)``."""
    return tuple(int(part) for part in text.split("-"))
