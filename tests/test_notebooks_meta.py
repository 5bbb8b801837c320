"""The notebooks' conventions: Colab link and install cell, SCALE, asserts, checked outputs, saved outputs.

nbval (in ``./run test``) runs every notebook; these tests check what nbval does not: that a
notebook can be opened anywhere, scales with one variable, checks its claims, and reads well
saved (executed, with the outputs that nbval compares).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def test_the_course_is_numbered_from_00_without_gaps():
    # A letter after the number (04b) marks a notebook that follows the one numbered alone.
    numbers = sorted({int(p.name[:2]) for p in NOTEBOOKS})
    assert numbers == list(range(len(numbers))) and len(numbers) >= 9
    assert all(re.match(r"\d\d[a-z]?_", p.name) for p in NOTEBOOKS)
    assert NOTEBOOKS[0].name == "00_start_here.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_open_in_colab_link_and_install_cell(path):
    cells = _cells(path)
    badge = _source(cells[0])
    match = re.search(r"colab\.research\.google\.com/github/([^/]+/[^/]+)/blob/main/notebooks/([^)\s]+)", badge)
    assert cells[0]["cell_type"] == "markdown" and match, "the first cell is the Open in Colab badge"
    assert match.group(2) == path.name, "the badge opens this notebook"
    first_code = next(c for c in cells if c["cell_type"] == "code")
    source = _source(first_code)
    assert '"google.colab" in sys.modules' in source and "pip" in source and f"github.com/{match.group(1)}" in source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_budgets_scale_with_one_variable(path):
    assert any(re.search(r"^SCALE = \d+", _source(c), re.M) for c in _cells(path) if c["cell_type"] == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_claims_are_asserted(path):
    asserts = sum(bool(re.search(r"^\s*assert ", _source(c), re.M)) for c in _cells(path) if c["cell_type"] == "code")
    assert asserts >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_saved_executed_with_the_outputs_nbval_compares(path):
    code = [c for c in _cells(path) if c["cell_type"] == "code"]
    assert all(c["execution_count"] is not None for c in code), "run every cell before saving"
    assert not any(o["output_type"] == "error" for c in code for o in c["outputs"])
    checked = [c for c in code if "nbval-check-output" in c["metadata"].get("tags", [])]
    assert not any("NBVAL_CHECK_OUTPUT" in _source(c) for c in code), "the tag, not the comment, marks checked cells"
    assert checked, "deterministic results are compared by nbval"
    assert all(c["outputs"] for c in checked), "a checked cell without output checks nothing"


# The instructor edition (the repository) reads through: a reference solution and the check of
# a claim are collapsed under what they follow (README, "Two editions"); an exercise's check,
# which the student runs on their own code, stays open.
CLAIM_CHECK = "# Check:"
"""How a claim's check cell starts: asserts on the result above it (tagged ``check``, collapsed)."""
EXERCISE_CHECK = re.compile(r"# Check exercise \d+:")
"""How a check of an exercise starts, when it has a comment (tagged ``exercise``, left open)."""


def _hidden(cell: dict) -> bool:
    return bool(cell["metadata"].get("jupyter", {}).get("source_hidden"))


def _tagged(cell: dict, tag: str) -> bool:
    return tag in cell["metadata"].get("tags", [])


