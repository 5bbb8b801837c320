"""Notebook 09's stored results: complete, and a sample of games re-derived from their seeds."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from mctslab import make_game
from mctslab.course.experiments.improvements import (
    COMPARISONS,
    COMPILED_BASELINE,
    COMPILED_GAMES,
    COMPILED_ITERATION_MATCHES,
    COMPILED_ITERATIONS,
    COMPILED_MATCHES,
    COMPILED_SECONDS,
    COMPILED_VARIANTS,
    COSTLY_GAMES,
    CURVE_BUDGETS,
    CURVE_GAMES,
    CURVE_MATCHES,
    GAMES,
    ITERATIONS,
    MATCHES,
    SECONDS,
    SEED,
    TIMED_MATCHES,
    Pairing,
    Race,
    Row,
    Timings,
    bonferroni,
    compiled_iteration_matches,
    compiled_matches,
    detectable_score,
    head_to_head,
    is_timed,
    iteration_costs,
    measured_curve,
    measured_table,
    node_counts,
    playout_costs,
    timed_match,
)
from mctslab.tournament import Outcomes
from mctslab.tournament.stats import games_needed_one_sample

DATA = Path(__file__).resolve().parent.parent / "notebooks" / "data" / "09_improving_uct"


def games_in(pairing):
    lines = (DATA / pairing.filename).read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


@pytest.mark.parametrize("pairing", MATCHES, ids=lambda p: p.filename)
def test_every_match_of_the_notebook_is_stored_complete(pairing):
    header = json.loads((DATA / pairing.filename).read_text().splitlines()[0])
    assert header["agents"][1].startswith("uct:") and header["seed"]["entropy"] == 2026
    assert sorted(g["index"] for g in games_in(pairing)) == list(range(pairing.games))


@pytest.mark.parametrize("variant", ["solver", "rave"])
def test_stored_games_at_equal_iterations_are_replayed_from_their_seeds(variant):
    pairing = next(
        p for p in MATCHES if p.game == "connect4" and p.variant.startswith(variant + ":") and p.budget == "iterations"
    )
    stored = {g["index"]: g for g in games_in(pairing)}
    fresh = head_to_head(pairing, games=2)  # the first two games, played again, nothing kept
    for result in fresh.results:
        assert list(result.moves) == stored[result.index]["moves"]
        assert result.winner == stored[result.index]["winner"]


def test_rows_and_verdicts_follow_the_interval():
    assert Row("g", "v", "iterations", Outcomes(40, 0, 10)).verdict == "better"
    assert Row("g", "v", "iterations", Outcomes(10, 0, 40)).verdict == "worse"
    assert Row("g", "v", "iterations", Outcomes(27, 0, 23)).verdict == "not shown"
    assert Pairing("connect4", "rave:iterations=5,k=3", "uct:iterations=5", 2).filename.endswith(".jsonl")


def test_a_row_decides_at_its_own_confidence():
    # 33 of 50 is outside a 95% interval around 1/2 but inside a 99.83% one (Bonferroni for 29 comparisons)
    outcomes = Outcomes(33, 0, 17)
    assert Row("g", "v", "iterations", outcomes).verdict == "better"
    strict = Row("g", "v", "iterations", outcomes, bonferroni(29))
    assert strict.verdict == "not shown" and strict.interval == outcomes.score_ci(1 - 0.05 / 29)
    assert strict.interval[0] < Row("g", "v", "iterations", outcomes).interval[0]


def test_bonferroni_splits_the_error_over_the_notebooks_comparisons():
    # 200 is in both the table and the curve
    table = len(MATCHES) + len(TIMED_MATCHES) + len(COMPILED_MATCHES) + len(COMPILED_ITERATION_MATCHES)
    assert COMPARISONS == table + len(CURVE_MATCHES) - 1 == 29
    assert bonferroni(29) == pytest.approx(1 - 0.05 / 29) and bonferroni(1) == pytest.approx(0.95)
    with pytest.raises(ValueError, match="comparisons must be at least 1, got 0"):
        bonferroni(0)


def test_matches_at_equal_iterations_have_the_games_their_stated_power_needs():
    level = bonferroni()
    assert games_needed_one_sample(0.6, 0.5, confidence=level) <= GAMES  # the table's matches: 0.6
    assert games_needed_one_sample(0.67, 0.5, confidence=level) <= COSTLY_GAMES  # decisive playouts on Ultimate
    small = CURVE_GAMES[25] == CURVE_GAMES[50] == CURVE_GAMES[100]
    assert small and games_needed_one_sample(0.64, 0.5, confidence=level) <= CURVE_GAMES[25]
    assert games_needed_one_sample(0.70, 0.5, confidence=level) <= CURVE_GAMES[400] == CURVE_GAMES[800]
    assert sorted(CURVE_GAMES) == list(CURVE_BUDGETS) and CURVE_GAMES[ITERATIONS] == GAMES
    at_equal_iterations = [p for p in MATCHES if p.budget == "iterations"]
    assert sorted(p.games for p in at_equal_iterations) == [COSTLY_GAMES] + [GAMES] * 7
    assert games_needed_one_sample(0.6, 0.5, confidence=level) <= COMPILED_GAMES  # compiled, equal time: 0.6
    assert all(p.games == COMPILED_GAMES for p in COMPILED_ITERATION_MATCHES)  # compiled, equal iterations: 0.6


def test_the_compiled_matches_pair_compiled_variant_with_compiled_uct_at_equal_time():
    baseline = f"{COMPILED_BASELINE},seconds={COMPILED_SECONDS}"
    assert [(p.game, p.variant, p.baseline) for p in COMPILED_MATCHES] == [
        (game, f"{v},seconds={COMPILED_SECONDS}", baseline) for game in ("connect4", "uttt") for v in COMPILED_VARIANTS
    ]
    assert all(p.budget == "time" and p.games == COMPILED_GAMES and is_timed(p) for p in COMPILED_MATCHES)
    assert all("engine=compiled" in p.variant for p in COMPILED_MATCHES)
    assert len({p.filename for p in [*MATCHES, *TIMED_MATCHES, *COMPILED_MATCHES]}) == 20  # no file shared
    assert [p.games for p in compiled_matches(0.01)] == [4] * 4 and compiled_matches(0)[0].games == 2
    assert COMPILED_MATCHES[0].seconds == COMPILED_SECONDS and MATCHES[0].seconds is None
    assert TIMED_MATCHES[0].seconds == SECONDS and not is_timed(MATCHES[-1])  # Connect Four at 0.02 s: no iterations


def test_the_compiled_matches_at_equal_iterations_pair_compiled_variant_with_compiled_uct():
    budget = f"iterations={COMPILED_ITERATIONS}"
    assert [(p.game, p.variant, p.baseline) for p in COMPILED_ITERATION_MATCHES] == [
        (game, f"{v},{budget}", f"{COMPILED_BASELINE},{budget}")
        for game in ("connect4", "uttt")
        for v in COMPILED_VARIANTS
    ]
    assert all(p.budget == "iterations" and not is_timed(p) and p.seconds is None for p in COMPILED_ITERATION_MATCHES)
    assert all("compiled_iterations-" in p.filename for p in COMPILED_ITERATION_MATCHES)  # --only compiled_iterations
    assert not any("compiled_iterations-" in p.filename for p in [*MATCHES, *TIMED_MATCHES, *COMPILED_MATCHES])
    assert [p.games for p in compiled_iteration_matches(0.01)] == [4] * 4


@pytest.mark.parametrize("pairing", COMPILED_ITERATION_MATCHES, ids=lambda p: p.filename)
def test_every_compiled_match_at_equal_iterations_is_stored_complete(pairing):
    header = json.loads((DATA / pairing.filename).read_text().splitlines()[0])
    assert header["agents"][1].startswith("uct:") and "engine=compiled" in header["agents"][1]
    assert header["seed"]["entropy"] == SEED
    assert sorted(g["index"] for g in games_in(pairing)) == list(range(pairing.games))


@pytest.mark.parametrize("variant", COMPILED_VARIANTS)
def test_compiled_games_at_equal_iterations_are_replayed_from_their_seeds(variant):
    pairing = next(p for p in COMPILED_ITERATION_MATCHES if p.game == "connect4" and p.variant.startswith(variant))
    stored = {g["index"]: g for g in games_in(pairing)}
    for result in head_to_head(pairing, games=2).results:  # the first two games, played again, nothing kept
        assert list(result.moves) == stored[result.index]["moves"]
        assert result.winner == stored[result.index]["winner"]


def test_the_measured_table_keeps_each_cell_in_its_column_under_100_characters():
    table = measured_table(DATA, confidence=bonferroni())
    lines = table.lines()
    assert len(table.rows) == 24 and all(len(line) < 100 for line in lines)
    budgets = {line[lines[0].index("budget") :].split()[0] for line in lines}
    assert budgets == {"budget", "iterations", "time"}  # no variant runs into the budget column


def test_the_detectable_score_inverts_games_needed():
    level = bonferroni()
    assert detectable_score(400, level) == 0.6 and detectable_score(150, level) == 0.67
    assert detectable_score(10**6, level) == 0.51 and detectable_score(1, level) == 1.0
    assert games_needed_one_sample(0.59, 0.5, confidence=level) > 400


def test_timings_give_medians_ratios_and_an_order_statistic_interval():
    seconds = {"uct": (1.0,) * 9, "rave": (3.0, 4.0, 5.0, 2.0, 6.0, 7.0, 1.0, 9.0, 8.0)}
    t = Timings("uct", seconds)
    assert t.rounds == 9 and t.median("rave") == 5.0 and t.ratio("rave") == 5.0
    assert t.ratio_interval("rave") == (2.0, 8.0)  # the 2nd smallest and 2nd largest of 9
    assert t.confidence() == 1 - Fraction(2 * (1 + 9), 2**9)  # 1 - 2 P(Binomial(9, 1/2) < 2) = 0.961
    few = Timings("uct", {k: v[:5] for k, v in seconds.items()})
    assert few.ratio_interval("rave") == (2.0, 6.0) and few.confidence() == Fraction(15, 16)  # min and max of 5


def test_node_counts_and_costs_are_measured():
    game = make_game("tictactoe")
    ((n, tree, positions),) = node_counts(game, [2000])
    assert n == 2000 and tree <= 2001 and positions < tree
    costs = playout_costs(game, playouts=3, rounds=2, min_seconds=0.001)
    assert set(costs.seconds) == {"random", "decisive", "antidecisive"} and costs.baseline == "random"
    assert costs.rounds == 2 and all(s > 0 for t in costs.seconds.values() for s in t)
    per_iteration = iteration_costs(game, ["uct", "rave"], iterations=50, rounds=1, min_seconds=0.001)
    assert per_iteration.ratios("uct") == (1.0,) and per_iteration.median("rave") > 0


def test_a_race_compares_positions_not_runs():
    # two positions, three seeds each: the runs of a position are summed before the positions are compared
    race = Race(("a", "b"), 100, ((5, 5, 5, 1, None, 1), (6, 6, 6, 2, 2, 2)), seeds=3)
    assert race.sooner(0, 1) == (5, 0, 1) and race.sooner_on_positions(0, 1) == (1, 0, 1)
    assert race.sign_test(0, 1) == 1 and race.shown(None) == "> 100" and race.shown(7) == "7"
    lopsided = Race(("a", "b"), 10, (tuple(range(1, 7)), (10,) * 6), seeds=1)
    assert lopsided.sooner_on_positions(0, 1) == (6, 0, 0) and lopsided.sign_test(0, 1) == Fraction(2, 64)


# -- equal time on Ultimate Tic-Tac-Toe (timed_match) and the budget curve ----------------
def timed_games(pairing):
    lines = (DATA / pairing.filename).read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


@pytest.mark.parametrize("pairing", [*TIMED_MATCHES, *COMPILED_MATCHES], ids=lambda p: p.filename)
def test_every_timed_match_is_stored_complete_with_its_clock_and_iterations(pairing):
    header, games = timed_games(pairing)
    assert header["format"] == "mctslab-results" and header["seed"]["entropy"] == SEED  # the tournament's format
    assert [_short(a) for a in header["agents"]] == [_short(pairing.variant), _short(pairing.baseline)]
    assert sorted(g["index"] for g in games) == list(range(pairing.games)) and pairing.games >= 40
    match = timed_match(pairing, DATA)
    for g, (a, b) in zip(games, match.decisions, strict=True):
        assert a + b == g["plies"] == len(g["moves"]) and g["a_first"] == (g["index"] % 2 == 0)
        assert a - b == (1 if g["a_first"] else -1) * (g["plies"] % 2)  # the first mover made the extra move
        # each move searched at least once, and for at least its budget (the clock stops the search)
        assert all(it >= d for it, d in zip(g["iterations"], (a, b), strict=True))
        assert all(t >= pairing.seconds * d for t, d in zip(g["seconds"], (a, b), strict=True))
    assert match.outcomes.games == pairing.games and min(match.iterations_per_move()) > 1


def _short(spec):
    """A spec's settings, in any order."""
    name, _, rest = spec.partition(":")
    return name, frozenset(rest.split(","))


