"""Nested Rollout Policy Adaptation: the adaptation step exactly, its playouts, and learning on left move."""

from __future__ import annotations

import math
import random

import pytest
from test_nmcs import LeftMove, binomial

from mctslab import make_agent, make_game, play_game
from mctslab.agents.nrpa import adapt, nrpa, policy_playout
from mctslab.exact import samegame_optimum


def test_adapt_raises_the_played_move_by_alpha_minus_its_probability():
    game = LeftMove(2)
    state = game.initial_state()
    new = adapt(game, state, {}, (0, 1), alpha=1.0)
    # Two moves of weight 0 at each step: each has probability 1/2 before the step.
    assert new == {0: 1 - 0.5 - 0.5, 1: -0.5 - 0.5 + 1}
    skewed = adapt(game, state, {0: math.log(3)}, (0,), alpha=0.5)  # move 0 has probability 3/4
    assert skewed[0] == pytest.approx(math.log(3) + 0.5 - 0.5 * 0.75) and skewed[1] == pytest.approx(-0.5 * 0.25)


def test_a_zero_policy_plays_uniformly():
    game, rng, runs = LeftMove(4), random.Random(11), 1600
    counts = [round(policy_playout(game, game.initial_state(), {}, rng).score * 4) for _ in range(runs)]
    for k, p in enumerate(binomial(4)):
        share = counts.count(k) / runs
        assert abs(share - float(p)) < 4 * math.sqrt(float(p) * (1 - float(p)) / runs)


def test_level_one_learns_the_all_left_sequence():
    # 100 uniform playouts find all 8 lefts with probability 1 - (255/256)**100 (about 0.32); if
    # NRPA were no better it would find them on all 10 seeds with probability below 1e-4.
    game, n = LeftMove(8), 8
    found = [nrpa(game, game.initial_state(), 1, {}, random.Random(s), iterations=100) for s in range(10)]
    chance = (1 - (255 / 256) ** 100) ** 10
    assert chance < 1e-4 and all(f.score == 1.0 and f.moves == (0,) * n and f.playouts == 100 for f in found)


def test_the_agent_plays_its_sequence_and_never_beats_the_exact_optimum():
    game = make_game("samegame:rows=5,cols=5,colors=3,seed=4")
    record = play_game(game, ["nrpa:level=2,iterations=10"], seed=2)
    assert record.iterations == [100] and record.moves == play_game(game, ["nrpa:level=2,iterations=10"], seed=2).moves
    assert game.score(game.state_from_moves(record.moves)) <= samegame_optimum(game).score
    with pytest.raises(ValueError, match="level must be an int from 1 to 3, got 4"):
        make_agent("nrpa:level=4")
