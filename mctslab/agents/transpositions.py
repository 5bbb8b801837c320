"""UCT with transpositions: one node per position, the tree a directed acyclic graph.

Plain UCT grows a *tree*: a position reached by two move orders (X 0 then 4, or X 4
then 0) gets two nodes, each learning alone. 3 x 3 tic-tac-toe has 549,946 tree nodes
but only 5,478 positions. Keyed by position (a transposition table, as alpha-beta
programs keep), the search shares what it learns between move orders, and the tree
becomes a DAG: a node may have several parents.

Which statistics to use where is the question of Childs, Brodeur and Kocsis (2008),
"Transpositions and move groups in Monte Carlo tree search". They compare keeping
everything on the positions (their UCT1), keeping the visit counts on the *edges* (the
moves) while taking the mean from the position reached (UCT2), and recomputing a
position's value from its children's (UCT3). We use the UCT2 form, as we read it:

    value(s, a) = mean(s') + c * sqrt(ln N(s) / n(s, a)),

with ``s'`` the position after move ``a``, ``mean(s')`` its mean over *every* playout
through it (whatever the path: the shared knowledge), ``n(s, a)`` the visits of this
edge and ``N(s)`` the visits of ``s``. Why the edge count: with the position's count
``n(s')`` instead, a child often visited through another parent would look explored
here and be starved (its count can even exceed ``N(s)``, and the exploration term
stops meaning "how often *this* parent tried it").

Each position's node is created once; ``Node.parent`` and ``Node.move`` keep the
*first* parent and move that reached it (for pictures), while each node's
``moves``/``edge_visits`` hold the moves and counts of its own edges. The search
path of an iteration is kept, so backpropagation updates exactly the nodes and edges
that were walked (not the first parents). The recorder and the pictures of
:mod:`mctslab.viz` follow first parents, so they draw the tree of first parents.
"""

from __future__ import annotations

from ..games.base import Game, State
from ..seeding import Seed
from ..ucb import SQRT2, exploration
from .base import MoveStat
from .registry import register_agent
from .rules import UCB1
from .uct import UCT, VARIANT_PARAMS, Node


class TNode(Node):
    """A position's node in the DAG: :class:`~mctslab.agents.uct.Node` plus its edges.

    Attributes:
        moves: the move of each edge, aligned with ``children``.
        edge_visits: the visits of each edge, aligned with ``children``.
    """

    __slots__ = ("moves", "edge_visits")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.moves: list[int] = []
        self.edge_visits: list[int] = []


class EdgeRule(UCB1):
    """UCT2's rule: the mean of the position an edge reaches plus the exploration term of the edge's count."""

    name = "UCB1 (edge counts)"

    def edge_value(self, node: TNode, i: int) -> float:
        """The value of ``node``'s edge ``i``: ``mean(s') + c * sqrt(ln N(s) / n(s, a))`` (``inf`` untried)."""
        return self.bound(node.children[i].mean, node.visits, node.edge_visits[i])

    def value(self, parent: TNode, child: TNode) -> float:
        """:meth:`edge_value` of the first edge from ``parent`` to ``child``."""
        return self.edge_value(parent, parent.children.index(child))

    def exploration(self, parent: TNode, child: TNode) -> float:
        """The exploration term of the first edge from ``parent`` to ``child``."""
        return exploration(parent.visits, parent.edge_visits[parent.children.index(child)], self.c)


