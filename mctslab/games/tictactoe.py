"""Tic-tac-toe on an n x n board with k in a row (3 x 3, k = 3 by default).

The state is a :class:`TicTacToeState`: two bitboards (bit ``i`` is cell ``i``,
row-major) and the result so far. Winning lines are precomputed as bit masks, and
each cell knows the lines through it, so a move is checked for a win by looking at
those lines only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache, lru_cache
from math import floor
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from ..specs import Param
from .base import DRAW, RESULTS
from .check_positions import result_fault
from .compiled import CompiledEncoding, CompiledGame, register_compiled
from .hooks import register_drawing
from .network import register_network
from .registry import register_game
from .stones import DRAWN, O_WON, ONGOING, X_WON, StoneGame, StoneGameDrawing, StoneNetwork


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


MAX_BATCHED_CELLS = 16
"""Largest board (in cells) with tables for :meth:`TicTacToe.playout_counts` (4 x 4: 65,536 rows)."""


@lru_cache(maxsize=8)
def playout_tables(n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables over every set ``m`` of cells of an n x n board, for batched playouts.

    Returns:
        ``has_line[m]`` (does ``m`` hold k in a row?), ``n_empty[m]`` (cells not in
        ``m``) and ``nth_empty[m, i]`` (the i-th cell not in ``m``, ascending).
    """
    cells = n * n
    sets = np.arange(1 << cells, dtype=np.int64)
    stones = (sets[:, None] >> np.arange(cells)) & 1
    n_empty = cells - stones.sum(axis=1)
    nth_empty = np.argsort(stones, axis=1, kind="stable").astype(np.int8)  # empty cells first, in order
    has_line = np.zeros(1 << cells, dtype=bool)
    for line in winning_lines(n, k):
        has_line |= sets & line == line
    return has_line, n_empty, nth_empty


def winning_sets(lines: tuple[int, ...], cells: int) -> bytes:
    """Table over every subset of ``cells`` cells: 1 where the subset contains one of ``lines``."""
    table = bytearray(1 << cells)
    for line in lines:
        rest = ((1 << cells) - 1) & ~line
        sub = rest  # every superset of the line is line | (a subset of the other cells)
        while True:
            table[line | sub] = 1
            if sub == 0:
                break
            sub = (sub - 1) & rest
    return bytes(table)


@cache
def _tables(n: int, k: int) -> tuple:
    """The lookup tables of n x n, k-in-a-row tic-tac-toe, built once per size (about 1.3 ms on 3 x 3).

    Every game of that size shares them (they are tuples and bytes, never changed), so making a
    game, which the course's checks do for every position they set up, costs next to nothing.

    Returns:
        ``(lines, lines_through, bits, has_line, empty_cells, board_bits)``: the winning lines;
        for each cell the lines through it; each cell's bit; on boards of up to 9 cells, the
        512-entry table saying whether a set of stones holds a line (one lookup per move) and the
        empty cells of every occupancy in ascending order (``None`` on larger boards); the bits
        by row and column.
    """
    cells = n * n
    lines = winning_lines(n, k)
    lines_through = tuple(tuple(m for m in lines if m >> c & 1) for c in range(cells))
    bits = tuple(1 << c for c in range(cells))
    has_line = winning_sets(lines, cells) if cells <= 9 else None
    empty_cells = (
        tuple(tuple(c for c in range(cells) if not occ >> c & 1) for occ in range(1 << cells)) if cells <= 9 else None
    )
    board_bits = tuple(tuple(1 << (r * n + c) for c in range(n)) for r in range(n))
    return lines, lines_through, bits, has_line, empty_cells, board_bits


