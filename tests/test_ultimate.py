"""Ultimate tic-tac-toe and Fractio: the sending rule, decided boards, wins, and rollouts."""

from __future__ import annotations

import random

import pytest
from conftest import assert_rollout_matches_generic

from mctslab import IllegalMoveError, make_game
from mctslab.games.base import DRAW, WIN0
from mctslab.games.ultimate import (
    ANYWHERE,
    EMPTY_CELLS,
    FULL,
    LINES,
    WINS,
    Fractio,
    UltimateState,
    UltimateTicTacToe,
)

# X wins local board 4 with cells 0, 1, 2 while O keeps sending X back there.
WIN_BOARD_4 = [36, 4, 37, 13, 38]
# Board 4 fills up without a winner (X O X / O O X / O X O), no board is won anywhere,
# and the last move (board 6, cell 4) sends O to the full board 4.
FILL_BOARD_4 = [43, 67, 38, 22, 36, 5, 49, 44, 76, 40, 41, 45, 4, 39, 31, 37, 13, 42, 58]


def _bits(*moves: int) -> int:
    return sum(1 << m for m in moves)


@pytest.fixture
def uttt() -> UltimateTicTacToe:
    return make_game("uttt")


@pytest.fixture
def fractio() -> Fractio:
    return make_game("fractio")


def test_tables():
    rows = {_bits(3 * r, 3 * r + 1, 3 * r + 2) for r in range(3)}
    cols = {_bits(c, c + 3, c + 6) for c in range(3)}
    assert set(LINES) == rows | cols | {_bits(0, 4, 8), _bits(2, 4, 6)} and len(LINES) == 8
    assert WINS[0o124] and WINS[0o700] and WINS[0o777] and not WINS[0o253] and not WINS[0]
    assert EMPTY_CELLS[0o525] == (1, 3, 5, 7)


@pytest.mark.parametrize("spec", ["uttt", "fractio"])
def test_initial_state(spec):
    game = make_game(spec)
    s = game.initial_state()
    assert s == UltimateState(0, 0, 0, 0, 0, ANYWHERE, -1)
    assert game.to_move(s) == 0
    assert game.legal_moves(s) == tuple(range(81))
    assert not game.is_terminal(s) and game.winner(s) is None
    assert game.spec == spec and make_game(game.spec) == game
    assert game.evaluate(s, 0) == pytest.approx(0.5)


def test_sending_rule(uttt):
    s = uttt.play(uttt.initial_state(), 4)  # board 0, cell 4: O goes to board 4
    assert s.forced == 4
    assert uttt.legal_moves(s) == tuple(range(36, 45))
    s = uttt.play(s, 36)  # board 4, cell 0: X goes to board 0, where cell 4 is taken
    assert uttt.legal_moves(s) == (0, 1, 2, 3, 5, 6, 7, 8)
    with pytest.raises(IllegalMoveError, match="legal moves: 0, 1, 2, 3, 5, 6, 7, 8"):
        uttt.play(s, 40)
    with pytest.raises(IllegalMoveError):
        uttt.play(s, 4)  # occupied