@pytest.mark.parametrize("pairing", TIMED_MATCHES[:2], ids=lambda p: p.filename)
def test_stored_timed_games_replay_as_legal_games_with_their_recorded_winner(pairing):
    # the moves depend on the machine's speed, so a game cannot be played again move for
    # move; what can be checked: the first games replay as legal games ending as recorded
    game = make_game(pairing.game)
    _, games = timed_games(pairing)
    for g in games[:4]:
        state = game.state_from_moves(g["moves"])
        assert game.is_terminal(state)
        winner = game.winner(state)
        a_seat = 0 if g["a_first"] else 1
        assert g["winner"] == (None if winner is None else "a" if winner == a_seat else "b")


def test_timed_match_plays_counts_and_resumes(tmp_path):
    pairing = TIMED_MATCHES[2]  # transpositions at 0.02 s per move
    first = timed_match(pairing, tmp_path, games=1)
    (g,) = first.result.results
    assert g.a_first and sum(first.decisions[0]) == len(g.moves) and all(i >= 1 for i in g.iterations)
    again = timed_match(pairing, tmp_path, games=2)  # the first game is read back, the second played
    back = again.result.results[0]  # read back: as played, its seconds rounded to microseconds in the file
    assert back == replace(g, seconds=back.seconds) and back.seconds == pytest.approx(g.seconds, abs=1e-6)
    assert again.result.resumed == 1
    assert again.result.results[1].index == 1 and not again.result.results[1].a_first
    assert len((tmp_path / pairing.filename).read_text().splitlines()) == 3
    other = Pairing(pairing.game, "solver:seconds=0.02", pairing.baseline, 1, "time")
    (tmp_path / other.filename).write_text((tmp_path / pairing.filename).read_text())
    with pytest.raises(ValueError, match="another run"):
        timed_match(other, tmp_path)


