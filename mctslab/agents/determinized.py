"""Determinized UCT, or perfect-information Monte Carlo (PIMC): sample worlds, search each, vote.

For a game with hidden information, draw ``worlds`` determinizations of the position
from the point of view of the player to move (:meth:`~mctslab.games.base.Game.sample_state`:
the hidden cards dealt at random, consistently with what the player knows), run
plain UCT on each as if everything were visible, and play the move with the most
visits summed over the worlds.

Its two known faults (Frank & Basin 1998; Long, Sturtevant, Buro & Furtak 2010):
*strategy fusion*, each world's search assumes it may choose differently in worlds
the player cannot tell apart, and *non-locality*, the opponent is assumed to see the
world too. Notebook 12b shows a Kuhn poker position where it provably errs.

UCT plays the worlds through :class:`WorldView`, the game seen as one of perfect
information: chance outcomes after the deal are drawn when they happen, so each world's
tree fixes them where it first meets them.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

from ..games.base import Game, State
from ..games.kinds import CHANCE, HIDDEN_INFORMATION, TWO_PLAYERS, WITH_CHANCE
from ..seeding import Seed
from ..ucb import SQRT2
from .base import Agent, Analysis, MoveStat, Param, check_positive_int, legal_or_raise
from .checks import check_c
from .registry import register_agent
from .uct import UCT


class WorldView(Game):
    """``game`` with its hidden parts shown: a two-player game of perfect information for UCT.

    Every method delegates to ``game``, except that :meth:`apply` plays a chance node it
    reaches at once with an outcome drawn from ``rng`` (plain UCT has no chance nodes).
    """

    perfect_information = True
    has_chance = False

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.game, self.rng = game, rng
        self.spec = f"world of {game.spec}"

    def _settle(self, state: State) -> State:
        game = self.game
        while game.has_chance and not game.is_terminal(state) and game.to_move(state) == CHANCE:
            state = game.apply(state, game.chance_move(state, self.rng))
        return state

    def initial_state(self) -> State:
        return self._settle(self.game.initial_state())

    def check_state(self, state: State) -> None:
        self.game.check_state(state)

    def to_move(self, state: State) -> int:
        return self.game.to_move(state)

    def legal_moves(self, state: State) -> tuple[int, ...]:
        return self.game.legal_moves(state)

    def apply(self, state: State, move: int) -> State:
        return self._settle(self.game.apply(state, move))

    def is_terminal(self, state: State) -> bool:
        return self.game.is_terminal(state)

    def winner(self, state: State) -> int | None:
        return self.game.winner(state)

    def returns(self, state: State) -> tuple[float, ...]:
        return self.game.returns(state)

    def render(self, state: State) -> str:
        return self.game.render(state)

    def __hash__(self) -> int:
        return hash(self.spec)


@register_agent
class Determinized(Agent):
    """Determinized UCT: UCT on ``worlds`` sampled determinizations, the move with most summed visits.

    Args:
        worlds: determinizations searched per move.
        iterations: UCT iterations in each world.
        c: UCB1's exploration constant.
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
    """

    name = "determinized"
    handles = frozenset({TWO_PLAYERS, WITH_CHANCE, HIDDEN_INFORMATION})
    params = (
        Param("worlds", int, 10, check_positive_int, "determinizations (sampled worlds) per move", "always"),
        Param("iterations", int, 100, check_positive_int, "UCT iterations in each world", "always"),
        Param("c", float, SQRT2, check_c, "exploration constant of UCB1"),
    )

    def __init__(self, worlds: int = 10, iterations: int = 100, c: float = SQRT2, seed: Seed = None) -> None:
        super().__init__(seed)
        self.set_params(worlds=worlds, iterations=iterations, c=c)

    def search(self, game: Game, state: State) -> dict[Hashable, tuple[int, float]]:
        """Search every world; return ``move -> (summed visits, summed returns)`` at the root."""
        legal_or_raise(game, state)
        player = game.to_move(state)
        tally: dict[Hashable, tuple[int, float]] = {m: (0, 0.0) for m in game.legal_moves(state)}
        uct = UCT(iterations=self.iterations, c=self.c, seed=self.rng.getrandbits(64))
        for _ in range(self.worlds):
            world = game.sample_state(state, player, self.rng)
            uct.rng = random.Random(self.rng.getrandbits(64))
            root = uct.search(WorldView(game, random.Random(self.rng.getrandbits(64))), world)
            for child in root.children:
                visits, total = tally[child.move]
                tally[child.move] = (visits + child.visits, total + child.mean * child.visits)
        return tally

    def analyse(self, game: Game, state: State) -> Analysis:
        """Vote: the move with the most visits summed over the worlds (ties: best mean, then lowest move)."""
        tally = self.search(game, state)
        stats = tuple(MoveStat(m, v, t / v if v else 0.5) for m, (v, t) in sorted(tally.items()))
        best = max(stats, key=lambda s: (s.visits, s.mean, -s.move))
        return Analysis(best.move, stats, iterations=self.worlds * self.iterations)
