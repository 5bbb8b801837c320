"""Shallow traps, exactly (Ramanujan, Sabharwal & Selman 2010).

A move is a **level-k trap** when, after it, the opponent can force a win within k plies
(k odd: the opponent moves at plies 1, 3, ..., k). A position *has* a level-k trap when
one of its legal moves is a trap of level at most k. Sampling-based search is slow to see
such a move for what it is (random playouts rarely find the opponent's one refutation),
while minimax of depth k + 1 sees it at once: Ramanujan et al. found shallow traps common
in Chess and rare in Go, and tied UCT's troubles in Chess to them.

The search is a depth-limited AND-OR proof: at the attacker's turns one winning move is
enough, at the defender's turns every move must lose; positions already settled at a
depth are remembered for the query.
"""

from __future__ import annotations

from ..games.base import Game, State


def forces_win(game: Game, state: State, player: int, plies: int, memo: dict | None = None) -> bool:
    """True if ``player`` can force a win (a finished game that ``player`` won) within ``plies`` plies.

    Args:
        game: a two-player game without chance.
        state: the position, whoever is to move.
        player: the attacker, 0 or 1.
        plies: the most moves (both sides counted) before the win, >= 0.
        memo: a dict to remember settled positions in (shared between calls with the
            same ``game`` and ``player``); a new one when ``None``.
    """
    if game.is_terminal(state):
        return game.winner(state) == player
    if plies <= 0:
        return False
    memo = {} if memo is None else memo
    key = (state, plies)
    known = memo.get(key)
    if known is not None:
        return known
    moves = game.legal_moves(state)
    if game.to_move(state) == player:
        result = any(forces_win(game, game.apply(state, m), player, plies - 1, memo) for m in moves)
    else:
        result = all(forces_win(game, game.apply(state, m), player, plies - 1, memo) for m in moves)
    memo[key] = result
    return result


def trap_level(game: Game, state: State, move: int, max_level: int = 5) -> int | None:
    """The smallest odd k <= ``max_level`` such that ``move`` is a level-k trap in ``state``; ``None`` if none is.

    After ``move`` the opponent can force a win within k plies, and not within fewer.
    """
    mover = game.to_move(state)
    after = game.apply(state, move)
    opponent = 1 - mover
    memo: dict = {}
    for level in range(1, max_level + 1, 2):
        if forces_win(game, after, opponent, level, memo):
            return level
    return None


def shallowest_trap(game: Game, state: State, max_level: int = 5) -> int | None:
    """The smallest trap level (odd, <= ``max_level``) among the legal moves of ``state``; ``None`` without a trap.

    A position whose every move is a trap is lost already; it still counts (the census
    asks how often a wrong move is punished quickly, not whether a right one exists).
    """
    mover = game.to_move(state)
    opponent = 1 - mover
    memo: dict = {}
    children = [game.apply(state, m) for m in game.legal_moves(state)]
    for level in range(1, max_level + 1, 2):
        if any(forces_win(game, child, opponent, level, memo) for child in children):
            return level
    return None
