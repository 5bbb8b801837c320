"""The UCT agent's ``engine="compiled"`` path: search with :mod:`mctslab.engine`, answer as UCT does.

The compiled engine keeps its tree in arrays (:class:`~mctslab.engine.CompiledTree`);
:class:`CompiledNode` reads them as :class:`~mctslab.agents.node.Node` reads (move,
player, state, children, visits, wins, mean...), so :meth:`UCT.search
<mctslab.agents.uct.UCT.search>` returns a root that :func:`~mctslab.viz.draw_tree`,
:func:`~mctslab.viz.tree_outline` and everything else that walks a tree can use.
"""

from __future__ import annotations

from collections.abc import Callable
from math import inf, sqrt
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..engine import Budget, CompiledTree, ParallelResult, SearchResult, check_supported, search_root_parallel
from ..engine.shared_tree import search_leaf_parallel, search_tree_parallel
from ..engine.uct import search_budget
from ..games.base import Game, State
from ..games.compiled import compiled_encoding
from .base import Analysis, MoveStat, legal_or_raise
from .node import Node

if TYPE_CHECKING:
    from .protocols import Searcher, TreeKeeper

__all__ = ["CompiledNode", "analyse", "merged_root", "search_root"]


class CompiledNode(Node):
    """A read-only view of one slot of a :class:`~mctslab.engine.CompiledTree`, with :class:`Node`'s attributes.

    ``visits``, ``wins``, ``mean`` and ``inv_sqrt`` are read from the arrays when asked;
    ``state`` and ``player`` are worked out by playing the moves from the root. Children
    are made once and kept, so a drawing can key nodes by ``id`` (children the search
    added since are appended when asked again). Searching again from the same tree (tree
    reuse) moves its root: take the new search's root, not an old view.

    Attributes:
        tree: the arrays.
        slot: this node's slot in them.
    """

    __slots__ = ("tree", "slot", "_game", "_kids")

    def __init__(
        self, tree: CompiledTree, slot: int, game: Game, state: State, player: int, parent: CompiledNode | None
    ) -> None:
        self.tree, self.slot, self._game = tree, slot, game
        self.state, self.player, self.parent = state, player, parent
        self._kids: list[CompiledNode] = []

    @classmethod
    def root_of(cls, tree: CompiledTree, game: Game, state: State) -> CompiledNode:
        """The view of ``tree``'s root, whose position is ``state``."""
        return cls(tree, tree.root, game, state, 1 - game.to_move(state), None)

    @property
    def move(self) -> int | None:  # type: ignore[override]
        """The move from the parent (``None`` at the root)."""
        return None if self.parent is None else int(self.tree.move[self.slot])

    @property
    def visits(self) -> int:  # type: ignore[override]
        """Playouts through this node."""
        return int(self.tree.visits[self.slot])

    @property
    def wins(self) -> float:  # type: ignore[override]
        """Total reward for ``player`` (the arrays count half points)."""
        return int(self.tree.wins2[self.slot]) / 2

    @property
    def mean(self) -> float:  # type: ignore[override]
        """``wins / visits`` (0.5 before a visit), as the engine keeps it."""
        return float(self.tree.mean[self.slot])

    @property
    def inv_sqrt(self) -> float:  # type: ignore[override]
        """``1 / sqrt(visits)``, as the engine keeps it."""
        return float(self.tree.isq[self.slot])

    @property
    def children(self) -> list[CompiledNode]:  # type: ignore[override]
        """The created children (views of this view's class), in creation order."""
        slots = self.tree.children(self.slot)
        if len(self._kids) < len(slots):
            game, state = self._game, self.state
            mover = game.to_move(state)
            self._kids += [
                type(self)(self.tree, s, game, game.apply(state, int(self.tree.move[s])), mover, self)
                for s in slots[len(self._kids) :]
            ]
        return self._kids

    @property
    def untried(self) -> list[int] | None:  # type: ignore[override]
        """Legal moves not created yet (``None`` until the node is first expanded)."""
        tree, slot = self.tree, self.slot
        first = int(tree.first[slot])
        if first < 0:
            return None
        return [int(tree.move[s]) for s in range(first + int(tree.nexp[slot]), first + int(tree.nlegal[slot]))]

    def add(self, reward: float) -> None:
        """Not possible: the compiled engine updates its own arrays.

        Raises:
            TypeError: always.
        """
        raise TypeError("a CompiledNode is a read-only view of the compiled engine's arrays")

    def __repr__(self) -> str:
        return f"CompiledNode(move={self.move}, player={self.player}, wins={self.wins:g}, visits={self.visits})"


