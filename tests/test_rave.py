"""RAVE: AMAF counts re-derived from the iterations' move sequences, the beta schedule, and the recorder."""

from __future__ import annotations

import pytest

from mctslab import UCT, make_agent, make_game, play_game
from mctslab.agents.rave import Rave, RaveNode, amaf_pairs, beta
from mctslab.viz import SearchRecorder, draw_iteration


class LoggingRave(Rave):
    """Rave that logs, per iteration, the leaf's path of moves from the root and the playout."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log = []

    def backpropagate(self, node, returns):
        path, walk = [], node
        while walk is not None:
            path.append(walk)
            walk = walk.parent
        self.log.append((path[::-1], returns.first, returns.moves, returns))  # the playout comes with its returns
        super().backpropagate(node, returns)


@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "uttt"])
def test_amaf_counts_equal_a_recount_from_every_iterations_moves(spec):
    game = make_game(spec)
    agent = LoggingRave(iterations=200, seed=2)
    root = agent.search(game, game.initial_state())
    for node in root.iter_nodes():
        for child in node.children:
            visits, wins = 0, 0.0
            born = next(i for i, entry in enumerate(agent.log) if child in entry[0])  # the iteration adding it
            for path, first, playout, returns in agent.log[born:]:
                if node not in path:
                    continue
                # the moves after ``node``: the tree moves below it, then the playout
                below = path[path.index(node) + 1 :]
                later = {(n.player, n.move) for n in below} | amaf_pairs(first, playout)
                if (child.player, child.move) in later:
                    visits += 1
                    wins += returns[child.player]
            assert (child.amaf_visits, child.amaf_wins) == (visits, pytest.approx(wins)), (node, child)


def test_amaf_matches_the_player_as_well_as_the_move_on_a_hand_checked_position():
    # X: 0 2 3 7, O: 1 4 5; O to move with cells 6 and 8 left. O can play a cell only by
    # choosing it at the root (X plays the other one), so each root child's AMAF count is
    # exactly its own visit count; X's reply below is forced, so its AMAF count is its visits.
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 1, 2, 4, 3, 5, 7])
    root = Rave(iterations=10, seed=0).search(game, state)
    assert sorted(ch.move for ch in root.children) == [6, 8]
    for child in root.children:
        assert child.amaf_visits == child.visits > 0
        for grandchild in child.children:
            assert grandchild.amaf_visits == grandchild.visits


def test_beta_schedule():
    assert beta(250, 0) == 1.0
    assert beta(250, 250) == pytest.approx(0.5)
    assert beta(1000, 10) > beta(1000, 100) > beta(1000, 10_000) > 0
    agent = Rave(k=100, c=0.0)
    parent, child = RaveNode(None, 0), RaveNode(None, 1, 3, None)
    parent.visits, child.visits, child.wins, child.mean = 10, 100, 25.0, 0.25
    child.amaf_visits, child.amaf_wins = 50, 40.0
    assert agent.rule.value(parent, child) == pytest.approx(0.5 * 0.25 + 0.5 * 0.8)


def test_rave_differs_from_uct_finds_wins_and_round_trips():
    game = make_game("tictactoe")
    a = Rave(iterations=300, seed=5).search(game, game.initial_state())
    b = UCT(iterations=300, seed=5).search(game, game.initial_state())
    assert [ch.visits for ch in a.children] != [ch.visits for ch in b.children]
    assert Rave(iterations=400, seed=0).select_move(game, game.state_from_moves([0, 3, 1, 4])) == 2
    assert Rave(iterations=400, seed=0).select_move(game, game.state_from_moves([0, 3, 1, 4, 8])) == 5
    agent = make_agent("rave:iterations=20,k=40", seed=0)
    assert agent.spec == "rave:iterations=20,k=40" and agent.k == 40.0
    with pytest.raises(ValueError):
        Rave(k=0)
    record = play_game(make_game("nim"), [agent, make_agent("uct:iterations=20", seed=1)])
    assert record.moves


def test_the_recorder_records_rave_exactly():
    game = make_game("tictactoe")
    rec = SearchRecorder(game, game.initial_state(), Rave(seed=1)).run(30)
    for _ in range(10):
        r = rec.step()
        assert r.playout.exact and r.rule == "RAVE"
        assert "RAVE" in draw_iteration(r, "selection", game).source
    assert rec.root.size() == Rave(iterations=40, seed=1).search(game, game.initial_state()).size()
