"""Shared test helpers: the exact oracle that Monte Carlo agents are compared with."""

from __future__ import annotations

import math

import pytest

from mctslab.agents.minimax import MATE, Minimax, _from_child
from mctslab.games import Game


def exact_move_values(game: Game, state) -> dict[int, float]:
    """Exact negamax value of every legal move for the player to move (> MATE: forced win)."""
    oracle = Minimax()
    table: dict = {}
    return {
        m: _from_child(oracle.negamax(game, game.apply(state, m), 1 << 30, -math.inf, math.inf, table))
        for m in game.legal_moves(state)
    }


def winning_moves(game: Game, state) -> set[int]:
    """Moves that force a win."""
    return {m for m, v in exact_move_values(game, state).items() if v > MATE}


def saving_moves(game: Game, state) -> set[int]:
    """Moves that do not lose against perfect play."""
    return {m for m, v in exact_move_values(game, state).items() if v >= 0}


def sample_margin(p: float, n: int, sigmas: float = 5.0) -> float:
    """``sigmas`` standard errors of a proportion ``p`` estimated from ``n`` samples."""
    return sigmas * math.sqrt(p * (1 - p) / n)


def outcome_rates(results) -> tuple[float, float, float]:
    """Rates of (player 0 wins, player 1 wins, draws) among per-player returns."""
    results = [tuple(r) for r in results]
    return tuple(results.count(r) / len(results) for r in ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5)))


def assert_same_distribution(a, b, n_a: int, n_b: int, sigmas: float = 4.0) -> None:
    """Each outcome's rate in ``a`` and ``b`` agrees within ``sigmas`` standard errors of the difference."""
    for x, y in zip(a, b, strict=True):
        p = (x * n_a + y * n_b) / (n_a + n_b)
        margin = sigmas * math.sqrt(p * (1 - p) * (1 / n_a + 1 / n_b))
        assert abs(x - y) <= margin + 1e-12, (a, b)


def assert_rollout_matches_generic(game, start, rng, n: int, max_moves=None) -> tuple:
    """``n`` fast playouts and ``n`` of the generic :meth:`Game.rollout` agree in distribution.

    Returns the two rate triples (fast, generic) for further checks.
    """
    from mctslab.games.base import Game

    fast = outcome_rates(game.rollout(start, rng, max_moves) for _ in range(n))
    generic = outcome_rates(Game.rollout(game, start, rng, max_moves) for _ in range(n))
    assert_same_distribution(fast, generic, n, n)
    return fast, generic


@pytest.fixture
def ttt():
    from mctslab import make_game

    return make_game("tictactoe")
