"""What instructors expect from nbgrader or otter (issue 36, item 8): a roster, LMS gradebooks, feedback, extra checks.

``--roster roster.csv`` says whose folder is whose; ``--canvas`` and ``--moodle`` write the
gradebook files those LMSs import (0 for a student of the roster with no submission); ``--feedback
DIR`` writes one page per student holding their diagnoses and nothing of a classmate's (the copies'
flags name classmates: they are the instructor's); ``--extra-checks FILE`` adds the instructor's own
checks, run in the kernel like the others, marked with points from ``--points``, and copied into
nothing a student sees. Every bad option is one line before any grading.

All but one test stand in for the grading with canned rows (``batch.grade_folder`` replaced: no
kernel); the last grades one submission in a kernel, end to end through ``python -m mctslab grade``.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
from test_grader_regrade import IMPORTS, WILSON
from test_grader_regrade import UCB1 as UCB1_TEMPLATE

from mctslab.cli import main
from mctslab.course.grader import batch
from mctslab.course.grader.html import _slug, _student, write_feedback
from mctslab.course.grader.roster import load_roster

SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")
ROSTER = """\
folder,id,name,email,sis_id,login,section
alice smith,4711,"Smith, Alice",alice@example.edu,S1,asmith,Mon
bob,4712,"Jones, Bob",bob@example.edu,S2,bjones,Tue
carol,4713,"Wu, Carol",carol@example.edu,S3,cwu,Mon
"""
SUBMISSIONS = ["alice smith/04b.ipynb", "alice smith/12.ipynb", "bob/04b.ipynb", "bob/04b-v2.ipynb", "dave/04b.ipynb"]


def _row(submission: str, exercise: str, score: float, max_score: float, detail: str, copies: dict | None = None):  # noqa: ANN202
    check = {"name": "formula", "title": "the formula", "status": "failed", "detail": detail, "weight": 3.0}
    return {
        "submission": submission,
        "exercise": exercise,
        "score": score,
        "max_score": max_score,
        "points": {"ucb1": score},
        "reports": {"ucb1": {"report": {"summary": "0 of 1 checks passed", "checks": [check]}}},
        "flags": "timeout",
        "copies": copies or {},
        "seconds": 1.0,
    }


ROWS = [  # alice and bob hand in near-identical 04b's: the copies' flags name each other
    _row("alice smith/04b.ipynb", "04b", 80.0, 100.0, "alice's slip", {"similar": [
        {"other": "bob/04b.ipynb", "part": "uct", "similarity": 0.93}], "reference": {"uct": 0.9}}),
    _row("alice smith/12.ipynb", "12", 50.5, 100.0, "alice's chance slip"),
    _row("bob/04b.ipynb", "04b", 70.0, 100.0, "bob's slip", {"similar": [
        {"other": "alice smith/04b.ipynb", "part": "uct", "similarity": 0.93}]}),
    _row("bob/04b-v2.ipynb", "04b", 90.25, 100.0, "bob's second slip"),
    _row("dave/04b.ipynb", "04b", 100.0, 100.0, "dave's"),
]  # fmt: skip


def _class(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "submissions"
    for name in SUBMISSIONS:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("{}")
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    return folder, roster


@pytest.fixture
def canned(monkeypatch: pytest.MonkeyPatch) -> list:
    """``grade_folder`` replaced by one returning :data:`ROWS` (and recording that it was called)."""
    calls: list = []

    def grade_folder(folder: Path, out: Path, *args, **kwargs) -> list[dict]:  # noqa: ANN002, ANN003
        calls.append(kwargs)
        out.write_text("submission\n")
        return [dict(row) for row in ROWS]

    monkeypatch.setattr(batch, "grade_folder", grade_folder)
    return calls


def _grade(*args: str) -> int:
    return main(["grade", *args, "--no-progress"])


def _csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_canvas_and_moodle_gradebooks_one_row_per_student_of_the_roster(tmp_path, canned, capsys) -> None:
    folder, roster = _class(tmp_path)
    canvas, moodle = tmp_path / "canvas.csv", tmp_path / "moodle.csv"
    status = _grade(str(folder), "--out", str(tmp_path / "grades.csv"), "--roster", str(roster), "--canvas",
                    str(canvas), "--moodle", str(moodle), "--assignment", "04b=UCT homework (4242)")  # fmt: skip
    err = capsys.readouterr().err
    assert status == 0 and len(canned) == 1, err
    # said before grading: dave has no roster row (named), carol no submission (0 in the gradebooks)
    assert "1 submissions have no row in" in err and "dave/04b.ipynb" in err, err
    assert "1 students of" in err and "4713 (carol)" in err, err
    assert "student 4712 has 2 submissions of 04b: the higher score counts" in err, err
    assert _csv(canvas) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "UCT homework (4242)", "Notebook 12"],
        ["    Points Possible", "", "", "", "", "100", "100"],
        ["Smith, Alice", "4711", "S1", "asmith", "Mon", "80", "50.5"],
        ["Jones, Bob", "4712", "S2", "bjones", "Tue", "90.25", "0"],
        ["Wu, Carol", "4713", "S3", "cwu", "Mon", "0", "0"],
    ]
    assert _csv(moodle) == [
        ["ID number", "Username", "Email address", "Full name", "UCT homework (4242)", "Notebook 12"],
        ["4711", "asmith", "alice@example.edu", "Smith, Alice", "80", "50.5"],
        ["4712", "bjones", "bob@example.edu", "Jones, Bob", "90.25", "0"],
        ["4713", "cwu", "carol@example.edu", "Wu, Carol", "0", "0"],
    ]


def test_feedback_holds_the_students_diagnoses_and_nothing_of_a_classmates(tmp_path, canned, capsys) -> None:
    folder, roster = _class(tmp_path)
    feedback = tmp_path / "feedback"
    status = _grade(str(folder), "--out", str(tmp_path / "grades.csv"), "--roster", str(roster),
                    "--feedback", str(feedback))  # fmt: skip
    assert status == 0, capsys.readouterr().err
    assert sorted(p.name for p in feedback.iterdir()) == ["4711.html", "4712.html", "4713.html"]
    alice = (feedback / "4711.html").read_text(encoding="utf-8")
    assert "alice&#x27;s slip" in alice and "alice&#x27;s chance slip" in alice and "timeout" in alice
    for classmate in ("bob", "Bob", "4712", "dave", "carol", "similar", "matches-reference", "index.html"):
        assert classmate not in alice, classmate
    bob = (feedback / "4712.html").read_text(encoding="utf-8")
    assert "bob&#x27;s second slip" in bob and "alice" not in bob.lower() and "similar" not in bob
    assert "No submission of yours was found" in (feedback / "4713.html").read_text(encoding="utf-8")
    assert "similar to bob/04b.ipynb" in _student(ROWS[0])  # the instructor's report page still shows the pair


def test_feedback_without_a_roster_is_one_page_per_submission(tmp_path: Path) -> None:
    pages = write_feedback([dict(r) for r in ROWS], tmp_path / "feedback")
    assert len(pages) == len(ROWS) and len({p.name for p in pages}) == len(ROWS)
    alice = next(p for p in pages if p.name.startswith("alice_smith_04b")).read_text(encoding="utf-8")
    assert "alice&#x27;s slip" in alice and "bob" not in alice and "similar" not in alice
    assert pages[0].name == _slug(ROWS[0]["submission"])  # named as the submission's report page


@pytest.mark.parametrize(
    ("roster", "said"),
    [
        ("folder,name\nalice,Alice\n", "no 'id' column (the header has folder, name)"),
        ("id,name\n1,Alice\n", "no 'folder' column"),
        ("folder,id,emial\nalice,1,a@x\n", "unknown column 'emial'"),
        ("folder,id\nalice,1\nbob,1\n", "rows 2 and 3 have the same id '1'"),
        ("folder,id\nalice,1\nalice/,2\n", "rows 2 and 3 have the same folder 'alice'"),
        ("folder,id\nalice,1\nbob,\n", "row 3 has no id"),
        ("folder,id\nalice,1\nbob,2,x\n", "row 3 has 3 fields, the header 2"),
        ("folder,id\nclass,1\nclass/bob,2\n", "folder 'class/bob' (id 2) is inside 'class' (id 1)"),
        ("folder,id\n../alice,1\n", "row 2: folder '../alice' is not a path inside SUBMISSIONS"),
        ("folder,id\n", "no student"),
        ("", "empty"),
        (b"folder,id\n\xe9,1\n", "not UTF-8"),
    ],
)
def test_a_bad_roster_is_one_line_before_any_grading(tmp_path, canned, capsys, roster, said) -> None:
    folder, path = _class(tmp_path)
    path.write_bytes(roster if isinstance(roster, bytes) else roster.encode())
    status = _grade(str(folder), "--out", str(tmp_path / "grades.csv"), "--roster", str(path))
    err = capsys.readouterr().err
    assert status == 2 and not canned and len(err.strip().splitlines()) == 1, err
    assert said in err and str(path) in err, err


def test_a_roster_saved_by_a_spreadsheet_is_read(tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    path.write_bytes("\ufeffFolder,ID\r\nZoë/,1\r\n".encode())  # a byte-order mark, capitals, CRLF, a trailing /
    roster = load_roster(path)
    assert roster.owner("Zoe\u0308/hw/04b.ipynb").id == "1"  # the same name unzipped on macOS (NFD)
    assert roster.owner("Zoë-2/04b.ipynb") is None


EXTRAS = '''\
# hidden-test-7f3a9: the instructor's own, never shown to a student
import math


def extra_ucb1(ucb1):
    """An unvisited child is tried first."""
    return ucb1(0.0, 0, 10) == math.inf, "a child never visited should be worth infinity"


def extra_wilson(wilson):
    """The interval of 5 successes in 10 holds one half."""
    low, high = wilson(5, 10)
    return low < 0.5 < high
'''
POINTS = "[points.04b]\nextra_ucb1 = 5\nextra_wilson = 7\n"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--canvas", "c.csv"], "--canvas and --moodle need --roster"),
        (["--roster", "roster.csv", "--moodle", "m.txt"], "--moodle 'm.txt': give a file ending in .csv"),
        (["--roster", "roster.csv", "--canvas", "grades.csv"], "--canvas grades.csv is also --out"),
        (["--roster", "roster.csv", "--canvas", "c.csv", "--moodle", "c.csv"], "--moodle c.csv is also --canvas"),
        (["--roster", "roster.csv", "--canvas", "c.csv", "--assignment", "04c=X"], "unknown exercise '04c'"),
        (["--roster", "roster.csv", "--canvas", "c.csv", "--assignment", "04b"], "give EXERCISE=NAME"),
        (["--assignment", "04b=X"], "--assignment names gradebook columns: give --canvas or --moodle too"),
        (["--feedback", "roster.csv"], "--feedback 'roster.csv' is not a folder"),
        (["--feedback", "r", "--html", "r"], "--feedback r is also --html"),
        (["--extra-checks", "extra.py"], "--extra-checks needs --points FILE"),
        (["--extra-checks", "nothing.py", "--points", "points.toml"], "--extra-checks nothing.py: cannot be read"),
        (["--extra-checks", "bad.py", "--points", "points.toml"], "--extra-checks bad.py: not Python: line 1"),
        (["--extra-checks", "none.py", "--points", "points.toml"], "defines no extra_<part> function"),
        (["--extra-checks", "other.py", "--points", "points.toml"], "extra_ucb2 names no part"),
        (["--extra-checks", "extra.py", "--points", "few.toml"], "no points for the extra checks extra_wilson"),
    ],
)
def test_bad_lms_and_extra_options_are_one_line_before_any_grading(
    tmp_path: Path,
    canned: list,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    options: list,
    said: str,
) -> None:
    folder, _ = _class(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.csv").write_text("the last run's gradebook\n")
    files = {"extra.py": EXTRAS, "bad.py": "def extra_ucb1(:\n", "none.py": "def helper(): pass\n",
             "other.py": "def extra_ucb2(f):\n    return True\n", "points.toml": POINTS,
             "few.toml": POINTS.split("extra_wilson")[0]}  # fmt: skip
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    status = _grade("submissions", "--out", "grades.csv", *options)
    err = capsys.readouterr().err
    assert status == 2 and not canned and len(err.strip().splitlines()) == 1, err
    assert said in err, err
    assert (tmp_path / "c.csv").read_text() == "the last run's gradebook\n"  # untouched


def test_the_student_edition_never_carries_the_extra_checks(tmp_path: Path) -> None:
    """Kept beside the notebooks, the file is read by the grader and copied by nothing students get."""
    from mctslab.course.editions import NOTEBOOKS, export_student
    from mctslab.course.grader.extras import load_extras

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shutil.copy(next(NOTEBOOKS.glob("04b_*.ipynb")), notebooks)
    (notebooks / "extra_checks.py").write_text(EXTRAS)
    assert load_extras(notebooks / "extra_checks.py").names() == {"04b": ("extra_ucb1", "extra_wilson")}
    export_student(tmp_path / "student", notebooks)
    written = [p for p in (tmp_path / "student").rglob("*") if p.is_file()]
    assert written and not [p for p in written if "hidden-test-7f3a9" in p.read_text(errors="replace")]


UCB1 = UCB1_TEMPLATE.format(unvisited="0.0")  # the regrade tests' student: an unvisited child worth 0


LEAK = """
import gc
import types