def test_a_compiled_timed_match_records_each_sides_clock_and_iterations_and_the_load(tmp_path):
    from mctslab.course.experiments.improvements import LOAD_LOG, machine_load
    from mctslab.course.experiments.improvements.__main__ import _timed_with_load

    # compiled UCT on both sides, a millisecond per move: the machinery of the compiled matches, fast
    spec = f"{COMPILED_BASELINE},seconds=0.001"
    pairing = Pairing("connect4", spec, spec, 2, "time")
    _timed_with_load(pairing, tmp_path)
    match = timed_match(pairing, tmp_path, play=False)
    assert match.outcomes.games == 2 and is_timed(pairing) and pairing.seconds == 0.001
    assert min(match.iterations_per_move()) > 100  # thousands on a quiet core: far more than Python's
    assert min(match.seconds_per_move()) >= 0.001
    (line,) = machine_load(tmp_path)
    assert len((tmp_path / LOAD_LOG).read_text().splitlines()) == 1 and machine_load(tmp_path / "none") == ()
    assert line["file"] == pairing.filename and line["games"] == [0, 2] and len(line["loadavg_start"]) == 3
    _timed_with_load(pairing, tmp_path)  # nothing left to play: no line added
    assert len((tmp_path / LOAD_LOG).read_text().splitlines()) == 1


