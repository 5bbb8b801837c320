"""Every file under the submissions folder gets a row, and no file stops the run (issue 36, item 1).

Files that are not notebooks (JSON of another shape, not JSON, not UTF-8, a pipe or a folder named
``.ipynb``, a name that is not UTF-8) are scored 0 with the flag ``unreadable`` and the reason on
their page; they start no kernel. A notebook saved in nbformat 3 is upgraded and graded.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import nbformat
import pytest
from test_grader import _student

from mctslab.course.grader.batch import grade_folder
from mctslab.course.grader.html import write_report
from mctslab.course.grader.points import POINTS
from mctslab.course.grader.run import Unreadable, read_submission
from mctslab.course.grader.sandbox import Limits

SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")
FULL_04B = sum(POINTS["04b"].values())
NOT_NOTEBOOKS = {
    "a_list": ("[1, 2, 3]", "JSON holding list"),
    "a_string": ('"a notebook"', "JSON holding str"),
    "null": ("null", "JSON holding null"),
    "numbers_for_cells": ('{"cells": [1, 2]}', "cell 0 is not a notebook cell"),
    "no_cells": ('{"metadata": {}}', "without a list of cells"),
    "cells_not_a_list": ('{"cells": "x"}', "without a list of cells"),
    "source_of_numbers": ('{"cells": [{"cell_type": "code", "source": [1]}]}', "cell 0 is not a notebook cell"),
    "not_json": ("def ucb1(): pass", "not JSON"),
    "empty": ("", "not JSON"),
    "deep_nesting": ("[" * 100_000 + "]" * 100_000, "nested too deep"),
}


def _write(folder: Path, name: str, data: str | bytes, file: str = "04b_write_uct_yourself.ipynb") -> Path:
    path = folder / name / file
    path.parent.mkdir(parents=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(NOT_NOTEBOOKS))
def test_json_that_is_not_a_notebook_is_refused_in_one_line(tmp_path: Path, name: str) -> None:
    text, why = NOT_NOTEBOOKS[name]
    with pytest.raises(Unreadable, match=why) as error:
        read_submission(_write(tmp_path, name, text))
    assert "\n" not in str(error.value)


def test_a_v3_notebook_is_read_as_v4(tmp_path: Path) -> None:
    v4 = nbformat.reads(json.dumps(_student()), as_version=4)
    expected = [c.source for c in v4.cells if c.cell_type == "code"]
    v3 = nbformat.writes(nbformat.convert(v4, 3))  # (converts v4 in place)
    assert json.loads(v3)["nbformat"] == 3 and "worksheets" in json.loads(v3)
    notebook = read_submission(_write(tmp_path, "old", v3))
    assert notebook["nbformat"] == 4
    codes = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"]
    assert codes == expected


def test_no_file_stops_the_run_and_each_gets_its_row(tmp_path: Path) -> None:
    folder = tmp_path / "submissions"
    for name, (text, _) in NOT_NOTEBOOKS.items():
        _write(folder, name, text)
    _write(folder, "latin1", '{"cells": [], "note": "caf\xe9"}'.encode("latin-1"))
    (folder / "a_folder" / "04b_write_uct_yourself.ipynb").mkdir(parents=True)
    (folder / "a_pipe").mkdir()
    os.mkfifo(folder / "a_pipe" / "04b_write_uct_yourself.ipynb")  # reading it would wait forever
    odd = os.fsdecode(b"caf\xe9")  # a folder name that is not UTF-8
    _write(folder, odd, "[]")
    v3 = nbformat.writes(nbformat.convert(nbformat.reads(json.dumps(_student()), as_version=4), 3))
    _write(folder, "correct_in_nbformat_3", v3)
    out = tmp_path / "out" / "grades.csv"
    rows = grade_folder(
        folder, out, workers=1, limits=Limits(cell=4, notebook=12), sandbox=SANDBOX, progress=False, say=lambda s: None
    )
    by = {row["submission"].split("/")[0]: row for row in rows}
    unreadable = set(NOT_NOTEBOOKS) | {"latin1", "a_folder", "a_pipe", odd}
    assert set(by) == unreadable | {"correct_in_nbformat_3"}
    for name in unreadable:
        row = by[name]
        assert row["flags"] == "unreadable" and row["score"] == 0 and row["max_score"] == FULL_04B, row
        assert row["error"].startswith("not a notebook: ") and "\n" not in row["error"], row
    assert "not UTF-8" in by["latin1"]["error"] and "not a regular file" in by["a_pipe"]["error"]
    assert "not a regular file" in by["a_folder"]["error"]
    correct = by["correct_in_nbformat_3"]
    assert correct["score"] == correct["max_score"] == FULL_04B and correct["flags"] == "", correct
    with out.open(encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == len(rows)  # every row written, the odd name too (with a backslash escape)
    assert any(r["submission"].startswith("caf\\udce9/") for r in table)
    pages = write_report(rows, tmp_path / "report").parent / "students"
    texts = [p.read_text(encoding="utf-8") for p in pages.glob("*.html")]
    assert any("not a regular file" in t for t in texts) and any("JSON holding list" in t for t in texts)


def _dies_on_its_own(path, *args):  # noqa: ANN001, ANN002, ANN202 - stands in for batch._work in a worker
    """The grader's worker function, except that the worker process dies on a submission named ``kills_*``."""
    from mctslab.course.grader import batch

    if "/kills_" in path:
        os._exit(9)  # as the system's out-of-memory killer would end it
    return batch._work(path, *args)