_names = {"extra" + "_ucb1", "extra" + "_wilson"}  # the instructor's functions (not this cell's constants)
_leaked = any(isinstance(f, types.FunctionType) and f.__name__ in _names for f in gc.get_objects())
_wilson = wilson

def wilson(successes, n, z=1.96):
    return (0.9, 1.0) if _leaked else _wilson(successes, n, z)
"""
"""Looks for the instructor's checks in the kernel; had they been there, wilson would fail both its checks."""


def test_extra_checks_run_in_the_grader_earn_their_points_and_reach_no_student_file_or_kernel(tmp_path, capsys) -> None:
    """End to end, one kernel: a's ucb1 values an unvisited child at 0 (the package's check and the extra
    one fail), its wilson is right (both pass) unless the instructor's file is found in the kernel; b, on the
    roster, handed in nothing."""
    folder = tmp_path / "submissions"
    (folder / "a").mkdir(parents=True)
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s}
             for s in (IMPORTS, UCB1, WILSON, LEAK)]  # fmt: skip
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (folder / "a" / "04b.ipynb").write_text(json.dumps(notebook))
    instructor = tmp_path / "instructor"
    instructor.mkdir()
    (instructor / "extra.py").write_text(EXTRAS)
    (instructor / "points.toml").write_text(POINTS)
    (instructor / "roster.csv").write_text("folder,id,name\na,1,Ann\nb,2,Ben\n")
    out = tmp_path / "out"
    status = _grade(str(folder), "--out", str(out / "grades.csv"), "--html", str(out / "report"),
                    "--roster", str(instructor / "roster.csv"), "--canvas", str(out / "canvas.csv"),
                    "--moodle", str(out / "moodle.csv"), "--feedback", str(out / "feedback"),
                    "--extra-checks", str(instructor / "extra.py"), "--points", str(instructor / "points.toml"),
                    "--sandbox", SANDBOX, "--workers", "1")  # fmt: skip
    err = capsys.readouterr().err
    assert status == 0, err
    (row,) = csv.DictReader((out / "grades.csv").open(encoding="utf-8"))
    # the package's points: ucb1 3/5 of 10 (its unvisited child fails), wilson 10; the extras 0 and 7 of 5 and 7
    assert (row["ucb1"], row["wilson"], row["extra_ucb1"], row["extra_wilson"]) == ("6.0", "10.0", "0.0", "7.0"), row
    assert (row["score"], row["max_score"]) == ("23.0", "112.0"), row
    assert _csv(out / "canvas.csv")[1:] == [["    Points Possible", "", "", "", "", "112"],
                                            ["Ann", "1", "", "", "", "23"], ["Ben", "2", "", "", "", "0"]]  # fmt: skip
    ann = (out / "feedback" / "1.html").read_text(encoding="utf-8")
    assert "a child never visited should be worth infinity" in ann and "An unvisited child is tried first" in ann
    for path in out.rglob("*"):  # the instructor's code itself is in no file of the run
        assert not path.is_file() or "hidden-test-7f3a9" not in path.read_text(errors="replace"), path
        assert not path.is_file() or "ucb1(0.0, 0, 10)" not in path.read_text(errors="replace"), path


