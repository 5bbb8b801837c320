"""Exact minimax values by alpha-beta search, for trees too big to enumerate (P-games, planted traps).

:mod:`.perfect_play` enumerates every position and caches it, which fits tic-tac-toe but
not a P-game of 8^8 leaves. Alpha-beta (Knuth & Moore 1975) finds the same minimax value
while skipping the branches that cannot change it, storing nothing but the current path.

Values are from player 0's view (player 0 maximises, player 1 minimises), for any
two-player game without chance. A leaf's value is ``leaf(state)``; by default the
game's result, +1 (player 0 wins), 0 (a draw) or -1 (player 1 wins). A P-game's
:meth:`~mctslab.games.pgame.PGame.value` gives the sum instead.

``max_nodes`` caps the positions visited; past it :class:`BudgetExhausted` is raised.
That is the alpha-beta player of Kocsis & Szepesvári 2006's comparison at a node budget.
"""

from __future__ import annotations

from collections.abc import Callable

from ..games.base import Game, State

Leaf = Callable[[State], float]


class BudgetExhausted(RuntimeError):
    """Alpha-beta visited ``max_nodes`` positions before it finished."""


def result_value(game: Game) -> Leaf:
    """The default leaf value: +1 if player 0 won, -1 if player 1 won, 0 for a draw."""

    def value(state: State) -> float:
        first, second = game.returns(state)[:2]
        return (first > second) - (first < second)

    return value


class _Search:
    """One alpha-beta search: the game, the leaf values, and the count of positions visited."""

    def __init__(self, game: Game, leaf: Leaf | None, max_nodes: int | None) -> None:
        if game.num_players != 2 or game.has_chance:
            raise ValueError(f"alpha-beta needs a two-player game without chance; {game.spec} is not one")
        self.game = game
        self.leaf = leaf if leaf is not None else result_value(game)
        self.max_nodes = max_nodes
        self.nodes = 0

    def value(self, state: State, alpha: float, beta: float) -> float:
        """The minimax value of ``state`` if it lies in (alpha, beta); else a bound on the side it fails (fail-soft)."""
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise BudgetExhausted(f"alpha-beta visited more than {self.max_nodes} positions")
        game = self.game
        if game.is_terminal(state):
            return self.leaf(state)
        if game.to_move(state) == 0:
            best = float("-inf")
            for move in game.legal_moves(state):
                v = self.value(game.apply(state, move), alpha, beta)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            return best
        best = float("inf")
        for move in game.legal_moves(state):
            v = self.value(game.apply(state, move), alpha, beta)
            if v < best:
                best = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        return best


def alphabeta(
    game: Game,
    state: State | None = None,
    leaf: Leaf | None = None,
    *,
    max_nodes: int | None = None,
) -> tuple[float, int]:
    """The exact minimax value of ``state`` (player 0's view) and the number of positions visited.

    Args:
        game: a two-player game without chance.
        state: the position (the initial one by default).
        leaf: a leaf's value for player 0 (default: +1 / 0 / -1 by the result).
        max_nodes: stop after visiting this many positions (``None``: no limit).

    Raises:
        BudgetExhausted: if the search needs more than ``max_nodes`` positions.
        ValueError: for a game with chance or other than two players.
    """
    search = _Search(game, leaf, max_nodes)
    root = game.initial_state() if state is None else state
    value = search.value(root, float("-inf"), float("inf"))
    return value, search.nodes


def move_values(game: Game, state: State | None = None, leaf: Leaf | None = None) -> dict[int, float]:
    """The exact minimax value (player 0's view) of the position after each legal move."""
    root = game.initial_state() if state is None else state
    search = _Search(game, leaf, None)
    return {m: search.value(game.apply(root, m), float("-inf"), float("inf")) for m in game.legal_moves(root)}


def optimal_moves(game: Game, state: State | None = None, leaf: Leaf | None = None) -> tuple[int, ...]:
    """The legal moves that keep the minimax value of ``state`` for the player to move, ascending.

    Solves the position once, then tests each move against that value with a null
    window (a move is optimal exactly when its value reaches the root's), which is
    much cheaper than solving every move.

    Raises:
        ValueError: if the game is over or is not a two-player game without chance.
    """
    root = game.initial_state() if state is None else state
    moves = game.legal_moves(root)
    if not moves:
        raise ValueError(f"optimal_moves needs a position with legal moves; this {game.spec} game is over")
    search = _Search(game, leaf, None)
    best = search.value(root, float("-inf"), float("inf"))
    optimal = []
    maximising = game.to_move(root) == 0
    for move in moves:
        child = game.apply(root, move)
        if maximising:
            # The child fails low (value < best) or reaches best: window (best - eps, best).
            if search.value(child, _below(best), best) >= best:
                optimal.append(move)
        elif search.value(child, best, _above(best)) <= best:
            optimal.append(move)
    return tuple(optimal)


def _below(x: float) -> float:
    """A number just below ``x`` (leaf values are ints or floats; any number in between works)."""
    return x - max(1e-9, abs(x) * 1e-12)


def _above(x: float) -> float:
    return x + max(1e-9, abs(x) * 1e-12)


def best_move(
    game: Game,
    state: State | None = None,
    leaf: Leaf | None = None,
    *,
    max_nodes: int | None = None,
) -> tuple[int, float, int]:
    """The first legal move (ascending) that reaches the minimax value, that value, and the positions visited.

    One alpha-beta search from ``state`` whose root keeps the move that raised its bound
    (moves in ascending order, so the first optimal move is returned). With ``max_nodes``
    it is the budgeted alpha-beta player: unfinished, it raises.

    Raises:
        BudgetExhausted: if the search needs more than ``max_nodes`` positions.
        ValueError: if the game is over or is not a two-player game without chance.
    """
    root = game.initial_state() if state is None else state
    moves = game.legal_moves(root)
    if not moves:
        raise ValueError(f"best_move needs a position with legal moves; this {game.spec} game is over")
    search = _Search(game, leaf, max_nodes)
    search.nodes = 1  # the root
    sign = 1 if game.to_move(root) == 0 else -1
    alpha, beta = float("-inf"), float("inf")
    best, chosen = float("-inf"), moves[0]
    for move in moves:
        child = game.apply(root, move)
        v = sign * (search.value(child, alpha, beta) if sign == 1 else search.value(child, -beta, -alpha))
        if v > best:
            best, chosen = v, move
            alpha = max(alpha, v)
    return chosen, sign * best, search.nodes
