"""Exact answers by enumeration: random-play odds, flat values, perfect play, traps, PerfectPlayer."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from conftest import exact_move_values, outcome_rates, sample_margin

from mctslab import make_game
from mctslab.agents import PerfectPlayer
from mctslab.agents.minimax import Minimax
from mctslab.exact import (
    MAX_STATES,
    Odds,
    best_moves,
    exact_flat_values,
    exact_move_odds,
    flat_choice_odds,
    flat_traps,
    flat_values,
    leading_moves,
    move_odds,
    move_values,
    random_play_odds,
    reachable_states,
    solve,
)


def test_random_play_odds_of_tictactoe_are_the_known_fractions(ttt):
    odds = random_play_odds(ttt)
    assert odds.first == pytest.approx(float(Fraction(737, 1260)), abs=1e-12)
    assert odds.second == pytest.approx(float(Fraction(121, 420)), abs=1e-12)
    assert odds.draw == pytest.approx(float(Fraction(8, 63)), abs=1e-12)
    assert sum(odds) == pytest.approx(1.0)


def test_random_play_odds_agree_with_rollouts(ttt):
    rng = random.Random(5)
    state = ttt.state_from_moves([4, 0])
    n = 20_000
    rates = outcome_rates(ttt.rollout(state, rng) for _ in range(n))
    odds = random_play_odds(ttt, state)
    for got, p in zip(rates, (odds.first, odds.second, odds.draw), strict=True):
        assert abs(got - p) < sample_margin(p, n)


def test_odds_from_either_side():
    odds = Odds(0.5, 0.2, 0.3)
    assert odds.for_player(0) == (0.5, 0.3, 0.2) and odds.for_player(1) == (0.2, 0.3, 0.5)
    assert odds.score(0) == pytest.approx(0.65) and odds.margin(1) == pytest.approx(-0.3)


def test_flat_values_are_expected_wins_minus_losses_of_the_mover(ttt):
    state = ttt.state_from_moves([0, 4])  # X to move
    odds = move_odds(ttt, state)
    values = flat_values(ttt, state)
    assert set(values) == set(ttt.legal_moves(state))
    for m, v in values.items():
        assert v == pytest.approx(odds[m].first - odds[m].second)
    o_to_move = ttt.state_from_moves([0])
    assert flat_values(ttt, o_to_move)[4] == pytest.approx(move_odds(ttt, o_to_move)[4].margin(1))


def test_centre_is_the_best_first_move_against_random_play(ttt):
    values = flat_values(ttt, ttt.initial_state())
    assert max(values, key=values.get) == 4 and values[4] == pytest.approx(0.5)


def test_perfect_play_values_match_the_minimax_oracle(ttt):
    for moves in ([], [0], [4, 0], [0, 3, 1, 4], [1, 6], [0, 4, 8]):
        state = ttt.state_from_moves(moves)
        oracle = exact_move_values(ttt, state)
        assert move_values(ttt, state) == oracle
    assert solve(ttt) == 0
    assert solve(ttt, ttt.state_from_moves([0, 3, 1, 4])) == 1  # X to move wins on 2
    assert best_moves(ttt, ttt.state_from_moves([0, 3, 1, 4])) == (2,)


@pytest.mark.parametrize("spec", ["tictactoe", "connect4:rows=3,cols=4,k=3", "connect4:rows=3,cols=4"])
def test_solve_knows_who_wins_exactly_as_the_full_minimax_score_does(spec):
    """:func:`solve` searches only for who wins (alpha-beta over 1, 0, -1, bounds kept per position): on
    every position, asked in a shuffled order so that bounds learnt in one window serve another, its
    answer is the sign of the full enumeration's score, for the position and for each move."""
    from mctslab.exact.enumeration import Enumeration

    game = make_game(spec)
    states = list(reachable_states(game))
    random.Random(0).shuffle(states)
    full, quick = Enumeration(game), Enumeration(game)
    for state in states[:4000]:
        score = full.score(state)
        assert quick.value(state) == (score > 0) - (score < 0), state
    assert len(quick.bounds) < len(full.scores)  # it searched less
    assert solve(game) == (full.score(game.initial_state()) > 0) - (full.score(game.initial_state()) < 0)


def test_nim_values_follow_the_nim_sum():
    nim = make_game("nim:heaps=1-2-3")  # nim-sum 0: the first player loses
    assert solve(nim) == -1
    assert solve(make_game("nim:heaps=3-4-5")) == 1


def test_reachable_states_counts_the_positions_of_tictactoe(ttt):
    assert sum(1 for _ in reachable_states(ttt)) == 5478


def test_flat_traps_are_real_traps(ttt):
    traps = flat_traps(ttt)
    assert traps, "tic-tac-toe has positions where pure Monte Carlo's favourite loses"
    assert [t.margin for t in traps] == sorted((t.margin for t in traps), reverse=True)
    for trap in traps:
        values = move_values(ttt, trap.state)
        exact = exact_flat_values(ttt, trap.state)
        top = max(exact.values())
        assert [m for m, v in exact.items() if v == top] == [trap.trap] == list(trap.leaders)  # unique leader
        assert values[trap.trap] == -1
        assert trap.safe and all(values[m] >= 0 for m in trap.safe)
        after = ttt.apply(trap.state, trap.trap)
        assert move_values(ttt, after)[trap.refutation] == 1  # the refutation wins for the opponent
        assert trap.margin == exact[trap.trap] - max(exact[m] for m in trap.safe) > 0
        assert trap.flat == {m: float(v) for m, v in exact.items()}


