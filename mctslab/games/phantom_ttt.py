"""Phantom tic-tac-toe, as OpenSpiel's ``phantom_ttt`` (observation type ``reveal-nothing``).

Tic-tac-toe on 3 x 3 cells (moves ``0``-``8``, row-major) where neither player sees the
other's marks. A player may try any cell not known to them to be taken. If the cell is
empty the mark is placed and the turn passes; if the opponent holds it, the attempt
fails, the player learns that the cell is the opponent's, and moves again. Three in a
row wins; a full board is a draw.

A player knows their own view (their marks and the opponent's marks their failed
attempts revealed) and their own attempts in order (:meth:`PhantomTTT.information_state`);
not how many attempts the opponent made. :meth:`PhantomTTT.sample_state` draws the
opponent's unseen marks uniformly among the placements consistent with that knowledge
(right number, no completed line), then builds a history that leads there.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from .base import Game
from .hooks import Drawing, register_drawing
from .registry import register_game

EMPTY, X, O = 0, 1, 2  # noqa: E741 - the marks of the game
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
SYMBOLS = ".XO"
UNKNOWN = "?"


class PhantomState(NamedTuple):
    """A phantom tic-tac-toe position.

    Attributes:
        board: the true board, 9 cells (0 empty, 1 X, 2 O).
        views: what X (player 0) and O (player 1) have seen, 9 cells each, in the same code.
        attempts: every attempt in order, as ``(player, cell)`` pairs (failed ones too).
    """

    board: tuple[int, ...]
    views: tuple[tuple[int, ...], tuple[int, ...]]
    attempts: tuple[tuple[int, int], ...]


def has_line(cells: set[int] | frozenset[int]) -> bool:
    """Whether ``cells`` contain three in a row."""
    return any(a in cells and b in cells and c in cells for a, b, c in LINES)


@register_game(
    "phantom_ttt",
    params=(),
    summary="phantom tic-tac-toe: the opponent's marks are hidden (OpenSpiel's phantom_ttt)",
    test_spec="phantom_ttt",
)
class PhantomTTT(Game):
    """Phantom tic-tac-toe for two players, X (player 0) first (see the module docstring)."""

    perfect_information = False

    def initial_state(self) -> PhantomState:
        empty = (EMPTY,) * 9
        return PhantomState(empty, (empty, empty), ())

    def check_state(self, state: PhantomState) -> None:
        super().check_state(state)
        if len(state.board) != 9 or len(state.views) != 2 or any(len(v) != 9 for v in state.views):
            self.refuse_state(state, "board and both views have 9 cells")
        if state != self.replay(state.attempts):
            self.refuse_state(state, "board and views must be those its attempts lead to")

    def replay(self, attempts: tuple[tuple[int, int], ...]) -> PhantomState:
        """The state the attempts ``((player, cell), ...)`` lead to from the start, as :meth:`apply` builds it."""
        state = self.initial_state()
        for _, cell in attempts:
            state = self.apply(state, cell)
        return state

    def to_move(self, state: PhantomState) -> int:
        marks = sum(c != EMPTY for c in state.board)
        return marks % 2

    def legal_moves(self, state: PhantomState) -> tuple[int, ...]:
        if self.is_terminal(state):
            return ()
        view = state.views[self.to_move(state)]
        return tuple(cell for cell in range(9) if view[cell] == EMPTY)

    def apply(self, state: PhantomState, move: int) -> PhantomState:
        player = self.to_move(state)
        board = state.board
        if board[move] == EMPTY:
            board = (*board[:move], player + 1, *board[move + 1 :])
        view = state.views[player]
        view = (*view[:move], board[move], *view[move + 1 :])
        views = (view, state.views[1]) if player == 0 else (state.views[0], view)
        return PhantomState(board, views, (*state.attempts, (player, move)))

    def _winner(self, board: tuple[int, ...]) -> int | None:
        for a, b, c in LINES:
            if board[a] != EMPTY and board[a] == board[b] == board[c]:
                return board[a] - 1
        return None

    def is_terminal(self, state: PhantomState) -> bool:
        return self._winner(state.board) is not None or EMPTY not in state.board

    def winner(self, state: PhantomState) -> int | None:
        return self._winner(state.board)

    def information_state(self, state: PhantomState, player: int) -> tuple:
        """``(player's view, player's own attempts in order)``."""
        own = tuple(cell for p, cell in state.attempts if p == player)
        return (state.views[player], own)

    def sample_state(self, state: PhantomState, player: int, rng: random.Random) -> PhantomState:
        """A state with the same view and attempts for ``player``, the opponent's unseen marks drawn.

        The opponent's marks: those ``player`` has seen, plus the right number of others
        drawn uniformly from the cells ``player`` has not seen, redrawn while they make a
        line (the game would be over). The history: ``player``'s attempts as they were,
        the opponent's placements between them (no failed attempts), the seen marks
        first, each before the attempt that revealed it.
        """
        if self.is_terminal(state):
            return state
        other = 1 - player
        view = state.views[player]
        own = [cell for p, cell in state.attempts if p == player]
        mine = sum(c == player + 1 for c in view)
        count = mine + player if self.to_move(state) == player else mine + player - 1
        seen = [cell for cell in range(9) if view[cell] == other + 1]
        unseen = [cell for cell in range(9) if view[cell] == EMPTY]
        while True:
            drawn = rng.sample(unseen, count - len(seen))
            if not has_line(frozenset(seen + drawn)):
                break
        order = self._schedule(own, state.board, player, seen) + drawn
        return self.replay(self._interleave(own, order, player))

    def _schedule(self, own: list[int], board: tuple[int, ...], player: int, seen: list[int]) -> list[int]:
        """The seen opponent marks in an order that places each before the attempt that revealed it."""
        deadline, placed = {}, 0
        for cell in own:
            if board[cell] == player + 1:
                placed += 1
            elif cell not in deadline:
                deadline[cell] = placed + player  # opponent placements made before this attempt
        return sorted(seen, key=lambda cell: deadline[cell])

    def _interleave(self, own: list[int], order: list[int], player: int) -> tuple[tuple[int, int], ...]:
        """``player``'s attempts with the opponent's placements ``order`` after each of their own placements."""
        queue, attempts, placed = list(order), [], 0
        mine = set()
        if player == 1 and queue:
            attempts.append((0, queue.pop(0)))
        for cell in own:
            attempts.append((player, cell))
            if cell not in order and cell not in mine:  # a placement, not a failed attempt
                mine.add(cell)
                placed += 1
                if queue:
                    attempts.append((1 - player, queue.pop(0)))
        return tuple(attempts)

    def render(self, state: PhantomState) -> str:
        rows = ["".join(SYMBOLS[state.board[3 * r + c]] for c in range(3)) for r in range(3)]
        seen = [self.render_view(state, p).split("\n") for p in (0, 1)]
        lines = [f"{rows[r]}   X sees {seen[0][r]}   O sees {seen[1][r]}" for r in range(3)]
        return "\n".join(lines)

    def render_view(self, state: PhantomState, player: int) -> str:
        """The board as ``player`` knows it: own marks, revealed opponent marks, ``.`` elsewhere."""
        view = state.views[player]
        return "\n".join("".join(SYMBOLS[view[3 * r + c]] for c in range(3)) for r in range(3))


@register_drawing(PhantomTTT)
class PhantomTTTDrawing(Drawing):
    """How PhantomTTT is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def mark(self, player: int) -> str:
        return "XO"[player]

    def render_for(self, state: PhantomState, player: int) -> str:
        """What ``player`` sees: their marks and the opponent marks their failed tries revealed, never the others."""
        me, other = self.mark(player), self.mark(1 - player)
        revealed = sum(cell == 2 - player for cell in state.views[player])
        hidden = sum(cell == 2 - player for cell in state.board) - revealed
        lines = [
            f"you are {me}; you see your marks and the {other}s your tries found ({revealed} found, {hidden} hidden):",
            self.game.render_view(state, player),
        ]
        if not self.game.is_terminal(state) and self.game.to_move(state) == player:
            lines.append(f"try a cell: if an {other} is hidden there, you see it and try again")
        return "\n".join(lines)

    def move_result_text(self, state: PhantomState, move: int) -> str:
        """A failed try says so: ``" (an O was there: try again)"``; a placement says nothing more."""
        taken = state.board[move]
        return "" if taken == EMPTY else f" (an {self.mark(taken - 1)} was there: try again)"

    def board_cells(self, state: PhantomState) -> list[list[str]]:
        """The true board, both players' marks (tree pictures, and the play board once the game is over)."""
        return [[["", "X", "O"][state.board[3 * r + c]] for c in range(3)] for r in range(3)]

    def board_cells_for(self, state: PhantomState, player: int) -> list[list[str]]:
        """The board as ``player`` knows it: their marks and the revealed opponent marks only."""
        view = state.views[player]
        return [[["", "X", "O"][view[3 * r + c]] for c in range(3)] for r in range(3)]

    def move_cell(self, state: PhantomState, move: int) -> tuple[int, int]:
        """The cell ``move`` tries: ``(row, column)``."""
        return divmod(move, 3)

    def winning_cells(self, state: PhantomState) -> set[tuple[int, int]]:
        """The winner's line(s) on the true board (empty while nobody has won)."""
        winner = self.game._winner(state.board)
        if winner is None:
            return set()
        return {divmod(i, 3) for line in LINES if all(state.board[i] == winner + 1 for i in line) for i in line}
