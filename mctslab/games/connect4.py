"""Connect Four: drop stones into columns; ``k`` in a row (4 by default) wins.

The state is a :class:`ConnectFourState`: two bitboards in the classic layout
(Pascal Pons, John Tromp): column ``c`` owns bits ``c * (rows + 1)`` up to
``c * (rows + 1) + rows - 1``, bottom to top, plus one always-empty *sentinel* bit on
top. Because the sentinel is never set, a run of stones cannot wrap from one column
into the next, and ``k`` in a row along a direction ``d`` is found with shifts
(``bits & bits >> d`` marks the starts of runs of two, and so on), with
``d = 1`` (vertical), ``rows + 1`` (horizontal), ``rows`` and ``rows + 2`` (the
two diagonals). The lowest empty cell of column ``c`` is
``(mask + bottom[c]) & column[c]``: adding one at the bottom carries through the
column's stones.

The fast :meth:`ConnectFour.rollout` keeps a second, *line-major* board in which every
cell has one bit per direction, so one shift test checks all four directions at once.
"""

from __future__ import annotations

import random
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

MAX_SIDE = 16
"""Largest number of rows or columns accepted."""

# The four directions as (column step, row step): vertical, horizontal, both diagonals.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class ConnectFourState(NamedTuple):
    """A Connect Four position.

    Attributes:
        x: bitboard of player 0's stones (X, moves first); bit ``c * (rows + 1) + r``
            is row ``r`` (0 at the bottom) of column ``c``; the sentinel bits are 0.
        o: bitboard of player 1's stones (O), same layout.
        result: -1 while playing, 0 if X has won, 1 if O has won, 2 for a draw
            (a function of ``x`` and ``o``, kept so the search need not recompute it).
    """

    x: int
    o: int
    result: int


def run_shifts(k: int) -> tuple[int, ...]:
    """Shift amounts (in steps along a direction) that turn a bitboard into run-of-``k`` starts.

    Starting from ``m = bits``, ``m &= m >> (s * d)`` for each ``s`` leaves bit ``i``
    set exactly when ``k`` stones lie at ``i, i + d, ..., i + (k - 1) d``; the run
    length doubles at each step (4 needs ``(1, 2)``, 5 needs ``(1, 2, 1)``).
    """
    shifts, length = [], 1
    while length < k:
        step = min(length, k - length)
        shifts.append(step)
        length += step
    return tuple(shifts)


@cache
def compiled_rules() -> SimpleNamespace:
    """Connect Four's compiled rules (see :mod:`mctslab.games.compiled`; needs Numba).

    ``st[2]``, ``st[3]``: X's and O's bitboards as :class:`ConnectFourState` keeps them (column
    ``c`` owns bits ``c * (rows + 1)`` ..., bottom up); ``prm = (rows, cols, k, rows + 1, full, plan
    length)``; ``tab[d, j]``: the j-th shift of direction d's run test (vertical, horizontal, diagonals).
    """
    from ._jit import ix, njit, rand

    @njit(inline="always")
    def four_runs(bits, h):
        # Four in a row on a board of column height h: runs of 2, then of 4, along each direction.
        a = bits & (bits >> 1)
        b = bits & (bits >> h)
        c = bits & (bits >> (h + 1))
        d = bits & (bits >> (h - 1))
        return ((a & (a >> 2)) | (b & (b >> (2 * h))) | (c & (c >> (2 * h + 2))) | (d & (d >> (2 * h - 2)))) != 0

    @njit(inline="always")
    def has_run(prm, tab, bits):
        if prm[5] == 2 and tab[0, 1] == 2:  # k = 4 (the shifts 1, 2): the run test with shifts the compiler sees
            return four_runs(bits, 7) if prm[3] == 7 else four_runs(bits, prm[3])  # 7: the standard board's height
        for d in range(4):
            m = bits
            for j in range(prm[5]):
                m &= m >> tab[d, j]
            if m:
                return True
        return False

    @njit(inline="always")
    def apply(prm, tab, st, move):
        p = st[1]
        occupied = st[2] | st[3]
        height = prm[3]
        column = ((1 << prm[0]) - 1) << (move * height)
        bit = (occupied + (1 << (move * height))) & column
        k = ix(2 + p)
        st[k] |= bit
        if has_run(prm, tab, st[k]):
            st[0] = p
        elif occupied | bit == prm[4]:
            st[0] = DRAWN
        st[1] = 1 - p

    @njit(inline="always")
    def legal(prm, tab, st, out):
        occupied = st[2] | st[3]
        n = 0
        for c in range(prm[1]):
            if not (occupied >> (c * prm[3] + prm[0] - 1)) & 1:
                out[ix(n)] = c
                n += 1
        return n

    @njit(inline="always")
    def rollout(prm, tab, st, buf, limit, played, mark):
        n = legal(prm, tab, st, buf)  # the pool of open columns
        p = st[1]
        mine = st[2 + p]
        theirs = st[3 - p]
        rows, height = prm[0], prm[3]
        four = prm[5] == 2 and tab[0, 1] == 2
        occupied = mine | theirs
        steps = 0
        while n > 0 and steps < limit:
            i = ix(rand() * n)
            c = buf[i]
            if mark:
                played[ix(p), ix(c)] = 1
            bit = (occupied + (1 << (c * height))) & (((1 << rows) - 1) << (c * height))
            occupied |= bit
            mine |= bit
            if (occupied >> (c * height + rows - 1)) & 1:  # the column is full now
                n -= 1
                buf[i] = buf[ix(n)]
            if four:
                won = four_runs(mine, 7) if height == 7 else four_runs(mine, height)
            else:
                won = has_run(prm, tab, mine)
            if won:
                return p
            mine, theirs = theirs, mine
            p = 1 - p
            steps += 1
        return DRAWN

    return SimpleNamespace(legal=legal, apply=apply, rollout=rollout)


