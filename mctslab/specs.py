"""Specs: the short strings that name a game or an agent.

A spec is a registered name with optional ``key=value`` parameters after a colon,
separated by commas: ``"tictactoe"``, ``"tictactoe:n=4,k=3"``,
``"uct:iterations=1000,c=1.414"``, ``"nim:heaps=3-4-5"``. The command line, the
tournament code and the notebooks all use them, so one parser lives here.
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
