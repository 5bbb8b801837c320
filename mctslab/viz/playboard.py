"""Play against an agent in a notebook, and see what it thought: the play board.

:func:`play_board` wires a :class:`~mctslab.viz.session.PlaySession` (all the logic) to
ipywidgets: one button per cell, a new-game button, the seat you play, and the agent's
statistics beside the board; the cells show its visits per move as a heat map.

Seed 004's observation is the point: with a small budget the agent makes mistakes
you can see (a missed block, a missed win); with a large one it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ..agents.base import Agent
from ..games.base import Game
from .session import PlaySession, heat_colour

__all__ = ["PlayBoardWidget", "play_board"]


class PlayBoardWidget:
    """The widget of :func:`play_board`; its controls are attributes, so code (and tests) can drive it.

    Attributes:
        session: the :class:`PlaySession` behind it.
        buttons: one ``Button`` per cell, as rows (top row first).
        seat, new: choose your seat, start a new game.
        status, stats: ``HTML`` widgets: whose turn / the result, and the agent's statistics.
        box: the ``ipywidgets.VBox`` displayed.
    """

    def __init__(self, session: PlaySession) -> None:
        import ipywidgets as w

        self.session = session
        grid = session.grid()
        size = "28px" if len(grid) > 6 else "40px"
        self.buttons = []
        for r, row in enumerate(grid):
            line = []
            for c in range(len(row)):
                # Thicker gaps between the local boards of Ultimate Tic-Tac-Toe.
                gap_left = "6px" if len(row) == 9 and c in (3, 6) else "0"
                gap_top = "6px" if len(grid) == 9 and r in (3, 6) else "0"
                button = w.Button(
                    layout=w.Layout(width=size, height=size, padding="0", margin=f"{gap_top} 0 0 {gap_left}")
                )
                button.on_click(lambda _, r=r, c=c: self.click(r, c))
                line.append(button)
            self.buttons.append(line)
        board = w.GridBox(
            [b for line in self.buttons for b in line],
            layout=w.Layout(grid_template_columns=f"repeat({len(grid[0])}, auto)", grid_gap="2px"),
        )
        self.seat = w.ToggleButtons(options=[("you play X", 0), ("you play O", 1)], value=session.human)
        self.new = w.Button(description="new game")
        self.new.on_click(lambda _: self.restart())
        self.status = w.HTML()
        self.stats = w.HTML()
        self.box = w.VBox([w.HBox([self.seat, self.new]), w.HBox([board, self.stats]), self.status])
        self.refresh()

    def click(self, row: int, col: int) -> None:
        """What clicking the cell at ``(row, col)`` does: your move there, then the agent's reply."""
        move = self.session.grid()[row][col].move
        if move is None:
            self.refresh(note="not a legal move for you there")
            return
        self.session.play(move)
        self.refresh()

    def restart(self) -> None:
        """A new game, in the seat chosen."""
        self.session.new_game(self.seat.value)
        self.refresh()

    def refresh(self, note: str = "") -> None:
        """Show the session: stones, heat, the agent's last move, whose turn, the statistics."""
        for line, cells in zip(self.buttons, self.session.grid(), strict=True):
            for button, cell in zip(line, cells, strict=True):
                button.description = cell.text or (f"{cell.heat:.0%}" if cell.heat and len(line) < 9 else "")
                button.style.button_color = heat_colour(cell.heat) if cell.heat else None
                button.style.font_weight = "bold" if cell.last else ""
                button.tooltip = f"move {cell.move}" if cell.move is not None else ""
        extra = f" ({escape(note)})" if note else ""
        self.status.value = f"<b>{escape(self.session.status())}</b>{extra}"
        analysis = self.session.analysis
        table = escape(analysis.table()) if analysis is not None else "(the agent has not moved yet)"
        self.stats.value = f"<pre>{escape(self.session.agent.spec)}\n{table}</pre>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.box._repr_mimebundle_(**kwargs)
        # What a saved notebook shows where there is no kernel to draw the widget.
        session = self.session
        bundle["text/plain"] = f"play board (needs a running kernel): {session.status()}\n" + session.game.render(
            session.state
        )
        return bundle


def play_board(game: Game, agent: Agent, human: int = 0, opening: Sequence[int] = ()) -> PlayBoardWidget:
    """A board to play ``agent`` on, in a notebook (needs ipywidgets); see :class:`PlaySession`.

    Args:
        game: tic-tac-toe, Connect Four or Ultimate Tic-Tac-Toe.
        agent: the opponent, e.g. ``make_agent("uct:iterations=200", seed=0)``.
        human: your seat: 0 (X, first) or 1 (O).
        opening: moves played before the game starts (see :class:`PlaySession`).

    Returns:
        A :class:`PlayBoardWidget`; display it (the last expression of a cell). Its
        ``session`` is the game; the cells show the agent's visits per move as a heat map.
    """
    return PlayBoardWidget(PlaySession(game, agent, human, opening))