@cache
def compiled_rules() -> SimpleNamespace:
    """Tic-tac-toe's compiled rules (see :mod:`mctslab.games.compiled`; needs Numba).

    ``st[2]`` X's stones, ``st[3]`` O's (bit = cell); ``prm = (n, k, cells, full)``;
    ``tab[cell, 0]`` the number of winning lines through ``cell``, ``tab[cell, 1 + j]`` their masks.
    """
    from ._jit import ix, njit, rand

    @njit(inline="always")
    def completes(tab, stones, cell):
        c = ix(cell)
        for j in range(tab[c, 0]):
            m = tab[c, ix(1 + j)]
            if stones & m == m:
                return True
        return False

    @njit(inline="always")
    def apply(prm, tab, st, move):
        p = st[1]
        k = ix(2 + p)
        st[k] |= 1 << move
        if completes(tab, st[k], move):
            st[0] = p
        elif st[2] | st[3] == prm[3]:
            st[0] = DRAWN
        st[1] = 1 - p

    @njit(inline="always")
    def legal(prm, tab, st, out):
        occupied = st[2] | st[3]
        n = 0
        cells = 9 if prm[2] == 9 else prm[2]  # 3 x 3: a loop of a length the compiler sees (unrolled)
        for cell in range(cells):
            if not (occupied >> cell) & 1:
                out[ix(n)] = cell
                n += 1
        return n

    @njit(inline="always")
    def rollout(prm, tab, st, buf, limit, played, mark):
        n = legal(prm, tab, st, buf)  # the pool of empty cells
        p = st[1]
        mine = st[ix(2 + p)]
        theirs = st[ix(3 - p)]
        for _ in range(min(n, limit)):
            i = ix(rand() * n)
            cell = buf[i]
            if mark:
                played[ix(p), ix(cell)] = 1
            n -= 1
            buf[i] = buf[ix(n)]
            mine |= 1 << cell
            if completes(tab, mine, cell):
                return p
            mine, theirs = theirs, mine
            p = 1 - p
        return DRAWN

    return SimpleNamespace(legal=legal, apply=apply, rollout=rollout)


@lru_cache(maxsize=8)
def compiled_game(n: int, k: int) -> CompiledGame:
    """The :class:`~mctslab.games.compiled.CompiledGame` of n x n tic-tac-toe with k in a row."""
    cells = n * n
    lines = winning_lines(n, k)
    through = [[m for m in lines if m >> c & 1] for c in range(cells)]
    tab = np.zeros((cells, 1 + max(len(t) for t in through)), dtype=np.int64)
    for c, masks in enumerate(through):
        tab[c, 0] = len(masks)
        tab[c, 1 : 1 + len(masks)] = masks
    prm = np.array([n, k, cells, (1 << cells) - 1], dtype=np.int64)
    return CompiledGame(compiled_rules, prm, tab, fields=4, max_moves=cells, max_plies=cells)


