"""The enumeration behind every exact answer: one cache per game, and the recursions that fill it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from ..games.base import Game, State

MAX_STATES = 2_000_000
"""Enumeration gives up beyond this many distinct positions (a game too big to enumerate)."""


RECURSION_LIMIT = 10_000
"""The recursion limit while an enumeration recurses (depth of recursion = length of the longest game)."""

WIN = 1_000_000
"""Score of a position won now; a win ``d`` plies away scores ``WIN - d`` (as in :mod:`mctslab.agents.minimax`)."""


class Odds(NamedTuple):
    """Outcome probabilities of a game between two uniformly random players.

    Attributes:
        first: probability that player 0 (who moves first; X) wins.
        second: probability that player 1 (O) wins.
        draw: probability of a draw.
    """

    first: float
    second: float
    draw: float

    def for_player(self, player: int) -> tuple[float, float, float]:
        """``(win, draw, loss)`` probabilities from ``player``'s point of view (0 or 1)."""
        if player == 0:
            return (self.first, self.draw, self.second)
        return (self.second, self.draw, self.first)

    def score(self, player: int) -> float:
        """``player``'s expected return: win 1, draw 0.5, loss 0."""
        win, draw, _ = self.for_player(player)
        return win + draw / 2

    def margin(self, player: int) -> float:
        """``player``'s expected wins minus losses per game (Racioppo 2020's criterion), in [-1, 1]."""
        win, _, loss = self.for_player(player)
        return win - loss


