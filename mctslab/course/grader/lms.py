"""Gradebook files an LMS imports: Canvas's and Moodle's CSV, one row per student of the roster.

Each file has one column per exercise graded (an assignment in Canvas, a grade item in
Moodle), holding the student's score in points (the sum of its parts under the run's
scheme). A student of the roster with no submission of an exercise gets 0 for it; a student
with two submissions of one exercise gets the higher score (and the run says so); a
submission no roster row holds is in no gradebook (the run names it before grading).

- **Canvas** (Grades > Import): the columns of Canvas's own gradebook export, ``Student``,
  ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, then one per assignment, and a
  ``Points Possible`` row first. Canvas matches students by ``ID`` (or the SIS ids) and
  assignments by name with their id in parentheses: name the columns after the course's
  assignments (``--assignment '04b=UCT homework (4711)'``); a column without a known
  assignment's id makes Canvas create a new assignment.
- **Moodle** (Grades > Import > CSV file): ``ID number``, ``Username``, ``Email address``,
  ``Full name``, then one column per grade item; in the import's mapping, identify users by
  "ID number" (``useridnumber``) or "Email address" (``useremail``) and map each column to
  its grade item.

Every file is written whole or not at all (:func:`write_whole`).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable
from pathlib import Path

from .catalogue import EXERCISES
from .roster import Roster, Student

__all__ = ["assignment_names", "gradebook", "write_canvas", "write_moodle", "write_whole"]


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it renamed over it: whole or not at all."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8", errors="backslashreplace", newline="")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def assignment_names(given: list[str]) -> dict[str, str]:
    """The gradebook column of each exercise: ``Notebook <key>`` unless ``--assignment KEY=NAME`` names it.

    Raises:
        ValueError: (one line) for a value without ``=``, an unknown exercise, an empty name or an exercise named twice.
    """
    names = {key: f"Notebook {key}" for key in EXERCISES}
    named: set[str] = set()
    for text in given:
        key, equals, name = text.partition("=")
        key, name = key.strip(), name.strip()
        if not equals or not name:
            raise ValueError(f"--assignment {text!r}: give EXERCISE=NAME, e.g. --assignment '04b=UCT homework (4711)'")
        if key not in EXERCISES:
            raise ValueError(f"--assignment {text!r}: unknown exercise {key!r}; known: {', '.join(EXERCISES)}")
        if key in named:
            raise ValueError(f"--assignment: exercise {key} is named twice")
        named.add(key)
        names[key] = name
    return names


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def gradebook(
    rows: list[dict], roster: Roster
) -> tuple[list[str], dict[str, dict[str, float]], dict[str, float], list[str]]:
    """The scores of the roster's students.

    Args:
        rows: the run's rows (``grades.csv``'s, with ``exercise``, ``score`` and ``max_score``).
        roster: the class.

    Returns:
        ``(exercises, scores, possible, notes)``: the exercises graded, in the catalogue's order;
        per student id, per exercise, the score (0 for no submission); per exercise, its points
        possible; and one line for each student with two submissions of one exercise.
    """
    graded = {row.get("exercise") for row in rows}
    exercises = [key for key in EXERCISES if key in graded]
    possible = {key: max(float(r.get("max_score") or 0) for r in rows if r.get("exercise") == key) for key in exercises}
    owners = {row["submission"]: roster.owner(row["submission"]) for row in rows}
    scores: dict[str, dict[str, float]] = {s.id: dict.fromkeys(exercises, 0.0) for s in roster.students}
    seen: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        student, key = owners[row["submission"]], row.get("exercise")
        if student is None or key not in possible:
            continue
        seen.setdefault((student.id, key), []).append(row["submission"])
        scores[student.id][key] = max(scores[student.id][key], float(row.get("score") or 0))
    notes = [
        f"student {sid} has {len(found)} submissions of {key}: the higher score counts ({', '.join(found)})"
        for (sid, key), found in seen.items()
        if len(found) > 1
    ]
    return exercises, scores, possible, notes


def _write(path: Path, header: list[str], lines: list[list[str]]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(lines)
    write_whole(path, buffer.getvalue())


def _export(
    path: Path,
    rows: list[dict],
    roster: Roster,
    names: dict[str, str],
    fields: list[tuple[str, Callable[[Student], str]]],
    possible_row: bool,
) -> list[str]:
    exercises, scores, possible, notes = gradebook(rows, roster)
    header = [title for title, _ in fields] + [names[key] for key in exercises]
    lines = []
    if possible_row:
        lines.append(["    Points Possible"] + [""] * (len(fields) - 1) + [_number(possible[k]) for k in exercises])
    for student in roster.students:
        lines.append([get(student) for _, get in fields] + [_number(scores[student.id][k]) for k in exercises])
    _write(path, header, lines)
    return notes


def write_canvas(path: Path, rows: list[dict], roster: Roster, names: dict[str, str]) -> list[str]:
    """Write Canvas's gradebook import CSV (see the module's docstring); return :func:`gradebook`'s notes."""
    fields: list[tuple[str, Callable[[Student], str]]] = [
        ("Student", lambda s: s.name or s.id),
        ("ID", lambda s: s.id),
        ("SIS User ID", lambda s: s.sis_id),
        ("SIS Login ID", lambda s: s.login),
        ("Section", lambda s: s.section),
    ]
    return _export(path, rows, roster, names, fields, possible_row=True)


def write_moodle(path: Path, rows: list[dict], roster: Roster, names: dict[str, str]) -> list[str]:
    """Write Moodle's grade import CSV (see the module's docstring); return :func:`gradebook`'s notes."""
    fields: list[tuple[str, Callable[[Student], str]]] = [
        ("ID number", lambda s: s.id),
        ("Username", lambda s: s.login),
        ("Email address", lambda s: s.email),
        ("Full name", lambda s: s.name),
    ]
    return _export(path, rows, roster, names, fields, possible_row=False)
