"""The one game loop plays every kind of game: chance moves from the game's own seeded stream, one-player puzzles."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from toy_games import CountingPuzzle, DiceDuel

from mctslab import play_game
from mctslab.games import CHANCE


def test_chance_moves_are_drawn_by_the_loop_from_the_games_seed():
    game = DiceDuel()
    first = play_game(game, ["random", "random"], seed=7)
    again = play_game(game, ["random", "random"], seed=7)
    assert first.moves == again.moves and first.returns == again.returns
    assert game.is_terminal(game.state_from_moves(first.moves))  # chance outcomes are in the record
    assert len(first.moves) == 2 * game.turns and first.seconds[0] >= 0
    others = {tuple(play_game(game, ["random", "random"], seed=s).moves) for s in range(20)}
    assert len(others) > 10


def test_chance_outcomes_follow_their_probabilities():
    # The wild die shows 0 or 5 with probability 1/2 each: over 2,000 seeded rolls, within 4 sigma.
    game, rolls = DiceDuel(), Counter()
    for s in range(200):
        record = play_game(game, ["random", "random"], seed=s)
        state = game.initial_state()
        for move in record.moves:
            if game.to_move(state) == CHANCE and state.die == 1:
                rolls[move] += 1
            state = game.play(state, move)
    n = rolls[0] + rolls[5]
    assert set(rolls) <= {0, 5} and n > 200
    assert abs(rolls[5] / n - 0.5) < 4 * math.sqrt(0.25 / n)


def test_games_without_chance_are_played_as_before():
    # The agents' streams are the first two children of the seed, whatever the game.
    a = play_game("tictactoe", ["uct:iterations=30", "uct:iterations=30"], seed=3)
    b = play_game("tictactoe", ["uct:iterations=30", "uct:iterations=30"], seed=3)
    assert a.moves == b.moves and len(a.agents) == 2


def test_a_puzzle_takes_one_agent():
    record = play_game(CountingPuzzle(), ["random"], seed=1)
    assert len(record.agents) == 1 and len(record.returns) == 1 and record.plies == 4
    assert len(record.seconds) == 1 and len(record.iterations) == 1
    with pytest.raises(ValueError, match="1-player game: it needs 1 agent, one per player, got 2"):
        play_game(CountingPuzzle(), ["random", "random"])
    with pytest.raises(ValueError, match="exactly two agents"):
        play_game("tictactoe", ["random"])
