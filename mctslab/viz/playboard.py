"""Play against an agent in a notebook, and see what it thought: the play board.

:func:`play_board` wires a :class:`~mctslab.viz.session.PlaySession` (all the logic) to
ipywidgets: one button per cell, a new-game button, the seat you play, and the agent's
statistics beside the board; the cells show its visits per move as a heat map. A game
without a board is shown in words (what your seat may see) with one button per legal move;
chance moves and hidden information are the session's (see :mod:`mctslab.viz.session`).

Schneider 2017's observation is the point: with a small budget the agent makes mistakes
you can see (a missed block, a missed win); with a large one it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ..agents.base import Agent
from ..games.base import Game
from ..games.hooks import drawing
from .boardhtml import EVENTS_STYLE
from .labels import mark
from .session import BLOCK_FILL, BLOCK_LINE, MARK_COLOUR, WIN_FILL, Cell, PlaySession, heat_colour

__all__ = ["BLANK", "PlayBoardWidget", "play_board"]

BLANK = "\u00a0"
"""The text of an empty cell's button: a no-break space, because the browser keeps a
button's old text when its description is set to ``""`` (the last game's X and O would stay)."""

TARGET_BORDER = "2px solid #2e7d32"
"""The outline of the cells where your legal moves land (see :meth:`PlaySession.targets`)."""


class PlayBoardWidget:
    """The widget of :func:`play_board`; its controls are attributes, so code (and tests) can drive it.

    Attributes:
        session: the :class:`PlaySession` behind it.
        buttons: one ``Button`` per cell, as rows (top row first); none for a game without a board.
        choices: an ``HBox`` of one ``Button`` per legal move of yours (a game without a board).
        view: an ``HTML`` widget: the position in words as you may see it, and what just happened.
        seat, new: choose your seat (a new game starts at once in it), start a new game.
        status, stats: ``HTML`` widgets: whose turn / the result, and the agent's statistics.
        box: the ``ipywidgets.VBox`` displayed.
    """

    def __init__(self, session: PlaySession) -> None:
        import ipywidgets as w

        self.session = session
        grid = session.grid()
        self.size = size = 28 if len(grid) > 6 else 40
        self.buttons = []
        for r, row in enumerate(grid):
            line = []
            for c in range(len(row)):
                button = w.Button(
                    description=BLANK, layout=w.Layout(width=f"{size}px", height=f"{size}px", padding="0")
                )
                button.on_click(lambda _, r=r, c=c: self.click(r, c))
                line.append(button)
            self.buttons.append(line)
        labels = drawing(session.game).column_labels()
        heads = [
            w.HTML(f"<center>{escape(t)}</center>", layout=w.Layout(width=f"{size}px", margin="0"))
            for t in labels or []
        ]
        # Rows and columns of fixed size: the board keeps its shape whatever stands beside it.
        board = w.GridBox(
            heads + [b for line in self.buttons for b in line],
            layout=w.Layout(
                grid_template_columns=f"repeat({len(grid[0]) if grid else 1}, {size}px)",
                grid_template_rows=("auto " if heads else "") + f"repeat({len(grid)}, {size}px)",
                grid_gap="2px",
                width="max-content",
                height="max-content",
            ),
        )
        self.choices = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.view = w.HTML()
        game = session.game
        seats = [(f"you play {mark(game, p)}", p) for p in range(game.num_players)]
        self.seat = w.ToggleButtons(options=seats, value=session.human)
        self.seat.layout.display = "none" if len(seats) == 1 else None
        self.seat.observe(lambda _: self.restart(), names="value")
        self.new = w.Button(description="new game")
        self.new.on_click(lambda _: self.restart())
        self.status = w.HTML()
        self.stats = w.HTML()
        # The statistics sit beside the board, or under it when the notebook is narrow (never wrapped mid-number).
        shown = board if self.buttons else w.VBox([self.view, self.choices])
        beside = w.HBox(
            [shown, self.stats], layout=w.Layout(flex_flow="row wrap", align_items="flex-start", grid_gap="8px 24px")
        )
        # The events (dice rolled, hidden moves) of a board game sit above the status, which stays last.
        self.box = w.VBox([w.HBox([self.seat, self.new]), beside, *([self.view] if self.buttons else []), self.status])
        self._w = w
        self.refresh()

    def click(self, row: int, col: int) -> None:
        """What clicking the cell at ``(row, col)`` does: your move there, then the agent's reply."""
        session = self.session
        if session.over:
            self.refresh(note="the game is over: click new game to play again")
            return
        move = session.grid()[row][col].move
        if move is None:
            where = "an outlined cell" if session.targets() else "an empty cell"
            self.refresh(note=f"not a legal move for you there: click {where}")
            return
        session.play(move)
        self.refresh()

    def choose(self, move: int) -> None:
        """What clicking the button of ``move`` does (a game without a board): your move, then the replies."""
        if not self.session.your_turn():
            self.refresh(note="the game is over: click new game to play again")
            return
        self.session.play(move)
        self.refresh()

    def restart(self) -> None:
        """A new game, in the seat chosen (the agent moves first when you play O)."""
        self.session.new_game(self.seat.value)
        self.refresh(note=f"new game: you play {mark(self.session.game, self.session.human)}")

    def refresh(self, note: str = "") -> None:
        """Show the session: stones, heat, the agent's last move, your legal cells, whose turn, the statistics."""
        session = self.session
        for r, (line, cells) in enumerate(zip(self.buttons, session.grid(), strict=True)):
            for c, (button, cell) in enumerate(zip(line, cells, strict=True)):
                self._paint(button, cell, session.block_edges(r, c))
        self._show_words()
        hint = note or session.hint()
        extra = f" ({escape(hint)})" if hint else ""
        self.status.value = f"<b>{escape(session.status())}</b>{extra}"
        spec = session.agent.spec if session.agent is not None else "a puzzle: you play alone"
        self.stats.value = (
            f'<pre style="white-space:pre;margin:0">{escape(spec)}\n{escape(session.stats_table())}</pre>'
        )

    def _show_words(self) -> None:
        """The position in words (as you may see it), what just happened, and a button per move of yours."""
        session = self.session
        events = session.events_text() if session.tells_events() else ""
        said = f'<div style="{EVENTS_STYLE}">{escape(events)}</div>' if events else ""
        if self.buttons:  # the board shows the position
            self.view.value = said
            return
        self.view.value = f'<pre style="white-space:pre-wrap;margin:0">{escape(session.view())}</pre>{said}'
        buttons = []
        for text, move in session.choices():
            button = self._w.Button(description=text, layout=self._w.Layout(width="auto"))
            button.on_click(lambda _, move=move: self.choose(move))
            buttons.append(button)
        self.choices.children = buttons

    def _paint(self, button: Any, cell: Cell, edges: tuple[bool, bool]) -> None:
        """Show ``cell`` on ``button``: the stone in its colour or the heat, the winning line, won blocks, edges."""
        heat = f"{cell.heat:.0%}" if cell.heat and len(self.buttons[0]) < 9 else ""
        button.description = cell.text or heat or BLANK
        fill = WIN_FILL if cell.won else BLOCK_FILL.get(cell.owner) or (heat_colour(cell.heat) if cell.heat else None)
        button.style.button_color = fill
        button.style.text_color = MARK_COLOUR.get(cell.text, "#444444")
        big = "20px" if self.size >= 40 else "15px"
        button.style.font_size = big if cell.text else "11px"
        button.style.font_weight = "bold" if cell.text else ""
        # The agent's last move: underlined (every stone is bold).
        button.style.text_decoration = "underline" if cell.last else ""
        above, left = edges
        target = TARGET_BORDER if cell.target else ""
        button.layout.border_top = BLOCK_LINE if above else target or None
        button.layout.border_left = BLOCK_LINE if left else target or None
        button.layout.border_right = target or None
        button.layout.border_bottom = target or None
        for name, on in (("mctslab-win", cell.won), ("mctslab-target", cell.target)):
            (button.add_class if on else button.remove_class)(name)
        move = cell.move
        button.tooltip = f"move {drawing(self.session.game).move_text(move)}" if move is not None else ""

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.box._repr_mimebundle_(**kwargs)
        # What a saved notebook shows where there is no kernel to draw the widget: the position in
        # words and as text (an untrusted notebook, GitHub), or as an HTML board (nbviewer, a
        # trusted notebook whose widget state was not saved).
        session = self.session
        bundle["text/plain"] = f"play board (needs a running kernel): {session.status()}\n{session.view()}"
        bundle["text/html"] = f"<p><i>play board (needs a running kernel)</i></p>{session._repr_html_()}"
        return bundle


def play_board(
    game: Game, agent: Agent | None = None, human: int = 0, opening: Sequence[int] = (), seed: int | None = None
) -> PlayBoardWidget:
    """A board to play ``agent`` on, in a notebook (needs ipywidgets); see :class:`PlaySession`.

    Args:
        game: any game of one or two players: tic-tac-toe, Connect Four, Ultimate
            Tic-Tac-Toe (clicked on their board), or a game without a board (its moves as buttons),
            with chance or hidden information too.
        agent: the opponent, e.g. ``make_agent("uct:iterations=200", seed=0)``; ``None`` for a puzzle.
        human: your seat: 0 (X, first) or 1 (O).
        opening: moves played before the game starts (see :class:`PlaySession`).
        seed: seeds the chance moves (dice, deals) the board draws.

    Returns:
        A :class:`PlayBoardWidget`; display it (the last expression of a cell). Its
        ``session`` is the game; the cells show the agent's visits per move as a heat map.
    """
    return PlayBoardWidget(PlaySession(game, agent, human, opening, seed))
