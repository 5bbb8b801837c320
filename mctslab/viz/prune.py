"""Which nodes of a search tree to draw, so that any tree gives a readable picture.

A UCT tree after a thousand iterations has a thousand nodes, and the root of
Ultimate Tic-Tac-Toe has 81 children: drawn whole, it is a smear. :func:`prune` picks
the nodes worth drawing, best first, under three limits:

* ``depth``: plies below the root;
* ``top_k``: the most visited children of each node (ties: lower move first); the
  others are summarised in one "+ 31 more (412 visits)" box;
* ``max_nodes``: nodes drawn in all. Nodes are taken in order of visits, so the
  picture follows the search: deep where it concentrated, shallow elsewhere.

Nodes passed as ``keep`` (with their ancestors) are always drawn, whatever the
limits: the path of the last iteration, for example. The children of nodes passed as
``open_`` are candidates whatever the depth (the choices made along a selection path),
and nodes passed as ``exclude`` are left out as if they did not exist (the node an
iteration is about to add, in a picture of the moment before).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..agents.uct import Node

__all__ = ["TreeView", "prune"]


@dataclass
class TreeView:
    """The part of a tree to draw.

    Attributes:
        root: the node drawn at the top (any node: its subtree is drawn).
        nodes: the nodes drawn, parents before children.
        children: ``id(node)`` -> its drawn children, in move order.
        hidden: ``id(node)`` -> ``(count, visits)`` of its children that are not drawn.
        depth: ``id(node)`` -> plies below ``root``.
        total: nodes in the whole subtree of ``root``.
    """

    root: Node
    nodes: list[Node] = field(default_factory=list)
    children: dict[int, list[Node]] = field(default_factory=dict)
    hidden: dict[int, tuple[int, int]] = field(default_factory=dict)
    depth: dict[int, int] = field(default_factory=dict)
    total: int = 0

    def __contains__(self, node: object) -> bool:
        return id(node) in self.depth

    def boxes(self) -> int:
        """Boxes in the picture: the nodes plus one summary per node with both drawn and hidden children."""
        summaries = sum(1 for n in self.nodes if self.children[id(n)] and self.hidden[id(n)][0])
        return len(self.nodes) + summaries


def _check_limit(name: str, value: int | None, minimum: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum} or None (no limit), got {value!r}")


def ranked(node: Node) -> list[Node]:
    """The children of ``node``, most visited first (ties: lower move first)."""
    return sorted(node.children, key=lambda ch: (-ch.visits, ch.move))


def prune(
    root: Node,
    *,
    depth: int | None = 4,
    top_k: int | None = 4,
    max_nodes: int | None = 20,
    keep: Iterable[Node] = (),
    open_: Iterable[Node] = (),
    exclude: Iterable[Node] = (),
) -> TreeView:
    """Choose the nodes of ``root``'s subtree to draw (see the module docstring).

    Args:
        root: the top of the picture.
        depth: plies below ``root`` to draw, >= 0, or ``None`` for no limit.
        top_k: children drawn per node, >= 1, or ``None`` for all.
        max_nodes: nodes drawn in all (``root`` included), >= 1, or ``None`` for no limit;
            ``keep`` nodes and their ancestors are drawn first, even beyond it.
        keep: nodes always drawn, with their ancestors (nodes outside ``root``'s
            subtree are ignored).
        open_: nodes whose children are drawn whatever ``depth`` (still within ``top_k``).
        exclude: nodes (with their subtrees) treated as absent: not drawn, not counted.

    Returns:
        A :class:`TreeView`.

    Raises:
        ValueError: for a limit out of range.
    """
    _check_limit("depth", depth, 0)
    _check_limit("top_k", top_k, 1)
    _check_limit("max_nodes", max_nodes, 1)
    excluded = {id(n) for n in exclude if n is not root}
    levels: dict[int, int] = {}
    for node, d in _with_depths(root, skip=excluded):
        levels[id(node)] = d
    view = TreeView(root, total=len(levels))
    opened = {id(n) for n in open_}

    def add(node: Node) -> None:
        view.nodes.append(node)
        view.depth[id(node)] = levels[id(node)]

    add(root)
    for node in keep:
        chain = []
        while node is not None and id(node) in levels and node not in view:
            chain.append(node)
            node = node.parent
        if node is not None and node in view:  # inside root's subtree
            for n in reversed(chain):
                add(n)
    queue: list[tuple[int, int, int, Node]] = []
    counter = 0

    def offer(node: Node) -> None:
        nonlocal counter
        d = levels[id(node)]
        if not (depth is None or d < depth or id(node) in opened):
            return
        for ch in [ch for ch in ranked(node) if id(ch) not in excluded][:top_k]:
            counter += 1
            heapq.heappush(queue, (-ch.visits, d + 1, counter, ch))

    for node in list(view.nodes):
        offer(node)
    while queue and (max_nodes is None or len(view.nodes) < max_nodes):
        _, _, _, node = heapq.heappop(queue)
        if node in view:
            continue
        add(node)
        offer(node)
    # Parents before children, siblings in move order, whatever order they were added in.
    for node in view.nodes:
        drawn = sorted((ch for ch in node.children if ch in view), key=lambda ch: ch.move)
        view.children[id(node)] = drawn
        rest = [ch for ch in node.children if ch not in view and id(ch) not in excluded]
        view.hidden[id(node)] = (len(rest), sum(ch.visits for ch in rest))
    view.nodes = [n for n, _ in _with_depths(root, view)]
    return view


def _with_depths(root: Node, view: TreeView | None = None, skip: set[int] = frozenset()):
    """``(node, depth)`` for the subtree of ``root``, depth first (only drawn nodes if ``view``; not ``skip``)."""
    stack = [(root, 0)]
    while stack:
        node, d = stack.pop()
        yield node, d
        children = view.children[id(node)] if view is not None else node.children
        stack.extend((ch, d + 1) for ch in reversed(children) if id(ch) not in skip)
