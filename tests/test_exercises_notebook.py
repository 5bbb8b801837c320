"""Notebook 04b in its student edition: without the cells tagged ``solution`` it runs to the end, politely.

nbval runs the instructor edition (solutions included) with every other notebook; this
test removes the solution cells, as the student edition does, executes what is left and
checks that every exercise check says "not written yet" instead of failing, and that the
match and the Wilson comparison wait for the student's code.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "04b_write_uct_yourself.ipynb"


def _text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def test_the_student_edition_runs_and_every_check_waits_for_the_code(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    solutions = [c for c in nb.cells if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) >= 7, "a solution after each of the six stubs, and the match's check"
    nb.cells = [c for c in nb.cells if "solution" not in c.metadata.get("tags", [])]
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.output_type == "error" for c in code for o in c.outputs)
    checks = [c for c in code if c.source.startswith(("check_", "report = check_", "wilson_report = check_"))]
    assert len(checks) == 7
    for cell in checks:
        assert "not written yet" in _text(cell) and "failed" not in _text(cell), cell.source
    text = "".join(_text(c) for c in code)
    assert "the match waits for an agent" in text and "waits for check_wilson" in text
