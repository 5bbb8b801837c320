"""Seed 001: the fast agent against the transcribed paper code; the corrected one against mctslab's agents."""

from __future__ import annotations

import json
import math
from collections import Counter
from functools import cache

import numpy as np
import pytest

from mctslab import make_agent, make_game
from mctslab.agents import canonical_spec
from mctslab.course import RacioppoMonteCarlo
from mctslab.course.experiments import budget_curve
from mctslab.course.figures.plots import plot_curves
from mctslab.course.reproduction import PAPER_ROWS, Measurement, fit_p_value, measure, reproduce
from mctslab.course.reproduction import paper_code as pc
from mctslab.course.reproduction.agent import DEFECTS
from mctslab.course.reproduction.outcomes import after_move_probabilities, playout_probabilities
from mctslab.tournament import play_match

GAME = make_game("tictactoe")


def _bits(cells) -> int:
    return sum(1 << c for c in cells)


def _close(p: float, q: float, n_p: int, n_q: int | None = None, sigmas: float = 4.5) -> bool:
    """Two rates agree within ``sigmas`` standard errors (``n_q=None``: ``q`` is exact)."""
    var = max(p * (1 - p), q * (1 - q), 1e-3) * (1 / n_p + (0 if n_q is None else 1 / n_q))
    return abs(p - q) <= sigmas * math.sqrt(var)


# -- exact playout probabilities ---------------------------------------------------------
@cache
def _oracle(state) -> tuple[float, float, float]:
    """(X wins, O wins, draw) of random play, by enumeration through mctslab's own game."""
    if GAME.is_terminal(state):
        w = GAME.winner(state)
        return (1.0, 0.0, 0.0) if w == 0 else (0.0, 1.0, 0.0) if w == 1 else (0.0, 0.0, 1.0)
    moves = GAME.legal_moves(state)
    parts = [_oracle(GAME.apply(state, m)) for m in moves]
    return tuple(sum(p[i] for p in parts) / len(moves) for i in range(3))


def test_correct_playout_probabilities_match_enumeration():
    rng = np.random.default_rng(0)
    for _ in range(60):
        moves = [int(m) for m in rng.permutation(9)[: rng.integers(0, 7)]]
        try:
            state = GAME.state_from_moves(moves)
        except ValueError:
            continue
        x, o, _ = state
        assert playout_probabilities(x, o, GAME.to_move(state)) == pytest.approx(_oracle(state))
    assert playout_probabilities(0, 0, 0) == pytest.approx((0.5849206, 0.2880952, 0.1269841), abs=1e-7)


@pytest.mark.parametrize(
    ("x_moves", "o_moves"),
    [
        ([4], []),  # X's test move in the centre: the playout gives X a second move at once
        ([0, 1, 8], [3, 4, 5]),  # O's test move wins, but X moves next and 2 completes X's top row
        ([0, 4, 6], [1, 2]),  # X's test move at 6 makes the board X to move again
    ],
)
def test_paper_playout_probabilities_match_the_transcribed_f_rand_i(x_moves, o_moves):
    rng = np.random.default_rng(len(x_moves) * 10 + len(o_moves))
    n = 1500
    winners = Counter(pc.f_Rand_i(3, list(x_moves), list(o_moves), rng)[3] for _ in range(n))
    exact = playout_probabilities(_bits(x_moves), _bits(o_moves), 0, True)
    for i, w in enumerate((1, -1, 0)):
        assert _close(winners[w] / n, exact[i], n), (winners, exact)


def test_paper_playouts_score_a_winning_o_move_as_an_x_win_a_third_of_the_time():
    # the board above: O has just completed 3-4-5; X's random 2 (1 in 3) completes 0-1-2 and is looked at first
    x, o = _bits([0, 1, 8]), _bits([3, 4])
    assert after_move_probabilities(x, o, 1, 5, turn=False, check=False) == (0.0, 1.0, 0.0)
    assert after_move_probabilities(x, o, 1, 5, turn=True, check=True) == pytest.approx((1 / 3, 2 / 3, 0.0))


