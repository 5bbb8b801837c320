"""The notebook's exercise checks accept right answers and explain wrong ones."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mctslab.bandits import EpsilonGreedy, Greedy, Policy, argmax_random
from mctslab.bandits.exercises import check_epsilon_decreasing, check_tuned_c, check_two_sided_radius

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


def test_exercise_1_rejects_greedy_and_fixed_epsilon():
    with pytest.raises(AssertionError, match="worse machine"):
        check_epsilon_decreasing(Greedy, **SMALL)
    with pytest.raises(AssertionError, match="linear growth would be 10"):
        check_epsilon_decreasing(EpsilonGreedy, epsilon=0.2, **SMALL)
    with pytest.raises(NotImplementedError):
        check_epsilon_decreasing(Unfinished, **SMALL)


def test_exercise_2_accepts_the_two_sided_radius_and_names_the_slips():
    assert check_two_sided_radius(lambda n, delta: math.sqrt(math.log(2 / delta) / (2 * n))).startswith("passed")
    with pytest.raises(AssertionError, match="one-sided"):
        check_two_sided_radius(lambda n, delta: math.sqrt(math.log(1 / delta) / (2 * n)))
    with pytest.raises(AssertionError, match="inside the logarithm"):
        check_two_sided_radius(lambda n, delta: math.sqrt(-math.log(delta / (2 * n))))
    with pytest.raises(AssertionError, match="not right"):
        check_two_sided_radius(lambda n, delta: 1 / n)


def test_exercise_3_accepts_a_good_c_and_rejects_greedy_ones():
    assert check_tuned_c(0.5, **SMALL).startswith("passed")
    with pytest.raises(AssertionError, match="stuck"):
        check_tuned_c(0.1, **SMALL)
    with pytest.raises(AssertionError, match="half"):
        check_tuned_c(1.2, **SMALL)
