"""Exact minimax: negamax with alpha-beta pruning and a transposition table.

Perfect play on small games (3 x 3 tic-tac-toe, Nim), the oracle the tests compare
the Monte Carlo agents with; depth-limited with the game's heuristic
:meth:`~mctslab.games.base.Game.evaluate` on larger ones: given a ``depth``, or,
without one, when solving the game would take more than ``max_nodes`` positions.

Values are integers from the point of view of the player to move: ``WIN - d`` for a
win ``d`` plies away (so quicker wins are preferred and slower losses fought for),
``-(WIN - d)`` for a loss, 0 for a draw, and the heuristic scaled into
``(-EVAL_SCALE, EVAL_SCALE)`` at the depth limit.
"""

from __future__ import annotations

import math

from ..games.base import Game, State
from ..seeding import Seed
from .base import Agent, Analysis, Param, check_optional_positive_int, check_positive_int, legal_or_raise
from .registry import register_agent

WIN = 1_000_000
MATE = WIN // 2  # values beyond +-MATE are forced wins or losses
EVAL_SCALE = 1000
INF = math.inf
EXACT, LOWER, UPPER = 0, 1, 2
UNLIMITED = 1 << 30
MAX_NODES = 20_000
"""Default ``max_nodes``: 3 x 3 tic-tac-toe (11,201 positions from the empty board) and
Nim 3-4-5 (1,336) are solved; Connect Four and Ultimate Tic-Tac-Toe are not."""


class _OutOfNodes(Exception):
    """The search has visited ``max_nodes`` positions (internal: caught by :meth:`Minimax.analyse`)."""


def _from_child(value: float) -> float:
    """A child's value seen from the parent: negated, and one ply further from a forced result."""
    value = -value
    if value > MATE:
        return value - 1
    if value < -MATE:
        return value + 1
    return value


