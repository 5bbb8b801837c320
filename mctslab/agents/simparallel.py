"""Parallel UCT with simulated workers: root, tree (with or without virtual loss) and leaf parallelization.

Chaslot, Winands and van den Herik (2008, "Parallel Monte-Carlo Tree Search") compared
three ways of spreading MCTS over ``K`` threads:

* **root**: ``K`` independent trees, each grown by one thread from the same position;
  at the end their root children's visits are summed and the most visited move is played;
* **tree**: one shared tree that every thread descends, expands, simulates from and
  backs up into (with local mutexes in the paper); a **virtual loss** added to every
  node on a thread's path while its playout runs turns the threads that follow away
  from that path (without it, ``treenovl`` here, they tend to pile onto the same line);
* **leaf**: one thread descends and expands, then ``K`` threads play ``K`` playouts from
  that one leaf, and all ``K`` results are backed up.

This module *simulates* the ``K`` workers, interleaved deterministically in one process,
so that what is measured depends on the algorithm and not on the machine:

* ``mode=tree`` / ``treenovl``: each **round**, worker ``1..K`` in turn selects and expands
  one path (``tree``: with the virtual losses of the workers before it in this round
  already on the tree; each adds ``virtual_loss`` lost playouts to every node of its path,
  the new node included); then the ``K`` playouts; then the virtual losses are taken off
  and the ``K`` results backed up. A round is lockstep: no worker sees a result of its own
  round, every worker sees every result of the rounds before.
* ``mode=root``: ``K`` plain UCT searches of ``iterations`` each, from seeds derived from
  one draw of the agent's generator; the root children's visits and rewards are summed.
* ``mode=leaf``: each round one selection and expansion, ``K`` playouts from that node,
  ``K`` backups.

``iterations`` is **per worker**, as in the paper, where each thread searched for as long as
the one-thread program: the tree gets ``workers x iterations`` playouts (root: each tree
``iterations``). With ``seconds``, the rounds run until the clock (root: each tree gets
``seconds``), so the wall-clock time is that of ``K`` threads run one after the other.

What is **not** simulated: real concurrency. There are no threads, no locks and no time:
threads that finish at different speeds, a worker that sees another's result mid-round,
the lost updates and torn reads of a lock-free shared tree (Enzenberger and Mueller 2009),
and the cost of synchronisation are all absent. The model is the idealised schedule in
which ``K`` threads run at exactly the same speed.
"""

from __future__ import annotations

from math import inf, sqrt

from ..games.base import Game, State
from ..seeding import Seed, child_seeds
from ..ucb import SQRT2
from .base import Param, check_positive_int, legal_or_raise
from .engines import PythonEngine
from .node import Node
from .registry import register_agent
from .uct import UCT, VARIANT_PARAMS

__all__ = ["MODES", "SimNode", "SimParallel", "check_mode", "merge_roots"]

MODES = ("tree", "treenovl", "root", "leaf")
"""The parallelizations: shared tree with virtual loss, shared tree without, independent trees, leaf."""


def check_mode(name: str, value: object) -> str:
    """``value`` if it is one of :data:`MODES` (ValueError naming it and the modes otherwise)."""
    if value not in MODES:
        raise ValueError(f"{name}={value!r}: unknown parallelization; use one of {', '.join(MODES)}")
    return value


class SimNode(Node):
    """A UCT node that can carry pending virtual losses (:meth:`add_virtual`, :meth:`remove_virtual`).

    A virtual loss is a playout counted as lost for :attr:`player` (a visit, no reward):
    the chooser at the parent sees a lower mean and a smaller exploration term. The cached
    ``mean`` and ``inv_sqrt`` are kept in step, so UCT's selection reads them unchanged.
    """

    __slots__ = ()

    def _refresh(self) -> None:
        self.mean = self.wins / self.visits if self.visits else 0.5
        self.inv_sqrt = 1 / sqrt(self.visits) if self.visits else inf

    def add_virtual(self, losses: int) -> None:
        """Count ``losses`` pending lost playouts through this node."""
        self.visits += losses
        self._refresh()

    def remove_virtual(self, losses: int) -> None:
        """Take ``losses`` pending lost playouts off again (the node's real statistics are restored)."""
        self.visits -= losses
        self._refresh()


def _path(node: Node) -> list[Node]:
    """``node`` and its ancestors up to the root."""
    path = []
    while node is not None:
        path.append(node)
        node = node.parent
    return path


def merge_roots(game: Game, state: State, roots: list[Node]) -> Node:
    """One root whose children sum the visits and rewards of the same move's children in ``roots``.

    The result is one level deep (the children have no children): what root parallelization
    keeps of the ``K`` trees.
    """
    merged = Node(state, 1 - game.to_move(state))
    merged.untried = []
    by_move: dict[int, Node] = {}
    for root in roots:
        merged.visits += root.visits
        merged.wins += root.wins
        for child in root.children:
            if child.move not in by_move:
                by_move[child.move] = Node(child.state, child.player, child.move, merged)
            into = by_move[child.move]
            into.visits += child.visits
            into.wins += child.wins
    for node in (merged, *by_move.values()):
        if node.visits:
            node.mean = node.wins / node.visits
            node.inv_sqrt = 1 / sqrt(node.visits)
    merged.children = [by_move[m] for m in sorted(by_move)]
    return merged


