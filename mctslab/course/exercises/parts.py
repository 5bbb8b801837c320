"""Checks of UCB1 and selection, one at a time, on small hand-built trees of :class:`TreeNode`.

The student's functions have the signatures of notebook 04b; this module checks the first two:

* ``ucb1(wins, visits, parent_visits, c)``: the UCB1 value of a child;
* ``select(node, c)``: from ``node``, descend by UCB1 while the node is fully expanded;

:mod:`.expansion` checks ``expand`` and :mod:`.playout_parts` the last two phases
(``simulate`` and ``backpropagate``). Every check runs the student's function through
:class:`.runner.Student` (a time limit per call, the package's own code spotted) and
names the slips of :mod:`.parts_diagnoses` with the numbers expected and seen.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ...ucb import SQRT2, ucb1
from .expansion import check_expand
from .limits import TimeLimitExceeded, time_limit
from .parts_diagnoses import say
from .report import Report
from .runner import CALL_SECONDS, Outcome, Student, Unusable, none_returned, run_checks
from .tree import TreeNode

__all__ = ["check_expand", "check_select", "check_ucb1"]


# -- UCB1 ---------------------------------------------------------------------------
_UCB_GRID = [(w, n, big, c) for (w, n) in ((0.0, 1), (2.5, 4), (7.0, 10), (3.0, 25)) for big in (12, 50, 400)
             for c in (SQRT2, 0.5)]  # fmt: skip
_UCB_SLIPS: tuple[tuple[str, Callable[[float, int, int, float], float], str], ...] = (
    ("wins_for_mean", lambda w, n, N, c: w + c * math.sqrt(math.log(N) / n),
     "; UCB1 starts from its mean, wins / visits"),
    ("log_of_child", lambda w, n, N, c: w / n + c * math.sqrt(math.log(n) / n),
     "; UCB1 takes the log of the parent's visits N (how often the choice was made)"),
    ("two_inside", lambda w, n, N, c: w / n + c * math.sqrt(2 * math.log(N) / n),
     ": the 2 of sqrt(2 ln N / n) is what c = sqrt(2) stands for, so it must not also be inside the square root"),
    ("two_outside", lambda w, n, N, c: w / n + 2 * math.sqrt(math.log(N) / n),
     ", 2 sqrt(ln N / n), is not UCB1's sqrt(2 ln N / n); the factor outside the root is c"),
    ("c_ignored", lambda w, n, N, c: w / n + SQRT2 * math.sqrt(math.log(N) / n), ": use the c you are given"),
    ("no_square_root", lambda w, n, N, c: w / n + c * math.log(N) / n, ": c times sqrt(ln N / n)"),
    ("divides_by_parent", lambda w, n, N, c: w / n + c * math.sqrt(math.log(N) / N),
     "; the exploration term shrinks with the child's visits n"),
    ("no_exploration", lambda w, n, N, c: w / n, ": UCB1 adds c sqrt(ln N / n) to the mean"),
)  # fmt: skip


def _close(a: list[float], b: list[float]) -> bool:
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(a, b, strict=True))


def _number(part: str, value: Any, doing: str) -> float:
    """``value`` as a float; :class:`.runner.Unusable` for None or anything that is not a number."""
    none_returned(part, value, doing)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise Unusable(say(part, "not_a_number", f": {value!r} {doing}; return the value, a float"))
    return float(value)


def check_ucb1(ucb1_function: Callable[[float, int, int, float], float]) -> Report:
    """Check a student's ``ucb1(wins, visits, parent_visits, c)`` against :func:`mctslab.ucb.ucb1`.

    Args:
        ucb1_function: returns ``wins / visits + c * sqrt(ln(parent_visits) / visits)``,
            and ``math.inf`` for a child never visited.

    Returns:
        A :class:`Report` with two checks, ``unvisited`` and ``formula``; it names the
        slips of :mod:`.parts_diagnoses` (no ``return``, the child's total wins for its
        mean, the log of the child's count, the factor 2 inside or outside the root, c
        ignored, no square root...), with the values expected and seen.
    """
    student = Student(ucb1_function, "ucb1")

    def unvisited() -> Outcome:
        try:
            value = student(0.0, 0, 10, SQRT2)
        except ZeroDivisionError:
            return False, say("ucb1", "divides_by_zero", " (ZeroDivisionError): a child never visited is worth "
                              "math.inf; return it before dividing by the visits")  # fmt: skip
        value = _number("ucb1", value, "for a child never visited (wins 0, visits 0, parent visits 10)")
        if value == math.inf:
            return True, "a child never visited is worth infinity: each child is tried once first"
        return False, say("ucb1", "unvisited_finite", (
            f" {value!r}: it must be worth infinity (math.inf), so that every child is tried once before any is "
            "tried twice (and no division by zero happens)"))  # fmt: skip

    def formula() -> Outcome:
        got = [_number("ucb1", student(w, n, big, c), f"for wins {w:g}, visits {n}, parent visits {big}, c {c:.4g}")
               for w, n, big, c in _UCB_GRID]  # fmt: skip
        want = [ucb1(w / n, big, n, c) for w, n, big, c in _UCB_GRID]
        if _close(got, want):
            return True, f"{len(_UCB_GRID)} children (means, visits, parent visits, c = sqrt(2) and 0.5) agree"
        wrong = [k for k in range(len(got)) if not _close([got[k]], [want[k]])]
        shown = [k for k in wrong if _UCB_GRID[k][0] > 0] or wrong  # a child with some wins tells more
        i = max(shown, key=lambda k: abs(got[k] - want[k]))
        w, n, big, c = _UCB_GRID[i]
        numbers_seen = (
            f" (for wins {w:g}, visits {n}, parent visits {big}, c = {c:.4g}: yours {got[i]:.6g}, UCB1 {want[i]:.6g})"
        )
        for name, slip, words in _UCB_SLIPS:
            if _close(got, [slip(*args) for args in _UCB_GRID]):
                return False, say("ucb1", name, words + numbers_seen)
        return False, (
            f"for wins = {w:g}, visits = {n}, parent visits = {big}, c = {c:.4g} your value is {got[i]:.6g}; "
            f"UCB1 is {want[i]:.6g} (mean plus c times the square root of ln(parent visits) / visits)"
        )

    return run_checks("check_ucb1", ucb1_function, [
        ("unvisited", "a child never visited comes first", unvisited),
        ("formula", "the UCB1 formula", formula),
    ], "ucb1")  # fmt: skip


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


def _deep_tree() -> TreeNode:
    """Three levels where N matters below the root: the parent's visits and the root's lead apart.

    The root (1000 visits) picks move 1 (30 visits); under it, with N = 30, UCB1 picks
    move 10 (20 wins in 24 visits: 1.366 against 1.231) and then move 20, which has an
    untried move; with N = 1000 (the root's visits at every depth) it picks move 11 (1 win
    in 6 visits: 1.684 against 1.592), which has one too. Every node's visits are its
    children's sum.
    """
    root = _node(1000, 520.0)
    kids = [_node(v, w, move, root) for move, (v, w) in enumerate(((500, 320.0), (30, 18.0), (400, 200.0),
                                                                   (70, 30.0)))]  # fmt: skip
    a, b = _node(24, 20.0, 10, kids[1]), _node(6, 1.0, 11, kids[1])
    b.untried = [5]
    _node(12, 7.0, 20, a, untried=[7])
    _node(12, 5.0, 21, a)
    return root


def _descend(root: TreeNode, c: float, root_visits: bool = False) -> list[TreeNode]:
    """The path UCB1 follows from ``root`` (N: the parent's visits, or the root's with ``root_visits``)."""
    path, node = [root], root
    while not node.untried and node.children:
        big = root.visits if root_visits else node.visits
        node = max(node.children, key=lambda ch: ucb1(ch.wins / ch.visits, big, ch.visits, c))
        path.append(node)
    return path


def _moves(node: TreeNode) -> list[int | None]:
    out = []
    while node.parent is not None:
        out.append(node.move)
        node = node.parent
    return out[::-1]


def _stats(node: TreeNode) -> str:
    return f"move {node.move} ({node.wins:g} wins in {node.visits} visits)"


def _snapshot(root: TreeNode) -> list[tuple]:
    return [(n.visits, n.wins, tuple(n.untried), tuple(map(id, n.children)), id(n.parent)) for n in _all(root)]


def _all(root: TreeNode) -> list[TreeNode]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def _returned_node(got: Any, doing: str) -> TreeNode:
    none_returned("select", got, doing)
    return got


def check_select(select_function: Callable[[TreeNode, float], TreeNode]) -> Report:
    """Check a student's ``select(node, c)``: descend by UCB1 while the node is fully expanded.

    On hand-built trees (:func:`_selection_tree`, :func:`_deep_tree`): a root with
    untried moves is returned as it is; otherwise selection follows the child with the
    highest UCB1 (:func:`mctslab.ucb.ucb1`, the visits of the node chosen at as N) level
    after level, and stops at the first node with untried moves or without children.
    The three-level tree tells the parent's visits from the root's at depth 2, and the
    tree must be the same after selection as before (selection only reads it).

    Returns:
        A :class:`Report` with the checks ``untried``, ``choice``, ``descent``,
        ``read_only`` and ``terminal``.
    """
    c = SQRT2
    student = Student(select_function, "select")

    def untried() -> Outcome:
        root, _ = _selection_tree(1)
        root.untried = [8]
        got = _returned_node(student(root, c), "for a root with an untried move")
        if got is root:
            return True, "a root with an untried move is returned as it is, to be expanded"
        return False, say("select", "past_untried", ": stop there, so that it is expanded")

    def choice() -> Outcome:
        root, path = _selection_tree(0)
        got = _returned_node(student(root, c), "for a root whose four children have no untried moves")
        if got is path[1]:
            return True, "among four children, the one with the highest UCB1 value"
        kids = root.children
        value = {id(ch): ucb1(ch.wins / ch.visits, root.visits, ch.visits, c) for ch in kids}
        best = f"UCB1 picks {_stats(path[1])}, UCB1 {value[id(path[1])]:.3f}"
        if got is root:
            return False, say("select", "stays_at_root", f" although all its moves are tried: descend; {best}")
        if got in kids:
            seen = f"{_stats(got)}, UCB1 {value[id(got)]:.3f}; {best}"
            if got is max(kids, key=lambda ch: ch.wins / ch.visits):
                return False, say("select", "best_mean", f", {seen}: add UCB1's exploration term")
            if got is max(kids, key=lambda ch: ch.visits):
                return False, say("select", "most_visits", f", {seen}: choose the highest UCB1 value")
            return False, f"selection chose {seen}"
        return False, "selection returned a node that is not the root or one of its children"

    def descent() -> Outcome:
        root = _deep_tree()
        want, wrong = _descend(root, c), _descend(root, c, root_visits=True)
        got = _returned_node(student(root, c), "for a three-level tree")
        if got is want[-1]:
            return True, "three levels down, with the visits of the node chosen at as N, to the first untried move"
        if got is wrong[-1]:
            p, a, b = want[1], want[2], wrong[2]
            at = {n.move: ucb1(n.wins / n.visits, p.visits, n.visits, c) for n in p.children}
            far = {n.move: ucb1(n.wins / n.visits, root.visits, n.visits, c) for n in p.children}
            return False, say("select", "root_visits", (
                f": below {_stats(p)} it chose {_stats(b)}, UCB1 {far[b.move]:.3f} with N = {root.visits} against "
                f"{far[a.move]:.3f} for move {a.move}; with N = {p.visits}, the visits of the node chosen at, UCB1 "
                f"picks move {a.move} ({at[a.move]:.3f} against {at[b.move]:.3f})"))  # fmt: skip
        if got is root:
            return False, say("select", "stays_at_root", " although all its moves are tried: descend to a child")
        if got in want:
            return False, say("select", "one_level", (
                f" {want.index(got)} level(s), at a fully expanded node (moves {_moves(got)}): repeat the choice "
                f"until a node has untried moves or no children; UCB1 leads to moves {_moves(want[-1])}"))  # fmt: skip
        where = _moves(got) if isinstance(got, TreeNode) else repr(got)
        return False, f"selection returned the node of moves {where}; UCB1 leads to moves {_moves(want[-1])}"

    def read_only() -> Outcome:
        root = _deep_tree()
        before, nodes = _snapshot(root), _all(root)
        student(root, c)
        after = _snapshot(root)
        if after == before:
            return True, "the tree is the same after selection: it only reads visits and wins"
        i = next(k for k in range(min(len(before), len(after))) if before[k] != after[k])
        b, a = before[i], after[i]
        return False, say("select", "changes_tree", (
            f": the node of moves {_moves(nodes[i])} had {b[0]} visits, {b[1]:g} wins, {len(b[3])} children and "
            f"untried {list(b[2])}, now {a[0]}, {a[1]:g}, {len(a[3])} and {list(a[2])}: selection only reads the "
            "tree; backpropagation counts the visit"))  # fmt: skip

    def terminal() -> Outcome:
        root, path = _selection_tree(-1)
        got = _returned_node(student(root, c), "for a tree whose chosen child is a finished game")
        if got is path[-1]:
            return True, "stops at a finished position (no untried moves, no children)"
        if got is not root and getattr(got, "parent", None) is root:
            return False, f"selection chose {_stats(got)}, not the child with the highest UCB1 value"
        return False, "at a node without untried moves or children (a finished game), selection must stop there"

    stop = "at a node without untried moves and without children (a finished game) selection must stop"
    with _reference_ucb1(select_function) as replaced:
        report = run_checks("check_select", select_function, [
            ("untried", "a node with untried moves is returned", untried),
            ("choice", "the child with the highest UCB1 value", choice),
            ("descent", "descends, N the visits of the node chosen at", descent),
            ("read_only", "the tree is left as it was", read_only),
            ("terminal", "stops at a finished position", terminal, stop),
        ], "select")  # fmt: skip
    if replaced:  # the verdict is about `select` alone: say so, and where the other slip is
        note = (" (checked with the reference `ucb1` in place of yours, which gives other values: check_ucb1 says "
                "what to fix in `ucb1`)")  # fmt: skip
        report.checks = [replace(c, detail=c.detail + note) for c in report.checks]
    return report


def _ucb1_wrong(function: Any) -> bool:
    """True when ``function(wins, visits, parent_visits, c)`` is not UCB1 on the grid of :func:`check_ucb1`."""
    try:
        with time_limit(CALL_SECONDS, "ucb1"):
            got = [function(w, n, big, c) for w, n, big, c in _UCB_GRID]
        return not _close([float(g) for g in got], [ucb1(w / n, big, n, c) for w, n, big, c in _UCB_GRID])
    except (Exception, TimeLimitExceeded):  # noqa: BLE001 - a ucb1 that raises, hangs or returns None is wrong too
        return True


@contextmanager
def _reference_ucb1(select_function: Any) -> Iterator[bool]:
    """While the block runs, the notebook's global ``ucb1`` that ``select_function`` calls is UCB1 if it was wrong.

    ``check_select`` checks ``select``: run with a wrong ``ucb1`` it would blame ``select`` for
    ``ucb1``'s slip (the factor 2 read as the root's visits used as N). Yields True when it
    replaced the student's ``ucb1`` (restored after, whatever happens).
    """
    space = getattr(select_function, "__globals__", None)
    theirs = space.get("ucb1") if isinstance(space, dict) else None
    if not callable(theirs) or theirs is ucb1 or not _ucb1_wrong(theirs):
        yield False
        return

    def reference(wins: float, visits: int, parent_visits: int, c: float = SQRT2) -> float:
        return math.inf if visits == 0 else ucb1(wins / visits, parent_visits, visits, c)

    space["ucb1"] = reference
    try:
        yield True
    finally:
        space["ucb1"] = theirs
