"""Random play and pure Monte Carlo, exactly: outcome odds, flat values (as fractions), flat choices and traps."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from ..games.base import Game, State
from ..validation import one_of, positive_int
from .enumeration import Odds, _by_depth, _enumeration
from .perfect_play import move_scores, move_values

TieRule = Literal["unique", "all"]
"""How :func:`flat_traps` treats positions where several moves share the best flat value.

* ``"unique"``: a trap needs a *unique* best move, and it loses (36 tic-tac-toe positions);
* ``"all"``: ties allowed, but *every* move sharing the best value loses (38 positions:
  the 36 and 2 where all the tied leaders lose). A position where one tied leader holds
  is never a trap: flat Monte Carlo breaks the tie at random and may play the holding move.
"""


@dataclass(frozen=True)
class Trap:
    """A position where pure Monte Carlo's choice (at any budget large enough) loses to perfect play.

    Attributes:
        state: the position.
        player: the player to move (0 or 1).
        trap: the move with the best :func:`exact_flat_values` score, the move that flat
            Monte Carlo converges to as its playouts grow (with tied leaders, see
            :data:`TieRule`, the lowest-numbered of them).
        refutation: the opponent's reply that wins against ``trap``.
        safe: the moves that do not lose against perfect play, best first by flat score.
        flat: every move's flat score (expected wins minus losses per playout), a float
            for display: exactly equal values are equal floats here (each is the exact
            value, rounded once).
        margin: ``exact[trap]`` minus the best exact flat score of a safe move (> 0): how
            far ahead the losing move is in pure Monte Carlo's eyes, exactly.
        exact: every move's flat score as an exact fraction (:func:`exact_flat_values`).
        leaders: every move sharing the best exact flat score (one move under the
            ``"unique"`` tie rule); all of them lose.
    """

    state: State
    player: int
    trap: int
    refutation: int
    safe: tuple[int, ...]
    flat: dict[int, float]
    margin: Fraction
    exact: dict[int, Fraction]
    leaders: tuple[int, ...]


def random_play_odds(game: Game, state: State | None = None) -> Odds:
    """Exact outcome probabilities when both players move uniformly at random from ``state``.

    This is the distribution of :meth:`Game.rollout`'s result: from the empty 3 x 3
    tic-tac-toe board, X wins with probability 737/1260 (58.5%), O with 121/420 (28.8%),
    and 8/63 of the games (12.7%) are drawn (Racioppo 2020 measured 58.49%, 28.55% and
    12.96% in 1,000 games). The probabilities are floats; for exact comparisons use
    :func:`exact_flat_values`.

    Args:
        game: a small game (see :data:`MAX_STATES`).
        state: the position (default: the initial position).

    Returns:
        The :class:`Odds` ``(first, second, draw)``.

    Raises:
        ValueError: if the game has too many positions to enumerate.
    """
    return _enumeration(game).random_odds(game.initial_state() if state is None else state)


def move_odds(game: Game, state: State) -> dict[int, Odds]:
    """:func:`random_play_odds` after each legal move of ``state``: what the playouts after a move sample."""
    enum = _enumeration(game)
    return {m: enum.random_odds(game.apply(state, m)) for m in game.legal_moves(state)}


def exact_flat_values(game: Game, state: State) -> dict[int, Fraction]:
    """Each move's expected *wins minus losses* per random playout, as an exact fraction.

    The values :func:`flat_values` rounds to floats. Use these wherever a tie or an
    argmax decides something: in tic-tac-toe, 11 positions have two moves worth exactly
    the same (for example -4/15 and -4/15) that float sums tell apart by about 1e-16.

    Args:
        game: a small game (see :data:`MAX_STATES`).
        state: a position that is not over.

    Returns:
        Move -> ``Fraction`` in [-1, 1], from the point of view of the player to move.

    Raises:
        ValueError: if the game has too many positions to enumerate.
    """
    enum = _enumeration(game)
    me = game.to_move(state)
    values = {}
    for m in game.legal_moves(state):
        first, second, _ = enum.exact_odds(game.apply(state, m))
        values[m] = first - second if me == 0 else second - first
    return values


def exact_move_odds(game: Game, state: State) -> dict[int, tuple[Fraction, Fraction, Fraction]]:
    """:func:`move_odds` as exact fractions: ``(first wins, second wins, draw)`` after each legal move."""
    enum = _enumeration(game)
    return {m: enum.exact_odds(game.apply(state, m)) for m in game.legal_moves(state)}


def flat_choice_odds(game: Game, state: State, playouts: int) -> dict[int, float]:
    """The probability that flat Monte Carlo with ``playouts`` per move picks each move, exactly.

    The ``playouts`` random games after a move are independent draws from its exact odds
    (:func:`exact_move_odds`), so a move's score (wins minus losses) follows a known
    distribution, the ``playouts``-fold convolution of (+1, 0, -1) with the move's (win,
    draw, loss) probabilities; the moves' scores are independent. A move is chosen when
    its score is the best, and a tie among ``t`` moves goes to each with probability
    ``1 / t`` (the agent breaks ties at random). This sums those events over every score:
    no sampling (:func:`mctslab.course.experiments.predicted_flat_choices` estimates the same
    numbers by simulation). Computed in floating point (exact up to rounding, about 1e-15).

    Args:
        game: a small game (see :data:`MAX_STATES`).
        state: a position that is not over.
        playouts: random games per move, >= 1.

    Returns:
        Move -> probability, summing to 1.

    Raises:
        ValueError: if ``playouts < 1`` or the game is too big.
    """
    playouts = positive_int("playouts", playouts, hint=" (random games per move)")
    me = game.to_move(state)
    pmfs = []  # pmfs[j][s + playouts] = P(score of move j == s)
    moves = list(exact_move_odds(game, state).items())
    for _, (first, second, draw) in moves:
        win, loss = (first, second) if me == 0 else (second, first)
        step = np.array([float(loss), float(draw), float(win)])  # scores -1, 0, +1
        pmf = np.array([1.0])
        for _ in range(playouts):
            pmf = np.convolve(pmf, step)
        pmfs.append(pmf)
    below = [np.concatenate(([0.0], np.cumsum(p)[:-1])) for p in pmfs]  # P(score < s)
    chosen = {}
    for j, (move, _) in enumerate(moves):
        # poly[k][s]: probability that exactly k of the other moves score s and the rest score less
        poly = np.zeros((len(moves), 2 * playouts + 1))
        poly[0] = 1.0
        for i in range(len(moves)):
            if i != j:
                poly[1:] = poly[1:] * below[i] + poly[:-1] * pmfs[i]
                poly[0] = poly[0] * below[i]
        share = poly / np.arange(1, len(moves) + 1)[:, None]  # a tie among k + 1 moves: 1 / (k + 1) each
        chosen[move] = float(np.sum(pmfs[j] * share.sum(axis=0)))
    return chosen


def flat_values(game: Game, state: State) -> dict[int, float]:
    """Each move's expected *wins minus losses* per random playout, for the player to move.

    Flat Monte Carlo (Racioppo 2020, :class:`~mctslab.agents.montecarlo.FlatMonteCarlo`)
    plays ``n`` random games after each move and picks the best ``wins - losses``; as
    ``n`` grows, ``(wins - losses) / n`` converges to these values, so the move with the
    largest value is the move flat Monte Carlo plays when its budget is large enough.

    Each value is :func:`exact_flat_values`' fraction rounded once to a float, so moves
    with exactly equal values get equal floats; still, decide ties and argmaxes on the
    exact fractions.
    """
    return {m: float(v) for m, v in exact_flat_values(game, state).items()}


def leading_moves(values: dict[int, Fraction]) -> tuple[int, ...]:
    """The moves sharing the largest value, in move order: the argmax with its ties, exactly.

    Args:
        values: move -> exact value (``Fraction`` or ``int``; floats would make ties
            depend on rounding, see :func:`exact_flat_values`).

    Raises:
        TypeError: if a value is a float.
        ValueError: if ``values`` is empty.
    """
    if not values:
        raise ValueError("no moves: the argmax of an empty set of values is undefined")
    if any(isinstance(v, float) for v in values.values()):
        raise TypeError("leading_moves needs exact values (Fraction or int), got floats: use exact_flat_values")
    top = max(values.values())
    return tuple(sorted(m for m, v in values.items() if v == top))


def flat_traps(game: Game, ties: TieRule = "unique") -> list[Trap]:
    """Positions where the move pure Monte Carlo converges to loses against perfect play.

    A position qualifies when the best :func:`exact_flat_values` score belongs to a move
    that loses against a perfect reply (value -1), and some other move does not lose.
    With enough playouts, flat Monte Carlo plays the losing move ever more surely: its
    error is not noise but bias, from assuming that both players move at random. The
    scores are compared exactly (fractions), so moves of equal value tie.

    Args:
        game: a small game (see :data:`MAX_STATES`).
        ties: how positions whose best score is shared are treated (:data:`TieRule`):
            ``"unique"`` (default) counts only positions whose best move is unique and
            loses; ``"all"`` also counts positions where *every* tied best move loses.
            In tic-tac-toe: 36 traps with ``"unique"``, 38 with ``"all"``.

    Returns:
        The traps, largest :attr:`Trap.margin` first (ties: fewer moves played
        first, then in a fixed order).

    Raises:
        TypeError: if ``ties`` is not a string.
        ValueError: if ``ties`` is not ``"unique"`` or ``"all"``, or the game is too big.
    """
    ties = one_of("ties", ties, ("unique", "all"))
    traps = []
    for state, depth in _by_depth(game):
        if game.is_terminal(state):
            continue
        values = move_values(game, state)
        if max(values.values()) < 0:
            continue
        exact = exact_flat_values(game, state)
        leaders = leading_moves(exact)
        if ties == "unique" and len(leaders) != 1:
            continue
        if any(values[m] != -1 for m in leaders):
            continue
        trap = leaders[0]
        after = game.apply(state, trap)
        replies = move_scores(game, after)
        refutation = max(replies, key=lambda m: (replies[m], -m))  # the quickest win, lowest move first
        safe = sorted((m for m, v in values.items() if v >= 0), key=lambda m: (-exact[m], m))
        margin = exact[trap] - exact[safe[0]]
        flat = {m: float(v) for m, v in exact.items()}
        found = Trap(state, game.to_move(state), trap, refutation, tuple(safe), flat, margin, exact, leaders)
        traps.append((depth, found))
    # sorted() is stable: among equal margins and depths, the order of discovery stays.
    return [t for _, t in sorted(traps, key=lambda dt: (-dt[1].margin, dt[0]))]
