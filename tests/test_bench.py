"""The benchmark command runs and reports; it measures, it never asserts a speed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mctslab import engine
from mctslab.bench import creference, format_report, node_bytes, peak_memory, report_dict, run_benchmark
from mctslab.bench.naive import NaiveBoard, naive_uct


def test_every_row_is_measured():
    report = run_benchmark(rounds=2, scale=0.01, compare=False, progress=False)
    names = {(r.name, r.game) for r in report.rows}
    assert {("uct", "tictactoe"), ("uct", "connect4"), ("uct", "uttt"), ("naive uct", "tictactoe")} <= names
    assert {("rollout", g) for g in ("tictactoe", "connect4", "uttt", "fractio", "nim")} <= names
    assert {("flat numpy", "tictactoe"), ("flat numpy", "tictactoe:n=4,k=3")} <= names
    assert {(v, "connect4") for v in ("solver", "rave", "transpositions", "uct:playout=decisive")} <= names
    for row in report.rows:
        assert row.work >= 1 and row.wall > 0 and row.rate == pytest.approx(row.work / row.wall)
        assert row.openspiel_rate is None
    text = format_report(report)
    assert "median of 2 interleaved rounds" in text and f"Python {report.machine['python']}" in text
    assert json.loads(json.dumps(report_dict(report)))["rows"][0]["name"] == "uct"


def test_bench_command_prints_json():
    out = subprocess.run(
        [sys.executable, "-m", "mctslab", "bench", "--rounds", "1", "--scale", "0.005", "--no-compare", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = json.loads(out)
    assert data["rounds"] == 1 and len(data["rows"]) >= 10


def test_bench_refuses_bad_options():
    done = subprocess.run([sys.executable, "-m", "mctslab", "bench", "--scale", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "--scale must be > 0" in done.stderr


def test_the_naive_baseline_is_a_real_uct():
    """The "before" row plays tic-tac-toe correctly: it opens in the centre and counts every visit."""
    root = naive_uct(3000, seed=0)
    assert root.visits == 3000 == sum(ch.visits for ch in root.children)
    best = max(root.children, key=lambda ch: ch.visits)
    assert best.state.board[1][1] == 1
    board = NaiveBoard().move((0, 0)).move((1, 1)).move((0, 1)).move((2, 2)).move((0, 2))
    assert board.winner() == 1 and board.is_game_over() and board.get_legal_actions() == []


def test_memory_figures():
    per_node = node_bytes(iterations=2_000)
    assert 64 < per_node < 4_000
    peak = peak_memory(iterations=2_000)
    assert peak["nodes"] == 2_001 and peak["peak_rss_mb"] > 0


@pytest.mark.skipif(not engine.available() or creference.compiler() is None, reason="needs Numba and a C compiler")
def test_the_c_reference_is_timed_beside_the_compiled_rows():
    report = run_benchmark(
        rounds=2, scale=0.01, compare=False, progress=False, c_reference=True, only=("uct compiled",)
    )
    assert [(r.name, r.game) for r in report.rows] == [("uct compiled", g) for g in ("tictactoe", "connect4", "uttt")]
    for row in report.rows:
        assert row.c_rate > 0 and row.mt_cost > 0 and row.c_ratio > 0
    assert report.c_note is None and " x C " in format_report(report).splitlines()[0]


@pytest.mark.skipif(not engine.available(), reason="needs Numba")
def test_without_a_compiler_the_c_reference_is_skipped_with_a_line(monkeypatch):
    monkeypatch.setenv("CC", "")
    monkeypatch.setenv("PATH", "")
    report = run_benchmark(
        rounds=1, scale=0.01, compare=False, progress=False, c_reference=True, only=("uct compiled",)
    )
    assert all(r.c_rate is None for r in report.rows)
    assert report.c_note == "the C reference is skipped: no C compiler found (set CC, or install gcc or clang)"
    assert format_report(report).splitlines()[-1] == report.c_note


def test_only_names_rows_that_exist():
    with pytest.raises(ValueError, match="no benchmark row named 'uct compild'; rows: "):
        run_benchmark(rounds=1, scale=0.01, compare=False, progress=False, only=("uct compild",))


def test_the_c_ratio_weighs_both_orders_alike():
    from mctslab.bench.suite import c_ratio

    assert c_ratio([0.8]) == 0.8
    assert c_ratio([0.8, 1.25]) == pytest.approx(1.0)  # compiled first in round 0, C first in round 1
    # five rounds: three with the compiled row first (0.8 each), two with C first (1.25): still 1, not 0.8
    assert c_ratio([0.8, 1.25, 0.8, 1.25, 0.8]) == pytest.approx(1.0)
    assert c_ratio([0.9, 1.0, 0.7, 1.0]) == pytest.approx((0.8 * 1.0) ** 0.5)
    with pytest.raises(ValueError, match="at least one"):
        c_ratio([])
