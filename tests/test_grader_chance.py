"""The grader marks notebook 12's exercise (chance nodes in the student's own UCT).

Two submissions written from the notebook (its solutions pasted into its stubs, one with the
classic slip of drawing outcomes uniformly) are graded in the sandbox: the correct one earns
every point, the slip loses the checks it fails, and the notebook's long runs (which read
stored data a submission does not carry) are left out without a crash. The rules the grader
uses to recognise a submission and to leave out what depends on a skipped run are tested here
without a kernel.
"""

from __future__ import annotations

import copy
import csv
import json
import os
from pathlib import Path

import pytest

from mctslab.course.grader.batch import grade_folder
from mctslab.course.grader.catalogue import EXERCISES, identify
from mctslab.course.grader.cells import student_cells
from mctslab.course.grader.points import POINTS
from mctslab.course.grader.sandbox import Limits

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "12_chance_nodes.ipynb"
SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")


def _student(old: str = "", new: str = "") -> dict:
    """12 as a student hands it in: solutions removed, each stub replaced by the solution after it."""
    notebook = json.loads(NOTEBOOK.read_text())
    cells, out = notebook["cells"], []
    for i, cell in enumerate(cells):
        if "solution" in cell["metadata"].get("tags", []):
            continue
        cell = copy.deepcopy(cell)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
            source = "".join(cell["source"])
            following = cells[i + 1] if i + 1 < len(cells) else {"metadata": {}}
            if "NotImplementedError" in source and "solution" in following["metadata"].get("tags", []):
                solution = "".join(following["source"])
                given = source[source.index("class ChanceUCT") :] if "class ChanceUCT" in source else ""
                source = solution + ("\n\n\n" + given if given and "class ChanceUCT" not in solution else "")
                if old and old in source:
                    source = source.replace(old, new)
            cell["source"] = source
        out.append(cell)
    notebook["cells"] = out
    return notebook


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("grading12") / "submissions"
    uniform = _student("weights=probabilities", "weights=None")
    assert json.dumps(uniform) != json.dumps(_student())  # the slip is really in the submission
    for name, notebook in (("correct", _student()), ("uniform", uniform)):
        path = folder / name / "12_chance_nodes.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(notebook))
    rows = grade_folder(
        folder,
        folder.parent / "grades.csv",
        workers=2,
        limits=Limits(cell=30, notebook=120),
        sandbox=SANDBOX,
        progress=False,
        say=lambda line: None,
    )
    with (folder.parent / "grades.csv").open() as handle:
        table = list(csv.DictReader(handle))
    return {"by": {row["submission"].split("/")[0]: row for row in rows}, "table": table}


def test_a_correct_submission_earns_every_point_and_nothing_crashes(graded: dict) -> None:
    row = graded["by"]["correct"]
    assert row["exercise"] == "12" and row["points"] == {"chance_uct": float(POINTS["12"]["chance_uct"])}, row
    assert row["flags"] == "", row  # the skipped long runs leave nothing behind to crash
    assert list(graded["table"][0]) == [
        "submission",
        "score",
        "max_score",
        "chance_uct",
        "flags",
        "not_reached",
        "seconds",
    ]


def test_uniform_draws_cost_the_draw_check_and_what_waits_for_it(graded: dict) -> None:
    row = graded["by"]["uniform"]
    checks = row["reports"]["chance_uct"]["report"]["checks"]
    failed = [c["name"] for c in checks if c["status"] == "failed"]
    assert failed == ["draws"], checks
    assert 0 < row["points"]["chance_uct"] < POINTS["12"]["chance_uct"], row
    # grades.csv lists what waited for the failed check as not reached, never as failed
    waited = [f"chance_uct.{c['name']}" for c in checks if c["status"] == "skipped"]
    (csv_row,) = [r for r in graded["table"] if r["submission"].startswith("uniform/")]
    assert waited and csv_row["not_reached"] == " ".join(waited) and "draws" not in csv_row["not_reached"], csv_row


def test_a_submission_is_known_by_its_key_standing_alone_in_its_name() -> None:
    assert identify("12_chance_nodes.ipynb", set()) is EXERCISES["12"]
    assert identify("alice-04b.ipynb", set()) is EXERCISES["04b"]
    assert identify("12b_hidden_information.ipynb", set()) is None
    assert identify("2012.ipynb", set()) is None
    # Without a key in its name, by the names it defines.
    assert identify("mine.ipynb", {"draw_outcome", "select_chance", "ucb1"}) is EXERCISES["12"]


def test_what_a_skipped_run_fills_in_is_left_out_too() -> None:
    cells = dict(student_cells(_student(), EXERCISES["12"]))
    code = "\n".join(cells.values())
    assert "run_pig_match(" not in code and "check_chance_uct(" not in code
    assert 'runs["optimal"]' not in code  # filled in by the skipped loop: its readers go too
    assert "def draw_outcome" in code and "class ChanceUCT" in code
