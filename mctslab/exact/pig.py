"""Pig solved: the winning probability of every position under optimal play, by value iteration.

Neller & Presser (2004, "Optimal Play of the Dice Game Pig", The UMAP Journal 25(1))
write ``P(i, j, k)`` for the probability that the player to move wins with score ``i``,
the opponent's score ``j`` and turn total ``k``, both playing optimally. With a die of
``d`` faces and target ``T`` (``P = 1`` once ``i + k >= T``: holding wins):

* hold: ``1 - P(j, i + k, 0)`` (the opponent moves next, with the scores swapped);
* roll: ``(1 - P(j, i, 0)) / d + sum over faces r = 2..d of P(i, j, k + r) / d``;
* ``P(i, j, k) = max(hold, roll)``.

These equations go round in circles (pigging out twice returns to the same position),
so they are solved by **value iteration**: start from 0 and apply them to every position
at once until no value moves by more than ``tol`` (default ``1e-12``) in a sweep.
:func:`policy_values` does the same for a fixed policy (no ``max``), e.g. "hold at 20".

For tiny games :func:`exact_policy_values` solves the linear equations of a fixed policy
exactly with fractions (Gaussian elimination): an independent check of the iteration,
and, with :func:`is_optimal_exactly`, a proof that a policy is optimal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

TOLERANCE = 1e-12
"""Value iteration stops when a sweep changes no value by more than this."""

MAX_SWEEPS = 100_000


@dataclass(frozen=True)
class PigSolution:
    """Values of Pig positions, from value iteration.

    Attributes:
        target: the score that wins.
        die: the number of faces.
        values: ``values[i, j, k]``: the probability that the player to move, with score
            ``i`` (< target) against ``j`` (< target) and turn total ``k``, wins (1 when
            ``i + k >= target``). Shape ``(target, target, target + die)``.
        roll: ``roll[i, j, k]`` True where the policy rolls (False: holds; always False when
            ``i + k >= target``).
        sweeps: value-iteration sweeps done.
        change: the largest change of a value in the last sweep (< the tolerance asked).
    """

    target: int
    die: int
    values: np.ndarray
    roll: np.ndarray
    sweeps: int
    change: float

    def value(self, mine: int, theirs: int, total: int = 0) -> float:
        """The winning probability of the player to move at (mine, theirs, total)."""
        if mine + total >= self.target:
            return 1.0
        return float(self.values[mine, theirs, total])

    def sides(self, mine: int, theirs: int, total: int = 0) -> tuple[float, float]:
        """(hold, roll): the winning probability after holding and after rolling at (mine, theirs, total).

        After rolling, play goes on by this solution's policy. Holding once ``mine + total``
        reaches the target wins (1.0); rolling there is not allowed (``nan``).
        """
        if mine + total >= self.target:
            return 1.0, float("nan")
        hold = 1.0 if mine + total >= self.target else 1.0 - self.value(theirs, mine + total)
        roll = 1.0 - self.value(theirs, mine) + sum(self.value(mine, theirs, total + r) for r in range(2, self.die + 1))
        return hold, roll / self.die

    def move(self, mine: int, theirs: int, total: int = 0) -> int:
        """The policy's move at (mine, theirs, total): ``0`` roll or ``1`` hold (Pig's moves)."""
        if mine + total >= self.target:
            return 1
        return 0 if self.roll[mine, theirs, total] else 1


def _sides(values: np.ndarray, target: int, die: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hold, roll, valid) for every (i, j, k < target): the two sides of the Bellman equation (:func:`_hold`,
    :func:`_roll`) where ``i + k < target`` (``valid``), 1 elsewhere (holding there wins)."""
    valid = _valid(target)
    flat = np.ascontiguousarray(values).reshape(-1)
    plan = _plan(target, die)
    hold, roll = np.ones(valid.shape), np.ones(valid.shape)
    hold[valid] = _hold(flat, plan)
    roll[valid] = _roll(flat, plan, die)
    return hold, roll, valid


