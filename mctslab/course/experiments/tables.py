"""A narrow results table for the lessons: :class:`PanelTable`, a :class:`mctslab.display.Table` cut into panels.

Notebooks show results as tables, not as long printed lines that wrap into fragments
(a number broken across two lines cannot be read). :class:`PanelTable` renders HTML
(``_repr_html_``) for JupyterLab and GitHub, and a plain-text fallback (``str``, and what
IPython shows when HTML is not available; nbval compares it) no wider than ``width``
characters: wider tables are cut into column panels, each repeating the first column.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence

from ...display import Table


class PanelTable(Table):
    """A titled table of already formatted cells: the first column on the left, the others on the right.

    Args:
        columns: the column headings.
        rows: one sequence of cells (strings or numbers, shown with ``str``) per row.
        title: a caption above the table ("" for none).
        note: a line below it, e.g. what the intervals are ("" for none).
        width: the widest plain-text line, in characters.

    Raises:
        ValueError: if a row has not one cell per column.
    """

    def __init__(
        self,
        columns: Sequence[str],
        rows: Sequence[Sequence[object]],
        title: str = "",
        note: str = "",
        width: int = 100,
    ) -> None:
        if any(len(row) != len(columns) for row in rows):
            raise ValueError(f"every row must have {len(columns)} cells, one per column")
        cells = [[str(c) for c in row] for row in rows]
        super().__init__(
            [str(c) for c in columns],
            cells,
            caption=title or None,
            notes=note or None,
            align="l" + "r" * (len(columns) - 1),
        )
        self.title, self.note, self.max_width = title, note, width

    @property
    def columns(self) -> list[str]:
        """The column headings."""
        return self.headers

    def text(self) -> str:
        """The table as aligned text, cut into panels of at most ``width`` characters."""
        return "\n".join(self.lines())

    def lines(self) -> list[str]:
        """The text lines: the title, each panel (headings, a rule, the rows), the note."""
        cells = [self.headers, *self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.headers))]
        panels, current, used = [], [], widths[0]
        for i in range(1, len(widths)):
            if current and used + 2 + widths[i] > self.max_width:
                panels.append(current)
                current, used = [], widths[0]
            current.append(i)
            used += 2 + widths[i]
        panels.append(current)
        out = textwrap.wrap(self.title, self.max_width) if self.title else []
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
            out.extend(textwrap.wrap(self.note, self.max_width))
        return out

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.headers)
        body = "".join(
            "<tr>"
            + f'<td style="text-align:left">{html.escape(row[0])}</td>'
            + "".join(f'<td style="text-align:right">{html.escape(c)}</td>' for c in row[1:])
            + "</tr>"
            for row in self.rows
        )
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        note = f"<p><small>{html.escape(self.note)}</small></p>" if self.note else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"
