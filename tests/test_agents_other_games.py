"""Agents beyond tic-tac-toe: Nim against the nim-sum theory, Connect Four from both seats."""

from __future__ import annotations

import pytest

from mctslab import make_agent, make_game
from mctslab.games.nim import nim_sum


def _reachable(game):
    seen, stack = set(), [game.initial_state()]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        stack.extend(game.apply(state, m) for m in game.legal_moves(state))
    return seen


def test_minimax_follows_the_nim_sum_everywhere():
    """In every position of Nim 3-4-5 with a winning move, perfect play takes one."""
    game = make_game("nim:heaps=3-4-5")
    agent = make_agent("minimax", seed=0)
    checked = 0
    for state in _reachable(game):
        if game.is_terminal(state) or nim_sum(state.heaps) == 0:
            continue
        good = game.winning_moves(state)
        assert good, "a position with nim-sum != 0 must have a winning move"
        assert agent.select_move(game, state) in good
        assert agent.analyse(game, state).value == 1.0
        checked += 1
    assert checked > 50


def test_minimax_knows_a_lost_nim_position():
    game = make_game("nim:heaps=1-2-3")  # nim-sum 0: the player to move loses
    assert make_agent("minimax", seed=0).analyse(game, game.initial_state()).value == 0.0


@pytest.mark.parametrize("heaps", ["2-3", "1-3-5", "2-2-3"])
def test_uct_finds_the_nim_sum_move(heaps):
    """UCT's tree learns the replies; flat Monte Carlo does not (random playouts in Nim
    do not measure the game value), so only UCT is held to the theory here."""
    game = make_game(f"nim:heaps={heaps}")
    state = game.initial_state()
    good = game.winning_moves(state)
    assert nim_sum(state.heaps) != 0 and 0 < len(good) < len(game.legal_moves(state)) / 2
    for seed in range(3):
        assert make_agent("uct:iterations=3000", seed=seed).select_move(game, state) in good


def _immediate_wins(game, state):
    return {m for m in game.legal_moves(state) if game.winner(game.apply(state, m)) == game.to_move(state)}


# (moves, what the player to move must do): win in one, or block the opponent's only threat.
CONNECT4 = [
    ([0, 0, 1, 1, 2, 2], "win", 3),  # player 0 completes the bottom row
    ([0, 1, 0, 1, 6, 1, 5], "win", 1),  # player 1 completes column 1
    ([6, 0, 6, 0, 5, 0], "block", 0),  # player 0 must stop column 0
    ([0, 6, 1, 6, 2], "block", 3),  # player 1 must stop the bottom row
]


@pytest.mark.parametrize("moves,kind,answer", CONNECT4)
@pytest.mark.parametrize("spec", ["uct:iterations=3000", "flat:playouts=200", "minimax:depth=4"])
@pytest.mark.parametrize("seed", [0, 1])
def test_connect4_point_of_view_both_seats(moves, kind, answer, spec, seed):
    game = make_game("connect4")
    state = game.state_from_moves(moves)
    me = game.to_move(state)
    if kind == "win":
        assert _immediate_wins(game, state) == {answer}
    else:
        assert not _immediate_wins(game, state)
        threats = {m for m in game.legal_moves(state) if game.winner(game.apply(state, m)) is None}
        # every move but the answer lets the opponent win at once
        for m in game.legal_moves(state):
            reply_wins = _immediate_wins(game, game.apply(state, m))
            assert bool(reply_wins) == (m != answer), (m, reply_wins)
        assert answer in threats
    assert me == len(moves) % 2
    assert make_agent(spec, seed=seed).select_move(game, state) == answer
