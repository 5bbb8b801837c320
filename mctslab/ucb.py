"""UCB1, the one formula shared by the bandit policies and the UCT tree policy.

``ucb1 = mean + c * sqrt(ln(n_parent) / n_child)`` (Auer, Cesa-Bianchi and Fischer
2002, with ``c = sqrt(2)``; Kocsis and Szepesvari 2006 use it at every tree node).
Means are on the reward scale of the whole package: win 1, draw 0.5, loss 0.
See ``notebooks/01_bandits_and_ucb1.ipynb`` for the derivation from Hoeffding's
inequality.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np

SQRT2 = math.sqrt(2.0)
"""The default exploration constant ``c``."""


def exploration(n_parent: float, n_child: float, c: float = SQRT2) -> float:
    """The exploration term ``c * sqrt(ln(n_parent) / n_child)`` of :func:`ucb1` (scalars).

    Returns ``inf`` for an arm or child that has never been tried.
    """
    if n_child <= 0:
        return math.inf
    return c * math.sqrt(math.log(n_parent) / n_child) if n_parent > 1 else 0.0


@overload
def ucb1(mean: float, n_parent: float, n_child: float, c: float = ...) -> float: ...
@overload
def ucb1(mean: np.ndarray, n_parent: np.ndarray | float, n_child: np.ndarray, c: float = ...) -> np.ndarray: ...


def ucb1(mean, n_parent, n_child, c=SQRT2):
    """Upper confidence bound UCB1: ``mean + c * sqrt(ln(n_parent) / n_child)``.

    Works on Python numbers (the tree search) and, elementwise, on NumPy arrays
    (the vectorised bandit experiments). An arm or child with ``n_child == 0``
    gets ``+inf``, so every arm is tried once before any is tried twice.

    Args:
        mean: observed mean reward of the arm or child, in [0, 1].
        n_parent: total number of plays at the parent (``t`` for a bandit), >= 1.
        n_child: number of plays of this arm or child, >= 0.
        c: exploration constant, >= 0 (default ``sqrt(2)``).

    Returns:
        The upper bound, a float or an array of the broadcast shape.

    Raises:
        ValueError: if ``c`` is negative.
    """
    if c < 0:
        raise ValueError(f"the exploration constant c must be >= 0, got {c}")
    if isinstance(mean, np.ndarray) or isinstance(n_child, np.ndarray) or isinstance(n_parent, np.ndarray):
        n_child = np.asarray(n_child, dtype=float)
        if type(n_parent) is int and 0 < c < math.inf and n_child.ndim and n_child.size and n_child.min() > 0:
            # Every arm tried, as in most steps of a bandit experiment: no division by zero
            # to silence and no inf for np.where to put in. The same operations on the same
            # numbers as below (np.log of an int is np.log of np.maximum's int), a quarter faster.
            return mean + c * np.sqrt(np.log(max(n_parent, 1)) / n_child)
        with np.errstate(divide="ignore", invalid="ignore"):
            bonus = c * np.sqrt(np.log(np.maximum(n_parent, 1)) / n_child)
        return np.where(n_child > 0, mean + bonus, np.inf)
    if n_child <= 0:
        return math.inf
    # ln(n_parent) for n_parent <= 1 is taken as 0, as in the array branch.
    return mean + c * math.sqrt(math.log(n_parent) / n_child) if n_parent > 1 else mean