@lru_cache(maxsize=8)
def compiled_game(rows: int, cols: int, k: int) -> CompiledGame:
    """The :class:`~mctslab.games.compiled.CompiledGame` of Connect Four on ``rows`` x ``cols``, ``k`` in a row."""
    height = rows + 1
    shifts = run_shifts(k) or (0,)  # k = 1: any stone is a run (m & m >> 0 == m)
    full = sum(((1 << rows) - 1) << (c * height) for c in range(cols))
    tab = np.array([[s * d for s in shifts] for d in (1, height, height + 1, height - 1)], dtype=np.int64)
    prm = np.array([rows, cols, k, height, full, len(shifts)], dtype=np.int64)
    return CompiledGame(compiled_rules, prm, tab, fields=4, max_moves=cols, max_plies=rows * cols)


@register_game(
    "connect4",
    params=(
        Param("rows", int, 6, doc=f"grid height, 1 to {MAX_SIDE}", show="always"),
        Param("cols", int, 7, doc=f"grid width, 1 to {MAX_SIDE}", show="always"),
        Param("k", int, 4, doc="stones in a row needed to win, 1 to max(rows, cols)", show="always"),
    ),
    summary="Connect Four, k in a row (default 6 rows x 7 cols, k=4)",
    test_spec="connect4",
)
class ConnectFour(StoneGame):
    """Connect Four on a ``rows`` x ``cols`` grid; ``k`` in a row wins.

    Players: 0 is X and moves first, 1 is O. A move is a column index
    ``0 .. cols - 1``; the stone falls to the lowest empty cell, and a column is
    legal while it is not full. A full board without ``k`` in a row is a draw.

    Args:
        rows: grid height, 1 to 16 (6 by default).
        cols: grid width, 1 to 16 (7 by default).
        k: stones in a row needed to win, 1 to ``max(rows, cols)`` (4 by default).

    Raises:
        ValueError: if a parameter is out of range.
    """

    rollout_order = "pool"  # rollout() draws from the open columns, a full one swapped with the last

    def __init__(self, rows: int = 6, cols: int = 7, k: int = 4) -> None:
        for name, value in (("rows", rows), ("cols", cols)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SIDE:
                raise ValueError(f"Connect Four {name} must be an int from 1 to {MAX_SIDE}, got {value!r}")
        longest = max(rows, cols)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= longest:
            raise ValueError(f"k (stones in a row) must be an int from 1 to max(rows, cols)={longest}, got {k!r}")
        self.rows, self.cols, self.k = rows, cols, k
        self.height = height = rows + 1  # bits per column, sentinel included
        self.cells = rows * cols
        self.column = tuple(((1 << rows) - 1) << (c * height) for c in range(cols))
        self.bottom = tuple(1 << (c * height) for c in range(cols))
        self.top = tuple(1 << (c * height + rows - 1) for c in range(cols))
        self.full = sum(self.column)
        self._bottoms = sum(self.bottom)
        self._tops = sum(self.top)
        self._legal: dict[int, tuple[int, ...]] = {}  # the legal moves, by which top cells are taken
        shifts = run_shifts(k)
        # One shift plan per direction, in bits: vertical, horizontal, the two diagonals.
        self._shift_plans = tuple(tuple(s * d for s in shifts) for d in (1, height, height + 1, height - 1))
        self.windows = self._windows()
        self._line_bits = self._line_major_bits()
        self._line_shifts = shifts
        self.board_bits = tuple(tuple(1 << (c * height + r) for c in range(cols)) for r in reversed(range(rows)))
        self._initial = ConnectFourState(0, 0, ONGOING)

    def _windows(self) -> tuple[int, ...]:
        """Bit masks of every ``k``-cell window (the segments that can hold a win)."""
        windows = []
        for c in range(self.cols):
            for r in range(self.rows):
                for dc, dr in DIRECTIONS:
                    end_c, end_r = c + dc * (self.k - 1), r + dr * (self.k - 1)
                    if 0 <= end_c < self.cols and 0 <= end_r < self.rows:
                        cells = ((c + dc * i) * self.height + r + dr * i for i in range(self.k))
                        windows.append(sum(1 << b for b in cells))
        return tuple(windows)

    def _line_major_bits(self) -> tuple[int, ...]:
        """For each bit position, its bits in the line-major board used by :meth:`rollout`.

        Every line (a full column, row or diagonal of at least ``k`` cells) gets a
        run of consecutive bits followed by one empty gap bit, so on that board a
        ``k``-in-a-row along any direction is ``k`` consecutive set bits.
        """
        bits = [0] * (self.cols * self.height)
        offset = 0
        for dc, dr in DIRECTIONS:
            for c in range(self.cols):
                for r in range(self.rows):
                    if 0 <= c - dc < self.cols and 0 <= r - dr < self.rows:
                        continue  # not the first cell of its line
                    line = []
                    cc, rr = c, r
                    while 0 <= cc < self.cols and 0 <= rr < self.rows:
                        line.append(cc * self.height + rr)
                        cc, rr = cc + dc, rr + dr
                    if len(line) < self.k:
                        continue
                    for i, pos in enumerate(line):
                        bits[pos] |= 1 << (offset + i)
                    offset += len(line) + 1
        return tuple(bits)

    def has_k_in_a_row(self, bits: int) -> bool:
        """True if the bitboard ``bits`` holds ``k`` stones in a row in any direction."""
        for plan in self._shift_plans:
            m = bits
            for shift in plan:
                m &= m >> shift
            if m:
                return True
        return False

    def check_state(self, state: ConnectFourState) -> None:
        """Refuse a state that no game of Connect Four reaches (see :meth:`StoneGame.check_state`).

        Beyond the stone game's checks: every stone rests on the bottom or on another
        stone, ``result`` is the one the stones say, and a winner's lines were all made
        by one last stone on top of a column.

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        x, o, result = state
        occupied = x | o
        # A column's stones lie on the bottom cell and on each other when they are 2**h - 1 after the shift; adding
        # every column's bottom bit at once (no carry: the sentinel row is free) tests all columns in one step.
        if occupied & (occupied + self._bottoms):
            for c, column in enumerate(self.column):
                stones = (occupied & column) >> (c * self.height)
                if stones & (stones + 1):
                    self.refuse_state(state, f"a stone floats in column {c} (stones fall to the lowest empty cell)")
        x_wins, o_wins = self.has_k_in_a_row(x), self.has_k_in_a_row(o)
        fault = result_fault(x_wins, o_wins, x, o, result, occupied == self.full)
        if fault is None and (x_wins or o_wins):
            mine = x if x_wins else o
            tops = [1 << (c * self.height + ((occupied & col) >> (c * self.height)).bit_length() - 1)
                    for c, col in enumerate(self.column) if occupied & col]  # fmt: skip
            if not any(mine & top and not self.has_k_in_a_row(mine & ~top) for top in tops):
                fault = f"{'X' if x_wins else 'O'} has lines no single last stone made (play stops at the first)"
        if fault is not None:
            self.refuse_state(state, fault)

    def initial_state(self) -> ConnectFourState:
        """The empty grid, X to move."""
        return self._initial

    def legal_moves(self, state: ConnectFourState) -> tuple[int, ...]:
        """The columns that are not full, ascending; ``()`` once the game is over."""
        x, o, result = state
        if result != ONGOING:
            return ()
        taken = (x | o) & self._tops
        legal = self._legal.get(taken)
        if legal is None:  # at most 2 ** cols sets of full columns, each worked out once
            legal = self._legal[taken] = tuple(c for c, top in enumerate(self.top) if not taken & top)
        return legal

    def apply(self, state: ConnectFourState, move: int) -> ConnectFourState:
        """Drop the mover's stone into column ``move`` (unchecked; see :meth:`Game.play`)."""
        x, o, _ = state
        occupied = x | o
        bit = (occupied + self.bottom[move]) & self.column[move]
        if x.bit_count() == o.bit_count():
            x |= bit
            won = self.has_k_in_a_row(x)
            result = X_WON if won else (DRAWN if occupied | bit == self.full else ONGOING)
        else:
            o |= bit
            won = self.has_k_in_a_row(o)
            result = O_WON if won else (DRAWN if occupied | bit == self.full else ONGOING)
        return ConnectFourState(x, o, result)

    def move_bit(self, state: ConnectFourState, move: int) -> int:
        """The bit of the cell where a stone dropped into column ``move`` lands (0 if the column is full)."""
        return ((state.x | state.o) + self.bottom[move]) & self.column[move]

    def _to_line_major(self, bits: int) -> int:
        """The line-major board (see :meth:`_line_major_bits`) of a standard bitboard."""
        line_bits = self._line_bits
        out = 0
        while bits:
            low = bits & -bits
            out |= line_bits[low.bit_length() - 1]
            bits ^= low
        return out

    def rollout(self, state: ConnectFourState, rng: random.Random, max_moves: int | None = None) -> tuple[float, float]:
        """A uniformly random playout (same distribution as :meth:`Game.rollout`).

        Keeps the next free bit of each column and the list of open columns in
        local lists, and tests for a win with one shift test on the line-major
        board. While neither player can have ``k`` stones yet, no test is made.
        """
        x, o, result = state
        if result != ONGOING:
            return RESULTS[result] if result != DRAWN else DRAW
        rows, height = self.rows, self.height
        occupied = x | o
        nxt, last, avail = [], [], []
        empty = 0
        for c in range(self.cols):
            h = (occupied >> (c * height) & self.column[0]).bit_length()
            nxt.append(c * height + h)
            last.append(c * height + rows - 1)
            if h < rows:
                avail.append(c)
                empty += rows - h
        n = len(avail)
        nx, no = x.bit_count(), o.bit_count()
        player = 0 if nx == no else 1
        boards = (self._to_line_major(x), self._to_line_major(o))
        me, other = boards[player], boards[player ^ 1]
        limit = empty if max_moves is None else min(max_moves, empty)
        # Phase 1: so few stones that nobody can have k in a row yet.
        quiet = min(limit, 2 * max(0, self.k - 1 - max(nx, no)))
        line_bits = self._line_bits
        rand = rng.random
        for _ in range(quiet):
            i = floor(rand() * n)
            c = avail[i]
            pos = nxt[c]
            if pos == last[c]:
                n -= 1
                avail[i] = avail[n]
            else:
                nxt[c] = pos + 1
            me, other = other, me | line_bits[pos]
        # Phase 2: after each move `other` is the mover's board; test it for a run.
        shifts = self._line_shifts
        if len(shifts) == 2:  # k = 3 or 4: the test unrolled
            s1, s2 = shifts
            for step in range(quiet, limit):
                i = floor(rand() * n)
                c = avail[i]
                pos = nxt[c]
                if pos == last[c]:
                    n -= 1
                    avail[i] = avail[n]
                else:
                    nxt[c] = pos + 1
                me, other = other, me | line_bits[pos]
                m = other & (other >> s1)
                if m & (m >> s2):
                    return RESULTS[player ^ (step & 1)]
            return DRAW
        for step in range(quiet, limit):
            i = floor(rand() * n)
            c = avail[i]
            pos = nxt[c]
            if pos == last[c]:
                n -= 1
                avail[i] = avail[n]
            else:
                nxt[c] = pos + 1
            me, other = other, me | line_bits[pos]
            m = other
            for s in shifts:
                m &= m >> s
            if m:
                return RESULTS[player ^ (step & 1)]
        return DRAW

    def evaluate(self, state: ConnectFourState, player: int) -> float:
        """Open-windows heuristic in (0.05, 0.95).

        Every ``k``-cell window that holds stones of one player only counts the
        square of their number, for that player; the difference is scaled so it
        stays inside (0.05, 0.95). A finished game gives its exact return.
        """
        if state.result != ONGOING:
            return self.returns(state)[player]
        mine, theirs = (state.x, state.o) if player == 0 else (state.o, state.x)
        score = 0
        for m in self.windows:
            if not m & theirs:
                score += (m & mine).bit_count() ** 2
            elif not m & mine:
                score -= (m & theirs).bit_count() ** 2
        scale = len(self.windows) * self.k**2
        return 0.5 + 0.45 * score / scale

    def render(self, state: ConnectFourState) -> str:
        """The grid as text, top row first: ``X``, ``O``, ``.``; column numbers underneath."""
        x, o, _ = state
        width = len(str(self.cols - 1))
        lines = []
        for r in reversed(range(self.rows)):
            cells = []
            for c in range(self.cols):
                bit = 1 << (c * self.height + r)
                cells.append(("X" if x & bit else "O" if o & bit else ".").rjust(width))
            lines.append(" ".join(cells))
        lines.append(" ".join(str(c).rjust(width) for c in range(self.cols)))
        return "\n".join(lines)


@register_compiled(ConnectFour)
class ConnectFourCompiled(CompiledEncoding):
    """ConnectFour's compiled rules for :mod:`mctslab.engine` (:mod:`mctslab.games.compiled`)."""

    def compiled(self) -> CompiledGame | None:
        """The compiled rules for :mod:`mctslab.engine` (boards of up to 63 bits; ``None`` beyond)."""
        return (
            compiled_game(self.game.rows, self.game.cols, self.game.k)
            if self.game.cols * self.game.height <= 63
            else None
        )

    def compiled_state(self, state: ConnectFourState) -> tuple[int, ...]:
        """``(result, player to move, x, o)``, the bitboards as they are."""
        return (state.result, self.game.to_move(state), state.x, state.o)


@register_drawing(ConnectFour)
class ConnectFourDrawing(StoneGameDrawing):
    """How ConnectFour is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """``"col 3"``; short: ``"3"``."""
        return str(move) if short else f"col {move}"

    def click_move(self, state: ConnectFourState, row: int, col: int) -> int | None:
        """A click anywhere in a column plays that column (if it is not full)."""
        return col if col in self.game.legal_moves(state) else None

    def column_labels(self) -> list[str] | None:
        """The column numbers, ``"0"`` to ``"6"``: the moves that drop a stone there."""
        return [self.move_text(c, short=True) for c in range(self.game.cols)]

    def winning_cells(self, state: ConnectFourState) -> set[tuple[int, int]]:
        """The cells of the winner's k-in-a-row windows; empty while nobody has won."""
        stones = state.x if state.result == X_WON else state.o if state.result == O_WON else 0
        cells = self.game._cell_of_bit()
        return {
            cell
            for window in self.game.windows
            if stones & window == window
            for bit, cell in cells.items()
            if window & bit
        }

    def played_cell(self, state: ConnectFourState, move: int) -> tuple[int, int] | None:
        """The cell of the top stone of column ``move`` (``state`` is the position after the move)."""
        stones = (state.x | state.o) & self.game.column[move]
        return self.game._cell_of_bit().get(1 << (stones.bit_length() - 1)) if stones else None


@register_network(ConnectFour)
class ConnectFourNetwork(StoneNetwork):
    """ConnectFour's network encoding: the board's two planes (:class:`~.stones.StoneNetwork`), its moves."""

    @property
    def policy_size(self) -> int:
        """Every move: a column."""
        return self.game.cols

    def symmetries(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """The identity and the left-right mirror, as index maps over the two feature planes and the columns."""
        rows, cols = self.game.rows, self.game.cols
        flip = [r * cols + (cols - 1 - c) for r in range(rows) for c in range(cols)]
        ident = tuple(range(2 * rows * cols))
        mirrored = tuple(flip) + tuple(p + rows * cols for p in flip)
        return ((ident, tuple(range(cols))), (mirrored, tuple(reversed(range(cols)))))