def _reusable(agent: Searcher, game: Game, state: State, engine: TreeKeeper) -> CompiledTree | None:
    """The tree ``engine`` kept re-rooted at ``state`` (found within two plies), or None."""
    previous = engine.previous
    if not agent.reuse or previous is None or previous[0] != game:
        return None
    _, tree, root_state = previous
    frontier = [(tree.root, root_state)]
    for _ in range(3):
        for slot, node_state in frontier:
            if node_state == state:
                tree.root = slot
                tree.root_state = np.array(compiled_encoding(game).compiled_state(state), dtype=np.int64)
                tree.info[1] = 0
                return tree
        frontier = [(s, game.apply(st, int(tree.move[s]))) for slot, st in frontier for s in tree.children(slot)]
    return None


def analyse(agent: Searcher, game: Game, state: State, engine: TreeKeeper) -> Analysis:
    """:meth:`mctslab.agents.uct.UCT.analyse` on the compiled engine (see :mod:`mctslab.engine`).

    The agent's generator gives the search's seed (32 bits per search), so a seeded agent
    plays the same moves every time. ``Analysis.root`` is a :class:`CompiledNode` (its
    ``tree`` attribute holds the arrays); ``engine`` keeps the tree that ``reuse`` continues from.

    With ``threads=K > 1`` (``parallel="root"``): K seeds drawn from the agent's generator
    (the first is the seed ``threads=1`` would use), K trees searched at once
    (:func:`~mctslab.engine.search_root_parallel`), ``iterations`` each; ``Analysis.root``
    is then a :class:`Node` of one level, the summed root (see :func:`merged_root`), and
    ``Analysis.iterations`` counts the iterations of all trees. With ``parallel="tree"``
    or ``"leaf"``: K seeds drawn the same way, one tree searched by K threads
    (:mod:`mctslab.engine.shared_tree`); ``Analysis.root`` is its :class:`CompiledNode`.

    Raises:
        ValueError: (one line, before anything is compiled) if ``agent``'s class changes
            a part of UCT the compiled engine cannot run, or ``game`` declares no kernel.
    """
    agent.check_compiled()
    check_supported(game)
    legal_or_raise(game, state)
    if agent.threads > 1 and agent.parallel == "root":
        return _analyse_root_parallel(agent, game, state, engine.budget(agent))
    if agent.threads > 1:
        return _analyse_shared(agent, game, state, engine.budget(agent))
    return _tree_analysis(agent, game, state, searched(agent, game, state, search_budget, engine))


def search_root(agent: Searcher, game: Game, state: State, engine: TreeKeeper) -> CompiledNode:
    """:meth:`mctslab.agents.uct.UCT.search` on the compiled engine in one thread: :func:`analyse`'s root alone.

    The same checks, seed and tree as :func:`analyse`, without the final move and the per-move
    statistics (a caller of ``search`` reads the tree).

    Raises:
        ValueError: as :func:`analyse`.
    """
    agent.check_compiled()
    check_supported(game)
    legal_or_raise(game, state)
    return CompiledNode.root_of(searched(agent, game, state, search_budget, engine).tree, game, state)


def _tree_analysis(agent: Searcher, game: Game, state: State, result: SearchResult) -> Analysis:
    """The analysis of one compiled tree's root: the move by ``agent.final``, per-move statistics, the root's view."""
    if not result.moves:
        raise _no_legal_move(game, state)
    children = list(zip(result.moves, result.visits, result.means, strict=True))
    best = final_choice(agent, children)
    root = CompiledNode.root_of(result.tree, game, state)
    rule = agent.rule
    parent = _Counts(root.visits, root.mean)  # the rule reads counts only: no child node (and position) is made
    stats = tuple(
        MoveStat(m, v, mean, exploration=rule.exploration(parent, _Counts(v, mean))) for m, v, mean in sorted(children)
    )
    return Analysis(best[0], stats, iterations=result.done, max_depth=result.tree.max_depth, root=root, rule=rule.name)


def _no_legal_move(game: Game, state: State) -> RuntimeError:
    """The error when the kernel's rules see no move where Python's did: never silently a default move."""
    return RuntimeError(f"the compiled engine found no legal move in {game.spec} position {state!r}; use engine=python")


