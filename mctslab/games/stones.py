"""What the stone games share: X and O place stones on bitboards and the result is kept.

Tic-tac-toe, Connect Four and Ultimate Tic-Tac-Toe (with Fractio) all keep a state with
(at least) the fields ``x`` and ``o``, the bitboards of each player's stones, and
``result``, the outcome so far (:data:`ONGOING`, :data:`X_WON`, :data:`O_WON` or
:data:`DRAWN`, a function of the stones kept so the search need not recompute it).
X moves first, so the player to move is known from the stone counts alone.
:class:`StoneGame` writes, once for all of them, whose turn it is, how the game ended,
and how the board is drawn.
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

from .base import RESULTS, Game
from .hooks import Drawing, register_drawing
from .network import NetworkEncoding

ONGOING, X_WON, O_WON, DRAWN = -1, 0, 1, 2
"""Values of ``state.result``: still playing, X (player 0) won, O (player 1) won, drawn."""

StoneState = Any
"""A stone game's state: a named tuple with at least the int fields ``x``, ``o`` and ``result``."""


class StoneGame(Game):
    """A game of X and O placing stones on bitboards (see the module docstring).

    Subclasses implement the rest of :class:`~mctslab.games.base.Game` and set
    :attr:`board_bits` (in the constructor, or on the class for a fixed board);
    :meth:`move_bit` says where a move puts its stone (``1 << move`` unless
    overridden, as in Connect Four).

    Attributes:
        board_bits: the board for drawing, as rows (top row first) of one-bit masks:
            ``board_bits[r][c]`` is the bit of the cell in row ``r``, column ``c``.
    """

    board_bits: tuple[tuple[int, ...], ...] = ()

    states_per_placement = 1
    """How many states can hold the same stones (Ultimate Tic-Tac-Toe: 10, for the board the mover is sent to)."""

    def to_move(self, state: StoneState) -> int:
        """0 (X) when both have placed the same number of stones, else 1 (O)."""
        return 0 if state.x.bit_count() == state.o.bit_count() else 1

    def is_terminal(self, state: StoneState) -> bool:
        """True once the game is won or drawn."""
        return state.result != ONGOING

    def winner(self, state: StoneState) -> int | None:
        """0 (X) or 1 (O) if that player has won, else ``None``."""
        return state.result if state.result in (X_WON, O_WON) else None

    def returns(self, state: StoneState) -> tuple[float, float]:
        """Per-player returns of a finished game (1 win, 0.5 draw, 0 loss).

        Raises:
            ValueError: if the game is not over.
        """
        if state.result == ONGOING:
            raise ValueError("returns() needs a finished game; this one is still in progress")
        return RESULTS[self.winner(state)]

    def check_state(self, state: StoneState) -> None:
        """Refuse a state of another game, or one whose stones do not fit this board.

        Checks the state's type, that ``x`` and ``o`` are disjoint sets of this board's
        cells with as many X stones as O stones or one more, and that ``result`` is one
        of the four outcomes. (Cheap enough for every call of :meth:`play`; never called
        inside a search.)

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        x, o, result = state.x, state.o, state.result
        if not all(type(v) is int for v in state):
            self.refuse_state(state, "its fields must be ints")
        board = self._board_mask()
        if x & ~board or o & ~board:
            self.refuse_state(state, "it has stones off this board (a state of a game of another size?)")
        if x & o or not 0 <= x.bit_count() - o.bit_count() <= 1:
            self.refuse_state(state, "X and O must have disjoint stones, X as many as O or one more")
        if result not in (ONGOING, X_WON, O_WON, DRAWN):
            self.refuse_state(state, f"result must be one of {ONGOING}, {X_WON}, {O_WON}, {DRAWN}")

    def position_bound(self, state: StoneState) -> int:
        """An upper bound on the positions reachable from ``state``, from its number of empty cells alone.

        A position ``d`` plies later is a choice of ``d`` of the ``e`` empty cells, and of which
        of them hold the mover's ``ceil(d / 2)`` stones (the players alternate): at most
        ``sum(C(e, d) * C(d, ceil(d / 2)))`` of them, times :attr:`states_per_placement`. The
        rules (gravity, a line that ends the game) only allow fewer. 3 x 3 tic-tac-toe from the
        start: 6,046 (5,478 are reachable).
        """
        empty = (self._board_mask() & ~(state.x | state.o)).bit_count()
        return self.states_per_placement * sum(comb(empty, d) * comb(d, (d + 1) // 2) for d in range(empty + 1))

    def _board_mask(self) -> int:
        """Every cell's bit, from :attr:`board_bits` (built once per game)."""
        mask = self.__dict__.get("_board_mask_bits")
        if mask is None:
            mask = 0
            for row in self.board_bits:
                for bit in row:
                    mask |= bit
            self.__dict__["_board_mask_bits"] = mask
        return mask

    def move_bit(self, state: StoneState, move: int) -> int:
        """The one-bit mask of the cell where ``move`` puts its stone in ``state`` (0 if nowhere)."""
        return 1 << move

    def _cell_of_bit(self) -> dict[int, tuple[int, int]]:
        """One-bit mask -> ``(row, column)`` on the drawn board, built once per game."""
        cells = self.__dict__.get("_cells_by_bit")
        if cells is None:
            cells = {bit: (r, c) for r, row in enumerate(self.board_bits) for c, bit in enumerate(row)}
            self.__dict__["_cells_by_bit"] = cells
        return cells


@register_drawing(StoneGame)
class StoneGameDrawing(Drawing):
    """How StoneGame is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def mark(self, player: int) -> str:
        """``"X"`` for player 0 (moves first), ``"O"`` for player 1."""
        return "XO"[player]

    def board_cells(self, state: StoneState) -> list[list[str]] | None:
        """The board as rows of ``"X"``, ``"O"`` or ``""``, top row first (see :attr:`board_bits`)."""
        x, o = state.x, state.o
        return [["X" if x & bit else "O" if o & bit else "" for bit in row] for row in self.game.board_bits]

    def move_cell(self, state: StoneState, move: int) -> tuple[int, int] | None:
        """``(row, column)`` of the cell where ``move``, played in ``state``, puts its stone."""
        return self.game._cell_of_bit().get(self.game.move_bit(state, move))


class StoneNetwork(NetworkEncoding):
    """The network encoding a stone game may register (tic-tac-toe and Connect Four do): two planes over the board."""

    def features(self, state: StoneState) -> np.ndarray:
        """Two planes over the board (:attr:`board_bits`, row by row): the mover's stones, then the opponent's."""
        mine, theirs = (state.x, state.o) if self.game.to_move(state) == 0 else (state.o, state.x)
        bits = [bit for row in self.game.board_bits for bit in row]
        return np.array([1.0 if mine & b else 0.0 for b in bits] + [1.0 if theirs & b else 0.0 for b in bits])