# -- the fast agent makes the paper code's decisions -------------------------------------
def _literal_choices(moves, window, it, n, seed):
    """Moves the transcribed paper code chooses in the position ``moves``, ``n`` times."""
    rng = np.random.default_rng(seed)
    x_moves, o_moves = list(moves[0::2]), list(moves[1::2])
    pos = [c for c in range(9) if c not in moves]
    i = len(moves)
    return Counter(
        pos[pc.f_Window_Move(i, list(pos), x_moves, o_moves, i % 2 == 0, i % 2 == 1, rng, window=window, it=it)]
        for _ in range(n)
    )


def _fast_choices(moves, n, **kw):
    state = GAME.state_from_moves(moves)
    return Counter(RacioppoMonteCarlo(seed=s, **kw).select_move(GAME, state) for s in range(n))


@pytest.mark.parametrize(
    ("moves", "window", "alternative"),
    [
        ([2, 3, 8, 7], 1, "turn"),  # X can win at 5; with X moving twice every move wins, so ties go to cell 0
        ([7, 6, 0, 2], 3, "turn-check-threshold-ties"),  # X's window 3, with and without the index slip
        ([0, 4, 5, 6, 3], 3, "turn-check-threshold-ties"),  # O wins at 2; the index slip hides it half the time
    ],
)
def test_fast_paper_agent_decides_like_the_transcribed_code(moves, window, alternative):
    n_lit, n_fast, it = 250, 3000, 3
    literal = _literal_choices(moves, window, it, n_lit, seed=sum(moves))
    fast = _fast_choices(moves, n_fast, playouts=it, window=window, procedure="paper")
    other = _fast_choices(moves, n_fast, playouts=it, window=window, defects=alternative)
    cells = set(literal) | set(fast) | set(other)
    assert all(_close(literal[c] / n_lit, fast[c] / n_fast, n_lit, n_fast) for c in cells), (literal, fast)
    # and the test can tell: without the defect under study, the literal code's choices do not fit
    assert not all(_close(literal[c] / n_lit, other[c] / n_fast, n_lit, n_fast) for c in cells), (literal, other)


@pytest.mark.parametrize(
    ("moves", "real", "fast"),
    [
        ([4, 0, 8], "flat:playouts=10", dict(playouts=10, window=1)),
        ([7, 6, 0, 2], "windowed:playouts=5,window=3", dict(playouts=5, window=3)),
        ([], "windowed:playouts=5,window=2", dict(playouts=5, window=2)),
    ],
)
def test_corrected_agent_decides_like_mctslabs_agents_with_real_playouts(moves, real, fast):
    n = 1500
    state = GAME.state_from_moves(moves)
    with_playouts = Counter(make_agent(real, seed=s).select_move(GAME, state) for s in range(n))
    sampled = _fast_choices(moves, n, procedure="corrected", **fast)
    for c in set(with_playouts) | set(sampled):
        assert _close(with_playouts[c] / n, sampled[c] / n, n, n), (with_playouts, sampled)


def test_analysis_reports_playouts_and_scores():
    state = GAME.state_from_moves([2, 3, 8, 7])
    paper = RacioppoMonteCarlo(playouts=100, procedure="paper", seed=0).analyse(GAME, state)
    assert {s.move: s.score for s in paper.stats} == {m: 100.0 for m in (0, 1, 4, 5, 6)}  # X moving twice always wins
    assert paper.move == 0 and paper.iterations == 500
    fixed = RacioppoMonteCarlo(playouts=100, seed=0).analyse(GAME, state)
    assert fixed.move == 5 and max(fixed.stats, key=lambda s: s.score).move == 5


