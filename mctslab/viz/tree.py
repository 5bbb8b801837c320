"""Draw the search tree UCT built, with graphviz: :func:`draw_tree`.

Every box is a node: who moved and which move (or, in small tic-tac-toe, the board
itself), then Bradberry 2015's ``wins/visits``, counted for the player who made the move
(the point of view of :class:`~mctslab.agents.uct.Node`). Boxes are coloured by that
player, edges are as wide as their share of the visits, the most visited path is
green and the last iteration's path red. :mod:`mctslab.viz.prune` keeps the picture
readable at any size.

Chance nodes (where a die is rolled or a card dealt) are drawn as ellipses, and the
edges to their outcomes are labelled with the outcome's probability (``1/6``, exact
where the tree or the game gives a :class:`~fractions.Fraction`). Any agent's tree gets
this by the small interface documented in :mod:`mctslab.viz.labels`: a node attribute
``chance: bool`` and ``probability`` on each outcome child (read with defaults; without
them the game is asked).

The result is a :class:`graphviz.Digraph`: a notebook shows it, ``.render(...)``
saves it as SVG, PNG or PDF. Building it never needs the ``dot`` program; showing or
saving does. Without ``dot``, a notebook shows the same tree as indented text with the
same numbers (:func:`~mctslab.viz.outline.tree_outline`) and a message saying how to
install graphviz, instead of an error.
"""

from __future__ import annotations

import functools
import math
import shutil
from collections.abc import Sequence
from html import escape
from typing import Any

from ..agents.rules import SelectionRule
from ..agents.uct import Node
from ..games.base import Game
from ..ucb import SQRT2
from .fit import image_html, inline_html
from .labels import (
    SMALL_BOARD_CELLS,
    board_cells,
    is_chance,
    is_outcome,
    mark,
    more_text,
    node_stats,
    outcome_probability,
    probability_text,
    small_board_html,
)
from .outline import most_visited_path, node_title, view_outline
from .prune import TreeView, prune

__all__ = ["NO_DOT_MESSAGE", "dot_available", "draw_tree", "graph_html", "render_view", "side_by_side"]

FILL = ("#d4e4f7", "#fbdcbc")
"""Box colour of a node by the player who made its move (0: X, blue; 1: O, orange)."""
ROOT_FILL = "#eeeeee"
CHANCE_FILL = "#f3f3f3"
"""Box colour of a chance outcome (drawn by chance, not by a player)."""
BEST = "#2e7d32"
"""Colour of the most visited path (green)."""
LAST = "#c62828"
"""Colour of the last iteration's path (red)."""

NO_DOT_MESSAGE = (
    "graphviz's `dot` program was not found, so the tree is shown as text. To see the picture, "
    "install it (Debian/Ubuntu: sudo apt-get install graphviz; macOS: brew install graphviz) "
    "and restart the kernel."
)


def dot_failed_message(err: BaseException) -> str:
    """What the text fallback says when ``dot`` exists but could not draw (a crash, a bad install...)."""
    reason = f"{type(err).__name__}"
    detail = getattr(err, "stderr", None) or str(err)
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    first = next((line.strip() for line in str(detail).splitlines() if line.strip()), "")
    if first:
        reason += f": {first[:200]}"
    return f"graphviz's `dot` program failed ({reason}), so the tree is shown as text."


def _fallback(text: str, err: BaseException | None) -> str:
    """The text shown instead of a drawing, with the reason ``dot`` failed if it did."""
    return text if err is None else text.replace(NO_DOT_MESSAGE, dot_failed_message(err), 1)


def dot_available() -> bool:
    """True if graphviz's ``dot`` program is on the ``PATH`` (needed to show or save a drawing)."""
    return shutil.which("dot") is not None


