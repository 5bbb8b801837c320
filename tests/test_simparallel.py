"""Simulated parallel UCT (mctslab.agents.simparallel): what each mode does, exactly, on small searches."""

from __future__ import annotations

import pytest

from mctslab import make_agent, make_game
from mctslab.agents import UCT, SimParallel
from mctslab.agents.node import Node
from mctslab.agents.rules import UCB1, SelectionRule, best_child_by
from mctslab.agents.simparallel import merge_roots

GAME = make_game("connect4")
START = GAME.initial_state()


def tree_stats(root):
    """Every node's (depth-first path of moves, visits, wins): a tree compared as a whole."""
    out, stack = [], [((), root)]
    while stack:
        path, node = stack.pop()
        out.append((path, node.visits, node.wins))
        stack.extend((path + (ch.move,), ch) for ch in node.children)
    return sorted(out)


@pytest.mark.parametrize("mode", ["tree", "treenovl", "leaf"])
def test_one_worker_builds_plain_uct_s_tree(mode):
    agent = SimParallel(iterations=300, workers=1, mode=mode, seed=5)
    assert tree_stats(agent.search(GAME, START)) == tree_stats(UCT(iterations=300, seed=5).search(GAME, START))


@pytest.mark.parametrize("mode", ["tree", "treenovl", "root", "leaf"])
def test_iterations_are_per_worker_and_no_virtual_loss_is_left(mode):
    agent = SimParallel(iterations=40, workers=4, mode=mode, virtual_loss=3, seed=1)
    analysis = agent.analyse(GAME, START)
    assert analysis.iterations == 160 and analysis.root.visits == 160
    for node in analysis.root.iter_nodes():
        assert node.visits >= sum(ch.visits for ch in node.children)
        if node.visits:
            assert node.mean == pytest.approx(node.wins / node.visits)


def test_virtual_loss_spreads_a_round_over_the_root_children_and_its_absence_piles_it_on_one():
    spread = {}
    for mode in ("tree", "treenovl"):
        agent = SimParallel(iterations=2, workers=7, mode=mode, virtual_loss=5, seed=0)
        root = agent.new_root(GAME, START)
        agent.iterate(GAME, root)  # round 1: each worker expands its own root child
        assert [ch.visits for ch in root.children] == [1] * 7
        agent.iterate(GAME, root)  # round 2: all seven children are expanded
        spread[mode] = sorted(ch.visits for ch in root.children)
    assert spread == {"tree": [2] * 7, "treenovl": [1] * 6 + [8]}


def test_leaf_mode_expands_one_node_per_round():
    root = SimParallel(iterations=25, workers=8, mode="leaf", seed=2).search(GAME, START)
    assert root.size() == 26 and root.visits == 200


def test_root_mode_sums_independent_trees_and_is_reproducible():
    a = make_agent("simparallel:iterations=30,workers=3,mode=root", seed=9).analyse(GAME, START)
    b = make_agent("simparallel:iterations=30,workers=3,mode=root", seed=9).analyse(GAME, START)
    assert a.stats == b.stats and a.move == b.move
    assert sum(s.visits for s in a.stats) == 90
    c = make_agent("simparallel:iterations=30,workers=3,mode=root", seed=10).analyse(GAME, START)
    assert c.stats != a.stats


def test_merge_roots_adds_the_same_move_s_children():
    trees = [UCT(iterations=20, seed=s).search(GAME, START) for s in (1, 2)]
    merged = merge_roots(GAME, START, trees)
    for child in merged.children:
        parts = [ch for t in trees for ch in t.children if ch.move == child.move]
        assert child.visits == sum(p.visits for p in parts) and child.wins == sum(p.wins for p in parts)
    assert merged.visits == 40


def test_a_bad_mode_is_named_with_the_modes_allowed():
    with pytest.raises(ValueError, match=r"mode='forest'.*tree, treenovl, root, leaf"):
        SimParallel(mode="forest")


def test_a_child_not_yet_backed_up_is_taken_first_without_virtual_loss():
    # Four moves from the end of a full column game, workers meet children of their own round.
    agent = SimParallel(iterations=60, workers=16, mode="treenovl", seed=3)
    state = START
    for move in (0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 4, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4):
        state = GAME.apply(state, move)
    analysis = agent.analyse(GAME, state)  # once failed: log(0) at a parent of 0 visits, or looped on 0 x inf = NaN
    assert analysis.root.visits == 960


def test_simulated_workers_select_by_the_agent_s_rule_object():
    # SimParallel once kept its own UCB1 loop: a rule set on the agent was shown in its table but not searched by
    class HighestMove(SelectionRule):
        name = "highest"

        def value(self, parent, child):
            return child.move

    for mode in ("tree", "treenovl", "leaf"):
        agent = SimParallel(iterations=25, workers=4, mode=mode, seed=0)
        agent.rule_class = HighestMove
        root = agent.search(GAME, START)
        # every move is expanded once (the playouts of its expansion: 4 in leaf mode, else 1); every later
        # selection descends into the highest move
        once = 4 if mode == "leaf" else 1
        assert {ch.move: ch.visits for ch in root.children} == {**dict.fromkeys(range(6), once), 6: 100 - 6 * once}


@pytest.mark.parametrize("c", [0.0, 1.0])
@pytest.mark.parametrize("parent_visits", [0, 1, 5])
def test_ucb1_descends_to_a_child_not_yet_backed_up_as_ucb1_values_it(c, parent_visits):
    # a worker can meet a child another worker of its round created and has not backed up (0 visits), under a
    # parent of 0 or 1 visits: UCB1 (mctslab.ucb.ucb1) gives such a child +inf; the factored loop must agree
    rule = UCB1(c)
    root = Node(START, 1)
    root.untried = []
    root.visits = parent_visits
    children = []
    for move, (visits, wins) in enumerate([(3, 3.0), (0, 0.0), (2, 0.0), (0, 0.0)]):
        child = Node(GAME.apply(START, move), 0, move, root)
        child.untried = []  # stops the descent at the child
        for k in range(visits):
            child.add(1.0 if k < wins else 0.0)
        children.append(child)
    root.children = children
    node, depth = rule.descend(root)
    assert (node.move, depth) == (1, 1)
    assert node is best_child_by(rule, root)
