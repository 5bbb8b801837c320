"""RAVE: UCT with all-moves-as-first (AMAF) statistics (Gelly and Silver 2007).

A playout that plays move ``m`` anywhere after a node says something about playing
``m`` *at* that node: in games where moves transpose across orders (a stone on a cell
is the same stone whenever it is played), the result of the whole game is weak but
plentiful evidence about each of its moves. AMAF keeps, for every child of every node
on the path, the playouts through the parent in which the child's move was later
played by the same player; RAVE mixes that mean with the child's own:

    value = (1 - beta) * mean + beta * amaf_mean + c * sqrt(ln N / n),
    beta = sqrt(k / (3 n + k)),

the "hand-selected" schedule of Gelly and Silver (2007), with their equivalence
parameter ``k``: after ``n = k`` visits, ``beta = sqrt(1/4) = 1/2``. With few visits the AMAF mean dominates; as ``n``
grows beta falls to 0 and plain UCT remains. Gelly and Silver searched with ``c = 0``;
here ``c`` defaults to UCT's so that the two differ in one thing only.

Point of view as in :class:`~mctslab.agents.uct.Node`: ``amaf_wins`` counts rewards for
``player``, the player who made ``move``.

``engine="compiled"`` runs the same algorithm on the compiled engine
(:mod:`mctslab.engine.rave`): other random numbers, the same player
(``tests/test_rave_compiled.py``), many times faster; the root is then a read-only view of
the arrays, :class:`CompiledRaveNode`.
"""

from __future__ import annotations

from math import sqrt
from typing import Any, NamedTuple

from .. import validation
from ..engine import check_engine, check_supported
from ..games.base import Game, State
from ..seeding import Seed
from ..ucb import SQRT2, ucb1
from .base import Analysis, MoveStat, Param, legal_or_raise
from .checks import overridden
from .compiled import CompiledNode, final_choice, searched
from .playouts import policy_rollout
from .protocols import TreeKeeper
from .registry import register_agent
from .rules import SelectionRule, pair_node_with_rule
from .uct import UCT, VARIANT_PARAMS, Node


def check_k(name: str, k: float) -> float:
    """The equivalence parameter as a finite float > 0 (TypeError for a non-number, ValueError otherwise)."""
    return validation.positive_number(name, k, finite=True)


class RaveNode(Node):
    """A UCT node with AMAF statistics for its move.

    Attributes:
        amaf_visits: playouts through the parent, since this node was added, in which
            ``player`` played ``move`` at some point after the parent's position (in the
            tree or in the playout).
        amaf_wins: total reward of those playouts for ``player``.
    """

    __slots__ = ("amaf_visits", "amaf_wins")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.amaf_visits = 0
        self.amaf_wins = 0.0

    @property
    def amaf_mean(self) -> float:
        """``amaf_wins / amaf_visits`` (0.5 before any)."""
        return self.amaf_wins / self.amaf_visits if self.amaf_visits else 0.5

    def add_amaf(self, reward: float) -> None:
        """Count one playout through the parent in which ``player`` later played ``move``, with ``reward``."""
        self.amaf_visits += 1
        self.amaf_wins += reward


def beta(k: float, visits: int) -> float:
    """Gelly and Silver's schedule ``sqrt(k / (3 n + k))``: the weight of the AMAF mean after ``n`` visits."""
    return sqrt(k / (3 * visits + k))


class RaveRule(SelectionRule):
    """RAVE's rule: ``(1 - beta) * mean + beta * amaf_mean`` plus UCB1's exploration term (``inf`` unvisited).

    Args:
        c: the exploration constant, >= 0.
        k: the equivalence parameter, > 0 (:func:`beta`).
    """

    name = "RAVE"

    def __init__(self, c: float = SQRT2, k: float = 250.0) -> None:
        super().__init__(c)
        self.k = k

    def value(self, parent: Node, child: RaveNode) -> float:
        """``(1 - beta) * mean + beta * amaf_mean`` plus UCB1's exploration term (``inf`` unvisited)."""
        b = beta(self.k, child.visits)
        return ucb1((1 - b) * child.mean + b * child.amaf_mean, parent.visits, child.visits, self.c)

    def __repr__(self) -> str:
        return f"RaveRule(c={self.c:g}, k={self.k:g})"


