"""Results tables that read well in a notebook, in a terminal and in a test: :class:`Table`.

A notebook shows a :class:`Table` as an HTML table (``_repr_html_``: one row per line,
numbers right-aligned, an interval never broken across lines), and everything else,
``print`` and nbval's comparison of stored outputs included, sees the same table as
aligned plain text (``__str__``, ``_repr_pretty_``). Wide text tables that a browser
wraps into fragments ("96.8 [95.5, 97." then "7]") are what this replaces.

It is the package's one table: a table laid out in fixed character widths (``widths=``,
as a terminal report prints it) is shown preformatted in a notebook too, and a table
with a layout of its own subclasses :class:`Table` and overrides :meth:`Table.lines`
(and ``_repr_html_``), as :class:`mctslab.course.experiments.tables.PanelTable` does.

Example:
    >>> table = Table(["agent", "score"], [["uct", "0.62 [0.55, 0.69]"], ["flat", 0.38]], caption="A vs B")
    >>> print(table)
    A vs B
    agent              score
    -----  -----------------
    uct    0.62 [0.55, 0.69]
    flat                0.38
"""

from __future__ import annotations

import numbers
import re
import textwrap
from collections.abc import Sequence
from html import escape
from typing import Any

__all__ = ["TEXT_WIDTH", "ShownAsTable", "Table"]

TEXT_WIDTH = 100
"""Width, in characters, that captions and notes of the text form are wrapped to."""

_NUMERIC = re.compile(r"^[\s+\-−]*[\d.,]+%?(\s*[\[(].*[\])])?\s*$")


def _looks_numeric(cell: str) -> bool:
    return bool(_NUMERIC.match(cell)) or cell in {"-", "—", "nan", "inf", "-inf"}


LONG_TEXT = 40
"""A body cell of more characters than this, with spaces in it, is prose: in HTML it wraps at its spaces."""

_NOWRAP = '<span style="white-space:nowrap">{}</span>'


def _html_cell(text: str, header: bool = False) -> tuple[str, bool]:
    """A cell's HTML and whether it may wrap, so that a table too wide for the window shrinks before it scrolls.

    It breaks only between whole words, and only where the table does not fit: a header and
    a long cell (prose) at their spaces; an estimate and its interval (``0.520 [0.47, 0.57]``)
    between the two, each kept whole. Every other cell stays on one line.
    """
    if " [" in text and text.endswith("]"):
        estimate, _, interval = text.partition(" [")
        return f"{_NOWRAP.format(escape(estimate))} {_NOWRAP.format(escape('[' + interval))}", True
    if " " in text.strip() and header:  # each word whole (``10^2 -> 10^3`` never breaks at its hyphen)
        return " ".join(_NOWRAP.format(escape(word)) if word else "" for word in text.split(" ")), True
    if " " in text.strip() and len(text) > LONG_TEXT:
        return escape(text), True
    return escape(text), False


