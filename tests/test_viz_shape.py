"""Tree shape numbers: checked on a hand-built tree and against the tree's own counts."""

from __future__ import annotations

import pytest

from mctslab import UCT, make_game
from mctslab.agents.uct import Node
from mctslab.viz import tree_shape
from mctslab.viz.shape import plot_widths


def test_shape_of_a_hand_built_tree():
    root = Node(state=None, player=1)
    a, b = Node(None, 0, 1, root), Node(None, 0, 2, root)
    root.children = [a, b]
    a.children = [Node(None, 1, 3, a)]
    root.visits, a.visits, b.visits, a.children[0].visits = 4, 3, 1, 1
    shape = tree_shape(root)
    assert (shape.nodes, shape.height, shape.widths) == (4, 2, (1, 2, 1))
    assert shape.mean_depth == (0 + 1 + 1 + 2) / 4 and shape.top_share == 3 / 4
    assert "height  2" in shape.row()
    with pytest.raises(ValueError, match="empty"):
        tree_shape(Node(None, 1))


def test_shape_agrees_with_the_tree_and_a_small_c_grows_a_deeper_narrower_tree():
    game = make_game("connect4")
    deep = UCT(iterations=400, c=0.2, seed=0).search(game, game.initial_state())
    wide = UCT(iterations=400, c=3.0, seed=0).search(game, game.initial_state())
    s_deep, s_wide = tree_shape(deep), tree_shape(wide)
    assert s_deep.nodes == deep.size() and s_deep.height == deep.height()
    assert s_deep.height > s_wide.height and s_deep.mean_depth > s_wide.mean_depth
    assert s_deep.top_share > s_wide.top_share
    assert s_wide.widths[2] > s_deep.widths[2]  # wider near the root


def test_plot_widths_draws_one_line_per_tree():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    game = make_game("tictactoe")
    shapes = {
        f"c = {c}": tree_shape(UCT(iterations=100, c=c, seed=0).search(game, game.initial_state())) for c in (0.3, 2)
    }
    ax = plot_widths(shapes, title="tic-tac-toe")
    assert len(ax.get_lines()) == 2 and ax.get_title() == "tic-tac-toe"
    import matplotlib.pyplot as plt

    plt.close(ax.figure)
