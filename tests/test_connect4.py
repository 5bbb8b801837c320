"""Connect Four: hand-checked wins, full columns, transpositions, and rollouts against the generic one."""

from __future__ import annotations

import random

import pytest
from conftest import assert_rollout_matches_generic

from mctslab import IllegalMoveError, make_game
from mctslab.games.base import DRAW, WIN0, WIN1
from mctslab.games.connect4 import ConnectFour, ConnectFourState, run_shifts
from mctslab.games.errors import InvalidStateError
from mctslab.games.stones import ONGOING

# A full 6 x 7 board that nobody won (found by a seeded random game, checked by eye).
DRAWN_GAME = [0, 1, 5, 5, 0, 2, 3, 2, 0, 3, 4, 5, 3, 6, 4, 3, 5, 6, 2, 2, 2]
DRAWN_GAME += [2, 3, 0, 4, 1, 6, 1, 0, 4, 5, 0, 1, 1, 1, 4, 4, 3, 5, 6, 6, 6]
DRAWN_PICTURE = """\
O X O O X X O
X O X X O X X
O X O O O X O
X O X X X O X
X O O O X O O
X O O X X X O
0 1 2 3 4 5 6"""


@pytest.fixture
def c4() -> ConnectFour:
    return make_game("connect4")


def test_initial_state(c4):
    s = c4.initial_state()
    assert s == (0, 0, -1)
    assert c4.to_move(s) == 0
    assert c4.legal_moves(s) == tuple(range(7))
    assert not c4.is_terminal(s) and c4.winner(s) is None
    assert c4.spec == "connect4:rows=6,cols=7,k=4"
    assert make_game(c4.spec) == c4
    assert c4.render(s).splitlines()[-2:] == [". . . . . . .", "0 1 2 3 4 5 6"]


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ([0, 1, 0, 1, 0, 1, 0], 0),  # vertical, column 0
        ([0, 0, 1, 1, 2, 2, 3], 0),  # horizontal, bottom row
        ([0, 1, 1, 2, 3, 2, 2, 3, 6, 3, 3], 0),  # diagonal / from (0, 0) to (3, 3)
        ([6, 5, 5, 4, 3, 4, 4, 3, 0, 3, 3], 0),  # diagonal \ from (3, 3) to (6, 0)
        ([6, 0, 1, 0, 1, 0, 1, 0], 1),  # vertical for O, column 0
        ([0, 6, 1, 6, 6, 5, 5, 4, 4, 3], 1),  # horizontal for O, bottom row, columns 3 to 6
    ],
)
def test_hand_checked_wins(c4, moves, winner):
    before = c4.state_from_moves(moves[:-1])
    assert not c4.is_terminal(before)
    s = c4.play(before, moves[-1])
    assert c4.is_terminal(s)
    assert c4.winner(s) == winner
    assert c4.returns(s) == (WIN0 if winner == 0 else WIN1)
    assert c4.legal_moves(s) == ()
    assert c4.evaluate(s, winner) == 1.0 and c4.evaluate(s, 1 - winner) == 0.0


def test_render_of_a_diagonal_win(c4):
    s = c4.state_from_moves([0, 1, 1, 2, 3, 2, 2, 3, 6, 3, 3])
    assert c4.render(s) == "\n".join(
        [
            ". . . . . . .",
            ". . . . . . .",
            ". . . X . . .",
            ". . X O . . .",
            ". X O O . . .",
            "X O O X . . X",
            "0 1 2 3 4 5 6",
        ]
    )


def test_full_board_draw(c4):
    s = c4.state_from_moves(DRAWN_GAME)
    assert c4.render(s) == DRAWN_PICTURE
    assert c4.is_terminal(s) and c4.winner(s) is None
    assert c4.returns(s) == DRAW
    assert c4.rollout(s, random.Random(0)) == DRAW


def test_full_column_becomes_illegal(c4):
    s = c4.state_from_moves([0] * 6)
    assert not c4.is_terminal(s)
    assert c4.legal_moves(s) == (1, 2, 3, 4, 5, 6)
    with pytest.raises(IllegalMoveError, match="legal moves: 1, 2, 3, 4, 5, 6"):
        c4.play(s, 0)
    with pytest.raises(IllegalMoveError):
        c4.play(c4.initial_state(), 7)


def test_no_move_in_a_finished_game(c4):
    s = c4.state_from_moves([0, 1, 0, 1, 0, 1, 0])
    for move in range(7):
        with pytest.raises(IllegalMoveError, match="game is over"):
            c4.play(s, move)


def test_transpositions_are_equal_states(c4):
    a = c4.state_from_moves([0, 1, 2, 3])
    b = c4.state_from_moves([2, 3, 0, 1])
    c = c4.state_from_moves([2, 1, 0, 3])
    assert a == b == c and hash(a) == hash(b) == hash(c)
    assert len({a, b, c, c4.state_from_moves([0, 2, 1, 3])}) == 2  # X on 0-1, O on 2-3: another position


def test_play_does_not_change_the_state(c4):
    s = c4.state_from_moves([3, 3])
    t = c4.play(s, 4)
    assert s == c4.state_from_moves([3, 3]) and t != s


