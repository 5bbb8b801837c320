"""MCTS-Solver: UCT that proves wins and losses (Winands, Bjornsson and Saito 2008).

Plain UCT only ever *estimates*: a child that wins at once is still sampled, and a
move that loses by force keeps being tried until its mean sinks. MCTS-Solver adds a
game-theoretic value to the nodes and backs it up like minimax:

* a terminal node is **proven** with its result;
* a node is proven a **win for the player to move** as soon as one child is a proven
  win for that player (one winning move is enough);
* a node is proven when **all** its children are proven (fully expanded): its value
  is the best of theirs for the player to move (a loss when every move loses).

Winands et al. prove wins and losses only; on games with draws we also keep a proven
draw (value 1/2) when every child is proven and the best of them is a draw, which is
the same minimax rule applied to three values (score-bounded MCTS, Cazenave and
Saffidine 2010, goes further with bounds; not done here).

What the proofs change in the search (each in its named step):

* :class:`SolverRule`: a proven win for the chooser scores ``+inf``, a proven
  loss ``-inf`` (never selected while another child is open), else UCB1;
* :meth:`Solver.select` stops at a proven node, :meth:`Solver.expand` leaves it as is
  and :meth:`Solver.simulate` returns its proven result instead of a random playout,
  so the exact value is what gets backed up;
* :meth:`Solver.backpropagate` adds the usual statistics, then proves the ancestors it can;
* :meth:`Solver.best_child` plays a proven win at once, and never a proven loss if
  any other move remains; :meth:`Solver.analyse` reports the root's proven value.

Point of view as in :class:`~mctslab.agents.uct.Node`: ``proven`` is the value (1 win,
0.5 draw, 0 loss) **for** ``node.player``, the player who made the move into the node.

``engine="compiled"`` runs the same algorithm on :mod:`mctslab.engine` (the kernel
:func:`~mctslab.engine.kernels.solver_uct`, the tree :class:`~mctslab.engine.solver.SolverTree`):
the same player with other random numbers, many times faster; the root is then a read-only
:class:`CompiledSolverNode` view of the arrays, with ``proven`` as here.
"""

from __future__ import annotations

from dataclasses import replace
from math import inf
from typing import Any

from ..engine import check_engine, check_supported
from ..games.base import Game, State
from ..ucb import ucb1
from .base import Analysis, Param, legal_or_raise
from .checks import overridden
from .compiled import CompiledNode, searched
from .protocols import TreeKeeper
from .registry import register_agent
from .rules import SelectionRule, best_child_by
from .uct import UCT, VARIANT_PARAMS, Node

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class SolverNode(Node):
    """A UCT node with a proven value.

    Attributes:
        proven: ``None`` while unknown, else the game-theoretic value of this position for
            ``player`` (the player who made ``move``): 1.0 win, 0.5 draw, 0.0 loss.
    """

    __slots__ = ("proven",)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.proven: float | None = None

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + f", proven={self.proven})"


def prove(node: SolverNode) -> bool:
    """Try to prove ``node`` from its children (minimax over proven values); True if it is proven.

    A node never expanded (``untried is None``) is left alone: terminal nodes are proven
    when they are created (:meth:`Solver.expand`).
    """
    if node.proven is not None:
        return True
    if node.untried is None or not node.children:
        return False
    mover = node.children[0].player  # every child was made by the player to move here
    best, complete = None, not node.untried
    for child in node.children:
        if child.proven is None:
            complete = False
        elif child.proven == WIN:  # one winning move proves the node
            best, complete = WIN, True
            break
        elif best is None or child.proven > best:
            best = child.proven
    if not complete:
        return False
    node.proven = best if mover == node.player else 1.0 - best
    return True


class SolverRule(SelectionRule):
    """UCB1, except ``+inf`` for a proven win and ``-inf`` for a proven loss of the chooser."""

    name = "UCB1 (proven: +-inf)"

    def value(self, parent: Node, child: SolverNode) -> float:
        """``+inf`` for a child proven won for the chooser, ``-inf`` proven lost, else UCB1."""
        if child.proven == WIN:
            return inf
        if child.proven == LOSS:
            return -inf
        return ucb1(child.mean, parent.visits, child.visits, self.c)


