"""Hex on an n x n rhombus, as OpenSpiel's ``hex``: X (player 0) joins top and bottom, O (player 1) left and right.

Written only through the public game interface, Python rules and compiled rules alike (the
trial of issue 39: a game with compiled rules is this one file). The rules follow OpenSpiel's
``open_spiel/games/hex/hex.cc`` (commit aae2c1e): a move is a cell numbered row-major,
``row * n + column`` (``HexState::AdjacentCells``: row ``r`` is cells ``r * n`` to ``r * n + n - 1``);
player 0 (OpenSpiel's black, ``x``) moves first and wins by joining the first row to the last
(``PlayerAndActionToState``: north ``move < num_cols``, south the last row), player 1 (white,
``o``) by joining the first column to the last; the neighbours of ``(r, c)`` are ``(r - 1, c)``,
``(r - 1, c + 1)``, ``(r, c + 1)``, ``(r + 1, c)``, ``(r + 1, c - 1)`` and ``(r, c - 1)``
(``AdjacentCells``); the legal moves are the empty cells, ascending, none once the game is won
(``LegalActions``). Hex has no draw: a full board always holds exactly one player's chain.

The state is a :class:`HexState`: two bitboards (bit ``row * n + column``) and the result.
A move's win is found by growing the new stone's chain over the mover's stones, all cells of
a frontier at once (shifts of the bitboard, the same in Python and compiled).
"""

from __future__ import annotations

from functools import cache, lru_cache
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from ..specs import Param
from .compiled import CompiledEncoding, CompiledGame, register_compiled
from .hooks import register_drawing
from .registry import register_game
from .stones import ONGOING, StoneGame, StoneGameDrawing

MAX_SIZE = 26
"""The largest board (columns are lettered a to z)."""
MAX_COMPILED_CELLS = 63
"""The compiled rules keep a board in one int64: up to 7 x 7."""


class HexState(NamedTuple):
    """A Hex position.

    Attributes:
        x: bitboard of X's stones (player 0, joins top and bottom); bit ``row * n + column``.
        o: bitboard of O's stones (player 1, joins left and right).
        result: -1 while playing, 0 if X has won, 1 if O has won (Hex has no draw).
    """

    x: int
    o: int
    result: int


@lru_cache(maxsize=32)
def masks(n: int) -> tuple[int, int, int, int, int, int, int, int]:
    """``(full, not first column, not last column, top row, bottom row, first column, last column, n)`` of n x n."""
    full = (1 << (n * n)) - 1
    first = sum(1 << (r * n) for r in range(n))
    last = first << (n - 1)
    top = (1 << n) - 1
    return full, full & ~first, full & ~last, top, top << (n * (n - 1)), first, last, n


def spread(m: int, board: tuple[int, ...]) -> int:
    """The cells next to the cells of ``m`` (OpenSpiel's six neighbours), on the board ``masks(n)``."""
    full, not_first, not_last, *_, n = board
    return (
        (m >> n)
        | ((m << n) & full)
        | ((m << 1) & not_first)
        | ((m >> 1) & not_last)
        | ((m >> (n - 1)) & not_first)
        | ((m << (n - 1)) & not_last)
    )


def chain(stones: int, bit: int, board: tuple[int, ...]) -> int:
    """The cells of ``stones`` joined to ``bit`` (one of them) through neighbours."""
    group = bit
    while True:
        grown = (group | spread(group, board)) & stones
        if grown == group:
            return group
        group = grown


@register_game(
    "hex",
    params=(Param("size", int, 11, doc=f"cells per side, 1 to {MAX_SIZE} (OpenSpiel's default 11)", show="always"),),
    summary="Hex (OpenSpiel's hex): X joins top and bottom, O the sides",
    test_spec="hex:size=3",
)
class Hex(StoneGame):
    """Hex on a ``size`` x ``size`` board, OpenSpiel's ``hex`` (see the module).

    Args:
        size: cells per side, 1 to :data:`MAX_SIZE` (OpenSpiel's default is 11).
    """

    def __init__(self, size: int = 11) -> None:
        if type(size) is not int or not 1 <= size <= MAX_SIZE:
            raise ValueError(f"size must be an int from 1 to {MAX_SIZE}, got {size!r}")
        self.size = size
        self.cells = size * size
        self.board = masks(size)
        self.board_bits = tuple(tuple(1 << (r * size + c) for c in range(size)) for r in range(size))

    def initial_state(self) -> HexState:
        """The empty board, X to move."""
        return HexState(0, 0, ONGOING)

    def legal_moves(self, state: HexState) -> tuple[int, ...]:
        """The empty cells, ascending; none once the game is won."""
        if state.result != ONGOING:
            return ()
        occupied = state.x | state.o
        return tuple(cell for cell in range(self.cells) if not occupied >> cell & 1)

    def apply(self, state: HexState, move: int) -> HexState:
        """Put the mover's stone on cell ``move``; the mover wins when its chain joins its two edges."""
        x, o, _ = state
        bit = 1 << move
        _, _, _, top, bottom, first, last, _ = self.board
        if self.to_move(state) == 0:
            x |= bit
            group = chain(x, bit, self.board)
            won = group & top and group & bottom
            return HexState(x, o, 0 if won else ONGOING)
        o |= bit
        group = chain(o, bit, self.board)
        won = group & first and group & last
        return HexState(x, o, 1 if won else ONGOING)

    def render(self, state: HexState) -> str:
        """The rhombus as text, as OpenSpiel draws it: row ``r`` indented by ``r`` spaces, ``X``, ``O`` and ``.``."""
        rows = []
        for r, row in enumerate(self.board_bits):
            cells = " ".join("X" if state.x & bit else "O" if state.o & bit else "." for bit in row)
            rows.append(" " * r + cells)
        return "\n".join(rows)


