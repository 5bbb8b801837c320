"""What each wrong answer looks like: the visits of the classic slips in UCB1, and the point-of-view diagnosis."""

from __future__ import annotations

import math
from collections.abc import Callable

from ...ucb import SQRT2, ucb1


def _ucb1(mean: float, parent: int, child: int, c: float) -> float:
    return ucb1(mean, parent, child, c)


def _log_child(mean: float, parent: int, child: int, c: float) -> float:
    return mean + c * math.sqrt(math.log(child) / child)


def _two_inside(mean: float, parent: int, child: int, c: float) -> float:
    return mean + c * math.sqrt(2 * math.log(parent) / child)


def _two_outside(mean: float, parent: int, child: int, c: float) -> float:
    return mean + 2 * math.sqrt(math.log(parent) / child)


def _c_ignored(mean: float, parent: int, child: int, c: float) -> float:
    return mean + SQRT2 * math.sqrt(math.log(parent) / child)


_SLIPS: tuple[tuple[Callable[[float, int, int, float], float], str], ...] = (
    (
        _log_child,
        "These are the visits of a rule that never comes back to a worse arm: its exploration term is missing, "
        "or takes the logarithm of the child's own visits, while UCB1's logarithm is of the parent's visits N "
        "(how often the choice was made), divided by the child's visits n.",
    ),
    (
        _two_inside,
        "These are the visits of an exploration term sqrt(2) times too large: with c = sqrt(2), the 2 of "
        "sqrt(2 ln N / n) is already in c, so it must not also appear inside the square root.",
    ),
    (
        _two_outside,
        "These are the visits of an exploration term 2 sqrt(ln N / n): a factor 2 outside the square root is "
        "not UCB1's sqrt(2 ln N / n) = sqrt(2) sqrt(ln N / n); the factor outside the root is the constant c.",
    ),
    (
        _c_ignored,
        "These are the visits of UCB1 with c = sqrt(2) whatever the agent's `c`: use the constant c in the "
        "exploration term, c sqrt(ln N / n).",
    ),
)


def _fingerprint(
    means: dict[int, float], n: int, c: float, rule: Callable[[float, int, int, float], float]
) -> list[tuple[float, int]]:
    """Visits of each arm after ``n`` selections by ``rule``, as sorted ``(mean, visits)`` pairs.

    Every arm is tried once first (an unvisited child is worth infinity); afterwards the
    arm with the highest ``rule(mean, parent visits, arm visits, c)`` is chosen.
    """
    arms = sorted(means)
    visits = dict.fromkeys(arms, 0)
    for t in range(n):
        fresh = [a for a in arms if visits[a] == 0]
        if fresh:
            visits[fresh[0]] += 1
            continue
        best = max(arms, key=lambda a: rule(means[a], t, visits[a], c))
        visits[best] += 1
    return sorted((means[a], visits[a]) for a in arms)


def _one_move_diagnosis(missed: dict[str, list[str]]) -> str:
    win_x, win_o = "win as X" in missed, "win as O" in missed
    block_x, block_o = "block as X" in missed, "block as O" in missed
    if win_x != win_o:
        good, bad = ("X", "O") if win_o else ("O", "X")
        return (
            f"Wins in one as {good} but not as {bad}: your agent scores results for one fixed player. Each node's "
            "`wins` must count the results for the player who made the move into that node, which alternates "
            "down the tree."
        )
    if win_x and win_o:
        return (
            "Misses wins in one from both seats: each node's `wins` must count results for the player who made "
            "the move into it (node.player), not for the player to move there; choosing at a node maximises the "
            "chooser's own results."
        )
    if block_x != block_o:
        good, bad = ("X", "O") if block_o else ("O", "X")
        return (
            f"Blocks the opponent's win as {good} but not as {bad}: results are scored for one fixed player "
            "somewhere in the tree; every node counts them for the player who moved into it."
        )
    return (
        "Finds its own wins in one but does not stop the opponent's: below the root, the opponent's replies are "
        "scored from the wrong point of view. Every node counts results for the player who made the move into "
        "it, so at the opponent's turn the tree follows the opponent's best replies."
    )