@register_agent
class Solver(UCT):
    """MCTS-Solver (Winands et al. 2008): UCT that backs up proven wins, losses and draws.

    Parameters: :class:`~mctslab.agents.uct.UCT`'s but ``threads`` and ``parallel`` (one
    search, one thread); ``engine="compiled"`` runs :mod:`mctslab.engine.solver` (random
    playouts, games with a kernel, :meth:`check_compiled`). The tree's nodes are
    :class:`SolverNode`; :meth:`analyse` returns ``Analysis.value``: the root's proven
    value for the player to move (1 win, 0.5 draw, 0 loss), or ``None`` when the search
    has not proven it. The :class:`~mctslab.viz.SearchRecorder` and the tree explorer
    record it like UCT (a proven node's "playout" is its exact result, so the recorded
    playout of a non-terminal proven node is marked not exact).

    Example:

    >>> from mctslab import make_game
    >>> game = make_game("tictactoe")
    >>> a = Solver(iterations=300, seed=0).analyse(game, game.state_from_moves([0, 3, 1, 4]))
    >>> a.move, a.value  # X wins at once with 2, and knows it
    (2, 1.0)
    """

    name = "solver"
    params = (
        *(p for p in VARIANT_PARAMS if p.name != "threads"),  # one thread: threads=K is refused
        Param("engine", str, "python", check_engine, "python, or compiled (Numba: pip install mctslab[fast])"),
    )
    node_class = SolverNode
    rule_class = SolverRule

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("threads", 1) != 1:  # UCT would search K trees in K processes, whose proofs do not add up
            raise ValueError(f"threads={kwargs['threads']}: MCTS-Solver searches one tree in one thread; use threads=1")
        super().__init__(*args, **kwargs)

    def select(self, node: SolverNode) -> tuple[Node, int]:
        """Step 1: as UCT, but stop at a proven node (its value is known, nothing to learn below)."""
        rule, depth = self.rule, 0
        while node.proven is None and not node.untried and node.children:
            node = best_child_by(rule, node)
            depth += 1
        return node, depth

    def expand(self, game: Game, node: SolverNode) -> Node:
        """Step 2: as UCT on an unproven node; a new terminal child is proven with its result."""
        if node.proven is not None:
            return node
        child = super().expand(game, node)
        if child is not node and game.is_terminal(child.state):
            child.proven = game.returns(child.state)[child.player]
        return child

    def simulate(self, game: Game, node: SolverNode) -> tuple[float, float]:
        """Step 3: the proven result of a proven node (no randomness used), else a random playout."""
        if node.proven is not None:
            value = node.proven
            return (value, 1.0 - value) if node.player == 0 else (1.0 - value, value)
        return super().simulate(game, node)

    def backpropagate(self, node: SolverNode, returns: tuple[float, float]) -> None:
        """Step 4: UCT's statistics on the path, then prove every ancestor that can be proven."""
        super().backpropagate(node, returns)
        walk = node.parent
        while walk is not None and prove(walk):
            walk = walk.parent

    def best_child(self, root: SolverNode) -> Node:
        """A proven win at once; else as UCT among the moves not proven lost (all lost: as UCT)."""
        for child in root.children:
            if child.proven == WIN:
                return child
        if not root.untried and all(ch.proven is not None for ch in root.children):
            return max(root.children, key=lambda ch: (ch.proven, ch.visits, ch.mean))
        open_ = [ch for ch in root.children if ch.proven != LOSS]
        if not open_:
            return super().best_child(root)
        if self.final == "visits":
            return max(open_, key=lambda ch: (ch.visits, ch.mean))
        return max(open_, key=lambda ch: (ch.mean, ch.visits))

    def analyse(self, game: Game, state: State) -> Analysis:
        """UCT's analysis, with ``value``: the root's proven value for the player to move, or ``None``."""
        a = super().analyse(game, state)
        return a if self.engine == "compiled" else replace(a, value=root_value(a.root))

    @staticmethod
    def compiled_analysis(agent: Solver, game: Game, state: State, engine: TreeKeeper) -> Analysis:
        """``engine="compiled"``: the search in the compiled solver's arrays, the rest Solver's own."""
        return _analyse_compiled(agent, game, state, engine)

    COMPILED_PARTS = (*UCT.COMPILED_PARTS, "best_child", "move_stats")
    """The parts the compiled solver runs as :class:`Solver`'s own (the kernel's, or read on the arrays)."""

    def check_compiled(self) -> None:
        """Raise a one-line ValueError if this agent asks the compiled engine for what it cannot run.

        The compiled solver runs :class:`Solver` exactly: no part in :attr:`COMPILED_PARTS`
        may differ from Solver's, playouts are random, one thread searches.
        """
        changed = overridden(type(self), Solver, self.COMPILED_PARTS)
        if changed:
            raise ValueError(
                f"{type(self).__name__} overrides {', '.join(changed)}: the compiled engine runs MCTS-Solver as"
                " Solver does only; use engine=python"
            )
        if self.playout != "random":
            raise ValueError(
                f"playout={self.playout}: the compiled engine plays random playouts only; use engine=python"
            )
        if self.threads != 1:
            raise ValueError(
                f"threads={self.threads}: the compiled solver searches one tree in one thread; use threads=1"
            )
        self._check_compiled_instance()


