"""The shape of a search tree in a few numbers: how wide, how deep, how focused.

UCB1's constant ``c`` trades exploration against exploitation at every node, and the
tree shows it: a small ``c`` piles the visits onto the best-looking move and follows it
deep (a narrow, deep tree); a large ``c`` spreads them over many moves near the root
(a wide, shallow tree). :func:`tree_shape` measures that, so notebook 06 can put
numbers (and asserts) beside the pictures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..agents.uct import Node

__all__ = ["TreeShape", "plot_widths", "tree_shape"]


@dataclass(frozen=True)
class TreeShape:
    """Numbers describing a tree's shape.

    Attributes:
        nodes: nodes in the tree, the root included.
        height: plies from the root to the deepest node.
        mean_depth: average depth of the nodes (the root counts 0).
        widths: number of nodes at each depth, ``widths[0] == 1`` (the root).
        top_share: share of the root's visits that went to its most visited child, in [0, 1].
    """

    nodes: int
    height: int
    mean_depth: float
    widths: tuple[int, ...]
    top_share: float

    def row(self) -> str:
        """One line for a table: nodes, height, mean depth, top share, widths of the first levels."""
        levels = " ".join(str(w) for w in self.widths[1:6])
        return (
            f"{self.nodes:6d} nodes  height {self.height:2d}  mean depth {self.mean_depth:5.2f}"
            f"  top move {self.top_share:6.1%}  widths {levels}"
        )


def tree_shape(root: Node) -> TreeShape:
    """Measure the tree below ``root`` (see :class:`TreeShape`).

    Raises:
        ValueError: if the root has never been visited (there is no shape yet).
    """
    if root.visits == 0:
        raise ValueError("the tree is empty: run some iterations first")
    depths: Counter[int] = Counter()
    stack = [(root, 0)]
    while stack:
        node, d = stack.pop()
        depths[d] += 1
        stack.extend((ch, d + 1) for ch in node.children)
    height = max(depths)
    widths = tuple(depths[d] for d in range(height + 1))
    nodes = sum(widths)
    top = max((ch.visits for ch in root.children), default=0)
    return TreeShape(
        nodes=nodes,
        height=height,
        mean_depth=sum(d * n for d, n in depths.items()) / nodes,
        widths=widths,
        top_share=top / root.visits,
    )


def plot_widths(shapes: dict[str, TreeShape], ax: Any = None, title: str | None = None) -> Any:
    """Nodes per depth, one line per tree: the shape of each tree at a glance.

    Args:
        shapes: a label (such as ``"c = 0.2"``) -> the :class:`TreeShape` of a tree.
        ax: a matplotlib ``Axes`` to draw on (default: a new figure).
        title: the axes' title.

    Returns:
        The matplotlib ``Axes``.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    for label, shape in shapes.items():
        ax.plot(range(len(shape.widths)), shape.widths, "o-", label=f"{label} (height {shape.height})")
    ax.set_xlabel("depth (plies below the root)")
    ax.set_ylabel("nodes at that depth")
    ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