@register_game(
    "tictactoe",
    params=(
        Param("n", int, 3, doc="board side, 1 to 8", show="always"),
        Param("k", int, None, doc="stones in a row needed to win, 1 to n (default n)", show="always"),
    ),
    summary="n x n tic-tac-toe, k in a row (default 3 x 3, k=3)",
    test_spec="tictactoe",
)
class TicTacToe(StoneGame):
    """Tic-tac-toe on an ``n`` x ``n`` board; ``k`` in a row wins.

    Players: 0 is X and moves first, 1 is O. Moves are cell indices ``0 .. n*n - 1``,
    row-major (on 3 x 3, 4 is the centre). ``k`` defaults to ``n`` (the n x n,
    n-in-a-row game of Racioppo 2020).

    Args:
        n: board side, 1 to 8.
        k: stones in a row needed to win, 1 to ``n``.

    Raises:
        ValueError: if ``n`` or ``k`` is out of range.
    """

    rollout_order = "pool"  # rollout() draws from the empty cells, the chosen one swapped with the last

    def __init__(self, n: int = 3, k: int | None = None) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 8:
            raise ValueError(f"tic-tac-toe board side n must be an int from 1 to 8, got {n!r}")
        k = n if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
            raise ValueError(f"k (stones in a row) must be an int from 1 to n={n}, got {k!r}")
        self.n, self.k = n, k
        self.cells = n * n
        self.full = (1 << self.cells) - 1
        self.lines, self.lines_through, self.bits, self.has_line, self.empty_cells, self.board_bits = _tables(n, k)
        self._initial = TicTacToeState(0, 0, ONGOING)

    def check_state(self, state: TicTacToeState) -> None:
        """Refuse a state that no game of tic-tac-toe reaches (see :meth:`StoneGame.check_state`).

        Beyond the stone game's checks: ``result`` is the one the stones say, and a
        winner's lines all pass through one stone (the last, which ended the game).

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        x, o, result = state
        x_lines = [m for m in self.lines if x & m == m]
        o_lines = [m for m in self.lines if o & m == m]
        fault = result_fault(bool(x_lines), bool(o_lines), x, o, result, x | o == self.full)
        common = -1
        for line in x_lines or o_lines:
            common &= line
        if fault is None and not common:
            fault = f"{'X' if x_lines else 'O'} has lines no single last stone made (play stops at the first)"
        if fault is not None:
            self.refuse_state(state, fault)

    def initial_state(self) -> TicTacToeState:
        """The empty board, X to move."""
        return self._initial

    def legal_moves(self, state: TicTacToeState) -> tuple[int, ...]:
        """The empty cells, ascending; ``()`` once the game is over."""
        x, o, result = state
        if result != ONGOING:
            return ()
        occupied = x | o
        if self.empty_cells is not None:
            return self.empty_cells[occupied]
        return tuple(c for c in range(self.cells) if not occupied >> c & 1)

    def apply(self, state: TicTacToeState, move: int) -> TicTacToeState:
        """Place the mover's stone on cell ``move`` (unchecked; see :meth:`Game.play`)."""
        x, o, _ = state
        bit = 1 << move
        if x.bit_count() == o.bit_count():
            x |= bit
            mover, if_won = x, X_WON
        else:
            o |= bit
            mover, if_won = o, O_WON
        has_line = self.has_line
        if has_line[mover] if has_line is not None else self._completes_line(mover, move):
            result = if_won
        else:
            result = DRAWN if x | o == self.full else ONGOING
        return TicTacToeState(x, o, result)

    def rollout(self, state: TicTacToeState, rng: random.Random, max_moves: int | None = None) -> tuple[float, float]:
        """A uniformly random playout on the bitboards (same distribution as :meth:`Game.rollout`).

        Each move draws one index into the list of empty cells and moves the last empty
        cell into its place, so a playout is a few integer operations per move.
        """
        x, o, result = state
        if result != ONGOING:
            return RESULTS[result] if result != DRAWN else DRAW
        occupied = x | o
        if self.empty_cells is not None:
            empty = list(self.empty_cells[occupied])
        else:
            empty = [c for c in range(self.cells) if not occupied >> c & 1]
        n = len(empty)
        player = 0 if x.bit_count() == o.bit_count() else 1
        mine, theirs = (x, o) if player == 0 else (o, x)
        bits, has_line, rand = self.bits, self.has_line, rng.random
        limit = n if max_moves is None else min(n, max_moves)
        for _ in range(limit):
            i = floor(rand() * n)
            n -= 1
            cell = empty[i]
            empty[i] = empty[n]
            mine |= bits[cell]
            if has_line[mine] if has_line is not None else self._completes_line(mine, cell):
                return RESULTS[player]
            mine, theirs = theirs, mine
            player ^= 1
        return DRAW

    def playout_counts(
        self, states: Sequence[TicTacToeState], playouts: int, rng: np.random.Generator, max_moves: int | None = None
    ) -> np.ndarray:
        """How ``playouts`` random playouts from each of ``states`` end, all played at once with NumPy.

        Every playout is a row of arrays (X's stones, O's stones, whose turn); each ply
        draws one random number per unfinished playout and looks up the chosen empty
        cell and the win in tables over every set of stones (boards of up to 16 cells;
        bigger boards use the generic :meth:`Game.playout_counts`). Same distribution
        as :meth:`rollout`.

        Returns:
            An integer array of shape ``(len(states), 3)``: X wins, O wins, draws.
        """
        if self.cells > MAX_BATCHED_CELLS:
            return super().playout_counts(states, playouts, rng, max_moves)
        has_line, n_empty, nth_empty = playout_tables(self.n, self.k)
        states = list(states)
        start = np.array([s.result if s.result != ONGOING else DRAWN for s in states], dtype=np.int64)
        outcome = np.repeat(start, playouts)  # 0 X won, 1 O won, 2 drawn: the default until decided
        playing = np.repeat(np.array([s.result == ONGOING for s in states], dtype=bool), playouts)
        live = np.flatnonzero(playing)  # the playouts still going, by index
        x = np.repeat(np.array([s.x for s in states], dtype=np.int64), playouts)[live]
        o = np.repeat(np.array([s.o for s in states], dtype=np.int64), playouts)[live]
        mover = np.repeat(np.array([self.to_move(s) for s in states], dtype=np.int64), playouts)[live]
        for _ in range(self.cells if max_moves is None else max_moves):
            if not live.size:
                break
            occupied = x | o
            pick = (rng.random(live.size) * n_empty[occupied]).astype(np.int64)  # floor: a uniform empty cell
            bit = np.left_shift(1, nth_empty[occupied, pick].astype(np.int64))
            x_to_move = mover == 0
            x = np.where(x_to_move, x | bit, x)
            o = np.where(x_to_move, o, o | bit)
            won = has_line[np.where(x_to_move, x, o)]
            outcome[live[won]] = mover[won]  # X_WON is 0 and O_WON is 1, the mover's number
            going = ~won & ((occupied | bit) != self.full)  # a full board is a draw (the default)
            live, x, o, mover = live[going], x[going], o[going], 1 - mover[going]
        index = np.repeat(np.arange(len(states)), playouts) * 3 + outcome
        return np.bincount(index, minlength=3 * len(states)).reshape(len(states), 3)

    def _completes_line(self, stones: int, cell: int) -> bool:
        """Whether ``stones`` hold a winning line through ``cell`` (for boards too big for ``has_line``)."""
        return any(stones & m == m for m in self.lines_through[cell])

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


