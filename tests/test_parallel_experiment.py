"""Notebook 13's strength-speedup: inverting the sequential curve, its intervals, resumable matches."""

from __future__ import annotations

import math

import pytest

from mctslab.course.experiments import parallel
from mctslab.engine import available as engine_available
from mctslab.tournament.stats import Outcomes


def test_invert_interpolates_on_log2_budget_and_says_where_the_curve_ends():
    multiples, scores = (1, 2, 4, 8), (0.2, 0.4, 0.6, 0.7)
    assert parallel.invert(0.5, multiples, scores) == pytest.approx(2**1.5)
    assert parallel.invert(0.4, multiples, scores) == pytest.approx(2.0)
    assert parallel.invert(0.1, multiples, scores) == 1.0  # at most the first budget
    assert parallel.invert(0.75, multiples, scores) == math.inf  # beyond the measured budgets
    # a dip in a noisy curve is flattened (running maximum) before inverting
    assert parallel.invert(0.5, (1, 2, 4), (0.4, 0.3, 0.6)) == pytest.approx(2**1.5)  # as if 0.4, 0.4, 0.6


def test_the_interval_holds_the_estimate_and_widens_with_fewer_games():
    curve = {1: Outcomes(60, 0, 340), 2: Outcomes(120, 0, 280), 4: Outcomes(200, 0, 200), 8: Outcomes(280, 0, 120)}
    point = Outcomes(160, 0, 240)
    estimate = parallel.strength_speedup(point, curve)
    assert estimate == pytest.approx(2**1.5)
    low, high = parallel.speedup_interval(point, curve, 0.95)
    assert 1 <= low < estimate < high
    small = {m: Outcomes(o.wins // 4, 0, o.losses // 4) for m, o in curve.items()}
    low4, high4 = parallel.speedup_interval(Outcomes(40, 0, 60), small, 0.95)
    assert low4 < low and high4 > high


def test_parallel_specs_are_canonical():
    assert parallel.parallel_spec("tree", 4) == "simparallel:iterations=50"
    assert parallel.parallel_spec("root", 16) == "simparallel:iterations=50,workers=16,mode=root"


@pytest.mark.skipif(not engine_available(), reason="the fixed opponent runs on the compiled engine (Numba)")
def test_a_match_is_stored_and_resumed(tmp_path):
    spec = parallel.parallel_spec("leaf", 2)
    first = parallel.run_match(spec, games=2, folder=tmp_path, progress=False)
    (path,) = tmp_path.iterdir()
    assert len(path.read_text().splitlines()) == 3  # header and two games
    assert parallel.run_match(spec, games=2, folder=tmp_path, progress=False) == first
    assert parallel.run_match(spec, games=2, folder=None, progress=False) == first  # seeded: the same games


def test_the_difference_interval_holds_the_difference_and_is_narrower_than_the_intervals_end_to_end():
    a, b = Outcomes(1200, 100, 700), Outcomes(1000, 100, 900)
    low, high = parallel.difference_interval(a, b, 0.95)
    assert low < a.score - b.score < high
    (a_low, a_high), (b_low, b_high) = a.score_ci(0.95), b.score_ci(0.95)
    assert a_low - b_high < low and high < a_high - b_low
    assert parallel.difference_interval(b, a, 0.95) == pytest.approx((-high, -low))


@pytest.mark.skipif(not engine_available(), reason="real threads need the compiled engine (Numba)")
def test_real_threads_matches_resume_and_read_back_alike(tmp_path):
    assert parallel.threads_spec(2) == "uct:iterations=50,engine=compiled,threads=2,parallel=root"
    first = parallel.run_threads(games=2, folder=tmp_path, progress=False)
    assert set(first) == set(parallel.THREADS) and all(o.games == 2 for o in first.values())
    again = parallel.run_threads(games=2, folder=tmp_path, progress=False)  # finished files: read, not played
    assert again == first
    fresh = parallel.run_threads(games=2, folder=tmp_path / "other", progress=False)  # seeded: played alike
    assert fresh == first


def test_the_papers_table_is_the_transcription_labelled_as_such_and_set_beside_ours():
    """Chaslot et al. 2008 as transcribed (notes/papers.md, issue 38): exact numbers, label, nearest modes."""
    assert (
        parallel.PAPER_LABEL == "the paper's table as transcribed by a secondary source (the paper itself was not read)"
    )
    assert parallel.PAPER_METHODS[1] == "root" and parallel.PAPER_METHODS[4] == "tree, local mutexes + virtual loss"
    assert parallel.PAPER_TABLE == {
        2: (1.2, 3.0, 1.6, 1.9, 2.0),
        4: (1.7, 6.5, 3.0, 3.0, 3.6),
        16: (2.4, 14.9, 2.6, 3.3, 8.5),
    }
    ours = {(mode, k): float(k) for mode in parallel.MODES for k in parallel.WORKERS}
    ours["root", 16] = 9.1
    rows = {method: (mode, cells) for method, mode, cells in parallel.beside_the_paper(ours)}
    assert list(rows) == list(parallel.PAPER_METHODS)
    assert rows["root"] == ("root", {2: (3.0, 2.0), 4: (6.5, 4.0), 16: (14.9, 9.1)})
    assert rows["tree, global mutex"] == (None, {2: (1.6, None), 4: (3.0, None), 16: (2.6, None)})
    assert rows["tree, local mutexes"][0] == "treenovl" and rows["tree, local mutexes + virtual loss"][0] == "tree"