@register_agent
class Rave(UCT):
    """UCT with RAVE (Gelly and Silver 2007): AMAF means mixed in by the schedule ``beta = sqrt(k / (3n + k))``.

    Args:
        k: the equivalence parameter, > 0 (default 250): beta is 1/2 after ``k`` visits.
        engine: ``"python"`` (this module) or ``"compiled"``: the same algorithm on
            :mod:`mctslab.engine.rave` (Numba), on the games with a kernel, random playouts
            and one thread only; :meth:`search` then returns a :class:`CompiledRaveNode`.
        **kwargs: UCT's parameters (:class:`~mctslab.agents.uct.UCT`).

    Moves are matched by ``(player, move)``; this assumes, as every game of mctslab does,
    that the players alternate (the players of the playout's moves are inferred so).
    """

    name = "rave"
    params = (
        *(p for p in VARIANT_PARAMS if p.name != "threads"),  # one thread: threads=K is refused
        Param("k", float, 250.0, check_k, "RAVE equivalence parameter (beta = 1/2 at n = k)"),
        Param("engine", str, "python", check_engine, "python, or compiled (Numba: pip install mctslab[fast])"),
    )
    node_class = RaveNode
    rule_class = RaveRule

    def __init__(
        self, iterations: int | None = None, c: float = SQRT2, *, k: float = 250.0, seed: Seed = None, **kwargs
    ) -> None:
        if kwargs.get("threads", 1) != 1:  # UCT's own check would suggest engine=compiled
            raise ValueError(f"threads={kwargs['threads']}: RAVE searches in one thread; use threads=1")
        super().__init__(iterations, c, seed=seed, **kwargs)
        self.set_params(k=k)

    @property
    def rule(self) -> RaveRule:
        """The selection rule, :class:`RaveRule` with this agent's ``c`` and ``k``."""
        return RaveRule(self.c, self.k)

    def simulate(self, game: Game, node: Node) -> PlayoutReturns:
        """Step 3: the playout (the same random draws as UCT's); its returns carry its moves for AMAF (step 4)."""
        played = policy_rollout(game, node.state, self.rng, self.max_moves, self.playout)
        return PlayoutReturns(played.returns, played.moves, game.to_move(node.state))

    def backpropagate(self, node: Node, returns: tuple[float, float]) -> None:
        """Step 4: UCT's statistics, then the AMAF statistics of every child of every node on the path.

        The playout's moves come with ``returns`` (:class:`PlayoutReturns`, what :meth:`simulate`
        returns); plain returns carry none (the moves of the tree above ``node`` still count).
        """
        super().backpropagate(node, returns)
        played = amaf_pairs(returns.first, returns.moves) if isinstance(returns, PlayoutReturns) else set()
        while node is not None:
            for child in node.children:
                if (child.player, child.move) in played:
                    child.add_amaf(returns[child.player])
            if node.move is not None:
                played.add((node.player, node.move))
            node = node.parent

    def check_compiled(self) -> None:
        """Raise a one-line ValueError if this agent asks the compiled engine for what it cannot run.

        The compiled RAVE kernel runs :class:`Rave` itself with random playouts in one
        thread: no part named in :attr:`COMPILED_PARTS` may differ from Rave's.
        """
        changed = overridden(type(self), Rave, self.COMPILED_PARTS)
        if changed:
            raise ValueError(
                f"{type(self).__name__} overrides {', '.join(changed)}: the compiled engine runs plain RAVE only;"
                " use engine=python"
            )
        if self.playout != "random":
            raise ValueError(
                f"playout={self.playout}: the compiled engine plays random playouts only; use engine=python"
            )
        if self.threads > 1:
            raise ValueError(f"threads={self.threads}: RAVE searches in one thread; use threads=1")
        self._check_compiled_instance()

    @staticmethod
    def compiled_analysis(agent: Rave, game: Game, state: State, engine: TreeKeeper) -> Analysis:
        """``engine="compiled"``: :func:`analyse_compiled` (the compiled engine's kernels for RAVE)."""
        return analyse_compiled(agent, game, state, engine)


class PlayoutReturns(tuple):
    """A playout's per-player returns (a tuple equal to UCT's) that also carries the playout, for AMAF.

    :meth:`Rave.simulate` returns one and :meth:`Rave.backpropagate` reads it: the playout goes
    from step 3 to step 4 as a value.

    Attributes:
        moves: the playout's moves, in order.
        first: the player to move at its first move.
    """

    moves: tuple[int, ...]
    first: int

    def __new__(cls, returns: tuple[float, float], moves: tuple[int, ...], first: int) -> PlayoutReturns:
        made = super().__new__(cls, returns)
        made.moves, made.first = tuple(moves), first
        return made


