"""Tic-tac-toe against the numbers everyone can check: tree counts and exact random-play odds."""

from __future__ import annotations

import random
from functools import cache

import pytest
from conftest import outcome_rates, sample_margin

from mctslab import IllegalMoveError, make_game, play_game
from mctslab.games.base import Game


def test_game_tree_counts(ttt):
    """549,946 nodes, 255,168 complete games, 5,478 distinct positions from the empty board."""
    positions = set()

    def walk(state) -> tuple[int, int]:
        positions.add(state)
        if ttt.is_terminal(state):
            return 1, 1
        nodes, games = 1, 0
        for move in ttt.legal_moves(state):
            n, g = walk(ttt.apply(state, move))
            nodes, games = nodes + n, games + g
        return nodes, games

    assert walk(ttt.initial_state()) == (549_946, 255_168)
    assert len(positions) == 5_478


@cache
def _exact_outcomes(spec: str, state) -> tuple[float, float, float]:
    """P(X wins), P(O wins), P(draw) when both play uniformly at random from ``state``."""
    game = make_game(spec)
    if game.is_terminal(state):
        w = game.winner(state)
        return (float(w == 0), float(w == 1), float(w is None))
    moves = game.legal_moves(state)
    parts = [_exact_outcomes(spec, game.apply(state, m)) for m in moves]
    return tuple(sum(p[i] for p in parts) / len(moves) for i in range(3))


@pytest.mark.parametrize("spec", ["tictactoe", "tictactoe:n=4,k=3"])
def test_fast_and_generic_rollouts_match_exact_random_play(spec):
    game = make_game(spec)
    start = game.initial_state() if spec == "tictactoe" else game.state_from_moves([5, 6, 9, 10, 0])
    exact = _exact_outcomes(spec, start)
    assert sum(exact) == pytest.approx(1.0)
    n = 20_000 if spec == "tictactoe" else 4_000
    rng = random.Random(7)
    fast = outcome_rates(game.rollout(start, rng) for _ in range(n))
    generic = outcome_rates(Game.rollout(game, start, rng) for _ in range(n // 4))
    for p, f, g in zip(exact, fast, generic, strict=True):
        assert abs(f - p) < sample_margin(p, n)
        assert abs(g - p) < sample_margin(p, n // 4)


def test_random_agents_play_at_the_exactoutcome_rates(ttt):
    exact = _exact_outcomes("tictactoe", ttt.initial_state())
    assert exact[0] > 0.58 and exact[1] > 0.28  # X's first-move advantage (Racioppo 2020: ~58% vs ~29%)
    n = 2_000
    records = [play_game(ttt, ["random", "random"], seed=s) for s in range(n)]
    simulated = outcome_rates(r.returns for r in records)
    for p, s in zip(exact, simulated, strict=True):
        assert abs(s - p) < sample_margin(p, n)


def test_hand_checked_positions(ttt):
    s = ttt.state_from_moves([4, 0, 8])
    assert ttt.render(s) == "O . .\n. X .\n. . X"
    assert ttt.to_move(s) == 1
    assert ttt.legal_moves(s) == (1, 2, 3, 5, 6, 7)
    won = ttt.state_from_moves([0, 3, 1, 4, 2])  # X: top row
    assert ttt.is_terminal(won) and ttt.winner(won) == 0 and ttt.returns(won) == (1.0, 0.0)
    o_won = ttt.state_from_moves([0, 2, 1, 4, 8, 6])  # O: anti-diagonal
    assert ttt.winner(o_won) == 1 and ttt.returns(o_won) == (0.0, 1.0)
    draw = ttt.state_from_moves([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert ttt.is_terminal(draw) and ttt.winner(draw) is None and ttt.returns(draw) == (0.5, 0.5)
    with pytest.raises(ValueError, match="in progress"):
        ttt.returns(s)


def test_states_are_values(ttt):
    a = ttt.state_from_moves([0, 4, 8])
    b = ttt.state_from_moves([8, 4, 0])
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    before = ttt.state_from_moves([0, 4])
    after = ttt.play(before, 8)
    assert before == ttt.state_from_moves([0, 4]) and after != before


def test_illegal_moves_name_the_legal_ones(ttt):
    s = ttt.state_from_moves([4, 0])
    with pytest.raises(IllegalMoveError, match=r"legal moves: 1, 2, 3, 5, 6, 7, 8"):
        ttt.play(s, 4)
    with pytest.raises(IllegalMoveError, match="legal moves"):
        ttt.play(s, 9)
    with pytest.raises(IllegalMoveError, match="game is over"):
        ttt.play(ttt.state_from_moves([0, 3, 1, 4, 2]), 5)
    with pytest.raises(IllegalMoveError, match=r"move #2 of the list"):
        ttt.state_from_moves([4, 4])
    with pytest.raises(TypeError, match="int"):
        ttt.play(s, "5")
    with pytest.raises(TypeError, match="bool"):
        ttt.play(s, True)
    assert isinstance(IllegalMoveError("x"), ValueError)


def test_larger_boards():
    g = make_game("tictactoe:n=4,k=3")
    assert g.spec == "tictactoe:n=4,k=3" and len(g.legal_moves(g.initial_state())) == 16
    # 3 in a row on a 4 x 4 board: rows 2*4, columns 2*4, diagonals 2*2*2 = 24 lines
    assert len(g.lines) == 24
    s = g.state_from_moves([5, 0, 10, 1, 15])  # X on the main diagonal 5-10-15
    assert g.winner(s) == 0
    g5 = make_game("tictactoe:n=5")
    assert g5.k == 5 and len(g5.lines) == 12


@pytest.mark.parametrize("spec", ["tictactoe:n=0", "tictactoe:n=9", "tictactoe:n=3,k=4", "tictactoe:k=0"])
def test_bad_board_sizes(spec):
    with pytest.raises(ValueError, match="must be"):
        make_game(spec)
