"""A game between a person and an agent: the logic behind the play board.

:class:`PlaySession` is the game and everything it needs (your move, the agent's reply,
the board as a grid of :class:`Cell`, the agent's visits per move as a heat map), with no
widgets, so it is tested on its own. The game draws its own board and says which move a
click plays (:meth:`Drawing.board_cells <mctslab.games.hooks.Drawing.board_cells>`,
:meth:`~mctslab.games.hooks.Drawing.move_cell`, :meth:`~mctslab.games.hooks.Drawing.click_move`);
a game without a board is played by choosing among its moves, named by
:meth:`~mctslab.games.hooks.Drawing.move_text`. It shows itself as HTML (``_repr_html_``),
which also reads well in a saved notebook. The widget is
:func:`mctslab.viz.playboard.play_board`.

Every kind of game (:mod:`mctslab.games.kinds`) plays here:

* chance: the session draws chance moves itself, from its own seeded generator, and
  says what came up (:meth:`~mctslab.games.hooks.Drawing.outcome_text`);
* hidden information: until the game ends, you see only what your seat may see
  (:meth:`~mctslab.games.hooks.Drawing.render_for`,
  :meth:`~mctslab.games.hooks.Drawing.board_cells_for`); the agent's hidden moves,
  the chance moves and the agent's statistics (which depend on its cards) are shown as
  they happened once the game is over;
* one player (a puzzle): you play alone, with no agent.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from ..agents.base import Agent, Analysis
from ..games.base import Game, IllegalMoveError, State
from ..games.hooks import drawing
from ..games.kinds import CHANCE
from .boardhtml import BLOCK_FILL, BLOCK_LINE, MARK_COLOUR, WIN_FILL, Cell, heat_colour, session_html
from .labels import mark

__all__ = ["BLOCK_FILL", "BLOCK_LINE", "MARK_COLOUR", "WIN_FILL", "Cell", "Event", "PlaySession", "heat_colour"]


class Event(NamedTuple):
    """One move of the game as the session saw it: who made it (``"you"``, ``"agent"``, ``"chance"``), where, which."""

    who: str
    state: State
    move: int


class PlaySession:
    """A game between a person and an agent (or a person alone, in a puzzle).

    Args:
        game: any game of one or two players: one with a board
            (:meth:`~mctslab.games.hooks.Drawing.board_cells`) is played by clicking its cells,
            one without by choosing among your moves (:meth:`choices`).
        agent: the opponent (any :class:`~mctslab.agents.base.Agent`), or ``None`` for a
            one-player game (a puzzle), which you play alone.
        human: the seat of the person, 0 (moves first, X) or 1 (O); 0 in a puzzle. When it
            is the agent's turn (at the start, or after ``opening``), the agent moves at once.
        opening: moves played (for both sides, and chance) before the game starts, to set
            up a position; every new game starts from there.
        seed: seeds the generator of the chance moves (dice, deals) the session draws;
            ``None`` for a fresh one. Each new game goes on drawing from it.

    Attributes:
        state: the position now.
        moves: the moves played so far (the opening and chance's outcomes included).
        events: the :class:`Event` of each move since the opening.
        analysis: the agent's :class:`~mctslab.agents.base.Analysis` of its last move, or ``None``.
        searched: the position the agent searched for that move, or ``None``.

    Raises:
        ValueError: for a game of more than two players, a seat other than 0 and 1 (0 in a
            puzzle), an agent missing in a two-player game or given for a puzzle.
    """

    def __init__(
        self,
        game: Game,
        agent: Agent | None = None,
        human: int = 0,
        opening: Sequence[int] = (),
        seed: int | None = None,
    ) -> None:
        players = game.num_players
        if players > 2:
            raise ValueError(f"the play board plays one- and two-player games; {game.spec} has {players} players")
        if players == 1 and agent is not None:
            raise ValueError(f"{game.spec} is a one-player puzzle: you play it alone, so pass agent=None")
        if players == 2 and agent is None:
            raise ValueError(
                f"{game.spec} is a two-player game: give an agent to play against (e.g. make_agent('uct'))"
            )
        self.game, self.agent = game, agent
        self.chance = random.Random(seed)
        self.opening = list(opening)
        self.start = game.state_from_moves(self.opening)  # checked: an illegal opening raises here
        self.new_game(human)

    def new_game(self, human: int | None = None) -> None:
        """Start again (optionally in the other seat); chance and the agent move first if it is their turn."""
        if human is not None:
            seats = range(self.game.num_players)
            if human not in seats:
                allowed = "0 (X, moves first) or 1 (O)" if len(seats) == 2 else "0 (a puzzle has one seat)"
                raise ValueError(f"human must be {allowed}, got {human!r}")
            self.human = human
        self.state: State = self.start
        self.moves: list[int] = list(self.opening)
        self.events: list[Event] = []
        self._yours = 0  # events before your last move
        self.analysis: Analysis | None = None
        self.searched: State | None = None
        if self.agent is not None:
            self.agent.reset()
        self.reply()

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.game.is_terminal(self.state)

    @property
    def hides(self) -> bool:
        """True while a game without perfect information hides something from you.

        That is until the game ends, and after it too when the end is not shown
        (:meth:`~mctslab.games.hooks.Drawing.reveals_at_end`: a poker hand that ends in a fold).
        """
        if self.game.perfect_information:
            return False
        return not self.over or not drawing(self.game).reveals_at_end(self.state)

    def _move(self, who: str, move: int) -> None:
        self.events.append(Event(who, self.state, move))
        self.state = self.game.play(self.state, move)
        self.moves.append(move)

    def play(self, move: int) -> int | None:
        """Your move, then chance's and the agent's until it is yours again; returns the agent's last move or ``None``.

        Raises:
            IllegalMoveError: if the game is over, it is not your turn, or ``move`` is
                not legal (the message lists the legal moves).
        """
        if self.over:
            raise IllegalMoveError(f"the game is over ({self.status()}); start a new game")
        if self.game.to_move(self.state) != self.human:
            raise IllegalMoveError("it is the agent's turn, not yours")
        self.game.play(self.state, move)  # raises for an illegal move before anything is recorded
        self._yours = len(self.events)
        self._move("you", move)
        return self.reply()

    def reply(self) -> int | None:
        """Chance and the agent move until your turn or the end; returns the agent's last move or ``None``."""
        last = None
        while not self.over and self.game.to_move(self.state) != self.human:
            if self.game.to_move(self.state) == CHANCE:
                self._move("chance", self.game.chance_move(self.state, self.chance))
                continue
            self.searched = self.state
            self.analysis = self.agent.analyse(self.game, self.state)
            last = self.analysis.move
            self._move("agent", last)
        return last

    def heat(self) -> dict[int, float]:
        """Move -> share of the agent's last search spent on it (visits or playouts; sums to 1); empty while hidden."""
        if self.analysis is None or not self.analysis.stats or self.hides:
            return {}
        total = sum(s.visits for s in self.analysis.stats) or 1
        return {s.move: s.visits / total for s in self.analysis.stats}

    def status(self) -> str:
        """Whose turn it is, or how the game ended, in words."""
        you = f"you ({mark(self.game, self.human)})"
        it = f"the agent ({mark(self.game, 1 - self.human)})"
        if self.over:
            if self.agent is None:
                return f"the end: your return is {self.game.returns(self.state)[0]:.3g} (1 is the best)"
            winner = self.game.winner(self.state)
            return "draw" if winner is None else f"{you if winner == self.human else it} won"
        return f"{you if self.game.to_move(self.state) == self.human else it} to move"

    def your_turn(self) -> bool:
        """True when the game goes on and it is your move."""
        return not self.over and self.game.to_move(self.state) == self.human

    def view(self) -> str:
        """The position in words as you may see it (``render_for``); all of it (``render``) at an end showing it."""
        if self.hides or self.game.perfect_information:
            return drawing(self.game).render_for(self.state, self.human)
        return self.game.render(self.state)

    def _seen(self, event: Event) -> bool:
        """Whether you may know ``event``'s move: yours, all of them once nothing is hidden, or one you can tell.

        You can tell a hidden game's chance or agent move when no other move there would have left
        you the same :meth:`~mctslab.games.base.Game.information_state` (in Kuhn poker: your own
        card and every bet; not the agent's card, nor a phantom tic-tac-toe mark).
        """
        if event.who == "you" or not self.hides:
            return True
        game, human = self.game, self.human
        known = game.information_state(game.apply(event.state, event.move), human)
        others = (m for m in game.legal_moves(event.state) if m != event.move)
        return all(game.information_state(game.apply(event.state, m), human) != known for m in others)

    def event_text(self, event: Event) -> str:
        """An event in words, ``"chance: 4"``, ``"the agent (O): 2"``; a move hidden from you only says who moved."""
        game, seen = self.game, self._seen(event)
        draw = drawing(game)
        if event.who == "chance":
            return f"chance: {draw.outcome_text(event.state, event.move)}" if seen else "chance: (hidden from you)"
        if event.who == "you":
            return f"you: {draw.move_text(event.move)}{draw.move_result_text(event.state, event.move)}"
        agent = f"the agent ({mark(game, 1 - self.human)})"
        return f"{agent}: {draw.move_text(event.move)}" if seen else f"{agent} moved (hidden from you)"

    def tells_events(self) -> bool:
        """Whether the board says what happened: when there is no board to see it on, chance moved, or moves are hidden.

        On the board of a game of perfect information without chance the position says it all.
        """
        if self.cells() is None or not self.game.perfect_information:
            return True
        return any(event.who == "chance" for event in self.events)

    def events_text(self) -> str:
        """What happened since your last move (the whole game, once it is over): a line per turn, events by ``;``.

        A line starts where the mover changes between you and the agent and names them once;
        chance's outcomes stay on the line of the move that called for them:
        ``"the agent (P1): roll; chance: rolled 6; roll; chance: rolled 1: loses 6, turn over"``.
        The agent's hidden moves in a row are said once: in phantom tic-tac-toe its failed tries on
        your marks keep its turn, and you are not told how many it made.
        """
        shown = self.events if self.over else self.events[self._yours :]
        text, mover = "", None
        prefixes = {"you": "you: ", "agent": f"the agent ({mark(self.game, 1 - self.human)}): "}
        previous = None
        for event in shown:
            said = self.event_text(event)
            if event.who == "agent" and said == previous and not self._seen(event):
                continue  # its tries that failed on your hidden marks are hidden too: how many it made is not told
            previous = said
            if text and event.who != "chance" and event.who != mover:
                text += "\n"
            elif text:
                text += "; "
                if event.who == mover and said.startswith(prefixes[mover]):
                    said = said[len(prefixes[mover]) :]  # the line already says who moves
            mover = event.who if event.who != "chance" else mover
            text += said
        return text

    def choices(self) -> list[tuple[str, int]]:
        """Your legal moves as ``(name, move)`` (none when it is not your turn): a boardless game's buttons."""
        if not self.your_turn():
            return []
        return [(drawing(self.game).move_text(m), m) for m in self.game.legal_moves(self.state)]

    def cells(self) -> list[list[str]] | None:
        """The board's texts as you may see them (``board_cells_for``), or ``None`` without a board."""
        if not self.hides:
            return drawing(self.game).board_cells(self.state)
        return drawing(self.game).board_cells_for(self.state, self.human)

    def targets(self) -> set[tuple[int, int]]:
        """The cells where your legal moves land, when they are fewer than the empty cells (else none).

        In tic-tac-toe every empty cell is a legal move, so nothing needs pointing out;
        in Ultimate Tic-Tac-Toe these are the empty cells of the small board you are sent
        to, and in Connect Four the cell where each column's stone would land.
        """
        texts = self.cells()
        if not self.your_turn() or texts is None:
            return set()
        game, state = self.game, self.state
        cells = {drawing(game).move_cell(state, m) for m in game.legal_moves(state)} - {None}
        empty = sum(text == "" for row in texts for text in row)
        return cells if len(cells) < empty else set()

    def hint(self) -> str:
        """What to do now, in words: where to click, or that the game is over."""
        if self.over:
            return "the game is over: click new game to play again"
        if not self.your_turn():
            return ""
        if self.cells() is None:
            return "click one of your moves"
        return "click an outlined cell" if self.targets() else "click an empty cell"

    def stats_table(self) -> str:
        """The agent's statistics for its last move, best first, with the moves named by the game.

        The same numbers as :meth:`Analysis.table <mctslab.agents.base.Analysis.table>`
        (Bradberry 2015's printout); moves are written with
        :meth:`~mctslab.games.hooks.Drawing.move_text` (``"col 3"``, ``"40 (b4 c4)"``: board 4, cell 4).
        In a game with hidden information they are shown at the end: they depend on the agent's cards.
        """
        if self.agent is None:
            return ""
        if self.analysis is None:
            return "(the agent has not moved yet)"
        if self.hides and self.over:
            return "(the agent's statistics stay hidden: they depend on its card, which this end does not show)"
        if self.hides:
            return "(the agent's statistics are shown when the game ends: they depend on what it alone sees)"
        return self.analysis.table(drawing(self.game).move_text)

    def grid(self) -> list[list[Cell]]:
        """The board as :class:`Cell` rows, top row first, with the heat of the agent's last search (``[]``: no board).

        A click on a cell plays :meth:`~mctslab.games.hooks.Drawing.click_move` (in Connect
        Four, the cell where the next stone of a column lands plays that column). The
        heat of a move, and the agent's last move, are drawn on the move's
        :meth:`~mctslab.games.hooks.Drawing.move_cell` in the position the agent searched
        (in Connect Four: where its stone would have landed); not while the game hides them.
        """
        game, state = self.game, self.state
        draw = drawing(game)
        texts = self.cells()
        if texts is None:
            return []
        yours = self.your_turn()
        targets = self.targets()
        searched = None if self.hides else self.searched
        won = draw.winning_cells(state) if not self.hides else set()
        side = draw.board_blocks()
        owners = draw.block_winners(state) if not self.hides else None
        heat_at, last_at = {}, None
        if searched is not None:
            for move, share in self.heat().items():
                cell = draw.move_cell(searched, move)
                if cell is not None:
                    heat_at[cell] = share
            if self.analysis is not None:
                last_at = draw.move_cell(searched, self.analysis.move)
        return [
            [
                Cell(
                    text,
                    draw.click_move(state, r, c) if yours else None,
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
        who = f"{self.agent.spec} against you" if self.agent is not None else "your puzzle"
        return f"{who}: {self.status()}\n{self.view()}"

    def block_edges(self, row: int, col: int) -> tuple[bool, bool]:
        """Whether cell ``(row, col)`` starts a new block (a thick line) above it, and left of it."""
        side = drawing(self.game).board_blocks()
        if not side:
            return False, False
        return row > 0 and row % side == 0, col > 0 and col % side == 0

    def _repr_html_(self) -> str:
        return session_html(self)
