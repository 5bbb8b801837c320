"""Batched playouts (Game.playout_counts) and flat / windowed Monte Carlo with batched=true."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import assert_same_distribution, outcome_rates, sample_margin

from mctslab import make_agent, make_game
from mctslab.exact import random_play_odds
from mctslab.games.base import Game

N = 20_000  # playouts per position in the distribution tests


def positions(game, plies: int = 4, seed: int = 1) -> list:
    """The initial position and the positions after 1, 2, ... random plies."""
    rng = np.random.default_rng(seed)
    state, out = game.initial_state(), [game.initial_state()]
    for _ in range(plies):
        if game.is_terminal(state):
            break
        moves = game.legal_moves(state)
        state = game.apply(state, moves[int(rng.integers(len(moves)))])
        out.append(state)
    return out


@pytest.mark.parametrize("spec", ["tictactoe", "tictactoe:n=3,k=2", "tictactoe:n=2,k=2"])
def test_tictactoe_counts_match_the_exact_odds(spec):
    game = make_game(spec)
    states = positions(game, plies=min(4, game.cells - 1))
    counts = game.playout_counts(states, N, np.random.default_rng(7))
    assert counts.shape == (len(states), 3) and (counts.sum(axis=1) == N).all()
    for state, row in zip(states, counts, strict=True):
        exact = random_play_odds(game, state)  # (X wins, O wins, draw) by enumeration
        for p, observed in zip(exact, row / N, strict=True):
            assert abs(observed - p) <= sample_margin(p, N) + 1e-12, (spec, state, exact, row)


@pytest.mark.parametrize("max_moves", [None, 1, 3])
def test_4x4_counts_match_the_scalar_rollout(max_moves):
    game = make_game("tictactoe:n=4,k=3")
    rng = np.random.default_rng(3)
    python_rng = random.Random(3)
    for state in positions(game, plies=3):
        batched = game.playout_counts([state], N, rng, max_moves)[0] / N
        scalar = outcome_rates(game.rollout(state, python_rng, max_moves) for _ in range(N))
        assert_same_distribution(tuple(batched), scalar, N, N)


def test_a_cap_of_one_move_on_an_empty_board_is_always_a_draw():
    game = make_game("tictactoe")
    counts = game.playout_counts([game.initial_state()], 500, np.random.default_rng(0), max_moves=1)
    assert counts.tolist() == [[0, 0, 500]]


def test_finished_positions_count_their_result():
    game = make_game("tictactoe")
    x_won = game.state_from_moves([0, 3, 1, 4, 2])
    o_won = game.state_from_moves([0, 3, 1, 4, 8, 5])
    drawn = game.state_from_moves([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert game.returns(drawn) == (0.5, 0.5)
    counts = game.playout_counts([x_won, o_won, drawn], 7, np.random.default_rng(0))
    assert counts.tolist() == [[7, 0, 0], [0, 7, 0], [0, 0, 7]]
    assert game.playout_counts([], 7, np.random.default_rng(0)).shape == (0, 3)


@pytest.mark.parametrize("spec", ["nim", "connect4", "tictactoe:n=5,k=4"])
def test_other_games_use_the_generic_counts(spec):
    game = make_game(spec)
    n = 3_000
    state = positions(game, plies=2)[-1]
    counts = game.playout_counts([state], n, np.random.default_rng(11))
    assert counts.sum() == n
    python_rng = random.Random(11)
    scalar = outcome_rates(game.rollout(state, python_rng) for _ in range(n))
    assert_same_distribution(tuple(counts[0] / n), scalar, n, n)


def test_the_generic_counts_are_seeded():
    game = make_game("connect4")
    state = game.initial_state()
    a = Game.playout_counts(game, [state], 200, np.random.default_rng(5))
    b = Game.playout_counts(game, [state], 200, np.random.default_rng(5))
    c = Game.playout_counts(game, [state], 200, np.random.default_rng(6))
    assert a.tolist() == b.tolist() != c.tolist()


def test_batched_flat_spends_its_budget_and_is_seeded():
    game = make_game("tictactoe")
    state = game.state_from_moves([4])
    agent = make_agent("flat:playouts=300,batched=true", seed=9)
    analysis = agent.analyse(game, state)
    assert analysis.iterations == 300 * 8
    assert [s.visits for s in analysis.stats] == [300] * 8
    again = make_agent("flat:playouts=300,batched=true", seed=9).analyse(game, state)
    other = make_agent("flat:playouts=300,batched=true", seed=10).analyse(game, state)
    assert again.stats == analysis.stats and other.stats != analysis.stats


def test_batched_and_python_flat_agree_on_the_values():
    """Both estimate each move's mean with the same distribution: within 5 standard errors."""
    game = make_game("tictactoe")
    state = game.state_from_moves([0])
    n = 4_000
    fast = make_agent(f"flat:playouts={n},batched=true", seed=1).analyse(game, state).stats
    slow = make_agent(f"flat:playouts={n}", seed=1).analyse(game, state).stats
    for a, b in zip(fast, slow, strict=True):
        assert a.move == b.move
        assert abs(a.mean - b.mean) <= 5 * np.sqrt(0.25 * 2 / n)


@pytest.mark.parametrize(
    "spec", ["flat:playouts=10,batched=true", "windowed:playouts=10,window=2,keep=3,reuse=true,batched=true"]
)
def test_specs_round_trip(spec):
    agent = make_agent(spec)
    assert agent.batched and make_agent(agent.spec).spec == agent.spec
    assert not make_agent(spec.replace("batched=true", "batched=false")).batched
