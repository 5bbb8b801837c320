"""PUCT and its numpy network: gradients, point of view from both seats, training determinism."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mctslab import make_agent, make_game
from mctslab.agents.base import CannotPlayError
from mctslab.agents.puct import PUCT
from mctslab.alphazero.training import TrainConfig, read_log, train
from mctslab.games import network_encoding
from mctslab.nets.evaluators import shipped_network, weights_path
from mctslab.nets.network import Adam, Batch, PolicyValueNet

TTT = make_game("tictactoe")


def _random_batch(rng: np.random.Generator, n: int = 5, inputs: int = 18, moves: int = 9) -> Batch:
    x = rng.integers(0, 2, (n, inputs)).astype(float)
    legal = (rng.random((n, moves)) < 0.6).astype(float)
    legal[:, 0] = 1.0
    pi = rng.random((n, moves)) * legal
    pi /= pi.sum(axis=1, keepdims=True)
    return Batch(x, legal, pi, rng.choice([0.0, 0.5, 1.0], n))


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    net = PolicyValueNet(18, 9, hidden=8, seed=1)
    for p in net.params.values():  # non-zero biases, so every gradient is exercised
        p += rng.normal(0, 0.1, p.shape)
    batch = _random_batch(rng)
    _, grads = net.gradients(batch, l2=1e-2)
    h = 1e-6
    for name, param in net.params.items():
        for idx in [tuple(rng.integers(0, s) for s in param.shape) for _ in range(6)]:
            old = param[idx]
            param[idx] = old + h
            up = net.loss(batch, l2=1e-2)
            param[idx] = old - h
            down = net.loss(batch, l2=1e-2)
            param[idx] = old
            numeric = (up - down) / (2 * h)
            assert grads[name][idx] == pytest.approx(numeric, rel=1e-4, abs=1e-7), (name, idx)


def test_policy_is_zero_on_illegal_moves_and_sums_to_one():
    net = PolicyValueNet(18, 9, seed=0)
    state = TTT.state_from_moves([4, 0])
    legal = np.array([m in TTT.legal_moves(state) for m in range(9)], dtype=float)
    policy, value = net.predict(network_encoding(TTT).features(state), legal)
    assert policy[[0, 4]].tolist() == [0.0, 0.0]
    assert policy.sum() == pytest.approx(1.0)
    assert 0.0 < float(value) < 1.0


def test_adam_lowers_the_loss_on_a_fixed_batch():
    rng = np.random.default_rng(3)
    net = PolicyValueNet(18, 9, hidden=16, seed=0)
    batch = _random_batch(rng, n=32)
    before = net.loss(batch)
    opt = Adam(net, lr=1e-2)
    for _ in range(200):
        opt.step(net.gradients(batch)[1])
    assert net.loss(batch) < 0.8 * before


def test_save_and_load_round_trip(tmp_path):
    net = PolicyValueNet(18, 9, seed=5)
    net.save(tmp_path / "n.npz")
    back = PolicyValueNet.load(tmp_path / "n.npz")
    x, legal = network_encoding(TTT).features(TTT.initial_state()), np.ones(9)
    np.testing.assert_allclose(back.predict(x, legal)[0], net.predict(x, legal)[0], rtol=1e-5)
    np.savez(tmp_path / "bad.npz", W1=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="not a policy/value network"):
        PolicyValueNet.load(tmp_path / "bad.npz")


def test_features_are_from_the_point_of_view_of_the_player_to_move():
    after_x = TTT.state_from_moves([4])  # O to move: X's centre stone is the opponent's
    after_xo = TTT.state_from_moves([4, 0])  # X to move: the centre stone is its own
    assert (
        after_x.x
        and network_encoding(TTT).features(after_x)[9 + 4] == 1.0
        and network_encoding(TTT).features(after_x)[4] == 0.0
    )
    assert network_encoding(TTT).features(after_xo)[4] == 1.0 and network_encoding(TTT).features(after_xo)[9 + 0] == 1.0


@pytest.mark.parametrize("game_spec", ["tictactoe", "connect4"])
def test_symmetries_map_positions_to_positions(game_spec):
    game = make_game(game_spec)
    rng = np.random.default_rng(0)
    for _ in range(20):
        state, moves = game.initial_state(), []
        while not game.is_terminal(state) and len(moves) < 5:
            move = int(rng.choice(game.legal_moves(state)))
            moves.append(move)
            state = game.apply(state, move)
        for feature_perm, move_perm in network_encoding(game).symmetries():
            original_of = dict(enumerate(move_perm))
            image = game.initial_state()
            for move in moves:  # play, in the image, the move that maps onto each original move
                image = game.apply(image, next(i for i, m in original_of.items() if m == move))
            assert np.array_equal(
                network_encoding(game).features(state)[list(feature_perm)], network_encoding(game).features(image)
            )


# -- point of view, from both seats -------------------------------------------------------
WIN_AS_X = ([0, 3, 1, 4], 2)  # X: 0 1 _, O: 3 4: X to move wins at 2
WIN_AS_O = ([0, 3, 1, 4, 8], 5)  # O to move wins at 5 (and must: X threatens 2)
BLOCK_AS_O = ([0, 4, 1], 2)  # O to move must block 2
BLOCK_AS_X = ([4, 0, 8, 1], 2)  # X to move must block 2 (O threatens 0 1 2)


@pytest.mark.parametrize("evaluator", ["rollout", "net"])
@pytest.mark.parametrize(("moves", "answer"), [WIN_AS_X, WIN_AS_O, BLOCK_AS_O, BLOCK_AS_X])
def test_wins_and_blocks_from_both_seats(evaluator, moves, answer):
    state = TTT.state_from_moves(moves)
    for seed in range(3):
        agent = PUCT(iterations=200, evaluator=evaluator, seed=seed)
        assert agent.select_move(TTT, state) == answer, (moves, seed)


def test_node_means_are_for_the_player_who_moved_into_them():
    state = TTT.state_from_moves(WIN_AS_O[0])
    root = PUCT(iterations=300, evaluator="rollout", seed=0).search(TTT, state)
    winning = root.child(WIN_AS_O[1])
    assert winning.player == 1 == TTT.to_move(state)
    assert winning.mean == 1.0  # O's move wins at once: every visit scores 1 for O
    assert root.visits == 300 and sum(ch.visits for ch in root.children) == 299


def test_priors_come_from_the_evaluator_and_sum_to_one():
    root = PUCT(iterations=1, evaluator="net", seed=0).search(TTT, TTT.initial_state())
    assert len(root.children) == 9
    assert sum(ch.prior for ch in root.children) == pytest.approx(1.0)
    uniform = PUCT(iterations=1, evaluator="rollout", seed=0).search(TTT, TTT.initial_state())
    assert {ch.prior for ch in uniform.children} == {1 / 9}


def test_root_noise_changes_priors_only_when_asked():
    quiet = PUCT(iterations=1, evaluator="net", seed=0).search(TTT, TTT.initial_state())
    noisy = PUCT(iterations=1, evaluator="net", noise=0.25, seed=0).search(TTT, TTT.initial_state())
    net_priors = [ch.prior for ch in quiet.children]
    noisy_priors = [ch.prior for ch in noisy.children]
    assert sum(noisy_priors) == pytest.approx(1.0)
    assert noisy_priors != net_priors


def test_spec_round_trips_and_errors_are_clear(tmp_path):
    agent = make_agent("puct:iterations=32,evaluator=net,noise=0.25,alpha=0.5,c=2.0")
    assert make_agent(agent.spec).parameters() == agent.parameters()
    small = make_game("connect4:rows=5,cols=6,k=4")
    with pytest.raises(ValueError, match="no network is shipped for connect4:rows=5,cols=6,k=4"):
        make_agent("puct:iterations=8,evaluator=net").select_move(small, small.initial_state())
    with pytest.raises(ValueError, match="network encoding"):
        nim = make_game("nim")
        make_agent("puct:iterations=8,evaluator=net").select_move(nim, nim.initial_state())
    with pytest.raises(ValueError, match="evaluator"):
        make_agent("puct:evaluator=magic")
    with pytest.raises(ValueError, match="noise"):
        PUCT(noise=1.5)


def test_rollout_evaluator_plays_every_game():
    from mctslab.games import GAMES

    for spec in sorted(GAMES):
        game = make_game(spec)
        if not game.kind().traits <= PUCT.handles:  # a puzzle, a game of chance or of hidden cards
            with pytest.raises(CannotPlayError):
                PUCT(iterations=20, seed=0).select_move(game, game.initial_state())
            continue
        move = PUCT(iterations=20, seed=0).select_move(game, game.initial_state())
        assert move in game.legal_moves(game.initial_state())


# -- training ------------------------------------------------------------------------------
TINY = {"rounds": 2, "games_per_round": 3, "steps_per_round": 5, "iterations": 8, "eval_every": 0, "batch": 16}


def test_training_is_deterministic_and_resumes_to_the_same_network(tmp_path):
    once = train(tmp_path / "a", TrainConfig(**TINY), progress=False)
    again = train(tmp_path / "b", TrainConfig(**TINY), progress=False)
    for k in once.params:
        np.testing.assert_array_equal(once.params[k], again.params[k])
    # Stopped after one round, then resumed: the same network as the run never stopped.
    train(tmp_path / "c", TrainConfig(**(TINY | {"rounds": 1})), progress=False)
    resumed = train(tmp_path / "c", TrainConfig(**TINY), progress=False)
    for k in once.params:
        np.testing.assert_array_equal(once.params[k], resumed.params[k])
    log = read_log(tmp_path / "c")
    assert [r["round"] for r in log] == [1, 2]
    with pytest.raises(ValueError, match="other settings"):
        train(tmp_path / "c", TrainConfig(**(TINY | {"lr": 0.1})), progress=False)
    assert json.loads((tmp_path / "c" / "config.json").read_text())["rounds"] == 2


def test_cli_trains_and_reports(tmp_path, capsys):
    from mctslab.cli import main

    args = ["train", "tictactoe", "--out", str(tmp_path / "r"), "--rounds", "1", "--games-per-round", "2",
            "--steps-per-round", "2", "--iterations", "4", "--eval-every", "1", "--eval-games", "2",
            "--no-progress"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "vs uct" in out and "vs perfect" in out and "net.npz" in out
    assert main(["train", "nim", "--out", str(tmp_path / "n"), "--no-progress"]) == 2


def test_shipped_tictactoe_network_is_small_and_never_loses_to_perfect_play():
    """The shipped network at 32 simulations against perfect play, both seats: 40 games, no loss."""
    from mctslab.tournament import play_match
    from mctslab.tournament.stats import wilson

    path = weights_path(TTT)
    assert path.exists() and path.stat().st_size < 40_000
    assert shipped_network(TTT).size() < 10_000
    o = play_match(TTT, "puct:iterations=32,evaluator=net", "perfect", games=40, seed=0, progress=False).outcomes
    assert o.losses == 0
    assert wilson(o.losses, o.games)[1] < 0.1  # what 40 loss-free games support: a loss rate below 10%


def test_the_shipped_network_is_what_its_training_run_produces():
    """Re-run the first two rounds of the shipped network's training: the same losses as its log."""
    from mctslab.nets.evaluators import WEIGHTS_DIR

    config = json.loads((WEIGHTS_DIR / "tictactoe_n3_k3.config.json").read_text())
    shipped_log = [json.loads(line) for line in (WEIGHTS_DIR / "tictactoe_n3_k3.log.jsonl").read_text().splitlines()]
    assert len(shipped_log) == config["rounds"]
    config |= {"rounds": 2, "eval_every": 0}  # evaluations draw their own seeds: training is unchanged
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as out:
        train(out, TrainConfig(**config), progress=False)
        again = read_log(out)
    for mine, theirs in zip(again, shipped_log[:2], strict=True):
        assert mine["positions"] == theirs["positions"]
        assert mine["loss"] == pytest.approx(theirs["loss"], rel=1e-9)


