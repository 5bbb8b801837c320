"""The headline numbers of notebooks 02, 04 and 05, recomputed by independent methods.

Each number the notebooks' prose quotes is derived here a second way, without the package
function the notebook uses: tic-tac-toe is enumerated from scratch below (its own board,
rules, random-play recursion in fractions and negamax), simulations are checked against
exact sums, and closed forms against brute force. If the package or the prose drifts,
these tests say which number moved.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from mctslab import make_game
from mctslab.course.experiments import predicted_flat_choices
from mctslab.exact import exact_flat_values, flat_choice_odds, flat_traps, random_play_odds
from mctslab.tournament import games_needed, games_needed_one_sample, wilson

# -- an independent tic-tac-toe: a board is a tuple of 9 cells, "X", "O" or "" -----------
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
EMPTY = ("",) * 9


def winner(board: tuple[str, ...]) -> str | None:
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return None


def to_move(board: tuple[str, ...]) -> str:
    return "X" if board.count("X") == board.count("O") else "O"


def over(board: tuple[str, ...]) -> bool:
    return winner(board) is not None or all(board)


def play(board: tuple[str, ...], cell: int) -> tuple[str, ...]:
    return board[:cell] + (to_move(board),) + board[cell + 1 :]


def moves(board: tuple[str, ...]) -> list[int]:
    return [i for i, v in enumerate(board) if not v]


@cache
def random_odds(board: tuple[str, ...]) -> tuple[Fraction, Fraction, Fraction]:
    """(X wins, O wins, draw) when both players move uniformly at random, in fractions."""
    w = winner(board)
    if w == "X":
        return (Fraction(1), Fraction(0), Fraction(0))
    if w == "O":
        return (Fraction(0), Fraction(1), Fraction(0))
    if all(board):
        return (Fraction(0), Fraction(0), Fraction(1))
    children = [random_odds(play(board, m)) for m in moves(board)]
    return tuple(sum(c[i] for c in children) / len(children) for i in range(3))


@cache
def negamax(board: tuple[str, ...]) -> int:
    """The value of ``board`` for the player to move: 1, 0 or -1."""
    w = winner(board)
    if w is not None:
        return 1 if w == to_move(board) else -1  # (the side that just moved won: always -1 here)
    if all(board):
        return 0
    return max(-negamax(play(board, m)) for m in moves(board))


def flat(board: tuple[str, ...]) -> dict[int, Fraction]:
    """Each move's expected wins minus losses per random playout, for the player to move."""
    me = 0 if to_move(board) == "X" else 1
    values = {}
    for m in moves(board):
        x, o, _ = random_odds(play(board, m))
        values[m] = x - o if me == 0 else o - x
    return values


def reachable() -> list[tuple[str, ...]]:
    seen, frontier = {EMPTY}, [EMPTY]
    while frontier:
        following = []
        for board in frontier:
            if over(board):
                continue
            for m in moves(board):
                child = play(board, m)
                if child not in seen:
                    seen.add(child)
                    following.append(child)
        frontier = following
    return list(seen)


def trap_census() -> dict[str, int]:
    """Positions where a flat favourite loses, by how the favourites tie (independent of mctslab.exact)."""
    counts = {"unique": 0, "every tied favourite loses": 0, "tied, some favourite loses": 0, "tied, one holds": 0}
    for board in reachable():
        if over(board):
            continue
        values = {m: -negamax(play(board, m)) for m in moves(board)}
        if max(values.values()) < 0:
            continue  # every move loses: nothing to fall into
        scores = flat(board)
        top = max(scores.values())
        leaders = [m for m, v in scores.items() if v == top]
        losing = [m for m in leaders if values[m] == -1]
        if not losing:
            continue
        if len(leaders) == 1:
            counts["unique"] += 1
        else:
            counts["tied, some favourite loses"] += 1
            if len(losing) == len(leaders):
                counts["every tied favourite loses"] += 1
            else:
                counts["tied, one holds"] += 1
    return counts


# -- notebook 02 ------------------------------------------------------------------------------
def test_random_play_odds_by_an_independent_enumeration():
    x, o, d = random_odds(EMPTY)
    assert (x, o, d) == (Fraction(737, 1260), Fraction(121, 420), Fraction(8, 63))
    package = random_play_odds(make_game("tictactoe"))
    assert (package.first, package.second, package.draw) == pytest.approx((float(x), float(o), float(d)), abs=1e-12)
    assert 2.02 < x / o < 2.04  # "X wins 2.03 times as often as O"


def test_first_move_values_and_the_centre_gap():
    values = flat(EMPTY)
    assert values[4] == Fraction(1, 2) and values[0] == Fraction(12, 35) and values[1] == Fraction(1, 5)
    assert values == exact_flat_values(make_game("tictactoe"), make_game("tictactoe").initial_state())
    assert values[4] - values[0] == Fraction(11, 70)  # "gap 0.157 per playout"


