"""Exact score distributions for the binary-tree puzzles (:mod:`mctslab.games.binarytree`).

Both puzzles score a path of ``depth`` moves; the best score is ``depth`` (all moves left).
What a search scores there is random, but its distribution is exact by dynamic programming:

* :func:`playout_distribution`: a uniformly random playout (a level-0 search). On *left move*
  its score is binomial, ``P(s) = C(depth, s) / 2**depth``; on *leftmost path* it is ``s`` with
  probability ``2**-(s + 1)`` for ``s < depth`` and ``2**-depth`` for ``s = depth`` (a run of
  ``s`` lefts, then a right).
* :func:`level1_distribution`: a level-1 Nested Monte Carlo Search with memorisation, exactly as
  :func:`mctslab.agents.nmcs.nested_search` runs it (left tried first, a tie keeps the sequence
  found first). On *left move* the state of the search at a step is the number of moves left
  and the number of left moves in the remembered sequence's remainder: which of its moves are
  left is uniformly random given that number (it came from a playout, chosen for its score
  only), so its next move is left with probability ``r / k``. On *leftmost path* a level-1 search
  always scores ``depth``: with a run of ``d`` lefts played, the playout after a left move
  scores at least ``d + 1`` and the one after a right move exactly ``d``, so the best sequence
  always goes left next.
* :func:`level1_cost`: the random playouts and random moves a level-1 search spends on a tree of
  depth ``depth``: two playouts a step; after the ``i``-th move ``depth - i`` random moves each.

Probabilities are :class:`fractions.Fraction`, so a claim can be checked without rounding.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

from ..games.binarytree import BinaryTreePuzzle, LeftmostPath, LeftMove

Distribution = dict[int, Fraction]
"""Score -> exact probability (scores with probability 0 left out)."""

MAX_EXACT_DEPTH = 24
"""The deepest left-move tree :func:`level1_distribution` accepts (its work grows as ``depth ** 5``)."""


def playout_distribution(game: BinaryTreePuzzle) -> Distribution:
    """The exact distribution of a uniformly random playout's score from the root.

    Raises:
        TypeError: if ``game`` is not one of the binary-tree puzzles.
    """
    if not isinstance(game, (LeftMove, LeftmostPath)):
        raise TypeError(f"playout_distribution() needs a leftmove or leftmost game, got {game!r}")
    n = game.depth
    if isinstance(game, LeftMove):
        return {s: Fraction(comb(n, s), 2**n) for s in range(n + 1)}
    if isinstance(game, LeftmostPath):
        return {s: Fraction(1, 2 ** (s + 1)) if s < n else Fraction(1, 2**n) for s in range(n + 1)}


def level1_distribution(game: BinaryTreePuzzle) -> Distribution:
    """The exact distribution of the score of a level-1 NMCS (with memorisation) from the root.

    Raises:
        TypeError: if ``game`` is not one of the binary-tree puzzles.
        ValueError: if a left-move tree is deeper than :data:`MAX_EXACT_DEPTH`.
    """
    if not isinstance(game, (LeftMove, LeftmostPath)):
        raise TypeError(f"level1_distribution() needs a leftmove or leftmost game, got {game!r}")
    n = game.depth
    if isinstance(game, LeftmostPath):
        return {n: Fraction(1)}
    if n > MAX_EXACT_DEPTH:
        raise ValueError(f"level1_distribution() solves left-move trees of depth at most {MAX_EXACT_DEPTH}, got {n}")
    return dict(sorted(_remaining_lefts(n, None).items()))


def mean(distribution: Distribution) -> Fraction:
    """The expected score of a distribution."""
    return sum((s * p for s, p in distribution.items()), Fraction(0))


def level1_cost(depth: int) -> tuple[int, int]:
    """``(playouts, random moves)`` of a level-1 search of a tree of ``depth``: ``2 * depth``, ``depth * (depth - 1)``.

    At the step with ``k`` moves to go, each of the two moves is followed by one playout of
    ``k - 1`` random moves: ``sum(2 * (k - 1) for k in 1..depth) = depth * (depth - 1)``.
    """
    return 2 * depth, sum(2 * (k - 1) for k in range(1, depth + 1))


@cache
def _binomial(k: int) -> tuple[Fraction, ...]:
    """``P(Bin(k, 1/2) = j)`` for ``j = 0..k``."""
    return tuple(Fraction(comb(k, j), 2**k) for j in range(k + 1))


@cache
def _remaining_lefts(k: int, remembered: int | None) -> Distribution:
    """Left moves a level-1 search plays in its last ``k`` moves; the remembered sequence has ``remembered`` there."""
    if k == 0:
        return {0: Fraction(1)}
    out: Distribution = {}
    playout = _binomial(k - 1)
    for j, p_left in enumerate(playout):  # after left: 1 + j lefts in k moves
        for y, p_right in enumerate(playout):  # after right: y lefts in k moves
            p = p_left * p_right
            best, first, rest = remembered, None, None  # None: the remembered sequence is kept
            if best is None or 1 + j > best:
                best, first, rest = 1 + j, 0, j
            if y > best:
                best, first, rest = y, 1, y
            if first is None:  # follow the remembered sequence: left with probability r / k
                assert remembered is not None
                branches = [(Fraction(remembered, k), 1, remembered - 1), (Fraction(k - remembered, k), 0, remembered)]
            else:
                branches = [(Fraction(1), 1 - first, rest)]
            for q, gained, left_after in branches:
                if q == 0:
                    continue
                for s, r in _remaining_lefts(k - 1, left_after).items():
                    out[s + gained] = out.get(s + gained, Fraction(0)) + p * q * r
    return out