def test_equal_exact_flat_values_compare_equal(ttt):
    # The position of notebook 02: O's moves 2 (draws) and 4 (loses) are both worth -4/15
    # per playout. Float sums split them by about 1e-16; the exact values must tie.
    state = ttt.state_from_moves([1, 3, 5])
    exact = exact_flat_values(ttt, state)
    assert exact[2] == exact[4] == Fraction(-4, 15)
    assert flat_values(ttt, state)[2] == flat_values(ttt, state)[4]
    assert all(isinstance(v, Fraction) for v in exact.values())


def test_leading_moves_keeps_exact_ties_and_refuses_floats():
    assert leading_moves({0: Fraction(1, 3), 1: Fraction(2, 6), 2: Fraction(1, 4)}) == (0, 1)
    assert leading_moves({5: 1, 3: 1, 4: 0}) == (3, 5)
    with pytest.raises(TypeError, match="exact values"):
        leading_moves({0: 0.1, 1: 0.2})
    with pytest.raises(ValueError, match="empty"):
        leading_moves({})


def test_flat_trap_counts_under_each_tie_rule(ttt):
    unique, every = flat_traps(ttt), flat_traps(ttt, ties="all")
    assert len(unique) == 36 and len(every) == 38
    assert {t.state for t in unique} < {t.state for t in every}
    for trap in every:
        values = move_values(ttt, trap.state)
        assert all(values[m] == -1 for m in trap.leaders)
        top = max(trap.exact.values())
        assert set(trap.leaders) == {m for m, v in trap.exact.items() if v == top}
    assert sum(len(t.leaders) > 1 for t in every) == 2
    with pytest.raises(ValueError, match="unique"):
        flat_traps(ttt, ties="any")
    with pytest.raises(TypeError):
        flat_traps(ttt, ties=1)


def test_exact_move_odds_are_the_fractions_of_move_odds(ttt):
    state = ttt.state_from_moves([4, 0])
    floats, fractions = move_odds(ttt, state), exact_move_odds(ttt, state)
    assert set(floats) == set(fractions)
    for m, (first, second, draw) in fractions.items():
        assert first + second + draw == 1
        assert (float(first), float(second), float(draw)) == pytest.approx(tuple(floats[m]), abs=1e-12)


def test_flat_choice_odds_with_one_playout_match_brute_force(ttt):
    # One playout per move: every combination of the six results (+1, 0, -1 for O, to
    # move), with its exact probability; ties shared equally. 3^6 combinations, in fractions.
    from itertools import product

    state = ttt.state_from_moves([0, 4, 8])
    assert ttt.to_move(state) == 1
    odds = exact_move_odds(ttt, state)  # (X wins, O wins, draw)
    moves = list(odds)
    outcomes = {m: ((1, odds[m][1]), (0, odds[m][2]), (-1, odds[m][0])) for m in moves}
    chosen = dict.fromkeys(moves, Fraction(0))
    for combo in product(*(outcomes[m] for m in moves)):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        top = max(score for score, _ in combo)
        leaders = [m for m, (score, _) in zip(moves, combo, strict=True) if score == top]
        for m in leaders:
            chosen[m] += p / len(leaders)
    got = flat_choice_odds(ttt, state, 1)
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)
    for m in moves:
        assert got[m] == pytest.approx(float(chosen[m]), abs=1e-12)
    with pytest.raises(ValueError):
        flat_choice_odds(ttt, state, 0)


def test_perfect_player_makes_minimax_moves(ttt):
    states = [s for s in reachable_states(ttt) if not ttt.is_terminal(s)][::37]
    for state in states:
        for seed in (0, 1):
            assert PerfectPlayer(seed=seed).select_move(ttt, state) == Minimax(seed=seed).select_move(ttt, state)


def test_perfect_player_value_and_errors(ttt):
    analysis = PerfectPlayer(seed=0).analyse(ttt, ttt.state_from_moves([0, 3, 1, 4]))
    assert analysis.move == 2 and analysis.value == 1.0
    assert PerfectPlayer().analyse(ttt, ttt.initial_state()).value == 0.5
    with pytest.raises(ValueError, match="game is over"):
        PerfectPlayer().select_move(ttt, ttt.state_from_moves([0, 3, 1, 4, 2]))


def test_too_large_a_game_is_refused_with_advice(monkeypatch):
    import mctslab.exact.enumeration as enumeration

    monkeypatch.setattr(enumeration, "MAX_STATES", 100)  # where the limit is read
    with pytest.raises(ValueError, match="estimate by sampling"):
        random_play_odds(make_game("tictactoe:n=4,k=3"))
    with pytest.raises(ValueError, match="estimate by sampling"):
        solve(make_game("tictactoe:n=4,k=3"))
    assert MAX_STATES > 100
