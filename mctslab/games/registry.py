"""The game registry: every game registers itself where it is defined, and :func:`make_game` builds it.

A game file declares its spec name and parameters with the decorator::

    @register_game("hex", params={"n": int}, summary="Hex on an n x n board", test_spec="hex:n=3")
    class Hex(Game):
        def __init__(self, n: int = 5) -> None:
            ...

and nothing else needs to change: the command line, tournaments and the test suite
(which runs ``check_game``, the drawings, playouts, every agent and a tournament on
each registered game, at its :attr:`GameEntry.test_spec`) find it in :data:`GAMES`.
The function form ``register_game(name, factory, params, summary)`` does the same for a
factory that is not a class (or from a notebook).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from ..specs import Entry, build
from .base import Game


@dataclass(frozen=True)
class GameEntry(Entry):
    """One registered game: how to build it, its parameters, and a small spec for tests.

    Attributes:
        test_spec: a spec of this game small enough for the test suite to search and
            play it in a second or so (e.g. ``"connect4:rows=4,cols=5,k=3"``); ``None``
            if the game did not give one (the registry test then says where to add it).
    """

    test_spec: str | None = None


GAMES: dict[str, GameEntry] = {}
"""The registered games: spec name -> :class:`GameEntry`, in the order they were registered."""

F = TypeVar("F", bound=Callable[..., Game])


@overload
def register_game(
    name: str,
    factory: None = None,
    params: Mapping[str, Callable[[str], Any]] | None = None,
    summary: str = "",
    *,
    test_spec: str | None = None,
) -> Callable[[F], F]: ...


@overload
def register_game(
    name: str,
    factory: F,
    params: Mapping[str, Callable[[str], Any]] | None = None,
    summary: str = "",
    *,
    test_spec: str | None = None,
) -> F: ...


def register_game(
    name: str,
    factory: F | None = None,
    params: Mapping[str, Callable[[str], Any]] | None = None,
    summary: str = "",
    *,
    test_spec: str | None = None,
) -> F | Callable[[F], F]:
    """Make a game buildable by :func:`make_game` (and so by the command line and the test suite).

    Used as a class decorator, ``@register_game("hex", params={"n": int}, summary=...)``,
    or called with the factory, ``register_game("hex", Hex, {"n": int}, "...")``.
    Registering a name again replaces the earlier entry (a notebook cell run twice).

    Args:
        name: the spec name: lower case, without ``:``, ``,``, ``=`` or spaces.
        factory: a callable returning a :class:`~mctslab.games.base.Game`, taking the
            parameters as keywords (usually the game class); omitted in the decorator form.
        params: parameter name -> converter from the spec's text (e.g. ``{"n": int}``).
        summary: one line of description, shown in error messages and ``--help``.
        test_spec: a small spec of this game for the test suite (see :class:`GameEntry`).

    Returns:
        The factory itself (so the decorator leaves the class unchanged), or the decorator.

    Raises:
        ValueError: for a name that a spec cannot carry.
        TypeError: if ``factory`` is not callable.
    """
    key = name.strip().lower()
    if not key or any(ch in key for ch in ":,= "):
        raise ValueError(f"a game's name must be a word without ':', ',', '=' or spaces; got {name!r}")

    def add(made: F) -> F:
        if not callable(made):
            raise TypeError(f"register_game needs a Game class or a function returning a Game, not {made!r}")
        GAMES[key] = GameEntry(made, dict(params or {}), summary, test_spec)
        return made

    return add if factory is None else add(factory)


def make_game(spec: str | Game) -> Game:
    """Build a game from its spec, e.g. ``"tictactoe"``, ``"tictactoe:n=4,k=3"``, ``"connect4"``.

    Args:
        spec: a registered name with optional ``key=value`` parameters, or a
            :class:`~mctslab.games.base.Game` (returned as it is).

    Raises:
        mctslab.specs.SpecError: (a ``ValueError``) for an unknown game or parameter;
            the message lists what is known.
    """
    if isinstance(spec, Game):
        return spec
    return build(spec, GAMES, "game")
