"""Playout policies for UCT's simulation step: random, decisive and anti-decisive moves.

A random playout can walk past a win in one, or ignore the opponent's: the result then
says little about the position. Teytaud and Teytaud (2010), "On the huge benefit of
decisive moves in Monte-Carlo tree search algorithms", make the playout a little less
blind:

* ``"decisive"``: if a move wins at once, play it; else a uniformly random move;
* ``"antidecisive"``: as decisive, and else a random move among those after which the
  opponent cannot win at once (a uniformly random move when there is none); in stone
  games this blocks the opponent's immediate win.

Both use only the :class:`~mctslab.games.base.Game` interface, so they work on every
game (at a chance position the outcome is drawn by its probability, as in a random
playout; chance never "wins"); their price is the look-ahead: decisive tries every legal move at every step
(``b`` applications instead of one), anti-decisive also every reply (``b**2``).
:func:`mctslab.course.experiments.improvements.playout_costs` measures it. ``"random"`` is the
game's own fast :meth:`~mctslab.games.base.Game.rollout`.
"""

from __future__ import annotations

import random
from math import floor

from ..games.base import DRAW, Game, State
from ..games.kinds import CHANCE
from ..games.rollouts import PlayedRollout

PLAYOUTS = ("random", "decisive", "antidecisive")
"""The playout policies UCT's ``playout`` parameter accepts."""


def check_playout(name: str, playout: str) -> str:
    """One of :data:`PLAYOUTS` (ValueError otherwise)."""
    if playout not in PLAYOUTS:
        raise ValueError(f"{name} must be one of {', '.join(PLAYOUTS)}; got {playout!r}")
    return playout


def wins_now(game: Game, state: State, player: int) -> bool:
    """True if ``state`` is finished and ``player`` won."""
    return game.is_terminal(state) and game.winner(state) == player


def can_win_at_once(game: Game, state: State) -> bool:
    """True if the player to move in ``state`` has a move that wins at once (never at a chance position)."""
    if game.is_terminal(state):
        return False
    mover = game.to_move(state)
    if mover == CHANCE:
        return False
    return any(wins_now(game, game.apply(state, m), mover) for m in game.legal_moves(state))


def policy_move(game: Game, state: State, rng: random.Random, playout: str) -> int:
    """The move a ``playout`` policy plays in ``state`` (not terminal); one ``rng.random()`` unless a move wins.

    Args:
        game: the game.
        state: a position in progress.
        rng: the generator.
        playout: ``"random"``, ``"decisive"`` or ``"antidecisive"``.
    """
    moves = game.legal_moves(state)
    if playout == "random":
        return moves[floor(rng.random() * len(moves))]
    mover = game.to_move(state)
    children = [game.apply(state, m) for m in moves]
    for move, child in zip(moves, children, strict=True):
        if wins_now(game, child, mover):
            return move
    if playout == "antidecisive":
        safe = [m for m, child in zip(moves, children, strict=True) if not can_win_at_once(game, child)]
        if safe:
            moves = safe
    return moves[floor(rng.random() * len(moves))]


def policy_rollout(
    game: Game, state: State, rng: random.Random, max_moves: int | None = None, playout: str = "decisive"
) -> PlayedRollout:
    """A playout from ``state`` by the ``playout`` policy (see the module docstring), with its moves.

    Args:
        game: the game.
        state: where the playout starts (may be terminal).
        rng: the generator.
        max_moves: cut after this many moves and score a draw (``None``: to the end).
        playout: one of :data:`PLAYOUTS` (``"random"`` here replays the game's own rollout,
            :meth:`~mctslab.games.base.Game.rollout_moves`).

    Returns:
        A :class:`~mctslab.games.rollouts.PlayedRollout`.
    """
    if playout == "random":
        return game.rollout_moves(state, rng, max_moves)
    moves: list[int] = []
    while not game.is_terminal(state):
        if max_moves is not None and len(moves) >= max_moves:
            return PlayedRollout(tuple(moves), DRAW, state, True)
        if game.to_move(state) == CHANCE:
            move = game.chance_move(state, rng)
        else:
            move = policy_move(game, state, rng, playout)
        moves.append(move)
        state = game.apply(state, move)
    return PlayedRollout(tuple(moves), game.returns(state), state, False)
