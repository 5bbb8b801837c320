"""The student edition: solutions dropped, reference outputs cleared, data copied, and 00 and 01 still run under nbval.

What must not leak (solution text, outputs of the reference run) is tested on its own in
``tests/test_student_edition_leaks.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from mctslab.bandits import Policy
from mctslab.cli import main
from mctslab.course.editions import (
    DATA_FOLDER,
    REFERENCE_OUTPUT_TAG,
    SOLUTION_TAG,
    copy_data,
    export_student,
    is_exercise_cell,
    student_notebook,
)
from mctslab.course.exercises.bandits import check_epsilon_decreasing, check_tuned_c, check_two_sided_radius
from mctslab.course.exercises.misere import check_misere

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def tags(cell):
    tags = cell.get("metadata", {}).get("tags", [])
    return [t.lower() for t in ([tags] if isinstance(tags, str) else tags)]  # one string is one tag; any case


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    reports = export_student(out)
    return out, reports


def test_every_notebook_is_exported_without_its_solutions(edition):
    out, reports = edition
    assert sorted(reports) == sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    for name, report in reports.items():
        original = nbformat.read(NOTEBOOKS / name, as_version=4)
        student = nbformat.read(out / name, as_version=4)
        solutions = [c.id for c in original.cells if SOLUTION_TAG in tags(c)]
        assert report.dropped == solutions
        assert not [c for c in student.cells if SOLUTION_TAG in tags(c)]
        assert student.metadata["mctslab"] == {"edition": "student"}
        # The Open in Colab badge opened the instructor edition: without --repo it is left out.
        assert "colab.research.google.com/github/" in original.cells[0].source
        assert not [c for c in student.cells if "colab.research.google.com" in c.source]
        # Everything else is kept, in order, with its source and outputs (exercise outputs cleared).
        kept = [c for c in original.cells[1:] if SOLUTION_TAG not in tags(c)]
        assert [c.id for c in student.cells] == [c.id for c in kept]
        for before, after in zip(kept, student.cells, strict=True):
            if after.id in report.cleared:
                assert after.outputs == [] and "NBVAL_CHECK_OUTPUT" not in after.source
                assert "nbval-check-output" not in tags(after)
                assert after.source == before.source.replace("# NBVAL_CHECK_OUTPUT\n", "")
            else:
                assert after.source == before.source and after.get("outputs") == before.get("outputs")


def test_00_and_01_have_tagged_solutions_and_cleared_checks(edition):
    _, reports = edition
    assert len(reports["00_start_here.ipynb"].dropped) == 2
    assert len(reports["01_bandits_and_ucb1.ipynb"].dropped) == 6
    assert len(reports["00_start_here.ipynb"].cleared) == 2  # the stub and its check
    assert len(reports["01_bandits_and_ucb1.ipynb"].cleared) == 6


def test_a_check_call_marks_an_exercise_cell_but_an_import_does_not():
    checks = {"check_tuned_c"}
    assert is_exercise_cell(nbformat.v4.new_code_cell("print(check_tuned_c(my_c))"), checks)
    importing = nbformat.v4.new_code_cell("from mctslab.course.exercises.bandits import check_tuned_c")
    assert not is_exercise_cell(importing, checks)
    assert not is_exercise_cell(nbformat.v4.new_code_cell("check_game(TwentyOne())"), checks)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("from mctslab.course.exercises.bandits import (\n    check_tuned_c,  # ex. 3\n)"),
        nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(check_tuned_c(my_c))"),
    ]
    student, report = student_notebook(notebook)
    assert report.cleared == [notebook.cells[1].id] and student["cells"][1]["source"] == "print(check_tuned_c(my_c))"


def test_markdown_solutions_go_and_reference_outputs_are_cleared():
    notebook = nbformat.v4.new_notebook()
    heading = nbformat.v4.new_markdown_cell("Reference solution: the best 3, then the best 2.")
    heading.metadata["tags"] = [SOLUTION_TAG]
    answer = nbformat.v4.new_code_cell("x = 3", outputs=[], execution_count=1)
    answer.metadata["tags"] = [SOLUTION_TAG]
    shown = nbformat.v4.new_code_cell("print(x)", execution_count=2)
    shown.outputs = [nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    shown.metadata["tags"] = [REFERENCE_OUTPUT_TAG, "nbval-check-output"]
    kept = nbformat.v4.new_code_cell("print(1)", execution_count=3)
    kept.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    notebook.cells = [heading, answer, shown, kept]
    student, report = student_notebook(notebook)
    assert report.dropped == [heading.id, answer.id] and report.cleared == [shown.id]
    assert [c["id"] for c in student["cells"]] == [shown.id, kept.id]
    assert student["cells"][0]["outputs"] == [] and student["cells"][0]["metadata"]["tags"] == [REFERENCE_OUTPUT_TAG]
    assert student["cells"][1]["outputs"] == kept.outputs


def test_the_data_folder_is_copied_and_nothing_else(tmp_path):
    source = tmp_path / "notebooks"
    (source / "data" / "09").mkdir(parents=True)
    (source / "data" / "09" / "games.jsonl").write_text('{"winner": 0}\n')
    (source / "scratch.txt").write_text("not read by a notebook")
    assert copy_data(source, tmp_path / "out") == [Path("data/09/games.jsonl")]
    assert (tmp_path / "out" / "data" / "09" / "games.jsonl").read_text() == '{"winner": 0}\n'
    assert not (tmp_path / "out" / "scratch.txt").exists()
    assert copy_data(tmp_path / "out" / "data", tmp_path / "none") == []  # no data/ folder: nothing to copy


def test_the_command_line_writes_it_and_refuses_to_overwrite_the_repository(tmp_path, capsys):
    assert main(["course", "student", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "00_start_here.ipynb").exists()
    printed = capsys.readouterr().out
    assert "the student edition is in" in printed and "data files)" in printed
    assert (tmp_path / "out" / "data" / "09_improving_uct").is_dir()
    assert main(["course", "student", str(NOTEBOOKS)]) == 2
    assert "instructor edition itself" in capsys.readouterr().err
    assert main(["course", "student", str(tmp_path / "x"), "--notebooks", str(tmp_path / "none")]) == 2


def not_written_yet() -> list[str]:
    """What each exercise check of 00 and 01 prints for the stubs, in notebook order."""

    def unfinished(*args, **kwargs):
        raise NotImplementedError

    class EpsilonDecreasing(Policy):
        select = unfinished

    def radius(n, delta):
        raise NotImplementedError

    return [
        check_misere(unfinished),
        check_epsilon_decreasing(EpsilonDecreasing),
        check_two_sided_radius(radius),
        check_tuned_c(None),
    ]


def test_the_student_00_and_01_run_under_nbval_with_their_exercises_skipped_politely(edition, tmp_path):
    out, reports = edition
    messages = iter(not_written_yet())
    paths = []
    for name in ("00_start_here.ipynb", "01_bandits_and_ucb1.ipynb"):
        notebook = nbformat.read(out / name, as_version=4)
        for cell in notebook.cells:
            if cell.id in reports[name].cleared and "check_" in cell.source:
                # nbval compares this cell's output with the polite message of the stub.
                message = next(messages)
                assert message.startswith("not written yet: ")
                cell.source = "# NBVAL_CHECK_OUTPUT\n" + cell.source
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=message + "\n")]
                cell.execution_count = 1  # nbval compares only the outputs of cells that ran
        nbformat.write(notebook, tmp_path / name)
        paths.append(str(tmp_path / name))
    assert next(messages, None) is None
    copied = copy_data(out, tmp_path)  # beside the edition's data, as in the edition: 01 reads its stored runs
    assert any(path.parts[1] == "01_bandits_and_ucb1" for path in copied)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax"]
    command += ["--nbval-sanitize-with", str(ROOT / "nbval_sanitize.cfg"), *paths]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    data = tmp_path / DATA_FOLDER
    assert sorted(p.relative_to(tmp_path) for p in data.rglob("*") if p.is_file()) == copied  # read, none played
