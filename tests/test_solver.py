"""MCTS-Solver: proven values equal the exact ones, proven wins are played at once, and it is quicker than UCT."""

from __future__ import annotations

import pytest

from mctslab import UCT, exact, make_agent, make_game, play_game
from mctslab.agents.solver import Solver, SolverNode, iterations_to_prove, root_value
from mctslab.course.experiments.improvements import CONNECT4_ENDGAMES, iterations_to_win
from mctslab.viz import SearchRecorder, TreeExplorer, draw_iteration, draw_tree

VALUE = {1: 1.0, 0: 0.5, -1: 0.0}  # exact.solve's -1/0/1 as a return for the player to move


def depth_states(game, plies):
    return [
        s for s in exact.reachable_states(game) if len(game.legal_moves(s)) == 9 - plies and not game.is_terminal(s)
    ]


@pytest.mark.parametrize("plies", [4, 5])  # X to move after 4 plies, O after 5: both seats
def test_it_proves_tictactoe_positions_with_the_exact_value(ttt, plies):
    states = depth_states(ttt, plies)[::7]  # 108 and 163 positions, every 7th
    assert {ttt.to_move(s) for s in states} == {plies % 2}
    assert {exact.solve(ttt, s) for s in states} == {-1, 0, 1}
    for i, state in enumerate(states):
        agent = Solver(seed=i)
        root = agent.new_root(ttt, state)
        for _ in range(2000):
            agent.iterate(ttt, root)
            if root.proven is not None:
                break
        assert root_value(root) == VALUE[exact.solve(ttt, state)]
        move = agent.best_child(root).move
        assert exact.move_values(ttt, state)[move] == exact.solve(ttt, state), "it plays a move keeping the value"


def test_every_proven_node_in_a_tree_has_its_exact_value(ttt):
    root = Solver(iterations=3000, seed=0).search(ttt, ttt.state_from_moves([4]))
    proven = [n for n in root.iter_nodes() if n.proven is not None]
    assert len(proven) > 100 and any(not ttt.is_terminal(n.state) for n in proven)
    for n in proven:  # node.proven is for node.player, who made the move into it
        assert n.player != ttt.to_move(n.state) or ttt.is_terminal(n.state)
        assert n.proven == 1.0 - VALUE[exact.solve(ttt, n.state)]


def test_a_proven_win_is_played_at_once_from_both_seats(ttt):
    for moves, win in (([0, 3, 1, 4], 2), ([0, 3, 1, 4, 8], 5)):  # X, then O
        state = ttt.state_from_moves(moves)
        agent = Solver(seed=0)
        root = agent.new_root(ttt, state)
        while root.proven is None:
            agent.iterate(ttt, root)
        assert agent.best_child(root).move == win and root_value(root) == 1.0
        assert Solver(iterations=50, seed=1).select_move(ttt, state) == win


def test_proven_losses_are_never_selected_and_the_root_reports_a_loss(ttt):
    state = ttt.state_from_moves([0, 4, 8, 2, 6])  # X threatens 3 and 7: O (to move) is lost
    assert exact.solve(ttt, state) == -1
    a = Solver(iterations=500, seed=0).analyse(ttt, state)
    assert a.value == 0.0 and a.root.proven == 1.0
    root = a.root
    assert all(ch.proven == 0.0 for ch in root.children)
    assert Solver().rule.value(root, root.children[0]) == float("-inf")


def test_a_proven_node_backs_up_its_exact_result_without_randomness(ttt):
    agent = Solver(seed=0)
    node = SolverNode(ttt.state_from_moves([0, 3, 1, 4, 2]), 0)
    node.proven = 1.0
    before = agent.rng.getstate()
    assert agent.simulate(ttt, node) == (1.0, 0.0)
    assert agent.rng.getstate() == before


def test_on_a_connect4_endgame_it_plays_the_forced_win_sooner_than_uct():
    game = make_game("connect4")
    state = game.state_from_moves(CONNECT4_ENDGAMES[5])
    values = exact.move_values(game, state)
    winning = [m for m, v in values.items() if v == 1]
    assert winning and len(winning) < len(values) and exact.WIN - max(exact.move_scores(game, state).values()) >= 5
    for seed in (0, 1):
        n = iterations_to_prove(Solver(seed=seed), game, state, 1000)
        assert n is not None
        assert Solver(iterations=n, seed=seed).analyse(game, state).value == 1.0
        assert iterations_to_win(UCT(seed=seed), game, state, winning, 1000) is None
        assert iterations_to_win(Solver(seed=seed), game, state, winning, 1000) <= n


def test_spec_round_trip_and_games():
    agent = make_agent("solver:iterations=30,c=0.7", seed=0)
    assert isinstance(agent, Solver) and agent.spec == "solver:iterations=30,c=0.7"
    for spec in ("tictactoe", "connect4", "nim", "uttt"):
        game = make_game(spec)
        record = play_game(game, [agent, make_agent("uct:iterations=30", seed=1)])
        assert game.is_terminal(game.state_from_moves(record.moves))


def test_recorder_and_explorer_work_on_the_solver(ttt):
    state = ttt.state_from_moves([0, 4, 8])
    rec = SearchRecorder(ttt, state, Solver(seed=3)).run(60)
    for _ in range(20):
        r = rec.step()
        assert draw_iteration(r, "selection", ttt).source
    expected = Solver(iterations=80, seed=3).search(ttt, state)
    assert rec.root.size() == expected.size() and rec.root.proven == expected.proven
    assert draw_tree(rec.root, ttt).source
    ex = TreeExplorer(ttt, iteration=20, agent=Solver(seed=4))
    ex.step()
    assert type(ex.root) is SolverNode and ex.html()


def test_the_docstring_examples_run():
    import doctest

    from mctslab.agents import solver, transpositions

    for module in (solver, transpositions):
        assert doctest.testmod(module).failed == 0