def test_specs_and_errors():
    agent = make_agent("racioppo:playouts=10,window=3,defects=index-turn", seed=1)
    assert agent.spec == "racioppo:playouts=10,window=3,defects=turn-index"
    assert canonical_spec("racioppo:defects=all").endswith("procedure=paper")
    assert canonical_spec("racioppo:defects=none").endswith("procedure=corrected")
    assert canonical_spec("racioppo:procedure=paper,defects=turn") == "racioppo:playouts=100,window=1,defects=turn"
    with pytest.raises(ValueError, match="window must be 1, 2 or 3"):
        RacioppoMonteCarlo(window=4)
    with pytest.raises(ValueError, match="procedure must be one of"):
        RacioppoMonteCarlo(procedure="published")
    with pytest.raises(ValueError, match="known defects: turn, check, index, threshold, ties"):
        make_agent("racioppo:defects=typo")
    with pytest.raises(ValueError, match="3 x 3 tic-tac-toe"):
        RacioppoMonteCarlo().select_move(make_game("tictactoe:n=4"), make_game("tictactoe:n=4").initial_state())


# -- what the defects do to the tables ---------------------------------------------------
def _x_win_rate(o_spec, games=400):
    o_agent = canonical_spec(o_spec)
    match = play_match("tictactoe", "random", o_agent, games, seed=12, seats="a-first", workers=1, progress=False)
    return match.outcomes.wins / games


def test_the_index_slip_is_what_makes_window_3_lose_as_o():
    paper = _x_win_rate("racioppo:playouts=100,window=3,procedure=paper")
    without_slip = _x_win_rate("racioppo:playouts=100,window=3,defects=turn-check-threshold-ties")
    window_1 = _x_win_rate("racioppo:playouts=100,window=1,procedure=paper")
    assert paper > without_slip and not _close(paper, without_slip, 400, 400)
    assert _close(without_slip, window_1, 400, 400)


def test_fit_p_value_is_an_exact_test():
    # two-sided exact binomial test of 35 heads in 100 fair tosses: p = 0.0035
    assert fit_p_value((35.0,), 100, Measurement("paper", (10**6, 10**6))) == pytest.approx(0.0035, abs=2e-4)
    assert fit_p_value((50.0,), 100, Measurement("paper", (10**6, 10**6))) == pytest.approx(1.0)
    fair3 = Measurement("paper", (10**6, 10**6, 10**6))
    assert fit_p_value((34.0, 33.0, 33.0), 100, fair3) == pytest.approx(1.0)
    assert fit_p_value((60.0, 20.0, 20.0), 100, fair3) < 1e-4
    # against exact probabilities: an outcome of probability 0 that the paper saw is impossible
    assert fit_p_value((34.0, 33.0, 33.0), 100, (1 / 3, 1 / 3, 1 / 3)) == pytest.approx(1.0)
    assert fit_p_value((35.0,), 100, (0.5,)) == pytest.approx(0.0035, abs=2e-4)
    assert fit_p_value((99.0, 1.0, 0.0), 100, (0.99, 0.0, 0.01)) == 0.0
    # above 1,000 games: chi-squared, close to the exact answer
    assert fit_p_value((47.0,), 2000, Measurement("paper", (10**6, 10**6))) == pytest.approx(0.0075, abs=1e-3)


def test_reproduce_builds_the_table():
    rows = [r for r in PAPER_ROWS if r.key in ("mc10-x", "centre-In150", "random-In8")]
    table = reproduce(rows, games=60, seed=3, min_cheap_games=200, workers=1, progress=False)
    assert table.measured[("random-In8", "paper")].counts == table.measured[("random-In8", "corrected")].counts
    assert table.measured[("random-In8", "paper")].games == 200
    assert table.measured[("centre-In150", "paper")].statistic == "held at the end"
    assert table.measured[("centre-In150", "corrected")].statistic == "held at the end"  # like with like
    assert table.exact[("centre-In150", "corrected")] == pytest.approx((0.5151,), abs=1e-4)
    assert ("mc10-x", "paper") in table.exact and table.p_value("mc10-x", "paper") == pytest.approx(
        fit_p_value((88.0, 12.0, 0.0), 100, table.exact[("mc10-x", "paper")])
    )
    records = table.records()
    assert [r["rate"] for r in records] == ["X wins", "O wins", "draws"] * 2 + ["centre"]
    assert records[0]["published"] == 58.34 and 0 <= records[0]["paper_p"] <= 1
    assert "In [804]" in table.table() and "<table>" in table._repr_html_()
    assert max(len(line) for line in table.table().splitlines()) <= 100  # no wrapping in a notebook


