"""The class roster (``--roster roster.csv``): which submission folder is which student.

A CSV file with a header row; ``folder`` and ``id`` are required, the other columns optional::

    folder,id,name,email,sis_id,login,section
    alice smith,4711,"Smith, Alice",alice@example.edu,S0042,asmith,Monday
    bob,4712,"Jones, Bob",bob@example.edu,S0043,bjones,Monday

``folder``: the student's folder under SUBMISSIONS (a path relative to it, as the LMS
download names it; a single notebook's path works too): every submission under it is that
student's. ``id``: the student's id in the LMS (Canvas's ``ID``, Moodle's ``ID number``).
``name``, ``email``, ``sis_id`` (Canvas's ``SIS User ID``), ``login`` (Canvas's ``SIS Login
ID``, Moodle's username) and ``section`` are copied into the gradebook files
(:mod:`.lms`). Column names are case-insensitive; an unknown column is refused (a typo would
otherwise be dropped silently), and so are a missing column, an empty ``folder`` or ``id``, and
two rows with the same ``id`` or ``folder`` or one folder inside another.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = ["COLUMNS", "Roster", "Student", "load_roster"]

COLUMNS = ("folder", "id", "name", "email", "sis_id", "login", "section")
"""The roster's columns: the first two required."""


@dataclass(frozen=True)
class Student:
    """One row of the roster (see the module's docstring for each field)."""

    folder: str
    id: str
    name: str = ""
    email: str = ""
    sis_id: str = ""
    login: str = ""
    section: str = ""


def _key(path: str) -> str:
    """A path as compared: NFC (a folder unzipped on macOS is NFD), no ``./``, no ``/`` at the end."""
    return str(PurePosixPath(unicodedata.normalize("NFC", path.strip().replace("\\", "/"))))


@dataclass(frozen=True)
class Roster:
    """The students of a class, in the roster's order.

    Attributes:
        students: one per row.
        path: where it was read, for messages.
    """

    students: tuple[Student, ...]
    path: str = "roster.csv"

    def owner(self, submission: str) -> Student | None:
        """The student whose folder holds ``submission`` (its path relative to SUBMISSIONS), if any."""
        key = _key(submission)
        for student in self.students:
            folder = _key(student.folder)
            if key == folder or key.startswith(folder + "/"):
                return student
        return None

    def match(self, submissions: Iterable[str]) -> tuple[dict[str, list[str]], list[str]]:
        """Each student's submissions (by id; an empty list for none) and the submissions no row holds."""
        mine: dict[str, list[str]] = {student.id: [] for student in self.students}
        nobody = []
        for submission in submissions:
            student = self.owner(submission)
            if student is None:
                nobody.append(submission)
            else:
                mine[student.id].append(submission)
        return mine, nobody


def load_roster(path: Path) -> Roster:
    """Read and check the roster at ``path`` (see the module's docstring).

    Raises:
        ValueError: (one line) naming the file, the row and what is wrong.
    """
    what = f"--roster {path}"
    try:
        text = path.read_bytes().decode("utf-8-sig")  # a spreadsheet's UTF-8 starts with a byte-order mark
    except OSError as error:
        raise ValueError(f"{what}: cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{what}: not UTF-8 text (save it as CSV UTF-8)") from None
    try:
        table = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as error:
        raise ValueError(f"{what}: not CSV: {error}") from None
    table = [row for row in table if any(cell.strip() for cell in row)]
    if not table:
        raise ValueError(f"{what}: empty: give a header row (folder,id,...) and one row per student")
    header = [cell.strip().lower() for cell in table[0]]
    for name in header:
        if name not in COLUMNS:
            raise ValueError(f"{what}: unknown column {name!r}; columns: {', '.join(COLUMNS)}")
        if header.count(name) > 1:
            raise ValueError(f"{what}: column {name!r} appears twice")
    for name in COLUMNS[:2]:
        if name not in header:
            raise ValueError(
                f"{what}: no {name!r} column (the header has {', '.join(header)}); folder and id are required"
            )
    if len(table) == 1:
        raise ValueError(f"{what}: no student: one row per student after the header")
    students: list[Student] = []
    seen: dict[tuple[str, str], int] = {}
    for number, row in enumerate(table[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f"{what}: row {number} has {len(row)} fields, the header {len(header)}")
        fields = {name: cell.strip() for name, cell in zip(header, row, strict=True)}
        for name in COLUMNS[:2]:
            if not fields[name]:
                raise ValueError(f"{what}: row {number} has no {name}")
        folder = fields["folder"]
        parts = PurePosixPath(folder.replace("\\", "/")).parts
        if folder.startswith(("/", "\\")) or ".." in parts:
            raise ValueError(f"{what}: row {number}: folder {folder!r} is not a path inside SUBMISSIONS")
        for name, value in (("id", fields["id"]), ("folder", _key(folder))):
            if (name, value) in seen:
                raise ValueError(f"{what}: rows {seen[name, value]} and {number} have the same {name} {value!r}")
            seen[name, value] = number
        students.append(Student(**fields))
    for student in students:
        for other in students:
            inner, outer = _key(student.folder), _key(other.folder)
            if student is not other and inner.startswith(outer + "/"):
                raise ValueError(
                    f"{what}: folder {student.folder!r} (id {student.id}) is inside {other.folder!r} "
                    f"(id {other.id}): whose are its notebooks?"
                )
    return Roster(tuple(students), str(path))
