"""Exact answers for notebook 10: PUCT+net against every perfect player, and the value head's error.

PUCT with the shipped network and no root noise is deterministic: nothing in its search
draws a random number (the network's priors and values replace the random playout, ties
go to the first child), so the move it plays is a function of the position alone. Against
perfect play, whose only randomness is which of its equally good moves it picks, the
probability of every result is then a finite sum over the opponent's choices, computed
exactly with :class:`fractions.Fraction`:

* :func:`against_perfect` walks every line of play from both seats: at PUCT's turn its
  one move, at the opponent's turn each perfect move (:func:`mctslab.exact.best_moves`:
  every move that keeps the position's game-theoretic value), and returns the exact
  probability of each result when the opponent picks among them as ``perfect`` does
  (uniformly among the moves of the best :func:`mctslab.exact.move_scores`), together with
  how many lines lose when the opponent may play *any* value-keeping move;
* :func:`value_errors` compares the network's value with the exact value of every
  tic-tac-toe position that is not over (4,520 of them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...agents.registry import make_agent
from ...exact import best_moves, move_scores, reachable_states, solve
from ...games import Game, network_encoding
from ...games.base import State
from ...nets.evaluators import legal_mask
from ...nets.network import PolicyValueNet


@dataclass(frozen=True)
class ExactRecord:
    """PUCT's results against perfect play from one seat, exactly.

    Attributes:
        spec: PUCT's spec.
        seat: 0 when PUCT moves first (X), 1 when it moves second (O).
        win, draw, loss: the exact probability of each result for PUCT when the opponent
            is the ``perfect`` agent (uniform among the moves of the best score).
        lines: the games PUCT can face when the opponent may play any value-keeping move.
        lost_lines: how many of those PUCT loses.
    """

    spec: str
    seat: int
    win: Fraction
    draw: Fraction
    loss: Fraction
    lines: int
    lost_lines: int


def top_score_moves(game: Game, state: State) -> tuple[int, ...]:
    """The moves the ``perfect`` agent chooses among: those of the best :func:`move_scores`."""
    scores = move_scores(game, state)
    top = max(scores.values())
    return tuple(m for m, s in scores.items() if s == top)


def _odds(
    game: Game,
    state: State,
    seat: int,
    choose: Callable[[State], int],
    replies: Callable[[State], tuple[int, ...]],
    memo: dict,
) -> tuple[Fraction, Fraction, Fraction, int, int]:
    """(win, draw, loss, lines, lost lines) for the player in ``seat`` from ``state``."""
    if state in memo:
        return memo[state]
    if game.is_terminal(state):
        mine = game.returns(state)[seat]
        result = (Fraction(mine == 1), Fraction(mine == 0.5), Fraction(mine == 0), 1, int(mine == 0))
    elif game.to_move(state) == seat:
        result = _odds(game, game.apply(state, choose(state)), seat, choose, replies, memo)
    else:
        moves = replies(state)
        parts = [_odds(game, game.apply(state, m), seat, choose, replies, memo) for m in moves]
        share = Fraction(1, len(moves))
        result = (
            sum((p[0] for p in parts), Fraction(0)) * share,
            sum((p[1] for p in parts), Fraction(0)) * share,
            sum((p[2] for p in parts), Fraction(0)) * share,
            sum(p[3] for p in parts),
            sum(p[4] for p in parts),
        )
    memo[state] = result
    return result


def deterministic_policy(game: Game, spec: str) -> Callable[[State], int]:
    """The move ``spec`` plays in each position, cached (valid for a deterministic agent only).

    Raises:
        ValueError: if the agent is not deterministic: with two different seeds it played
            different moves in the same position.
    """
    agents = (make_agent(spec, seed=0), make_agent(spec, seed=1))
    cache: dict[State, int] = {}

    def choose(state: State) -> int:
        if state not in cache:
            moves = {a.select_move(game, state) for a in agents}
            if len(moves) != 1:
                raise ValueError(f"{spec} played {sorted(moves)} in one position with two seeds: not deterministic")
            cache[state] = moves.pop()
        return cache[state]

    return choose


def against_perfect(game: Game, spec: str) -> list[ExactRecord]:
    """PUCT's exact results against perfect play from both seats (module docstring).

    Args:
        game: a game small enough to solve (tic-tac-toe).
        spec: a deterministic agent's spec, e.g. ``"puct:iterations=32,evaluator=net"``.

    Returns:
        Two :class:`ExactRecord`: PUCT moving first, then second.
    """
    choose = deterministic_policy(game, spec)
    records = []
    for seat in (0, 1):
        start = game.initial_state()
        win, draw, loss, _, _ = _odds(game, start, seat, choose, lambda s: top_score_moves(game, s), {})
        _, _, _, lines, lost = _odds(game, start, seat, choose, lambda s: best_moves(game, s), {})
        records.append(ExactRecord(spec, seat, win, draw, loss, lines, lost))
    return records


@dataclass(frozen=True)
class ValueErrors:
    """The network's value against the exact value over every position that is not over.

    Attributes:
        positions: how many positions.
        mean_abs_error: mean of ``|value - exact|`` (reward scale: 1 win, 0.5 draw, 0 loss).
        correlation: Pearson's r between value and exact value.
        by_group: ``(player to move, exact value) -> (positions, mean signed error)``; a
            negative error means the network undervalues the position.
    """

    positions: int
    mean_abs_error: float
    correlation: float
    by_group: dict[tuple[str, float], tuple[int, float]]

    def lines(self) -> list[str]:
        """A small table: the mean signed error by player to move and exact value."""
        out = [f"{'to move':<9}{'exact value':>12}{'positions':>11}{'mean error':>12}"]
        for (mover, exact_value), (n, err) in sorted(self.by_group.items()):
            out.append(f"{mover:<9}{exact_value:>12.1f}{n:>11,}{err:>+12.3f}")
        return out


def value_errors(game: Game, net: PolicyValueNet, players: Sequence[str] = ("X", "O")) -> ValueErrors:
    """The value head of ``net`` against perfect play's value on every position of ``game`` not over.

    Args:
        game: a game small enough to solve.
        net: a network for ``game``.
        players: the players' names, for :attr:`ValueErrors.by_group`.
    """
    states = [s for s in reachable_states(game) if not game.is_terminal(s)]
    x = np.array([network_encoding(game).features(s) for s in states])
    legal = np.array([legal_mask(game, s) for s in states])
    _, values = net.predict(x, legal)
    exact = np.array([(solve(game, s) + 1) / 2 for s in states])
    movers = np.array([game.to_move(s) for s in states])
    errors = values - exact
    groups: dict[tuple[str, float], tuple[int, float]] = {}
    for player in (0, 1):
        for v in (0.0, 0.5, 1.0):
            mask = (movers == player) & (exact == v)
            if mask.any():
                groups[(players[player], v)] = (int(mask.sum()), float(errors[mask].mean()))
    return ValueErrors(
        positions=len(states),
        mean_abs_error=float(np.abs(errors).mean()),
        correlation=float(np.corrcoef(values, exact)[0, 1]),
        by_group=groups,
    )