def test_recorder_and_explorer_work_with_puct():
    from mctslab import SearchRecorder, draw_iteration, tree_explorer

    rec = SearchRecorder(TTT, TTT.initial_state(), PUCT(iterations=50, evaluator="net", seed=0))
    rec.run(10)
    record = rec.step()
    assert record.rule == "PUCT"
    assert record.expanded is None  # PUCT evaluates the leaf it reached; its children come with it
    assert not record.playout.exact  # the value came from the network, not from a playout
    for phase in ("selection", "expansion", "simulation", "backpropagation"):
        assert "digraph" in draw_iteration(record, phase).source
    assert rec.root.visits == 11 and rec.analysis().move in range(9)
    tree_explorer(TTT, agent=PUCT(iterations=50, evaluator="net", seed=0), max_iterations=40)


def test_shipped_connect_four_network_fits_and_wins_in_one_from_both_seats():
    """The Connect Four network (trained 30 minutes, see the README) plays: wins in one as X and as O."""
    c4 = make_game("connect4")
    net = shipped_network(c4)
    assert net.shape == (2 * 6 * 7, 128, 7)
    as_x = c4.state_from_moves([0, 6, 0, 6, 0, 5])  # X has three in column 0: X to move wins there
    as_o = c4.state_from_moves([6, 0, 6, 0, 5, 0, 4])  # O has three in column 0, X did not block
    for state, answer in ((as_x, 0), (as_o, 0)):
        for seed in range(2):
            assert PUCT(iterations=64, evaluator="net", seed=seed).select_move(c4, state) == answer


def test_weights_are_checked_when_the_agent_is_made(tmp_path):
    """A bad network file is refused by the constructor, not by the first move (issue 30)."""
    with pytest.raises(ValueError, match="does not exist"):
        PUCT(evaluator="net", weights=str(tmp_path / "missing.npz"))
    (tmp_path / "empty.npz").write_bytes(b"")
    with pytest.raises(ValueError, match="is empty"):
        PUCT(evaluator="net", weights=str(tmp_path / "empty.npz"))
    with pytest.raises(ValueError, match="only read with evaluator=net"):
        PUCT(evaluator="rollout", weights=str(weights_path(TTT)))
    assert PUCT(evaluator="net", weights=str(weights_path(TTT))).weights == str(weights_path(TTT))
