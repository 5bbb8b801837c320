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


@pytest.fixture
def ttt():
    from mctslab import make_game

    return make_game("tictactoe")
