"""The node of a UCT tree: one position, the statistics of the playouts through it, and :meth:`Node.add`.

:meth:`Node.add` is the one place where a playout's reward enters a node: visits, wins
and the two terms that selection reads without recomputing them (``mean`` and
``inv_sqrt``). A variant that keeps more statistics per node (squared rewards for
UCB1-Tuned, say) extends :meth:`Node.add` in its node class, and every backpropagation
keeps them up to date.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import inf, sqrt

from ..games.base import State
from ..ucb import SQRT2, exploration
from .base import MoveStat


class Node:
    """One node of the UCT tree: the position reached by ``move`` from ``parent``.

    Point of view: ``wins`` is the total reward (1 win, 0.5 draw, 0 loss) of the
    playouts through this node **for** ``player``, **the player who made** ``move``,
    that is, the player to move at the parent. So when the parent chooses among its
    children, ``child.wins / child.visits`` is the chooser's own mean reward, and no
    sign is ever flipped. At the root (no move), ``player`` is the opponent of the
    player to move, so the root's mean is the opponent's.

    Attributes:
        move: the move from the parent (``None`` at the root).
        parent: the parent node (``None`` at the root).
        state: the position at this node.
        player: the player who made ``move`` (0 or 1).
        children: the expanded children, in the order they were added (an empty
            tuple until the first one, so that the many leaves carry no list).
        untried: legal moves not yet expanded; ``None`` until the node is first
            reached as a leaf (children are created lazily, one per iteration).
        visits: number of playouts through this node.
        wins: total reward of those playouts for ``player``.
        mean: ``wins / visits``, the mean reward for ``player`` (0.5 before any
            visit); kept up to date by :meth:`add` so selection need not divide.
        inv_sqrt: ``1 / sqrt(visits)`` (infinite before any visit), also kept by
            :meth:`add`: selection scores every child of a node, so the square
            root is taken once per visit instead of once per child per iteration.
    """

    __slots__ = ("move", "parent", "state", "player", "children", "untried", "visits", "wins", "mean", "inv_sqrt")

    def __init__(self, state: State, player: int, move: int | None = None, parent: Node | None = None) -> None:
        self.state = state
        self.player = player
        self.move = move
        self.parent = parent
        self.children: list[Node] | tuple[()] = ()
        self.untried: list[int] | None = None
        self.visits = 0
        self.wins = 0.0
        self.mean = 0.5
        self.inv_sqrt = inf

    def add(self, reward: float) -> None:
        """Count one playout through this node, with ``reward`` for :attr:`player` (1 win, 0.5 draw, 0 loss).

        Updates :attr:`visits`, :attr:`wins` and the cached :attr:`mean` and
        :attr:`inv_sqrt` together, so they always agree. A node class with more
        statistics extends this method (calling ``super().add(reward)``).
        """
        self.visits += 1
        self.wins += reward
        self.mean = self.wins / self.visits
        self.inv_sqrt = 1 / sqrt(self.visits)

    def child(self, move: int) -> Node:
        """The child reached by ``move``.

        Raises:
            KeyError: if that move has not been expanded.
        """
        for ch in self.children:
            if ch.move == move:
                return ch
        raise KeyError(f"move {move} has no node here; expanded moves: {[ch.move for ch in self.children]}")

    def iter_nodes(self) -> Iterator[Node]:
        """This node and all its descendants, depth first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def size(self) -> int:
        """Number of nodes in this subtree, this node included."""
        return sum(1 for _ in self.iter_nodes())

    def height(self) -> int:
        """Depth of the deepest descendant, in plies below this node (0 for a leaf)."""
        best, stack = 0, [(self, 0)]
        while stack:
            node, depth = stack.pop()
            best = max(best, depth)
            stack.extend((ch, depth + 1) for ch in node.children)
        return best

    def move_stats(self, c: float = SQRT2) -> tuple[MoveStat, ...]:
        """Per-child statistics, in move order: visits, mean and the UCB1 exploration term."""
        return tuple(
            MoveStat(ch.move, ch.visits, ch.mean, exploration=exploration(self.visits, ch.visits, c))
            for ch in sorted(self.children, key=lambda ch: ch.move)
        )

    def __repr__(self) -> str:
        return f"Node(move={self.move}, player={self.player}, wins={self.wins:g}, visits={self.visits})"
