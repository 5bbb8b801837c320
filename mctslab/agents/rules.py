"""Selection rules: the score a UCT parent maximises over its children, as one small object.

A rule has a :attr:`~SelectionRule.name` (shown in tables, pictures and the recorder's
words), a :meth:`~SelectionRule.value` (the score; the child with the highest is
chosen) and an :meth:`~SelectionRule.exploration` term (the part of the value that is
not the child's mean, as pictures show it). :class:`~mctslab.agents.uct.UCT` holds one
(:attr:`UCT.rule <mctslab.agents.uct.UCT.rule>`, built from :attr:`UCT.rule_class
<mctslab.agents.uct.UCT.rule_class>` and the agent's ``c``); the recorder,
:func:`~mctslab.viz.draw_tree`, :func:`~mctslab.viz.tree_outline`,
:meth:`Analysis.table <mctslab.agents.base.Analysis.table>` and the tree explorer
all ask it, so a variant is shown under its own rule's name.

Rules follow OpenSpiel's ``child_selection_fn`` and Ludii's selection strategies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ucb import SQRT2, exploration, ucb1
from .base import score_label
from .node import Node

__all__ = ["UCB1", "SelectionRule", "best_child_by", "descend", "pair_node_with_rule", "rule_for"]


class SelectionRule:
    """A selection rule: ``value(parent, child)`` is maximised, ``name`` labels it.

    Subclass it, set :attr:`name` and write :meth:`value`; :meth:`exploration` then
    defaults to ``value - child.mean``. ``parent`` and ``child`` are nodes
    (:class:`~mctslab.agents.node.Node` or the variant's node class): ``child.mean`` is
    the chooser's mean reward, ``child.visits`` and ``parent.visits`` the counts.

    Args:
        c: the exploration constant, >= 0 (the agent's ``c``).
    """

    name: str = "rule"
    """The rule's name in tables, pictures and descriptions (``"UCB1"``, ``"UCB1-Tuned"``...)."""

    def __init__(self, c: float = SQRT2) -> None:
        self.c = c

    def value(self, parent: Any, child: Any) -> float:
        """The score of ``child`` that ``parent`` maximises (the first highest child wins a tie)."""
        raise NotImplementedError(f"{type(self).__name__} must define value(parent, child)")

    def exploration(self, parent: Any, child: Any) -> float:
        """The part of :meth:`value` that is not the child's mean: ``value - child.mean`` by default."""
        return self.value(parent, child) - child.mean

    @property
    def label(self) -> str:
        """How a score is labelled in one word: ``"ucb"`` for UCB1, else :attr:`name`."""
        return score_label(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(c={self.c:g})"


class UCB1(SelectionRule):
    """UCT's rule, UCB1 (:func:`mctslab.ucb.ucb1`): ``mean + c * sqrt(ln N / n)`` (``inf`` unvisited).

    ``mean`` is the child's mean reward for the player choosing at the parent, ``N`` the
    parent's visits and ``n`` the child's.
    """

    name = "UCB1"

    def value(self, parent: Any, child: Any) -> float:
        """UCB1 of ``child`` as ``parent`` sees it."""
        return ucb1(child.mean, parent.visits, child.visits, self.c)

    def exploration(self, parent: Any, child: Any) -> float:
        """The exploration term ``c * sqrt(ln N / n)`` (:func:`mctslab.ucb.exploration`)."""
        return exploration(parent.visits, child.visits, self.c)


def best_child_by(rule: SelectionRule, node: Node) -> Node:
    """The child of ``node`` with the highest ``rule.value(node, child)``; the first one on a tie.

    Args:
        rule: the selection rule.
        node: a node with at least one child.
    """
    return max(node.children, key=lambda child: rule.value(node, child))


def descend(node: Node, choose: Callable[[Node], Node]) -> tuple[Node, int]:
    """Follow ``choose(node)`` from ``node`` while the node is fully expanded; the node reached and its depth."""
    depth = 0
    while not node.untried and node.children:
        node = choose(node)
        depth += 1
    return node, depth


_RULE_OF_NODE: dict[type, type[SelectionRule]] = {}
"""Node class -> the rule of the variant that grows trees of it (filled by UCT's subclasses)."""


def pair_node_with_rule(node_class: type, rule_class: type[SelectionRule]) -> None:
    """Record that trees of ``node_class`` are searched by ``rule_class`` (a UCT variant's two parts).

    :class:`~mctslab.agents.uct.UCT` calls it for each subclass with its own node class, so
    that a tree drawn without its agent (:func:`~mctslab.viz.draw_tree` on a root) is still
    labelled with its own rule. A variant without its own node class has nothing to pair.
    """
    if node_class is not Node:
        _RULE_OF_NODE[node_class] = rule_class


def rule_for(node: Any, c: float = SQRT2) -> SelectionRule:
    """The selection rule that grew ``node``'s tree, built with ``c``: its variant's, or UCB1.

    Looks up the node's class, then its parents (a node class of a variant of a variant);
    any other node (plain :class:`~mctslab.agents.node.Node`, a student's own node, the
    compiled engine's view) is UCB1's. Give the agent's own rule (``agent.rule``) where
    its parameters matter: this one has the rule's default parameters but ``c``.
    """
    for cls in type(node).__mro__:
        if cls in _RULE_OF_NODE:
            return _RULE_OF_NODE[cls](c)
    return UCB1(c)