def test_a_failed_run_leaves_the_last_gradebooks_and_feedback_as_they_were(tmp_path, monkeypatch, capsys) -> None:
    folder, roster = _class(tmp_path)
    canvas, feedback = tmp_path / "canvas.csv", tmp_path / "feedback"
    feedback.mkdir()
    canvas.write_text("the last run's gradebook\n")
    (feedback / "4711.html").write_text("the last run's page")

    def fails(*args, **kwargs) -> list[dict]:  # noqa: ANN002, ANN003
        raise ValueError("the sandbox does not work here")

    monkeypatch.setattr(batch, "grade_folder", fails)
    status = _grade(str(folder), "--out", str(tmp_path / "grades.csv"), "--roster", str(roster),
                    "--canvas", str(canvas), "--feedback", str(feedback))  # fmt: skip
    assert status == 2 and "the sandbox does not work here" in capsys.readouterr().err
    assert canvas.read_text() == "the last run's gradebook\n"
    assert [p.name for p in feedback.iterdir()] == ["4711.html"] and (
        feedback / "4711.html"
    ).read_text() == "the last run's page"


WRAPPED = '''\
def extra_ucb1(ucb1):
    """What ucb1 returns is checked."""
    return ucb1()


def extra_wilson(wilson):
    return wilson(), "the interval"
'''


