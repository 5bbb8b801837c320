"""Words and small pictures for the tree drawings: moves, players, statistics, tiny boards.

One place decides how a move or a node is named, so the graphviz drawing, the text
outline, the step descriptions and the play board all say the same thing. The words
come from the game itself (:meth:`Game.mark <mctslab.games.base.Game.mark>`,
:meth:`~mctslab.games.base.Game.move_text`, :meth:`~mctslab.games.base.Game.board_cells`...),
so a new game is drawn without a change here.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..agents.rules import SelectionRule, rule_for
from ..agents.uct import Node
from ..games.base import Game

__all__ = ["board_cells", "mark", "more_text", "move_text", "node_stats", "result_text", "small_board_html"]

CELL = 'FIXEDSIZE="TRUE" WIDTH="16" HEIGHT="16"'
SMALL_BOARD_CELLS = 16
"""Boards with at most this many cells are drawn inside tree nodes by default (3 x 3, 4 x 4)."""


def mark(game: Game | None, player: int) -> str:
    """The name of ``player`` (:meth:`Game.mark <mctslab.games.base.Game.mark>`): ``"X"``, ``"O"``, ``"P0"``..."""
    return game.mark(player) if game is not None else f"P{player}"


def move_text(game: Game | None, move: int | None, short: bool = False) -> str:
    """A move as people read it: ``"4"`` (a cell), ``"col 3"``, ``"40 (b4 c4)"``, ``"heap 1 take 2"``.

    With ``short`` (for lists of playout moves): the move number, or ``"1:2"`` in Nim.
    ``"root"`` for ``move=None``. The game decides (:meth:`Game.move_text
    <mctslab.games.base.Game.move_text>`).
    """
    if move is None:
        return "root"
    return game.move_text(move, short) if game is not None else str(move)


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


def node_stats(
    node: Node, c: float, *, mean: bool = False, ucb: bool = False, rule: SelectionRule | None = None
) -> list[str]:
    """The statistics lines of a node: ``wins/visits``, then optionally the mean and the selection rule's terms.

    ``wins`` counts results for the player who made the node's move (see
    :class:`~mctslab.agents.uct.Node`); at the root only the visits are shown. The
    rule's terms (``rule``; by default the rule of the node's variant with ``c``, UCB1's for
    UCT: :func:`~mctslab.agents.rules.rule_for`) are those the parent would compute now,
    ``mean + exploration``, labelled with the rule's name (``"ucb"`` for UCB1).
    """
    if node.parent is None or node.move is None:
        return [f"{node.visits} visits"]
    lines = [f"{node.wins:g}/{node.visits}"]
    if mean and node.visits:
        lines.append(f"mean {node.mean:.2f}")
    if ucb and node.visits:
        rule = rule_for(node, c) if rule is None else rule
        lines.append(f"{rule.label} {node.mean:.2f}+{rule.exploration(node.parent, node):.2f}")
    return lines


def board_cells(game: Game | None, state) -> list[list[str]] | None:
    """The board as rows of ``"X"``, ``"O"`` or ``""`` (top row first), or ``None`` without a board.

    The game decides (:meth:`Game.board_cells <mctslab.games.base.Game.board_cells>`);
    games without a board have their nodes labelled by move.
    """
    return game.board_cells(state) if game is not None else None


def small_board_html(game: Game, state, last_move: int | None = None) -> str | None:
    """A graphviz HTML-like table of the board (the last move in bold), or ``None`` if too big.

    Drawn for boards of at most :data:`SMALL_BOARD_CELLS` cells (3 x 3 and 4 x 4
    tic-tac-toe); bigger boards would make the tree unreadable.
    """
    cells = board_cells(game, state)
    if cells is None or len(cells) * len(cells[0]) > SMALL_BOARD_CELLS:
        return None
    last = game.played_cell(state, last_move) if last_move is not None else None
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
