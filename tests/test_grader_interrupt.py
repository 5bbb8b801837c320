"""Ctrl-C and SIGTERM stop the grader at once (issue 36, item 7): one line, no traceback, no process or
temporary folder left behind, the submissions graded before kept.

``python -m mctslab grade`` runs in a process group of its own on a class whose two submissions
sleep in a cell (the wall-clock backstop would stop them after ten minutes); once both kernels
have started, the signal goes to the group (a terminal's Ctrl-C) or to the grader alone (SIGTERM).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from test_grader import _processes_with, _student

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")


def _write(folder: Path, name: str, text: str) -> None:
    path = folder / name / "04b_write_uct_yourself.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(text)


@pytest.mark.parametrize("how", ["ctrl-c to the group", "sigterm to the grader"])
def test_a_signal_stops_the_grader_at_once_leaving_nothing_behind(tmp_path: Path, how: str) -> None:
    token = secrets.token_hex(6)
    folder = tmp_path / "submissions"
    # The grader's temporary folder, short (the kernels' sockets live in it, 107 bytes of path at most).
    scratch = Path(tempfile.mkdtemp(prefix="gi-", dir="/tmp"))
    _write(folder, "a_list", "[]")  # graded in a moment: kept
    sleeps = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)', 'sleeper-{token}'])\n"
        "time.sleep(1000)\n"
    )
    for name in ("s1", "s2"):
        _write(folder, name, json.dumps(_student(extra={"ucb1": sleeps})))
    _write(folder, "z_correct", json.dumps(_student()))
    out = tmp_path / "grades.csv"
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "mctslab", "grade", str(folder), "--out", str(out), "--no-progress"]
    command += ["--sandbox", SANDBOX, "--workers", "2"]
    grader = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(_processes_with(f"sleeper-{token}")) < 2:  # both sleeping cells have started
            assert grader.poll() is None and time.monotonic() < deadline, grader.stderr.read()
            time.sleep(0.2)
        began = time.monotonic()
        if how == "ctrl-c to the group":
            os.killpg(grader.pid, signal.SIGINT)
        else:
            grader.send_signal(signal.SIGTERM)
        _, err = grader.communicate(timeout=60)
        took = time.monotonic() - began
    finally:
        if grader.poll() is None:
            os.killpg(grader.pid, signal.SIGKILL)
            grader.wait()
    lines = err.strip().splitlines()
    assert grader.returncode == 130, err
    assert lines[-1] == (
        "python -m mctslab grade: interrupted: 1 of 4 submissions graded, kept in grades.results.jsonl; "
        "run the same command again to grade the rest"
    ), err
    assert "Traceback" not in err and len(lines) == 2, err  # the sandbox's line, then that one
    assert took < 30, f"took {took:.1f} s to stop"  # (about 1 s quiet; the wall-clock backstop: 10 minutes)
    assert _processes_with(f"sleeper-{token}") == [] and _processes_with(str(scratch)) == []
    assert list(scratch.iterdir()) == []  # no work folder left
    scratch.rmdir()
    kept = [json.loads(line) for line in (tmp_path / "grades.results.jsonl").read_text().splitlines()]
    assert [row["submission"].split("/")[0] for row in kept] == ["a_list"]
