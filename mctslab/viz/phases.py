"""One UCT iteration drawn phase by phase, like the four figures of Bradberry 2015: :func:`draw_iteration`.

1. **selection**: the path chosen by UCB1 in bold red, each child's UCB1 value under
   its counts (the chosen one in bold); for a variant of UCT, the path its own rule
   chose and each child's score under that rule (:attr:`IterationRecord.rule
   <mctslab.viz.steps.IterationRecord.rule>`);
2. **expansion**: the new node, 0/0, outlined in bold;
3. **simulation**: a dashed arrow from the new node to the random playout: its moves,
   where it ended, who won;
4. **backpropagation**: the counts on the path after the update, in bold, with the
   reward each node received.

The picture is drawn from the tree as it is right after the iteration (the recorder's
tree, before any further iteration): in the first three phases the counts on the path
are shown as they were before the update, and in the selection phase the new node is
left out, so every phase shows the tree at that moment.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..agents.uct import Node
from ..games.base import Game
from .labels import mark, move_text, result_text, small_board_html
from .prune import prune
from .steps import IterationRecord
from .tree import render_view

__all__ = ["PHASES", "draw_iteration"]

PHASES = ("selection", "expansion", "simulation", "backpropagation")
"""The four phases of a UCT iteration, in order (Bradberry 2015's names)."""

CAPTIONS = {
    "selection": "1. Selection: from the root, the child with the highest UCB1 value, while every move has been tried",
    "expansion": "2. Expansion: one untried move, chosen at random, gets a new node (0/0)",
    "simulation": "3. Simulation: random moves from the new node to the end of the game (dashed)",
    "backpropagation": "4. Backpropagation: every node on the path gets a visit and its player's reward",
}


def caption(phase: str, rule: str = "UCB1") -> str:
    """The caption of one phase; the selection phase names the selection rule (UCB1 for UCT).

    Raises:
        KeyError: for an unknown phase.
    """
    text = CAPTIONS[phase]
    return text.replace("UCB1", rule) if phase == "selection" else text


def draw_iteration(
    record: IterationRecord,
    phase: str = "backpropagation",
    game: Game | None = None,
    *,
    depth: int | None = 1,
    top_k: int | None = 9,
    max_nodes: int | None = 40,
    boards: bool | None = None,
    legend: bool = False,
    top: Node | None = None,
) -> Any:
    """Draw one phase of one recorded iteration (see the module docstring).

    Args:
        record: from :meth:`SearchRecorder.step <mctslab.viz.steps.SearchRecorder.step>`;
            its tree must not have grown since.
        phase: one of :data:`PHASES`.
        game: the game (move names, X/O, small boards).
        depth: plies drawn below the root away from the path (the path and the
            choices along it are always drawn).
        top_k, max_nodes, boards, legend: as in :func:`~mctslab.viz.draw_tree`.
        top: draw only this node's subtree (default: the root); the part of the
            iteration below it is shown.

    Returns:
        A :class:`graphviz.Digraph`. Without ``dot`` it shows as text: the phase, the
        whole iteration in words (:meth:`IterationRecord.describe
        <mctslab.viz.steps.IterationRecord.describe>`) and the tree after it as an outline.

    Raises:
        ValueError: for an unknown phase, or a record whose tree has had more
            iterations since (its counts would no longer match the picture).
    """
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; the phases are {', '.join(PHASES)}")
    root = record.root
    if root.visits != record.updates[-1].visits + 1 or record.updates[-1].node is not root:
        raise ValueError(
            f"the tree has grown since iteration {record.number} (the root has {root.visits} visits): "
            "draw_iteration needs the tree right after the iteration; record it again with a SearchRecorder"
        )
    stage = PHASES.index(phase)
    path = record.path
    new = record.expanded
    choosers = [step.node for step in record.selection]
    view = prune(
        top or root,
        depth=depth,
        top_k=top_k,
        max_nodes=max_nodes,
        keep=path if stage > 0 or new is None else path[:-1],
        open_=choosers,
        exclude=[new] if stage == 0 and new is not None else [],
    )
    stats: dict[int, list[str]] = {}
    node_attrs: dict[int, dict[str, str]] = {}
    edge_attrs: dict[int, dict[str, str]] = {}
    for u in record.updates:
        if stage < 3:
            line = f"{u.wins:g}/{u.visits}" if u.node is not root else f"{u.visits} visits"
        else:
            if u.node is root:  # the root's reward is its opponent's: only the visit counts here
                line = f"<B>{u.visits + 1} visits</B>"
            else:
                line = f'<B>{u.wins + u.reward:g}/{u.visits + 1}</B> <FONT COLOR="#c62828">+{u.reward:g}</FONT>'
        stats[id(u.node)] = [line]
        edge_attrs[id(u.node)] = {"style": "bold"}
    if stage == 0:
        for step in record.selection:
            for s in step.scores:
                ucb = f"{record.score_label} {s.mean:.2f}+{s.exploration:.2f}={s.ucb:.2f}"
                if s.node is step.chosen:
                    ucb = f"<B>{ucb}</B>"
                stats.setdefault(id(s.node), [f"{s.wins:g}/{s.visits}"])
                stats[id(s.node)] = [*stats[id(s.node)], ucb]
    if new is not None and stage >= 1:
        node_attrs[id(new)] = {"penwidth": "3.5", "color": "black"}
        if stage == 1:
            stats[id(new)] = ["<B>0/0 new</B>"]
    graph = render_view(
        view,
        game,
        c=record.c,
        boards=boards,
        best_path=False,
        last_path=path if stage > 0 or new is None else path[:-1],
        title=caption(phase, record.rule) + f" (iteration {record.number})",
        legend=legend,
        stats=stats,
        node_attrs=node_attrs,
        edge_attrs=edge_attrs,
    )
    if stage >= 2 and record.start in view:
        _add_playout(graph, record, game, view.nodes.index(record.start), boards)
    # Without dot: the phase's caption, the whole iteration in words, then the tree after it.
    graph.text = f"{caption(phase, record.rule)} (iteration {record.number})\n\n{record.describe(game)}\n\n{graph.text}"
    return graph


def _add_playout(graph: Any, record: IterationRecord, game: Game | None, start: int, boards: bool | None) -> None:
    """The dashed arrow from the simulated node to a box with the playout's moves and result."""
    playout = record.playout
    moves = [move_text(game, m, short=True) for m in playout.moves]
    if len(moves) > 12:
        moves = [*moves[:11], "...", moves[-1]]
    who = mark(game, 1 - record.start.player) if game is not None else "player to move"
    if playout.moves:
        rows = [f"random playout: {len(playout.moves)} moves, {escape(who)} first"]
    else:
        rows = ["no playout: the game is over here"]
    if moves:
        rows.append(escape(" ".join(moves)))
    board = small_board_html(game, playout.final, playout.moves[-1] if playout.moves else None) if game else None
    if board and boards is not False:
        rows.append(board)
    rows.append(f"<B>{escape(result_text(game, playout))}</B>")
    if not playout.exact:
        rows.append('<FONT COLOR="#666666">(replayed: may differ from the real playout)</FONT>')
    cells = "".join(f"<TR><TD>{row}</TD></TR>" for row in rows)
    label = f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{cells}</TABLE>>'
    graph.node("playout", label, style="rounded,dashed", fillcolor="white", color="#444444")
    graph.edge(f"n{start}", "playout", style="dashed", penwidth="2", color="#444444")