@register_agent
class Minimax(Agent):
    """Negamax with alpha-beta pruning and a transposition table.

    With ``depth=None`` it searches to the end of the game: perfect play, for 3 x 3
    tic-tac-toe and Nim. Where that takes more than ``max_nodes`` positions (Connect
    Four, Ultimate Tic-Tac-Toe: solving them this way would never end), it plays the
    move of the deepest full-width search, 1, 2, 3... plies with the game's heuristic,
    that fits in another ``max_nodes`` positions. So a move costs at most about
    ``2 * max_nodes`` positions. Give a ``depth`` for a fixed depth (no budget). Among
    equally good moves it picks one at random, so two games between the same agents
    differ; quicker wins are preferred.

    Args:
        depth: plies to search, >= 1, or ``None`` for the whole game (within ``max_nodes``).
        max_nodes: positions a move may cost when ``depth`` is ``None`` (default 20,000).
        seed: randomness for breaking ties (see :func:`mctslab.seeding.make_rng`).

    Attributes:
        nodes: positions visited by the last move's search.
        depth_searched: plies the last move's search saw to (``None``: to the end of the game).

    Raises:
        ValueError, TypeError: for a depth or ``max_nodes`` < 1.
    """

    name = "minimax"
    params = (
        Param("depth", int, None, check_optional_positive_int, "plies to search (none: the whole game)"),
        Param("max_nodes", int, MAX_NODES, check_positive_int, "no depth: positions per move before it searches less"),
    )

    def __init__(self, depth: int | None = None, max_nodes: int = MAX_NODES, seed: Seed = None) -> None:
        super().__init__(seed)
        self.set_params(depth=depth, max_nodes=max_nodes)
        self._limit: int | None = None
        self.depth_searched: int | None = None
        # Exact values do not depend on the search history, so a full-depth table is
        # kept between moves (per game); a depth-limited one is rebuilt every move.
        self._tables: dict[Game, dict] = {}
        self.nodes = 0

    def _value_at_leaf(self, game: Game, state: State) -> float:
        me = game.to_move(state)
        if game.is_terminal(state):
            r = game.returns(state)[me]
            return WIN if r == 1.0 else -WIN if r == 0.0 else 0
        return round((game.evaluate(state, me) - 0.5) * 2 * (EVAL_SCALE - 1))

    def negamax(self, game: Game, state: State, depth: int, alpha: float, beta: float, table: dict) -> float:
        """The value of ``state`` for the player to move, searched ``depth`` plies.

        Fail-soft: a result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound.
        """
        self.nodes += 1
        if self._limit is not None and self.nodes > self._limit:
            raise _OutOfNodes
        if depth == 0 or game.is_terminal(state):
            return self._value_at_leaf(game, state)
        entry = table.get(state)
        first = None
        if entry is not None:
            stored_depth, flag, value, first = entry
            if stored_depth >= depth:
                if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
                    return value
        moves = game.legal_moves(state)
        if first is not None:
            moves = (first, *(m for m in moves if m != first))
        alpha0, best, best_move = alpha, -INF, moves[0]
        # A full-depth search stays at UNLIMITED, so table entries serve every ply.
        child_depth = depth if depth == UNLIMITED else depth - 1
        for move in moves:
            # The window is widened by one on each side because _from_child moves
            # forced results one step towards zero.
            child = game.apply(state, move)
            value = _from_child(self.negamax(game, child, child_depth, -beta - 1, -alpha + 1, table))
            if value > best:
                best, best_move = value, move
                if best > alpha:
                    alpha = best
                    if alpha >= beta:
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        table[state] = (depth, flag, best, best_move)
        return best

    def analyse(self, game: Game, state: State) -> Analysis:
        """Search and return a best move (random among equals) and the position's value in [0, 1]."""
        moves = legal_or_raise(game, state)
        self.nodes = 0
        if self.depth is not None:
            self.depth_searched = self.depth
            best_value, best_moves = self._root(game, state, moves, self.depth - 1, {})
        else:
            best_value, best_moves = self._solve_or_deepen(game, state, moves)
        move = best_moves[math.floor(self.rng.random() * len(best_moves))]
        if best_value > MATE:
            value01 = 1.0
        elif best_value < -MATE:
            value01 = 0.0
        else:
            value01 = 0.5 + best_value / (2 * EVAL_SCALE)
        return Analysis(move, iterations=self.nodes, value=value01)

    def _solve_or_deepen(self, game: Game, state: State, moves: tuple[int, ...]) -> tuple[float, list[int]]:
        """The whole game if it fits in ``max_nodes`` positions, else the deepest search that does."""
        table = self._tables.setdefault(game, {})
        try:
            self._limit = self.max_nodes
            self.depth_searched = None
            return self._root(game, state, moves, UNLIMITED, table)
        except _OutOfNodes:  # too big to solve: iterative deepening within the budget
            pass
        finally:
            self._limit = None
        spent = self.nodes
        self.nodes = 0
        result = None
        try:
            self._limit = self.max_nodes
            for depth in range(1, UNLIMITED):
                result = self._root(game, state, moves, depth - 1, {})
                self.depth_searched = depth
        except _OutOfNodes:
            pass
        finally:
            self._limit = None
            self.nodes += spent
        if result is None:  # not even one ply fits: every move is worth the same
            self.depth_searched = 0
            return 0, list(moves)
        return result

    def _root(
        self, game: Game, state: State, moves: tuple[int, ...], depth: int, table: dict
    ) -> tuple[float, list[int]]:
        """The best value at the root and the moves that reach it (children searched ``depth`` plies)."""
        best_value, best_moves = -INF, []
        for move in moves:
            # A window just below the best so far: equal values come back exact, worse
            # ones fail low, so ties are recognised without searching every move fully.
            alpha = best_value - 1
            value = _from_child(self.negamax(game, game.apply(state, move), depth, -INF, -alpha + 1, table))
            if value > best_value:
                best_value, best_moves = value, [move]
            elif value == best_value:
                best_moves.append(move)
        return best_value, best_moves
