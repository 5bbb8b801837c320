"""Adapters: what a game gives one consumer beyond its rules, registered beside the game.

The rules (:class:`~mctslab.games.base.Game`) are what every agent needs. Other consumers need
more, each its own part, optional, written in the game's own file and registered for its class:

* ``"drawing"`` (the tree drawings and the play board, :mod:`mctslab.viz`):
  :class:`~mctslab.games.hooks.Drawing`, registered with :func:`~mctslab.games.hooks.register_drawing`,
  looked up with :func:`~mctslab.games.hooks.drawing`;
* ``"network"`` (a policy-value network, :mod:`mctslab.nets` and :mod:`mctslab.alphazero`):
  :class:`~mctslab.games.network.NetworkEncoding`, :func:`~mctslab.games.network.register_network`,
  :func:`~mctslab.games.network.network_encoding`;
* ``"compiled"`` (the compiled engine, :mod:`mctslab.engine`):
  :class:`~mctslab.games.compiled.CompiledEncoding`, :func:`~mctslab.games.compiled.register_compiled`,
  :func:`~mctslab.games.compiled.compiled_encoding`.

An adapter is a class built from the game (``Adapter(game)``; ``self.game`` is the game). It is
registered for a game class and serves its subclasses too, unless they register their own (Fractio
draws as Ultimate tic-tac-toe does). :func:`mctslab.check_game` checks each adapter a game has.
A game class may not define an adapter's methods itself (:func:`adapter_names_defined_by`): they
would be silently ignored by the consumers, which ask the adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

__all__ = ["Adapter", "MissingAdapterError", "adapter_names_defined_by", "find_adapter", "register_adapter"]


class MissingAdapterError(ValueError):
    """A consumer asked a game for an adapter the game has not registered; the message names it and how to add it."""


class Adapter:
    """The base of every adapter: built from the game it serves.

    Attributes:
        game: the game (a :class:`~mctslab.games.base.Game`).
        concern: the consumer's name, ``"drawing"``, ``"network"`` or ``"compiled"`` (set by each base class).
        names: the public names of the concern, which a game class must not define itself.
    """

    concern: ClassVar[str] = ""
    names: ClassVar[tuple[str, ...]] = ()

    def __init__(self, game: Any) -> None:
        self.game = game

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game!r})"


A = TypeVar("A", bound=type[Adapter])

_REGISTERED: dict[str, dict[type, type[Adapter]]] = {}
"""concern -> game class -> the adapter class registered for it."""

_FOUND: dict[tuple[str, type], type[Adapter] | None] = {}
"""``(concern, game class)`` -> the adapter class that serves it (through the class's bases), cached."""

BASES: dict[str, type[Adapter]] = {}
"""concern -> its adapter base class (each base registers itself with :func:`concern_base`)."""


def concern_base(cls: A) -> A:
    """Declare ``cls`` the base class of the adapters of its :attr:`Adapter.concern` (a class decorator)."""
    BASES[cls.concern] = cls
    _REGISTERED.setdefault(cls.concern, {})
    return cls


def register_adapter(concern: str, game_class: type) -> Callable[[A], A]:
    """A class decorator registering an adapter of ``concern`` for ``game_class`` (and its subclasses).

    Registering again for the same class replaces the earlier adapter (a notebook cell run twice).

    Args:
        concern: ``"drawing"``, ``"network"`` or ``"compiled"``.
        game_class: the game's class.

    Raises:
        ValueError: for an unknown concern.
        TypeError: if ``game_class`` is not a class, or the adapter does not subclass the concern's base.
    """
    if concern not in BASES:
        raise ValueError(f"unknown adapter concern {concern!r}; known: {', '.join(sorted(BASES))}")
    if not isinstance(game_class, type):
        raise TypeError(f"register an adapter for a game class, not {game_class!r}")

    def add(adapter: A) -> A:
        if not (isinstance(adapter, type) and issubclass(adapter, BASES[concern])):
            raise TypeError(f"a {concern} adapter subclasses {BASES[concern].__name__}, got {adapter!r}")
        _REGISTERED[concern][game_class] = adapter
        _FOUND.clear()
        return adapter

    return add


def adapter_class(concern: str, game_class: type) -> type[Adapter] | None:
    """The adapter class registered for ``game_class`` or its nearest base, or ``None``."""
    key = (concern, game_class)
    if key not in _FOUND:
        registered = _REGISTERED[concern]
        _FOUND[key] = next((registered[c] for c in game_class.__mro__ if c in registered), None)
    return _FOUND[key]


def find_adapter(concern: str, game: Any) -> Adapter | None:
    """The adapter of ``concern`` for ``game``, or ``None`` (a new one each call: it holds nothing but the game)."""
    found = adapter_class(concern, type(game))
    return None if found is None else found(game)


def required_adapter(concern: str, game: Any, missing: Callable[[Any], str]) -> Adapter:
    """The adapter of ``concern`` for ``game``.

    Raises:
        MissingAdapterError: (a ``ValueError``, one line) for a game without one: ``missing(game)``, which names
            the game and what to register.
    """
    found = find_adapter(concern, game)
    if found is None:
        raise MissingAdapterError(missing(game))
    return found


def adapter_names_defined_by(game_class: type) -> dict[str, str]:
    """The adapters' names that ``game_class`` defines in its own body: name -> concern (empty when it is right)."""
    own = vars(game_class)
    return {name: base.concern for base in BASES.values() for name in base.names if name in own}
