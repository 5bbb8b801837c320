"""Pig (Neller & Presser 2004): the rules, OpenSpiel's move order, and the exact solutions."""

from __future__ import annotations

import random
from fractions import Fraction
from math import sqrt

import pytest

from mctslab import check_game, make_game
from mctslab.exact.pig import (
    bellman_residual,
    exact_policy_values,
    hold_at,
    is_optimal_exactly,
    policy_values,
    solve,
)
from mctslab.games import CHANCE, IllegalMoveError
from mctslab.games.pig import HOLD, ROLL, PigState


@pytest.mark.parametrize("spec", ["pig:target=10", "pig:target=6,die=2", "pig"])
def test_check_game(spec):
    check_game(make_game(spec), games=20 if spec != "pig" else 3)


def test_openspiel_move_order_and_chance_outcomes():
    game = make_game("pig")
    state = game.initial_state()
    assert game.legal_moves(state) == (0, 1) and (ROLL, HOLD) == (0, 1)
    assert game.to_move(state) == 0
    rolled = game.play(state, ROLL)
    assert game.to_move(rolled) == CHANCE
    assert game.chance_outcomes(rolled) == tuple((f, Fraction(1, 6)) for f in range(1, 7))
    assert game.legal_moves(rolled) == (1, 2, 3, 4, 5, 6)
    with pytest.raises(ValueError, match="chance"):
        game.chance_outcomes(state)


def test_rules_roll_hold_pig_out_and_win():
    game = make_game("pig:target=10")
    s = game.initial_state()
    s = game.play(game.play(s, ROLL), 5)
    assert s == PigState((0, 0), 5, 0, False)
    s = game.play(game.play(s, ROLL), 4)
    assert s.total == 9
    s = game.play(s, HOLD)
    assert s == PigState((9, 0), 0, 1, False)
    s = game.play(game.play(s, ROLL), 3)
    s = game.play(game.play(s, ROLL), 1)  # pigged out: player 1's 3 points are lost
    assert s == PigState((9, 0), 0, 0, False)
    s = game.play(game.play(s, ROLL), 2)
    assert not game.is_terminal(s)  # the turn total counts only once held
    s = game.play(s, HOLD)
    assert game.is_terminal(s) and game.winner(s) == 0 and game.returns(s) == (1.0, 0.0)
    assert game.legal_moves(s) == ()
    with pytest.raises(IllegalMoveError):
        game.play(s, ROLL)
    assert "player 0 wins" in game.render(s)
    assert game.information_state(s, 1) == s  # perfect information: the whole state
    assert hash(s) == hash(PigState((11, 0), 0, 1, False))


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="target"):
        make_game("pig:target=0")
    with pytest.raises(ValueError, match="die=1"):
        make_game("pig:die=1")


@pytest.mark.parametrize(("target", "die"), [(5, 2), (6, 3), (4, 6)])
def test_value_iteration_agrees_with_exact_linear_solution(target, die):
    """The iteration's policy, solved exactly with fractions, satisfies the optimality equations exactly."""
    solution = solve(target, die)
    assert solution.change < 1e-12
    assert bellman_residual(solution) < 1e-11
    exact = exact_policy_values(target, die, lambda i, j, k: bool(solution.roll[i, j, k]))
    assert is_optimal_exactly(target, die, exact)
    assert max(abs(float(v) - solution.value(*s)) for s, v in exact.items()) < 1e-9


def test_a_suboptimal_policy_is_not_exactly_optimal():
    exact = exact_policy_values(5, 2, lambda i, j, k: k < 2)  # hold after one good flip
    assert not is_optimal_exactly(5, 2, exact)


def test_optimal_policy_holds_early_only_from_target_40():
    """To 30 the optimal player rolls until holding wins; to 40 it holds early at some positions."""
    for target, holds in ((30, False), (40, True)):
        solution = solve(target, 6)
        assert bellman_residual(solution) < 1e-11
        early = [
            (i, j, k)
            for i in range(target)
            for j in range(target)
            for k in range(target - i)
            if not solution.roll[i, j, k]
        ]
        assert bool(early) == holds, target
        assert 0.5 < solution.value(0, 0, 0) < 0.6  # the first player's edge
    assert solution.move(0, 0, 0) == ROLL and solution.move(0, 0, 40) == HOLD


def test_hold_at_20_first_player_probability_and_simulation():
    """Hold at 20 in self-play: 0.5347 (papers.md); checked against 20,000 seeded simulated games."""
    values = policy_values(hold_at(20), 100, 6)
    p = values.value(0, 0, 0)
    assert abs(p - 0.5347) < 5e-5
    rng = random.Random(2804)
    n, wins = 20_000, 0
    for _ in range(n):
        scores, player = [0, 0], 0
        while True:
            total = 0
            while total < 20 and scores[player] + total < 100:
                face = 1 + int(rng.random() * 6)
                if face == 1:
                    total = 0
                    break
                total += face
            scores[player] += total
            if scores[player] >= 100:
                wins += player == 0
                break
            player = 1 - player
    margin = 4 * sqrt(p * (1 - p) / n)  # four standard errors
    assert abs(wins / n - p) < margin


