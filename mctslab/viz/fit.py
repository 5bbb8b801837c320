"""Pictures that fit the notebook's width: shrunk to it, but never so far that a label gets too small.

Graphviz writes an SVG at a fixed size in points. Shown as it is, a wide tree runs off the right
edge of the notebook; scaled to the width alone, a wide tree's labels become unreadable. Here a
picture is scaled down to the width of the page (never up) and no further than where its
smallest label is :data:`MIN_LABEL_PX` pixels high; beyond that its box scrolls sideways.

:func:`image_html` wraps the SVG as an image in HTML, which JupyterLab shows the same way in a
trusted and an untrusted notebook (its sanitiser keeps an ``<img>`` with a ``data:`` address, and
drops an inline ``<svg>``). :func:`inline_html` keeps the SVG inline (for widgets, which are
trusted).
"""

from __future__ import annotations

import base64
import re

__all__ = ["MIN_LABEL_PX", "fitted", "image_html", "inline_html", "min_width_px"]

MIN_LABEL_PX = 10.0
"""The height, in CSS pixels, below which a picture's labels are not shrunk."""

PX_PER_PT = 4 / 3


def _size_pt(svg: str) -> tuple[float, float] | None:
    """The SVG's width and height in points, from its ``<svg width=".." height="..">`` (graphviz's), or ``None``."""
    match = re.search(r'<svg\b[^>]*?\bwidth="([\d.]+)pt"[^>]*?\bheight="([\d.]+)pt"', svg, re.S)
    return (float(match.group(1)), float(match.group(2))) if match else None


def min_width_px(svg: str, min_label_px: float = MIN_LABEL_PX) -> float | None:
    """The narrowest the picture may be drawn, in CSS pixels, so its smallest label is ``min_label_px`` high.

    ``None`` for an SVG without a size in points (not graphviz's): it is then left as it is.
    """
    size = _size_pt(svg)
    if size is None:
        return None
    fonts = [float(f) for f in re.findall(r'font-size="([\d.]+)"', svg)] or [14.0]
    smallest_px = min(fonts) * PX_PER_PT  # at natural size (graphviz's user unit is the point)
    natural_px = size[0] * PX_PER_PT
    return min(natural_px, natural_px * min_label_px / smallest_px)


def image_html(svg: str, min_label_px: float = MIN_LABEL_PX) -> str:
    """The SVG as an image in a box that scrolls sideways: at most its natural size and the page's width,
    at least :func:`min_width_px` wide."""
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    size = _size_pt(svg)
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    style = "max-width:100%;height:auto"
    if size is not None:
        style = f"width:{size[0] * PX_PER_PT:.0f}px;min-width:{min_width_px(svg, min_label_px):.0f}px;{style}"
    image = f'<img src="data:image/svg+xml;base64,{data}" style="{style}">'
    return f'<div style="overflow-x:auto;max-width:100%">{image}</div>'


def inline_html(svg_html: str, fit: bool = True, min_label_px: float = MIN_LABEL_PX) -> str:
    """HTML holding an inline SVG, in a box that never overflows the page (it scrolls).

    With ``fit``, the SVG is scaled down to the width of the box (never up), and no
    narrower than :func:`min_width_px`. Without, it keeps its size.
    """
    if fit:
        low = min_width_px(svg_html, min_label_px)
        floor = f";min-width:{low:.0f}px" if low is not None else ""
        svg_html = re.sub(r"<svg\b", f'<svg style="max-width:100%;height:auto{floor}"', svg_html, count=1)
    # contain:inline-size: the box takes the width it is given, not its picture's (a widget's HTML sits in a
    # flex item that would otherwise grow to the picture's minimum width and run off the page).
    return f'<div style="overflow:auto;max-width:100%;contain:inline-size">{svg_html}</div>'


def fitted(html: str, fit: bool = True) -> str:
    """A drawing's HTML (from :func:`~mctslab.viz.tree.graph_html`) in a box that never overflows the page.

    With ``fit``, an SVG is scaled down to the width of the box (never up), but not so far
    that its labels fall below :data:`~mctslab.viz.fit.MIN_LABEL_PX`: a tree too wide for
    that scrolls. Without, it keeps its size and the box scrolls.
    """
    return inline_html(html, fit)
