"""The compiled rules a game may bring to the compiled engine (:mod:`mctslab.engine`): the interface.

A game that the compiled engine can search registers a :class:`CompiledEncoding` beside it, in its
own file (:func:`register_compiled`), whose :meth:`~CompiledEncoding.compiled` returns a
:class:`CompiledGame` and whose :meth:`~CompiledEncoding.compiled_state` encodes its positions; the
engine asks :func:`compiled_rules` and :func:`compiled_encoding`. Nothing here needs Numba: the record names
a function (``rules``) that builds the game's Numba-compiled functions when the engine first
asks for them, so importing a game never imports Numba.

**A position** is an int64 vector ``st`` of :attr:`CompiledGame.fields` entries:

* ``st[0]``: the result, :data:`ONGOING` (-1) while playing, 0 if player 0 won, 1 if player 1
  won, :data:`DRAWN` (2) for a draw (the terminal test and the winner);
* ``st[1]``: the player to move (0 or 1);
* ``st[2:]``: the game's own fields.

**The rules** (``rules()`` returns an object with these three attributes, each compiled with
``numba.njit(inline="always")``; :mod:`mctslab.games._jit` has the random draw they use):

* ``legal(prm, tab, st, out) -> n``: write the legal moves of ``st`` (not over) into ``out``,
  ascending, and return their number (at most :attr:`CompiledGame.max_moves`);
* ``apply(prm, tab, st, move)``: play ``move`` in ``st``, in place: the stone, the result
  (``st[0]``) and the player to move (``st[1]``);
* ``rollout(prm, tab, st, buf, limit, played, mark) -> result``: play uniformly random moves
  from ``st`` (not over; changed) until the game ends or ``limit`` moves were played (a draw);
  return the result. ``buf``: scratch of :attr:`CompiledGame.max_moves` int64. When ``mark``
  is true, set ``played[p, m] = 1`` for every move ``m`` player ``p`` plays (RAVE's table);
  else never write it (``mark`` is a constant at each call: the branch is compiled away). It
  draws with ``mctslab.games._jit.rand()`` (one draw per choice among ``n`` moves:
  ``int(rand() * n)``), so a seeded search repeats.

``prm`` and ``tab`` are the game's constant int64 arrays (:attr:`CompiledGame.prm`,
:attr:`CompiledGame.tab`), whatever the game needs (sizes, winning lines...). Moves are the
game's own moves, ints in ``range(max_moves)``. :func:`mctslab.check_game` plays random games
with the compiled rules in lock step with the Python rules (legal moves, results, winners) and
checks the declared sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .adapters import Adapter, concern_base, find_adapter, register_adapter, required_adapter

__all__ = [
    "COMPILED_CHECKS", "DRAWN", "ONGOING", "CompiledCheck", "CompiledEncoding", "CompiledGame", "NoCompiledEncoding",
    "capacity_fault",
    "compiled_encoding", "compiled_rules", "register_compiled", "register_compiled_check",
]  # fmt: skip

ONGOING, DRAWN = -1, 2
"""``st[0]`` while the game goes on, and for a draw (a win: the winner's number, 0 or 1)."""


@dataclass(frozen=True, eq=False)
class CompiledGame:
    """A game's compiled rules for the compiled engine: the functions, their tables and the sizes they need.

    Attributes:
        rules: a function of no arguments (cached: one result per process) returning the
            object with the Numba-compiled ``legal``, ``apply`` and ``rollout`` (see the module).
            The engine compiles one search per ``rules`` function (cached by Numba on disk, keyed
            by the source of the module that defines it), whatever the game's parameters.
        prm: int64 vector of the game's constants, passed to every rule.
        tab: int64 table (2-D) of the game's constants, passed to every rule.
        fields: entries of a position vector (``len(compiled_encoding(game).compiled_state(state))``), 2 + the
            game's own.
        max_moves: the most legal moves of any position; every move is in ``range(max_moves)``.
        max_plies: the most moves of any game from the initial position (the tree's depth).
    """

    rules: Callable[[], Any]
    prm: np.ndarray
    tab: np.ndarray
    fields: int
    max_moves: int
    max_plies: int

    def __post_init__(self) -> None:
        for name in ("prm", "tab"):
            value = np.ascontiguousarray(getattr(self, name), dtype=np.int64)
            if value.ndim != (1 if name == "prm" else 2):
                raise ValueError(f"CompiledGame.{name} must be {'1' if name == 'prm' else '2'}-D, got {value.ndim}-D")
            value.setflags(write=False)
            object.__setattr__(self, name, value)


@concern_base
class CompiledEncoding(Adapter):
    """A game's compiled rules for the compiled engine, registered beside the game (:func:`register_compiled`).

    Subclasses give :meth:`compiled` (the :class:`CompiledGame`, or ``None`` for parameters the compiled rules
    cannot hold) and :meth:`compiled_state`.
    """

    concern = "compiled"
    names = ("compiled", "compiled_state")

    def compiled(self) -> CompiledGame | None:
        """The game's :class:`CompiledGame`, or ``None`` where the compiled rules cannot play these parameters."""
        raise NotImplementedError(f"{type(self).__name__} must give compiled()")

    def compiled_state(self, state: Any) -> tuple[int, ...]:
        """``state`` as the compiled engine's integer vector: result, player to move, then the game's fields."""
        raise NotImplementedError(f"{type(self).__name__} must give compiled_state()")


class NoCompiledEncoding(CompiledEncoding):
    """A game without compiled rules: ``compiled()`` is ``None``, as :func:`compiled_rules` says; the rest refuses."""

    def compiled(self) -> None:
        """``None``: the compiled engine cannot play the game."""
        return None

    def compiled_state(self, state: Any) -> tuple[int, ...]:
        """Refuses.

        Raises:
            NotImplementedError: naming the game and what to register.
        """
        raise NotImplementedError(_missing(self.game))


EncodingClass = type[CompiledEncoding]


def register_compiled(game_class: type) -> Callable[[EncodingClass], EncodingClass]:
    """A class decorator registering a :class:`CompiledEncoding` for ``game_class`` (and its subclasses)."""
    return register_adapter("compiled", game_class)


def _missing(game: Any) -> str:
    return (
        f"{game.spec} has no compiled rules: register a CompiledEncoding for {type(game).__name__} beside it "
        "(mctslab.games.compiled.register_compiled); use engine=python"
    )


def compiled_encoding(game: Any) -> CompiledEncoding:
    """The compiled encoding registered for ``game``'s class (or a base).

    Raises:
        MissingAdapterError: (a ``ValueError``, one line) for a game without one, naming it and what to register.
    """
    return required_adapter("compiled", game, _missing)  # type: ignore[return-value]


def compiled_or_none(game: Any) -> CompiledEncoding:
    """:func:`compiled_encoding`, or :class:`NoCompiledEncoding` (``compiled()`` is ``None``) for a game without one."""
    return find_adapter("compiled", game) or NoCompiledEncoding(game)  # type: ignore[return-value]


def compiled_rules(game: Any) -> CompiledGame | None:
    """``game``'s :class:`CompiledGame`: ``None`` when it has no compiled encoding or it declines these parameters."""
    return compiled_or_none(game).compiled()


CompiledCheck = Callable[[Any, list[list[int]]], "str | None"]
"""``check(game, games) -> fault or None``: plays each game's moves (lists of moves from the initial position) with
the compiled rules in lock step with the Python rules; the first disagreement, in one line."""

COMPILED_CHECKS: list[CompiledCheck] = []
"""The checks :func:`mctslab.check_game` runs on a game with compiled rules, registered by the layer that can run
compiled rules (:mod:`mctslab.engine` registers its lock-step check when imported; without Numba it finds nothing)."""


def register_compiled_check(check: CompiledCheck) -> CompiledCheck:
    """Add ``check`` to :data:`COMPILED_CHECKS` (once); returns it."""
    if check not in COMPILED_CHECKS:
        COMPILED_CHECKS.append(check)
    return check


def capacity_fault(game: Any, compiled: CompiledGame, state: Any, plies: int) -> str | None:
    """What a position of a random game says against the compiled rules' declared sizes, or ``None``.

    Checks, in pure Python (no Numba): ``compiled_state`` has :attr:`CompiledGame.fields`
    int entries, its result and player fields match the Python rules (``st[0]``:
    :data:`ONGOING`, the winner or :data:`DRAWN`; ``st[1]``: the player to move while the game
    goes on); the legal moves are at most :attr:`CompiledGame.max_moves`, each in
    ``range(max_moves)``; the game is at most :attr:`CompiledGame.max_plies` long.
    """
    st = compiled_encoding(game).compiled_state(state)
    if len(st) != compiled.fields or not all(type(v) is int for v in st):
        return f"compiled_state() must give {compiled.fields} ints (CompiledGame.fields), got {st!r}"
    over = game.is_terminal(state)
    result = (DRAWN if game.winner(state) is None else game.winner(state)) if over else ONGOING
    if st[0] != result:
        return f"compiled_state()[0] must be the result {result} (-1 playing, the winner, 2 drawn), got {st[0]}"
    if not over and st[1] != game.to_move(state):
        return f"compiled_state()[1] must be the player to move, {game.to_move(state)}, got {st[1]}"
    legal = game.legal_moves(state)
    if len(legal) > compiled.max_moves or any(not 0 <= m < compiled.max_moves for m in legal):
        return f"the legal moves {legal} must be at most max_moves={compiled.max_moves}, each in range(max_moves)"
    if plies > compiled.max_plies:
        return f"a game of {plies} plies passes max_plies={compiled.max_plies}"
    return None
