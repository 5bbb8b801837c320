"""The game registry: every game registers itself where it is defined, and :func:`make_game` builds it.

A game file declares its spec name and parameters with the decorator, each parameter a
:class:`~mctslab.specs.Param` as an agent's are::

    @register_game(
        "hex",
        params=(Param("size", int, 11, doc="cells per side, 1 to 11", show="always"),),
        summary="Hex on a size x size board",
        test_spec="hex:size=3",
    )
    class Hex(Game):
        def __init__(self, size: int = 11) -> None:
            self.size = size  # each declared parameter is held under its name
            ...

and nothing else needs to change: the game's ``spec`` is generated from the values it
holds (:class:`GeneratedSpec`, by :func:`~mctslab.specs.spec_text`), never written by hand;
the command line, tournaments and the test suite (which runs ``check_game``, the drawings,
playouts, every agent and a tournament on each registered game, at its
:attr:`GameEntry.test_spec`) find it in :data:`GAMES`. The function form
``register_game(name, factory, params, summary)`` does the same for a factory that is not
a class (or from a notebook). The older form ``params={"n": int}`` (name -> converter)
still builds games whose ``spec`` their constructor writes itself (a notebook's game).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from ..specs import Entry, Param, build, spec_text
from .base import Game

Params = Sequence[Param] | Mapping[str, Callable[[str], Any]]
"""What :func:`register_game` takes as ``params``: declared :class:`~mctslab.specs.Param` s, or name -> converter."""


@dataclass(frozen=True)
class GameEntry(Entry):
    """One registered game: how to build it, its parameters, and a small spec for tests.

    Attributes:
        test_spec: a spec of this game small enough for the test suite to search and
            play it in a second or so (e.g. ``"connect4:rows=4,cols=5,k=3"``); ``None``
            if the game did not give one (the registry test then says where to add it).
        declared: the game's parameters as declared (:class:`~mctslab.specs.Param`, in spec
            order; ``()`` for a game without any), from which its spec is generated; ``None``
            for a game registered with converters only (``params={"n": int}``), which writes
            its spec itself.
    """

    test_spec: str | None = None
    declared: tuple[Param, ...] | None = None


class GeneratedSpec:
    """``game.spec`` of a game class registered with declared parameters: generated, never written by hand.

    ``spec_text(name, params, game)``: the registered name and each parameter's value as the
    game holds it (an attribute of the parameter's name), written by its
    :attr:`~mctslab.specs.Param.format` when :attr:`~mctslab.specs.Param.shown`. Computed on
    first use and kept on the game (games are immutable; equality and hashing read it).
    A subclass that sets ``self.spec`` itself overrides it (and :func:`~mctslab.check_game`
    refuses a registered game whose spec is not the generated one).
    """

    def __init__(self, name: str, params: tuple[Param, ...]) -> None:
        self.name = name
        self.params = params

    def __get__(self, game: Game | None, owner: type | None = None) -> Any:
        if game is None:
            return self
        missing = [p.name for p in self.params if not hasattr(game, p.name)]
        if missing:
            raise AttributeError(
                f"{type(game).__name__} declares the parameter {missing[0]!r} (register_game) but holds no attribute "
                f"of that name: its spec cannot be written (store each parameter as self.{missing[0]})"
            )
        text = spec_text(self.name, self.params, game)
        vars(game)["spec"] = text
        return text

    def __repr__(self) -> str:
        return f"GeneratedSpec({self.name!r}, {[p.name for p in self.params]})"


GAMES: dict[str, GameEntry] = {}
"""The registered games: spec name -> :class:`GameEntry`, in the order they were registered."""

F = TypeVar("F", bound=Callable[..., Game])


@overload
def register_game(
    name: str,
    factory: None = None,
    params: Params | None = None,
    summary: str = "",
    *,
    test_spec: str | None = None,
) -> Callable[[F], F]: ...


@overload
def register_game(
    name: str,
    factory: F,
    params: Params | None = None,
    summary: str = "",
    *,
    test_spec: str | None = None,
) -> F: ...


def register_game(
    name: str,
    factory: F | None = None,
    params: Params | None = None,
    summary: str = "",
    *,
    test_spec: str | None = None,
) -> F | Callable[[F], F]:
    """Make a game buildable by :func:`make_game` (and so by the command line and the test suite).

    Used as a class decorator, ``@register_game("hex", params=(Param("size", int, 11),), summary=...)``,
    or called with the factory, ``register_game("hex", Hex, (Param("size", int, 11),), "...")``.
    Registering a name again replaces the earlier entry (a notebook cell run twice).

    A game class registered with declared parameters (a sequence of
    :class:`~mctslab.specs.Param`, or none at all) gets its ``spec`` generated
    (:class:`GeneratedSpec`): it holds each parameter's value as an attribute of the
    parameter's name and writes no spec of its own. Game parameters are usually declared
    with ``show="always"`` (every value written, so a spec names the whole game) and no
    ``check`` (the constructor checks its arguments, whichever way it is called).

    Args:
        name: the spec name: lower case, without ``:``, ``,``, ``=`` or spaces.
        factory: a callable returning a :class:`~mctslab.games.base.Game`, taking the
            parameters as keywords (usually the game class); omitted in the decorator form.
        params: the declared parameters (:class:`~mctslab.specs.Param` s, in spec order), or,
            in the older form, parameter name -> converter from the spec's text
            (``{"n": int}``; the game then writes its own ``spec``).
        summary: one line of description, shown in error messages and ``--help``.
        test_spec: a small spec of this game for the test suite (see :class:`GameEntry`).

    Returns:
        The factory itself (so the decorator leaves the class unchanged), or the decorator.

    Raises:
        ValueError: for a name that a spec cannot carry, a parameter declared twice, or a
            class whose spec is already generated under another name.
        TypeError: if ``factory`` is not callable, or ``params`` mixes ``Param`` s with other things.
    """
    key = name.strip().lower()
    if not key or any(ch in key for ch in ":,= "):
        raise ValueError(f"a game's name must be a word without ':', ',', '=' or spaces; got {name!r}")
    declared = _declared(key, params)
    converters = dict(params) if isinstance(params, Mapping) else {p.name: p.parse for p in declared or ()}

    def add(made: F) -> F:
        if not callable(made):
            raise TypeError(f"register_game needs a Game class or a function returning a Game, not {made!r}")
        if declared is not None and isinstance(made, type) and _spec_is_generated(made):
            own = vars(made).get("spec")
            if isinstance(own, GeneratedSpec) and own.name != key:
                raise ValueError(
                    f"{made.__name__} is registered as {own.name!r} and its spec names it so: "
                    f"register a subclass as {key!r}"
                )
            made.spec = GeneratedSpec(key, declared)  # type: ignore[assignment]
        GAMES[key] = GameEntry(made, converters, summary, test_spec, declared)
        return made

    return add if factory is None else add(factory)


def _declared(name: str, params: Params | None) -> tuple[Param, ...] | None:
    """The declared parameters (``()`` for none), or ``None`` for the converters' form."""
    if isinstance(params, Mapping):
        return None
    declared = tuple(params or ())
    strays = [p for p in declared if not isinstance(p, Param)]
    if strays:
        raise TypeError(
            f"register_game({name!r}) takes params as Param(...)s or as a dict name -> converter, got {strays[0]!r}"
        )
    names = [p.name for p in declared]
    if len(set(names)) != len(names):
        raise ValueError(f"game {name!r} declares a parameter twice: {names}")
    return declared


def _spec_is_generated(cls: type) -> bool:
    """Whether the class's ``spec`` may be generated: it inherits Game's placeholder or a generated one.

    A class that writes ``spec = "..."`` in its body (or inherits such a string from an
    unregistered base) keeps it.
    """
    current = inspect.getattr_static(cls, "spec", None)
    return current is vars(Game)["spec"] or isinstance(current, GeneratedSpec)


def make_game(spec: str | Game) -> Game:
    """Build a game from its spec, e.g. ``"tictactoe"``, ``"tictactoe:n=4,k=3"``, ``"connect4"``.

    The games and their parameters: :func:`describe_games` (``python -m mctslab games``).

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


def describe_games() -> str:
    """The registered games, one block each: the name and summary, then each parameter's default and doc.

    ``connect4  Connect Four...`` followed by lines such as ``    rows=6  grid height, 1 to 16``;
    a parameter without a default shows ``name=`` (``k=`` of tic-tac-toe: ``n`` unless given),
    a game registered with converters only shows its parameters' names.
    """
    lines = []
    for name in sorted(GAMES):
        entry = GAMES[name]
        lines.append(f"{name}  {entry.summary}".rstrip())
        if entry.declared is None:
            lines.extend(f"    {key}" for key in entry.params)
            continue
        for p in entry.declared:
            default = "" if p.default is None else p.format(p.default)
            lines.append(f"    {p.name}={default}  {p.doc}".rstrip())
    return "\n".join(lines)
