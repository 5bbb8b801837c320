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
"""

from __future__ import annotations

from math import sqrt

from .. import validation
from ..games.base import Game
from ..seeding import Seed
from ..ucb import SQRT2, ucb1
from .base import Param
from .playouts import policy_rollout
from .registry import register_agent
from .rules import SelectionRule
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
        **kwargs: UCT's parameters (:class:`~mctslab.agents.uct.UCT`).

    Moves are matched by ``(player, move)``; this assumes, as every game of mctslab does,
    that the players alternate (the players of the playout's moves are inferred so).
    """

    name = "rave"
    params = (*VARIANT_PARAMS, Param("k", float, 250.0, check_k, "RAVE equivalence parameter (beta = 1/2 at n = k)"))
    node_class = RaveNode
    rule_class = RaveRule

    def __init__(
        self, iterations: int | None = None, c: float = SQRT2, *, k: float = 250.0, seed: Seed = None, **kwargs
    ) -> None:
        super().__init__(iterations, c, seed=seed, **kwargs)
        self.set_params(k=k)
        self._playout: tuple[int, ...] = ()
        self._playout_first = 0

    @property
    def rule(self) -> RaveRule:
        """The selection rule, :class:`RaveRule` with this agent's ``c`` and ``k``."""
        return RaveRule(self.c, self.k)

    def simulate(self, game: Game, node: Node) -> tuple[float, float]:
        """Step 3: the playout, keeping its moves for AMAF (the same random draws as UCT's)."""
        played = policy_rollout(game, node.state, self.rng, self.max_moves, self.playout)
        self._playout = played.moves
        self._playout_first = game.to_move(node.state)
        return played.returns

    def backpropagate(self, node: Node, returns: tuple[float, float]) -> None:
        """Step 4: UCT's statistics, then the AMAF statistics of every child of every node on the path."""
        super().backpropagate(node, returns)
        first = self._playout_first
        played = amaf_pairs(first, self._playout)
        self._playout = ()
        while node is not None:
            for child in node.children:
                if (child.player, child.move) in played:
                    child.add_amaf(returns[child.player])
            if node.move is not None:
                played.add((node.player, node.move))
            node = node.parent


def amaf_pairs(first: int, moves: tuple[int, ...]) -> set[tuple[int, int]]:
    """The ``(player, move)`` pairs of a sequence of moves that starts with ``first`` to move (players alternate)."""
    return {(first if i % 2 == 0 else 1 - first, m) for i, m in enumerate(moves)}