@register_agent
class TranspositionUCT(UCT):
    """UCT on a DAG of positions (transpositions), with the UCT2 update of Childs et al. (2008).

    Parameters: :class:`~mctslab.agents.uct.UCT`'s but ``threads`` (one DAG, one thread: its
    analysis reads the root's edges, which K summed roots would not have; ``threads=K`` is
    refused when the agent is made). :attr:`table` maps each position searched to its one
    node; ``len(agent.table)`` is the number of nodes built.

    Example:

    >>> from mctslab import make_game
    >>> game = make_game("tictactoe")
    >>> agent = TranspositionUCT(iterations=3000, seed=0)
    >>> root = agent.search(game, game.initial_state())
    >>> len(agent.table) < 3000  # positions: fewer nodes than iterations
    True
    """

    name = "transpositions"
    params = tuple(p for p in VARIANT_PARAMS if p.name != "threads")  # one DAG in one thread: threads=K is refused
    node_class = TNode
    rule_class = EdgeRule

    def __init__(self, iterations: int | None = None, c: float = SQRT2, *, seed: Seed = None, **kwargs) -> None:
        if kwargs.get("threads", 1) != 1:  # it once took threads=K, wrote it in its spec, and searched one DAG
            raise ValueError(f"threads={kwargs['threads']}: UCT with transpositions searches one DAG; use threads=1")
        super().__init__(iterations, c, seed=seed, **kwargs)
        self.table: dict[State, TNode] = {}
        self._path: list[tuple[TNode, int]] = []

    def new_root(self, game: Game, state: State) -> Node:
        """A fresh root and a fresh table holding it."""
        root = super().new_root(game, state)
        self.table = {state: root}
        return root

    def select(self, node: TNode) -> tuple[Node, int]:
        """Step 1: descend by the highest :meth:`EdgeRule.edge_value`, keeping the path of (node, edge) walked."""
        rule = self.rule
        self._path = [(node, -1)]
        while not node.untried and node.children:
            values = [rule.edge_value(node, i) for i in range(len(node.children))]
            i = values.index(max(values))
            node = node.children[i]
            self._path.append((node, i))
        return node, len(self._path) - 1

    def expand(self, game: Game, node: TNode) -> Node:
        """Step 2: one untried move, at random; its position's node is looked up, or created once."""
        move = self.pop_untried(game, node)
        if move is None:
            return node
        state = game.apply(node.state, move)
        child = self.table.get(state)
        if child is None:
            child = self.table[state] = self.node_class(state, game.to_move(node.state), move, node)
        if node.children:
            node.children.append(child)
        else:
            node.children = [child]
        node.moves.append(move)
        node.edge_visits.append(0)
        if self._path and self._path[-1][0] is node:
            self._path.append((child, len(node.children) - 1))
        return child

    def backpropagate(self, node: Node, returns: tuple[float, float]) -> None:
        """Step 4: each position on the walked path gets a visit and its reward; each edge walked, a visit."""
        path = self._path
        if not path or path[-1][0] is not node:  # not called after select: follow first parents
            path, walk = [], node
            while walk is not None:
                path.append((walk, -1 if walk.parent is None else walk.parent.children.index(walk)))
                walk = walk.parent
            path.reverse()
        previous = None
        for n, i in path:
            n.add(returns[n.player])
            if previous is not None:
                previous.edge_visits[i] += 1
            previous = n
        self._path = []

    def _best_edge(self, root: TNode) -> int:
        keys = [
            (v, ch.mean) if self.final == "visits" else (ch.mean, v)
            for v, ch in zip(root.edge_visits, root.children, strict=True)
        ]
        return keys.index(max(keys))

    def best_child(self, root: Node) -> Node:
        """The position the most visited edge leads to (``final="mean"``: the highest mean)."""
        return root.children[self._best_edge(root)]

    def move_stats(self, root: Node) -> tuple[MoveStat, ...]:
        """Per-edge statistics of ``root`` in move order: edge visits, the mean of the position reached, exploration."""
        return tuple(
            MoveStat(m, v, ch.mean, exploration=exploration(root.visits, v, self.c))
            for m, v, ch in sorted(zip(root.moves, root.edge_visits, root.children, strict=True), key=lambda t: t[0])
        )

    def final_move(self, root: Node) -> int:
        """The move of the best edge (the node it reaches may keep another parent's move as its ``move``)."""
        return root.moves[self._best_edge(root)]


def dag_size(root: TNode) -> tuple[int, int]:
    """Nodes and edges of the DAG below ``root`` (each position counted once)."""
    seen, stack, edges = {id(root)}, [root], 0
    while stack:
        node = stack.pop()
        edges += len(node.children)
        for ch in node.children:
            if id(ch) not in seen:
                seen.add(id(ch))
                stack.append(ch)
    return len(seen), edges
