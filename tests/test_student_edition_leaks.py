"""The student edition gives no answer away: no solution text, no output of the reference run.

The oracles here do not ask :mod:`mctslab.course.editions` what it drops; they read the
instructor edition themselves:

* **solution text**: every line of every ``solution`` cell (its source and its outputs) is
  looked for in every cell of the student edition (sources and outputs). Lines that are not
  an answer are skipped: blank or very short lines (``else:``, ``return root``), ``def`` and
  ``class`` lines and docstrings (the interface, which the text and the stub give), and lines
  the student's own stub has too (``self.c = c`` in an ``__init__`` given with the stub);
* **reference outputs**: a code cell of the instructor edition that reads a name whose last
  binding before it came from a solution cell (or from a cell that itself read one: found
  with :mod:`ast`, in notebook order) shows what the reference solution made; in the
  student edition it must have no outputs;
* **unmarked solutions**: a markdown cell that introduces a solution ("Reference solution
  ...", or directly followed by a solution cell) is part of the solution and tagged so.

Each failure names the notebook, the cell id and the leaked text. Then the two exercises the
issue found answered in the open (00's stub, 01's exercise 3) and the data files the
notebooks read.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from mctslab.course.editions import SOLUTION_TAG, export_student

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
WITH_SOLUTIONS = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb") if f'"{SOLUTION_TAG}"' in p.read_text())

SHORT = 12
"""Lines shorter than this (stripped) are too common to be an answer: ``else:``, ``return node``."""
SHARED = {
    ("02_pure_monte_carlo.ipynb", "me = game.to_move(state)"): "the package's sample_moves, printed in section 2",
}
"""Solution lines the instructor edition also shows elsewhere for a reason, with the reason."""
_INTERFACE = re.compile(r'^(?:async\s+def\s|def\s|class\s|@|"""|\'\'\'|r""")')


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    export_student(out)
    return out


def _tags(cell) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return [t.lower() for t in ([tags] if isinstance(tags, str) else tags)]  # one string is one tag; any case


_PROGRESS_BAR = re.compile(r"\d+%\|")
"""A tqdm bar's line (``UCB1(c=1.41):   0%|   | 0/10000``): what is being counted, no answer."""


def _outputs_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        text = output.get("text", "")
        parts.append("".join(text) if isinstance(text, list) else text)
        for value in output.get("data", {}).values():
            if isinstance(value, str | list):
                parts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(line for line in "\n".join(parts).splitlines() if not _PROGRESS_BAR.search(line))


def _lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip()}