def test_trap_counts_36_unique_and_38_with_every_tied_favourite():
    census = trap_census()
    assert census["unique"] == 36  # notebook 02: the unique favourite loses
    assert census["unique"] + census["every tied favourite loses"] == 38  # ties="all"
    # ties are common (122 positions have a losing move among tied favourites), so comparing float
    # sums, which split such ties by rounding, counted 47 "traps" before the exact comparison
    assert census["tied, some favourite loses"] == census["every tied favourite loses"] + census["tied, one holds"]
    ttt = make_game("tictactoe")
    assert len(flat_traps(ttt)) == census["unique"]
    assert len(flat_traps(ttt, ties="all")) == census["unique"] + census["every tied favourite loses"]


def test_the_notebook_trap_ties_two_moves_at_minus_4_15():
    board = play(play(play(EMPTY, 1), 3), 5)  # X 1, O 3, X 5: O to move
    values = flat(board)
    assert values[2] == values[4] == Fraction(-4, 15) and max(values, key=values.get) == 6
    assert values[6] - values[2] == Fraction(4, 15)  # the trap's lead over the best safe move
    assert negamax(play(board, 6)) == 1 and negamax(play(board, 2)) == 0  # 6 loses, 2 holds


def test_centre_rate_at_50_playouts_exact_against_simulation():
    ttt = make_game("tictactoe")
    exact = flat_choice_odds(ttt, ttt.initial_state(), 50)[4]
    assert round(exact, 3) == 0.577  # notebook 02: "exactly 57.7%"
    trials = 20_000
    simulated = predicted_flat_choices(ttt, ttt.initial_state(), 50, trials, 11)[4]
    assert abs(simulated - exact) < 4 * math.sqrt(exact * (1 - exact) / trials)


def test_exercise_2_answer_of_notebook_02_is_300_exactly():
    ttt = make_game("tictactoe")
    odds = {n: flat_choice_odds(ttt, ttt.initial_state(), n)[4] for n in (250, 300)}
    assert odds[250] < 0.95 <= odds[300]


# -- notebook 04 ------------------------------------------------------------------------------
def test_the_whole_game_tree_below_the_notebook_04_position_has_157_nodes():
    def size(board):
        return 1 + (0 if over(board) else sum(size(play(board, m)) for m in moves(board)))

    board = EMPTY
    for m in (0, 3, 1, 4):
        board = play(board, m)
    assert size(board) == 157 and len(moves(board)) == 5  # five plies at most: "a maximum depth of five"
    assert negamax(board) == 1 and -negamax(play(board, 2)) == 1  # X to move wins on 2


# -- notebook 05 ------------------------------------------------------------------------------
def _wilson_by_inversion(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson interval as the set of p whose score test accepts k / n, found by bisection."""
    phat = k / n

    def accepts(p):
        return abs(phat - p) <= z * math.sqrt(p * (1 - p) / n) + 1e-15

    def edge(lo, hi, inside_at_hi):
        for _ in range(100):
            mid = (lo + hi) / 2
            if accepts(mid) == inside_at_hi:
                hi = mid
            else:
                lo = mid
        return (lo + hi) / 2

    low = 0.0 if k == 0 else edge(0.0, phat, True)
    high = 1.0 if k == n else edge(1.0, phat, True)
    return low, high


@pytest.mark.parametrize(("k", "n"), [(91, 100), (0, 10), (10, 10), (1, 100), (0, 48), (15, 20)])
def test_wilson_intervals_the_notebooks_quote(k, n):
    assert wilson(k, n) == pytest.approx(_wilson_by_inversion(k, n), abs=1e-9)


def test_wilson_bounds_behind_the_prose():
    assert wilson(1, 100)[1] == pytest.approx(0.0545, abs=5e-4)  # UCT at 1,600: "at most 5%"
    assert wilson(0, 48)[1] < 0.08  # Connect Four: random won none of 48 games
    assert wilson(15, 20)[0] > 0.5 and wilson(20, 20)[0] > 0.83  # notebook 04: 10 and 30 iterations


def test_games_needed_numbers_by_simulated_power():
    # notebook 05 quotes 1,534 games for 0.60 against 0.55 and 62 for 0.9 against 0.7
    assert games_needed(0.60, 0.55) == 1534 and games_needed(0.9, 0.7) == 62
    rng = np.random.default_rng(5)
    n, reps = games_needed(0.9, 0.7), 20_000
    a, b = rng.binomial(n, 0.9, reps) / n, rng.binomial(n, 0.7, reps) / n
    pooled = (a + b) / 2
    power = np.mean(np.abs(a - b) / np.sqrt(2 * pooled * (1 - pooled) / n) > 1.959963984540054)
    assert abs(power - 0.8) < 0.03  # the normal approximation at n = 62 is within a few points


def test_exercise_2_plan_of_notebook_05_by_exact_power():
    # the pilot scored 0.560: the one-sample plan is 543 games, half the two-sample 1,086
    n = games_needed_one_sample(0.56, 0.5)
    assert n == 543 and games_needed(0.56, 0.5) == 1086
    radius = 1.959963984540054 * math.sqrt(0.25 / n)
    power = sum(math.comb(n, k) * 0.56**k * 0.44 ** (n - k) for k in range(n + 1) if abs(k / n - 0.5) > radius)
    assert 0.77 < power < 0.83
