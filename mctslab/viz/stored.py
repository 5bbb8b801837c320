"""Saved notebooks show a picture of each widget, not the widget: :func:`static_widgets`.

A widget saved in a notebook cannot work without the kernel objects behind it: JupyterLab
redraws it from the saved state, marks every control with a red "disconnected" icon (which also
breaks the layout: a 3 x 3 board wraps onto four rows) and clicks do nothing. The widgets of
:mod:`mctslab.viz` therefore carry a picture of themselves (HTML) and one line of text beside
the widget view; this module removes the widget view and the saved widget state from a
notebook, so that JupyterLab shows that picture, the same trusted or not, until the cell runs
again and the live widget replaces it.

Run after executing a notebook::

    python -m mctslab.viz.stored notebooks/07_play_against_the_ai.ipynb
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["WIDGET_STATE", "WIDGET_VIEW", "static_widgets"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def static_widgets(notebook: dict[str, Any]) -> dict[str, Any]:
    """``notebook`` (nbformat 4, as JSON) without widget views in its outputs or widget state in its metadata.

    An output left with nothing to show but the view is dropped. The notebook is changed in
    place and returned.
    """
    notebook.get("metadata", {}).pop("widgets", None)
    for cell in notebook.get("cells", []):
        outputs = []
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data is not None and WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                if not data:
                    continue
            outputs.append(output)
        if "outputs" in cell:
            cell["outputs"] = outputs
    return notebook


def main(paths: list[str]) -> int:
    """Rewrite each notebook of ``paths`` with :func:`static_widgets`; says which ones changed."""
    if not paths:
        print("usage: python -m mctslab.viz.stored NOTEBOOK.ipynb ...", file=sys.stderr)
        return 2
    for name in paths:
        path = Path(name)
        before = path.read_text(encoding="utf-8")
        notebook = static_widgets(json.loads(before))
        after = json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        if after != before:
            path.write_text(after, encoding="utf-8")
            print(f"{path}: widget views and state removed (their pictures stay)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
