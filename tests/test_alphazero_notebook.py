"""Notebook 10's experiments: exact results against perfect play, the value head's error, the stored games."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from mctslab import make_game
from mctslab.agents.perfect import PerfectPlayer
from mctslab.course.experiments import alphazero as az
from mctslab.course.experiments.alphazero_exact import (
    _odds,
    against_perfect,
    deterministic_policy,
    top_score_moves,
    value_errors,
)
from mctslab.course.experiments.alphazero_selfplay import (
    SELF_PLAY_FILE,
    exploratory_self_play,
    greedy_self_play,
)
from mctslab.exact import best_moves, reachable_states, solve
from mctslab.games import network_encoding
from mctslab.nets.evaluators import shipped_network
from mctslab.tournament import wilson

TTT = make_game("tictactoe")


def _middle_legal(state):
    moves = TTT.legal_moves(state)
    return moves[len(moves) // 2]


def test_puct_with_the_network_never_loses_to_any_perfect_line_from_either_seat():
    records = against_perfect(TTT, "puct:iterations=16,evaluator=net")
    assert [r.seat for r in records] == [0, 1]
    for r in records:
        assert (r.win, r.draw, r.loss) == (Fraction(0), Fraction(1), Fraction(0))
        assert r.lines >= 1 and r.lost_lines == 0


def test_exact_loss_probability_of_a_weak_player_agrees_with_games_against_perfect_play():
    # The middle legal move, always: it loses to perfect play some of the time, and the exact
    # probability of each result must match what the `perfect` agent does to it in seeded games.
    win, draw, loss, lines, lost = _odds(TTT, TTT.initial_state(), 0, _middle_legal,
                                         lambda s: top_score_moves(TTT, s), {})  # fmt: skip
    assert win + draw + loss == 1 and 0 < loss < 1
    _, _, _, all_lines, all_lost = _odds(TTT, TTT.initial_state(), 0, _middle_legal, lambda s: best_moves(TTT, s), {})
    assert all_lines >= lines and 0 < all_lost <= all_lines
    games, losses = 600, 0
    for seed in range(games):
        opponent, state = PerfectPlayer(seed=seed), TTT.initial_state()
        while not TTT.is_terminal(state):
            move = _middle_legal(state) if TTT.to_move(state) == 0 else opponent.select_move(TTT, state)
            state = TTT.apply(state, move)
        losses += TTT.returns(state)[0] == 0
    low, high = wilson(losses, games, 0.999)
    assert low <= float(loss) <= high


def test_puct_with_too_few_simulations_loses_some_perfect_lines():
    as_o = against_perfect(TTT, "puct:iterations=4,evaluator=net")[1]
    assert 0 < as_o.loss < 1 and 0 < as_o.lost_lines < as_o.lines


def test_deterministic_policy_refuses_an_agent_that_depends_on_its_seed():
    choose = deterministic_policy(TTT, "uct:iterations=3")
    with pytest.raises(ValueError, match="not deterministic"):
        choose(TTT.initial_state())


class _ExactNet:
    """A stand-in network whose value is the exact value of the position (found by its features)."""

    def __init__(self):
        self.values = {
            network_encoding(TTT).features(s).tobytes(): (solve(TTT, s) + 1) / 2
            for s in reachable_states(TTT)
            if not TTT.is_terminal(s)
        }

    def predict(self, x, legal):
        return None, np.array([self.values[row.tobytes()] for row in x])


def test_value_errors_are_zero_for_exact_values_and_match_the_shipped_network():
    perfect = value_errors(TTT, _ExactNet())
    assert perfect.positions == 4520 and perfect.mean_abs_error == 0 and perfect.correlation == pytest.approx(1)
    shipped = value_errors(TTT, shipped_network(TTT))
    assert sum(n for n, _ in shipped.by_group.values()) == 4520
    assert 0 < shipped.mean_abs_error < 0.5 and 0 < shipped.correlation < 1
    assert len(shipped.lines()) == 1 + len(shipped.by_group)


def test_trap_rate_of_a_deterministic_agent_is_an_exact_fraction():
    exact_rate = az.TrapRate("puct:iterations=8,evaluator=net", 8, 24, 36, deterministic=True)
    assert exact_rate.exact == Fraction(2, 3) and exact_rate.interval() == (24 / 36, 24 / 36)
    sampled = az.TrapRate("uct:iterations=8", 8, 50, 180)
    assert sampled.exact is None and sampled.interval(0.99) == wilson(50, 180, 0.99)


def test_matches_are_sized_for_their_effect_at_the_bonferroni_confidence():
    assert az.CONFIDENCE == pytest.approx(1 - 0.05 / az.COMPARISONS)
    assert az.games_for(0.53) > az.games_for(0.55) > az.games_for(0.65) and az.games_for(0.53) % 2 == 0
    assert az.MATCHES["bridge"].games >= az.games_for(az.EXPECTED["bridge"])
    assert az.MATCHES["equal_time"].games >= az.games_for(az.EXPECTED["equal_time"])
    assert len({m.filename for m in az.MATCHES.values()}) == len(az.MATCHES)


def test_the_stored_games_are_all_there_and_read_back_without_playing(tmp_path, monkeypatch):
    from mctslab.course.editions import DATA_FOLDER, NOTEBOOKS

    folder = az.stored_games(NOTEBOOKS / DATA_FOLDER / az.STORED_GAMES)
    for key in ("uct16", "perfect_puct16"):
        header, *games = (folder / az.MATCHES[key].filename).read_text().splitlines()
        assert json.loads(header)["agents"] == [az.MATCHES[key].a, az.MATCHES[key].b]
        assert len(games) == az.MATCHES[key].games
    row = az.stored_row("perfect_puct16", folder)
    assert row.outcomes.losses == 0 and row.outcomes.games == 400 and sum(row.moves) > 0
    with pytest.raises(KeyError, match="known: bridge"):
        az.stored_row("nope", folder)
    monkeypatch.setattr("mctslab.course.editions.NOTEBOOKS", tmp_path)  # no installed copy either
    with pytest.raises(FileNotFoundError, match="python -m mctslab.course.experiments.alphazero"):
        az.stored_games(tmp_path / "nothing")


def test_self_play_is_seeded_resumable_and_agrees_with_the_stored_games(tmp_path):
    from mctslab.course.editions import DATA_FOLDER, NOTEBOOKS

    first = exploratory_self_play(3, out=tmp_path)
    again = exploratory_self_play(4, out=tmp_path)  # reads 3, plays 1
    assert again.games == 4 and len((tmp_path / SELF_PLAY_FILE).read_text().splitlines()) == 5
    stored = [json.loads(line) for line in (NOTEBOOKS / DATA_FOLDER / az.STORED_GAMES / SELF_PLAY_FILE).open()]
    x = [rec["x"] for rec in stored[1:5]]
    assert (again.wins, again.draws, again.losses) == (x.count(1.0), x.count(0.5), x.count(0.0))
    assert first.games == 3
    (tmp_path / SELF_PLAY_FILE).write_text(json.dumps({"kind": "other"}) + "\n")
    with pytest.raises(ValueError, match="other self-play games"):
        exploratory_self_play(1, out=tmp_path)
    with pytest.raises(ValueError, match="games must be an int >= 1, got 0"):
        exploratory_self_play(0)


def test_without_exploration_the_network_draws_against_itself():
    moves, returns = greedy_self_play(iterations=16)
    assert returns == (0.5, 0.5) and len(moves) == 9


def test_time_ratio_is_the_median_of_per_game_ratios():
    from mctslab.tournament import Outcomes

    row = az.Row(32, "a", "b", Outcomes(1, 0, 0), (6.0, 3.0), (3, 3), ((1.0, 1.0), (2.0, 1.0), (3.0, 1.0)))
    assert row.time_ratio() == (1.5, 2.0, 2.5) and row.ms_per_move() == (2000.0, 1000.0)


def test_the_command_takes_the_folder_as_argument_or_option(tmp_path):
    assert az.main([str(tmp_path / "a"), "--only", "no-such-match"]) == 0
    assert az.main(["--out", str(tmp_path / "b"), "--only", "no-such-match"]) == 0
    assert (tmp_path / "a").is_dir() and (tmp_path / "b").is_dir() and not any((tmp_path / "b").iterdir())