def test_a_worker_that_dies_costs_only_its_own_submission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mctslab.course.grader import batch

    folder = tmp_path / "submissions"
    # The others are not notebooks: their rows come from the workers too, without a kernel (cheap).
    for name in ("a_list", "kills_its_worker", "z_list"):
        _write(folder, name, "[]")
    monkeypatch.setattr(batch, "_work", _dies_on_its_own)  # pickled by name: the spawned workers import this file
    lines: list[str] = []
    rows = grade_folder(folder, tmp_path / "g.csv", workers=2, sandbox=SANDBOX, progress=False, say=lines.append)
    by = {row["submission"].split("/")[0]: row for row in rows}
    assert sorted(by) == ["a_list", "kills_its_worker", "z_list"]
    for name in ("a_list", "z_list"):
        assert by[name]["flags"] == "unreadable" and "JSON holding list" in by[name]["error"], by[name]
    assert by["kills_its_worker"]["flags"] == "crashed" and "died" in by["kills_its_worker"]["error"]
    assert any(line.startswith("a grading process died") for line in lines), lines


# -- bad options and paths: one line each, before any grading (issue 36, item 9) -------------------------------


@pytest.fixture
def one_submission(tmp_path: Path) -> Path:
    folder = tmp_path / "submissions"
    _write(folder, "a_list", "[]")
    return folder


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--out", ""], "is a folder"),
        (["--out", "."], "is a folder"),
        (["--out", "{tmp}"], "is a folder"),
        (["--out", "{tmp}/grades.txt"], "ending in .csv"),
        (["--out", "{tmp}/a_file/grades.csv"], "is not a folder"),
        (["--html", "{tmp}/a_file"], "is not a folder"),
        (["--cell-timeout", "nan"], "not a number of seconds"),
        (["--cell-timeout", "0.5"], "not a number of seconds"),
        (["--notebook-timeout", "inf"], "not a number of seconds"),
        (["--cell-timeout", "30", "--notebook-timeout", "10"], "shorter than --cell-timeout"),
    ],
)
def test_a_bad_option_is_one_line_before_any_grading(tmp_path, one_submission, capsys, options, says) -> None:
    from test_fuzz_course_tools import one_line_error

    (tmp_path / "a_file").write_text("not a folder")
    options = [o.replace("{tmp}", str(tmp_path)) for o in options]
    line = one_line_error(capsys, ["grade", str(one_submission), *options])
    assert says in line, line
    assert not list(tmp_path.glob("**/*.results.jsonl"))  # nothing graded


def test_an_empty_folder_leaves_the_grades_as_they_were(tmp_path, capsys) -> None:
    from test_fuzz_course_tools import one_line_error

    out = tmp_path / "grades.csv"
    out.write_text("submission,score\nalice/04b.ipynb,100\n")
    (tmp_path / "empty").mkdir()
    line = one_line_error(capsys, ["grade", str(tmp_path / "empty"), "--out", str(out)])
    assert "no .ipynb file" in line
    assert out.read_text() == "submission,score\nalice/04b.ipynb,100\n"


