"""The figures command: every figure builds on a tiny budget; the experiments and budgets behind them."""

from __future__ import annotations

import pytest

from mctslab import make_game
from mctslab.agents import SCHEDULES, FixedBudget, FlatMonteCarlo, WindowedMonteCarlo
from mctslab.agents.budget import round_sizes, schedule
from mctslab.course.experiments import (
    choice_rates,
    decision_quality,
    predicted_flat_choices,
    sample_positions,
    strength_curves,
)
from mctslab.course.figures import FIGURES, FIGURES_DIR, save
from mctslab.course.figures.__main__ import main
from mctslab.viz import dot_available

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module", autouse=True)
def _agg():
    import matplotlib

    matplotlib.use("Agg")


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_figure_builds_fast(name, tmp_path):
    if name.endswith(".svg") and not dot_available():
        pytest.skip("graphviz's dot program is not installed: the tree figure cannot be drawn")
    path = save(name, tmp_path, fast=True)
    assert path == tmp_path / name
    data = path.read_bytes()
    assert data.startswith(PNG) if name.endswith(".png") else b"<svg" in data


def test_the_committed_figures_are_exactly_the_catalogue():
    assert FIGURES_DIR == FIGURES_DIR.parent / "figures" and (FIGURES_DIR.parent / "pyproject.toml").exists()
    committed = {p.name for p in FIGURES_DIR.iterdir() if p.suffix in (".png", ".svg")}
    assert committed == set(FIGURES)
    total = sum((FIGURES_DIR / name).stat().st_size for name in FIGURES)
    assert total < 2_000_000  # the figures stay small


def test_the_command_makes_the_figures_named(tmp_path, capsys):
    assert main(["--fast", "--out", str(tmp_path), "games_needed.png"]) == 0
    assert (tmp_path / "games_needed.png").read_bytes().startswith(PNG)
    assert "games_needed.png" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["no_such_figure.png"])


def test_unknown_figure_is_named_with_the_known_ones(tmp_path):
    with pytest.raises(KeyError, match="centre_opening.png"):
        save("nope.png", tmp_path)


# -- FixedBudget -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(SCHEDULES))
def test_fixed_budget_spends_at_most_its_budget(kind):
    game = make_game("tictactoe")
    for moves in ([], [4], [4, 0, 8], [4, 0, 8, 2, 1]):
        state = game.state_from_moves(moves)
        k = len(game.legal_moves(state))
        agent = FixedBudget(kind, 300, seed=1)
        analysis = agent.analyse(game, state)
        unit = sum(round_sizes(kind, k))
        assert analysis.iterations == agent.playouts_per_move(k) * unit
        assert 300 - unit < analysis.iterations <= 300


def test_round_sizes_follow_the_windowed_agent():
    game = make_game("tictactoe")
    for kind in SCHEDULES:
        for k in range(2, 10):
            state = game.state_from_moves([0, 1, 2, 4, 3, 5, 7, 6][: 9 - k])
            window, keep, reuse = schedule(kind, k)
            spent = WindowedMonteCarlo(3, window=window, keep=keep, reuse=reuse, seed=0).analyse(game, state).iterations
            assert spent == 3 * sum(round_sizes(kind, k)), (kind, k)
    assert round_sizes("window", 9) == (9, 4, 2) and round_sizes("halving", 9) == (9, 5, 3, 2)


def test_fixed_budget_decides_as_the_library_agent_with_the_same_stream():
    game = make_game("tictactoe")
    empty = game.initial_state()
    for seed in range(5):
        mine = FixedBudget("flat", 900, seed=seed).analyse(game, empty)
        library = FlatMonteCarlo(100, seed=seed).analyse(game, empty)
        assert mine.move == library.move and mine.stats == library.stats


def test_fixed_budget_rejects_bad_input():
    with pytest.raises(ValueError, match="known: flat, window, halving"):
        FixedBudget("greedy", 100)
    with pytest.raises(ValueError, match="budget"):
        FixedBudget("flat", 0)


# -- experiments -------------------------------------------------------------------------
def test_choice_rates_are_seeded():
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 4, 1])  # O must block on 2

    def make(n, seed):
        return FlatMonteCarlo(n, seed=seed)

    first = choice_rates(game, state, make, (2, 50), 20, seed=3)
    again = choice_rates(game, state, make, (2, 50), 20, seed=3, progress=True)  # a bar changes nothing
    assert (first.counts == again.counts).all() and first.decisions == 20
    assert first.rate(2)[1] > first.rate(2)[0]  # more playouts, the block more often
    low, high = first.band(2)[1]
    assert low <= first.rate(2)[1] <= high


def test_predicted_choices_follow_the_exact_odds():
    game = make_game("tictactoe")
    forced = predicted_flat_choices(game, game.state_from_moves([0, 3, 1, 4]), 50, 2000, seed=0)
    assert sum(forced.values()) == pytest.approx(1.0) and forced[2] > 0.99  # the win in one
    ties = predicted_flat_choices(game, game.initial_state(), 1, 20_000, seed=0)
    assert ties[0] == pytest.approx(ties[8], abs=0.02)  # symmetric corners, ties broken at random


def test_decision_quality_grades_exactly():
    game = make_game("tictactoe")
    positions = sample_positions(game, 4, seed=1, min_moves=5)
    assert all(len(game.legal_moves(s)) >= 5 for s in positions)
    quality = decision_quality(game, positions, "flat", lambda b, s: FixedBudget("flat", b, seed=s), [30, 600], 3, 0)
    assert quality.regret[1] <= quality.regret[0] and (quality.regret >= 0).all()
    assert ((0 <= quality.perfect) & (quality.perfect <= 1)).all()
    assert quality.spent[1] == pytest.approx(600, rel=0.1)
    with pytest.raises(ValueError, match="positions"):
        sample_positions(game, 10_000, seed=0)


def test_strength_curves_against_perfect_play():
    curves = strength_curves("tictactoe", {"flat": "flat"}, (10,), games=4, seed=0, workers=1)
    curve = curves["flat"]
    shown = strength_curves("tictactoe", {"flat": "flat"}, (10,), games=4, seed=0, workers=1, progress=True)
    assert shown["flat"].outcomes == curve.outcomes  # a progress bar changes nothing
    assert curve.opponent == "perfect" and curve.outcomes[0].games == 4
    assert curve.rates()[0] <= 0.5  # nobody beats perfect play
    assert curve.bands("loss").shape == (1, 2)
    with pytest.raises(ValueError, match="rate"):
        curve.rates("draws")
