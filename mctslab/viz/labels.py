"""Words and small pictures for the tree drawings: moves, players, statistics, tiny boards.

One place decides how a move or a node is named, so the graphviz drawing, the text
outline, the step descriptions and the play board all say the same thing. The words
come from the game itself (:meth:`Drawing.mark <mctslab.games.hooks.Drawing.mark>`,
:meth:`~mctslab.games.hooks.Drawing.move_text`, :meth:`~mctslab.games.hooks.Drawing.board_cells`...),
so a new game is drawn without a change here.

**Chance nodes** (the interface any agent's tree adopts to have them drawn as such; read
with ``getattr`` defaults, so a node class without these attributes still draws):

* ``node.chance: bool``: True if chance moves at ``node`` (its position is a chance
  node, ``game.to_move(node.state) == CHANCE``); its children are the outcomes drawn.
  Without the attribute, a node is a chance node if a game is given, the node has a
  ``state``, and the game says chance moves there.
* ``child.probability``: on each child of a chance node, the outcome's probability (a
  :class:`fractions.Fraction` where exact, else a float). Without it (or ``None``),
  it is looked up in ``game.chance_outcomes(parent.state)`` when a game is given.
* ``child.move``: the outcome (named by :meth:`Drawing.outcome_text
  <mctslab.games.hooks.Drawing.outcome_text>`); ``child.visits`` and
  ``child.wins`` are drawn as for any node. ``child.player`` is not read for outcomes.

:func:`is_chance`, :func:`is_outcome` and :func:`outcome_probability` read it;
:func:`probability_text` writes a probability (``"1/6"``, or ``"0.167"`` for a float).
"""

from __future__ import annotations

from fractions import Fraction
from html import escape
from typing import Any

from ..agents.rules import SelectionRule, rule_for
from ..agents.uct import Node
from ..games.base import Game
from ..games.hooks import drawing
from ..games.kinds import CHANCE

__all__ = [
    "is_chance",
    "is_outcome",
    "outcome_probability",
    "probability_text",
    "board_cells",
    "mark",
    "more_text",
    "move_text",
    "node_stats",
    "result_text",
    "small_board_html",
]

CELL = 'FIXEDSIZE="TRUE" WIDTH="16" HEIGHT="16"'
SMALL_BOARD_CELLS = 16
"""Boards with at most this many cells are drawn inside tree nodes by default (3 x 3, 4 x 4)."""


def mark(game: Game | None, player: int) -> str:
    """The name of ``player`` (:meth:`~mctslab.games.hooks.Drawing.mark`): ``"X"``, ``"O"``, ``"P0"``..."""
    return drawing(game).mark(player) if game is not None else f"P{player}"


def move_text(game: Game | None, move: int | None, short: bool = False) -> str:
    """A move as people read it: ``"4"`` (a cell), ``"col 3"``, ``"40 (b4 c4)"``, ``"heap 1 take 2"``.

    With ``short`` (for lists of playout moves): the move number, or ``"1:2"`` in Nim.
    ``"root"`` for ``move=None``. The game decides (:meth:`Drawing.move_text
    <mctslab.games.hooks.Drawing.move_text>`).
    """
    if move is None:
        return "root"
    return drawing(game).move_text(move, short) if game is not None else str(move)


def is_chance(node: Any, game: Game | None = None) -> bool:
    """True if chance moves at ``node``: its ``chance`` attribute, else the game's word on its ``state``."""
    flag = getattr(node, "chance", None)
    if flag is not None:
        return bool(flag)
    state = getattr(node, "state", None)
    if game is None or state is None or not game.has_chance or game.is_terminal(state):
        return False
    return game.to_move(state) == CHANCE


def is_outcome(node: Any, game: Game | None = None) -> bool:
    """True if ``node`` is a chance outcome: a child of a chance node."""
    parent = getattr(node, "parent", None)
    return parent is not None and getattr(node, "move", None) is not None and is_chance(parent, game)


def outcome_probability(node: Any, game: Game | None = None) -> Fraction | float | None:
    """The probability of the outcome ``node`` (its ``probability``, else the game's), or ``None`` if unknown."""
    probability = getattr(node, "probability", None)
    if probability is not None:
        return probability
    state = getattr(getattr(node, "parent", None), "state", None)
    if game is None or state is None:
        return None
    return dict(game.chance_outcomes(state)).get(node.move)


def probability_text(probability: Fraction | float | None) -> str:
    """``"1/6"`` for an exact :class:`~fractions.Fraction`, ``"0.167"`` for a float, ``"?"`` if unknown."""
    if probability is None:
        return "?"
    if isinstance(probability, Fraction):
        return str(probability)
    return f"{float(probability):.3g}"


def outcome_title(game: Game | None, node: Any) -> str:
    """An outcome's label, ``"chance: 4"``, in the words of :meth:`~mctslab.games.hooks.Drawing.outcome_text`."""
    state = getattr(getattr(node, "parent", None), "state", None)
    text = drawing(game).outcome_text(state, node.move) if game is not None else str(node.move)
    return f"chance: {text}"


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
    node: Node,
    c: float,
    *,
    mean: bool = False,
    ucb: bool = False,
    rule: SelectionRule | None = None,
    game: Game | None = None,
) -> list[str]:
    """The statistics lines of a node: ``wins/visits``, then optionally the mean and the selection rule's terms.

    ``wins`` counts results for the player who made the node's move (see
    :class:`~mctslab.agents.uct.Node`); at the root only the visits are shown. The
    rule's terms (``rule``; by default the rule of the node's variant with ``c``, UCB1's for
    UCT: :func:`~mctslab.agents.rules.rule_for`) are those the parent would compute now,
    ``mean + exploration``, labelled with the rule's name (``"ucb"`` for UCB1); not for a
    chance outcome (see :func:`is_outcome`, which reads ``game`` if given), drawn by chance.
    """
    if node.parent is None or node.move is None:
        return [f"{node.visits} visits"]
    lines = [f"{node.wins:g}/{node.visits}"]
    if mean and node.visits:
        lines.append(f"mean {node.mean:.2f}")
    if ucb and node.visits and not is_outcome(node, game):  # outcomes are drawn by chance, not selected
        rule = rule_for(node, c) if rule is None else rule
        lines.append(f"{rule.label} {node.mean:.2f}+{rule.exploration(node.parent, node):.2f}")
    return lines


def board_cells(game: Game | None, state) -> list[list[str]] | None:
    """The board as rows of ``"X"``, ``"O"`` or ``""`` (top row first), or ``None`` without a board.

    The game decides (:meth:`Drawing.board_cells <mctslab.games.hooks.Drawing.board_cells>`);
    games without a board have their nodes labelled by move.
    """
    return drawing(game).board_cells(state) if game is not None else None


def small_board_html(game: Game, state, last_move: int | None = None) -> str | None:
    """A graphviz HTML-like table of the board (the last move in bold), or ``None`` if too big.

    Drawn for boards of at most :data:`SMALL_BOARD_CELLS` cells (3 x 3 and 4 x 4
    tic-tac-toe); bigger boards would make the tree unreadable.
    """
    cells = board_cells(game, state)
    if cells is None or len(cells) * len(cells[0]) > SMALL_BOARD_CELLS:
        return None
    last = drawing(game).played_cell(state, last_move) if last_move is not None else None
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
