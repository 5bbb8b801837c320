"""Expectimax: exact play in small games with chance (Michie 1966's expectiminimax).

At a player's position the value is the best of the moves' values for that player; at a
chance node it is the average of the outcomes' values, weighted by their probabilities
(:meth:`~mctslab.games.base.Game.chance_outcomes`). The agent enumerates every position
reachable from the one it is asked about (and refuses, with a clear error, when there are
more than ``max_states``), then:

* if no position can come back (the game graph has no cycle, like most dice games where
  the turn counter only grows), it computes every value by backward induction with
  :class:`fractions.Fraction`: the values are **exact**;
* if positions repeat (in Pig, two players who pig out in turn are back where they
  started), the equations go round in circles, and it solves them by value iteration
  (Gauss-Seidel sweeps from 1/2) until no value moves by more than ``1e-12``: exact to
  that tolerance, as :mod:`mctslab.exact.pig`.

Values are player 0's expected return (two players: player 1 minimises it; one player:
the puzzle's normalised score). Ties between moves go to the lowest move.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

from ..games.base import Game, State
from ..games.kinds import CHANCE, ONE_PLAYER, TWO_PLAYERS, WITH_CHANCE
from ..seeding import Seed
from .base import Agent, Analysis, MoveStat, Param, check_positive_int, legal_or_raise
from .registry import register_agent

MAX_STATES = 100_000
"""Default ``max_states``: Pig to 10 with a die of 6 has about 2,500 positions, tic-tac-toe 5,478."""

TOLERANCE = 1e-12
"""Value iteration (on games whose positions repeat) stops when no value moves by more than this."""

MAX_SWEEPS = 1_000_000


class TooBigError(ValueError):
    """The game has more positions than the agent may enumerate (``max_states``)."""


@register_agent
class Expectimax(Agent):
    """Exact expectimax on the whole game from the position asked (memoised per game).

    Args:
        max_states: positions it may enumerate, >= 1 (default 100,000); beyond, it refuses.
        seed: unused (the agent is deterministic); accepted like every agent's.

    Attributes:
        exact: True if the last values came from backward induction in fractions (no cycle),
            False if from value iteration to :data:`TOLERANCE`.
    """

    name = "expectimax"
    handles = frozenset({ONE_PLAYER, TWO_PLAYERS, WITH_CHANCE})
    params = (Param("max_states", int, MAX_STATES, check_positive_int, "positions it may enumerate before it refuses"),)

    def __init__(self, max_states: int = MAX_STATES, seed: Seed = None) -> None:
        super().__init__(seed)
        self.set_params(max_states=max_states)
        self._values: dict[Game, dict[Hashable, Fraction | float]] = {}
        self.exact = True

    def values(self, game: Game, state: State) -> dict[Hashable, Fraction | float]:
        """Player 0's expected return at every position reachable from ``state`` (kept for the game).

        Raises:
            TooBigError: (a ``ValueError``) if more than ``max_states`` positions are reachable.
        """
        table = self._values.get(game)
        if table is not None and state in table:
            return table
        order, cyclic = self._enumerate(game, state)
        table = self._iterate(game, order) if cyclic else self._induce(game, order)
        self.exact = not cyclic
        self._values[game] = table
        return table

    def _enumerate(self, game: Game, start: State) -> tuple[list[State], bool]:
        """Every position reachable from ``start``, children before parents where possible; whether there is a cycle."""
        order: list[State] = []
        colour: dict[Hashable, int] = {start: 1}  # 1: on the path, 2: done
        stack = [(start, iter(game.legal_moves(start)))]
        cyclic = False
        while stack:
            state, moves = stack[-1]
            for move in moves:
                child = game.apply(state, move)
                seen = colour.get(child)
                if seen is None:
                    if len(colour) >= self.max_states:
                        raise TooBigError(
                            f"expectimax: {game.spec} has more than max_states={self.max_states} positions from here;"
                            " it solves small games only (raise max_states, or play uct)"
                        )
                    colour[child] = 1
                    stack.append((child, iter(game.legal_moves(child))))
                    break
                cyclic = cyclic or seen == 1
            else:
                stack.pop()
                colour[state] = 2
                order.append(state)
        return order, cyclic

    def _backup(self, game: Game, state: State, table: dict) -> Fraction | float:
        """One Bellman update of ``state`` from its children's values in ``table``."""
        if game.is_terminal(state):
            return Fraction(game.returns(state)[0])
        mover = game.to_move(state)
        if mover == CHANCE:
            return sum(Fraction(p) * table[game.apply(state, m)] for m, p in game.chance_outcomes(state))
        children = [table[game.apply(state, m)] for m in game.legal_moves(state)]
        return max(children) if mover == 0 else min(children)

    def _induce(self, game: Game, order: list[State]) -> dict:
        table: dict = {}
        for state in order:  # children first: no cycle
            table[state] = self._backup(game, state, table)
        return table

    def _iterate(self, game: Game, order: list[State]) -> dict:
        table: dict = {s: (float(game.returns(s)[0]) if game.is_terminal(s) else 0.5) for s in order}
        live = [s for s in order if not game.is_terminal(s)]
        for _ in range(MAX_SWEEPS):
            change = 0.0
            for state in live:
                new = float(self._backup(game, state, table))
                change = max(change, abs(new - table[state]))
                table[state] = new
            if change < TOLERANCE:
                return table
        raise RuntimeError(f"expectimax: value iteration did not converge in {MAX_SWEEPS} sweeps")

    def analyse(self, game: Game, state: State) -> Analysis:
        """The best move for the player to move, each move's exact value for them, and the position's value.

        Raises:
            TooBigError: if the game is too big (see :meth:`values`).
        """
        moves = legal_or_raise(game, state)
        table = self.values(game, state)
        me = game.to_move(state)
        flip = game.num_players == 2 and me == 1

        def mine(value: Fraction | float) -> Fraction | float:
            return 1 - value if flip else value

        scores = {m: mine(table[game.apply(state, m)]) for m in moves}
        best = max(moves, key=lambda m: (scores[m], -m))
        stats = tuple(MoveStat(m, 0, float(scores[m])) for m in moves)
        return Analysis(best, stats, value=float(mine(table[state])))
