"""Shallow traps (mctslab.exact.traps) against exact minimax with distances to the win (mctslab.exact)."""

from __future__ import annotations

import random

import pytest

from mctslab import make_game
from mctslab.exact import WIN, move_scores, reachable_states
from mctslab.exact.traps import forces_win, shallowest_trap, trap_level


def by_scores(game, state, k):
    """The moves after which the opponent's fastest forced win is at most k plies away (from exact scores)."""
    return {m for m, score in move_scores(game, state).items() if score <= -(WIN - k - 1)}


@pytest.mark.parametrize("spec", ["tictactoe", "nim:heaps=2-3-4", "connect4:rows=4,cols=4,k=3"])
def test_trap_levels_match_exact_distances_to_the_win(spec):
    game = make_game(spec)
    states = [s for s in reachable_states(game) if not game.is_terminal(s)]
    for state in random.Random(0).sample(states, min(400, len(states))):
        levels = {m: trap_level(game, state, m) for m in game.legal_moves(state)}
        for k in (1, 3, 5):
            assert {m for m, lv in levels.items() if lv is not None and lv <= k} == by_scores(game, state, k)
        found = [lv for lv in levels.values() if lv is not None]
        assert shallowest_trap(game, state) == (min(found) if found else None)


def test_an_open_three_is_a_level_one_trap_to_ignore():
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 4, 1])  # X threatens 2; O must block
    assert trap_level(game, state, 2) is None
    assert all(trap_level(game, state, m) == 1 for m in game.legal_moves(state) if m != 2)
    assert shallowest_trap(game, state) == 1
    assert forces_win(game, game.apply(state, 5), 0, 1) and not forces_win(game, game.apply(state, 2), 0, 1)
