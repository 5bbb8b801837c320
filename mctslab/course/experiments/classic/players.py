"""The four root-move choosers of Kocsis & Szepesvári 2006's comparison, at a budget of N.

* ``uct``: the registered ``uct`` agent, ``iterations=N`` (c = sqrt(2) on returns in [0, 1]);
* ``mc``: plain Monte Carlo, the registered ``flat`` agent: N random playouts shared
  equally among the root moves (at least one each);
* ``mmmc``: Monte Carlo with minimax backup: a tree grown one node per iteration like
  UCT's, but the path down the tree is chosen uniformly at random and a node's value is
  the minimax of its children's values (a node without children: the mean of its
  playouts); not a registered agent, since it is a baseline of this experiment only;
* ``alphabeta``: alpha-beta over the whole tree, allowed N positions; unfinished, it
  plays a uniformly random root move.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ....agents import make_agent
from ....exact.alphabeta import BudgetExhausted, best_move
from ....games.base import Game, State

ALGORITHMS = ("uct", "mc", "mmmc", "alphabeta")
"""The algorithms compared, in the order the paper lists them."""

LABELS = {
    "uct": "UCT",
    "mc": "plain Monte Carlo",
    "mmmc": "Monte Carlo, minimax backup",
    "alphabeta": "alpha-beta",
}


class _Node:
    """A node of :func:`mmmc_move`'s tree: its state, children, untried moves and playout tally (player 0's returns)."""

    __slots__ = ("children", "state", "total", "untried", "visits")

    def __init__(self, game: Game, state: State) -> None:
        self.state = state
        self.children: dict[int, _Node] = {}
        self.untried = list(game.legal_moves(state))
        self.visits = 0
        self.total = 0.0


def _minimax_value(game: Game, node: _Node) -> float:
    """Player 0's value of ``node``: the minimax of its children's values, or its playouts' mean without children."""
    if not node.children:
        return node.total / node.visits
    values = [_minimax_value(game, child) for child in node.children.values()]
    return max(values) if game.to_move(node.state) == 0 else min(values)


def mmmc_move(game: Game, state: State, iterations: int, rng: random.Random) -> int:
    """Monte Carlo with minimax backup: the root move with the best minimax value after ``iterations`` playouts.

    Each iteration walks down from the root choosing children uniformly at random, adds
    one untried child where it finds one (as UCT does), plays a random game from there
    and adds its result to every node on the path. Ties between root moves are broken
    at random.
    """
    root = _Node(game, state)
    for _ in range(iterations):
        node, path = root, [root]
        while not node.untried and node.children:
            node = node.children[rng.choice(tuple(node.children))]
            path.append(node)
        if node.untried:
            move = node.untried.pop(int(rng.random() * len(node.untried)))
            child = _Node(game, game.apply(node.state, move))
            node.children[move] = child
            path.append(child)
            node = child
        reward = game.rollout(node.state, rng)[0]
        for visited in path:
            visited.visits += 1
            visited.total += reward
    sign = 1 if game.to_move(state) == 0 else -1
    values = {m: sign * _minimax_value(game, child) for m, child in root.children.items()}
    top = max(values.values())
    return rng.choice(sorted(m for m, v in values.items() if v == top))


def alphabeta_move(game: Game, state: State, nodes: int, rng: random.Random) -> int:
    """Alpha-beta's move when it finishes within ``nodes`` positions; a uniformly random move when it does not."""
    try:
        return best_move(game, state, max_nodes=nodes)[0]
    except BudgetExhausted:
        return rng.choice(game.legal_moves(state))


def _uct(game: Game, state: State, budget: int, seed: int) -> int:
    return make_agent(f"uct:iterations={budget}", seed=seed).analyse(game, state).move


def _mc(game: Game, state: State, budget: int, seed: int) -> int:
    playouts = max(1, budget // len(game.legal_moves(state)))
    return make_agent(f"flat:playouts={playouts}", seed=seed).analyse(game, state).move


def _mmmc(game: Game, state: State, budget: int, seed: int) -> int:
    return mmmc_move(game, state, budget, random.Random(seed))


def _alphabeta(game: Game, state: State, budget: int, seed: int) -> int:
    return alphabeta_move(game, state, budget, random.Random(seed))


CHOOSERS: dict[str, Callable[[Game, State, int, int], int]] = {
    "uct": _uct,
    "mc": _mc,
    "mmmc": _mmmc,
    "alphabeta": _alphabeta,
}
"""Algorithm name -> ``choose(game, state, budget, seed)``, the root move it plays."""


def choose(algorithm: str, game: Game, state: State, budget: int, seed: int) -> int:
    """The root move ``algorithm`` (one of :data:`ALGORITHMS`) plays in ``state`` at ``budget``, seeded.

    Raises:
        ValueError: for an unknown algorithm (the message lists the known ones).
    """
    if algorithm not in CHOOSERS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    return CHOOSERS[algorithm](game, state, budget, seed)
