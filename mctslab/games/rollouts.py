"""Rollouts that report their moves: the random playout a game's fast ``rollout`` played.

:meth:`Game.rollout <mctslab.games.base.Game.rollout>` returns only the result: the
fast versions play on bitboards and never build a list of moves. The tree drawings
need those moves, and they must be the very moves the rollout played with the same
random numbers, or the picture would show a game that never happened. So every game
also has :meth:`Game.rollout_moves <mctslab.games.base.Game.rollout_moves>`, which
draws the random numbers exactly as its ``rollout`` does and keeps the moves.

Every rollout of mctslab picks "a uniformly random legal move" in one of two ways,
and the replay needs to know which, because the same random number picks a
different move from a differently ordered list (a game says which in its
:attr:`~mctslab.games.base.Game.rollout_order`):

* ``"ordered"``: ``legal_moves(state)[floor(u * n)]``, the legal moves in ascending
  order (:meth:`Game.rollout`, Nim, Ultimate Tic-Tac-Toe and Fractio);
* ``"pool"``: a pool of candidate moves, built once in ascending order, with the
  chosen move swapped with the last one and removed once it is no longer legal
  (tic-tac-toe's empty cells, Connect Four's open columns).

:func:`mctslab.check_game` checks, on several positions, that ``rollout_moves`` ends
with the returns of ``rollout`` and leaves the generator in the same state.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from math import floor
from typing import Any, NamedTuple, Protocol

from .kinds import CHANCE

State = Hashable

ORDERS = ("ordered", "pool")
"""The two ways a rollout of mctslab draws its moves (see the module docstring)."""

_DRAW = (0.5, 0.5)


class ReplayableGame(Protocol):
    """What a replay needs of a game (:class:`mctslab.games.base.Game` has it all).

    A protocol rather than an import of :mod:`mctslab.games.base`, which imports this module.
    """

    num_players: int
    has_chance: bool

    def legal_moves(self, state: Any) -> tuple[int, ...]: ...
    def apply(self, state: Any, move: int) -> Any: ...
    def is_terminal(self, state: Any) -> bool: ...
    def returns(self, state: Any) -> tuple[float, ...]: ...
    def to_move(self, state: Any) -> int: ...
    def chance_move(self, state: Any, rng: random.Random) -> int: ...


class PlayedRollout(NamedTuple):
    """A random playout, move by move (what :meth:`Game.rollout_moves` returns).

    Attributes:
        moves: the moves played, in order (empty if the start was already terminal).
        returns: per-player returns at the end (1 win, 0.5 draw, 0 loss); a playout
            cut short by ``max_moves`` counts as a draw (0.5 each), as in :meth:`Game.rollout`.
        final: the position where the playout stopped.
        cut: True if ``max_moves`` stopped the playout before the end of the game.
    """

    moves: tuple[int, ...]
    returns: tuple[float, ...]
    final: State
    cut: bool


def replay_rollout(
    game: ReplayableGame, state: State, rng: random.Random, max_moves: int | None = None, order: str = "ordered"
) -> PlayedRollout:
    """Play random moves from ``state`` to the end, drawing them in ``order``, and keep them.

    Args:
        game: the game (only what :class:`ReplayableGame` lists is used; at a chance
            node the outcome is drawn with ``game.chance_move``, as ``Game.rollout`` does).
        state: where the playout starts (may be terminal: then no move is played).
        rng: the generator; one ``rng.random()`` is drawn per move played.
        max_moves: cut the playout after this many moves and score it as a draw
            (``None``: play to the end).
        order: ``"ordered"`` or ``"pool"`` (see the module docstring).

    Returns:
        A :class:`PlayedRollout`.

    Raises:
        ValueError: for an unknown ``order``.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be 'ordered' or 'pool', got {order!r}")
    moves: list[int] = []
    pool = list(game.legal_moves(state)) if order == "pool" else []
    while not game.is_terminal(state):
        if max_moves is not None and len(moves) >= max_moves:
            cut = _DRAW if game.num_players == 2 else (0.5,) * game.num_players
            return PlayedRollout(tuple(moves), cut, state, True)
        if game.has_chance and game.to_move(state) == CHANCE:  # drawn as Game.rollout draws it
            move = game.chance_move(state, rng)
        elif order == "ordered":
            legal = game.legal_moves(state)
            move = legal[floor(rng.random() * len(legal))]
        else:
            i = floor(rng.random() * len(pool))
            move = pool[i]
        state = game.apply(state, move)
        moves.append(move)
        if order == "pool" and not game.is_terminal(state) and move not in game.legal_moves(state):
            pool[i] = pool[-1]
            pool.pop()
    return PlayedRollout(tuple(moves), tuple(game.returns(state)), state, False)


def _defines(cls: type, name: str) -> type | None:
    """The class in ``cls``'s method resolution order whose body defines ``name``."""
    return next((klass for klass in cls.__mro__ if name in vars(klass)), None)


def reports_its_rollout(game: Any) -> bool:
    """True if ``game.rollout_moves`` was written for the ``rollout`` the game uses.

    That is when the class that defines ``rollout`` also defines ``rollout_moves``
    or ``rollout_order`` (or a subclass of it does), or when ``rollout`` is the
    generic :meth:`Game.rollout`. A subclass that overrides ``rollout`` alone keeps
    a replay written for its parent's rollout: the drawings then compare the replay
    with the real rollout and say when they differ.
    """
    cls = type(game)
    owner = _defines(cls, "rollout")  # Game itself defines all three names
    return any(issubclass(_defines(cls, name) or object, owner) for name in ("rollout_moves", "rollout_order"))
