"""A small results table that shows itself: HTML in a notebook, narrow aligned text elsewhere.

Notebooks show results as tables, not as long printed lines that wrap into fragments
(a number broken across two lines cannot be read). :class:`Table` renders HTML
(``_repr_html_``) for JupyterLab and GitHub, and a plain-text fallback (``str``, and what
IPython shows when HTML is not available; nbval compares it) no wider than ``width``
characters: wider tables are cut into column panels, each repeating the first column.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """A titled table of already formatted cells.

    Attributes:
        columns: the column headings.
        rows: one sequence of cells (strings or numbers, shown with ``str``) per row.
        title: a caption above the table ("" for none).
        note: a line below it, e.g. what the intervals are ("" for none).
        width: the widest plain-text line, in characters (>= 40).
    """

    columns: Sequence[str]
    rows: Sequence[Sequence[object]]
    title: str = ""
    note: str = ""
    width: int = 100

    def __post_init__(self) -> None:
        if any(len(row) != len(self.columns) for row in self.rows):
            raise ValueError(f"every row must have {len(self.columns)} cells, one per column")

    def _cells(self) -> list[list[str]]:
        return [[str(c) for c in self.columns]] + [[str(c) for c in row] for row in self.rows]

    def text(self) -> str:
        """The table as aligned text, cut into panels of at most :attr:`width` characters."""
        cells = self._cells()
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        panels, current, used = [], [], widths[0]
        for i in range(1, len(widths)):
            if current and used + 2 + widths[i] > self.width:
                panels.append(current)
                current, used = [], widths[0]
            current.append(i)
            used += 2 + widths[i]
        panels.append(current)
        out = textwrap.wrap(self.title, self.width) if self.title else []
        for n, panel in enumerate(panels):
            if n:
                out.append("")
            for r, row in enumerate(cells):
                first = row[0].ljust(widths[0])
                line = first + "".join("  " + row[i].rjust(widths[i]) for i in panel)
                out.append(line.rstrip())
                if r == 0:
                    out.append("-" * len(line.rstrip()))
        if self.note:
            out.extend(textwrap.wrap(self.note, self.width))
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def _repr_pretty_(self, p, cycle: bool) -> None:  # IPython's plain-text view
        p.text(self.text())

    def _repr_html_(self) -> str:
        cells = self._cells()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in cells[0])
        body = "".join(
            "<tr>"
            + f'<td style="text-align:left">{html.escape(row[0])}</td>'
            + "".join(f'<td style="text-align:right">{html.escape(c)}</td>' for c in row[1:])
            + "</tr>"
            for row in cells[1:]
        )
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        note = f"<p><small>{html.escape(self.note)}</small></p>" if self.note else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"
