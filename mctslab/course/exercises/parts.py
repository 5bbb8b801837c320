"""Checks of UCB1, selection and expansion, one at a time, on small hand-built trees of :class:`TreeNode`.

The student's functions have the signatures of notebook 04b; this module checks the first three:

* ``ucb1(wins, visits, parent_visits, c)``: the UCB1 value of a child;
* ``select(node, c)``: from ``node``, descend by UCB1 while the node is fully expanded;
* ``expand(game, node, rng)``: add one child for a random untried move and return it;

and :mod:`.playout_parts` checks the other two (``simulate`` and ``backpropagate``).

Each check compares the student's answer with the package's own
(:func:`mctslab.ucb.ucb1`, :class:`mctslab.agents.uct.UCT`, :mod:`mctslab.exact`)
and, for the classic slips, names the slip.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from ...games import make_game
from ...ucb import SQRT2, ucb1
from .positions import position
from .report import FAILED, NOT_WRITTEN, PASSED, Check, Report
from .student import _where
from .tree import TreeNode

__all__ = ["check_expand", "check_select", "check_ucb1"]

Outcome = tuple[bool, str]


def _run(title: str, function: Any, checks: list[tuple[str, str, Callable[[], Outcome]]]) -> Report:
    """Run ``checks`` in order; a stub stops them ("not written yet"), an exception fails one."""
    began = time.perf_counter()
    report = Report(title)
    name = getattr(function, "__name__", "your function")
    stub = False
    for key, what, check in checks:
        if stub:
            report.checks.append(Check(key, what, NOT_WRITTEN, f"waiting for `{name}`"))
            continue
        try:
            ok, detail = check()
        except NotImplementedError:
            stub = True
            detail = f"not written yet: fill in `{name}` above, then run this check again"
            report.checks.append(Check(key, what, NOT_WRITTEN, detail))
            continue
        except Exception as err:  # the student's bug: report it, never raise
            detail = f"`{name}` raised {type(err).__name__}{_where(err)}: {err}"
            report.checks.append(Check(key, what, FAILED, detail))
            continue
        report.checks.append(Check(key, what, PASSED if ok else FAILED, detail))
    report.seconds = time.perf_counter() - began
    return report


# -- UCB1 ---------------------------------------------------------------------------
_UCB_GRID = [(w, n, big, c) for (w, n) in ((0.0, 1), (2.5, 4), (7.0, 10), (3.0, 25)) for big in (12, 50, 400)
             for c in (SQRT2, 0.5)]  # fmt: skip
_UCB_SLIPS: tuple[tuple[Callable[[float, int, int, float], float], str], ...] = (
    (lambda w, n, N, c: w + c * math.sqrt(math.log(N) / n),
     "the first term is the child's total wins; UCB1 starts from its mean, wins / visits"),
    (lambda w, n, N, c: w / n + c * math.sqrt(math.log(n) / n),
     "the logarithm is of the child's own visits; UCB1 takes the log of the parent's visits N (how often the "
     "choice was made)"),
    (lambda w, n, N, c: w / n + c * math.sqrt(2 * math.log(N) / n),
     "the exploration term is sqrt(2) times too large: the 2 of sqrt(2 ln N / n) is what c = sqrt(2) stands "
     "for, so it must not also be inside the square root"),
    (lambda w, n, N, c: w / n + 2 * math.sqrt(math.log(N) / n),
     "a factor 2 outside the square root, 2 sqrt(ln N / n), is not UCB1's sqrt(2 ln N / n); the factor outside "
     "the root is c"),
    (lambda w, n, N, c: w / n + SQRT2 * math.sqrt(math.log(N) / n),
     "the value does not change with c: use the c you are given"),
    (lambda w, n, N, c: w / n + c * math.log(N) / n, "the square root is missing"),
    (lambda w, n, N, c: w / n + c * math.sqrt(math.log(N) / N), "the division is by the parent's visits; "
     "the exploration term shrinks with the child's visits n"),
    (lambda w, n, N, c: w / n, "there is no exploration term: UCB1 adds c sqrt(ln N / n) to the mean"),
)  # fmt: skip


def check_ucb1(ucb1_function: Callable[[float, int, int, float], float]) -> Report:
    """Check a student's ``ucb1(wins, visits, parent_visits, c)`` against :func:`mctslab.ucb.ucb1`.

    Args:
        ucb1_function: returns ``wins / visits + c * sqrt(ln(parent_visits) / visits)``,
            and ``math.inf`` for a child never visited.

    Returns:
        A :class:`Report` with two checks, ``unvisited`` and ``formula``; it names the
        usual slips (the child's total wins for its mean, the log of the child's count,
        the factor 2 inside or outside the root, c ignored, no square root).
    """

    def unvisited() -> Outcome:
        value = ucb1_function(0.0, 0, 10, SQRT2)
        if value == math.inf:
            return True, "a child never visited is worth infinity: each child is tried once first"
        return False, (
            f"a child never visited is worth {value!r}: it must be worth infinity (math.inf), so that every "
            "child is tried once before any is tried twice (and no division by zero happens)"
        )

    def formula() -> Outcome:
        got = [float(ucb1_function(w, n, big, c)) for w, n, big, c in _UCB_GRID]
        want = [ucb1(w / n, big, n, c) for w, n, big, c in _UCB_GRID]
        if all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(got, want, strict=True)):
            return True, f"{len(_UCB_GRID)} children (means, visits, parent visits, c = sqrt(2) and 0.5) agree"
        for slip, words in _UCB_SLIPS:
            alt = [slip(w, n, big, c) for w, n, big, c in _UCB_GRID]
            if all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(got, alt, strict=True)):
                return False, f"not UCB1: {words}"
        i = max(range(len(got)), key=lambda k: abs(got[k] - want[k]))
        w, n, big, c = _UCB_GRID[i]
        return False, (
            f"for wins = {w:g}, visits = {n}, parent visits = {big}, c = {c:.4g} your value is {got[i]:.6g}; "
            f"UCB1 is {want[i]:.6g} (mean plus c times the square root of ln(parent visits) / visits)"
        )

    return _run("check_ucb1", ucb1_function, [
        ("unvisited", "a child never visited comes first", unvisited),
        ("formula", "the UCB1 formula", formula),
    ])  # fmt: skip


# -- selection ----------------------------------------------------------------------
def _node(visits: int, wins: float, move: int | None = None, parent: TreeNode | None = None, untried=()) -> TreeNode:
    node = TreeNode(state=None, player=0 if parent is None else 1 - parent.player, move=move, parent=parent,
                    untried=untried)  # fmt: skip
    node.visits, node.wins = visits, wins
    if parent is not None:
        parent.children.append(node)
    return node


_ROOT_STATS = ((10, 7.0), (3, 2.0), (25, 14.0), (2, 0.0))
"""(visits, wins) of the root's children in the selection trees: UCB1 (c = sqrt(2))
picks the second; the best mean is the first, the most visits the third (the tests
confirm it, and that UCB1 follows the path :func:`_selection_tree` returns)."""


def _selection_tree(depth: int) -> tuple[TreeNode, list[TreeNode]]:
    """A root whose children have :data:`_ROOT_STATS`; below UCB1's pick, ``depth`` more levels.

    Returns the root and the path UCB1 follows (root first). The last node of the path
    has an untried move, except with ``depth = -1``: then the pick is terminal (no
    untried moves, no children).
    """
    root = _node(40, 17.0)
    kids = [_node(v, w, move, root) for move, (v, w) in enumerate(_ROOT_STATS)]
    path = [root, kids[1]]
    if depth == 0:
        kids[1].untried = [5]
    node = kids[1]
    for level in range(max(depth, 0)):
        grand = [_node(1, 1.0, 10 * level + 10, node), _node(1, 0.0, 10 * level + 11, node)]
        node = grand[0]  # equal visits: the higher mean wins
        path.append(node)
        if level == depth - 1:
            node.untried = [7]
    return root, path


def check_select(select_function: Callable[[TreeNode, float], TreeNode]) -> Report:
    """Check a student's ``select(node, c)``: descend by UCB1 while the node is fully expanded.

    On hand-built trees (:func:`_selection_tree`): a root with untried moves is
    returned as it is; otherwise selection follows the child with the highest UCB1
    (:func:`mctslab.ucb.ucb1`, the parent's visits as N) level after level, and stops at
    the first node with untried moves or without children.

    Returns:
        A :class:`Report` with the checks ``untried``, ``choice``, ``descent`` and ``terminal``.
    """
    c = SQRT2

    def untried() -> Outcome:
        root, _ = _selection_tree(1)
        root.untried = [8]
        got = select_function(root, c)
        if got is root:
            return True, "a root with an untried move is returned as it is, to be expanded"
        return False, "selection went past a node that still has untried moves: stop there, so that it is expanded"

    def choice() -> Outcome:
        root, path = _selection_tree(0)
        got = select_function(root, c)
        if got is path[1]:
            return True, "among four children, the one with the highest UCB1 value"
        if got is root:
            return False, "selection stopped at the root although all its moves are tried: descend to a child"
        kids = root.children
        if got in kids:
            mean_pick = max(kids, key=lambda ch: ch.wins / ch.visits)
            visit_pick = max(kids, key=lambda ch: ch.visits)
            if got is mean_pick:
                return False, "selection followed the best mean: add UCB1's exploration term"
            if got is visit_pick:
                return False, (
                    "selection chose the child with the most visits: choose the highest UCB1 value, "
                    "with N the parent's visits"
                )
            return False, f"selection chose move {got.move}, not the child with the highest UCB1 value"
        return False, "selection returned a node that is not a child of the root"

    def descent() -> Outcome:
        root, path = _selection_tree(2)
        got = select_function(root, c)
        if got is path[-1]:
            return True, "three levels down, to the first node with an untried move"
        if got in path:
            return False, (
                f"selection stopped after {path.index(got)} level(s) at a fully expanded node: repeat the choice "
                "level after level until a node has untried moves or no children"
            )
        return False, "selection left the path of highest UCB1 values"

    def terminal() -> Outcome:
        root, path = _selection_tree(-1)
        got = select_function(root, c)
        if got is path[-1]:
            return True, "stops at a finished position (no untried moves, no children)"
        if got is not root and got.parent is root:
            return False, f"selection chose move {got.move}, not the child with the highest UCB1 value"
        return False, "at a node without untried moves or children (a finished game), selection must stop there"

    return _run("check_select", select_function, [
        ("untried", "a node with untried moves is returned", untried),
        ("choice", "the child with the highest UCB1 value", choice),
        ("descent", "descends until a node has untried moves", descent),
        ("terminal", "stops at a finished position", terminal),
    ])  # fmt: skip


# -- expansion ----------------------------------------------------------------------
def check_expand(expand_function: Callable[[Any, TreeNode, random.Random], TreeNode]) -> Report:
    """Check a student's ``expand(game, node, rng)`` on tic-tac-toe.

    The new child must hang under ``node`` (in its ``children``, with ``parent``), be
    reached by one of ``node``'s untried moves (then removed from them), hold the
    position after that move, belong to the player who made it, start with zero visits
    and wins and with every legal move of its position untried (or it would never be
    expanded in turn); a finished position is returned as it is.

    Returns:
        A :class:`Report` with the checks ``child``, ``point_of_view``, ``untried``,
        ``every_move`` and ``terminal``.
    """
    game = make_game("tictactoe")
    start = position("XO.X.....")

    def fresh() -> tuple[TreeNode, TreeNode, list[int]]:
        root = TreeNode.root(game, start)
        before = list(root.untried)
        return root, expand_function(game, root, random.Random(0)), before

    def child() -> Outcome:
        root, new, before = fresh()
        if not isinstance(new, TreeNode) or new is root:
            return False, f"expand returned {new!r}: return the new child (a TreeNode)"
        if new not in root.children:
            return False, "the new child is not in its parent's `children`: selection could never find it again"
        if new.parent is not root:
            return False, "the new child's `parent` is not the node expanded: backpropagation could not climb up"
        if new.move not in before or new.move in root.untried or len(root.untried) != len(before) - 1:
            return False, "the child's move must be one of the node's untried moves, and be removed from them"
        if new.state != game.apply(start, new.move):
            return False, "the child's `state` is not the position after its move"
        if new.visits or new.wins:
            return False, "a new node starts with 0 visits and 0 wins: backpropagation counts its first playout"
        return True, "one new child under the node, for an untried move, with the position after it"

    def point_of_view() -> Outcome:
        _, new, _ = fresh()
        mover = game.to_move(start)
        if new.player == mover:
            return True, "the child belongs to the player who made its move (the player to move at the parent)"
        return False, (
            "the child's `player` must be the player who made the move into it, the player to move at the parent "
            "(game.to_move(parent.state)): its wins are counted for that player"
        )

    def untried() -> Outcome:
        _, new, _ = fresh()
        legal = set(game.legal_moves(new.state))
        if set(new.untried) == legal and len(new.untried) == len(legal):
            return True, "the child starts with every legal move of its position untried"
        if not new.untried:
            return False, (
                "the new child has no untried moves, so it looks fully expanded and will never get children: "
                "the tree stays one level deep. Give it the legal moves of its own position"
            )
        return False, "the new child's untried moves are not the legal moves of its own position"

    def every_move() -> Outcome:
        root = TreeNode.root(game, start)
        rng = random.Random(1)
        for _ in range(len(root.untried)):
            expand_function(game, root, rng)
        moves = sorted(ch.move for ch in root.children)
        if moves == sorted(game.legal_moves(start)) and not root.untried:
            return True, f"{len(moves)} expansions: every legal move once"
        n = len(game.legal_moves(start))
        return False, f"after {n} expansions the children's moves are {moves}: expand each legal move once"

    def terminal() -> Outcome:
        done = TreeNode(position("XXXOO...."), 0, untried=())
        got = expand_function(game, done, random.Random(2))
        if got is done and not done.children:
            return True, "a finished position is returned as it is (nothing to expand)"
        return False, "at a node without untried moves (a finished game), expand must return the node itself"

    return _run("check_expand", expand_function, [
        ("child", "one new child for an untried move", child),
        ("point_of_view", "the child belongs to the player who moved", point_of_view),
        ("untried", "the child can be expanded in turn", untried),
        ("every_move", "each move expanded once", every_move),
        ("terminal", "a finished position is left as it is", terminal),
    ])  # fmt: skip
