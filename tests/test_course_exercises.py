"""The exercise checks of notebooks 02 and 05: right, wrong and unfinished answers (course.experiments.exercises)."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from machine_load import CpuClock

from mctslab.course.experiments.exercises import (
    Verdict,
    check_centre_playouts,
    check_flat,
    check_games_needed,
    check_settled,
)


def reference_flat(game, state, playouts, rng):
    me = game.to_move(state)
    best, best_score = None, -math.inf
    for move in game.legal_moves(state):
        child = game.apply(state, move)
        results = [game.rollout(child, rng)[me] for _ in range(playouts)]
        score = results.count(1.0) - results.count(0.0)
        if score > best_score:
            best, best_score = move, score
    return best


def x_point_of_view_flat(game, state, playouts, rng):
    # the classic mistake: scores always for X (player 0), whoever is to move
    best, best_score = None, -math.inf
    for move in game.legal_moves(state):
        child = game.apply(state, move)
        results = [game.rollout(child, rng)[0] for _ in range(playouts)]
        score = results.count(1.0) - results.count(0.0)
        if score > best_score:
            best, best_score = move, score
    return best


def stub(*args):
    raise NotImplementedError("exercise: your code here")


def test_check_flat_passes_the_reference_and_diagnoses_mistakes():
    passed = check_flat(reference_flat, seeds=4, playouts=200)
    assert passed.ok and passed.done and passed.message.startswith("passed") and bool(passed)
    wrong = check_flat(x_point_of_view_flat, seeds=4, playouts=200)
    assert not wrong.ok and wrong.done and "sign" in wrong.message
    unfinished = check_flat(stub)
    assert not unfinished.ok and not unfinished.done and "not written yet" in repr(unfinished)
    illegal = check_flat(lambda game, state, n, rng: 0)  # cell 0 is taken in the first position
    assert not illegal.ok and "not a legal move" in illegal.message
    crashed = check_flat(lambda game, state, n, rng: 1 / 0)
    assert not crashed.ok and "ZeroDivisionError" in crashed.message


def test_check_centre_playouts_grades_without_giving_the_answer():
    assert not check_centre_playouts(None).done
    assert "not one of" in check_centre_playouts(123).message
    low = check_centre_playouts(100, trials=4000)
    assert not low.ok and "not enough" in low.message
    high = check_centre_playouts(1000, trials=4000)
    assert not high.ok and "look lower" in high.message
    # the answer, found by scanning the same prediction the check uses
    answers = [n for n in range(50, 1001, 50) if check_centre_playouts(n, trials=4000).ok]
    assert len(answers) == 1 and 200 < answers[0] < 500


def reference_games_needed(p1, p2):
    z_alpha, z_beta = NormalDist().inv_cdf(0.975), NormalDist().inv_cdf(0.8)
    mean = (p1 + p2) / 2
    spread = z_alpha * math.sqrt(2 * mean * (1 - mean)) + z_beta * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    return math.ceil((spread / (p1 - p2)) ** 2)


def test_check_games_needed():
    assert check_games_needed(reference_games_needed).ok
    unrounded = check_games_needed(lambda p1, p2: reference_games_needed(p1, p2) - 0.5)
    assert not unrounded.ok and "round up" in unrounded.message
    one_sided = check_games_needed(lambda p1, p2: reference_games_needed(p1, p2) // 2)
    assert not one_sided.ok and "expected" in one_sided.message
    assert not check_games_needed(stub).done


def test_check_settled_refuses_bad_numbers_and_unsettled_matches():
    assert not check_settled(None).done
    for bad in (0, 1001, 2.5, True):
        verdict = check_settled(bad)
        assert not verdict.ok and verdict.done and "between 1 and 1,000" in verdict.message
    few = check_settled(6)  # six games cannot exclude 0.5
    assert isinstance(few, Verdict) and not few.ok and "contains 0.5" in few.message


@pytest.mark.load
def test_an_answer_that_never_returns_is_stopped_at_the_limit(monkeypatch):

    from mctslab.course.experiments import exercises

    def my_flat(game, state, playouts, rng):  # a playout loop that never ends
        while not game.is_terminal(state):
            pass

    def my_games_needed(p1, p2):
        n = 1
        while n > 0:
            n += 1

    monkeypatch.setattr(exercises, "CALL_SECONDS", 0.3)
    with CpuClock() as clock:
        flat = check_flat(my_flat)
        needed = check_games_needed(my_games_needed)
    assert clock.seconds < 2 * 0.3 + 2, clock.seconds
    assert not flat and str(flat).startswith("`my_flat` did not return within 0.3 s of CPU time"), flat
    assert not needed and str(needed).startswith("`my_games_needed` did not return within 0.3 s of CPU"), needed