@functools.cache
def _graph_class() -> type:
    try:
        import graphviz
    except ImportError:
        raise ImportError(
            "drawing a tree needs the graphviz Python package: pip install graphviz "
            "(mctslab.viz.tree_outline gives the same tree as text without it)"
        ) from None

    class TreeGraph(graphviz.Digraph):
        """A :class:`graphviz.Digraph` that shows itself as SVG, PNG and text, or as text alone.

        A notebook stores all three: JupyterLab shows the HTML (the SVG as an image that
        shrinks to the notebook's width, down to readable labels, then scrolls: see
        :mod:`mctslab.viz.fit`) trusted or not, other viewers the PNG, and ``text/plain``
        is the same tree as an outline. ``include=["image/svg+xml"]`` gives the bare SVG.
        Without ``dot`` (or if it fails) only the text is shown, with a
        message saying how to install graphviz.

        Attributes:
            text: the fallback shown without ``dot``: a message and the tree as an outline.
        """

        text = ""

        def describe(self) -> str:
            """The tree as text (:attr:`text` without the message about installing graphviz)."""
            return self.text.replace(NO_DOT_MESSAGE + "\n\n", "", 1)

        def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
            wanted = {"text/html", "image/png", "text/plain"} if include is None else set(include)
            wanted -= set(exclude or ())
            bundle: dict[str, Any] = {}
            failure = None
            if dot_available():
                try:
                    if wanted & {"image/svg+xml", "text/html"}:
                        svg = self.pipe(format="svg", encoding="utf-8")
                        if "image/svg+xml" in wanted:
                            bundle["image/svg+xml"] = svg
                        if "text/html" in wanted:  # fits the notebook's width, trusted or not (see viz.fit)
                            bundle["text/html"] = image_html(svg)
                except graphviz.ExecutableNotFound:
                    bundle = {}
                except Exception as err:  # dot is there but failed: still show the tree, and why
                    bundle, failure = {}, err
                else:
                    try:
                        if "image/png" in wanted:
                            bundle["image/png"] = self.pipe(format="png")
                    except Exception:  # the SVG alone is fine; the PNG is only for untrusted views
                        pass
            if "text/plain" in wanted or not bundle:
                bundle["text/plain"] = self.describe() if bundle else _fallback(self.text, failure)
            return bundle

    return TreeGraph


def render_view(
    view: TreeView,
    game: Game | None = None,
    *,
    c: float = SQRT2,
    mean: bool = False,
    ucb: bool = False,
    boards: bool | None = None,
    best_path: bool = True,
    last_path: Sequence[Node] = (),
    title: str | None = None,
    legend: bool = True,
    stats: dict[int, list[str]] | None = None,
    node_attrs: dict[int, dict[str, str]] | None = None,
    edge_attrs: dict[int, dict[str, str]] | None = None,
    rule: SelectionRule | None = None,
) -> Any:
    """Draw a pruned :class:`~mctslab.viz.prune.TreeView` (the engine of :func:`draw_tree`).

    ``stats``, ``node_attrs`` and ``edge_attrs`` (keyed by ``id(node)``; an edge by its
    child) replace a node's statistics lines (graphviz HTML) and add graphviz
    attributes: :func:`~mctslab.viz.phases.draw_iteration` uses them. Other arguments
    are those of :func:`draw_tree`. Node names in the DOT source are ``n0``, ``n1``...
    in ``view.nodes`` order.
    """
    stats, node_attrs, edge_attrs = stats or {}, node_attrs or {}, edge_attrs or {}
    if boards is None:
        cells = board_cells(game, view.root.state) if game is not None else None
        boards = cells is not None and len(cells) * len(cells[0]) <= SMALL_BOARD_CELLS
    best = {id(n) for n in most_visited_path(view.root)[1:]} if best_path else set()
    last = {id(n) for n in last_path}
    graph = _graph_class()(graph_attr={"rankdir": "TB", "ordering": "out", "nodesep": "0.12", "ranksep": "0.3"})
    graph.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10", margin="0.05,0.03")
    graph.attr("edge", arrowsize="0.5", color="#666666")
    names = {id(n): f"n{i}" for i, n in enumerate(view.nodes)}
    top = max(view.root.visits, 1)
    chances = any(is_chance(node, game) for node in view.nodes)
    for node in view.nodes:
        key = id(node)
        is_root = node is view.root
        rows = [escape(node_title(game, node))]
        board = small_board_html(game, node.state, node.move) if boards and game is not None else None
        if board:
            rows.append(board)
        rows += stats.get(key) or [escape(s) for s in node_stats(node, c, mean=mean, ucb=ucb, rule=rule, game=game)]
        count, _ = view.hidden[key]
        if count and not view.children[key]:
            rows.append(f'<FONT COLOR="#666666">+{count} below</FONT>')
        attrs = _chance_attrs(node, game, is_root)
        if key in best:
            attrs.update(color=BEST, penwidth="2")
        if key in last:
            attrs.update(color=LAST, penwidth="2.5")
        attrs.update(node_attrs.get(key, {}))
        graph.node(names[key], _html_label(rows), **attrs)
        if not is_root:
            width = 0.6 + 5.0 * math.sqrt(node.visits / top)
            edge = {"penwidth": f"{width:.2f}", **_outcome_label(node, game)}
            if key in best:
                edge["color"] = BEST
            if key in last:
                edge["color"] = LAST
            edge.update(edge_attrs.get(key, {}))
            graph.edge(names[id(node.parent)], names[key], **edge)
    _add_summaries(graph, view, names)  # last, so that with ordering=out they sit right of the children
    caption = _caption(view, game, title, legend, bool(best), bool(last), chances)
    graph.attr(label="\n".join(caption), labelloc="b", fontsize="10", fontname="Helvetica")
    graph.text = (
        NO_DOT_MESSAGE + "\n\n" + view_outline(view, game, c=c, mean=True, ucb=ucb, last_path=last_path, rule=rule)
    )
    return graph