def _code(path: Path) -> list[tuple[int, dict]]:
    return [(i, c) for i, c in enumerate(_cells(path)) if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_reference_solutions_are_collapsed(path):
    open_solutions = [i for i, c in _code(path) if _tagged(c, "solution") and not _hidden(c)]
    assert not open_solutions, f"solution cells {open_solutions} show their code: set metadata.jupyter.source_hidden"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_claim_checks_are_tagged_check_and_collapsed(path):
    claims = [(i, c) for i, c in _code(path) if _source(c).startswith(CLAIM_CHECK)]
    untagged = [i for i, c in claims if not _tagged(c, "check")]
    assert not untagged, f"cells {untagged} start with {CLAIM_CHECK!r}: tag them 'check'"
    tagged = [(i, c) for i, c in _code(path) if _tagged(c, "check")]
    strays = [i for i, c in tagged if not _source(c).startswith(CLAIM_CHECK)]
    assert not strays, f"cells {strays} are tagged 'check': start them with {CLAIM_CHECK!r} and what they check"
    shown = [i for i, c in tagged if not _hidden(c)]
    assert not shown, f"check cells {shown} are expanded: set metadata.jupyter.source_hidden"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_top_level_asserts_are_checks_or_solutions(path):
    # A claim asserted in the open (an `assert` outside any function) is a check cell.
    loose = [
        i
        for i, c in _code(path)
        if re.search(r"^assert ", _source(c), re.M) and not (_tagged(c, "check") or _tagged(c, "solution"))
    ]
    assert not loose, f"cells {loose} assert claims: start them with {CLAIM_CHECK!r}, tag them 'check'"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercise_checks_are_tagged_exercise_and_open(path):
    exercise_checks = [(i, c) for i, c in _code(path) if EXERCISE_CHECK.match(_source(c))]
    untagged = [i for i, c in exercise_checks if not _tagged(c, "exercise")]
    assert not untagged, f"cells {untagged} check an exercise: tag them 'exercise'"
    other = [i for i, c in _code(path) if _source(c).startswith("# Check") and not _source(c).startswith(CLAIM_CHECK)]
    assert set(other) == {i for i, _ in exercise_checks}, f"cells {other}: start '# Check:' or '# Check exercise N:'"
    hidden = [i for i, c in _code(path) if _tagged(c, "exercise") and _hidden(c)]
    assert not hidden, f"exercise cells {hidden} are collapsed: the student writes and runs them"


def _kernel_metadata(path: Path) -> tuple[dict, dict]:
    metadata = json.loads(path.read_text())["metadata"]
    return metadata.get("kernelspec", {}), metadata.get("language_info", {})


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_kernel_metadata_is_what_jupyterlab_writes(path):
    # JupyterLab rewrites a kernelspec that differs from the kernel it starts, and the notebook
    # opens "modified": every notebook names ipykernel's kernel as ipykernel itself names it.
    from ipykernel.kernelspec import KERNEL_NAME, get_kernel_dict

    kernelspec, language = _kernel_metadata(path)
    expected = {"name": KERNEL_NAME, "display_name": get_kernel_dict()["display_name"], "language": "python"}
    assert {key: kernelspec.get(key) for key in expected} == expected, f"{path.name}: kernelspec {kernelspec}"
    assert language.get("name") == "python", f"{path.name}: language_info {language}"


def test_every_notebook_has_the_same_kernel_metadata():
    first_spec, first_language = _kernel_metadata(NOTEBOOKS[0])
    for path in NOTEBOOKS[1:]:
        kernelspec, language = _kernel_metadata(path)
        assert kernelspec == first_spec, f"{path.name}: kernelspec {kernelspec}, {NOTEBOOKS[0].name}: {first_spec}"
        keys = ("name", "codemirror_mode", "pygments_lexer", "nbconvert_exporter", "file_extension", "mimetype")
        differ = {key for key in keys if language.get(key) != first_language.get(key)}
        assert not differ, f"{path.name}: language_info differs from {NOTEBOOKS[0].name}'s in {sorted(differ)}"


SLOW_CELL_SECONDS = 10.0
"""A cell that ran this long when the notebook was saved shows a progress bar.

The course's rule is a bar on every cell of more than about 5 s; the stored run times vary two-
to threefold with the machine's load, so the test allows twice that. The cell of imports and
budgets (``SCALE = ...``) has nothing to count and is exempt."""


def _seconds(cell: dict) -> float | None:
    from datetime import datetime

    timing = cell["metadata"].get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return None
    return (
        datetime.fromisoformat(end.replace("Z", "+00:00")) - datetime.fromisoformat(start.replace("Z", "+00:00"))
    ).total_seconds()


def _shows_a_bar(cell: dict) -> bool:
    texts = ["".join(o["data"].get("text/plain", "")) for o in cell["outputs"] if "data" in o] + [
        "".join(o.get("text", "")) for o in cell["outputs"] if o["output_type"] == "stream"
    ]
    return any(re.search(r"\d+%\|", text) for text in texts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_slow_cells_show_a_progress_bar(path):
    slow = [
        (i, round(s))
        for i, c in _code(path)
        if (s := _seconds(c)) is not None and s > SLOW_CELL_SECONDS and not re.search(r"^SCALE = ", _source(c), re.M)
    ]
    silent = [f"cell {i} ({s} s)" for i, s in slow if not _shows_a_bar(_cells(path)[i])]
    assert not silent, f"{path.name}: {', '.join(silent)} ran without a progress bar (tqdm.auto, progress=PROGRESS)"


BAR = 80
"""Characters of a collapsed cell's first line that its bar shows in JupyterLab: 80 in a 1100 px window with
the file browser open (measured in Chromium on the saved notebooks: of 155 bars, those of 81 characters or
more were cut off at the cell's edge, 107 of them, mid-word)."""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_collapsed_cells_first_line_fits_its_bar(path):
    """A collapsed cell (a check, a solution) shows only its first line: it must be read whole, not cut off."""
    cells = json.loads(path.read_text())["cells"]
    long = [
        (i, first)
        for i, cell in enumerate(cells)
        if cell["metadata"].get("jupyter", {}).get("source_hidden")
        and len(first := "".join(cell["source"]).split("\n")[0]) > BAR
    ]
    assert not long, f"{path.name}: collapsed cells whose first line is over {BAR} characters: {long}"


def test_the_route_through_the_course_lists_every_notebook():
    """00's route (a table: notebook, what you learn, time) names each notebook once, in course order, and
    the total it states is the sum of its times (issue 41's walk: 11 to 13 were missing from it)."""
    route = next(s for c in _cells(NOTEBOOKS[0]) if (s := _source(c)).startswith("## 2. The route through the course"))
    rows = re.findall(r"^\| `(\w+)` \|.*\| (\d+) min \|$", route, re.M)
    assert [name for name, _ in rows] == [p.stem for p in NOTEBOOKS]
    total = sum(int(minutes) for _, minutes in rows)
    assert f"(the sum of the column, {total:,} minutes)" in route.replace("\n", " ")