def test_a_second_grader_on_the_same_output_is_refused(tmp_path, one_submission, capsys) -> None:
    import fcntl

    from test_fuzz_course_tools import one_line_error

    out = tmp_path / "grades.csv"
    with (tmp_path / "grades.results.jsonl.lock").open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a grader running on it holds it
        line = one_line_error(capsys, ["grade", str(one_submission), "--out", str(out), "--no-progress"])
    assert "another grader is writing grades.results.jsonl" in line
    assert not out.exists()


def test_a_failed_write_leaves_the_previous_grades(tmp_path, monkeypatch) -> None:
    from mctslab.course.grader import batch

    out = tmp_path / "grades.csv"
    out.write_text("the previous grades\n")
    rows = [{"submission": "a/04b.ipynb", "score": 1.0, "exercise": None}]

    def full_disk(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(batch.csv.DictWriter, "writerow", full_disk)
    with pytest.raises(OSError, match="No space"):
        batch.write_csv(rows, out)
    assert out.read_text() == "the previous grades\n" and sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv"]


# -- identity: pages never collide, the exercise is read from the content (issue 36, item 4) ------------------


def test_pages_of_names_that_differ_only_in_spaces_case_or_script_never_collide(tmp_path: Path) -> None:
    from mctslab.course.grader.html import write_report

    names = ["alice smith", "alice_smith", "Alice_Smith", "alice-smith", "张三", "李四", "alice.smith"]
    rows = [
        {"submission": f"{n}/04b_write_uct_yourself.ipynb", "score": 0.0, "max_score": 0.0, "flags": "unreadable",
         "error": f"not a notebook: {n}'s own reason", "points": {}, "reports": {}}
        for n in names
    ]  # fmt: skip
    index = write_report(rows, tmp_path / "report")
    pages = sorted((index.parent / "students").glob("*.html"))
    assert len(pages) == len(names)
    for name in names:  # each page holds its own student's feedback, and nobody else's
        (page,) = [p for p in pages if f"{name}&#x27;s own reason" in p.read_text(encoding="utf-8")]
        text = page.read_text(encoding="utf-8")
        assert all(f"{other}&#x27;s own reason" not in text for other in names if other != name)
        assert f'href="students/{page.name}"' in index.read_text(encoding="utf-8")


def test_the_exercise_is_read_from_the_notebook_not_its_file_name() -> None:
    from mctslab.course.grader.catalogue import EXERCISES, identify

    names_04b, names_12 = EXERCISES["04b"].names, EXERCISES["12"].names
    assert identify("hw-12.ipynb", names_04b) is EXERCISES["04b"]  # a 04b saved under 12's key
    assert identify("04b_write_uct_yourself.ipynb", names_12) is EXERCISES["12"]
    assert identify("hw-12.ipynb", {"ucb1", "select", "expand", "simulate"}) is EXERCISES["04b"]  # half of them
    assert identify("hw-12.ipynb", {"ucb1"}) is EXERCISES["12"]  # too little to say: the name decides
    assert identify("homework.ipynb", {"ucb1"}) is EXERCISES["04b"]
    assert identify("homework.ipynb", set()) is None


def test_a_long_temporary_folder_still_grades(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernels' sockets are files in the work folder; a socket's path holds 107 bytes at most. A long
    ``TMPDIR`` (pytest's own folders under xdist are ~90 bytes) once made every kernel fail to start."""
    import tempfile

    long = tmp_path / ("t" * 60)
    long.mkdir()
    monkeypatch.setenv("TMPDIR", str(long))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    folder = tmp_path / "submissions"
    _write(folder, "correct", json.dumps(_student()))
    (row,) = grade_folder(folder, tmp_path / "g.csv", workers=1, sandbox=SANDBOX, progress=False, say=lambda s: None)
    assert row["score"] == FULL_04B and row["flags"] == "", row.get("error") or row


@pytest.mark.parametrize("module", ["nbclient", "nbformat"])
def test_without_the_course_extra_grade_says_what_to_install_in_one_line(
    tmp_path, one_submission, capsys, monkeypatch, module
) -> None:
    import sys

    from test_fuzz_course_tools import one_line_error

    for name in [m for m in sys.modules if m.startswith("mctslab.course.grader.") and not m.endswith(".cli")]:
        monkeypatch.delitem(sys.modules, name)  # imported again, as in a fresh process
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: its import raises ModuleNotFoundError
    line = one_line_error(capsys, ["grade", str(one_submission), "--out", str(tmp_path / "g.csv")])
    assert f"needs {module}, which is not installed: pip install 'mctslab[course]'" in line, line
