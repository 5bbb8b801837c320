"""The HTML report of a grading run: a class summary page and one page per student.

``index.html``: the score histogram (a matplotlib PNG, inline), mean and median, the
most common diagnoses (failed checks, by part and check), and a table of students
linking to their pages. ``students/<name>.html``: each part's points and its checks'
statuses and diagnoses, as the exercise checks wrote them (``Report.to_dict``).
``copies.html``: the parts like the reference solution and the pairs of similar
submissions, with the part and the similarity (:mod:`.copies`).
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import re
import statistics
from collections import Counter
from pathlib import Path

from .copies import THRESHOLD, copy_flags
from .lms import write_whole
from .roster import Roster

__all__ = ["feedback_name", "write_feedback", "write_report"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #1f2328; }
table { border-collapse: collapse; margin: 1em 0; } td, th { border: 1px solid #d0d7de; padding: .3em .6em;
text-align: left; vertical-align: top; } th { background: #f6f8fa; }
.passed { color: #1a7f37; } .failed { color: #cf222e; } .skipped { color: #6e7781; }
.not-written-yet { color: #9a6700; } .flags { color: #cf222e; font-weight: 600; } .muted { color: #6e7781; }
"""


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _slug(submission: str) -> str:
    """The page's file name: readable, and one of its own (names that differ only in spaces, case or
    letters outside ASCII, "alice smith" and "alice_smith", get a hash of the whole name each)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", submission.removesuffix(".ipynb"))
    digest = hashlib.sha256(submission.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{readable}-{digest}.html"


def _histogram(rows: list[dict]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = [100 * r["score"] / r["max_score"] for r in rows if r.get("max_score")]
    fig, ax = plt.subplots(figsize=(6, 2.6), dpi=100)
    ax.hist(scores, bins=[i * 10 for i in range(11)], color="#0969da", edgecolor="white")
    ax.set_xlabel("score (% of the maximum)")
    ax.set_ylabel("submissions")
    ax.set_xlim(0, 100)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode()
    return f'<img alt="histogram of the scores" src="data:image/png;base64,{data}">'


_SHOWN = {"skipped": "not reached"}
"""A check's status as the page shows it: a skipped check waited for another to pass, it did not fail."""


def _gist(detail: str) -> str:
    """The words of a diagnosis before its numbers (so that the same mistake counts once per student)."""
    first = re.split(r"\s\(|:\s|\.\s|;\s", detail, maxsplit=1)[0]
    return first if len(first) >= 20 else detail[:160]


def _diagnoses(rows: list[dict]) -> Counter:
    counts: Counter = Counter()
    for row in rows:
        for part, result in (row.get("reports") or {}).items():
            if not result:
                continue
            if "missing" in result:
                counts[(part, "not written", result["missing"])] += 1
            for check in (result.get("report") or {}).get("checks", []):
                if check.get("status") == "failed":
                    counts[(part, check.get("title", check.get("name", "")), _gist(check.get("detail", "")))] += 1
    return counts


def _flags(row: dict) -> str:
    """The grading's flags, then the copies'."""
    return " ".join(f for f in [row.get("flags") or "", *copy_flags(row.get("copies") or {})] if f)


def _copies(row: dict) -> str:
    """What the student's page says of copies: which parts are like the reference, like whom."""
    copies = row.get("copies") or {}
    said = ""
    if copies.get("reference"):
        parts = ", ".join(copies["reference"])
        said += f'<p class="flags">matches-reference: {html.escape(parts)} (like the published reference solution)</p>'
    for pair in copies.get("similar", []):
        said += (
            f'<p class="flags">similar to {html.escape(pair["other"])}: {html.escape(pair["part"])} '
            f"(similarity {pair['similarity']:.2f})</p>"
        )
    return said


def _student(row: dict, instructor: bool = True) -> str:
    """A submission's marks, flags and diagnoses; with ``instructor`` False, none of the copies' flags
    (they name classmates and inform the instructor only)."""
    parts = []
    flags = _flags(row) if instructor else row.get("flags") or ""
    head = f"<p>score <b>{row.get('score', 0):g}</b> of {row.get('max_score', 0):g}"
    head += f' <span class="flags">{html.escape(flags)}</span></p>' if flags else "</p>"
    if row.get("error"):
        head += f"<p>{html.escape(row['error'])}</p>"
    head += _copies(row) if instructor else ""
    stopped = row.get("stopped") or {}
    for cell, why in (row.get("removed") or {}).items():
        why += f": {stopped[cell]}" if cell in stopped else ""
        head += f'<p class="muted">cell {cell} was left out of the final run ({html.escape(why)})</p>'
    for part, result in (row.get("reports") or {}).items():
        earned = (row.get("points") or {}).get(part, 0)
        parts.append(f"<h2>{html.escape(part)}: {earned:g} points</h2>")
        if not result:
            said = f" ({stopped[part]})" if part in stopped else ""
            parts.append(f"<p>no result: the cell checking it did not finish{html.escape(said)}</p>")
            continue
        if "missing" in result or "error" in result:
            parts.append(f"<p>{html.escape(result.get('missing') or result.get('error'))}</p>")
            continue
        report = result["report"]
        lines = "".join(
            f'<tr><td class="{c["status"].replace(" ", "-")}">{html.escape(_SHOWN.get(c["status"], c["status"]))}</td>'
            f"<td>{html.escape(c['title'])}</td><td>{html.escape(c.get('detail', ''))}</td></tr>"
            for c in report.get("checks", [])
        )
        parts.append(f"<p>{html.escape(report.get('summary', ''))}</p><table>{lines}</table>")
    return head + "".join(parts)


