"""How a game describes itself to the tree drawings and the play board: its drawing adapter.

A game's file registers a subclass of :class:`Drawing` for the game's class and overrides the
hooks that fit it (stone games name their players X and O, draw their board and say which cell a
move marks), so nothing outside ``games/`` needs to know which game it is::

    @register_drawing(Nim)
    class NimDrawing(Drawing):
        def move_text(self, move, short=False):
            heap, take = self.game.decode(move)
            ...

The drawings ask :func:`drawing` (``drawing(game).board_cells(state)``); a game without an adapter
of its own is drawn with the defaults of :class:`Drawing` (players ``P0``, ``P1``, moves by their
number, no board). :func:`mctslab.check_game` checks the hooks (:mod:`mctslab.games.adapters`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from .adapters import Adapter, concern_base, find_adapter, register_adapter


@concern_base
class Drawing(Adapter):
    """The hooks that describe a game to people: names of players and moves, the board's cells.

    Every method has a default that fits a game without a board (players ``P0``, ``P1``,
    moves named by their number). ``self.game`` is the game, whose ``legal_moves``
    :meth:`click_move` reads.
    """

    concern = "drawing"
    names = (
        "mark", "move_text", "outcome_text", "move_result_text", "render_for", "reveals_at_end", "board_cells",
        "board_cells_for", "move_cell", "played_cell", "click_move", "column_labels", "winning_cells",
        "board_blocks", "block_winners",
    )  # fmt: skip

    def mark(self, player: int) -> str:
        """The name of ``player`` (0 to ``num_players - 1``) on boards and in text: ``"P0"``, ``"P1"``... by default.

        Stone games say ``"X"`` and ``"O"``.
        """
        return f"P{player}"

    def move_text(self, move: int, short: bool = False) -> str:
        """A move as people read it: the move number by default.

        Args:
            move: a move of this game.
            short: the short form, for lists of playout moves (the move number
                unless the game says otherwise, e.g. ``"1:2"`` in Nim).
        """
        return str(move)

    def outcome_text(self, state: Hashable, outcome: int) -> str:
        """A chance outcome as people read it, ``state`` being the chance node it is drawn at: the number by default.

        A die's game may say ``"rolled 4"``, a card game ``"deals K to P1"``. The tree
        drawings label chance edges with it and the play board says it when chance moves.
        (:meth:`move_text` is for the players' moves, which may share numbers with outcomes.)
        """
        return str(outcome)

    def move_result_text(self, state: Hashable, move: int) -> str:
        """What ``move`` did from ``state`` that its number does not say, for the mover: nothing by default.

        The play board appends it to the mover's own move, ``"you: 6 (an O was there: try again)"``
        in phantom tic-tac-toe, where a try can find the cell taken.
        """
        return ""

    def render_for(self, state: Hashable, player: int) -> str:
        """The position as ``player`` may see it, in words: what the play board shows a person in that seat.

        The default: the whole position (:meth:`~mctslab.games.base.Game.render`) in a game of
        perfect information; in a game with hidden information, ``player``'s
        :meth:`~mctslab.games.base.Game.information_state` as text, which holds only what they
        may know. Such a game should override it with words (their own card, the bets), never
        showing the opponent's hidden card: the play board shows nothing else until the game ends.
        """
        if self.game.perfect_information:
            return self.game.render(state)
        return f"what {self.mark(player)} sees: {self.game.information_state(state, player)}"

    def reveals_at_end(self, state: Hashable) -> bool:
        """Whether the finished game ``state`` is shown whole to the players (the play board's last view).

        The default: yes, every hidden card and mark is shown once the game is over. Poker
        says otherwise: a hand that ends in a fold is not shown down, so Kuhn poker reveals
        the cards only after a showdown (the play board then keeps :meth:`render_for`).
        """
        return True

    def board_cells(self, state: Hashable) -> list[list[str]] | None:
        """The board as rows of equal length of ``"X"``, ``"O"`` or ``""`` (top row first).

        Drawn inside tree nodes when it is small, and clickable on the play board.
        ``None`` (the default) for a game without a board to draw: its tree nodes are
        labelled by move and it cannot be played on the play board.
        """
        return None

    def board_cells_for(self, state: Hashable, player: int) -> list[list[str]] | None:
        """The board as ``player`` may see it (rows as in :meth:`board_cells`), for the play board during a game.

        The default: :meth:`board_cells` in a game of perfect information; ``None`` (no board,
        the position shown in the words of :meth:`render_for`) in a game with hidden
        information, so that nothing hidden is drawn. Phantom tic-tac-toe would give the
        player's own marks and those their failed moves revealed.
        """
        if self.game.perfect_information:
            return self.board_cells(state)
        return None

    def move_cell(self, state: Hashable, move: int) -> tuple[int, int] | None:
        """Where ``move``, played in ``state``, puts its stone: ``(row, column)`` of :meth:`board_cells`.

        ``None`` (the default) when the move marks no single cell. The play board draws
        the agent's visits to ``move`` on this cell.
        """
        return None

    def played_cell(self, state: Hashable, move: int) -> tuple[int, int] | None:
        """The cell the last move ``move`` marked, ``state`` being the position *after* it.

        Tree nodes draw it in bold. By default :meth:`move_cell` of ``state``, which
        is right for games where a move's cell does not depend on the position.
        """
        return self.move_cell(state, move)

    def click_move(self, state: Hashable, row: int, col: int) -> int | None:
        """The move that a click on cell ``(row, col)`` of :meth:`board_cells` plays in ``state``.

        Returns ``None`` where a click plays nothing. By default the legal move whose
        :meth:`move_cell` is that cell; a game may accept more cells for a move (a
        whole column, say).
        """
        for move in self.game.legal_moves(state):
            if self.move_cell(state, move) == (row, col):
                return move
        return None

    def column_labels(self) -> list[str] | None:
        """Labels written above the columns of :meth:`board_cells` on the play board, or ``None`` (the default).

        Connect Four numbers its columns, the names of its moves.
        """
        return None

    def winning_cells(self, state: Hashable) -> set[tuple[int, int]]:
        """The cells of :meth:`board_cells` that won the game, to be marked: ``(row, column)`` pairs.

        Empty (the default) while nobody has won, after a draw, and for a game that does not say.
        Stone games give their winning line (every line, if the last move made two).
        """
        return set()

    def board_blocks(self) -> int | None:
        """The side of the square blocks :meth:`board_cells` is made of, drawn with thick lines between them.

        ``None`` (the default) for a board of single cells; Ultimate Tic-Tac-Toe says 3 (its local boards).
        """
        return None

    def block_winners(self, state: Hashable) -> list[list[str]] | None:
        """Who has won each block of :meth:`board_blocks`: rows of ``"X"``, ``"O"`` or ``""`` (nobody, yet or ever).

        ``None`` (the default) for a board without blocks to win.
        """
        return None


DrawingClass = type[Drawing]


def register_drawing(game_class: type) -> Callable[[DrawingClass], DrawingClass]:
    """A class decorator registering a :class:`Drawing` for ``game_class`` (and its subclasses), in the game's file.

    Raises:
        TypeError: if the decorated class does not subclass :class:`Drawing`.
    """
    return register_adapter("drawing", game_class)


def drawing(game: Any) -> Drawing:
    """The drawing adapter of ``game``: the one registered for its class (or a base), else the defaults."""
    return find_adapter("drawing", game) or Drawing(game)
