"""The notebook's exercise checks accept right answers and explain wrong ones, never raising."""

from __future__ import annotations

import math

import numpy as np
import pytest
from machine_load import CpuClock

from mctslab.bandits import EpsilonGreedy, Greedy, Policy, argmax_random
from mctslab.course.exercises.bandits import check_epsilon_decreasing, check_tuned_c, check_two_sided_radius

SMALL = {"runs": 60, "steps": 5000}


class EpsilonDecreasing(Policy):
    """A right answer to exercise 1: epsilon_t = min(1, c K / (d^2 t))."""

    def __init__(self, c=0.1, d=0.2):
        self.c, self.d = c, d

    def select(self, stats, rng):
        epsilon = min(1.0, self.c * stats.arms / (self.d**2 * max(stats.t, 1)))
        greedy = argmax_random(np.where(stats.counts > 0, stats.means, np.inf), rng)
        return np.where(rng.random(stats.runs) < epsilon, rng.integers(0, stats.arms, stats.runs), greedy)


class Unfinished(Policy):
    def select(self, stats, rng):
        raise NotImplementedError("your code here")


def test_exercise_1_accepts_a_right_answer():
    assert check_epsilon_decreasing(EpsilonDecreasing, **SMALL).startswith("passed")


def not_yet(report, words):
    return report.startswith("not yet: ") and words in report


def test_exercise_1_rejects_greedy_and_fixed_epsilon():
    assert not_yet(check_epsilon_decreasing(Greedy, **SMALL), "worse machine")
    assert not_yet(check_epsilon_decreasing(EpsilonGreedy, epsilon=0.2, **SMALL), "linear growth would be 10")
    unfinished = check_epsilon_decreasing(Unfinished, **SMALL)
    assert unfinished.startswith("not written yet: fill in Unfinished.select above")


def test_an_error_in_the_answer_is_reported_in_one_line():
    class Broken(Policy):
        def select(self, stats, rng):
            return stats.nonexistent

    assert not_yet(check_epsilon_decreasing(Broken, **SMALL), "your code raised AttributeError")


def test_exercise_2_accepts_the_two_sided_radius_and_names_the_slips():
    assert check_two_sided_radius(lambda n, delta: math.sqrt(math.log(2 / delta) / (2 * n))).startswith("passed")
    assert not_yet(check_two_sided_radius(lambda n, delta: math.sqrt(math.log(1 / delta) / (2 * n))), "one-sided")
    slip = check_two_sided_radius(lambda n, delta: math.sqrt(-math.log(delta / (2 * n))))
    assert not_yet(slip, "inside the logarithm")
    assert not_yet(check_two_sided_radius(lambda n, delta: 1 / n), "not right")


def test_exercise_2_messages_do_not_give_the_formula_away():
    def stub(n, delta):
        raise NotImplementedError("exercise 2: your code here")

    assert check_two_sided_radius(stub).startswith("not written yet: write radius(n, delta) above")
    for wrong in (lambda n, d: math.sqrt(math.log(1 / d) / (2 * n)), lambda n, d: math.sqrt(-math.log(d / (2 * n)))):
        report = check_two_sided_radius(wrong)
        assert "ln(2" not in report and "delta / 2" not in report and "log(2" not in report


def test_exercise_3_accepts_a_good_c_and_rejects_greedy_ones():
    assert check_tuned_c(0.5, **SMALL).startswith("passed")
    assert not_yet(check_tuned_c(0.1, **SMALL), "stuck")
    assert not_yet(check_tuned_c(1.2, **SMALL), "half")
    assert check_tuned_c(None).startswith("not written yet: set my_c above")
    assert not_yet(check_tuned_c(-1.0, **SMALL), "must be >= 0")
    assert not_yet(check_tuned_c("0.5", **SMALL), "must be a number")


@pytest.mark.load
def test_a_policy_that_never_returns_is_stopped_at_the_limit(monkeypatch):

    from mctslab.course.exercises import bandits

    def endless_radius(n, delta):
        while True:
            n = n + 0

    monkeypatch.setattr(bandits, "CHECK_SECONDS", 0.3)
    with CpuClock() as clock:
        verdict = bandits.check_two_sided_radius(endless_radius)
    assert verdict.startswith("not yet: the check did not finish within 0.3 s of CPU time"), verdict
    assert clock.seconds < 0.3 + 2, clock.seconds