def _copies_page(rows: list[dict]) -> str:
    """The class's copies: each pair once, then each part like the reference; the similarity of each."""
    lines = []
    for row in rows:
        me = row["submission"]
        for pair in (row.get("copies") or {}).get("similar", []):
            if me < pair["other"]:
                lines.append((me, pair["other"], pair["part"], pair["similarity"]))
        for part, score in (row.get("copies") or {}).get("reference", {}).items():
            lines.append((me, "the reference solution", part, score))
    body = (
        f"<p>Parts whose code, names, comments and layout aside, is at least {THRESHOLD:g} similar "
        "(Jaccard index of winnowed fingerprints, 1 for the same code renamed) to another submission's "
        "or to the published reference solution, and submissions that are the same file. "
        "Flags inform: no score is changed.</p>"
        '<p><a href="index.html">class summary</a></p>'
        "<table><tr><th>submission</th><th>like</th><th>part</th><th>similarity</th></tr>"
    )
    body += "".join(
        f'<tr><td><a href="students/{_slug(a)}">{html.escape(a)}</a></td><td>{html.escape(b)}</td>'
        f"<td>{html.escape(part)}</td><td>{score:.2f}</td></tr>"
        for a, b, part, score in sorted(lines, key=lambda line: (-line[3], line))
    )
    return body + "</table>"


def write_report(rows: list[dict], folder: Path, top: int = 15) -> Path:
    """Write the class summary and the students' pages into ``folder``; return the summary's path."""
    rows = sorted(rows, key=lambda r: r["submission"])
    (folder / "students").mkdir(parents=True, exist_ok=True)
    for row in rows:
        page = _page(row["submission"], '<p><a href="../index.html">class summary</a></p>' + _student(row))
        (folder / "students" / _slug(row["submission"])).write_text(page, encoding="utf-8", errors="backslashreplace")
    scores = [r.get("score", 0) for r in rows]
    body = f"<p>{len(rows)} submissions"
    if scores:
        body += f"; mean {statistics.mean(scores):.1f}, median {statistics.median(scores):g}"
        body += f" of {max(r.get('max_score', 0) for r in rows):g}</p>{_histogram(rows)}"
    else:
        body += "</p>"
    (folder / "copies.html").write_text(
        _page("Grades: copies", _copies_page(rows)), encoding="utf-8", errors="backslashreplace"
    )
    pairs = {
        frozenset((r["submission"], pair["other"])) for r in rows for pair in (r.get("copies") or {}).get("similar", [])
    }
    body += f'<p><a href="copies.html">copies</a>: {len(pairs)} pairs of similar submissions, '
    body += f"{sum(bool((r.get('copies') or {}).get('reference')) for r in rows)} like the reference solution</p>"
    common = _diagnoses(rows).most_common(top)
    body += "<h2>Most common diagnoses</h2>"
    body += "<table><tr><th>submissions</th><th>part</th><th>check</th><th>diagnosis</th></tr>"
    body += "".join(
        f"<tr><td>{n}</td><td>{html.escape(p)}</td><td>{html.escape(t)}</td><td>{html.escape(d)}</td></tr>"
        for (p, t, d), n in common
    )
    body += "</table><h2>Students</h2><table><tr><th>submission</th><th>score</th><th>flags</th></tr>"
    body += "".join(
        f'<tr><td><a href="students/{_slug(r["submission"])}">{html.escape(r["submission"])}</a></td>'
        f"<td>{r.get('score', 0):g} / {r.get('max_score', 0):g}</td><td>{html.escape(_flags(r))}</td></tr>"
        for r in rows
    )
    body += "</table>"
    index = folder / "index.html"
    index.write_text(_page("Grades: class summary", body), encoding="utf-8", errors="backslashreplace")
    return index


def feedback_name(key: str) -> str:
    """The feedback file of a student id or a submission: the id itself where it is a plain file name, else
    :func:`_slug`'s readable name with a hash (``4711.html``; ``alice_smith-3f2a...html``)."""
    plain = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,80}", key) and not key.endswith(".ipynb")
    return f"{key}.html" if plain else _slug(key)


def write_feedback(rows: list[dict], folder: Path, roster: Roster | None = None) -> list[Path]:
    """Write one self-contained HTML page per student into ``folder``, to hand back; return their paths.

    Each page holds that student's submissions only: each part's points and its checks' diagnoses,
    the grading's flags (``timeout``, ``not-written``, ...), never the copies' (``similar:<other>``,
    ``matches-reference``: the instructor's), no link to the class and nothing of another student.
    With ``roster``, one page per student of it, named by their id (a student with no submission gets
    a page saying so); without, one per submission, named as its report page. Each file is written whole.
    """
    folder.mkdir(parents=True, exist_ok=True)
    rows = sorted(rows, key=lambda r: r["submission"])
    pages: list[tuple[str, str, list[dict]]] = []  # (file key, title, rows)
    if roster is None:
        pages = [(row["submission"], row["submission"], [row]) for row in rows]
    else:
        mine: dict[str, list[dict]] = {student.id: [] for student in roster.students}
        for row in rows:
            owner = roster.owner(row["submission"])
            if owner is not None:
                mine[owner.id].append(row)
        pages = [(s.id, s.name or s.id, mine[s.id]) for s in roster.students]
    names = [feedback_name(key) for key, _, _ in pages]
    lowered = [name.lower() for name in names]
    written = []
    for (key, title, own), name in zip(pages, names, strict=True):
        if lowered.count(name.lower()) > 1:  # ids differing only in case: one file each on any file system
            name = _slug(key)
        body = "".join(f"<h2>{html.escape(row['submission'])}</h2>{_student(row, instructor=False)}" for row in own)
        if not own:
            body = "<p>No submission of yours was found: every exercise counts 0.</p>"
        path = folder / name
        write_whole(path, _page(f"Feedback: {title}", body))
        written.append(path)
    return written