def test_shift_test_agrees_with_the_windows():
    """The shift trick against a brute-force check of every window, on random boards of several sizes."""
    rng = random.Random(1)
    for rows, cols, k in [(6, 7, 4), (4, 5, 3), (5, 5, 5), (3, 8, 2), (7, 6, 4)]:
        game = ConnectFour(rows, cols, k)
        for i in range(300):
            bits = sum(game.column) & rng.getrandbits(cols * game.height)
            if i % 2:  # sparser boards too, so that both answers are common
                bits &= rng.getrandbits(cols * game.height)
            expected = any(bits & w == w for w in game.windows)
            assert game.has_k_in_a_row(bits) == expected
    # Rows 4-5 of column 0 and rows 0-1 of column 1 are not a run: the sentinel bit 6 is between them.
    game = ConnectFour()
    assert not game.has_k_in_a_row((1 << 4) | (1 << 5) | (1 << 7) | (1 << 8))
    assert game.has_k_in_a_row((1 << 2) | (1 << 3) | (1 << 4) | (1 << 5))


def test_run_shifts():
    assert run_shifts(1) == () and run_shifts(2) == (1,) and run_shifts(4) == (1, 2) and run_shifts(5) == (1, 2, 1)


def test_random_games_end_within_the_board_size(c4):
    rng = random.Random(2)
    for _ in range(200):
        s, plies = c4.initial_state(), 0
        while not c4.is_terminal(s):
            assert c4.to_move(s) == plies % 2
            s = c4.play(s, rng.choice(c4.legal_moves(s)))
            plies += 1
        assert plies <= 42
        if c4.winner(s) is None:
            assert plies == 42 and c4.returns(s) == DRAW


@pytest.mark.parametrize(
    ("spec", "moves"),
    [
        ("connect4", []),
        ("connect4", [3]),
        ("connect4", [3, 3, 2, 4, 2]),
        ("connect4:rows=4,cols=5,k=3", [2]),
        ("connect4:rows=5,cols=5,k=5", []),  # k = 5: the general (looped) shift test
        ("connect4:rows=3,cols=3,k=2", []),
    ],
)
def test_fast_rollout_matches_the_generic_one(spec, moves):
    game = make_game(spec)
    start = game.state_from_moves(moves)
    n = 2_000
    rng = random.Random(3)
    assert_rollout_matches_generic(game, start, rng, n)


def test_rollout_move_cap(c4):
    rng = random.Random(4)
    s = c4.initial_state()
    assert c4.rollout(s, rng, max_moves=0) == DRAW
    assert all(c4.rollout(s, rng, max_moves=6) == DRAW for _ in range(100))  # nobody can win in 6 plies
    n = 2_000
    fast, _ = assert_rollout_matches_generic(c4, s, rng, n, max_moves=12)
    assert fast[2] > 0.5


def test_evaluate(c4):
    s = c4.initial_state()
    assert c4.evaluate(s, 0) == pytest.approx(0.5)
    centre = c4.state_from_moves([3])
    edge = c4.state_from_moves([0])
    assert c4.evaluate(centre, 0) > c4.evaluate(edge, 0) > 0.5
    rng = random.Random(5)
    for _ in range(50):
        s = c4.state_from_moves([])
        for _ in range(rng.randrange(20)):
            if c4.is_terminal(s):
                break
            s = c4.apply(s, rng.choice(c4.legal_moves(s)))
        if not c4.is_terminal(s):
            v0, v1 = c4.evaluate(s, 0), c4.evaluate(s, 1)
            assert 0.05 < v0 < 0.95 and v0 + v1 == pytest.approx(1.0)


@pytest.mark.parametrize(
    "spec",
    [
        "connect4:rows=0",
        "connect4:rows=17",
        "connect4:cols=0",
        "connect4:cols=-3",
        "connect4:k=0",
        "connect4:k=8",
        "connect4:rows=3,cols=3,k=4",
        "connect4:k=four",
        "connect4:depth=3",
        "connect4:rows",
    ],
)
def test_bad_specs(spec):
    with pytest.raises(ValueError):
        make_game(spec)


def test_bad_parameters_name_the_range():
    with pytest.raises(ValueError, match="rows must be an int from 1 to 16"):
        ConnectFour(rows=True)
    with pytest.raises(ValueError, match=r"k \(stones in a row\) must be an int from 1 to max\(rows, cols\)=7"):
        ConnectFour(k=9)


@pytest.mark.parametrize("spec", ["connect4", "connect4:rows=4,cols=5,k=3", "connect4:rows=3,cols=2,k=3"])
def test_floating_stones_are_refused_in_every_column_and_nowhere_else(spec):
    """check_state tests all columns in one step; its verdict is the per-column rule's, on random boards."""
    game = make_game(spec)
    rng = random.Random(7)
    refused = stacked = 0
    for _ in range(400):
        occupied = 0
        for c, column in enumerate(game.column):
            if rng.random() < 0.5 ** (1 / game.cols):  # a column of stones on the bottom (all: half the boards)
                occupied |= (1 << rng.randint(0, game.rows)) - 1 << (c * game.height)
            else:  # any cells of the column
                occupied |= rng.getrandbits(game.rows) << (c * game.height) & column
        cells = [b for b in range(game.cols * game.height) if occupied >> b & 1]
        rng.shuffle(cells)
        half = (len(cells) + 1) // 2
        x, o = sum(1 << b for b in cells[:half]), sum(1 << b for b in cells[half:])
        floating = [
            c for c, column in enumerate(game.column)
            if (s := (occupied & column) >> (c * game.height)) & (s + 1)
        ]  # fmt: skip
        state = ConnectFourState(x, o, ONGOING)
        stacked += not floating
        try:
            game.check_state(state)
        except InvalidStateError as err:
            if floating:
                assert f"a stone floats in column {floating[0]} " in str(err)
                refused += 1
            else:
                assert "floats" not in str(err)  # refused for lines, not for the stones' places
            continue
        assert not floating, (spec, bin(occupied))
    assert refused >= 50 and stacked >= 50  # both verdicts were tested
