"""The search tree as indented text: the same nodes and numbers as the graphviz picture.

Used when the graphviz ``dot`` program is missing (see :func:`mctslab.viz.draw_tree`),
and handy in a terminal::

    root (X to move): 200 visits
    ├── X 2  149.5/163  mean 0.92  [most visited]
    │   ├── O 5  2/25
    ...
    └── + 2 more (12 visits)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..agents.rules import SelectionRule
from ..agents.uct import Node
from ..games.base import Game
from ..ucb import SQRT2
from .labels import (
    is_chance,
    is_outcome,
    mark,
    more_text,
    move_text,
    node_stats,
    outcome_probability,
    outcome_title,
    probability_text,
)
from .prune import TreeView, prune

__all__ = ["most_visited_path", "node_title", "tree_outline", "view_outline"]


def most_visited_path(root: Node) -> list[Node]:
    """From ``root``, the most visited child again and again (ties: lower move), down to a leaf."""
    path = [root]
    while path[-1].children:
        path.append(min(path[-1].children, key=lambda ch: (-ch.visits, ch.move)))
    return path


def node_title(game: Game | None, node: Node) -> str:
    """``"X 4"`` (who moved, which move), ``"chance: 4"`` (an outcome), or ``"root (X to move)"``.

    Chance nodes and outcomes are told by the interface of :mod:`mctslab.viz.labels`.
    """
    if node.move is None or node.parent is None:
        return f"root ({'chance' if is_chance(node, game) else mark(game, 1 - node.player)} to move)"
    if is_outcome(node, game):
        return outcome_title(game, node)
    return f"{mark(game, node.player)} {move_text(game, node.move)}"


def tree_outline(
    root: Node,
    game: Game | None = None,
    *,
    depth: int | None = 4,
    top_k: int | None = 4,
    max_nodes: int | None = 20,
    c: float = SQRT2,
    mean: bool = True,
    ucb: bool = False,
    last_path: Sequence[Node] = (),
    rule: SelectionRule | None = None,
) -> str:
    """The tree as an indented outline, pruned like :func:`~mctslab.viz.draw_tree` (same arguments).

    Args:
        root: the top node.
        game: the game (for move names and X/O); optional.
        depth, top_k, max_nodes: the limits of :func:`~mctslab.viz.prune.prune`.
        c: exploration constant for the UCB1 terms (when no ``rule`` is given).
        mean: show each node's mean reward.
        ucb: show the selection rule's terms ``mean + exploration``, labelled with its name.
        last_path: nodes marked ``[last]`` (and always shown), such as the last iteration's path.
        rule: the selection rule of the search (``agent.rule``); by default the rule of the tree's variant
            (:func:`~mctslab.agents.rules.rule_for`: UCB1 for UCT) with ``c``.

    Returns:
        The outline, one node per line.
    """
    view = prune(root, depth=depth, top_k=top_k, max_nodes=max_nodes, keep=last_path)
    return view_outline(view, game, c=c, mean=mean, ucb=ucb, last_path=last_path, rule=rule)


def view_outline(
    view: TreeView,
    game: Game | None = None,
    *,
    c: float = SQRT2,
    mean: bool = True,
    ucb: bool = False,
    last_path: Sequence[Node] = (),
    rule: SelectionRule | None = None,
) -> str:
    """The outline of an already pruned :class:`~mctslab.viz.prune.TreeView` (see :func:`tree_outline`)."""
    best = {id(n) for n in most_visited_path(view.root)[1:]}
    last = {id(n) for n in last_path}
    lines: list[str] = []

    def line(node: Node, prefix: str, branch: str) -> None:
        parts = [node_title(game, node), *node_stats(node, c, mean=mean, ucb=ucb, rule=rule, game=game)]
        if is_outcome(node, game):
            parts.insert(1, f"p={probability_text(outcome_probability(node, game))}")
        if is_chance(node, game):
            parts.append("(chance node)")
        count, visits = view.hidden[id(node)]
        if count and not view.children[id(node)]:
            parts.append(f"({count} child{'' if count == 1 else 'ren'} not shown)")
        if id(node) in best:
            parts.append("[most visited]")
        if id(node) in last:
            parts.append("[last]")
        lines.append(prefix + branch + "  ".join(parts))

    def walk(node: Node, prefix: str) -> None:
        kids = view.children[id(node)]
        count, visits = view.hidden[id(node)]
        summary = count and kids
        for i, ch in enumerate(kids):
            end = i == len(kids) - 1 and not summary
            line(ch, prefix, "└── " if end else "├── ")
            walk(ch, prefix + ("    " if end else "│   "))
        if summary:
            lines.append(f"{prefix}└── {more_text(count, visits)}")

    line(view.root, "", "")
    walk(view.root, "")
    lines.append(f"({len(view.nodes)} of {view.total} nodes shown)")
    return "\n".join(lines)