def test_won_board_is_closed_and_sends_anywhere(uttt):
    s = uttt.state_from_moves(WIN_BOARD_4)
    assert s.x_won == 1 << 4 and s.o_won == 0 and s.decided == 1 << 4
    assert not uttt.is_terminal(s)
    assert s.forced == 2  # the winning move was cell 2
    s = uttt.play(s, 22)  # O: board 2, cell 4 sends X to the won board 4
    assert s.forced == ANYWHERE
    legal = uttt.legal_moves(s)
    expected = tuple(m for m in range(81) if m // 9 != 4 and m not in (4, 13, 22))
    assert legal == expected and len(legal) == 69
    with pytest.raises(IllegalMoveError, match="illegal here"):
        uttt.play(s, 39)  # an empty cell of the won board
    assert uttt.render(s).splitlines()[-3] == ". X ."  # the macro board shows board 4 as X's


def test_full_board_sends_anywhere(uttt):
    s = uttt.state_from_moves(FILL_BOARD_4)
    assert (s.x | s.o) >> 36 & FULL == FULL
    assert s.x_won == s.o_won == 0 and s.decided == 1 << 4
    assert s.forced == ANYWHERE and uttt.to_move(s) == 1
    legal = uttt.legal_moves(s)
    assert len(legal) == 81 - 19 and not any(m // 9 == 4 for m in legal)
    assert ". - ." in uttt.render(s)  # a drawn local board


def test_macro_win(uttt):
    # X has won boards 0 and 1 and holds cells 0 and 1 of board 2, where X is sent;
    # O has two stones in each of boards 3, 5, 6 and 8.
    x = _bits(0, 1, 2, 9, 10, 11, 18, 19)
    o = _bits(27, 28, 45, 46, 54, 55, 72, 73)
    s = UltimateState(x, o, 0b11, 0, 0b11, 2, -1)
    assert uttt.to_move(s) == 0 and uttt.legal_moves(s) == (20, 21, 22, 23, 24, 25, 26)
    assert uttt.evaluate(s, 0) > 0.6
    t = uttt.play(s, 20)
    assert t.x_won == 0b111
    assert uttt.is_terminal(t) and uttt.winner(t) == 0 and uttt.returns(t) == WIN0
    assert uttt.legal_moves(t) == () and t.forced == ANYWHERE
    assert uttt.render(t).endswith("X wins")
    with pytest.raises(IllegalMoveError, match="game is over"):
        uttt.play(t, 21)
    # Playing elsewhere in board 2 does not win; O is sent on.
    t = uttt.play(s, 24)
    assert not uttt.is_terminal(t) and t.forced == 6


def test_three_won_boards_not_in_a_row_do_not_win(uttt):
    x = _bits(0, 1, 2, 9, 10, 11, 63, 64)
    o = _bits(27, 28, 45, 46, 54, 55, 72, 73)
    s = UltimateState(x, o, 0b11, 0, 0b11, 7, -1)
    t = uttt.play(s, 65)  # wins board 7: boards 0, 1, 7 are no line
    assert t.x_won == 0b10000011 and not uttt.is_terminal(t)


def test_transpositions(uttt):
    a = uttt.state_from_moves([1, 9, 2, 18])
    b = uttt.state_from_moves([2, 18, 1, 9])
    assert a == b and hash(a) == hash(b)
    # The same stones with a different target board are different positions.
    c = uttt.state_from_moves([1, 10, 9, 0])
    d = uttt.state_from_moves([9, 0, 1, 10])
    assert (c.x, c.o) == (d.x, d.o) and (c.forced, d.forced) == (0, 1)
    assert c != d and len({a, b, c, d}) == 3


def test_fractio_single_local_win_ends_the_game(fractio, uttt):
    s = fractio.state_from_moves(WIN_BOARD_4)
    assert fractio.is_terminal(s) and fractio.winner(s) == 0 and fractio.returns(s) == WIN0
    assert fractio.legal_moves(s) == ()
    with pytest.raises(IllegalMoveError, match="game is over"):
        fractio.play(s, 22)
    assert not uttt.is_terminal(uttt.state_from_moves(WIN_BOARD_4))  # in ultimate, play goes on


def test_fractio_full_board_sends_anywhere(fractio):
    s = fractio.state_from_moves(FILL_BOARD_4)
    assert not fractio.is_terminal(s) and s.forced == ANYWHERE
    legal = fractio.legal_moves(s)
    assert len(legal) == 62 and not any(m // 9 == 4 for m in legal)


@pytest.mark.parametrize("spec", ["uttt", "fractio"])
def test_draw_when_the_board_fills(spec):
    """No three in a row in any local board: the 81st stone ends the game in a draw."""
    game = make_game(spec)
    five, four = (0, 2, 3, 7, 8), (1, 4, 5, 6)  # X O X / X O O / O X X, and its colour swap
    x = o = 0
    for b in range(9):
        mine, theirs = (five, four) if b < 5 else (four, five)  # 41 X and 40 O stones
        x |= sum(1 << (9 * b + c) for c in mine)
        o |= sum(1 << (9 * b + c) for c in theirs)
    s = UltimateState(x & ~(1 << 8), o, 0, 0, FULL & ~1, 0, -1)  # X's last stone not yet played
    assert game.to_move(s) == 0 and game.legal_moves(s) == (8,)
    t = game.play(s, 8)
    assert game.is_terminal(t) and game.winner(t) is None and game.returns(t) == DRAW
    assert t.decided == FULL and game.legal_moves(t) == ()
    assert game.rollout(s, random.Random(0)) == DRAW


@pytest.mark.parametrize("spec", ["uttt", "fractio"])
def test_random_games_end_within_81_moves(spec):
    game = make_game(spec)
    rng = random.Random(6)
    endings = set()
    for _ in range(200):
        s, plies = game.initial_state(), 0
        while not game.is_terminal(s):
            assert game.to_move(s) == plies % 2
            s = game.play(s, rng.choice(game.legal_moves(s)))
            plies += 1
        assert plies <= 81
        # The cached masks agree with the stones.
        for player, won in ((0, s.x_won), (1, s.o_won)):
            stones = s.x if player == 0 else s.o
            assert won == sum(1 << b for b in range(9) if WINS[stones >> (9 * b) & FULL])
        w = game.winner(s)
        if spec == "uttt":
            if w is not None:
                assert WINS[s.x_won if w == 0 else s.o_won]
            else:
                assert s.decided == FULL and not WINS[s.x_won] and not WINS[s.o_won]
        else:
            assert (s.x_won | s.o_won).bit_count() == (w is not None)
        endings.add(w)
    assert endings >= {0, 1}


@pytest.mark.parametrize(
    ("spec", "moves", "n"),
    [
        ("uttt", [], 2_000),
        ("uttt", WIN_BOARD_4 + [22], 1_000),
        ("fractio", [], 2_000),
        ("fractio", FILL_BOARD_4, 2_000),
    ],
)
def test_fast_rollout_matches_the_generic_one(spec, moves, n):
    game = make_game(spec)
    start = game.state_from_moves(moves)
    rng = random.Random(8)
    assert_rollout_matches_generic(game, start, rng, n)


def test_rollout_move_cap(uttt):
    rng = random.Random(9)
    s = uttt.initial_state()
    assert uttt.rollout(s, rng, max_moves=0) == DRAW
    assert all(uttt.rollout(s, rng, max_moves=16) == DRAW for _ in range(50))  # a macro win needs 17 plies
    n = 1_000
    assert_rollout_matches_generic(uttt, s, rng, n, max_moves=30)


def test_evaluate_range(uttt, fractio):
    rng = random.Random(10)
    for game in (uttt, fractio):
        for _ in range(30):
            s = game.initial_state()
            for _ in range(rng.randrange(40)):
                if game.is_terminal(s):
                    break
                s = game.apply(s, rng.choice(game.legal_moves(s)))
            if game.is_terminal(s):
                w = game.winner(s)
                assert game.evaluate(s, 0) == (0.5 if w is None else float(w == 0))
            else:
                v0, v1 = game.evaluate(s, 0), game.evaluate(s, 1)
                assert 0.05 < v0 < 0.95 and v0 + v1 == pytest.approx(1.0)
    ahead = uttt.state_from_moves(WIN_BOARD_4)
    assert uttt.evaluate(ahead, 0) > 0.6


def test_render(uttt):
    s = uttt.state_from_moves([40, 36])
    lines = uttt.render(s).splitlines()
    assert lines[3] == "------+-------+------"
    assert lines[4] == ". . . | O . . | . . ."
    assert lines[5] == ". . . | . X . | . . ."
    assert lines[-5:] == ["boards won:", "* . .", ". . .", ". . .", "X to move in board 0"]


@pytest.mark.parametrize("spec", ["uttt:size=3", "fractio:mode=2", "ultimate"])
def test_bad_specs(spec):
    with pytest.raises(ValueError):
        make_game(spec)
