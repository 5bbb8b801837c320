"""Ultimate tic-tac-toe, and Fractio (the variant where one small board wins).

Nine local 3 x 3 boards sit in a 3 x 3 *macro* board. Boards and cells are both
numbered row-major 0 to 8, and a move is ``9 * board + cell``. Playing in cell ``c``
sends the opponent to local board ``c``; if that board is already decided (won, or
full), the opponent may play in any cell of any undecided board. Nobody plays in a
decided board.

* :class:`UltimateTicTacToe` (spec ``"uttt"``): three won local boards in a row on
  the macro board win; when no legal move is left without that, it is a draw.
* :class:`Fractio` (spec ``"fractio"``, mode 1): winning any one local board wins
  the game at once, so the only decided boards are full ones.

The state is an :class:`UltimateState`: two 81-bit boards (bit ``9 * board + cell``),
9-bit masks of the boards each player has won and of the decided boards, the board
the player to move is sent to (``-1`` for anywhere), and the result. Every 9-bit
question (is this local board won? which cells are empty?) is a lookup in a table
of 512 entries.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import cache, lru_cache
from math import floor
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from .base import DRAW, RESULTS
from .check_positions import result_fault
from .compiled import CompiledEncoding, CompiledGame, register_compiled
from .hooks import register_drawing
from .registry import register_game
from .stones import DRAWN, O_WON, ONGOING, X_WON, StoneGame, StoneGameDrawing

ANYWHERE = -1
"""Value of :attr:`UltimateState.forced` when the player to move may pick any undecided board."""

LINES = (0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124)
"""The 8 lines of a 3 x 3 board as 9-bit masks (rows, columns, diagonals), row-major bits."""

FULL = 0o777
WINS = tuple(any(m & line == line for line in LINES) for m in range(512))
"""``WINS[m]``: does the 9-bit set ``m`` contain a line?"""

SHIFTS = tuple(range(0, 81, 9))
"""``SHIFTS[b]``: the bit offset of local board ``b`` in an 81-bit board."""

EMPTY_CELLS = tuple(tuple(c for c in range(9) if not m >> c & 1) for m in range(512))
"""``EMPTY_CELLS[m]``: the indices 0..8 not in the 9-bit set ``m``, ascending."""

BOARD_MOVES = tuple(tuple(tuple(9 * b + c for c in EMPTY_CELLS[m]) for m in range(512)) for b in range(9))
"""``BOARD_MOVES[b][m]``: the moves into local board ``b`` when its occupied cells are ``m``, ascending."""

# Heuristic weights for evaluate(): a won local board, a macro line per won board
# (squared), a local line per stone (squared), and the squashing scale.
W_BOARD, W_MACRO, W_LOCAL, SCALE = 6, 4, 1, 40


def _move_at(row: int, col: int) -> int:
    """The move ``9 * board + cell`` of row ``row`` and column ``col`` (0..8) of the 9 x 9 grid."""
    return 9 * (3 * (row // 3) + col // 3) + 3 * (row % 3) + col % 3


class UltimateState(NamedTuple):
    """An ultimate tic-tac-toe (or Fractio) position.

    Attributes:
        x: X's stones (player 0, moves first); bit ``9 * board + cell``.
        o: O's stones (player 1).
        x_won: 9-bit mask of the local boards X has won (bit ``board``).
        o_won: 9-bit mask of the local boards O has won.
        decided: 9-bit mask of the local boards closed to play (won or full).
        forced: the local board the player to move must play in, or -1 (anywhere);
            part of the position, since the same stones with a different target
            board are a different game. -1 once the game is over.
        result: -1 while playing, 0 if X has won, 1 if O has won, 2 for a draw.

    All fields but ``forced`` are functions of ``x`` and ``o``, kept so that the
    search need not recompute them; equal positions are equal tuples.
    """

    x: int
    o: int
    x_won: int
    o_won: int
    decided: int
    forced: int
    result: int


def _union(masks: Iterable[int]) -> int:
    """The bits set in any of ``masks``."""
    out = 0
    for mask in masks:
        out |= mask
    return out


@cache
def compiled_rules() -> SimpleNamespace:
    """Ultimate tic-tac-toe's (and Fractio's) compiled rules (see :mod:`mctslab.games.compiled`; needs Numba).

    ``st[2 + b]`` X's stones on local board ``b`` (9 bits), ``st[11 + b]`` O's, ``st[20]`` boards X
    won, ``st[21]`` boards O won, ``st[22]`` decided boards, ``st[23]`` the board the mover is sent
    to (-1: anywhere); ``prm = (local win ends game,)``; ``tab[0, m]`` 1 when the 9-bit set ``m``
    holds a line, ``tab[1, m]`` its number of cells, ``tab[2 + i, m]`` its i-th cell (ascending).
    """
    from ._jit import ix, njit, rand

    @njit(inline="always")
    def apply(prm, tab, st, move):
        p = st[1]
        board = move // 9
        cell = move - 9 * board
        k = 2 + 9 * p + board
        st[k] |= 1 << cell
        if tab[0, st[k]]:
            st[20 + p] |= 1 << board
            st[22] |= 1 << board
            if prm[0] or tab[0, st[20 + p]]:
                st[0] = p
        if st[2 + board] | st[11 + board] == 511:
            st[22] |= 1 << board
        st[1] = 1 - p
        if st[0] != ONGOING:
            st[23] = -1
        elif st[22] == 511:
            st[0] = DRAWN
            st[23] = -1
        elif (st[22] >> cell) & 1:
            st[23] = -1
        else:
            st[23] = cell

    @njit(inline="always")
    def legal(prm, tab, st, out):
        n = 0
        forced = st[23]
        for board in range(9):
            if (forced >= 0 and board != forced) or (st[22] >> board) & 1:
                continue
            occupied = st[2 + board] | st[11 + board]
            for cell in range(9):
                if not (occupied >> cell) & 1:
                    out[n] = 9 * board + cell
                    n += 1
        return n

    @njit(inline="always")
    def rollout(prm, tab, st, buf, limit, played, mark):
        # The move is drawn without listing the legal moves: tab[1, m] counts the cells of the
        # 9-bit set m, tab[2 + i, m] is its i-th cell; "anywhere" walks the open boards in order,
        # so the i-th legal move in ascending order is drawn, each with probability 1 / n.
        steps = 0
        while st[0] == ONGOING:
            if steps >= limit:
                return DRAWN
            board = st[23]
            if board >= 0:
                free = 511 & ~(st[ix(2 + board)] | st[ix(11 + board)])
                i = int(rand() * tab[1, ix(free)])
            else:
                total = 0
                for b in range(9):
                    if not (st[22] >> b) & 1:
                        total += tab[1, ix(511 & ~(st[ix(2 + b)] | st[ix(11 + b)]))]
                i = int(rand() * total)
                free = 0
                for b in range(9):
                    if not (st[22] >> b) & 1:
                        free = 511 & ~(st[ix(2 + b)] | st[ix(11 + b)])
                        if i < tab[1, ix(free)]:
                            board = b
                            break
                        i -= tab[1, ix(free)]
            # apply(prm, tab, st, 9 * board + cell) written out: even inlined, a helper taking arrays leaves calls
            # to Numba's reference counting (no-ops on borrowed views) around it, and Ultimate's playouts run 15% slower
            cell = tab[ix(2 + i), ix(free)]
            p = st[1]
            if mark:
                played[ix(p), ix(9 * board + cell)] = 1
            k = ix(2 + 9 * p + board)
            st[k] |= 1 << cell
            if tab[0, ix(st[k])]:
                st[ix(20 + p)] |= 1 << board
                st[22] |= 1 << board
                if prm[0] or tab[0, ix(st[ix(20 + p)])]:
                    st[0] = p
            if st[ix(2 + board)] | st[ix(11 + board)] == 511:
                st[22] |= 1 << board
            st[1] = 1 - p
            if st[0] != ONGOING:
                st[23] = -1
            elif st[22] == 511:
                st[0] = DRAWN
                st[23] = -1
            elif (st[22] >> cell) & 1:
                st[23] = -1
            else:
                st[23] = cell
            steps += 1
        return st[0]

    return SimpleNamespace(legal=legal, apply=apply, rollout=rollout)


@lru_cache(maxsize=2)
def compiled_game(local_win_ends_game: bool) -> CompiledGame:
    """The :class:`~mctslab.games.compiled.CompiledGame` of Ultimate tic-tac-toe (Fractio: ``local_win_ends_game``)."""
    cells = [[c for c in range(9) if m >> c & 1] for m in range(512)]
    tab = np.full((11, 512), -1, dtype=np.int64)
    tab[0] = WINS
    tab[1] = [len(c) for c in cells]
    for m, c in enumerate(cells):
        tab[2 : 2 + len(c), m] = c
    prm = np.array([int(local_win_ends_game)], dtype=np.int64)
    return CompiledGame(compiled_rules, prm, tab, fields=24, max_moves=81, max_plies=81)


@register_game("uttt", params=(), summary="ultimate tic-tac-toe: win three local boards in a row", test_spec="uttt")
class UltimateTicTacToe(StoneGame):
    """Ultimate tic-tac-toe: win three local boards in a row.

    Players: 0 is X and moves first (anywhere), 1 is O. A move is
    ``9 * board + cell`` with ``board`` and ``cell`` row-major 0..8; for example 40
    is the centre cell of the centre board. See the module docstring for the rules.
    """

    local_win_ends_game = False
    """True in Fractio: the first local board won wins the game."""

    rollout_order = "ordered"  # rollout() picks among the legal moves in ascending order

    board_bits = tuple(tuple(1 << _move_at(r, c) for c in range(9)) for r in range(9))
    states_per_placement = 10  # the board the mover is sent to (forced): one of 9, or anywhere
    """The 9 x 9 grid of cells, top row first: local boards and their cells, both row-major."""

    def __init__(self) -> None:
        self._initial = UltimateState(0, 0, 0, 0, 0, ANYWHERE, ONGOING)

    def initial_state(self) -> UltimateState:
        """All 81 cells empty, X to move, anywhere."""
        return self._initial

    def legal_moves(self, state: UltimateState) -> tuple[int, ...]:
        """The empty cells of the target board (or of every undecided board), ascending."""
        x, o, _, _, decided, forced, result = state
        if result != ONGOING:
            return ()
        occupied = x | o
        if forced != ANYWHERE:
            return BOARD_MOVES[forced][occupied >> SHIFTS[forced] & FULL]
        return tuple(
            move for b in range(9) if not decided >> b & 1 for move in BOARD_MOVES[b][occupied >> SHIFTS[b] & FULL]
        )

    def apply(self, state: UltimateState, move: int) -> UltimateState:
        """Place the mover's stone on ``move = 9 * board + cell`` (unchecked; see :meth:`Game.play`)."""
        x, o, x_won, o_won, decided, _, result = state
        board, cell = divmod(move, 9)
        shift = 9 * board
        board_bit = 1 << board
        if x.bit_count() == o.bit_count():
            x |= 1 << move
            if WINS[x >> shift & FULL]:
                x_won |= board_bit
                decided |= board_bit
                if self.local_win_ends_game or WINS[x_won]:
                    result = X_WON
        else:
            o |= 1 << move
            if WINS[o >> shift & FULL]:
                o_won |= board_bit
                decided |= board_bit
                if self.local_win_ends_game or WINS[o_won]:
                    result = O_WON
        if (x | o) >> shift & FULL == FULL:
            decided |= board_bit
        if result != ONGOING:
            return UltimateState(x, o, x_won, o_won, decided, ANYWHERE, result)
        if decided == FULL:
            return UltimateState(x, o, x_won, o_won, decided, ANYWHERE, DRAWN)
        forced = ANYWHERE if decided >> cell & 1 else cell
        return UltimateState(x, o, x_won, o_won, decided, forced, ONGOING)

    def check_state(self, state: UltimateState) -> None:
        """Refuse a state of another game (see :meth:`StoneGame.check_state`), or one no game reaches.

        ``x_won``, ``o_won`` and ``decided`` must be those of the stones, ``result`` the
        one they say, and ``forced`` -1 or a local board still open.

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        x, o, x_won, o_won, decided, forced, result = state
        if (x_won | o_won | decided) & ~FULL or not ANYWHERE <= forced <= 8:
            self.refuse_state(state, "x_won, o_won and decided are 9-bit masks and forced is -1 to 8")
        if self.local_win_ends_game and result == ONGOING and (x_won or o_won):
            self.refuse_state(state, "in Fractio the first local board won ends the game")
        boards = [(x >> shift & FULL, o >> shift & FULL) for shift in SHIFTS]
        if x_won != sum(WINS[xb] << b for b, (xb, _) in enumerate(boards)) or o_won != sum(
            WINS[ob] << b for b, (_, ob) in enumerate(boards)
        ):
            self.refuse_state(state, "x_won and o_won must be the local boards where X and O have a line")
        if x_won & o_won:
            self.refuse_state(state, "a local board cannot be won by both X and O")
        if decided != x_won | o_won | sum((xb | ob == FULL) << b for b, (xb, ob) in enumerate(boards)):
            self.refuse_state(state, "decided must be the local boards won or full")
        macro = (bool(x_won), bool(o_won)) if self.local_win_ends_game else (WINS[x_won], WINS[o_won])
        fault = result_fault(*macro, x, o, result, decided == FULL)
        if fault is not None:
            self.refuse_state(state, fault)
        if forced != ANYWHERE and (result != ONGOING or decided >> forced & 1):
            self.refuse_state(state, f"forced is board {forced}, which is decided (or the game is over): it must be -1")

    def rollout(self, state: UltimateState, rng: random.Random, max_moves: int | None = None) -> tuple[float, float]:
        """A uniformly random playout (same distribution as :meth:`Game.rollout`).

        Works on nine 9-bit boards per player and a list of empty cells per open
        local board (emptied when the board is decided), so the target board's
        moves are ``empties[cell]`` and "anywhere" is a walk over the lists.
        """
        x, o, x_won, o_won, decided, forced, result = state
        if result != ONGOING:
            return RESULTS[result] if result != DRAWN else DRAW
        occupied = x | o
        x_boards, o_boards, empties = [], [], []
        for shift in SHIFTS:
            x_boards.append(x >> shift & FULL)
            o_boards.append(o >> shift & FULL)
            empties.append(list(EMPTY_CELLS[occupied >> shift & FULL]))
        total = 81 - occupied.bit_count()  # legal moves when free to play anywhere
        if decided:
            for board in range(9):
                if decided >> board & 1:
                    total -= len(empties[board])
                    empties[board] = []
        boards = (x_boards, o_boards)
        won = [x_won, o_won]
        player = 0 if x.bit_count() == o.bit_count() else 1
        local_win_ends_game = self.local_win_ends_game
        wins = WINS
        rand = rng.random
        board = forced
        cells = empties[board] if board != ANYWHERE else None  # the target board's moves
        for _ in range(81 if max_moves is None else max_moves):
            if cells:
                i = floor(rand() * len(cells))
            else:  # anywhere: the i-th of all open cells, board by board
                i = floor(rand() * total)
                for board, cells in enumerate(empties):  # noqa: B007 (both kept after the break)
                    if i < len(cells):
                        break
                    i -= len(cells)
            cell = cells.pop(i)
            total -= 1
            mine = boards[player]
            bits = mine[board] | (1 << cell)
            mine[board] = bits
            if wins[bits]:
                if local_win_ends_game:
                    return RESULTS[player]
                macro = won[player] | (1 << board)
                if wins[macro]:
                    return RESULTS[player]
                won[player] = macro
                total -= len(cells)
                cells.clear()
            if not total:
                return DRAW
            board = cell  # the opponent is sent to board `cell`
            cells = empties[board]
            player ^= 1
        return DRAW

    def evaluate(self, state: UltimateState, player: int) -> float:
        """Heuristic in (0.05, 0.95): won local boards, open macro lines, open local lines.

        Counts, for each player, ``W_BOARD`` per local board won, ``W_MACRO * n**2``
        per macro line holding ``n`` of their boards and none of the opponent's or
        drawn ones (not in Fractio, where there are no macro lines), and
        ``W_LOCAL * n**2`` per line of an undecided local board holding ``n`` of
        their stones and none of the opponent's. The difference ``s`` is squashed
        as ``0.5 + 0.45 * s / (|s| + SCALE)``. A finished game gives its exact return.
        """
        if state.result != ONGOING:
            return self.returns(state)[player]
        x, o, x_won, o_won, decided, _, _ = state
        mine, theirs = (x, o) if player == 0 else (o, x)
        my_won, their_won = (x_won, o_won) if player == 0 else (o_won, x_won)
        score = W_BOARD * (my_won.bit_count() - their_won.bit_count())
        if not self.local_win_ends_game:
            drawn = decided & ~(x_won | o_won)
            for line in LINES:
                if not line & (their_won | drawn):
                    score += W_MACRO * (line & my_won).bit_count() ** 2
                if not line & (my_won | drawn):
                    score -= W_MACRO * (line & their_won).bit_count() ** 2
        for b in range(9):
            if decided >> b & 1:
                continue
            m, t = mine >> (9 * b) & FULL, theirs >> (9 * b) & FULL
            for line in LINES:
                if not line & t:
                    score += W_LOCAL * (line & m).bit_count() ** 2
                elif not line & m:
                    score -= W_LOCAL * (line & t).bit_count() ** 2
        return 0.5 + 0.45 * score / (abs(score) + SCALE)

    def render(self, state: UltimateState) -> str:
        """The 9 x 9 grid (``X``, ``O``, ``.``) with lines between local boards, then the macro board.

        In the macro board, ``X`` or ``O`` marks a local board won, ``-`` a full
        board nobody won, ``.`` an open one, and ``*`` the board the player to
        move is sent to.
        """
        x, o, x_won, o_won, decided, forced, result = state
        lines = []
        for row in range(9):
            if row and row % 3 == 0:
                lines.append("------+-------+------")
            parts = []
            for board_col in range(3):
                board = 3 * (row // 3) + board_col
                cells = []
                for col in range(3):
                    bit = 1 << (9 * board + 3 * (row % 3) + col)
                    cells.append("X" if x & bit else "O" if o & bit else ".")
                parts.append(" ".join(cells))
            lines.append(" | ".join(parts))
        lines.append("")
        lines.append("boards won:")
        for r in range(3):
            marks = []
            for board in range(3 * r, 3 * r + 3):
                bit = 1 << board
                if x_won & bit:
                    marks.append("X")
                elif o_won & bit:
                    marks.append("O")
                elif decided & bit:
                    marks.append("-")
                else:
                    marks.append("*" if board == forced else ".")
            lines.append(" ".join(marks))
        if result == ONGOING:
            who = "X" if x.bit_count() == o.bit_count() else "O"
            where = "any open board" if forced == ANYWHERE else f"board {forced}"
            lines.append(f"{who} to move in {where}")
        else:
            lines.append("draw" if result == DRAWN else f"{'XO'[result]} wins")
        return "\n".join(lines)


@register_compiled(UltimateTicTacToe)
class UltimateTicTacToeCompiled(CompiledEncoding):
    """UltimateTicTacToe's compiled rules for :mod:`mctslab.engine` (:mod:`mctslab.games.compiled`)."""

    def compiled(self) -> CompiledGame | None:
        """The compiled rules for :mod:`mctslab.engine`."""
        return compiled_game(self.game.local_win_ends_game)

    def compiled_state(self, state: UltimateState) -> tuple[int, ...]:
        """``(result, player to move)``, X's nine 9-bit boards, O's, boards won by X, by O, decided, forced."""
        x, o, x_won, o_won, decided, forced, result = state
        return (
            (result, self.game.to_move(state))
            + tuple(x >> shift & FULL for shift in SHIFTS)
            + tuple(o >> shift & FULL for shift in SHIFTS)
            + (x_won, o_won, decided, forced)
        )


