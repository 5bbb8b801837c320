"""The moves of a random playout: the simulation phase made visible.

:meth:`Game.rollout <mctslab.games.base.Game.rollout>` returns only the result of a
playout: the fast versions of the games play on bitboards and never build a list of
moves. To draw Bradberry 2015's dashed simulation arrow we need those moves, and they must
be the very moves UCT's playout played, or the picture would show a game that never
happened. Every game can report them: :meth:`Game.rollout_moves
<mctslab.games.base.Game.rollout_moves>` draws its random numbers exactly as its
``rollout`` does (how, each game knows: see :mod:`mctslab.games.rollouts`), and
:func:`playout_moves` runs it with a *copy* of the generator in the state the rollout
started from.

:func:`mctslab.check_game` and ``tests/test_viz_steps.py`` check, on many positions of
every game, that the replay ends with the rollout's result *and* leaves the generator
in the rollout's final state. A game that overrides ``rollout`` without saying how it
draws (:func:`move_order` is then ``None``) is replayed in ascending order and compared
with the real rollout each time; :attr:`Playout.exact` says whether they agreed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..games.base import Game, State
from ..games.rollouts import replay_rollout, reports_its_rollout

__all__ = ["Playout", "copy_rng", "move_order", "playout_moves"]


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
    """``"ordered"`` or ``"pool"``: how ``game``'s rollout draws its moves, or ``None`` if unknown.

    Unknown when the game overrides ``rollout`` without declaring its
    :attr:`~mctslab.games.base.Game.rollout_order` or writing its own
    :meth:`~mctslab.games.base.Game.rollout_moves` next to it.
    """
    return game.rollout_order if reports_its_rollout(game) else None


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
        order: ``"ordered"`` or ``"pool"`` to replay in that order instead; by default
            the game's own :meth:`~mctslab.games.base.Game.rollout_moves` (``"ordered"``
            when :func:`move_order` does not know the game's rollout).

    Returns:
        A :class:`Playout` (its ``exact`` flag is True; the caller that compares with a
        real rollout sets it).

    Raises:
        ValueError: for an unknown ``order``.
    """
    if order is None and move_order(game) is None:
        order = "ordered"
    if order is None:
        played = game.rollout_moves(state, rng, max_moves)
    else:
        played = replay_rollout(game, state, rng, max_moves, order)
    return Playout(tuple(played.moves), tuple(played.returns), played.final, played.cut)


def copy_rng(rng: random.Random) -> random.Random:
    """A new generator in the same state as ``rng`` (``rng`` is not touched)."""
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin
