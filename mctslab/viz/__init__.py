"""See the search: the tree UCT builds, drawn with graphviz, one iteration at a time, and interactively.

* :func:`draw_tree`: the tree (pruned to stay readable), a :class:`graphviz.Digraph`;
  :func:`tree_outline`: the same as indented text (the fallback without ``dot``).
* :class:`SearchRecorder`: UCT one iteration at a time, recording the four phases;
  :func:`draw_iteration`: one phase of one iteration, like Bradberry 2015's figures.
* :func:`tree_explorer` and :func:`play_board`: ipywidgets for a notebook, thin
  wiring over :class:`TreeExplorer` and :class:`PlaySession`, which hold the logic.

Chance nodes are drawn as ellipses with their outcomes' probabilities on the edges, for any
agent's tree that speaks the small interface of :mod:`mctslab.viz.labels` (``node.chance``,
``child.probability``). The play board draws chance moves itself (seeded), shows a player
of a hidden-information game only their view until the end, and plays puzzles alone.

Nothing here imports graphviz or ipywidgets until it is used, so ``import mctslab``
needs neither.
"""

from .explorer import TreeExplorer, tree_explorer
from .outline import most_visited_path, tree_outline
from .phases import PHASES, draw_iteration
from .playboard import play_board
from .playout import Playout, playout_moves
from .prune import TreeView, prune
from .session import PlaySession
from .shape import TreeShape, tree_shape
from .steps import ChildScore, IterationRecord, SearchRecorder, SelectionStep, Update
from .tree import dot_available, draw_tree, graph_html, side_by_side

__all__ = [
    "PHASES",
    "ChildScore",
    "IterationRecord",
    "PlaySession",
    "Playout",
    "SearchRecorder",
    "SelectionStep",
    "TreeExplorer",
    "TreeShape",
    "TreeView",
    "Update",
    "dot_available",
    "draw_iteration",
    "draw_tree",
    "graph_html",
    "most_visited_path",
    "play_board",
    "playout_moves",
    "prune",
    "side_by_side",
    "tree_explorer",
    "tree_outline",
    "tree_shape",
]
