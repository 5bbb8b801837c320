"""Chance and hidden information in viz: chance nodes drawn as such, and the play board showing a player only what they may see."""

from __future__ import annotations

from fractions import Fraction

import pytest
from toy_games import DiceDuel

from mctslab.agents.node import Node
from mctslab.viz import draw_tree, tree_outline


class ToyNode:
    """A tree node of our own, speaking the chance-node interface of :mod:`mctslab.viz.labels`."""

    def __init__(self, state, player, move=None, parent=None, visits=0, wins=0.0, **interface):
        self.state, self.player, self.move, self.parent = state, player, move, parent
        self.visits, self.wins = visits, wins
        self.mean = wins / visits if visits else 0.5
        self.__dict__.update(interface)  # chance=..., probability=...: only when given
        self.children = []
        if parent is not None:
            parent.children.append(self)


def hand_built_tree(with_attributes=True):
    """DiceDuel's first turn: P0 chooses the steady (0) or the wild die (1); chance rolls it."""
    game = DiceDuel()
    root = ToyNode(game.initial_state(), 1, visits=12, **({"chance": False} if with_attributes else {}))
    flags = {"chance": True} if with_attributes else {}
    for move, visits in ((0, 5), (1, 7)):
        die = ToyNode(game.play(root.state, move), 0, move, root, visits, visits / 2, **flags)
        faces = game.chance_outcomes(die.state)
        for face, probability in faces:
            kwargs = {"probability": probability} if with_attributes else {}
            ToyNode(game.play(die.state, face), -1, face, die, visits // len(faces) + (face == 0), 1.0, **kwargs)
    return game, root


@pytest.mark.parametrize("with_attributes", [True, False])
def test_chance_nodes_are_ellipses_and_their_edges_carry_exact_probabilities(with_attributes):
    game, root = hand_built_tree(with_attributes)
    # Without the attributes the game is asked (it must be given); with them, no game is needed for the shapes.
    graph = draw_tree(root, game, depth=None, top_k=None, max_nodes=None)
    source = graph.source
    assert source.count("shape=ellipse") == 2  # the two dice about to be rolled
    for label in ("1/3", "1/2"):
        assert f"label={label}" in source or f'label="{label}"' in source
    assert "chance: 5" in source and "chance: 3" in source
    assert "ellipse: chance node" in source  # the legend says so
    outline = tree_outline(root, game, depth=None, top_k=None, max_nodes=None)
    assert "chance: 0  p=1/2" in outline and "chance: 2  p=1/3" in outline
    assert outline.count("(chance node)") == 2


def test_floats_are_rounded_and_unknown_probabilities_say_so():
    game, root = hand_built_tree()
    wild = root.children[1]
    wild.children[0].probability, wild.children[1].probability = 0.123456, None
    source = draw_tree(root, game, depth=None, top_k=None, max_nodes=None).source
    assert "label=0.123" in source or 'label="0.123"' in source
    # The second child falls back on the game's exact odds, since its parent has a state.
    assert "label=1/2" in source or 'label="1/2"' in source


def test_no_chance_marks_on_a_tree_without_chance():
    game = DiceDuel()
    root = Node(game.initial_state(), 1)
    source = draw_tree(root).source  # no game: no way (and no need) to tell
    assert "ellipse" not in source and "chance" not in source


def test_package_nodes_without_the_attributes_are_told_by_the_game():
    game = DiceDuel()
    root = Node(game.initial_state(), 1)
    die = Node(game.play(root.state, 1), 0, 1, root)
    root.children = [die]
    root.visits = die.visits = 2
    die.children = [Node(game.play(die.state, f), 0, f, die) for f in (0, 5)]
    for ch in die.children:
        ch.visits = 1
    source = draw_tree(root, game).source
    assert source.count("shape=ellipse") == 1 and source.count("1/2") == 2
    assert "ucb" not in draw_tree(root, game, ucb=True).source.split("chance: 0")[1].split("\n")[0]