def amaf_pairs(first: int, moves: tuple[int, ...]) -> set[tuple[int, int]]:
    """The ``(player, move)`` pairs of a sequence of moves that starts with ``first`` to move (players alternate)."""
    return {(first if i % 2 == 0 else 1 - first, m) for i, m in enumerate(moves)}


class CompiledRaveNode(CompiledNode):
    """A read-only view of one slot of a :class:`~mctslab.engine.rave.RaveTree`: :class:`RaveNode`'s attributes.

    ``amaf_visits``, ``amaf_wins`` and ``amaf_mean`` are read from the arrays when asked,
    as :class:`~mctslab.agents.compiled.CompiledNode` reads the rest.
    """

    __slots__ = ()

    @property
    def amaf_visits(self) -> int:
        """Playouts through the parent in which ``player`` later played ``move``."""
        return int(self.tree.amv[self.slot])

    @property
    def amaf_wins(self) -> float:
        """Total reward of those playouts for ``player`` (the arrays count half points)."""
        return int(self.tree.amw2[self.slot]) / 2

    @property
    def amaf_mean(self) -> float:
        """``amaf_wins / amaf_visits`` (0.5 before any)."""
        return _amaf_mean(self.tree, self.slot)

    def add_amaf(self, reward: float) -> None:
        """Not possible: the compiled engine updates its own arrays.

        Raises:
            TypeError: always.
        """
        raise TypeError("a CompiledRaveNode is a read-only view of the compiled engine's arrays")

    def __repr__(self) -> str:
        return (
            f"CompiledRaveNode(move={self.move}, player={self.player}, wins={self.wins:g}, visits={self.visits},"
            f" amaf_wins={self.amaf_wins:g}, amaf_visits={self.amaf_visits})"
        )


def _amaf_mean(tree: Any, slot: int) -> float:
    """A slot's AMAF mean from the arrays' counts (0.5 before any), as :attr:`RaveNode.amaf_mean` computes it."""
    visits = int(tree.amv[slot])
    return int(tree.amw2[slot]) / 2 / visits if visits else 0.5


pair_node_with_rule(CompiledRaveNode, RaveRule)  # a compiled RAVE tree drawn alone is labelled RAVE, as a Python one


class _Counts(NamedTuple):
    """A child's counts as :class:`RaveRule` reads them, for the root's statistics (no position is made)."""

    visits: int
    mean: float
    amaf_mean: float


def analyse_compiled(agent: Rave, game: Game, state: State, engine: TreeKeeper) -> Analysis:
    """:meth:`Rave.analyse` on the compiled engine (:func:`mctslab.engine.rave.search_rave`).

    As :func:`mctslab.agents.compiled.analyse`: the search's seed is 32 bits of the agent's
    generator, the move the most visited child (ties: higher mean; ``final="mean"``: the
    best mean), the statistics in move order with :class:`RaveRule`'s exploration term,
    and ``Analysis.root`` a :class:`CompiledRaveNode`.

    Raises:
        ValueError: (one line, before anything is compiled) for what the compiled engine
            cannot run (:meth:`Rave.check_compiled`) or a game without a kernel.
    """
    from ..engine.rave import search_rave

    agent.check_compiled()
    check_supported(game)
    legal_or_raise(game, state)
    result = searched(agent, game, state, search_rave, engine, k=agent.k)
    tree = result.tree
    children = [
        (int(tree.move[s]), int(tree.visits[s]), float(tree.mean[s]), _amaf_mean(tree, s)) for s in tree.children()
    ]
    best = final_choice(agent, children)
    root = CompiledRaveNode.root_of(tree, game, state)
    rule = agent.rule
    parent = _Counts(root.visits, root.mean, root.amaf_mean)
    stats = tuple(
        MoveStat(m, v, mean, exploration=rule.exploration(parent, _Counts(v, mean, amean)))
        for m, v, mean, amean in sorted(children)
    )
    return Analysis(best[0], stats, iterations=result.done, max_depth=tree.max_depth, root=root, rule=rule.name)
