"""The moves of a random playout: the simulation phase made visible.

:meth:`Game.rollout <mctslab.games.base.Game.rollout>` returns only the result of a
playout: the fast versions of the games play on bitboards and never build a list of
moves. To draw seed 000's dashed simulation arrow we need those moves, and they must
be the very moves UCT's playout played, or the picture would show a game that never
happened. :func:`playout_moves` replays a rollout move by move, with a *copy* of the
random number generator in the state the rollout started from, drawing random
numbers exactly the way that game's rollout does.

Every rollout picks "a uniformly random legal move" in one of two ways, and the
replay needs to know which, because the same random number picks a different move
from a differently ordered list:

* ``"ordered"``: ``legal_moves(state)[int(u * n)]``, the legal moves in ascending
  order (:meth:`Game.rollout`, Nim, Ultimate Tic-Tac-Toe and Fractio);
* ``"pool"``: a pool of candidate moves, built once in ascending order, with the
  chosen move swapped with the last one and removed once it is no longer legal
  (tic-tac-toe's empty cells, Connect Four's open columns).

``tests/test_viz_steps.py`` checks, on many positions of every game, that the replay
ends with the rollout's result *and* leaves the generator in the rollout's final
state. For a game whose rollout this module does not know, the replay is compared
with the real rollout each time, and :attr:`Playout.exact` says whether they agreed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import floor

from ..games.base import DRAW, Game, State
from ..games.connect4 import ConnectFour
from ..games.nim import Nim
from ..games.tictactoe import TicTacToe
from ..games.ultimate import UltimateTicTacToe

__all__ = ["ORDERS", "Playout", "copy_rng", "move_order", "playout_moves"]

ORDERS = {
    Game.rollout: "ordered",
    Nim.rollout: "ordered",
    UltimateTicTacToe.rollout: "ordered",
    TicTacToe.rollout: "pool",
    ConnectFour.rollout: "pool",
}
"""How each known rollout picks its moves (keyed by the rollout function itself)."""


@dataclass(frozen=True)
class Playout:
    """One random playout, move by move.

    Attributes:
        moves: the moves played, in order (empty if the start was already terminal).
        returns: per-player returns at the end (1 win, 0.5 draw, 0 loss); a playout
            cut short by ``max_moves`` counts as a draw, as in UCT.
        final: the position where the playout stopped.
        cut: True if ``max_moves`` stopped the playout before the end of the game.
        exact: True if these are the moves the game's own rollout played with the same
            random numbers (always, for the games that come with mctslab).
    """

    moves: tuple[int, ...]
    returns: tuple[float, float]
    final: State
    cut: bool = False
    exact: bool = True


def move_order(game: Game) -> str | None:
    """``"ordered"`` or ``"pool"`` for a rollout this module knows (see above), ``None`` otherwise."""
    return ORDERS.get(type(game).rollout)


def playout_moves(
    game: Game, state: State, rng: random.Random, max_moves: int | None = None, order: str | None = None
) -> Playout:
    """Play random moves from ``state`` to the end, as ``game.rollout`` would, and keep them.

    Args:
        game: the game.
        state: where the playout starts (may be terminal: then no move is played).
        rng: the generator; it is advanced exactly as ``game.rollout(state, rng,
            max_moves)`` would advance it (pass a copy to leave yours untouched).
        max_moves: cut the playout after this many moves and score it as a draw.
        order: ``"ordered"`` or ``"pool"``; by default the order of ``game``'s rollout
            (``"ordered"`` for an unknown one).

    Returns:
        A :class:`Playout` (its ``exact`` flag is True; the caller that compares with a
        real rollout sets it).

    Raises:
        ValueError: for an unknown ``order``.
    """
    order = order or move_order(game) or "ordered"
    if order not in ("ordered", "pool"):
        raise ValueError(f"order must be 'ordered' or 'pool', got {order!r}")
    moves: list[int] = []
    pool = list(game.legal_moves(state)) if order == "pool" else []
    while not game.is_terminal(state):
        if max_moves is not None and len(moves) >= max_moves:
            return Playout(tuple(moves), DRAW, state, cut=True)
        if order == "ordered":
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
    return Playout(tuple(moves), game.returns(state), state)


def copy_rng(rng: random.Random) -> random.Random:
    """A new generator in the same state as ``rng`` (``rng`` is not touched)."""
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin
