"""The step recorder and the recorded playouts: they show the real search and change nothing."""

from __future__ import annotations

import random

import pytest
from conftest import games_for

from mctslab import UCT, IllegalMoveError, make_agent, make_game
from mctslab.games import CHANCE
from mctslab.games.tictactoe import TicTacToe
from mctslab.ucb import ucb1
from mctslab.viz import SearchRecorder, playout_moves
from mctslab.viz.playout import copy_rng, move_order

GAMES = [*games_for(UCT.handles), "tictactoe:n=4,k=3"]


def shape(node):
    """Everything about a tree that a search decides, as nested tuples (children in creation order)."""
    return (
        node.move,
        node.player,
        node.visits,
        node.wins,
        tuple(node.untried or ()),
        tuple(shape(ch) for ch in node.children),
    )


def random_position(game, rng, plies):
    state = game.initial_state()
    for _ in range(plies):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.apply(state, moves[rng.randrange(len(moves))])
    return state


@pytest.mark.parametrize("spec", GAMES)
def test_recorded_search_builds_exactly_the_tree_of_uct_search(spec):
    game = make_game(spec)
    state = game.initial_state()
    expected = UCT(iterations=120, seed=7).search(game, state)
    rec = SearchRecorder(game, state, seed=7)
    rec.run(30)
    for _ in range(40):
        rec.step()
    rec.run(50)
    assert rec.iterations == 120
    assert shape(rec.root) == shape(expected)


def test_recorded_search_matches_uct_analyse_and_its_maximum_depth():
    game = make_game("tictactoe")
    state = game.state_from_moves([4, 0])
    expected = UCT(iterations=300, seed=3).analyse(game, state)
    rec = SearchRecorder(game, state, seed=3)
    for _ in range(300):
        rec.step()
    got = rec.analysis()
    assert (got.move, got.stats, got.max_depth, got.iterations) == (
        expected.move,
        expected.stats,
        expected.max_depth,
        expected.iterations,
    )


def test_recording_with_a_playout_cap_matches_too_and_marks_cut_playouts():
    game = make_game("connect4")
    expected = UCT(iterations=60, max_moves=3, seed=1).search(game, game.initial_state())
    rec = SearchRecorder(game, game.initial_state(), seed=1, max_moves=3)
    records = [rec.step() for _ in range(60)]
    assert shape(rec.root) == shape(expected)
    assert all(r.playout.cut and len(r.playout.moves) == 3 and r.playout.returns == (0.5, 0.5) for r in records)


@pytest.mark.parametrize("spec", GAMES)
def test_every_iteration_record_obeys_the_four_phases(spec):
    game = make_game(spec)
    rec = SearchRecorder(game, game.initial_state(), seed=11)
    rec.run(25)
    for _ in range(25):
        visits_before = rec.root.visits
        size_before = rec.root.size()
        r = rec.step()
        # the root got one more visit; the tree grew by the expanded node only
        assert rec.root.visits == visits_before + 1 == r.number
        assert rec.root.size() == size_before + (r.expanded is not None)
        # the path is a path in the tree, from the root down to the simulated node
        path = r.path
        assert path[0] is rec.root and path[-1] is r.start
        assert all(child.parent is parent for parent, child in zip(path, path[1:], strict=False))
        assert r.depth == len(path) - 1
        # selection: every step picked the child with the highest UCB1 value
        assert [s.node for s in r.selection] + [r.leaf] == list(path[: len(r.selection) + 1])
        for step in r.selection:
            if game.has_chance and game.to_move(step.node.state) == CHANCE:  # drawn, not chosen: no scores
                assert step.scores == () and step.chosen in step.node.children
                continue
            assert [s.node for s in step.scores] == step.node.children
            best = max(step.scores, key=lambda s: s.ucb)
            assert step.chosen is best.node
            for s in step.scores:
                assert s.ucb == ucb1(s.wins / s.visits, step.visits, s.visits, r.c)
        # expansion: a new leaf with one visit, whose move is no longer untried
        if r.expanded is not None:
            assert r.expanded.parent is r.leaf and r.expanded.visits == 1 and not r.expanded.children
            assert r.expanded.move not in (r.leaf.untried or ())  # a chance node's outcomes are never untried
        else:
            assert game.is_terminal(r.leaf.state)
        # simulation: the recorded moves lead from the new node to the recorded end
        state = r.start.state
        for move in r.playout.moves:
            state = game.play(state, move)
        assert state == r.playout.final and r.playout.exact
        assert game.returns(state) == r.playout.returns
        # backpropagation: each node on the path got one visit and its player's reward
        assert [u.node for u in r.updates] == list(reversed(path))
        for u in r.updates:
            assert u.node.visits == u.visits + 1
            assert u.node.wins == u.wins + u.reward
            assert u.reward == r.playout.returns[u.node.player]


def test_an_iteration_ending_on_a_finished_game_adds_no_node():
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 3, 1, 4])  # X to move: 2 wins at once
    rec = SearchRecorder(game, state, seed=0)
    records = [rec.step() for _ in range(200)]
    terminal = [r for r in records if r.expanded is None]
    assert terminal, "the winning move's node is selected again and again"
    for r in terminal:
        assert game.is_terminal(r.leaf.state) and r.playout.moves == ()
        assert "the game is over here" in r.describe(game)


def test_describe_tells_the_four_phases_with_the_numbers():
    game = make_game("tictactoe")
    rec = SearchRecorder(game, game.state_from_moves([4]), seed=1)
    r = rec.run(40).step()
    text = r.describe(game)
    for phase in ("1. selection", "2. expansion", "3. simulation", "4. backpropagation"):
        assert phase in text
    chosen = r.selection[0].chosen
    assert f"O {chosen.move}" in text and "<- highest, chosen" in text
    assert f"new node X {r.expanded.move} (0/0)" in text
    assert "the root 40 -> 41 visits" in text


def test_recorder_errors_teach():
    game = make_game("tictactoe")
    with pytest.raises(IllegalMoveError):
        SearchRecorder(game, game.state_from_moves([0, 3, 1, 4, 2]))
    with pytest.raises(TypeError, match="UCT"):
        SearchRecorder(game, game.initial_state(), make_agent("random", seed=0))
    rec = SearchRecorder(game, game.initial_state())
    with pytest.raises(ValueError, match=">= 0"):
        rec.run(-1)
    with pytest.raises(ValueError, match="no iteration"):
        rec.analysis()


@pytest.mark.parametrize("spec", [*GAMES, "connect4:rows=4,cols=5,k=3", "nim:heaps=1-2-7"])
def test_playout_replay_draws_like_the_games_own_rollout(spec):
    # Same result and the generator left in the same state: the same random numbers were
    # drawn, one per move, and they picked moves that ended the same way.
    game = make_game(spec)
    positions = random.Random(0)
    for s in range(150):
        state = random_position(game, positions, positions.randrange(12))
        cap = None if s % 3 else positions.randrange(1, 10)
        real, twin = random.Random(s), random.Random(s)
        result = game.rollout(state, real, cap)
        replay = playout_moves(game, state, twin, cap)
        assert replay.returns == result
        assert twin.getstate() == real.getstate()


def test_the_replay_check_can_fail_the_wrong_move_order_is_caught():
    game = make_game("tictactoe")
    assert move_order(game) == "pool"
    mismatches = 0
    for s in range(100):
        real, twin = random.Random(s), random.Random(s)
        result = game.rollout(game.initial_state(), real)
        replay = playout_moves(game, game.initial_state(), twin, order="ordered")
        mismatches += replay.returns != result or twin.getstate() != real.getstate()
    assert mismatches > 10


class ReversedRollout(TicTacToe):
    """A game whose rollout the recorder does not know (it picks from the legal moves reversed)."""

    def rollout(self, state, rng, max_moves=None):
        while not self.is_terminal(state):
            moves = self.legal_moves(state)[::-1]
            state = self.apply(state, moves[int(rng.random() * len(moves))])
        return self.returns(state)


def test_an_unknown_rollout_is_flagged_when_the_replay_disagrees_and_the_tree_is_unchanged():
    game = ReversedRollout()
    assert move_order(game) is None
    expected = UCT(iterations=80, seed=2).search(game, game.initial_state())
    rec = SearchRecorder(game, game.initial_state(), seed=2)
    records = [rec.step() for _ in range(80)]
    assert shape(rec.root) == shape(expected)
    assert any(not r.playout.exact for r in records)
    # whatever the replay says, the record keeps the result that was backpropagated
    assert all(r.updates[0].reward == r.playout.returns[r.start.player] for r in records)


def test_copy_rng_leaves_the_original_alone():
    rng = random.Random(5)
    twin = copy_rng(rng)
    assert [twin.random() for _ in range(3)] == [rng.random() for _ in range(3)]