def test_measure_rejects_unknown_procedures():
    with pytest.raises(ValueError, match="procedure"):
        measure(PAPER_ROWS[3], "published", 10, 0)


def test_budget_curves_and_their_plot():
    import matplotlib

    matplotlib.use("Agg")
    curve = budget_curve(
        "flat", ["racioppo:playouts=1", "racioppo:playouts=30"], [1, 30], seat="o", games=120, workers=1
    )
    assert [o.games for o in curve.outcomes] == [120, 120]
    assert curve.rates()[1] > curve.rates()[0]  # more playouts, better play (the gap is large at these budgets)
    assert np.all(curve.bands()[:, 0] <= curve.rates()) and np.all(curve.rates() <= curve.bands()[:, 1])
    ax = plot_curves([curve], rate="win", xlabel="playouts per move")
    assert ax.get_xscale() == "log" and len(ax.lines) == 1
    with pytest.raises(ValueError, match="same length"):
        budget_curve("bad", ["random"], [1, 2])


def test_centre_trials_split_between_workers_give_the_same_count():
    from mctslab.course.reproduction.experiments import _centre_trials, centre_first_rate

    agent = "racioppo:playouts=2,procedure=paper"
    seed = np.random.SeedSequence(4)
    whole = centre_first_rate(agent, 900, seed)
    assert _centre_trials(agent, 900, seed, executor=None, workers=2, chunk=250) == whole
    assert sum(whole) == 900


# -- exact values of the window-1 rows -----------------------------------------------------
def test_exact_decisions_match_the_agents_sampled_decisions():
    from mctslab.course.reproduction.exact_rows import decision_probabilities

    # X to move after X 0, O 4: six empty cells; 10 playouts make ties common
    state = GAME.state_from_moves([0, 4])
    x, o, _ = state
    n = 3000
    for defects in ("none", "ties", "turn-check"):
        exact = decision_probabilities(x, o, 0, 10, frozenset() if defects == "none" else frozenset(defects.split("-")))
        assert sum(exact) == pytest.approx(1.0)
        agent = RacioppoMonteCarlo(playouts=10, defects=defects, seed=5)
        moves = Counter(agent.select_move(GAME, state) for _ in range(n))
        for move, p in zip(GAME.legal_moves(state), exact, strict=True):
            assert _close(moves[move] / n, p, n), (defects, move, moves[move] / n, p)


def test_exact_match_values_agree_with_enumeration_and_the_stored_file():
    from mctslab.course.reproduction.exact_rows import exact_rates, load_exact, match_probabilities

    random_game = match_probabilities("random", "random")
    assert random_game[:3] == pytest.approx(_oracle(GAME.initial_state()), abs=1e-12)
    stored = load_exact()
    rows = {r.key: r for r in PAPER_ROWS}
    # recompute the cheap rows (10 playouts, and the first move at 100) and compare with the stored file
    for key in ("mc10-both", "centre-10-held", "centre-100", "centre-10", "random-In8"):
        for procedure in ("paper", "corrected"):
            assert exact_rates(rows[key], procedure) == pytest.approx(stored["rows"][key][procedure], abs=1e-9)
    assert stored["rows"]["centre-10-held"]["corrected"][0] == pytest.approx(0.5151, abs=1e-4)
    assert stored["rows"]["w3-o"]["paper"] is None  # windows 2 and 3 are simulated only
    for key, variants in stored["ablation"].items():  # paper and corrected of the ablation are the rows' own
        assert variants["paper"] == stored["rows"][key]["paper"]
        assert variants["corrected"] == stored["rows"][key]["corrected"]