class CompiledSolverNode(CompiledNode):
    """A read-only view of a slot of a :class:`~mctslab.engine.solver.SolverTree`: a CompiledNode with ``proven``."""

    __slots__ = ()

    @property
    def proven(self) -> float | None:
        """As :attr:`SolverNode.proven`: ``None`` while unknown, else 1.0, 0.5 or 0.0 for ``player``."""
        return self.tree.value(self.slot)

    def __repr__(self) -> str:
        return super().__repr__().replace("CompiledNode(", "CompiledSolverNode(")[:-1] + f", proven={self.proven})"


def _analyse_compiled(agent: Solver, game: Game, state: State, engine: TreeKeeper) -> Analysis:
    """:meth:`Solver.analyse` on the compiled engine: the search in the arrays, the rest Solver's own.

    The seed of the search is drawn from the agent's generator (32 bits per search, as
    :func:`mctslab.agents.compiled.analyse`); the final move is :meth:`Solver.best_child`
    and the statistics :meth:`Solver.move_stats`, read on the :class:`CompiledSolverNode` root.

    Raises:
        ValueError: (one line, before anything is compiled) for what :meth:`Solver.check_compiled`
            refuses, a game with chance, or a game that declares no kernel.
    """
    from ..engine.solver import SolverTree
    from ..engine.uct import search_budget

    agent.check_compiled()
    if game.has_chance:
        raise ValueError(f"engine=compiled cannot play {game.spec}: it has chance nodes; use engine=python")
    check_supported(game)
    legal_or_raise(game, state)
    result = searched(agent, game, state, search_budget, engine, tree_class=SolverTree)
    root = CompiledSolverNode.root_of(result.tree, game, state)
    best = agent.best_child(root)
    return Analysis(
        best.move,
        agent.move_stats(root),
        iterations=result.done,
        max_depth=result.tree.max_depth,
        root=root,
        rule=agent.rule.name,
        value=root_value(root),
    )


def root_value(root: SolverNode) -> float | None:
    """The proven value of ``root`` for the player to move there (1, 0.5, 0), or ``None``."""
    return None if root.proven is None else 1.0 - root.proven


def iterations_to_prove(agent: Solver, game: Game, state: State, limit: int) -> int | None:
    """Iterations ``agent`` needs from a fresh root until ``state`` is proven (``None``: not within ``limit``)."""
    root = agent.new_root(game, state)
    for i in range(1, limit + 1):
        agent.iterate(game, root)
        if root.proven is not None:
            return i
    return None