@register_drawing(UltimateTicTacToe)
class UltimateTicTacToeDrawing(StoneGameDrawing):
    """How UltimateTicTacToe is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """``"40 (b4 c4)"``: the move, its local board and its cell; short: ``"40"``."""
        if short:
            return str(move)
        board, cell = divmod(move, 9)
        return f"{move} (b{board} c{cell})"

    def board_blocks(self) -> int:
        """3: the local boards, 3 x 3 cells each."""
        return 3

    def block_winners(self, state: UltimateState) -> list[list[str]]:
        """Rows of the macro board: ``"X"`` or ``"O"`` on a local board won, ``""`` elsewhere."""
        return [
            ["X" if state.x_won >> b & 1 else "O" if state.o_won >> b & 1 else "" for b in range(r, r + 3)]
            for r in (0, 3, 6)
        ]

    def winning_cells(self, state: UltimateState) -> set[tuple[int, int]]:
        """The local lines that won the local boards that won the game; empty while nobody has won.

        Ultimate: the boards of the winner's macro line(s); Fractio: the one board won.
        """
        if state.result not in (X_WON, O_WON):
            return set()
        stones, won = (state.x, state.x_won) if state.result == X_WON else (state.o, state.o_won)
        boards = won if self.game.local_win_ends_game else _union(line for line in LINES if won & line == line)
        cells = self.game._cell_of_bit()
        out = set()
        for b in range(9):
            if boards >> b & 1:
                local = stones >> SHIFTS[b] & FULL
                mask = _union(line for line in LINES if local & line == line) << SHIFTS[b]
                out |= {cell for bit, cell in cells.items() if mask & bit}
        return out


@register_game(
    "fractio",
    params=(),
    summary="Fractio (mode 1): ultimate tic-tac-toe where one local board wins",
    test_spec="fractio",
)
class Fractio(UltimateTicTacToe):
    """Fractio, mode 1: ultimate tic-tac-toe where winning any one local board wins the game.

    Same board, moves and sending rule as :class:`UltimateTicTacToe`; sent to a full
    local board, the player may play in any cell of any board that is not full. If
    all 81 cells fill without a local win (practically impossible), it is a draw.
    """

    local_win_ends_game = True
