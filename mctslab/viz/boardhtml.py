"""How the play board looks without widgets: its cells, colours and the HTML of a session.

:class:`Cell` is one square as the play board shows it; :func:`session_html` draws a
:class:`~mctslab.viz.session.PlaySession` as HTML (what a saved notebook shows), the board
or, for a game without one, the position in the words the person may read
(:meth:`Drawing.render_for <mctslab.games.hooks.Drawing.render_for>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from ..games.hooks import drawing

__all__ = ["BLOCK_FILL", "BLOCK_LINE", "EVENTS_STYLE", "MARK_COLOUR", "WIN_FILL", "Cell", "heat_colour", "session_html"]


@dataclass(frozen=True)
class Cell:
    """One square of the board as the play board shows it.

    Attributes:
        text: ``"X"``, ``"O"`` or ``""``.
        move: the move played by clicking here (``None`` if that is not a legal move now).
        heat: the share of the agent's last search spent on the move that lands here,
            in [0, 1] (``None`` where it searched nothing).
        last: True on the agent's last move.
        target: True where one of your legal moves lands, marked only when you have fewer
            moves than there are empty cells (the small board you are sent to in Ultimate
            Tic-Tac-Toe, the cell where each column's stone lands in Connect Four).
        won: True on the line that won the game
            (:meth:`~mctslab.games.hooks.Drawing.winning_cells`).
        owner: ``"X"`` or ``"O"`` when the block holding the cell (a local board of Ultimate
            Tic-Tac-Toe) has been won by that player, else ``""``.
    """

    text: str
    move: int | None
    heat: float | None
    last: bool
    target: bool = False
    won: bool = False
    owner: str = ""


MARK_COLOUR = {"X": "#1f4e9c", "O": "#b8460b"}
"""The colour of each player's stones on the boards: blue X, orange O (as in the tree pictures), never a
monospace letter that reads as a zero beside the percentages."""
BLOCK_FILL = {"X": "#d4e4f7", "O": "#fbdcbc"}
"""The background of a block (an Ultimate local board) won by X or O."""
WIN_FILL = "#9ed89a"
"""The background of the cells of the winning line (green)."""
BLOCK_LINE = "3px solid #333333"
"""The line between blocks (Ultimate's local boards)."""
EVENTS_STYLE = "margin:4px 0;color:#555;white-space:pre-line;line-height:1.4"
"""What happened (a line per turn), in grey: ``pre-line`` keeps the lines, 1.4 spaces them as text, not as widgets."""


MARK_COLOUR = {"X": "#1f4e9c", "O": "#b8460b"}
"""The colour of each player's stones on the boards: blue X, orange O (as in the tree pictures), never a
monospace letter that reads as a zero beside the percentages."""
BLOCK_FILL = {"X": "#d4e4f7", "O": "#fbdcbc"}
"""The background of a block (an Ultimate local board) won by X or O."""
WIN_FILL = "#9ed89a"
"""The background of the cells of the winning line (green)."""
BLOCK_LINE = "3px solid #333333"
"""The line between blocks (Ultimate's local boards)."""


def session_html(session: Any) -> str:
    """A :class:`~mctslab.viz.session.PlaySession` as HTML: its board or position in words, events, statistics."""
    game = session.game
    rows = []
    plain = "background:transparent"  # no zebra stripes from the notebook's table style
    labels = drawing(game).column_labels()
    if labels is not None:
        heads = "".join(f'<th style="font-weight:normal;color:#555;text-align:center">{escape(t)}</th>' for t in labels)
        rows.append(f'<tr style="{plain}">{heads}</tr>')
    grid = session.grid()
    for r, row in enumerate(grid):
        tds = "".join(_cell_html(session, r, c, cell) for c, cell in enumerate(row))
        rows.append(f'<tr style="{plain}">{tds}</tr>')
    if grid:
        board = f'<table class="mctslab-board" style="border-collapse:collapse;margin:0">{"".join(rows)}</table>'
    else:
        board = f'<pre class="mctslab-view" style="margin:0">{escape(session.view())}</pre>'
    events = session.events_text() if session.tells_events() else ""
    said = f'<p style="{EVENTS_STYLE}">{escape(events)}</p>' if events else ""
    status = escape(session.status())
    spec = session.agent.spec if session.agent is not None else "(no agent: a puzzle you play alone)"
    stats = f"{escape(spec)}\n{escape(session.stats_table())}"
    return (
        '<div style="display:flex;flex-wrap:wrap;gap:8px 24px;align-items:flex-start">'
        f'<div>{board}{said}<p style="margin:4px 0">{status}</p></div>'
        f'<pre style="white-space:pre;overflow-x:auto;max-width:100%;margin:0">{stats}</pre></div>'
    )


def _cell_html(session: Any, r: int, c: int, cell: Cell) -> str:
    """One ``<td>`` of the HTML board: the stone in its colour, or the heat; the winning line, won blocks."""
    style = ["width:28px", "height:28px", "padding:0", "text-align:center", "border:1px solid #999"]
    style.append("font-family:Helvetica,Arial,sans-serif")
    above, left = session.block_edges(r, c)
    style += ["border-top:" + BLOCK_LINE] if above else []
    style += ["border-left:" + BLOCK_LINE] if left else []
    background = WIN_FILL if cell.won else BLOCK_FILL.get(cell.owner) or (heat_colour(cell.heat) if cell.heat else "")
    style += [f"background:{background}"] if background else []
    if cell.text:
        text = escape(cell.text)
        style += ["font-size:17px", "font-weight:bold", f"color:{MARK_COLOUR.get(cell.text, '#000')}"]
    else:
        text = f"{cell.heat:.0%}" if cell.heat else ""
        style += ["font-size:11px", "color:#444"]
    if cell.target:
        style.append("box-shadow:inset 0 0 0 2px #2e7d32")
    if cell.last:
        style.append("outline:2px solid #c62828;outline-offset:-2px")
    kind = ' class="mctslab-win"' if cell.won else ""
    return f'<td{kind} style="{";".join(style)}">{text}</td>'


def heat_colour(share: float) -> str:
    """A colour from white (0) to deep orange (1) for a share of visits."""
    share = min(max(share, 0.0), 1.0) ** 0.5
    g, b = int(255 - 150 * share), int(255 - 230 * share)
    return f"#ff{g:02x}{b:02x}"