def test_exact_match_values_agree_with_simulation():
    from mctslab.course.reproduction.exact_rows import match_probabilities

    x, o = "racioppo:playouts=10,procedure=paper", "racioppo:playouts=10,procedure=corrected"
    exact = match_probabilities(x, o)
    n = 600
    result = play_match("tictactoe", x, o, n, seed=8, seats="a-first", workers=1, progress=False)
    held = sum(4 in r.moves[0::2] for r in result.results)
    simulated = (result.outcomes.wins, result.outcomes.losses, result.outcomes.draws, held)
    for k, p in zip(simulated, exact, strict=True):
        assert _close(k / n, p, n)


# -- the stored ablation of window 3 as O ---------------------------------------------------
def test_stored_ablation_rederives_a_sample_and_supports_its_conclusions():
    import json

    from mctslab.course.reproduction.ablation import DATA_FILE, ablation_chunk, ablation_variants, load_ablation

    data = json.loads(DATA_FILE.read_text())
    row = next(r for r in PAPER_ROWS if r.key == data["row"])
    for name in ("without index", "only threshold"):  # re-derive one stored chunk of two variants
        chunk = ablation_chunk(row, ablation_variants()[name], 3, data["chunk_games"], data["seed"], workers=1)
        assert list(chunk) == data["chunks"][name]["3"]
    ablation = load_ablation()
    assert list(ablation) == list(ablation_variants())
    assert len({m.games for m in ablation.values()}) == 1 and ablation["paper"].games >= 5000


def test_the_ablation_is_one_resumable_schedule_whose_counts_are_the_chunks(tmp_path):
    from mctslab.course.reproduction.ablation import ablation_chunk, ablation_variants, precompute_ablation

    out, games = tmp_path / "ablation.json", tmp_path / "games.jsonl"
    data = precompute_ablation(out, games_file=games, games=4, chunk_games=2, seed=7, workers=1, progress=False)
    assert json.loads(out.read_text()) == data and len(games.read_text().splitlines()) == 1 + 10 * 4
    row = next(r for r in PAPER_ROWS if r.key == "w3-o")
    for name in ("paper", "only ties"):  # each stored chunk is the chunk played on its own
        for c in ("0", "1"):
            assert data["chunks"][name][c] == list(ablation_chunk(row, ablation_variants()[name], int(c), 2, 7))
    again = precompute_ablation(out, games_file=games, games=4, chunk_games=2, seed=7, workers=1, progress=False)
    assert again == data  # read back, nothing played
    with pytest.raises(ValueError, match="games file does not"):  # the counts are never replaced by fewer
        precompute_ablation(out, games_file=tmp_path / "new.jsonl", games=2, chunk_games=2, seed=7, progress=False)


def test_tables_stay_narrow_and_show_html():
    from mctslab.course.experiments.tables import PanelTable as Table

    wide = Table(["budget", *(f"column number {i}" for i in range(12))], [[i, *range(12)] for i in range(3)], title="t")
    lines = wide.text().splitlines()
    assert max(len(line) for line in lines) <= 100 and lines[0] == "t"
    assert sum(line.startswith("budget") for line in lines) == 3  # cut into panels, each with the first column
    assert "<th>column number 11</th>" in wide._repr_html_()
    with pytest.raises(ValueError, match="cells"):
        Table(["a", "b"], [[1]])


def test_without_each_defect_switches_one_defect_off_at_a_time():
    from mctslab.course.reproduction import without_each_defect

    row = next(r for r in PAPER_ROWS if r.key == "centre-100")
    ablation = without_each_defect(row, 400, 1, workers=1)
    assert list(ablation) == ["paper", *(f"without {d}" for d in DEFECTS), "corrected"]
    # the first move on the empty board: only turn and ties can act, and turn is what lifts the centre rate
    assert ablation["without index"].counts == ablation["paper"].counts
    assert ablation["without turn"].percentages[0] < ablation["paper"].percentages[0] - 5
    with pytest.raises(ValueError, match="fixed statistic"):
        without_each_defect(next(r for r in PAPER_ROWS if r.key == "centre-In150"), 10, 1)
