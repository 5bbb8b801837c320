"""Information set MCTS (Cowling, Powley & Whitehouse 2012) with one tree, as OpenSpiel's ``ismcts``.

One tree over information sets, not positions: a node is keyed by the player to move
and that player's :meth:`~mctslab.games.base.Game.information_state`, so every position
the player cannot tell apart shares the node and its statistics. Every player's
decisions in the tree therefore rest on what that player knows. The paper's
single-observer ISMCTS (SO-ISMCTS) keys every node by the *searching* player's
information instead, so the opponent's choices there are made on the searcher's view;
its multiple-observer version (:mod:`mctslab.agents.moismcts`, one tree per player)
gives each player their own view as this single tree does, and on phantom tic-tac-toe
the two play alike (notebook 12b). Each iteration
draws one world, a determinization of the root from the searching player's view
(:meth:`~mctslab.games.base.Game.sample_state`), and descends it: chance outcomes
drawn with their probabilities, at a player's node the UCB rule over the moves legal
in this world, one new node added, a random playout, and the returns backed up along
the path (each node adds its own player's return). In games whose positions repeat (Pig)
the descent also stops, for a playout, at an information set already on its path: the
statistics do not change during a descent, so it would otherwise go round the cycle forever.

Availability counts: a move may be legal in some worlds of a node and not in others.
Its UCB term uses the number of visits in which it was *available*,
``mean + c * sqrt(ln(available) / visits)``, not the node's total visits (the paper's
correction; in games whose legal moves depend only on the information state, as the
games here, the two counts agree). OpenSpiel's ``is_mcts.cc`` keys its nodes the same
way and resamples a world each simulation, but uses the node's total visits.

The agent never reads what its player cannot know: it touches the given state only
through ``sample_state`` for its own player, so two states with the same information
state give the same seeded search (``tests/test_no_peeking.py``).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from ..games.base import Game, State
from ..games.kinds import CHANCE, TRAITS
from ..seeding import Seed
from ..ucb import SQRT2
from .base import Agent, Analysis, MoveStat, Param, check_optional_positive_int, legal_or_raise
from .checks import check_c, check_final
from .registry import register_agent
from .rules import UCB1, Ruled


@dataclass
class InfoNode:
    """The statistics of one information set: per move, visits, summed returns and availability.

    Attributes:
        player: the player to move at this information set.
        visits: move -> times the move was chosen here.
        totals: move -> sum of the returns (for :attr:`player`) after choosing it.
        available: move -> times the move was legal when this node was visited.
    """

    player: int
    visits: dict[int, int] = field(default_factory=dict)
    totals: dict[int, float] = field(default_factory=dict)
    available: dict[int, int] = field(default_factory=dict)

    def mean(self, move: int) -> float:
        """The mean return of ``move`` for :attr:`player` (0.5 before any visit)."""
        n = self.visits.get(move, 0)
        return self.totals[move] / n if n else 0.5


@register_agent
class ISMCTS(Ruled, Agent):
    """ISMCTS: one tree keyed by each mover's information sets, a world sampled per iteration.

    Args:
        iterations: iterations (worlds) per move.
        c: the exploration constant of the UCB rule (the agent's :attr:`rule`, UCB1 on availability counts).
        final: the move played: ``"visits"`` (most visited) or ``"mean"`` (best mean).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
    """

    name = "ismcts"
    handles = TRAITS  # information states are positions in a perfect-information game
    params = (
        Param("iterations", int, 1000, check_optional_positive_int, "iterations (sampled worlds) per move", "always"),
        Param("c", float, SQRT2, check_c, "exploration constant of the UCB rule"),
        Param("final", str, "visits", check_final, "the move played: most visits, or best mean"),
    )

    rule_class = UCB1
    """The selection rule (:class:`~mctslab.agents.rules.Ruled`): ``rule.bound(mean, available, n)`` is maximised."""

    def __init__(self, iterations: int = 1000, c: float = SQRT2, final: str = "visits", seed: Seed = None) -> None:
        super().__init__(seed)
        self.set_params(iterations=iterations, c=c, final=final)

    def search(self, game: Game, state: State) -> dict[tuple[int, Hashable], InfoNode]:
        """Run the iterations from ``state`` and return the tree: ``(player, information state) -> node``."""
        legal_or_raise(game, state)
        player = game.to_move(state)
        tree: dict[tuple[int, Hashable], InfoNode] = {}
        for _ in range(self.iterations):
            self._iterate(game, game.sample_state(state, player, self.rng), tree)
        return tree

    def _iterate(self, game: Game, world: State, tree: dict[tuple[int, Hashable], InfoNode]) -> None:
        path: list[tuple[InfoNode, int]] = []
        on_path: set[tuple[int, Hashable]] = set()
        while not game.is_terminal(world):
            player = game.to_move(world)
            if player == CHANCE:
                world = game.apply(world, game.chance_move(world, self.rng))
                continue
            key = (player, game.information_state(world, player))
            if key in on_path:  # an information set met again (positions repeat, as in Pig): a playout from here
                break
            node = tree.get(key)
            if node is None:
                tree[key] = InfoNode(player)
                break  # the new node is evaluated by a playout from here
            on_path.add(key)
            move = self._choose(node, game.legal_moves(world))
            path.append((node, move))
            world = game.apply(world, move)
        returns = game.rollout(world, self.rng)
        for node, move in path:
            node.visits[move] = node.visits.get(move, 0) + 1
            node.totals[move] = node.totals.get(move, 0.0) + returns[node.player]

    def _choose(self, node: InfoNode, legal: tuple[int, ...]) -> int:
        """An untried legal move at random, else the UCB rule with availability counts."""
        for move in legal:
            node.available[move] = node.available.get(move, 0) + 1
        untried = [m for m in legal if m not in node.visits]
        if untried:
            return untried[int(self.rng.random() * len(untried))]
        bound = self.rule.bound
        return max(legal, key=lambda m: (bound(node.mean(m), node.available[m], node.visits[m]), -m))

    def analyse(self, game: Game, state: State) -> Analysis:
        """Search, then play the root's most visited move (or best mean); stats per legal move."""
        tree = self.search(game, state)
        player = game.to_move(state)
        root = tree[(player, game.information_state(state, player))]
        legal = game.legal_moves(state)
        return self._decide(tuple(MoveStat(m, root.visits.get(m, 0), root.mean(m)) for m in legal), root)

    def _decide(self, stats: tuple[MoveStat, ...], root: object) -> Analysis:
        """The move of :attr:`final` among ``stats`` (ties: more visits or a better mean, then the lower move)."""
        if self.final == "visits":
            best = max(stats, key=lambda s: (s.visits, s.mean, -s.move))
        else:
            best = max(stats, key=lambda s: (s.mean, s.visits, -s.move))
        return Analysis(best.move, stats, iterations=self.iterations, root=root)

    def policy(self, game: Game, state: State) -> dict[int, float]:
        """The root's visits normalised to move probabilities (OpenSpiel's ``NORMALIZED_VISIT_COUNT``)."""
        stats = self.analyse(game, state).stats
        total = sum(s.visits for s in stats)
        return {s.move: s.visits / total for s in stats}