@register_compiled(TicTacToe)
class TicTacToeCompiled(CompiledEncoding):
    """TicTacToe's compiled rules for :mod:`mctslab.engine` (:mod:`mctslab.games.compiled`)."""

    def compiled(self) -> CompiledGame | None:
        """The compiled rules for :mod:`mctslab.engine` (boards of up to 49 cells; ``None`` beyond)."""
        return compiled_game(self.game.n, self.game.k) if self.game.cells <= 49 else None

    def compiled_state(self, state: TicTacToeState) -> tuple[int, ...]:
        """``(result, player to move, x, o)``."""
        return (state.result, self.game.to_move(state), state.x, state.o)


@register_drawing(TicTacToe)
class TicTacToeDrawing(StoneGameDrawing):
    """How TicTacToe is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def winning_cells(self, state: TicTacToeState) -> set[tuple[int, int]]:
        """The cells of the winner's k-in-a-row lines; empty while nobody has won."""
        stones = state.x if state.result == X_WON else state.o if state.result == O_WON else 0
        cells = self.game._cell_of_bit()
        return {cell for line in self.game.lines if stones & line == line for bit, cell in cells.items() if line & bit}


@register_network(TicTacToe)
class TicTacToeNetwork(StoneNetwork):
    """TicTacToe's network encoding: the board's two planes (:class:`~.stones.StoneNetwork`), its moves."""

    @property
    def policy_size(self) -> int:
        """Every move: a cell."""
        return self.game.cells

    def symmetries(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """The 8 symmetries of the square board (rotations and reflections), as index maps."""
        n, out = self.game.n, []
        for turns in range(4):
            for mirror in (False, True):
                perm = []
                for cell in range(self.game.cells):
                    r, c = divmod(cell, n)
                    if mirror:
                        c = n - 1 - c
                    for _ in range(turns):
                        r, c = c, n - 1 - r
                    perm.append(r * n + c)
                out.append((tuple(perm) + tuple(p + self.game.cells for p in perm), tuple(perm)))
        return tuple(out)
