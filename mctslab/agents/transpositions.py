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
that were walked (not the first parents): :meth:`TranspositionUCT.iterate` hands the path that
:meth:`TranspositionUCT.walk` returns to :meth:`TranspositionUCT.backpropagate` (a value, never
kept on the agent). The pictures of :mod:`mctslab.viz` follow first parents, so they draw the
tree of first parents.
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

    def best_edge(self, node: TNode) -> int:
        """The index of ``node``'s edge of highest :meth:`edge_value` (the first on a tie)."""
        values = [self.edge_value(node, i) for i in range(len(node.children))]
        return values.index(max(values))

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

    def new_root(self, game: Game, state: State) -> Node:
        """A fresh root and a fresh table holding it."""
        root = super().new_root(game, state)
        self.table = {state: root}
        return root

    def walk(self, node: TNode) -> list[tuple[TNode, int]]:
        """Step 1 with its path: descend by the highest :meth:`EdgeRule.edge_value` (the first on a tie) while the
        node is fully expanded; the ``(node, edge index)`` pairs walked, ``(node, -1)`` first."""
        rule = self.rule
        path = [(node, -1)]
        while not node.untried and node.children:
            i = rule.best_edge(node)
            node = node.children[i]
            path.append((node, i))
        return path

    def select(self, node: TNode) -> tuple[Node, int]:
        """Step 1: the node :meth:`walk` reaches and its depth."""
        path = self.walk(node)
        return path[-1][0], len(path) - 1

    def iterate(self, game: Game, root: Node) -> int:
        """One iteration, the walked path handed from step 1 to step 4 as a value; the depth simulated from."""
        path = self.walk(root)
        leaf = path[-1][0]
        node = self.expand(game, leaf)
        if node is not leaf:
            path.append((node, len(leaf.children) - 1))
        self.backpropagate(node, self.simulate(game, node), path)
        return len(path) - 1

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
        return child

    def backpropagate(
        self, node: Node, returns: tuple[float, float], path: list[tuple[TNode, int]] | None = None
    ) -> None:
        """Step 4: each position on the walked path gets a visit and its reward; each edge walked, a visit.

        Args:
            node: the node simulated from (the end of ``path``).
            returns: the playout's rewards, per player.
            path: the ``(node, edge)`` pairs walked (:meth:`iterate` passes :meth:`walk`'s and the new edge);
                without it (steps called one by one, as :class:`~mctslab.viz.SearchRecorder` does), the walk
                is done again from the root (:meth:`walked_to`): nothing the steps between change alters it.
        """
        if path is None:
            path = self.walked_to(node)
        previous = None
        for n, i in path:
            n.add(returns[n.player])
            if previous is not None:
                previous.edge_visits[i] += 1
            previous = n

    def walked_to(self, node: TNode) -> list[tuple[TNode, int]]:
        """The path :meth:`walk` took from the root (the top of ``node``'s first parents), then the edge to ``node``.

        Between the steps of one iteration only the expanded leaf changes: it gains one edge of no
        visits, which :class:`EdgeRule` scores ``+inf`` and no other edge of it can match (each was
        backed up when made); so the same walk from the root follows the same edges, then that one
        to ``node``. Node and edge counts are not changed by this walk.

        Raises:
            ValueError: if the walk from the root does not reach ``node`` (``node`` is not where this
                agent's last selection and expansion ended).
        """
        root = node
        while root.parent is not None:
            root = root.parent
        rule, path, at = self.rule, [(root, -1)], root
        for _ in range(len(self.table) + 1):  # never longer than the positions searched
            if at is node:
                return path
            if not at.children:
                break
            i = rule.best_edge(at)
            at = at.children[i]
            path.append((at, i))
        raise ValueError(f"{node!r} is not where a walk from the root leads: give backpropagate the path walked")

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
