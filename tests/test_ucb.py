"""The one UCB1 formula: scalars (the tree) and arrays (the bandits) agree."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mctslab import SQRT2, ucb1
from mctslab.ucb import exploration


def test_formula_by_hand():
    # 0.25 + sqrt(2) * sqrt(ln 100 / 8) = 0.25 + sqrt(2 * 4.60517 / 8)
    assert ucb1(0.25, 100, 8) == pytest.approx(0.25 + math.sqrt(2 * math.log(100) / 8))
    assert ucb1(0.25, 100, 8, c=0) == 0.25
    assert exploration(100, 8) == pytest.approx(ucb1(0.25, 100, 8) - 0.25)
    assert SQRT2 == math.sqrt(2)


def test_untried_children_come_first():
    assert ucb1(0.0, 10, 0) == math.inf and exploration(10, 0) == math.inf


def test_arrays_match_scalars():
    means = np.array([0.1, 0.5, 0.9, 0.3])
    counts = np.array([1, 5, 20, 0])
    bounds = ucb1(means, 26, counts, c=0.7)
    for m, n, b in zip(means, counts, bounds, strict=True):
        assert b == pytest.approx(ucb1(float(m), 26, int(n), c=0.7))
    assert ucb1(np.array([0.5]), 0, np.array([1]))[0] == ucb1(0.5, 0, 1) == 0.5


def test_negative_c_is_refused():
    with pytest.raises(ValueError, match="c must be >= 0"):
        ucb1(0.5, 10, 2, c=-0.1)