def _chance_attrs(node: Node, game: Game | None, is_root: bool) -> dict[str, str]:
    """A node's fill (by the player who moved, grey for a chance outcome) and an ellipse where chance moves."""
    fill = ROOT_FILL if is_root else CHANCE_FILL if is_outcome(node, game) else FILL[node.player]
    return {"fillcolor": fill, **({"shape": "ellipse"} if is_chance(node, game) else {})}


def _outcome_label(node: Node, game: Game | None) -> dict[str, str]:
    """The edge label of a chance outcome: its probability (``"1/6"``); nothing for a player's move."""
    if not is_outcome(node, game):
        return {}
    return {"label": probability_text(outcome_probability(node, game)), "fontsize": "9", "fontname": "Helvetica"}


def _add_summaries(graph: Any, view: TreeView, names: dict[int, str]) -> None:
    """A dashed "+k more" box under each drawn node whose other children are not drawn."""
    for node in view.nodes:
        key = id(node)
        count, visits = view.hidden[key]
        if count and view.children[key]:
            more = f"{names[key]}_more"
            graph.node(
                more,
                more_text(count, visits).replace(" (", "\n("),
                style="rounded,dashed",
                fillcolor="white",
                fontcolor="#666666",
                color="#999999",
            )
            graph.edge(names[key], more, style="dotted", color="#999999", arrowhead="none")


def _caption(
    view: TreeView, game: Game | None, title: str | None, legend: bool, best: bool, last: bool, chances: bool = False
) -> list[str]:
    """The lines under the picture: the title, the legend (colours, widths, paths) and the count of nodes shown."""
    caption = []
    if title:
        caption.append(title)
    if legend:
        parts = [
            f"wins/visits for the player who moved ({mark(game, 0)} blue, {mark(game, 1)} orange)",
            "edge width: visits",
        ]
        parts += ["green: most visited path"] if best else []
        parts += ["red: last iteration"] if last else []
        parts += ["ellipse: chance node, its edges labelled with the probabilities"] if chances else []
        caption.append("; ".join(parts))
    caption.append(f"{len(view.nodes)} of {view.total} nodes shown")
    return caption


def _html_label(rows: list[str]) -> str:
    cells = "".join(f"<TR><TD>{row}</TD></TR>" for row in rows)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{cells}</TABLE>>'