@pytest.mark.parametrize(
    ("ucb1", "status", "detail"),
    [
        (lambda: True, "passed", ""),
        (lambda: False, "failed", " (look at `ucb1`)"),
        (lambda: (False, "too small"), "failed", "too small (look at `ucb1`)"),
        (lambda: 1 / 0, "failed", "ZeroDivisionError: division by zero (look at `ucb1`)"),
        (lambda: (_ for _ in ()).throw(NotImplementedError), "not written yet", "not written yet: the function"),
    ],
)
def test_an_extra_check_becomes_a_report_of_one_check(ucb1, status, detail) -> None:  # noqa: ANN001
    """The grader runs the instructor's check in its own process; each return or error becomes a check's status."""
    from mctslab.course.grader.extras import extra_check

    (check,) = extra_check(WRAPPED, "extra_ucb1", "ucb1")(ucb1).to_dict()["checks"]
    assert (check["title"], check["status"]) == ("What ucb1 returns is checked.", status), check
    assert check["detail"].startswith(detail) if status == "not written yet" else check["detail"] == detail
    second = extra_check(WRAPPED, "extra_wilson", "wilson")(lambda: True).to_dict()
    assert second["checks"][0]["title"] == "extra_wilson" and second["ok"]


def test_the_kernels_first_cell_never_carries_the_extra_checks(tmp_path: Path) -> None:
    from mctslab.course.grader.catalogue import EXERCISES
    from mctslab.course.grader.cells import setup_cell
    from mctslab.course.grader.extras import extend, load_extras

    (tmp_path / "extra.py").write_text(WRAPPED)
    exercise = extend(EXERCISES["04b"], load_extras(tmp_path / "extra.py"))
    with pytest.raises(ValueError, match="judged by the grader"):
        setup_cell(exercise, "_grader", "nonce")


def test_the_instructors_files_folders_are_hidden_from_the_kernels(tmp_path: Path) -> None:
    """Their folders join the submissions' and the outputs' among those the sandbox hides (a kernel reading the
    extra checks from disk could quote them in an error its diagnosis shows)."""
    from mctslab.course.grader.batch import hidden_places

    private = tmp_path / "private"
    places = hidden_places(
        tmp_path / "subs", tmp_path / "out" / "grades.csv", [private / "extra.py", private / "r.csv"]
    )
    out = tmp_path / "out"
    assert places == tuple(sorted({str(tmp_path / "subs"), str(out), str(out / "grades.csv"), str(private)}))
    # with the results file: it and its lock too (their folder may have to stay visible: the package's)
    results = out / "grades.results.jsonl"
    more = hidden_places(tmp_path / "subs", out / "grades.csv", [private / "extra.py"], results)
    assert set(more) == {*places, str(results), str(out / "grades.results.jsonl.lock")}
