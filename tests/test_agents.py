"""Agents against the oracle: both seats, perfect play, determinism, and errors that teach."""

from __future__ import annotations

import pytest
from conftest import saving_moves, winning_moves

from mctslab import UCT, IllegalMoveError, SpecError, make_agent, make_game, play_game
from mctslab.agents import AGENTS
from mctslab.agents.montecarlo import WindowedMonteCarlo
from mctslab.games import GAMES
from mctslab.games.kinds import TWO_PLAYERS

MC_AGENTS = [
    "uct:iterations=3000",
    "flat:playouts=200",
    "windowed:playouts=100",
    "flat:playouts=200,batched=true",
    "windowed:playouts=100,batched=true",
    "minimax",
]

# (moves so far, seat to move, what the position asks for). The oracle below checks
# that each really has exactly one right answer, so a wrong position cannot pass.
POSITIONS = [
    ([0, 3, 1, 4], "X", "win"),  # X completes the top row at 2 (O threatens 5)
    ([0, 1, 2, 4, 3], "O", "win"),  # O completes the middle column at 7 (X threatens 6)
    ([0, 4, 8, 2], "X", "block"),  # O threatens 6 on the anti-diagonal
    ([0, 4, 1], "O", "block"),  # X threatens 2 on the top row
]


def _answers(game, state, kind):
    return winning_moves(game, state) if kind == "win" else saving_moves(game, state)


