"""A game between a person and an agent: the logic behind the play board.

:class:`PlaySession` is the game and everything it needs (your move, the agent's reply,
the board as a grid of :class:`Cell`, the agent's visits per move as a heat map), with no
widgets, so it is tested on its own. The game draws its own board and says which move a
click plays (:meth:`Game.board_cells <mctslab.games.base.Game.board_cells>`,
:meth:`~mctslab.games.base.Game.move_cell`, :meth:`~mctslab.games.base.Game.click_move`),
so any game with a board can be played here. It shows itself as an HTML board
(``_repr_html_``), which also reads well in a saved notebook. The widget is
:func:`mctslab.viz.playboard.play_board`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ..agents.base import Agent, Analysis
from ..games.base import Game, IllegalMoveError, State
from .labels import mark

__all__ = ["Cell", "PlaySession", "heat_colour"]


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
            (:meth:`~mctslab.games.hooks.DrawingHooks.winning_cells`).
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


class PlaySession:
    """A game between a person and an agent.

    Args:
        game: a game that draws its board (:meth:`~mctslab.games.base.Game.board_cells`
            is not ``None``): tic-tac-toe, Connect Four, Ultimate Tic-Tac-Toe, Fractio,
            or your own.
        agent: the opponent (any :class:`~mctslab.agents.base.Agent`).
        human: the seat of the person, 0 (moves first, X) or 1 (O). When it is the
            agent's turn (at the start, or after ``opening``), the agent moves at once.
        opening: moves played (for both sides) before the game starts, to set up a
            position; every new game starts from there.

    Attributes:
        state: the position now.
        moves: the moves played so far (the opening included).
        analysis: the agent's :class:`~mctslab.agents.base.Analysis` of its last move, or ``None``.
        searched: the position the agent searched for that move, or ``None``.

    Raises:
        ValueError: for a game without a board, or a seat other than 0 and 1.
    """

    def __init__(self, game: Game, agent: Agent, human: int = 0, opening: Sequence[int] = ()) -> None:
        if game.board_cells(game.initial_state()) is None:
            raise ValueError(
                "the play board draws the games whose board_cells() gives a board (tic-tac-toe, Connect Four, "
                f"Ultimate Tic-Tac-Toe, ...); {game!r} has none: override Game.board_cells and Game.move_cell"
            )
        self.game, self.agent = game, agent
        self.opening = list(opening)
        self.start = game.state_from_moves(self.opening)  # checked: an illegal opening raises here
        self.new_game(human)

    def new_game(self, human: int | None = None) -> None:
        """Start again (optionally in the other seat); the agent moves first if it is its turn."""
        if human is not None:
            if human not in (0, 1):
                raise ValueError(f"human must be 0 (X, moves first) or 1 (O), got {human!r}")
            self.human = human
        self.state: State = self.start
        self.moves: list[int] = list(self.opening)
        self.analysis: Analysis | None = None
        self.searched: State | None = None
        self.agent.reset()
        self.reply()

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.game.is_terminal(self.state)

    def play(self, move: int) -> int | None:
        """Your move, then the agent's reply (if the game goes on); returns the reply or ``None``.

        Raises:
            IllegalMoveError: if the game is over, it is not your turn, or ``move`` is
                not legal (the message lists the legal moves).
        """
        if self.over:
            raise IllegalMoveError(f"the game is over ({self.status()}); start a new game")
        if self.game.to_move(self.state) != self.human:
            raise IllegalMoveError("it is the agent's turn, not yours")
        self.state = self.game.play(self.state, move)
        self.moves.append(move)
        return self.reply()

    def reply(self) -> int | None:
        """The agent moves if it is its turn and the game is not over; returns its move or ``None``."""
        if self.over or self.game.to_move(self.state) == self.human:
            return None
        self.searched = self.state
        self.analysis = self.agent.analyse(self.game, self.state)
        self.state = self.game.play(self.state, self.analysis.move)
        self.moves.append(self.analysis.move)
        return self.analysis.move

    def heat(self) -> dict[int, float]:
        """Move -> share of the agent's last search spent on it (visits or playouts; sums to 1)."""
        if self.analysis is None or not self.analysis.stats:
            return {}
        total = sum(s.visits for s in self.analysis.stats) or 1
        return {s.move: s.visits / total for s in self.analysis.stats}

    def status(self) -> str:
        """Whose turn it is, or how the game ended, in words."""
        you = f"you ({mark(self.game, self.human)})"
        it = f"the agent ({mark(self.game, 1 - self.human)})"
        if self.over:
            winner = self.game.winner(self.state)
            return "draw" if winner is None else f"{you if winner == self.human else it} won"
        return f"{you if self.game.to_move(self.state) == self.human else it} to move"

    def your_turn(self) -> bool:
        """True when the game goes on and it is your move."""
        return not self.over and self.game.to_move(self.state) == self.human

    def targets(self) -> set[tuple[int, int]]:
        """The cells where your legal moves land, when they are fewer than the empty cells (else none).

        In tic-tac-toe every empty cell is a legal move, so nothing needs pointing out;
        in Ultimate Tic-Tac-Toe these are the empty cells of the small board you are sent
        to, and in Connect Four the cell where each column's stone would land.
        """
        if not self.your_turn():
            return set()
        game, state = self.game, self.state
        cells = {game.move_cell(state, m) for m in game.legal_moves(state)} - {None}
        empty = sum(text == "" for row in game.board_cells(state) for text in row)
        return cells if len(cells) < empty else set()

    def hint(self) -> str:
        """What to do now, in words: where to click, or that the game is over."""
        if self.over:
            return "the game is over: click new game to play again"
        if not self.your_turn():
            return ""
        return "click an outlined cell" if self.targets() else "click an empty cell"

    def stats_table(self) -> str:
        """The agent's statistics for its last move, best first, with the moves named by the game.

        The same numbers as :meth:`Analysis.table <mctslab.agents.base.Analysis.table>`
        (Bradberry 2015's printout); moves are written with
        :meth:`~mctslab.games.base.Game.move_text` (``"col 3"``, ``"40 (b4 c4)"``: board 4, cell 4).
        """
        analysis = self.analysis
        if analysis is None:
            return "(the agent has not moved yet)"
        return analysis.table(self.game.move_text)

    def grid(self) -> list[list[Cell]]:
        """The board as rows of :class:`Cell` (top row first), with the heat of the agent's last search.

        A click on a cell plays :meth:`~mctslab.games.base.Game.click_move` (in Connect
        Four, the cell where the next stone of a column lands plays that column). The
        heat of a move, and the agent's last move, are drawn on the move's
        :meth:`~mctslab.games.base.Game.move_cell` in the position the agent searched
        (in Connect Four: where its stone would have landed).
        """
        game, state = self.game, self.state
        yours = self.your_turn()
        targets = self.targets()
        texts = game.board_cells(state)
        searched = self.searched
        won = game.winning_cells(state)
        side, owners = game.board_blocks(), game.block_winners(state)
        heat_at, last_at = {}, None
        if searched is not None:
            for move, share in self.heat().items():
                cell = game.move_cell(searched, move)
                if cell is not None:
                    heat_at[cell] = share
            if self.analysis is not None:
                last_at = game.move_cell(searched, self.analysis.move)
        return [
            [
                Cell(
                    text,
                    game.click_move(state, r, c) if yours else None,
                    heat_at.get((r, c)),
                    last_at == (r, c),
                    (r, c) in targets,
                    (r, c) in won,
                    owners[r // side][c // side] if side and owners else "",
                )
                for c, text in enumerate(row)
            ]
            for r, row in enumerate(texts)
        ]

    def __repr__(self) -> str:
        # A saved notebook shown as text (untrusted, or on GitHub) reads the game, not an address.
        return f"{self.agent.spec} against you: {self.status()}\n{self.game.render(self.state)}"

    def block_edges(self, row: int, col: int) -> tuple[bool, bool]:
        """Whether cell ``(row, col)`` starts a new block (a thick line) above it, and left of it."""
        side = self.game.board_blocks()
        if not side:
            return False, False
        return row > 0 and row % side == 0, col > 0 and col % side == 0

    def _repr_html_(self) -> str:
        rows = []
        plain = "background:transparent"  # no zebra stripes from the notebook's table style
        labels = self.game.column_labels()
        if labels is not None:
            heads = "".join(
                f'<th style="font-weight:normal;color:#555;text-align:center">{escape(t)}</th>' for t in labels
            )
            rows.append(f'<tr style="{plain}">{heads}</tr>')
        for r, row in enumerate(self.grid()):
            tds = "".join(self._cell_html(r, c, cell) for c, cell in enumerate(row))
            rows.append(f'<tr style="{plain}">{tds}</tr>')
        table = f'<table class="mctslab-board" style="border-collapse:collapse;margin:0">{"".join(rows)}</table>'
        status = escape(self.status())
        stats = f"{escape(self.agent.spec)}\n{escape(self.stats_table())}"
        return (
            '<div style="display:flex;flex-wrap:wrap;gap:8px 24px;align-items:flex-start">'
            f'<div>{table}<p style="margin:4px 0">{status}</p></div>'
            f'<pre style="white-space:pre;overflow-x:auto;max-width:100%;margin:0">{stats}</pre></div>'
        )

    def _cell_html(self, r: int, c: int, cell: Cell) -> str:
        """One ``<td>`` of the HTML board: the stone in its colour, or the heat; the winning line, won blocks."""
        style = ["width:28px", "height:28px", "padding:0", "text-align:center", "border:1px solid #999"]
        style.append("font-family:Helvetica,Arial,sans-serif")
        above, left = self.block_edges(r, c)
        style += ["border-top:" + BLOCK_LINE] if above else []
        style += ["border-left:" + BLOCK_LINE] if left else []
        background = (
            WIN_FILL if cell.won else BLOCK_FILL.get(cell.owner) or (heat_colour(cell.heat) if cell.heat else "")
        )
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