@register_compiled(Hex)
class HexCompiled(CompiledEncoding):
    """Hex's compiled rules for :mod:`mctslab.engine` (:mod:`mctslab.games.compiled`)."""

    def compiled(self) -> CompiledGame | None:
        """The compiled rules for :mod:`mctslab.engine` (boards of up to 7 x 7; ``None`` beyond)."""
        return compiled_game(self.game.size) if self.game.cells <= MAX_COMPILED_CELLS else None

    def compiled_state(self, state: HexState) -> tuple[int, ...]:
        """``(result, player to move, x, o)``."""
        return (state.result, self.game.to_move(state), state.x, state.o)


@register_drawing(Hex)
class HexDrawing(StoneGameDrawing):
    """How Hex is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """The cell as column letter and row number, ``a1`` the top left corner (``short``: the same)."""
        row, column = divmod(move, self.game.size)
        return f"{chr(ord('a') + column)}{row + 1}"


@lru_cache(maxsize=8)
def compiled_game(n: int) -> CompiledGame:
    """The :class:`~mctslab.games.compiled.CompiledGame` of n x n Hex: ``prm`` is :func:`masks` ``(n)``."""
    prm = np.array(masks(n), dtype=np.int64)
    tab = np.zeros((1, 1), dtype=np.int64)  # Hex needs no table
    return CompiledGame(compiled_rules, prm, tab, fields=4, max_moves=n * n, max_plies=n * n)


@cache
def compiled_rules() -> SimpleNamespace:
    """Hex's compiled rules (see :mod:`mctslab.games.compiled`; needs Numba): :func:`chain` on int64 bitboards.

    ``st[2]`` X's stones, ``st[3]`` O's (bit ``row * n + column``); ``prm`` is :func:`masks`:
    full board, not first column, not last column, top row, bottom row, first column, last column, n.
    """
    from ._jit import ix, njit, rand

    @njit(inline="always")
    def grow(prm, stones, bit):
        n = prm[7]
        group = bit
        while True:
            m = group
            near = (m >> n) | ((m << n) & prm[0]) | ((m << 1) & prm[1]) | ((m >> 1) & prm[2])
            near |= ((m >> (n - 1)) & prm[1]) | ((m << (n - 1)) & prm[2])
            grown = (group | near) & stones
            if grown == group:
                return group
            group = grown

    @njit(inline="always")
    def joins(prm, group, p):
        if p == 0:
            return (group & prm[3]) != 0 and (group & prm[4]) != 0
        return (group & prm[5]) != 0 and (group & prm[6]) != 0

    @njit(inline="always")
    def apply(prm, tab, st, move):
        p = st[1]
        k = ix(2 + p)
        bit = 1 << move
        st[k] |= bit
        if joins(prm, grow(prm, st[k], bit), p):
            st[0] = p
        st[1] = 1 - p

    @njit(inline="always")
    def legal(prm, tab, st, out):
        occupied = st[2] | st[3]
        n = 0
        for cell in range(prm[7] * prm[7]):
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
        if not mark and limit >= n:
            # The board filled at random, then one test: a full Hex board holds exactly one player's chain,
            # and the first chain made in the playout is that one (a chain, once made, stays), so the result is
            # the move-by-move playout's.
            for _ in range(n):
                i = ix(rand() * n)
                mine |= 1 << buf[i]
                n -= 1
                buf[i] = buf[ix(n)]
                mine, theirs = theirs, mine
                p = 1 - p
            x = mine if p == 0 else theirs
            top = x & prm[3]
            if top and joins(prm, grow(prm, x, top), 0):
                return 0
            return 1
        for _ in range(min(n, limit)):
            i = ix(rand() * n)
            cell = buf[i]
            if mark:
                played[ix(p), ix(cell)] = 1
            n -= 1
            buf[i] = buf[ix(n)]
            bit = 1 << cell
            mine |= bit
            if joins(prm, grow(prm, mine, bit), p):
                return p
            mine, theirs = theirs, mine
            p = 1 - p
        return 2  # cut short by the limit: a draw (DRAWN)

    return SimpleNamespace(legal=legal, apply=apply, rollout=rollout)