class Enumeration:
    """Exact answers for one game, computed on demand and cached by position.

    Use the module's functions (:func:`random_play_odds`, :func:`solve`...), which keep
    one ``Enumeration`` per game; this class is where the recursions live.

    Args:
        game: a small game (see :data:`MAX_STATES`).
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.odds: dict[State, Odds] = {}
        self.fractions: dict[State, tuple[Fraction, Fraction, Fraction]] = {}
        self.scores: dict[State, int] = {}
        self.bounds: dict[State, tuple[int, int]] = {}

    def _check_size(self) -> None:
        if max(len(self.odds), len(self.fractions)) + max(len(self.scores), len(self.bounds)) > MAX_STATES:
            raise ValueError(
                f"{self.game.spec} has more than {MAX_STATES:,} positions to enumerate: exact answers are for "
                "small games (3 x 3 tic-tac-toe, small Nim, tiny Connect Four boards); estimate by sampling instead"
            )

    def random_odds(self, state: State) -> Odds:
        """Outcome probabilities of random play from ``state``: the average over its legal moves."""
        with deeper_recursion():
            return self._random_odds(state)

    def exact_odds(self, state: State) -> tuple[Fraction, Fraction, Fraction]:
        """:meth:`random_odds` as exact fractions ``(first, second, draw)``: the same recursion, no rounding."""
        with deeper_recursion():
            return self._exact_odds(state)

    def score(self, state: State) -> int:
        """Minimax score for the player to move: ``WIN - d`` for a win in ``d`` plies, ``-(WIN - d)``, or 0."""
        with deeper_recursion():
            return self._score(state)

    def value(self, state: State) -> int:
        """The sign of :meth:`score` (1 win, 0 draw, -1 loss for the player to move), found with less search.

        Knowing only who wins, a position is settled as soon as one move wins, and a move that
        cannot change the result need not be searched to the end (alpha-beta over the three
        values, Knuth & Moore 1975). What is learnt of a position is kept as bounds on its value,
        so no answer rests on a guess; a position whose :meth:`score` is known is read from it.
        """
        with deeper_recursion():
            return self._value(state, -1, 1)

    def _value(self, state: State, alpha: int, beta: int) -> int:
        score = self.scores.get(state)
        if score is not None:
            return (score > 0) - (score < 0)
        low, high = self.bounds.get(state, (-1, 1))
        if low == high or low >= beta or high <= alpha:
            return low if low >= beta or low == high else high
        alpha, beta = max(alpha, low), min(beta, high)
        game = self.game
        if game.is_terminal(state):
            winner = game.winner(state)
            value = 0 if winner is None else (1 if winner == game.to_move(state) else -1)
            self.bounds[state] = (value, value)
            self._check_size()
            return value
        best, start = -1, alpha
        for move in game.legal_moves(state):
            best = max(best, -self._value(game.apply(state, move), -beta, -alpha))
            if best >= beta:
                break
            alpha = max(alpha, best)
        # fail-soft: below the window the value is at most best, above it at least best
        if best <= start:
            low, high = low, min(high, best)
        elif best >= beta:
            low, high = max(low, best), high
        else:
            low = high = best
        self.bounds[state] = (low, high)
        self._check_size()
        return best

    def _random_odds(self, state: State) -> Odds:
        cached = self.odds.get(state)
        if cached is not None:
            return cached
        game = self.game
        if game.is_terminal(state):
            winner = game.winner(state)
            odds = Odds(1.0, 0.0, 0.0) if winner == 0 else Odds(0.0, 1.0, 0.0) if winner == 1 else Odds(0.0, 0.0, 1.0)
        else:
            moves = game.legal_moves(state)
            first = second = draw = 0.0
            for move in moves:
                child = self._random_odds(game.apply(state, move))
                first += child.first
                second += child.second
                draw += child.draw
            k = len(moves)
            odds = Odds(first / k, second / k, draw / k)
        self.odds[state] = odds
        self._check_size()
        return odds

    def _exact_odds(self, state: State) -> tuple[Fraction, Fraction, Fraction]:
        cached = self.fractions.get(state)
        if cached is not None:
            return cached
        game = self.game
        if game.is_terminal(state):
            winner = game.winner(state)
            one, zero = Fraction(1), Fraction(0)
            odds = (one, zero, zero) if winner == 0 else (zero, one, zero) if winner == 1 else (zero, zero, one)
        else:
            moves = game.legal_moves(state)
            first = second = draw = Fraction(0)
            for move in moves:
                a, b, c = self._exact_odds(game.apply(state, move))
                first, second, draw = first + a, second + b, draw + c
            k = len(moves)
            odds = (first / k, second / k, draw / k)
        self.fractions[state] = odds
        self._check_size()
        return odds

    def _score(self, state: State) -> int:
        cached = self.scores.get(state)
        if cached is not None:
            return cached
        game = self.game
        if game.is_terminal(state):
            winner = game.winner(state)
            score = 0 if winner is None else (WIN if winner == game.to_move(state) else -WIN)
        else:
            score = max(_from_child(self._score(game.apply(state, move))) for move in game.legal_moves(state))
        self.scores[state] = score
        self._check_size()
        return score


def _from_child(score: int) -> int:
    """A child's score seen from the parent: negated, and one ply further from the result."""
    return -score + 1 if score > 0 else -score - 1 if score < 0 else 0


@contextmanager
def deeper_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise the interpreter's recursion limit to at least ``limit`` for the block, then restore it.

    The enumeration recurses once per move of the longest game. Raising the limit for good
    (as this module once did) leaked into every caller: a student's recursive search that
    exceeds Python's default limit passed the exercise checks once an exact answer had been
    computed in the same process (issue 40).
    """
    before = sys.getrecursionlimit()
    if before < limit:
        sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


@lru_cache(maxsize=16)
def _enumeration(game: Game) -> Enumeration:
    return Enumeration(game)


def reachable_states(game: Game) -> Iterator[State]:
    """Every position reachable from the initial one, each once, in order of depth (moves played)."""
    for state, _ in _by_depth(game):
        yield state


def _by_depth(game: Game) -> Iterator[tuple[State, int]]:
    """``(state, moves played)`` for every reachable position, breadth first, in a fixed order."""
    start = game.initial_state()
    seen = {start}
    frontier = [start]
    depth = 0
    while frontier:
        following = []
        for state in frontier:
            yield state, depth
            for move in game.legal_moves(state):
                child = game.apply(state, move)
                if child not in seen:
                    seen.add(child)
                    following.append(child)
        if len(seen) > MAX_STATES:
            raise ValueError(f"{game.spec} has more than {MAX_STATES:,} positions: too many to enumerate")
        frontier = following
        depth += 1
