"""Words and small pictures for the tree drawings: moves, players, statistics, tiny boards.

One place decides how a move or a node is named, so the graphviz drawing, the text
outline, the step descriptions and the play board all say the same thing.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..agents.uct import Node
from ..games.base import Game
from ..games.connect4 import ConnectFour
from ..games.nim import Nim
from ..games.tictactoe import TicTacToe
from ..games.ultimate import UltimateTicTacToe
from ..ucb import exploration

__all__ = ["board_cells", "mark", "more_text", "move_text", "node_stats", "result_text", "small_board_html"]

CELL = 'FIXEDSIZE="TRUE" WIDTH="16" HEIGHT="16"'
SMALL_BOARD_CELLS = 16
"""Boards with at most this many cells are drawn inside tree nodes by default (3 x 3, 4 x 4)."""


def mark(game: Game | None, player: int) -> str:
    """``"X"`` or ``"O"`` in the games with stones, ``"P0"`` or ``"P1"`` otherwise."""
    if isinstance(game, (TicTacToe, ConnectFour, UltimateTicTacToe)):
        return "XO"[player]
    return f"P{player}"


def move_text(game: Game | None, move: int | None, short: bool = False) -> str:
    """A move as people read it: ``"4"`` (a cell), ``"col 3"``, ``"40 (b4 c4)"``, ``"heap 1 take 2"``.

    With ``short`` (for lists of playout moves): the move number, or ``"1:2"`` in Nim.
    """
    if move is None:
        return "root"
    if isinstance(game, Nim):
        heap, take = game.decode(move)
        return f"{heap}:{take}" if short else f"heap {heap} take {take}"
    if short:
        return str(move)
    if isinstance(game, ConnectFour):
        return f"col {move}"
    if isinstance(game, UltimateTicTacToe):
        board, cell = divmod(move, 9)
        return f"{move} (b{board} c{cell})"
    return str(move)


def more_text(count: int, visits: int) -> str:
    """The summary of children not drawn: ``"+ 31 more (412 visits)"``."""
    return f"+ {count} more ({visits} visit{'' if visits == 1 else 's'})"


def result_text(game: Game | None, playout: Any) -> str:
    """How a :class:`~mctslab.viz.playout.Playout` ended: ``"X wins"``, ``"draw"`` or cut short."""
    if playout.cut:
        return "cut short by max_moves, scored as a draw"
    if playout.returns[0] == playout.returns[1]:
        return "draw"
    return f"{mark(game, 0 if playout.returns[0] > playout.returns[1] else 1)} wins"


def node_stats(node: Node, c: float, *, mean: bool = False, ucb: bool = False) -> list[str]:
    """The statistics lines of a node: ``wins/visits``, then optionally the mean and UCB1's terms.

    ``wins`` counts results for the player who made the node's move (see
    :class:`~mctslab.agents.uct.Node`); at the root only the visits are shown. The UCB1
    terms are those the parent would compute now: ``mean + c sqrt(ln N / n)``.
    """
    if node.parent is None or node.move is None:
        return [f"{node.visits} visits"]
    lines = [f"{node.wins:g}/{node.visits}"]
    if mean and node.visits:
        lines.append(f"mean {node.mean:.2f}")
    if ucb and node.visits:
        bonus = exploration(node.parent.visits, node.visits, c)
        lines.append(f"ucb {node.mean:.2f}+{bonus:.2f}")
    return lines


def board_cells(game: Game | None, state) -> list[list[str]] | None:
    """The board as rows of ``"X"``, ``"O"`` or ``""`` (top row first), for tic-tac-toe and Connect Four.

    Returns ``None`` for the other games (their nodes are labelled by move).
    """
    if isinstance(game, TicTacToe):
        n = game.n
        return [
            ["X" if state.x >> (r * n + c) & 1 else "O" if state.o >> (r * n + c) & 1 else "" for c in range(n)]
            for r in range(n)
        ]
    if isinstance(game, ConnectFour):
        rows = []
        for r in reversed(range(game.rows)):
            bits = [1 << (c * game.height + r) for c in range(game.cols)]
            rows.append(["X" if state.x & b else "O" if state.o & b else "" for b in bits])
        return rows
    return None


def board_cell_of_move(game: Game, move: int) -> tuple[int, int] | None:
    """Row and column (top row 0) of a tic-tac-toe move; ``None`` for other games."""
    if isinstance(game, TicTacToe):
        return divmod(move, game.n)
    return None


def small_board_html(game: Game, state, last_move: int | None = None) -> str | None:
    """A graphviz HTML-like table of the board (the last move in bold), or ``None`` if too big.

    Drawn for boards of at most :data:`SMALL_BOARD_CELLS` cells (3 x 3 and 4 x 4
    tic-tac-toe); bigger boards would make the tree unreadable.
    """
    cells = board_cells(game, state)
    if cells is None or len(cells) * len(cells[0]) > SMALL_BOARD_CELLS:
        return None
    last = board_cell_of_move(game, last_move) if last_move is not None else None
    rows = []
    for r, row in enumerate(cells):
        tds = []
        for c, text in enumerate(row):
            shown = escape(text) if text else " "
            if last == (r, c):
                shown = f"<B>{shown}</B>"
                tds.append(f'<TD {CELL} BGCOLOR="#ffff99">{shown}</TD>')
            else:
                tds.append(f"<TD {CELL}>{shown}</TD>")
        rows.append("<TR>" + "".join(tds) + "</TR>")
    size = f'FIXEDSIZE="TRUE" WIDTH="{16 * len(cells[0])}" HEIGHT="{16 * len(cells)}"'
    return (
        f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="0" COLOR="#999999" {size}>'
        + "".join(rows)
        + "</TABLE>"
    )