def test_a_timed_match_refuses_games_stored_without_iterations(tmp_path):
    pairing = TIMED_MATCHES[0]
    stored = (DATA / pairing.filename).read_text().splitlines()[:2]
    game = json.loads(stored[1])
    del game["iterations"]
    (tmp_path / pairing.filename).write_text(stored[0] + "\n" + json.dumps(game) + "\n")
    with pytest.raises(ValueError, match="without iterations"):
        timed_match(pairing, tmp_path, games=1)


@pytest.mark.parametrize("pairing", CURVE_MATCHES, ids=lambda p: p.filename)
def test_every_match_of_the_budget_curve_is_stored_complete(pairing):
    header = json.loads((DATA / pairing.filename).read_text().splitlines()[0])
    assert header["agents"] == [pairing.variant, pairing.baseline] and header["seed"]["entropy"] == SEED
    assert sorted(g["index"] for g in games_in(pairing)) == list(range(pairing.games))


def test_the_budget_curve_replays_from_its_seeds_and_reads_back():
    pairing = CURVE_MATCHES[0]  # 25 iterations: cheap to play again
    stored = {g["index"]: g for g in games_in(pairing)}
    for result in head_to_head(pairing, games=2).results:
        assert list(result.moves) == stored[result.index]["moves"]
        assert result.winner == stored[result.index]["winner"]
    curve = measured_curve(DATA)
    assert curve.xs == tuple(float(n) for n in CURVE_BUDGETS) and len(curve.outcomes) == len(CURVE_BUDGETS)
    assert [o.games for o in curve.outcomes] == [CURVE_GAMES[n] for n in CURVE_BUDGETS]
    assert CURVE_MATCHES[CURVE_BUDGETS.index(ITERATIONS)] in MATCHES  # the table's match is a point of the curve


