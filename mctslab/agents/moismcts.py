"""Multiple-observer information set MCTS (MO-ISMCTS; Cowling, Powley & Whitehouse 2012, Section IV-G).

The paper's Algorithm 2: one tree per player, each player's nodes that player's information
sets and its edges the moves *as that player sees them*. Each iteration samples a world (a
determinization of the root from the searching player's view,
:meth:`~mctslab.games.base.Game.sample_state`) and descends all the trees at once: whoever
is to move in the world selects with the statistics of *their own* tree (UCB with
availability counts, as in :mod:`mctslab.agents.ismcts`), and every tree follows the
move as its owner observed it, new branches added where needed. The first action not yet
in the mover's tree is expanded (in every tree), a random playout ends the game, and every
tree's visited nodes are updated with the return of the player who moved into them.

What an owner observes of a step: their own action (``("act", move)``: you know what you
did); of an opponent's action or a chance outcome, only their information state after it
(``("see", information_state)``): in Kuhn poker a bet, not the card dealt to the opponent;
in phantom tic-tac-toe nothing of a mark placed, so all the opponent's unseen moves share
one branch of your tree, where the single-observer tree of the paper (Section IV-E) keeps a
branch per opponent action and so lets the opponent model act on what the searcher sees.

Here, as in :mod:`mctslab.agents.ismcts`, a player's decisions are made on their own
information: ``ismcts`` keys every node by the information state of the player to move
(one table for all players: the paper's remark on Schäfer's Skat search, Section IV-E, an
information set "from the point of view of the player about to play"), which with
perfect-recall information states partitions the decisions as these trees do. The two
agents differ in bookkeeping (trees of paths here, one table of information sets there;
where a node is created), not in whose information a decision uses; notebook 12b compares
them on phantom tic-tac-toe.

The agent never reads what its player cannot know: it touches the given state only through
``sample_state`` for its own player (``tests/test_no_peeking.py``).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from ..games.base import Game, State
from ..games.kinds import CHANCE
from .base import Analysis, MoveStat, legal_or_raise
from .ismcts import ISMCTS
from .registry import register_agent


@dataclass
class ObserverNode:
    """A node of one player's tree: one of that player's information sets, reached by what they saw.

    Attributes:
        mover: the player whose action led here (``CHANCE`` after a chance outcome, ``None`` at the root).
        children: the owner's observation of the next step -> node.
        visits: times an iteration passed here.
        total: the sum of :attr:`mover`'s returns over those iterations.
        available: times the action leading here was legal when its parent was selected from (the owner's moves).
    """

    mover: int | None = None
    children: dict[Hashable, ObserverNode] = field(default_factory=dict)
    visits: int = 0
    total: float = 0.0
    available: int = 0

    def mean(self) -> float:
        """The mean return of :attr:`mover` here (0.5 before any visit)."""
        return self.total / self.visits if self.visits else 0.5

    def child(self, key: Hashable, mover: int) -> ObserverNode:
        """The child for ``key``, added if the owner never saw it here (a new branch)."""
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = ObserverNode(mover)
        return node


@register_agent
class MOISMCTS(ISMCTS):
    """Multiple-observer ISMCTS: one tree per player, each descended by the moves as its owner sees them.

    The parameters, the final move and :meth:`policy` are :class:`~mctslab.agents.ismcts.ISMCTS`'s;
    the trees and their search are its own.

    Args:
        iterations: iterations (sampled worlds) per move.
        c: the exploration constant of the UCB rule.
        final: the move played: ``"visits"`` (most visited) or ``"mean"`` (best mean).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
    """

    name = "moismcts"

    def search(self, game: Game, state: State) -> list[ObserverNode]:
        """Run the iterations from ``state``; returns the trees' roots, one per player (player 0's first)."""
        legal_or_raise(game, state)
        player = game.to_move(state)
        roots = [ObserverNode() for _ in range(game.num_players)]
        for _ in range(self.iterations):
            self._iterate(game, game.sample_state(state, player, self.rng), roots)
        return roots

    def _iterate(self, game: Game, world: State, roots: list[ObserverNode]) -> None:
        nodes = list(roots)
        paths: list[list[ObserverNode]] = [[] for _ in roots]
        expanded = False
        while not expanded and not game.is_terminal(world):
            actor = game.to_move(world)
            if actor == CHANCE:
                move = game.chance_move(world, self.rng)
            else:
                move, expanded = self._select(nodes[actor], game.legal_moves(world))
            after = game.apply(world, move)
            for owner, node in enumerate(nodes):  # every tree follows the step as its owner saw it
                key = ("act", move) if owner == actor else ("see", game.information_state(after, owner))
                nodes[owner] = node.child(key, actor)
                paths[owner].append(nodes[owner])
            if expanded:
                nodes[actor].available += 1  # a new branch: available this once
            world = after
        returns = game.rollout(world, self.rng)
        for path in paths:
            for node in path:
                node.visits += 1
                if node.mover is not None and node.mover != CHANCE:
                    node.total += returns[node.mover]

    def _select(self, node: ObserverNode, legal: tuple[int, ...]) -> tuple[int, bool]:
        """The mover's choice in their own tree: an untried action at random (an expansion), else UCB.

        Returns ``(move, expanded)``. Each legal action already in the tree counts one more
        availability (the paper's subset-armed bandit, Section IV-B).
        """
        untried = [m for m in legal if ("act", m) not in node.children]
        for move in legal:
            child = node.children.get(("act", move))
            if child is not None:
                child.available += 1
        if untried:
            return untried[int(self.rng.random() * len(untried))], True
        bound = self.rule.bound  # UCB1 on the child's availability count

        def score(move: int) -> tuple[float, int]:
            child = node.children[("act", move)]
            return bound(child.mean(), child.available, child.visits), -move

        return max(legal, key=score), False

    def analyse(self, game: Game, state: State) -> Analysis:
        """Search, then play the most visited move (or best mean) of the searching player's tree."""
        roots = self.search(game, state)
        root = roots[game.to_move(state)]
        stats = []
        for move in game.legal_moves(state):
            child = root.children.get(("act", move))
            stats.append(MoveStat(move, child.visits if child else 0, child.mean() if child else 0.5))
        return self._decide(tuple(stats), root)
