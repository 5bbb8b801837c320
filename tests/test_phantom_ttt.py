"""Phantom tic-tac-toe: OpenSpiel's rules (a failed attempt reveals and the player moves again) and determinizations."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from mctslab import check_game, make_game
from mctslab.games.phantom_ttt import O, X, has_line


@pytest.fixture(scope="module")
def game():
    return make_game("phantom_ttt")


def test_passes_check_game(game):
    check_game(game, games=100)


def test_failed_attempt_reveals_the_cell_and_keeps_the_turn(game):
    state = game.state_from_moves([4, 0])  # X centre, O corner
    assert game.to_move(state) == 0 and 0 in game.legal_moves(state)
    after = game.play(state, 0)  # X tries O's corner
    assert game.to_move(after) == 0
    assert after.board == state.board
    assert after.views[0][0] == O and 0 not in game.legal_moves(after)
    assert game.information_state(after, 1) == game.information_state(state, 1)  # O learns nothing


def test_views_hide_the_opponent(game):
    state = game.state_from_moves([4, 0])
    assert state.views[0] == (0, 0, 0, 0, X, 0, 0, 0, 0)
    a, b = game.state_from_moves([4, 0]), game.state_from_moves([4, 8])
    assert game.information_state(a, 0) == game.information_state(b, 0)


def test_sample_state_keeps_the_information_state_in_random_positions(game):
    rng = random.Random(3)
    for _ in range(300):
        state = game.initial_state()
        for _ in range(rng.randrange(12)):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if game.is_terminal(state):
            continue
        for player in (0, 1):
            sampled = game.sample_state(state, player, rng)
            assert game.information_state(sampled, player) == game.information_state(state, player)
            assert game.to_move(sampled) == game.to_move(state) and not game.is_terminal(sampled)


def test_sample_state_is_uniform_over_consistent_placements(game):
    state = game.state_from_moves([4, 0, 0, 1, 8, 2])  # O to move, sees its marks 0 and 8 only
    cells = [c for c in range(9) if c not in (0, 8)]
    consistent = [
        (a, b, c) for a in cells for b in cells for c in cells if a < b < c and not has_line(frozenset((a, b, c)))
    ]
    assert len(consistent) == 32  # C(7, 3) = 35 minus the 3 lines through the centre among those cells
    rng, n = random.Random(0), 6400
    counts = Counter(tuple(i for i, v in enumerate(game.sample_state(state, 1, rng).board) if v == X) for _ in range(n))
    assert set(counts) == set(consistent)
    expected = n / 32  # 200; binomial sd about 14; 5 sd
    assert all(abs(k - expected) < 5 * (expected * (1 - 1 / 32)) ** 0.5 for k in counts.values())