@lru_cache(maxsize=8)
def _valid(target: int) -> np.ndarray:
    """Where ``i + k < target``, over the grid ``(i, j, k < target)``: the positions still in play."""
    i, _, k = np.ogrid[:target, :1, :target]
    return np.broadcast_to(i + k < target, (target, target, target))


@lru_cache(maxsize=4)
def _plan(target: int, die: int) -> tuple[np.ndarray, ...]:
    """Flat indices into the values array (shape ``(target, target, target + die)``) for every position
    ``(i, j, k)`` with ``i + k < target``, in C order: the position itself, where holding leads
    (``(j, i + k, 0)``), where a pig-out leads (``(j, i, 0)``), and each face's ``(i, j, k + r)``, r = 2..die.
    """
    shape = (target, target, target + die)
    i, j, k = np.nonzero(_valid(target))
    here = np.ravel_multi_index((i, j, k), shape)
    held = np.ravel_multi_index((j, i + k, np.zeros_like(k)), shape)
    pigged = np.ravel_multi_index((j, i, np.zeros_like(k)), shape)
    faces = tuple(here + r for r in range(2, die + 1))  # (i, j, k + r): r further along the last axis
    return (here, held, pigged, *faces)


def _iterate(
    target: int, die: int, tol: float, fixed: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Value iteration over the positions with ``i + k < target`` (the others are won: 1).

    Each sweep computes the two sides (:func:`_hold`, :func:`_roll`) on those positions only:
    optimal play (roll where rolling is strictly better) or, with ``fixed`` (where the policy
    rolls, over those positions in C order), that policy, for which only the side it takes is
    computed.
    """
    if not (isinstance(target, int) and 1 <= target <= 1000 and isinstance(die, int) and 2 <= die <= 20):
        raise ValueError(f"solve Pig with a target from 1 to 1000 and a die of 2 to 20 faces, got {target=}, {die=}")
    if not 0 < tol < 1:
        raise ValueError(f"the tolerance must lie between 0 and 1, got {tol}")
    values = np.zeros((target, target, target + die))
    i, k = np.ogrid[:target, : target + die]
    won = np.broadcast_to((i + k >= target)[:, None, :], values.shape)
    values[won] = 1.0
    flat = values.reshape(-1)  # a view: writing to it writes the values
    plan = _plan(target, die)
    if fixed is not None:  # each side on its own positions only
        rolling, holding = fixed, ~fixed
        plan_roll = tuple(index[rolling] for index in plan)
        plan_hold = tuple(index[holding] for index in plan)
    for sweep in range(1, MAX_SWEEPS + 1):
        if fixed is None:
            hold, roll = _hold(flat, plan), _roll(flat, plan, die)
            rolls = roll > hold  # ties go to holding
            new = np.where(rolls, roll, hold)
        else:
            rolls = fixed
            new = np.empty(len(plan[0]))
            new[rolling] = _roll(flat, plan_roll, die)
            new[holding] = _hold(flat, plan_hold)
        change = float(np.abs(new - flat.take(plan[0])).max()) if new.size else 0.0
        flat[plan[0]] = new
        if change < tol:
            full = np.zeros((target, target, target), dtype=bool)
            full[_valid(target)] = rolls
            return values, full, sweep, change
    raise RuntimeError(f"value iteration did not reach the tolerance {tol} in {MAX_SWEEPS} sweeps")


def _hold(flat: np.ndarray, plan: tuple[np.ndarray, ...]) -> np.ndarray:
    """Holding's value at the positions of ``plan`` (:func:`_plan`): ``1 - P(j, i + k, 0)``."""
    return 1.0 - flat.take(plan[1])


def _roll(flat: np.ndarray, plan: tuple[np.ndarray, ...], die: int) -> np.ndarray:
    """Rolling's value at the positions of ``plan`` (:func:`_plan`): ``(1 - P(j, i, 0) + sum P(i, j, k + r)) / die``.

    Summed in that order (the faces r = 2 to ``die`` first), as every caller relies on for the same values.
    """
    rolled = flat.take(plan[3])
    for face in plan[4:]:
        rolled += flat.take(face)
    return ((1.0 - flat.take(plan[2])) + rolled) / die


@lru_cache(maxsize=16)
def solve(target: int = 100, die: int = 6, tol: float = TOLERANCE) -> PigSolution:
    """Optimal play: value iteration on Neller & Presser's equations until a sweep changes no value by ``tol``.

    Ties between rolling and holding go to holding. Solutions are cached (each call with
    the same arguments returns the same object; do not change its arrays).

    Raises:
        ValueError: for a target outside 1-1000, a die outside 2-20 faces, or a tolerance outside (0, 1).
    """
    values, rolls, sweeps, change = _iterate(target, die, tol)
    return PigSolution(target, die, values, rolls, sweeps, change)


def hold_at(limit: int) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """The policy "hold at ``limit`` (or at the target)": roll while the turn total is below ``limit``.

    Returns a function of (i, j, k) index grids giving True where the policy rolls.
    """
    return lambda i, j, k: k < limit


def policy_values(
    policy: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    target: int = 100,
    die: int = 6,
    tol: float = TOLERANCE,
) -> PigSolution:
    """Both players following ``policy`` (e.g. :func:`hold_at` (20)): each position's winning probability.

    Value iteration of the fixed policy (the equations without ``max``), to the tolerance ``tol``.
    ``values[0, 0, 0]`` is the first player's winning probability.
    """
    i, j, k = np.ogrid[:target, :target, :target]
    rolls = np.broadcast_to(policy(i, j, k), (target, target, target))[_valid(target)]
    values, rolls, sweeps, change = _iterate(target, die, tol, np.array(rolls, dtype=bool))
    return PigSolution(target, die, values, rolls, sweeps, change)


def bellman_residual(solution: PigSolution) -> float:
    """The largest ``|P - max(hold, roll)|`` over all positions: 0 for an exact optimal solution."""
    hold, roll, _ = _sides(solution.values, solution.target, solution.die)
    return float(np.abs(solution.values[:, :, : solution.target] - np.maximum(hold, roll)).max())


# -- exact, with fractions, for tiny games -----------------------------------------------


def positions(target: int) -> list[tuple[int, int, int]]:
    """Every decision position (i, j, k) with ``i, j < target`` and ``i + k < target``."""
    return [(i, j, k) for i in range(target) for j in range(target) for k in range(target - i)]


def exact_policy_values(target: int, die: int, rolls: Callable[[int, int, int], bool]) -> dict[tuple, Fraction]:
    """The winning probability of each position when both players follow ``rolls``, exactly (fractions).

    Solves the linear equations of the policy by Gaussian elimination; for tiny games
    (a few hundred positions). ``rolls(i, j, k)`` says whether the policy rolls there.

    Raises:
        ValueError: if the game has more than 400 positions, or the policy never ends the game (a singular system).
    """
    states = positions(target)
    if len(states) > 400:
        raise ValueError(f"{len(states)} positions is too many for exact fractions; use a target below 10")
    index = {s: n for n, s in enumerate(states)}
    size = len(states)
    rows: list[dict[int, Fraction]] = []
    rhs: list[Fraction] = []
    p = Fraction(1, die)
    for i, j, k in states:
        row = {index[i, j, k]: Fraction(1)}
        if rolls(i, j, k):  # x - p (1 - x[j,i,0]) - p sum x[i,j,k+r] = 0
            row[index[j, i, 0]] = row.get(index[j, i, 0], Fraction(0)) + p
            b = p
            for r in range(2, die + 1):
                if i + k + r >= target:
                    b += p
                else:
                    n = index[i, j, k + r]
                    row[n] = row.get(n, Fraction(0)) - p
        else:  # x + x[j, i+k, 0] = 1
            n = index[j, i + k, 0]
            row[n] = row.get(n, Fraction(0)) + 1
            b = Fraction(1)
        rows.append(row)
        rhs.append(b)
    return dict(zip(states, _gauss(rows, rhs, size), strict=True))


def _gauss(rows: list[dict[int, Fraction]], rhs: list[Fraction], size: int) -> list[Fraction]:
    """Solve the sparse system exactly (Gauss-Jordan with row pivoting)."""
    rows = [dict(r) for r in rows]
    rhs = list(rhs)
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r].get(col, 0) != 0), None)
        if pivot is None:
            raise ValueError("the policy's equations are singular: it can play forever (hold with nothing at stake)")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        rhs[col], rhs[pivot] = rhs[pivot], rhs[col]
        lead = rows[col][col]
        if lead != 1:
            rows[col] = {c: v / lead for c, v in rows[col].items()}
            rhs[col] /= lead
        for r in range(size):
            factor = rows[r].get(col, 0) if r != col else 0
            if factor:
                for c, v in rows[col].items():
                    new = rows[r].get(c, 0) - factor * v
                    if new:
                        rows[r][c] = new
                    else:
                        rows[r].pop(c, None)
                rhs[r] -= factor * rhs[col]
    return rhs


