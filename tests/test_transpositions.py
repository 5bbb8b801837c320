"""UCT with transpositions: one node per position, statistics shared between move orders, counts consistent."""

from __future__ import annotations

from collections import defaultdict

import pytest

from mctslab import UCT, exact, make_agent, make_game, play_game
from mctslab.agents.transpositions import TNode, TranspositionUCT, dag_size
from mctslab.viz import SearchRecorder


def incoming(table):
    counts = defaultdict(int)
    for node in table.values():
        for child, n in zip(node.children, node.edge_visits, strict=True):
            counts[id(child)] += n
    return counts


@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "nim"])
def test_one_node_per_position_and_visits_add_up_over_every_parent(spec):
    game = make_game(spec)
    agent = TranspositionUCT(iterations=2000, seed=3)
    root = agent.search(game, game.initial_state())
    assert len({id(n) for n in agent.table.values()}) == len(agent.table) == dag_size(root)[0]
    assert all(agent.table[n.state] is n for n in agent.table.values())
    into = incoming(agent.table)
    assert into[id(root)] == 0 and root.visits == 2000
    for node in agent.table.values():
        if node is not root:
            assert node.visits == into[id(node)]  # every visit came through one of its edges
        assert sum(node.edge_visits) <= node.visits
        assert node.wins == pytest.approx(node.mean * node.visits)


def test_two_move_orders_share_one_node_and_its_statistics():
    game = make_game("tictactoe")
    agent = TranspositionUCT(iterations=3000, seed=0)
    agent.search(game, game.initial_state())
    shared = [n for n in agent.table.values() if len(parents_of(agent.table, n)) > 1]
    assert shared, "some position was reached by two move orders"
    x04 = game.state_from_moves([0, 1, 4])
    a, b = agent.table[game.state_from_moves([0, 1])], agent.table[game.state_from_moves([4, 1])]
    node = agent.table[x04]
    assert node in a.children and node in b.children  # X 0 then 4, or X 4 then 0: one node
    assert a.moves[a.children.index(node)] == 4 and b.moves[b.children.index(node)] == 0
    assert node.visits == a.edge_visits[a.children.index(node)] + b.edge_visits[b.children.index(node)] + sum(
        p.edge_visits[p.children.index(node)] for p in parents_of(agent.table, node) if p is not a and p is not b
    )


def parents_of(table, node):
    return [p for p in table.values() if node in p.children]


def test_it_builds_fewer_nodes_than_uct_on_tictactoe():
    game = make_game("tictactoe")
    agent = TranspositionUCT(iterations=8000, seed=0)
    agent.search(game, game.initial_state())
    tree = UCT(iterations=8000, seed=0).search(game, game.initial_state())
    assert len(agent.table) <= sum(1 for _ in exact.reachable_states(game)) == 5478
    assert 2 * len(agent.table) < tree.size()


def test_it_finds_wins_from_both_seats_and_round_trips():
    game = make_game("tictactoe")
    assert TranspositionUCT(iterations=400, seed=0).select_move(game, game.state_from_moves([0, 3, 1, 4])) == 2
    assert TranspositionUCT(iterations=400, seed=0).select_move(game, game.state_from_moves([0, 3, 1, 4, 8])) == 5
    agent = make_agent("transpositions:iterations=30,reuse=true", seed=0)
    assert isinstance(agent, TranspositionUCT) and agent.spec == "transpositions:iterations=30,reuse=true"
    for spec in ("connect4", "nim", "uttt"):
        record = play_game(make_game(spec), [agent, UCT(iterations=30, seed=1)])
        assert record.moves


def test_the_recorder_steps_are_the_search():
    game = make_game("tictactoe")
    rec = SearchRecorder(game, game.initial_state(), TranspositionUCT(seed=2)).run(50)
    for _ in range(30):
        rec.step()
    agent = TranspositionUCT(iterations=80, seed=2)
    root = agent.search(game, game.initial_state())
    assert type(rec.root) is TNode and rec.root.edge_visits == root.edge_visits
    assert dag_size(rec.root) == dag_size(root)
