"""Checks of the last two phases of UCT, on small hand-built trees of :class:`TreeNode` (notebook 04b).

* ``simulate(game, node, rng)``: a uniformly random playout from ``node``; the per-player returns;
* ``backpropagate(node, returns)``: add the playout to every node from ``node`` up to the root.

The first three (UCB1, selection, expansion) are in :mod:`.parts`; both report as they do.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ...exact import random_play_odds
from ...games import make_game
from ...tournament.stats import wilson
from .parts import Outcome, _node, _run
from .report import Report
from .tree import TreeNode
from .uct import position

__all__ = ["check_backpropagate", "check_simulate"]


# -- simulation ---------------------------------------------------------------------
SIMULATE_PLAYOUTS = 3000
"""Playouts from the empty board that :func:`check_simulate` compares with exact random play."""


def check_simulate(simulate_function: Callable[[Any, TreeNode, random.Random], Any]) -> Report:
    """Check a student's ``simulate(game, node, rng)``: a uniformly random playout's per-player returns.

    From a won and a drawn position it must return the result, ``(1.0, 0.0)`` or
    ``(0.5, 0.5)``; from the empty board, over :data:`SIMULATE_PLAYOUTS` playouts, the
    rates of X wins, O wins and draws must lie in their 99.9% Wilson intervals around
    the exact rates of uniformly random play (:func:`mctslab.exact.random_play_odds`).
    A right answer that draws its moves differently from the package fails this last
    check by chance about 0.3% of the time at most (three 99.9% intervals).

    Returns:
        A :class:`Report` with the checks ``finished``, ``draw`` and ``random``.
    """
    game = make_game("tictactoe")

    def finished() -> Outcome:
        won = TreeNode(position("XXXOO...."), 0)
        got = simulate_function(game, won, random.Random(0))
        if _pair(got) == (1.0, 0.0):
            return True, "from a position X has won: (1.0, 0.0), one return per player"
        return False, (
            f"from a position X has already won, simulate returned {got!r}: return the per-player returns "
            "(X's, O's), 1 for a win and 0 for a loss, as game.returns(state) gives them"
        )

    def draw() -> Outcome:
        state = position("XOXXOOOX.")
        got = simulate_function(game, TreeNode(state, 1), random.Random(0))
        if _pair(got) == (0.5, 0.5):
            return True, "a drawn playout returns (0.5, 0.5): a draw is half a win for each player"
        return False, f"a playout that can only end in a draw returned {got!r}: a draw is worth 0.5 to each player"

    def uniform() -> Outcome:
        rng = random.Random(0)
        node = TreeNode(game.initial_state(), 1)
        counts = [0, 0, 0]
        for _ in range(SIMULATE_PLAYOUTS):
            r = _pair(simulate_function(game, node, rng))
            counts[0 if r == (1.0, 0.0) else 1 if r == (0.0, 1.0) else 2] += 1
        exact = random_play_odds(game)
        shown = []
        ok = True
        for k, (label, p) in enumerate(zip(("X wins", "O wins", "draws"), exact, strict=True)):
            low, high = wilson(counts[k], SIMULATE_PLAYOUTS, 0.999)
            ok &= low <= p <= high
            shown.append(f"{label} {counts[k] / SIMULATE_PLAYOUTS:.3f} (exact {p:.3f})")
        if ok:
            return True, f"{SIMULATE_PLAYOUTS:,} playouts from the empty board: " + ", ".join(shown)
        return False, (
            f"{SIMULATE_PLAYOUTS:,} playouts from the empty board do not look uniformly random: "
            + ", ".join(shown)
            + ". Choose each move uniformly among the legal moves, with the rng given"
        )

    return _run("check_simulate", simulate_function, [
        ("finished", "a finished game returns its result", finished),
        ("draw", "a draw is half a win each", draw),
        ("random", "playouts are uniformly random", uniform),
    ])  # fmt: skip


def _pair(returns: Any) -> tuple[float, float] | Any:
    try:
        a, b = returns
        return (float(a), float(b))
    except (TypeError, ValueError):
        return returns


# -- backpropagation ----------------------------------------------------------------
def _path() -> tuple[TreeNode, TreeNode, TreeNode, TreeNode]:
    """root (X to move) -> a (X moved) -> b (O moved), and a sibling of ``a``; visits 3, 2, 1, 1."""
    root = _node(3, 1.0)
    root.player = 1
    a = _node(2, 1.0, 0, root)
    sibling = _node(1, 1.0, 1, root)
    b = _node(1, 0.0, 4, a)
    return root, a, b, sibling


_BACKUP_SLIPS: tuple[tuple[Callable[[TreeNode, tuple[float, float]], float], str], ...] = (
    (lambda node, r: r[0], "every node is credited with X's result: a fixed player's point of view"),
    (lambda node, r: r[1 - node.player], "each node is credited with the result of the player to move there, "
     "the opponent of the player who moved into it"),
    (lambda node, r: 1.0 if r[node.player] == 1.0 else 0.0, "a draw adds nothing: it is worth half a win, 0.5"),
)  # fmt: skip


def check_backpropagate(backpropagate_function: Callable[[TreeNode, tuple[float, float]], None]) -> Report:
    """Check a student's ``backpropagate(node, returns)`` on a three-level path.

    Every node from ``node`` up to the root gains one visit and ``returns[node.player]``
    (the result of the player who moved into it); other nodes are left alone. Checked
    with an X win, an O win and a draw.

    Returns:
        A :class:`Report` with the checks ``path`` and ``point_of_view``; names the
        fixed-player and opposite-player bugs and draws scored as losses.
    """

    def run(returns: tuple[float, float]) -> list[tuple[int, float]]:
        nodes = _path()
        before = [(n.visits, n.wins) for n in nodes]
        backpropagate_function(nodes[2], returns)
        return [(n.visits - v, n.wins - w) for n, (v, w) in zip(nodes, before, strict=True)]

    def path() -> Outcome:
        visits = [d[0] for d in run((1.0, 0.0))]
        if visits == [1, 1, 1, 0]:
            return True, "one visit added to each node from the leaf up to the root, and to no other"
        if visits[3]:
            return False, "a node off the path changed: only the nodes from the leaf up to the root take part"
        if visits[2] and not visits[0] and visits[1]:
            return False, "the root was not updated: climb through `parent` until there is none (the root included)"
        if visits[2] and not visits[1]:
            return False, "only the leaf was updated: walk up through `parent` to the root"
        if not visits[2]:
            return False, "the node given was not updated: start from it, then climb to the root"
        return False, f"the visits added were {visits[:3]} (leaf last reversed: root, child, leaf): each must be 1"

    def point_of_view() -> Outcome:
        cases = ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5))
        got = [[round(d[1], 9) for d in run(r)][:3] for r in cases]
        players = [1, 0, 1]  # root, a, b

        def credit(rule):
            return [[round(rule(_Player(p), r), 9) for p in players] for r in cases]

        if got == credit(lambda node, r: r[node.player]):
            return True, "X wins, O wins and a draw: each node gained the result of the player who moved into it"
        for rule, words in _BACKUP_SLIPS:
            if got == credit(rule):
                return False, f"wrong point of view: {words}"
        return False, (
            f"wins added (root, child, leaf) for an X win, an O win and a draw: {got}; each node must gain "
            "returns[node.player], the result of the player who moved into it"
        )

    return _run("check_backpropagate", backpropagate_function, [
        ("path", "one visit on each node of the path", path),
        ("point_of_view", "results credited to the player who moved", point_of_view),
    ])  # fmt: skip


class _Player:
    __slots__ = ("player",)

    def __init__(self, player: int) -> None:
        self.player = player
