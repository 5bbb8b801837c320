"""The grader's time limits count the submission's work (CPU time), not the machine's load.

A cell that burns CPU forever is stopped by the CPU limit; a cell that sleeps uses none and
is stopped by the wall-clock backstop, and the grader says which one it was. A correct
submission graded with tight CPU limits on a machine loaded with CPU-burning processes still
earns every point (with wall-clock limits of the same size it timed out). Submissions are
written as in ``test_grader.py`` and ``test_grader_chance.py``: the student edition with the
reference solutions pasted into its stubs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from machine_load import busy_machine
from test_grader import _student as _student_04b

from mctslab.course.grader import sandbox as sandbox_module
from mctslab.course.grader.batch import grade_folder
from mctslab.course.grader.cpu import tree_cpu
from mctslab.course.grader.html import write_report
from mctslab.course.grader.points import POINTS
from mctslab.course.grader.run import grade_submission
from mctslab.course.grader.sandbox import Limits, probe, wall_backstop

SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")
LEVEL = probe() if SANDBOX != "rlimits" else "rlimits"
FULL_04B = {part: float(points) for part, points in POINTS["04b"].items()}


def _save(root: Path, name: str, notebook: dict, file: str = "04b_write_uct_yourself.ipynb") -> Path:
    path = root / name / file
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(notebook))
    return path


def test_the_wall_clock_backstop_is_ten_times_the_cpu_limit_and_thirty_seconds() -> None:
    assert wall_backstop(60) == 630 and wall_backstop(0.5) == 35
    assert Limits().cell_wall == 630 and Limits().notebook_wall == 2430
    assert Limits(cell=3, notebook=7).cell_wall == 60


def test_the_cpu_time_of_a_tree_counts_children_alive_and_reaped() -> None:
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.0:\n    pass\n"
    parent = (
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, '-c', {burn!r}])\n"  # burns 1 s of CPU and is reaped
        "print('reaped', flush=True)\n"
        f"child = subprocess.Popen([sys.executable, '-c', {burn!r} + 'print(1, flush=True)\\nsys.stdin.read()'],\n"
        "                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)\n"
        "child.stdout.readline()\n"  # the live grandchild has burnt its second
        "print('burnt', flush=True)\n"
        "sys.stdin.read()\n"
    )
    process = subprocess.Popen([sys.executable, "-c", parent], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "reaped\n"
        assert process.stdout.readline() == "burnt\n"
        assert tree_cpu(process.pid) >= 2.0  # one reaped child's second and a live one's
        assert tree_cpu(process.pid) < 60  # and not the whole machine's
    finally:
        process.kill()
        process.wait()
    assert tree_cpu(process.pid) == 0.0  # gone


def test_a_cell_burning_cpu_forever_is_stopped_by_the_cpu_limit(tmp_path: Path) -> None:
    path = _save(tmp_path, "spins", _student_04b(extra={"ucb1": "while True:\n    pass\n"}))
    row = grade_submission(path, tmp_path, LEVEL, Limits(cell=3, notebook=60))
    assert row["points"] == FULL_04B and row["flags"] == "timeout", row
    assert list(row["removed"].values()) == ["timeout"]
    (cell,) = row["removed"]
    assert row["stopped"] == {cell: "stopped after 3 s of CPU time"}, row["stopped"]
    page = (write_report([row], tmp_path / "report").parent / "students").glob("*.html")
    assert "timeout: stopped after 3 s of CPU time" in next(page).read_text()


def test_a_call_in_c_that_goes_on_through_the_interrupt_ends_the_run_at_twice_the_cell_limit(tmp_path: Path) -> None:
    """Not at the notebook's limit (60 s of CPU time here, 240 s by default): at 4 s, and said so; the rerun
    without that cell earns every point."""
    hangs = 'import re\n\nre.match(r"(a+)+$", "a" * 64 + "b")\n'  # a regular expression's backtracking, in C
    path = _save(tmp_path, "hangs_in_c", _student_04b(extra={"expand": hangs}))
    row = grade_submission(path, tmp_path, LEVEL, Limits(cell=2, notebook=60))
    assert row["points"] == FULL_04B and row["flags"] == "timeout", row
    (cell,) = row["removed"]
    assert row["stopped"][cell] == (
        "stopped after 2 s of CPU time, then ended with the run after 4 s: it went on through the interrupt "
        "(a long call in C, or an `except` that catches KeyboardInterrupt)"
    ), row["stopped"]


def test_a_cell_that_sleeps_is_stopped_by_the_wall_clock_backstop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "wall_backstop", lambda cpu_seconds: cpu_seconds + 4)
    path = _save(tmp_path, "sleeps", _student_04b(extra={"ucb1": "import time\n\ntime.sleep(10**6)\n"}))
    row = grade_submission(path, tmp_path, LEVEL, Limits(cell=3, notebook=60))
    assert row["points"] == FULL_04B and row["flags"] == "timeout", row
    (cell,) = row["removed"]
    said = row["stopped"][cell]
    assert said.startswith("stopped after 7 s of wall-clock time, using ") and "CPU time" not in said, said
    assert said.endswith(" s of CPU: blocked in sleep, input or a lock?"), said
    used = float(said.split("using ")[1].split(" s")[0])
    assert used < 3  # it was not the CPU limit
    page = (write_report([row], tmp_path / "report").parent / "students").glob("*.html")
    assert "wall-clock time" in next(page).read_text()


@pytest.mark.load
@pytest.mark.own_load
def test_a_correct_submission_earns_every_point_on_a_loaded_machine(tmp_path: Path) -> None:
    """A correct 04b, tight CPU limits, two CPU-burning processes per core.

    Quiet, 04b uses 1.8-2.5 s of CPU in all (its kernel's start included), no cell more than
    1 s: the limits leave it twice that. Loaded, its kernel gets a third of a core or less, so
    the same numbers as wall-clock limits (the grader before issue 37) stop it: its whole run
    takes more than 5 s on the wall. (One small notebook: a loaded minute of grading 12 slowed
    the rest of the suite by as much; 12's grading is tested, unloaded, in ``test_grader_chance``.)
    """
    folder = tmp_path / "submissions"
    _save(folder, "correct_04b", _student_04b())
    with busy_machine(per_core=2):
        (row,) = grade_folder(
            folder,
            tmp_path / "grades.csv",
            workers=1,
            limits=Limits(cell=2, notebook=5),
            sandbox=SANDBOX,
            progress=False,
            say=lambda line: None,
        )
    assert row["points"] == FULL_04B and row["flags"] == "", row