def test_the_score_curve_is_drawn_with_its_bands_and_the_even_line():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mctslab.course.figures.plots import plot_score_curve

    curve = measured_curve(DATA)
    ax = plot_score_curve(curve)
    (line, even) = ax.get_lines()
    assert list(line.get_xdata()) == list(curve.xs) and list(line.get_ydata()) == list(curve.rates())
    assert list(even.get_ydata()) == [0.5, 0.5] and ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(n) for n in CURVE_BUDGETS]
    plt.close(ax.figure)


def test_the_notebooks_readers_never_play_into_the_stored_files(tmp_path):
    # A stored file cut short is an error naming it, not games played here and appended.
    import shutil

    from mctslab.course.experiments.improvements import MATCHES, measured_table
    from mctslab.tournament import ResultsFileError

    pairing = MATCHES[0]
    shutil.copy(DATA / pairing.filename, tmp_path / pairing.filename)
    lines = (tmp_path / pairing.filename).read_text().splitlines(keepends=True)
    (tmp_path / pairing.filename).write_text("".join(lines[:-3]))
    before = (tmp_path / pairing.filename).read_bytes()
    with pytest.raises(ResultsFileError, match="lack|missing|games"):
        measured_table(tmp_path, [pairing])
    assert (tmp_path / pairing.filename).read_bytes() == before
    assert measured_table(DATA, [pairing]).rows[0].outcomes.games == pairing.games


def test_a_timed_matchs_costs_are_per_game_ratios_of_seconds_per_iteration():
    # RAVE against UCT on the compiled engine: each game gives A's and B's seconds per iteration
    pairing = next(p for p in COMPILED_MATCHES if p.game == "uttt" and p.variant.startswith("rave"))
    match = timed_match(pairing, DATA, play=False)
    costs = match.costs()
    _, games = timed_games(pairing)
    assert costs.rounds == len(games) == pairing.games and costs.baseline == "uct"
    g = games[0]
    assert costs.seconds["variant"][0] == pytest.approx(g["seconds"][0] / g["iterations"][0])
    assert costs.seconds["uct"][0] == pytest.approx(g["seconds"][1] / g["iterations"][1])
    low, high = costs.ratio_interval("variant")
    assert low <= costs.ratio("variant") <= high and costs.confidence() >= Fraction(95, 100)
    a, b = match.decisions[0]
    assert match.time_ratios()[0] == pytest.approx((g["seconds"][0] / a) / (g["seconds"][1] / b))
    assert len(match.time_ratios()) == pairing.games
