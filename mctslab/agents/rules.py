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

Every search that selects by a rule asks the agent's one rule object (:class:`Ruled`):
UCT and its variants (:meth:`SelectionRule.descend`), ISMCTS and MO-ISMCTS
(:meth:`UCB1.bound` on their availability counts), and the tables of every engine. UCB1
is written once, :func:`mctslab.ucb.ucb1`; :meth:`UCB1.descend` is the same formula
factored for speed (``c * sqrt(ln N)`` once per node, ``1 / sqrt(n)`` kept on each child).

Rules follow OpenSpiel's ``child_selection_fn`` and Ludii's selection strategies.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from math import inf, log, sqrt
from typing import Any, ClassVar

from ..ucb import SQRT2, exploration, ucb1
from .base import score_label
from .node import Node

__all__ = ["UCB1", "Ruled", "SelectionRule", "best_child_by", "descend", "pair_node_with_rule", "rule_for"]


class SelectionRule:
    """A selection rule: ``value(parent, child)`` is maximised, ``name`` labels it.

    Subclass it, set :attr:`name` and write :meth:`value`; :meth:`exploration` then
    defaults to ``value - child.mean``. ``parent`` and ``child`` are nodes
    (:class:`~mctslab.agents.node.Node` or the variant's node class): ``child.mean`` is
    the chooser's mean reward, ``child.visits`` and ``parent.visits`` the counts.

    A rule that draws random numbers (Thompson sampling, say) sets :attr:`uses_rng`; the
    agent then gives it a generator of its own (:attr:`rng`), seeded from the agent's.

    Args:
        c: the exploration constant, >= 0 (the agent's ``c``).
        rng: the rule's own generator (``None`` for a rule that draws nothing).
    """

    name: str = "rule"
    """The rule's name in tables, pictures and descriptions (``"UCB1"``, ``"UCB1-Tuned"``...)."""
    uses_rng: ClassVar[bool] = False
    """Whether :meth:`value` draws random numbers (from :attr:`rng`)."""

    def __init__(self, c: float = SQRT2, rng: random.Random | None = None) -> None:
        self.c = c
        self.rng = rng

    def choose(self, parent: Any) -> Any:
        """The child of ``parent`` with the highest :meth:`value` (the first one on a tie)."""
        return best_child_by(self, parent)

    def descend(self, node: Any) -> tuple[Any, int]:
        """Selection by this rule: :meth:`choose` from ``node`` while the node is fully expanded.

        Returns:
            The node where selection stops (not fully expanded, or terminal) and its depth below ``node``.
        """
        return descend(node, self.choose)

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

    def bound(self, mean: float, n_parent: float, n_child: float) -> float:
        """UCB1 on counts alone (:func:`mctslab.ucb.ucb1`): ISMCTS's availability counts, UCT2's edge counts."""
        return ucb1(mean, n_parent, n_child, self.c)

    def value(self, parent: Any, child: Any) -> float:
        """UCB1 of ``child`` as ``parent`` sees it."""
        return ucb1(child.mean, parent.visits, child.visits, self.c)

    def descend(self, node: Any) -> tuple[Any, int]:
        """Selection by UCB1, :meth:`value`'s formula factored: the same choices, a faster loop.

        ``mean + c * sqrt(ln N / n)`` is computed as ``mean + (c * sqrt(ln N)) * (1 / sqrt(n))``,
        the first factor once per node, the second kept on each child (``Node.inv_sqrt``); ties
        go to the first best child. As :func:`mctslab.ucb.ucb1`, a child of no visits scores
        ``+inf`` (the first such child is taken) and a parent of one visit or none gives no
        exploration term: a search that sees children before their backup (the simulated
        workers of :class:`~mctslab.agents.simparallel.SimParallel`) selects as the formula
        says. A subclass with its own :meth:`value` is asked its value.
        """
        if type(self).value is not UCB1.value:
            return super().descend(node)
        c, depth = self.c, 0
        while not node.untried and node.children:
            n = node.visits
            scale = c * sqrt(log(n)) if n > 1 else 0.0
            if scale:
                best_value = -inf
                for child in node.children:
                    value = child.mean + scale * child.inv_sqrt
                    if value > best_value:
                        best, best_value = child, value
            else:  # no exploration term (c = 0, or N <= 1): the first child of no visits (inf), else the best mean
                best = next((ch for ch in node.children if not ch.visits), None)
                if best is None:
                    best = max(node.children, key=_mean)
            node = best
            depth += 1
        return node, depth

    def exploration(self, parent: Any, child: Any) -> float:
        """The exploration term ``c * sqrt(ln N / n)`` (:func:`mctslab.ucb.exploration`)."""
        return exploration(parent.visits, child.visits, self.c)


def _mean(node: Any) -> float:
    return node.mean


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


class Ruled:
    """An agent that selects by one rule object: :attr:`rule_class` names it, :attr:`rule` is it.

    The rule is built when first asked (``rule_class(c)``, with a generator of its own if it
    :attr:`~SelectionRule.uses_rng`) and kept; it is built again when ``c`` or ``rule_class``
    changes, also on the instance: an agent given ``agent.rule_class = MyRule`` searches
    with ``MyRule``, and its tables are labelled with it.
    """

    rule_class: type[SelectionRule] = UCB1
    """The selection rule's class: :attr:`rule` is ``rule_class(c)``. A variant names its
    own :class:`SelectionRule` subclass here (or an instance is given one)."""
    c: float
    rng: random.Random
    _rule: SelectionRule | None = None
    """The rule built last (the agent's own cache: no other object reads it)."""

    @property
    def rule(self) -> SelectionRule:
        """The selection rule this agent searches by: ``rule_class(c)`` (UCB1 for UCT).

        Built from the agent's ``c`` and :attr:`rule_class` and kept while they stay the same.
        The search, the recorder, :func:`~mctslab.viz.draw_tree` (``rule=agent.rule``) and
        :meth:`Analysis.table <mctslab.agents.base.Analysis.table>` all use this one object.
        """
        rule = self._rule
        if rule is None or type(rule) is not self.rule_class or rule.c != self.c:
            cls = self.rule_class
            rng = random.Random(self.rng.getrandbits(64)) if cls.uses_rng else None
            rule = self._rule = cls(self.c, rng) if cls.uses_rng else cls(self.c)
        return rule


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