class Rounds(PythonEngine):
    """SimParallel's python engine: ``iterations`` rounds of ``workers`` simulated threads (tree, treenovl,
    leaf: :meth:`SimParallel.iterate`), or ``workers`` separate UCT searches whose roots are merged (root)."""

    def run(self, agent: SimParallel, game: Game, state: State) -> tuple[Node, int, int]:
        """The root, the deepest depth simulated from, and the playouts of all workers."""
        if agent.mode != "root":
            root, max_depth, rounds = super().run(agent, game, state)
            return root, max_depth, rounds * agent.workers
        legal_or_raise(game, state)
        seeds = child_seeds(agent.rng.getrandbits(63), agent.workers)
        roots, max_depth, done = [], 0, 0
        for seed in seeds:
            worker = UCT(
                agent.iterations,
                agent.c,
                seconds=agent.seconds,
                max_moves=agent.max_moves,
                final=agent.final,
                playout=agent.playout,
                seed=seed,
            )
            root, depth, iterations = PythonEngine().run(worker, game, state)
            roots.append(root)
            max_depth, done = max(max_depth, depth), done + iterations
        return merge_roots(game, state, roots), max_depth, done


@register_agent
class SimParallel(UCT):
    """UCT parallelized over ``workers`` simulated threads (root, tree, tree without virtual loss, leaf).

    Args:
        iterations: playouts **per worker** per move (the tree gets ``workers x iterations``).
        workers: the number of simulated threads ``K``, >= 1 (1: plain UCT's result in every mode
            but root, which then is one UCT search from a derived seed).
        mode: ``tree`` (shared tree, virtual loss), ``treenovl`` (shared tree, none), ``root``
            (independent trees, visits summed) or ``leaf`` (``K`` playouts per expanded leaf).
        virtual_loss: lost playouts a ``tree`` worker adds to every node of its path until its
            result is backed up, >= 1 (ignored by the other modes).
        **kwargs: UCT's parameters (:class:`~mctslab.agents.uct.UCT`); ``reuse`` keeps
            nothing in root mode.

    The module docstring (:mod:`mctslab.agents.simparallel`) says exactly what is simulated
    and what is not (no real concurrency, no races of lock-free trees). Every worker selects
    by the agent's rule object (:attr:`~mctslab.agents.uct.UCT.rule`, UCB1 by default): a
    child an earlier worker of the round created and has not backed up (0 visits) scores
    ``+inf``, as :func:`mctslab.ucb.ucb1` says and a real thread reading it would see
    (:meth:`UCB1.descend <mctslab.agents.rules.UCB1.descend>`); sequential UCT never meets
    one, so with one worker this is UCT's selection, choice for choice.
    """

    name = "simparallel"
    params = (
        *VARIANT_PARAMS,
        Param("workers", int, 4, check_positive_int, "simulated threads K (iterations are per worker)"),
        Param("mode", str, "tree", check_mode, "tree, treenovl (no virtual loss), root or leaf"),
        Param("virtual_loss", int, 1, check_positive_int, "lost playouts per node on a tree worker's path"),
    )
    node_class = SimNode
    python_engine = Rounds

    def __init__(
        self,
        iterations: int | None = None,
        c: float = SQRT2,
        *,
        workers: int = 4,
        mode: str = "tree",
        virtual_loss: int = 1,
        seed: Seed = None,
        **kwargs,
    ) -> None:
        super().__init__(iterations, c, seed=seed, **kwargs)
        self.set_params(workers=workers, mode=mode, virtual_loss=virtual_loss)

    def iterate(self, game: Game, root: Node) -> int:
        """One round: ``workers`` selections, playouts and backups (tree, treenovl) or one selection and
        ``workers`` playouts (leaf); returns the deepest depth simulated from."""
        if self.mode == "leaf":
            leaf, depth = self.select(root)
            node = self.expand(game, leaf)
            results = [self.simulate(game, node) for _ in range(self.workers)]
            for returns in results:
                self.backpropagate(node, returns)
            return depth + (node is not leaf)
        losses = self.virtual_loss if self.mode == "tree" else 0
        ends, deepest = [], 0
        for _ in range(self.workers):
            leaf, depth = self.select(root)
            node = self.expand(game, leaf)
            deepest = max(deepest, depth + (node is not leaf))
            ends.append(node)
            if losses:
                for on_path in _path(node):
                    on_path.add_virtual(losses)
        results = [self.simulate(game, node) for node in ends]
        if losses:
            for node in ends:
                for on_path in _path(node):
                    on_path.remove_virtual(losses)
        for node, returns in zip(ends, results, strict=True):
            self.backpropagate(node, returns)
        return deepest