def searched(
    agent: Searcher, game: Game, state: State, search: Callable[..., Any], engine: TreeKeeper, **extra: Any
) -> Any:
    """One compiled search as every compiled agent runs it (``search``: the engine's function for its tree).

    The budget is the one ``engine`` made of the agent's parameters (:meth:`CompiledEngine.budget
    <mctslab.agents.engines.CompiledEngine.budget>`), the seed 32 bits of the agent's generator, the
    tree the previous one re-rooted when ``reuse`` is on (kept by ``engine`` for the next move),
    ``extra`` the variant's own arguments (MCTS-Solver's ``tree_class``, RAVE's ``k``). The agent's
    parameters were checked when it was made, the state by its caller: ``search`` is called
    ``checked=True`` (:func:`mctslab.engine.uct.search_budget`, :func:`mctslab.engine.rave.search_rave`).

    Raises:
        RuntimeError: when the kernel's rules see no move where Python's did (never silently a
            default move).
    """
    seed, tree = agent.rng.getrandbits(32), _reusable(agent, game, state, engine)
    result = search(game, state, engine.budget(agent), seed=seed, tree=tree, checked=True, **extra)
    if agent.reuse:
        engine.previous = (game, result.tree, state)
    if not result.tree.children():
        raise _no_legal_move(game, state)
    return result


def final_choice(agent: Searcher, children: list[tuple]) -> tuple:
    """:meth:`UCT.best_child <mctslab.agents.uct.UCT.best_child>` on ``(move, visits, mean, ...)`` rows (no view made).

    The most visited (ties: the higher mean), or with ``final="mean"`` the highest mean (ties: more visits).
    """
    if agent.final == "visits":
        return max(children, key=lambda ch: (ch[1], ch[2]))
    return max(children, key=lambda ch: (ch[2], ch[1]))


class _Counts(NamedTuple):
    """A node's counts as a selection rule reads them (``visits``, ``mean``), for the root's statistics."""

    visits: int
    mean: float


def merged_root(game: Game, state: State, result: ParallelResult | Any, node_class: type[Node] = Node) -> Node:
    """The K trees' roots as one :class:`Node` of one level: per move, the summed visits and wins.

    ``node_class``: the nodes to make; when it names other summed statistics (``SUMMED``, e.g.
    UCB1-Tuned's ``squares``), ``result.extras`` holds them per move, in that order.

    ``result``: a :class:`~mctslab.engine.ParallelResult`, or any object with its
    ``moves``, ``visits``, ``wins``, ``root_visits`` and ``root_wins`` (root parallelism
    in processes, :mod:`mctslab.agents.processes`).

    The children are in move order (not creation order: each tree created them in its own
    order); their ``untried`` is ``None`` (the trees below them are in ``result.trees``).
    """
    mover = game.to_move(state)
    root = node_class(state, 1 - mover)
    root.visits, root.wins = result.root_visits, result.root_wins
    root.mean = root.wins / root.visits
    root.inv_sqrt = 1 / sqrt(root.visits)
    kids = []
    extras = getattr(result, "extras", None) or [()] * len(result.moves)
    for move, visits, wins, more in zip(result.moves, result.visits, result.wins, extras, strict=True):
        child = node_class(game.apply(state, move), mover, move, root)
        child.visits, child.wins = visits, wins
        for name, value in zip(getattr(node_class, "SUMMED", ()), more, strict=False):
            setattr(child, name, value)
        child.mean = wins / visits if visits else 0.5
        child.inv_sqrt = 1 / sqrt(visits) if visits else inf
        kids.append(child)
    root.children = kids
    root.untried = []
    return root


def _analyse_shared(agent: Searcher, game: Game, state: State, budget: Budget) -> Analysis:
    """Tree or leaf parallelism: K seeds from the agent's generator, one tree searched by K threads."""
    seeds = tuple(agent.rng.getrandbits(32) for _ in range(agent.threads))
    if agent.parallel == "tree":
        result = search_tree_parallel(game, state, budget, seeds=seeds, virtual_loss=agent.virtual_loss)
    else:
        result = search_leaf_parallel(game, state, budget, seeds=seeds)
    return _tree_analysis(agent, game, state, result)


def _analyse_root_parallel(agent: Searcher, game: Game, state: State, budget: Budget) -> Analysis:
    """Root parallelism: K seeds from the agent's generator, K trees at once, the move by the summed visits."""
    if agent.reuse:
        raise ValueError(
            f"reuse=True with threads={agent.threads}: root parallelism starts K fresh trees every move;"
            " use reuse=False, or threads=1"
        )
    seeds = tuple(agent.rng.getrandbits(32) for _ in range(agent.threads))
    result = search_root_parallel(game, state, budget, seeds=seeds)
    if not result.moves:
        raise _no_legal_move(game, state)
    root = merged_root(game, state, result)
    return Analysis(
        agent.final_move(root),
        agent.move_stats(root),
        iterations=result.done,
        max_depth=result.max_depth,
        root=root,
        rule=agent.rule.name,
    )
