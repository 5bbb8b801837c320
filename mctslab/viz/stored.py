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

A notebook saved from JupyterLab after running keeps each widget's view but, unless its widget
manager saves state, none of the state: reopened, every widget then reads "Error displaying
widget: model not found". :func:`pre_save_hook` makes every save do the same as this command,
so the saved notebook shows the widgets' pictures instead::

    jupyter lab --ContentsManager.pre_save_hook=mctslab.viz.stored.pre_save_hook
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["WIDGET_STATE", "WIDGET_VIEW", "pre_save_hook", "static_widgets"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


BAR_WIDTH = 10
"""Characters of a progress bar written as text (tqdm's own width in a notebook's text)."""


def _progress_line(model_id: str, state: dict[str, Any]) -> str | None:
    """A tqdm bar's last state as tqdm writes it in text (``desc: 100%|##########| 36/36 [...]``), or None.

    tqdm shows a bar in a notebook as a box of three widgets: its description and percentage
    (HTML), the bar (a progress widget) and the counts and times (HTML). The text it saves
    beside the view is the bar's *first* state (``0%``); the saved widget state holds the last.
    """
    box = state.get(model_id, {})
    children = box.get("state", {}).get("children", []) if box.get("model_name") == "HBoxModel" else []
    parts = [state.get(str(c).removeprefix("IPY_MODEL_"), {}) for c in children]
    names = [p.get("model_name") for p in parts]
    if len(parts) != 3 or names[0] != "HTMLModel" or names[2] != "HTMLModel" or "Progress" not in str(names[1]):
        return None
    left, bar, right = (p.get("state", {}) for p in parts)
    value, top = bar.get("value") or 0, bar.get("max") or 0
    filled = round(BAR_WIDTH * min(1.0, value / top)) if top else 0
    text = f"{left.get('value', '')}|{'█' * filled}{' ' * (BAR_WIDTH - filled)}|{right.get('value', '')}"
    return html.unescape(text).replace("\u2007", " ")


def static_widgets(notebook: dict[str, Any]) -> dict[str, Any]:
    """``notebook`` (nbformat 4, as JSON) without widget views in its outputs or widget state in its metadata.

    An output left with nothing to show but the view is dropped. A progress bar (tqdm's) keeps
    one line of text showing where it ended (from the saved state), not where it started. The
    notebook is changed in place and returned.
    """
    widgets = notebook.get("metadata", {}).pop("widgets", None) or {}
    state = widgets.get(WIDGET_STATE, {}).get("state", {})
    for cell in notebook.get("cells", []):
        outputs = []
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data is not None and WIDGET_VIEW in data:
                line = _progress_line(str(data[WIDGET_VIEW].get("model_id", "")), state)
                if line is not None:
                    data["text/plain"] = line
                del data[WIDGET_VIEW]
                if not data:
                    continue
            outputs.append(output)
        if "outputs" in cell:
            cell["outputs"] = outputs
    return notebook


def pre_save_hook(model: dict[str, Any], **kwargs: Any) -> None:
    """Jupyter server's ``ContentsManager.pre_save_hook``: a notebook is saved as :func:`static_widgets` leaves it.

    Args:
        model: the contents model being saved (``type``, ``content``, ...); only a notebook's
            content is changed, in place, and only what it holds of widgets.
        **kwargs: what the server passes besides (``path``, ``contents_manager``), unused.
    """
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        static_widgets(model["content"])


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