def _docstring_lines(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                lines |= _lines(doc)
    return lines


def _stub(cell) -> bool:
    """A cell the student writes in: an ``exercise`` cell, or one still raising NotImplementedError."""
    return cell.cell_type == "code" and ("exercise" in _tags(cell) or "NotImplementedError" in cell.source)


def answer_lines(notebook) -> dict[str, set[str]]:
    """{solution cell id: the lines of its source and outputs that would give something away}."""
    given = set()
    for cell in notebook.cells:
        if _stub(cell) and SOLUTION_TAG not in _tags(cell):
            given |= _lines(cell.source)
    answers = {}
    for cell in notebook.cells:
        if SOLUTION_TAG not in _tags(cell):
            continue
        docstrings = _docstring_lines(cell.source) if cell.cell_type == "code" else set()
        lines = _lines(cell.source) | _lines(_outputs_text(cell))
        answers[cell.id] = {
            line
            for line in lines
            if len(line) >= SHORT and not _INTERFACE.match(line) and line not in given and line not in docstrings
        }
    return answers


def test_the_answer_lines_are_the_solutions_substance():
    # The filter keeps the answer and drops only the interface: 04b's ucb1 keeps its formula.
    notebook = nbformat.read(NOTEBOOKS / "04b_write_uct_yourself.ipynb", as_version=4)
    ucb1 = answer_lines(notebook)["b4b00010"]
    formula = "return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)"
    assert ucb1 == {"if visits == 0:", "return math.inf", formula}


@pytest.mark.parametrize("name", WITH_SOLUTIONS)
def test_no_line_of_a_solution_is_in_the_student_edition(edition, name):
    instructor = nbformat.read(NOTEBOOKS / name, as_version=4)
    student = nbformat.read(edition / name, as_version=4)
    answers = answer_lines(instructor)
    leaks = []
    for cell in student.cells:
        shown = _lines(cell.source) | _lines(_outputs_text(cell))
        for solution, lines in answers.items():
            leaks += [
                f"{name} cell {cell.id}: {line!r} (from solution cell {solution})"
                for line in sorted(lines & shown)
                if (name, line) not in SHARED
            ]
    assert not leaks, "solution text in the student edition:\n" + "\n".join(leaks)


# -- outputs of the reference run ---------------------------------------------------------
def _python(source: str) -> ast.Module | None:
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _bound(tree: ast.Module) -> set[str]:
    """Names a cell binds at the notebook's top level (not inside its functions or classes)."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return names


def _read(tree: ast.Module) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def reference_outputs(notebook) -> dict[str, str]:
    """{id: first output line} of the kept cells whose stored outputs depend on a solution cell."""
    tainted: set[str] = set()
    found = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tree = _python(cell.source)
        if tree is None:
            continue
        solution = SOLUTION_TAG in _tags(cell)
        depends = solution or bool(_read(tree) & tainted)
        bound = _bound(tree)
        tainted = tainted | bound if depends else tainted - bound
        if depends and not solution and cell.get("outputs"):
            found[cell.id] = (_outputs_text(cell).strip().splitlines() or ["(an output without text)"])[0]
    return found


def test_the_reference_outputs_are_found():
    # 04b: every check after a solution, the match, and the comparison of the two intervals.
    notebook = nbformat.read(NOTEBOOKS / "04b_write_uct_yourself.ipynb", as_version=4)
    found = reference_outputs(notebook)
    assert {"b4b00011", "b4b00031", "b4b00033", "b4b00038", "b4b00040"} <= set(found)
    assert "b4b00006" not in found  # the root printed before any solution ran


@pytest.mark.parametrize("name", WITH_SOLUTIONS)
def test_no_output_of_the_reference_run_is_in_the_student_edition(edition, name):
    instructor = nbformat.read(NOTEBOOKS / name, as_version=4)
    student = {cell.id: cell for cell in nbformat.read(edition / name, as_version=4).cells}
    leaks = [
        f"{name} cell {cell_id}: {line!r}"
        for cell_id, line in reference_outputs(instructor).items()
        if cell_id in student and student[cell_id].get("outputs")
    ]
    assert not leaks, "outputs of the reference solutions in the student edition:\n" + "\n".join(leaks)


@pytest.mark.parametrize("name", WITH_SOLUTIONS)
def test_what_introduces_a_solution_is_tagged_as_one(edition, name):
    cells = nbformat.read(NOTEBOOKS / name, as_version=4).cells
    untagged = [
        f"{name} cell {cell.id}: {cell.source.splitlines()[0]!r}"
        for cell, after in zip(cells, [*cells[1:], None], strict=True)
        if cell.cell_type == "markdown"
        and SOLUTION_TAG not in _tags(cell)
        and (cell.source.lstrip().lower().startswith("reference solution") or (after and SOLUTION_TAG in _tags(after)))
    ]
    assert not untagged, "markdown introducing a solution, not tagged solution:\n" + "\n".join(untagged)
    student = nbformat.read(edition / name, as_version=4).cells
    left = [f"{name} cell {c.id}" for c in student if c.source.lstrip().lower().startswith("reference solution")]
    assert not left, "a reference solution's heading in the student edition: " + ", ".join(left)


# -- the exercises the issue found answered in the open -----------------------------------
def test_00s_stub_asks_which_method_changes_without_naming_it(edition):
    # The exercise asks which method of TwentyOne the misère rule changes: the stub must not say.
    stub = next(c for c in nbformat.read(edition / "00_start_here.ipynb", as_version=4).cells if c.id == "263cd70c")
    assert "class MisereTwentyOne(TwentyOne)" in stub.source
    assert "winner" not in stub.source, stub.source


def _values_of_c(text: str) -> set[float]:
    pattern = r"(?:\bc\s*=\s*|UCB1\(\s*(?:c\s*=\s*)?)\$?(\d+(?:\.\d+)?)"
    return {float(value) for value in re.findall(pattern, text)}


def test_01_shows_no_value_of_c_that_answers_exercise_3(edition):
    # Exercise 3 asks for a c with less than half of sqrt(2)'s regret that keeps the log growth.
    # No c the student edition names (in text, code or outputs) may pass its check.
    from mctslab.course.exercises.bandits import check_tuned_c

    cells = nbformat.read(edition / "01_bandits_and_ucb1.ipynb", as_version=4).cells
    shown = _values_of_c("\n".join(c.source + "\n" + _outputs_text(c) for c in cells))
    assert {0.0, 1.41} <= shown  # the search finds the values the notebook does name
    answers = {c: verdict for c in sorted(shown) if 0 < c < 1.4 and (verdict := check_tuned_c(c)).startswith("passed")}
    assert not answers, f"01 answers exercise 3 in the open: {answers}"


def test_01s_reference_solution_does_find_a_c_that_passes():
    # The answer is in the solution cells: the instructor edition's sweep finds a passing c.
    notebook = nbformat.read(NOTEBOOKS / "01_bandits_and_ucb1.ipynb", as_version=4)
    solution = [c for c in notebook.cells if SOLUTION_TAG in _tags(c) and "check_tuned_c" in c.source]
    assert len(solution) == 1 and _outputs_text(solution[0]).count("passed: c = ") == 1


# -- the data the notebooks read ----------------------------------------------------------
def test_the_data_files_the_notebooks_read_are_exported(edition):
    read = set()
    for path in NOTEBOOKS.glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                read |= set(re.findall(r"""["'](data/[^"']+)["']""", cell.source))
    assert read, "the notebooks read data files (09 reads data/09_improving_uct)"
    for folder in sorted(read):
        files = sorted(p.relative_to(NOTEBOOKS) for p in (NOTEBOOKS / folder).rglob("*") if p.is_file())
        assert files, f"{folder} holds no file in the repository"
        for file in files:
            exported = edition / file
            assert exported.is_file(), f"{file} is not in the student edition"
            assert exported.read_bytes() == (NOTEBOOKS / file).read_bytes(), f"{file} differs in the student edition"
