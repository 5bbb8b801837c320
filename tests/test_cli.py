"""The command line: match, move and tournament; bad input gives one line and status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mctslab.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


MATCH = ("match", "tictactoe", "flat:playouts=5", "random", "--games", "12", "--seed", "3", "--no-progress")


def test_match_json_is_the_same_with_one_and_two_workers(capsys):
    code1, out1, _ = run(capsys, *MATCH, "--workers", "1", "--json")
    code2, out2, _ = run(capsys, *MATCH, "--workers", "2", "--json")
    assert code1 == code2 == 0
    assert out1 == out2
    d = json.loads(out1)
    assert d["games"] == 12 and d["a"] == "flat:playouts=5" and d["b"] == "random"
    assert d["a_wins"] + d["b_wins"] + d["draws"] == 12
    assert d["by_seat"]["a_first"]["games"] == d["by_seat"]["b_first"]["games"] == 6
    assert len(d["a_score_ci95"]) == 2


def test_match_table_is_readable(capsys):
    code, out, _ = run(capsys, *MATCH, "--workers", "1")
    assert code == 0
    assert "A moved first" in out and "B moved first" in out and "Wilson" in out


def test_match_resumes_from_its_out_file(capsys, tmp_path):
    out = str(tmp_path / "games.jsonl")
    short = list(MATCH)
    short[short.index("--games") + 1] = "5"
    assert run(capsys, *short, "--workers", "1", "--out", out)[0] == 0
    _, resumed, _ = run(capsys, *MATCH, "--workers", "1", "--out", out, "--json")
    _, fresh, _ = run(capsys, *MATCH, "--workers", "1", "--json")
    assert resumed == fresh
    _, table, _ = run(capsys, *MATCH, "--workers", "1", "--out", out)
    assert f"12 of the 12 games were read from {out}" in table


def test_move_uct_reports_visits_and_means(capsys):
    code, out, _ = run(capsys, "move", "tictactoe", "uct:iterations=300", "--moves", "0,3,1,4", "--seed", "1", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["move"] == 2 and d["to_move"] == 0  # X completes the top row
    assert sum(s["visits"] for s in d["stats"]) == 300 and all("mean" in s for s in d["stats"])


@pytest.mark.parametrize(("spec", "rule"), [("uct", "UCB1"), ("rave", "RAVE"), ("puct", "PUCT")])
def test_move_json_names_the_rule_its_ucb_values_come_from(capsys, spec, rule):
    code, out, _ = run(capsys, "move", "tictactoe", f"{spec}:iterations=100", "--moves", "0,3", "--json")
    d = json.loads(out)
    assert code == 0 and d["rule"] == rule and all("ucb" in s for s in d["stats"])
    _, flat, _ = run(capsys, "move", "tictactoe", "flat:playouts=10", "--moves", "0,3", "--json")
    assert "rule" not in json.loads(flat)


def test_move_flat_reports_playouts_and_scores(capsys):
    code, out, _ = run(capsys, "move", "tictactoe", "flat:playouts=50", "--moves", "4,0,8", "--json")
    d = json.loads(out)
    assert code == 0 and d["to_move"] == 1 and len(d["stats"]) == 6
    assert all(s["playouts"] == 50 and "score" in s for s in d["stats"])
    chosen = next(s for s in d["stats"] if s["move"] == d["move"])
    assert chosen["score"] == max(s["score"] for s in d["stats"])  # ties are broken at random


def test_move_table(capsys):
    code, out, _ = run(capsys, "move", "tictactoe", "minimax", "--moves", "0,3,1,4")
    assert code == 0 and "plays 2" in out and "X X ." in out


def test_tournament_prints_a_table_and_elo(capsys):
    argv = ("tournament", "tictactoe", "random", "flat:playouts=5", "minimax", "--games", "6", "--workers", "1")
    code, out, _ = run(capsys, *argv, "--no-progress")
    assert code == 0 and "Elo" in out and "minimax" in out
    code, out, _ = run(capsys, *argv, "--no-progress", "--json")
    assert code == 0 and [e["agent"] for e in json.loads(out)["elo"]] == ["random", "flat:playouts=5", "minimax"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("match", "chess", "random", "random"), "unknown game 'chess'; known games: connect4"),
        (("match", "tictactoe", "alphazero", "random"), "unknown agent 'alphazero'; known agents:"),
        (("match", "tictactoe", "uct:iterations", "random"), "malformed parameter 'iterations'"),
        (("match", "tictactoe", "uct:iterations=lots", "random"), "bad value 'lots' for parameter 'iterations'"),
        (("match", "tictactoe", "uct:depth=3", "random"), "unknown parameter 'depth' for agent 'uct'"),
        (
            ("match", "tictactoe", "random", "random", "--games", "0"),
            "argument --games: must be a whole number >= 1, got 0",
        ),
        (("match", "tictactoe", "random", "random", "--games", "ten"), "argument --games: expected a whole number"),
        (
            ("match", "tictactoe", "random", "random", "--seed", "-1"),
            "argument --seed: expected a whole number >= 0, got '-1'",
        ),
        (("match", "tictactoe", "random"), "the following arguments are required: AGENT_B"),
        (
            ("move", "tictactoe", "random", "--moves", "4,4"),
            "move #2 of the list: move 4 is illegal here; legal moves:",
        ),
        (("move", "tictactoe", "random", "--moves", "4,9"), "move 9 is illegal here"),
        (("move", "tictactoe", "random", "--moves", "4,x"), "expected comma-separated move numbers"),
        (("move", "tictactoe", "random", "--moves", "0,3,1,4,2"), "the game is over after moves 0,3,1,4,2"),
        (("move", "connect4", "racioppo", "--moves", "3"), "exact tables of 3 x 3 tic-tac-toe"),
        (("tournament", "tictactoe", "random"), "a tournament needs at least two agents"),
        (("tournament", "tictactoe", "random", "random", "--games", "2"), "each agent may appear once"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
        ((), "give a command: match, move, tournament"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("python -m mctslab")
    assert "Traceback" not in err


def test_a_results_file_of_another_run_is_one_line_too(capsys, tmp_path):
    out = str(tmp_path / "g.jsonl")
    assert run(capsys, *MATCH, "--workers", "1", "--out", out)[0] == 0
    code, _, err = run(capsys, "match", "tictactoe", "random", "random", "--games", "3", "--out", out, "--no-progress")
    assert code == 2 and err.count("\n") == 1 and "holds the results of another run" in err


def test_python_dash_m_runs_the_cli():
    done = subprocess.run(
        [sys.executable, "-m", "mctslab", "match", "tictactoe", "random", "nobody"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "python -m mctslab match: error: unknown agent 'nobody'; known agents: expectimax, flat,"
    )
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