@pytest.mark.parametrize("moves,seat,kind", POSITIONS)
@pytest.mark.parametrize("spec", MC_AGENTS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_point_of_view_both_seats(ttt, moves, seat, kind, spec, seed):
    """The two-player sign bug: each agent must find the only good move, as X and as O."""
    state = ttt.state_from_moves(moves)
    assert ttt.to_move(state) == "XO".index(seat)
    answers = _answers(ttt, state, kind)
    assert len(answers) == 1, f"the position must have exactly one right move, has {answers}"
    assert make_agent(spec, seed=seed).select_move(ttt, state) in answers


def test_the_oracle_is_not_trivial(ttt):
    """Every other move really loses (or fails to win): the positions discriminate."""
    for moves, _seat, kind in POSITIONS:
        state = ttt.state_from_moves(moves)
        assert len(ttt.legal_moves(state)) >= 4
        assert len(_answers(ttt, state, kind)) == 1


@pytest.mark.parametrize("uct_seat", [0, 1])
def test_uct_never_loses_to_perfect_play(uct_seat):
    games = 18
    for seed in range(games):
        agents = ["minimax", "minimax"]
        agents[uct_seat] = "uct:iterations=2000"
        record = play_game("tictactoe", agents, seed=1000 * uct_seat + seed)
        assert record.returns[uct_seat] >= 0.5, f"UCT lost as player {uct_seat}: moves {record.moves}"


def test_minimax_draws_itself_and_beats_random():
    assert play_game("tictactoe", ["minimax", "minimax"], seed=3).winner is None
    for seat in (0, 1):
        for seed in range(10):
            agents = ["random", "random"]
            agents[seat] = "minimax"
            assert play_game("tictactoe", agents, seed=seed).returns[seat] >= 0.5


@pytest.mark.parametrize(
    "spec",
    [
        "random",
        "flat:playouts=20",
        "windowed:playouts=20,window=3",
        "flat:playouts=20,batched=true",
        "uct:iterations=300",
        "minimax",
        "minimax:depth=2",
    ],
)
def test_same_seed_same_game(spec):
    first = play_game("tictactoe", [spec, "uct:iterations=200"], seed=42)
    second = play_game("tictactoe", [spec, "uct:iterations=200"], seed=42)
    assert first.moves == second.moves
    a, b = make_agent(spec, seed=5), make_agent(spec, seed=5)
    game = make_game("connect4") if spec != "minimax" else make_game("tictactoe:n=4,k=3")
    if spec != "minimax":
        state = game.initial_state()
        assert a.select_move(game, state) == b.select_move(game, state)


def test_different_seeds_differ():
    games = {tuple(play_game("tictactoe", ["random", "random"], seed=s).moves) for s in range(10)}
    assert len(games) > 5


def test_uct_tree_bookkeeping(ttt):
    agent = UCT(iterations=500, seed=0)
    analysis = agent.analyse(ttt, ttt.initial_state())
    root = analysis.root
    assert root.visits == 500 == analysis.iterations
    assert sum(ch.visits for ch in root.children) == 500
    assert {s.move for s in analysis.stats} == set(ttt.legal_moves(ttt.initial_state()))
    assert analysis.move == max(root.children, key=lambda ch: ch.visits).move
    assert root.size() == 501  # one node per iteration: no iteration reached a terminal node yet
    assert 1 <= analysis.max_depth == root.height() <= 9
    for node in root.iter_nodes():
        if node.children:
            assert node.visits >= sum(ch.visits for ch in node.children)
            for ch in node.children:  # children are the parent's player-to-move's moves
                assert ch.player == ttt.to_move(node.state)
                assert 0.0 <= ch.mean <= 1.0
    stat = analysis.stats[0]
    assert stat.ucb == pytest.approx(stat.mean + stat.exploration)


def test_uct_winning_child_mean_is_high_for_its_mover(ttt):
    """Point of view in the tree: the winning child's mean counts the mover's wins."""
    for moves, winner_move in (([0, 3, 1, 4], 2), ([0, 1, 2, 4, 3], 7)):
        root = UCT(iterations=2000, seed=1).search(ttt, ttt.state_from_moves(moves))
        child = root.child(winner_move)
        assert child.mean == 1.0 and child.visits > 1000


def test_uct_final_by_mean_and_reuse(ttt):
    state = ttt.state_from_moves([0, 3, 1, 4])
    assert UCT(iterations=2000, final="mean", seed=0).select_move(ttt, state) == 2
    agent = UCT(iterations=300, reuse=True, seed=0)
    root = agent.search(ttt, ttt.initial_state())
    reply = max(root.children, key=lambda ch: ch.visits)
    grandchild = max(reply.children, key=lambda ch: ch.visits)
    kept = grandchild.visits
    again = agent.search(ttt, grandchild.state)
    assert again is grandchild and again.parent is None and again.visits == kept + 300
    agent.reset()
    assert agent.search(ttt, grandchild.state).visits == 300


def test_uct_time_budget_returns_a_legal_move(ttt):
    analysis = make_agent("uct:seconds=0.01", seed=0).analyse(ttt, ttt.initial_state())
    assert analysis.move in ttt.legal_moves(ttt.initial_state()) and analysis.iterations >= 1


def test_windowed_rounds_follow_seed_001(ttt):
    agent = WindowedMonteCarlo(playouts=10, window=3, keep=(4, 2), seed=0)
    analysis = agent.analyse(ttt, ttt.initial_state())
    assert analysis.iterations == 10 * (9 + 4 + 2)
    # the two finalists were sampled afresh in round 3: 10 playouts each, as in the paper
    assert sorted(s.visits for s in analysis.stats) == [10] * 9
    reused = WindowedMonteCarlo(playouts=10, window=3, keep=(4, 2), reuse=True, seed=0).analyse(
        ttt, ttt.initial_state()
    )
    assert sorted(s.visits for s in reused.stats) == [10] * 5 + [20] * 2 + [30] * 2
    few = ttt.state_from_moves([0, 1, 2, 4, 3, 5])  # 3 moves left: no round keeps 4 of 3
    assert agent.analyse(ttt, few).iterations == 10 * 3
    halving = WindowedMonteCarlo(playouts=10, window=4, keep="half", seed=0).analyse(ttt, ttt.initial_state())
    assert halving.iterations == 10 * (9 + 5 + 3 + 2)
    flat = make_agent("flat:playouts=10", seed=0).analyse(ttt, ttt.initial_state())
    assert flat.iterations == 90 and all(s.score == pytest.approx(s.visits * (2 * s.mean - 1)) for s in flat.stats)


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_registered_agent_refuses_a_finished_game(ttt, name):
    game, over = ttt, ttt.state_from_moves([0, 3, 1, 4, 2])
    if TWO_PLAYERS not in AGENTS[name].handles:  # a puzzle solver: a finished puzzle of a kind it plays
        game = next(
            make_game(e.test_spec)
            for e in GAMES.values()
            if make_game(e.test_spec).kind().traits <= AGENTS[name].handles
        )
        over = game.state_from_moves(play_game(game, ["random"], seed=0).moves)
    with pytest.raises(IllegalMoveError, match="game is over"):
        make_agent(name, seed=0).select_move(game, over)


@pytest.mark.parametrize(
    "spec,message",
    [
        ("alphazero", r"unknown agent 'alphazero'; known agents: expectimax, flat, .*random, .*uct, windowed\b"),
        ("uct:iters=10", r"unknown parameter 'iters' for agent 'uct'; known parameters: c, engine, final, iterations"),
        ("uct:iterations", r"malformed parameter 'iterations'"),
        ("uct:iterations=0", r"iterations must be an integer >= 1, got 0"),
        ("uct:iterations=-5", r"iterations must be an integer >= 1, got -5"),
        ("uct:iterations=ten", r"bad value 'ten' for parameter 'iterations'"),
        ("uct:c=-1", r"c must be a finite number >= 0.0 \(the exploration constant\), got -1"),
        ("uct:seconds=0", r"seconds must be a finite number > 0.0"),
        ("uct:final=best", r"final must be 'visits' or 'mean'"),
        ("flat:playouts=0", r"playouts must be an integer >= 1"),
        ("windowed:window=0", r"window must be an integer >= 1"),
        ("windowed:keep=4-0", r"each entry of keep must be an integer >= 1"),
        ("windowed:keep=most", r"bad value 'most'"),
        ("minimax:depth=0", r"depth must be an integer >= 1"),
        ("uct:c=1,c=2", r"given twice"),
        (":x=1", r"empty name"),
    ],
)
def test_bad_agent_specs(spec, message):
    with pytest.raises(SpecError, match=message):
        make_agent(spec)


def test_an_unknown_agent_lists_every_registered_one():
    with pytest.raises(SpecError) as err:
        make_agent("alphazero")
    message, hint = (
        str(err.value),
        " (the course's own agents, such as racioppo, are registered by `import mctslab.course`)",
    )
    assert message.endswith(hint)
    general, _, special = (
        message.removesuffix(hint).removeprefix("unknown agent 'alphazero'; known agents: ").partition("; ")
    )
    assert general.split(", ") == sorted(n for n in AGENTS if not AGENTS[n].experiment)
    experiments = sorted(n for n in AGENTS if AGENTS[n].experiment)
    assert special == (f"experiments' agents: {', '.join(experiments)}" if experiments else "")


@pytest.mark.parametrize(
    "spec,message",
    [
        ("chess", r"unknown game 'chess'; known games: .*tictactoe"),
        ("tictactoe:size=3", r"unknown parameter 'size' for game 'tictactoe'; known parameters: k, n"),
        ("tictactoe:n=three", r"bad value 'three'"),
    ],
)
def test_bad_game_specs(spec, message):
    with pytest.raises(SpecError, match=message):
        make_game(spec)


def test_wrong_types():
    with pytest.raises(SpecError, match="must be a string"):
        make_game(3)
    with pytest.raises(TypeError, match="seed must be"):
        make_agent("random", seed="zero")
    with pytest.raises(TypeError, match="iterations must be an integer"):
        UCT(iterations=10.5)
    with pytest.raises(TypeError, match="c must be a finite number"):
        UCT(c="wide")
    with pytest.raises(ValueError, match="exactly two agents"):
        play_game("tictactoe", ["random"])
    assert issubclass(SpecError, ValueError)


def test_uct_selection_is_the_ucb1_argmax(ttt):
    """The tree policy's written-out formula agrees with mctslab.ucb1 at every node."""
    from mctslab import ucb1

    agent = UCT(iterations=3000, c=0.9, seed=4)
    root = agent.search(ttt, ttt.initial_state())
    checked = 0
    for node in root.iter_nodes():
        if node.untried or not node.children:
            continue
        scores = [ucb1(ch.wins / ch.visits, node.visits, ch.visits, 0.9) for ch in node.children]
        expected = node.children[scores.index(max(scores))]
        leaf, depth = agent.select(node)
        while leaf.parent is not node:
            leaf = leaf.parent
        assert leaf is expected and depth >= 1
        checked += 1
    assert checked > 100
