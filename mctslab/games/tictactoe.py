"""Tic-tac-toe on an n x n board with k in a row (3 x 3, k = 3 by default).

The state is a :class:`TicTacToeState`: two bitboards (bit ``i`` is cell ``i``,
row-major) and the result so far. Winning lines are precomputed as bit masks, and
each cell knows the lines through it, so a move is checked for a win by looking at
those lines only.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from .base import DRAW, RESULTS, Game

ONGOING, X_WON, O_WON, DRAWN = -1, 0, 1, 2


class TicTacToeState(NamedTuple):
    """A tic-tac-toe position.

    Attributes:
        x: bitboard of X's stones (player 0); bit ``i`` is cell ``i`` (row-major).
        o: bitboard of O's stones (player 1).
        result: -1 while playing, 0 if X has won, 1 if O has won, 2 for a draw
            (a function of ``x`` and ``o``, kept so the search need not recompute it).
    """

    x: int
    o: int
    result: int


def winning_lines(n: int, k: int) -> tuple[int, ...]:
    """Bit masks of every k-in-a-row segment on an n x n board (rows, columns, both diagonals)."""
    lines = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < n and 0 <= end_c < n:
                    lines.append(sum(1 << ((r + dr * i) * n + c + dc * i) for i in range(k)))
    return tuple(lines)


class TicTacToe(Game):
    """Tic-tac-toe on an ``n`` x ``n`` board; ``k`` in a row wins.

    Players: 0 is X and moves first, 1 is O. Moves are cell indices ``0 .. n*n - 1``,
    row-major (on 3 x 3, 4 is the centre). ``k`` defaults to ``n`` (the n x n,
    n-in-a-row game of seed 001).

    Args:
        n: board side, 1 to 8.
        k: stones in a row needed to win, 1 to ``n``.

    Raises:
        ValueError: if ``n`` or ``k`` is out of range.
    """

    def __init__(self, n: int = 3, k: int | None = None) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 8:
            raise ValueError(f"tic-tac-toe board side n must be an int from 1 to 8, got {n!r}")
        k = n if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
            raise ValueError(f"k (stones in a row) must be an int from 1 to n={n}, got {k!r}")
        self.n, self.k = n, k
        self.cells = n * n
        self.full = (1 << self.cells) - 1
        self.spec = f"tictactoe:n={n},k={k}"
        self.lines = winning_lines(n, k)
        # lines_through[c]: the winning lines that contain cell c.
        self.lines_through = tuple(tuple(m for m in self.lines if m >> c & 1) for c in range(self.cells))
        self._initial = TicTacToeState(0, 0, ONGOING)

    def initial_state(self) -> TicTacToeState:
        """The empty board, X to move."""
        return self._initial

    def to_move(self, state: TicTacToeState) -> int:
        """0 (X) when both have placed the same number of stones, else 1 (O)."""
        return 0 if state.x.bit_count() == state.o.bit_count() else 1

    def legal_moves(self, state: TicTacToeState) -> tuple[int, ...]:
        """The empty cells, ascending; ``()`` once the game is over."""
        x, o, result = state
        if result != ONGOING:
            return ()
        occupied = x | o
        return tuple(c for c in range(self.cells) if not occupied >> c & 1)

    def apply(self, state: TicTacToeState, move: int) -> TicTacToeState:
        """Place the mover's stone on cell ``move`` (unchecked; see :meth:`Game.play`)."""
        x, o, _ = state
        bit = 1 << move
        if x.bit_count() == o.bit_count():
            x |= bit
            won = any(x & m == m for m in self.lines_through[move])
            result = X_WON if won else (DRAWN if x | o == self.full else ONGOING)
        else:
            o |= bit
            won = any(o & m == m for m in self.lines_through[move])
            result = O_WON if won else (DRAWN if x | o == self.full else ONGOING)
        return TicTacToeState(x, o, result)

    def is_terminal(self, state: TicTacToeState) -> bool:
        """True once someone has k in a row or the board is full."""
        return state.result != ONGOING

    def winner(self, state: TicTacToeState) -> int | None:
        """0 (X) or 1 (O) if that player has k in a row, else ``None``."""
        return state.result if state.result in (X_WON, O_WON) else None

    def returns(self, state: TicTacToeState) -> tuple[float, float]:
        """Per-player returns of a finished game (1 win, 0.5 draw, 0 loss)."""
        if state.result == ONGOING:
            raise ValueError("returns() needs a finished game; this one is still in progress")
        return RESULTS[self.winner(state)]

    def rollout(self, state: TicTacToeState, rng: random.Random, max_moves: int | None = None) -> tuple[float, float]:
        """A uniformly random playout on the bitboards (same distribution as :meth:`Game.rollout`)."""
        x, o, result = state
        if result != ONGOING:
            return RESULTS[result] if result != DRAWN else DRAW
        occupied = x | o
        empty = [c for c in range(self.cells) if not occupied >> c & 1]
        boards = [x, o]
        player = 0 if x.bit_count() == o.bit_count() else 1
        lines_through = self.lines_through
        rand = rng.random
        steps = 0
        while empty:
            if max_moves is not None and steps >= max_moves:
                return DRAW
            i = int(rand() * len(empty))
            cell = empty[i]
            empty[i] = empty[-1]
            empty.pop()
            bits = boards[player] | (1 << cell)
            boards[player] = bits
            for m in lines_through[cell]:
                if bits & m == m:
                    return RESULTS[player]
            player ^= 1
            steps += 1
        return DRAW

    def evaluate(self, state: TicTacToeState, player: int) -> float:
        """Open-lines heuristic in (0, 1): lines still winnable, weighted by stones on them."""
        if state.result != ONGOING:
            return self.returns(state)[player]
        mine, theirs = (state.x, state.o) if player == 0 else (state.o, state.x)
        score = 0.0
        for m in self.lines:
            if not m & theirs:
                score += (m & mine).bit_count() ** 2
            if not m & mine:
                score -= (m & theirs).bit_count() ** 2
        scale = len(self.lines) * self.k**2
        return 0.5 + 0.45 * score / scale

    def render(self, state: TicTacToeState) -> str:
        """The board as text: ``X``, ``O`` and ``.`` for an empty cell, one row per line."""
        x, o, _ = state
        rows = []
        for r in range(self.n):
            cells = []
            for c in range(r * self.n, (r + 1) * self.n):
                cells.append("X" if x >> c & 1 else "O" if o >> c & 1 else ".")
            rows.append(" ".join(cells))
        return "\n".join(rows)