def _cell_text(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    return f"{float(value):g}"  # type: ignore[arg-type]


class Table:
    """A results table: headers, rows, an optional caption above and notes below.

    Args:
        headers: one name per column.
        rows: the rows, each with one cell per column. Cells are shown with ``str``
            (whole numbers as they are, other numbers with ``:g``): format numbers
            yourself for a fixed number of digits.
        caption: a line shown above the table.
        notes: lines shown below it (units, how intervals are computed...); a string
            or a sequence of strings.
        align: one letter per column, ``"l"`` or ``"r"`` (default: right for columns
            whose cells all look like numbers, left otherwise).
        widths: fixed widths in characters, one per column: the text is laid out as a
            terminal report prints it (each cell padded to its column's width, nothing
            between columns, no rule under the headers) and a notebook shows that same
            text preformatted. ``None`` (the default): each column as wide as its widest
            cell, two spaces apart, a rule under the headers, and an HTML table.
        text_width: the width, in characters, that the caption and notes are wrapped to
            in the text form (default :data:`TEXT_WIDTH`).

    Raises:
        ValueError: if a row has the wrong number of cells, or ``align`` or ``widths`` is malformed.
    """

    def __init__(
        self,
        headers: Sequence[str],
        rows: Sequence[Sequence[object]],
        *,
        caption: str | None = None,
        notes: str | Sequence[str] | None = None,
        align: str | None = None,
        widths: Sequence[int] | None = None,
        text_width: int = TEXT_WIDTH,
    ) -> None:
        self.headers = [str(h) for h in headers]
        self.rows = [[_cell_text(v) for v in row] for row in rows]
        for i, row in enumerate(self.rows):
            if len(row) != len(self.headers):
                raise ValueError(f"row {i} has {len(row)} cells for {len(self.headers)} columns: {row}")
        self.caption = caption
        self.notes = [notes] if isinstance(notes, str) else list(notes or [])
        if align is None:
            align = "".join(
                "r" if self.rows and all(_looks_numeric(r[j]) for r in self.rows) else "l"
                for j in range(len(self.headers))
            )
        if len(align) != len(self.headers) or set(align) - {"l", "r"}:
            raise ValueError(f"align must be one of 'l'/'r' per column ({len(self.headers)}), got {align!r}")
        self.align = align
        if widths is not None and len(widths) != len(self.headers):
            raise ValueError(f"widths must give one width per column ({len(self.headers)}), got {list(widths)}")
        self.widths = None if widths is None else tuple(widths)
        self.text_width = text_width

    def column(self, name: str) -> list[str]:
        """The cells of the column called ``name``, as shown.

        Raises:
            KeyError: if there is no such column (the message lists the columns).
        """
        if name not in self.headers:
            raise KeyError(f"no column {name!r}; the columns are {self.headers}")
        j = self.headers.index(name)
        return [row[j] for row in self.rows]

    @property
    def width(self) -> int:
        """Width in characters of the widest line of the table body in text form."""
        return max(len(line) for line in self._body_lines())

    def _body_lines(self) -> list[str]:
        fixed = self.widths is not None
        widths = self.widths or [max([len(h)] + [len(r[j]) for r in self.rows]) for j, h in enumerate(self.headers)]

        def line(cells: Sequence[str]) -> str:
            parts = [c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(cells, widths, self.align, strict=True)]
            return ("" if fixed else "  ").join(parts).rstrip()

        rule = [] if fixed else ["  ".join("-" * w for w in widths)]
        return [line(self.headers), *rule, *(line(r) for r in self.rows)]

    def lines(self) -> list[str]:
        """The table as text lines: the caption, the table, the notes (what ``str`` joins)."""
        lines = textwrap.wrap(self.caption, self.text_width) if self.caption else []
        lines += self._body_lines()
        for note in self.notes:
            lines += textwrap.wrap(note, self.text_width) or [""]
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        if self.widths is not None:  # laid out as text: shown as that text
            return "<pre>" + escape(str(self)) + "</pre>"

        def cell(tag: str, text: str, a: str) -> str:
            side = "right" if a == "r" else "left"
            content, wraps = _html_cell(text, header=tag == "th")
            nowrap = "" if wraps else "white-space:nowrap;"
            return f'<{tag} style="text-align:{side};{nowrap}padding:2px 8px">{content}</{tag}>'

        head = "".join(cell("th", h, a) for h, a in zip(self.headers, self.align, strict=True))
        body = "".join(
            "<tr>" + "".join(cell("td", c, a) for c, a in zip(row, self.align, strict=True)) + "</tr>"
            for row in self.rows
        )
        caption = (
            f'<caption style="caption-side:top;text-align:left;font-weight:bold;padding-bottom:4px">'
            f"{escape(self.caption)}</caption>"
            if self.caption
            else ""
        )
        notes = "".join(f'<div style="font-size:90%;color:#555">{escape(n)}</div>' for n in self.notes)
        return (
            '<div style="overflow-x:auto;max-width:100%">'
            f'<table style="border-collapse:collapse;font-variant-numeric:tabular-nums">{caption}'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}</div>"
        )


class ShownAsTable:
    """A result that shows itself as its :meth:`as_table`: in text (``str``, ``repr``) and, in a notebook, in HTML.

    Subclasses define ``as_table() -> Table``; the experiments' result classes share this.
    """

    def as_table(self) -> Table:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def lines(self) -> list[str]:
        """The table as text lines."""
        return self.as_table().lines()

    def __str__(self) -> str:
        return str(self.as_table())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return self.as_table()._repr_html_()
