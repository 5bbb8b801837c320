"""check_uct blames each slip of ``expand`` on ``expand`` alone, never on ``backpropagate``.

Issue 37: grading one-slip submissions written as students write them, a slip in
``expand`` was also blamed on ``backpropagate`` (a new node's ``player`` set wrongly made
the point-of-view check say that ``backpropagate`` credits the wrong player). Each agent
here has one slip in ``expand``, written in two students' styles: a class whose methods
are the four phases (``tests/test_exercise_uct_agent.py``'s ``Student``), and notebook
04b's plain functions on :class:`~mctslab.course.exercises.TreeNode`. Every check that
fails names ``expand``; a correct agent in each style still passes.
"""

from __future__ import annotations

import random

import pytest
from test_exercise_uct_agent import Node, Student
from test_exercises_uct import backpropagate, expand, select, simulate  # notebook 04b's reference, as written

from mctslab.course.exercises import TreeNode, check_uct
from mctslab.course.exercises.uct import CHECKS
from mctslab.ucb import SQRT2


# -- the class style: `grow` is the student's expand -----------------------------------------
class Grows(Student):
    """A student whose `grow` makes the child with `child(game, node, move, state)` and returns `pick_returned`."""

    keep_untried = False
    append = True

    def child(self, game, node, move, state):
        return Node(state, node, move, game.to_move(node.state), list(game.legal_moves(state)))

    def grow(self, game, node):
        if len(node.untried) == 0:
            return node
        i = self.rng.randrange(len(node.untried))
        move = node.untried[i]
        if not self.keep_untried:
            del node.untried[i]
        child = self.child(game, node, move, game.apply(node.state, move))
        if self.append:
            node.children.append(child)
        return self.returned(node, child)

    def returned(self, node, child):
        return child


class PlayerToMoveInChild(Grows):
    def child(self, game, node, move, state):
        return Node(state, node, move, game.to_move(state), list(game.legal_moves(state)))


class PlayerOfParent(Grows):
    def child(self, game, node, move, state):
        return Node(state, node, move, node.player, list(game.legal_moves(state)))


class UntriedOfParent(Grows):
    def child(self, game, node, move, state):
        return Node(state, node, move, game.to_move(node.state), list(node.untried))


class LegalMovesOfParent(Grows):
    def child(self, game, node, move, state):
        return Node(state, node, move, game.to_move(node.state), list(game.legal_moves(node.state)))


class StateOfParent(Grows):
    def child(self, game, node, move, state):
        return Node(node.state, node, move, game.to_move(node.state), list(game.legal_moves(state)))


class MoveOfParent(Grows):
    def child(self, game, node, move, state):
        return Node(state, node, node.move, game.to_move(node.state), list(game.legal_moves(state)))


class IndexAsMove(Grows):
    def grow(self, game, node):
        if len(node.untried) == 0:
            return node
        i = self.rng.randrange(len(node.untried))
        move = node.untried.pop(i)
        state = game.apply(node.state, move)
        child = Node(state, node, i, game.to_move(node.state), list(game.legal_moves(state)))  # the index
        node.children.append(child)
        return child


class NotRemoved(Grows):
    keep_untried = True


class NotAppended(Grows):
    append = False


class ReturnsParent(Grows):
    def returned(self, node, child):
        return node


# -- notebook 04b's style: plain functions, a class that calls them --------------------------
def agent_of(expand=expand, select=select, simulate=simulate, backpropagate=backpropagate):
    """A MyUCT class calling these functions (notebook 04b's reference for the others)."""

    class MyUCT:
        def __init__(self, iterations=1000, c=SQRT2, seed=None):
            self.iterations, self.c, self.rng = iterations, c, random.Random(seed)

        def search(self, game, state):
            root = TreeNode.root(game, state)
            for _ in range(self.iterations):
                node = expand(game, select(root, self.c), self.rng)
                backpropagate(node, simulate(game, node, self.rng))
            return root

        def select_move(self, game, state):
            return max(self.search(game, state).children, key=lambda ch: ch.visits).move

    return MyUCT


def expand_player_to_move(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    state = game.apply(node.state, move)
    child = TreeNode(state, game.to_move(state), move, node, game.legal_moves(state))
    node.children.append(child)
    return child


def expand_untried_copied(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    state = game.apply(node.state, move)
    child = TreeNode(state, game.to_move(node.state), move, node, node.untried)
    node.children.append(child)
    return child


def expand_state_kept(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    child = TreeNode(node.state, game.to_move(node.state), move, node, game.legal_moves(game.apply(node.state, move)))
    node.children.append(child)
    return child


def expand_without_parent(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    state = game.apply(node.state, move)
    child = TreeNode(state, game.to_move(node.state), move, None, game.legal_moves(state))
    node.children.append(child)
    return child


def expand_returns_parent(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    state = game.apply(node.state, move)
    node.children.append(TreeNode(state, game.to_move(node.state), move, node, game.legal_moves(state)))
    return node


SLIPS = {
    "player: the player to move in the child": (PlayerToMoveInChild, "player to move in the child's position"),
    "player: the parent's": (PlayerOfParent, "copied from its parent's `player`"),
    "untried: a copy of the parent's": (UntriedOfParent, "not a copy of its parent's untried moves"),
    "untried: the parent's legal moves": (LegalMovesOfParent, "legal moves of its own position"),
    "state: the parent's": (StateOfParent, "keeps its parent's position"),
    "move: the parent's": (MoveOfParent, "record on the child the move it played"),
    "move: its index in the untried moves": (IndexAsMove, "record on the child the move it played"),
    "move: not removed from untried": (NotRemoved, "remove it from the node's untried moves"),
    "child: not appended": (NotAppended, "append the new node to its parent's `children`"),
    "child: the parent returned": (ReturnsParent, "must return the new child"),
    "notebook, player: the player to move": (agent_of(expand_player_to_move), "player to move in the child's"),
    "notebook, untried: the parent's": (agent_of(expand_untried_copied), "not a copy of its parent's untried"),
    "notebook, state: the parent's": (agent_of(expand_state_kept), "keeps its parent's position"),
    "notebook, child: no parent": (agent_of(expand_without_parent), "`expand` must give the new child its parent"),
    "notebook, child: the parent returned": (agent_of(expand_returns_parent), "must return the new child"),
}


def check(agent_class):
    return check_uct(lambda seed: agent_class(seed=seed), show_progress=False)


@pytest.mark.parametrize("slip", SLIPS)
def test_a_slip_in_expand_is_blamed_on_expand_alone(slip):
    agent_class, words = SLIPS[slip]
    report = check(agent_class)
    assert report.failed, str(report)
    blamed = {report[name].part for name in report.failed}
    assert blamed == {"expand"}, str(report)
    assert words in report[report.failed[0]].detail, str(report)
    for name in report.failed:  # a check about another part says that `expand` is the cause
        assert CHECKS[name][2] == "expand" or "`expand`" in report[name].detail, str(report)


@pytest.mark.parametrize("agent_class", [Grows, agent_of(expand)])
def test_a_correct_agent_still_passes(agent_class):
    report = check(agent_class)
    assert report.ok, str(report)
