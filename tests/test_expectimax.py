"""Expectimax: exact values in small chance games, equal to the Pig solver's and to a brute force."""

from __future__ import annotations

from fractions import Fraction

import pytest
from toy_games import CountingPuzzle, DiceDuel

from mctslab import make_agent, make_game
from mctslab.agents.expectimax import TooBigError
from mctslab.exact.pig import exact_policy_values, solve
from mctslab.games import CHANCE


def brute_force(game, state) -> Fraction:
    """Player 0's expected return by plain recursion (no table, no cycle allowed)."""
    if game.is_terminal(state):
        return Fraction(game.returns(state)[0])
    mover = game.to_move(state)
    if mover == CHANCE:
        return sum(p * brute_force(game, game.apply(state, m)) for m, p in game.chance_outcomes(state))
    values = [brute_force(game, game.apply(state, m)) for m in game.legal_moves(state)]
    return max(values) if mover == 0 else min(values)


def test_acyclic_dice_game_is_solved_exactly_in_fractions():
    game = DiceDuel()
    agent = make_agent("expectimax")
    table = agent.values(game, game.initial_state())
    assert agent.exact
    assert table[game.initial_state()] == brute_force(game, game.initial_state())
    assert isinstance(table[game.initial_state()], Fraction)
    state = game.initial_state()
    analysis = agent.analyse(game, state)
    values = {s.move: Fraction(s.mean) for s in analysis.stats}
    assert analysis.move == max(values, key=lambda m: (values[m], -m))


def test_one_player_puzzle():
    game = CountingPuzzle()
    analysis = make_agent("expectimax").analyse(game, game.initial_state())
    assert analysis.value == 1.0  # 9 is reachable: 3 + 3 + 2 + 1


@pytest.mark.parametrize(("target", "die"), [(5, 2), (6, 3)])
def test_pig_values_equal_the_solvers_and_the_exact_fractions(target, die):
    """Pig repeats positions: expectimax iterates to 1e-12; both agree with the exact linear solution."""
    game = make_game(f"pig:target={target},die={die}")
    agent = make_agent("expectimax")
    table = agent.values(game, game.initial_state())
    assert not agent.exact
    solution = solve(target, die)
    exact = exact_policy_values(target, die, lambda i, j, k: bool(solution.roll[i, j, k]))
    checked = 0
    for state, v0 in table.items():
        if game.is_terminal(state) or state.rolling or state.scores[state.player] + state.total >= target:
            continue
        mine = v0 if state.player == 0 else 1 - v0
        key = (state.scores[state.player], state.scores[1 - state.player], state.total)
        assert abs(mine - float(exact[key])) < 1e-9, state
        assert abs(mine - solution.value(*key)) < 1e-9, state
        checked += 1
    assert checked > 20


def test_pig_moves_equal_the_optimal_policy_where_it_is_not_a_near_tie():
    game = make_game("pig:target=10")
    solution = solve(10, 6)
    agent = make_agent("expectimax")
    from mctslab.games.pig import PigState

    for mine, theirs, total in [(0, 0, 0), (0, 0, 8), (5, 8, 0), (3, 9, 4), (8, 5, 1)]:
        state = PigState((mine, theirs), total, 0, False)
        assert agent.analyse(game, state).move == solution.move(mine, theirs, total)


def test_refuses_a_game_too_big_and_a_game_with_hidden_cards():
    game = make_game("pig:target=10")
    with pytest.raises(TooBigError, match="max_states=50"):
        make_agent("expectimax:max_states=50").analyse(game, game.initial_state())
    assert {"chance", "two players", "one player"} <= make_agent("expectimax").handles