def exact_sides(
    target: int, die: int, values: dict[tuple, Fraction], i: int, j: int, k: int
) -> tuple[Fraction, Fraction]:
    """(hold, roll) at (i, j, k), exactly, from exact position values."""

    def value(a: int, b: int, c: int) -> Fraction:
        return Fraction(1) if a + c >= target else values[a, b, c]

    hold = 1 - value(j, i + k, 0)
    roll = (1 - value(j, i, 0) + sum(value(i, j, k + r) for r in range(2, die + 1))) / die
    return hold, roll


def is_optimal_exactly(target: int, die: int, values: dict[tuple, Fraction]) -> bool:
    """True if exact ``values`` satisfy the Bellman optimality equations exactly: ``P = max(hold, roll)`` everywhere."""
    return all(values[s] == max(exact_sides(target, die, values, *s)) for s in values)


def duel(
    rolls_a: np.ndarray, rolls_b: np.ndarray, target: int = 100, die: int = 6, tol: float = TOLERANCE
) -> tuple[float, float]:
    """Policy A against policy B: A's winning probability when A moves first, and when B does.

    ``rolls_a`` and ``rolls_b`` are boolean arrays of shape ``(target, target, target)``
    (a :attr:`PigSolution.roll`, or ``hold_at(20)`` evaluated on the grid: :func:`policy_grid`).
    Value iteration of the two coupled equations, to the tolerance ``tol``.
    """
    a = np.zeros((target, target, target + die))
    i, k = np.ogrid[:target, : target + die]
    won = np.broadcast_to((i + k >= target)[:, None, :], a.shape)
    a[won] = 1.0
    b = a.copy()
    for _ in range(MAX_SWEEPS):
        change = 0.0
        for mine, other, rolls in ((a, b, rolls_a), (b, a, rolls_b)):
            # The opponent's start values, from its own table: both tables share _sides's layout.
            hold, roll, valid = _sides(np.concatenate([other[:, :, :1], mine[:, :, 1:]], axis=2), target, die)
            new = np.where(rolls[:, :, :target] & valid, roll, hold)
            change = max(change, float(np.abs(new - mine[:, :, :target]).max()))
            mine[:, :, :target] = new
        if change < tol:
            return float(a[0, 0, 0]), float(1.0 - b[0, 0, 0])
    raise RuntimeError(f"value iteration did not reach the tolerance {tol} in {MAX_SWEEPS} sweeps")


def policy_grid(policy: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray], target: int) -> np.ndarray:
    """A policy such as ``hold_at(20)`` as a boolean array, shape ``(target, target, target)``: True where it rolls."""
    i, j, k = np.ogrid[:target, :target, :target]
    return np.broadcast_to(policy(i, j, k), (target, target, target)).copy()