def test_duel_of_two_policies_agrees_with_self_play():
    """A policy against itself in ``duel`` is the self-play value; optimal beats hold at 20 from both seats."""
    from mctslab.exact.pig import duel, policy_grid

    best = solve(30, 6)
    assert duel(best.roll, best.roll, 30) == pytest.approx((best.value(0, 0, 0), 1 - best.value(0, 0, 0)), abs=1e-9)
    hold = policy_grid(hold_at(20), 30)
    first, second = duel(best.roll, hold, 30)
    assert first > best.value(0, 0, 0) and second > 1 - best.value(0, 0, 0)
    hold_first, _ = duel(hold, hold, 30)
    assert hold_first == pytest.approx(policy_values(hold_at(20), 30).value(0, 0, 0), abs=1e-9)


class _OpenSpielPig:
    """OpenSpiel's ``pig`` state, two players, as ``pig.cc`` writes it (``DoApplyAction``, ``IsTerminal``, ``Returns``).

    Actions: 0 roll, 1 stop; a chance outcome ``i`` is the face ``i + 1``. ``total_moves`` counts
    the decisions only; the game ends once it reaches ``horizon`` or a score reaches the target.
    """

    def __init__(self, horizon: int, win_score: int, dice: int) -> None:
        self.horizon, self.win_score, self.dice = horizon, win_score, dice
        self.total_moves, self.cur_player, self.turn_player, self.scores, self.turn_total = 0, 0, 0, [0, 0], 0

    def terminal(self) -> bool:
        return self.total_moves >= self.horizon or max(self.scores) >= self.win_score

    def returns(self) -> list[float]:
        for p in (0, 1):
            if self.scores[p] >= self.win_score:
                return [1.0 if q == p else -1.0 for q in (0, 1)]
        return [0.0, 0.0]

    def legal(self) -> list[int]:
        if self.cur_player == -1:
            return list(range(self.dice))
        if self.terminal():
            return []
        return [1] if self.scores[self.cur_player] + self.turn_total >= self.win_score else [0, 1]

    def apply(self, action: int) -> None:
        if self.cur_player >= 0 and action == 0:
            self.cur_player = -1
            self.total_moves += 1
        elif self.cur_player >= 0:
            self.scores[self.turn_player] += self.turn_total
            self.turn_total, self.turn_player = 0, 1 - self.turn_player
            self.cur_player = self.turn_player
            self.total_moves += 1
        elif action == 0:
            self.turn_total, self.turn_player = 0, 1 - self.turn_player
            self.cur_player = self.turn_player
        else:
            self.turn_total += action + 1
            self.cur_player = self.turn_player


@pytest.mark.parametrize(("horizon", "target", "die"), [(7, 10, 6), (20, 20, 6), (1, 5, 2), (40, 30, 3)])
def test_horizon_has_openspiels_meaning_in_lock_step(horizon, target, die):
    """Random games played move for move against OpenSpiel's rules: same moves, same end, same returns."""
    game = make_game(f"pig:target={target},die={die},horizon={horizon}")
    rng = random.Random(horizon * 1000 + target)
    draws = 0
    for _ in range(150):
        theirs, state = _OpenSpielPig(horizon, target, die), game.initial_state()
        while True:
            assert game.is_terminal(state) == theirs.terminal()
            if theirs.terminal():
                break
            rolling = game.to_move(state) == CHANCE
            assert rolling == (theirs.cur_player == -1)
            ours = game.legal_moves(state)
            assert [m - 1 for m in ours] == theirs.legal() if rolling else list(ours) == theirs.legal()
            move = rng.choice(ours) if not rolling or rng.random() < 0.8 else 1  # pig out often enough
            state = game.play(state, move)
            theirs.apply(move - 1 if rolling else move)
        assert game.returns(state) == tuple((r + 1) / 2 for r in theirs.returns())
        draws += game.winner(state) is None
    assert draws > 0 or horizon >= 40  # short horizons end some games as draws


def test_horizon_ends_a_game_of_two_holders_as_a_draw_and_keeps_a_win_at_the_last_decision():
    game = make_game("pig:horizon=1000")
    assert game.spec == "pig:target=100,die=6,horizon=1000" and make_game(game.spec) == game
    state = game.initial_state()
    for _ in range(1000):  # two players who always hold: without a horizon they never finish
        assert not game.is_terminal(state)
        state = game.play(state, HOLD)
    assert game.is_terminal(state) and game.winner(state) is None and game.returns(state) == (0.5, 0.5)
    assert state.decisions == 1000 and game.legal_moves(state) == () and "draw" in game.render(state)
    short = make_game("pig:target=5,horizon=2")
    won = short.play(short.play(short.play(short.initial_state(), ROLL), 6), HOLD)  # the second decision wins
    assert short.is_terminal(won) and short.winner(won) == 0
    in_the_air = short.play(short.play(short.initial_state(), HOLD), ROLL)  # the horizon falls with the die rolling
    assert short.is_terminal(in_the_air) and short.legal_moves(in_the_air) == () and short.winner(in_the_air) is None
    assert make_game("pig").horizon is None and make_game("pig").spec == "pig:target=100,die=6"
    plain = make_game("pig:target=10")
    assert plain.play(plain.initial_state(), HOLD).decisions == 0  # no horizon: positions still repeat


def test_horizon_is_checked():
    with pytest.raises(ValueError, match="horizon=0"):
        make_game("pig:horizon=0")
    check_game(make_game("pig:target=10,horizon=12"), games=20)
    game = make_game("pig:target=10,horizon=5")
    with pytest.raises(ValueError, match="decisions"):
        game.check_state(PigState((0, 0), 0, 0, False, 6))
    with pytest.raises(ValueError, match="decisions"):
        make_game("pig:target=10").check_state(PigState((0, 0), 0, 0, False, 1))
