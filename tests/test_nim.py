"""Nim against its theory: the nim-sum rule, checked by solving small games exhaustively."""

from __future__ import annotations

import itertools
import math
import random
from functools import cache

import pytest
from conftest import assert_rollout_matches_generic, outcome_rates

from mctslab import IllegalMoveError, make_game
from mctslab.games.base import DRAW, WIN0, WIN1
from mctslab.games.nim import Nim, NimState, nim_sum


@pytest.fixture
def nim() -> Nim:
    return make_game("nim")


def test_initial_state_and_spec(nim):
    s = nim.initial_state()
    assert s == NimState((3, 4, 5), 0)
    assert nim.to_move(s) == 0 and not nim.is_terminal(s) and nim.winner(s) is None
    assert nim.spec == "nim:heaps=3-4-5" and make_game(nim.spec) == nim
    assert make_game("nim:heaps=1-2").heaps == (1, 2)
    assert nim.render(s) == "heap 0: ||| (3)\nheap 1: |||| (4)\nheap 2: ||||| (5)\nplayer 0 to move"


def test_move_encoding(nim):
    assert nim.stride == 5
    assert nim.encode(0, 1) == 0 and nim.encode(1, 3) == 7 and nim.encode(2, 5) == 14
    assert nim.decode(7) == (1, 3)
    s = nim.initial_state()
    legal = nim.legal_moves(s)
    expected = sorted(nim.encode(i, t) for i, h in enumerate(s.heaps) for t in range(1, h + 1))
    assert list(legal) == expected and len(legal) == 3 + 4 + 5
    for move in legal:
        assert nim.encode(*nim.decode(move)) == move
    heap, take = nim.decode(7)
    assert nim.play(s, 7) == NimState((3, 4 - take, 5), 1)


def test_illegal_moves_name_the_legal_ones(nim):
    s = nim.play(nim.initial_state(), nim.encode(1, 4))  # heap 1 is now empty
    assert s.heaps == (3, 0, 5)
    with pytest.raises(IllegalMoveError, match="legal moves: 0, 1, 2, 10, 11"):
        nim.play(s, nim.encode(1, 1))
    with pytest.raises(IllegalMoveError):
        nim.play(s, nim.encode(0, 4))  # more than heap 0 holds


def test_terminal_state_and_winner():
    game = Nim((1, 2))
    s = game.state_from_moves([game.encode(1, 2), game.encode(0, 1)])
    assert s == NimState((0, 0), 0)
    assert game.is_terminal(s) and game.legal_moves(s) == ()
    assert game.winner(s) == 1 and game.returns(s) == WIN1  # player 1 took the last object
    assert game.evaluate(s, 1) == 1.0 and game.evaluate(s, 0) == 0.0
    assert game.render(s).endswith("player 1 took the last object and wins")
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play(s, 0)
    with pytest.raises(ValueError):
        game.returns(game.initial_state())
    assert Nim((4,)).returns(Nim((4,)).apply(NimState((4,), 0), 3)) == WIN0


def test_transpositions(nim):
    a = nim.state_from_moves([nim.encode(0, 1), nim.encode(1, 2)])
    b = nim.state_from_moves([nim.encode(1, 2), nim.encode(0, 1)])
    assert a == b and hash(a) == hash(b) and a == NimState((2, 2, 5), 0)


@pytest.mark.parametrize("heaps", [(3, 4, 5), (1, 2, 3), (2, 2), (1, 3, 5, 7), (6,)])
def test_winning_moves_and_evaluate_against_an_exhaustive_solution(heaps):
    game = Nim(heaps)

    @cache
    def mover_wins(position: tuple[int, ...]) -> bool:
        state = NimState(position, 0)
        return any(not mover_wins(game.apply(state, m).heaps) for m in game.legal_moves(state))

    for position in itertools.product(*(range(h + 1) for h in heaps)):
        for player in (0, 1):
            s = NimState(position, player)
            wins = mover_wins(position)
            assert wins == (nim_sum(position) != 0)
            assert game.evaluate(s, player) == float(wins)
            assert game.evaluate(s, 1 - player) == float(not wins)
            best = game.winning_moves(s)
            solved = tuple(m for m in game.legal_moves(s) if not mover_wins(game.apply(s, m).heaps))
            assert best == solved
            assert all(nim_sum(game.apply(s, m).heaps) == 0 for m in best)
            assert bool(best) == wins


def test_random_games_end_within_the_number_of_objects(nim):
    rng = random.Random(11)
    winners = set()
    for _ in range(200):
        s, plies = nim.initial_state(), 0
        while not nim.is_terminal(s):
            assert nim.to_move(s) == plies % 2
            s = nim.play(s, rng.choice(nim.legal_moves(s)))
            plies += 1
        assert 3 <= plies <= 12
        assert nim.winner(s) == (plies - 1) % 2  # whoever made the last move
        winners.add(nim.winner(s))
    assert winners == {0, 1}


@pytest.mark.parametrize(("spec", "n"), [("nim", 2_000), ("nim:heaps=1-2-3-4-5-6-7-8", 2_000), ("nim:heaps=2", 500)])
def test_fast_rollout_matches_the_generic_one(spec, n):
    game = make_game(spec)
    rng = random.Random(12)
    start = game.initial_state()
    assert_rollout_matches_generic(game, start, rng, n)


def test_exact_random_play_odds():
    """From heap (2,), random play: take 2 and win (1/2), or take 1 and lose (1/2)."""
    game = Nim((2,))
    rng = random.Random(13)
    n = 4_000
    rate = outcome_rates(game.rollout(game.initial_state(), rng) for _ in range(n))[0]
    assert abs(rate - 0.5) < 4 * math.sqrt(0.25 / n)


def test_rollout_move_cap(nim):
    rng = random.Random(14)
    s = nim.initial_state()
    assert nim.rollout(s, rng, max_moves=0) == DRAW
    assert all(nim.rollout(s, rng, max_moves=2) == DRAW for _ in range(50))  # three heaps need three moves
    n = 2_000
    assert_rollout_matches_generic(nim, s, rng, n, max_moves=4)
    assert nim.rollout(NimState((0, 0, 0), 1), rng) == WIN0


@pytest.mark.parametrize(
    "spec",
    [
        "nim:heaps=0-1",
        "nim:heaps=16",
        "nim:heaps=1-2-3-4-5-6-7-8-9",
        "nim:heaps=a-b",
        "nim:heaps=3--4",
        "nim:heaps=-1",
        "nim:size=3",
        "nim:heaps",
    ],
)
def test_bad_specs(spec):
    with pytest.raises(ValueError):
        make_game(spec)


def test_bad_parameters_name_the_range():
    with pytest.raises(ValueError, match="1 to 8 heaps"):
        Nim(())
    with pytest.raises(ValueError, match="from 1 to 15"):
        Nim((3, True))
    with pytest.raises(ValueError, match="sequence of ints"):
        Nim(5)
