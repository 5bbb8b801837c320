"""The stored outputs of every notebook read well before anything runs.

JupyterLab does not render the SVG, HTML or widgets of an untrusted notebook, and
GitHub shows none of them either: what a student then sees is the output's image or
its ``text/plain``. So no stored output may be only a default object repr
(``<... at 0x...>``, ``VBox(children=...``), every HTML or SVG output must carry an
image or a readable text beside it, and no notebook is stored with an error.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"
RICH = ("text/html", "image/svg+xml", WIDGET)
IMAGES = ("image/png", "image/jpeg")

DEFAULT_REPR = re.compile(r"<[\w.<>]+ (object )?at 0x[0-9a-fA-F]+>|^<[\w.]+ object>$")
"""Python's default repr, and IPython's for display objects (``<IPython.core.display.HTML object>``)."""
WIDGET_REPR = re.compile(r"^[A-Z]\w*\((children|value|description|layout|options|outputs|index)=")
"""ipywidgets' default repr: ``VBox(children=(HBox(...``."""


def problems(path: Path) -> list[str]:
    """Every output of ``path`` that would not read well untrusted, as ``cell N (id): why``."""
    notebook = nbformat.read(path, as_version=4)
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        where = f"cell {index} ({cell.get('id', '?')})"
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                found.append(f"{where}: stored error {output.get('ename')}: {output.get('evalue')}")
                continue
            if output.output_type not in ("execute_result", "display_data"):
                continue
            data = output.get("data", {})
            text = data.get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            if DEFAULT_REPR.search(text) or WIDGET_REPR.match(text):
                found.append(f"{where}: text/plain is a default repr: {text[:80]!r}")
                continue
            rich = [m for m in RICH if m in data]
            if rich and not any(m in data for m in IMAGES) and not text.strip():
                found.append(f"{where}: {', '.join(rich)} without an image or text fallback")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_outputs_read_well_untrusted(path):
    found = problems(path)
    assert not found, f"{path.name}:\n" + "\n".join(found)


def test_the_rules_catch_what_a_student_saw(tmp_path):
    notebook = nbformat.v4.new_notebook()
    bad = {
        "text/plain": "<mctslab.viz.tree._graph_class.<locals>.TreeGraph at 0x7f3a2c1d>",
        "image/svg+xml": "<svg/>",
    }
    widget = {WIDGET: {"model_id": "x"}, "text/plain": "VBox(children=(HBox(children=(Text(value='0.1'"}
    svg_only = {"image/svg+xml": "<svg/>"}
    good = {"image/svg+xml": "<svg/>", "image/png": "iVBOR", "text/plain": "root (X to move)  300 visits"}
    for data in (bad, widget, svg_only, good):
        cell = nbformat.v4.new_code_cell("x")
        cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
        notebook.cells.append(cell)
    path = tmp_path / "n.ipynb"
    nbformat.write(notebook, path)
    found = problems(path)
    assert [line.split(":")[0] for line in found] == [
        f"cell 0 ({notebook.cells[0].id})",
        f"cell 1 ({notebook.cells[1].id})",
        f"cell 2 ({notebook.cells[2].id})",
    ]