def draw_tree(
    root: Node,
    game: Game | None = None,
    *,
    depth: int | None = 4,
    top_k: int | None = 4,
    max_nodes: int | None = 20,
    c: float = SQRT2,
    mean: bool = False,
    ucb: bool = False,
    boards: bool | None = None,
    last_path: Sequence[Node] = (),
    best_path: bool = True,
    title: str | None = None,
    legend: bool = True,
    rule: SelectionRule | None = None,
) -> Any:
    """Draw the subtree of ``root`` with graphviz.

    Args:
        root: the top node (a search's root, or any node: its subtree is drawn); the
            compiled engine's root (:class:`~mctslab.agents.compiled.CompiledNode`) too.
        game: the game, for move names, X/O and small boards (optional).
        depth: plies below ``root``, >= 0, or ``None`` for no limit.
        top_k: children per node, >= 1 (the rest in one "+ n more (v visits)" box),
            or ``None`` for all.
        max_nodes: nodes drawn in all, most visited first, or ``None`` for no limit.
        c: exploration constant for the UCB1 terms (use the search's ``c``) when no
            ``rule`` is given.
        mean: add each node's mean reward ``wins / visits``.
        ucb: add the selection rule's two terms, ``mean + exploration`` (UCB1:
            ``mean + c sqrt(ln N / n)``), as the parent sees them, labelled with its name.
        boards: draw each node's board (default: for boards of at most 16 cells).
        last_path: nodes drawn in red and always shown, such as an
            :class:`~mctslab.viz.steps.IterationRecord`'s ``path``.
        best_path: draw the most visited path in green.
        title: a caption line.
        legend: explain the colours in the caption.
        rule: the search's selection rule (``agent.rule``, e.g. RAVE's); by default the rule of the tree's variant
            (:func:`~mctslab.agents.rules.rule_for`: UCB1 for UCT) with ``c``.

    Returns:
        A :class:`graphviz.Digraph` (a subclass whose notebook display falls back to a
        text outline when ``dot`` is missing; its ``text`` attribute holds it).

    Raises:
        ValueError: for a limit out of range.
        ImportError: if the graphviz Python package is not installed.

    Example:
        >>> from mctslab import UCT, make_game
        >>> game = make_game("tictactoe")
        >>> root = UCT(iterations=200, seed=0).search(game, game.initial_state())
        >>> graph = draw_tree(root, game, depth=2, top_k=3)
        >>> "200 visits" in graph.source
        True
    """
    view = prune(root, depth=depth, top_k=top_k, max_nodes=max_nodes, keep=last_path)
    return render_view(
        view,
        game,
        c=c,
        mean=mean,
        ucb=ucb,
        boards=boards,
        best_path=best_path,
        last_path=last_path,
        title=title,
        legend=legend,
        rule=rule,
    )


def graph_html(graph: Any) -> str:
    """A drawing as HTML: its SVG, or without ``dot`` the message and outline in a ``<pre>`` block."""
    failure = None
    if dot_available():
        import graphviz

        try:
            return graph.pipe(format="svg", encoding="utf-8")
        except graphviz.ExecutableNotFound:
            pass
        except Exception as err:  # dot is there but failed: the outline, and why
            failure = err
    return f"<pre>{escape(_fallback(getattr(graph, 'text', '') or graph.source, failure))}</pre>"


class side_by_side:  # noqa: N801 - used like a function
    """Several drawings in one row, each with a caption (``_repr_html_``, for notebooks).

    Args:
        graphs: the drawings (from :func:`draw_tree` or :func:`~mctslab.viz.draw_iteration`).
        titles: one caption per drawing (default: none).

    Raises:
        ValueError: if the numbers of drawings and titles differ.
    """

    def __init__(self, graphs: Sequence[Any], titles: Sequence[str] | None = None) -> None:
        titles = list(titles) if titles is not None else [""] * len(graphs)
        if len(titles) != len(graphs):
            raise ValueError(f"{len(graphs)} drawings but {len(titles)} titles")
        self.graphs, self.titles = list(graphs), titles

    def _repr_html_(self) -> str:
        cells = "".join(
            f'<div style="flex:1;min-width:0;text-align:center"><b>{escape(t)}</b>{inline_html(graph_html(g))}</div>'
            for g, t in zip(self.graphs, self.titles, strict=True)
        )
        return f'<div style="display:flex;gap:12px;align-items:flex-start">{cells}</div>'

    def __repr__(self) -> str:
        return "\n\n".join(f"{t}\n{getattr(g, 'text', '')}" for g, t in zip(self.graphs, self.titles, strict=True))
