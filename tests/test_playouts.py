"""Decisive and anti-decisive playouts: never miss a win in one, block a loss in one, on every game."""

from __future__ import annotations

import random

import pytest
from conftest import games_for

from mctslab import UCT, make_agent, make_game, play_game
from mctslab.agents.playouts import can_win_at_once, policy_move, policy_rollout, wins_now

GAMES = games_for(UCT.handles)


def sample_positions(game, n, seed):
    rng, out = random.Random(seed), []
    while len(out) < n:
        state = game.initial_state()
        while not game.is_terminal(state):
            out.append(state)
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    return out[:n]


@pytest.mark.parametrize("spec", GAMES)
def test_decisive_playouts_never_miss_a_win_in_one(spec):
    game = make_game(spec)
    rng = random.Random(0)
    tested = 0
    for state in sample_positions(game, 400, seed=1):
        if not can_win_at_once(game, state):
            continue
        tested += 1
        mover = game.to_move(state)
        for policy in ("decisive", "antidecisive"):
            move = policy_move(game, state, rng, policy)
            assert wins_now(game, game.apply(state, move), mover)
            assert policy_rollout(game, state, rng, None, policy).returns[mover] == 1.0
    if tested == 0:  # a game whose kind allows no win in one move (a race decided by dice...) has nothing to miss
        pytest.skip(f"{spec}: no position among 400 random ones has a win in one move, so none can be missed")


@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "uttt"])
def test_antidecisive_playouts_never_allow_a_loss_in_one_when_they_can_avoid_it(spec):
    game = make_game(spec)
    rng = random.Random(0)
    tested = 0
    for state in sample_positions(game, 400, seed=2):
        if can_win_at_once(game, state):
            continue
        moves = game.legal_moves(state)
        safe = [m for m in moves if not can_win_at_once(game, game.apply(state, m))]
        if not safe or len(safe) == len(moves):
            continue
        tested += 1
        for _ in range(3):
            assert policy_move(game, state, rng, "antidecisive") in safe
    assert tested > 0, f"{spec}: no position among 400 random ones has a loss in one to avoid (nothing checked)"


def test_the_random_policy_is_the_games_own_rollout():
    game = make_game("connect4")
    state = game.state_from_moves([3, 3, 2])
    a, b = random.Random(7), random.Random(7)
    assert policy_rollout(game, state, a, None, "random").returns == game.rollout(state, b)
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("spec", GAMES)
def test_uct_with_each_playout_plays_every_game(spec):
    game = make_game(spec)
    n = 3 if spec in ("uttt", "fractio") else 15  # long games: anti-decisive playouts cost b**2 per move
    for playout in ("decisive", "antidecisive"):
        agent = make_agent(f"uct:iterations={n},playout={playout}", seed=0)
        assert agent.playout == playout and agent.spec.endswith(f"playout={playout}")
        record = play_game(game, [agent, UCT(iterations=n, seed=1)])
        assert game.is_terminal(game.state_from_moves(record.moves))
    with pytest.raises(ValueError, match="playout"):
        UCT(playout="greedy")
