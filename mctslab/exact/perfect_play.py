"""Perfect play, exactly: the game-theoretic value of a position and of every move (minimax by enumeration)."""

from __future__ import annotations

from ..games.base import Game, State
from .enumeration import _enumeration, _from_child


def solve(game: Game, state: State | None = None) -> int:
    """The game-theoretic value of ``state`` for the player to move: 1 (win), 0 (draw) or -1 (loss).

    Raises:
        ValueError: if the game has too many positions to enumerate.
    """
    return _enumeration(game).value(game.initial_state() if state is None else state)


def move_values(game: Game, state: State) -> dict[int, int]:
    """Each legal move's value against perfect play for the player who makes it: 1, 0 or -1."""
    enum = _enumeration(game)
    return {m: -enum.value(game.apply(state, m)) for m in game.legal_moves(state)}


def move_scores(game: Game, state: State) -> dict[int, int]:
    """Each legal move's minimax score for the player who makes it: ``WIN - d`` for a win in ``d`` plies, etc.

    Quicker wins score higher and slower losses less badly, as in
    :class:`~mctslab.agents.minimax.Minimax`: the moves with the top score are the
    moves full-depth minimax chooses among.
    """
    enum = _enumeration(game)
    return {m: _from_child(enum.score(game.apply(state, m))) for m in game.legal_moves(state)}


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


def best_moves(game: Game, state: State) -> tuple[int, ...]:
    """The moves that keep the best game-theoretic value (what perfect play may choose)."""
    values = move_values(game, state)
    best = max(values.values())
    return tuple(m for m, v in values.items() if v == best)
