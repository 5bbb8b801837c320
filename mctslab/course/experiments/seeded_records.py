"""Stored runs of experiments that are not matches: a resumable file of seeded records.

A long experiment whose results are not games (a move chosen in one position, a puzzle's
score) stores them as JSON lines: the first line is a header saying which run the file
holds, every other line is one record (a dict). Each record depends only on its own seeds,
so a notebook reads the records that are there and computes only the missing ones, and the
result is the same as an uninterrupted run's. Used by :func:`~mctslab.course.experiments.choice_rates`
(notebook 02) and :mod:`mctslab.course.experiments.nested` (notebook 12c); games use the
tournament's results files instead (``play_match(..., out=...)``).

What is checked, so that nothing is silently mis-counted:

* the header must describe the same run: every key of the expected header must have the
  same value in the file's (otherwise :class:`RecordFileError` names the key);
* every record line must parse as a JSON object; a damaged **last** line (the one being
  written when a run was stopped) is not read, and is cut off before the next append; a
  damaged line anywhere else is an error naming the line.

Records are appended and flushed as they are computed, so an interrupted run loses only
what was in flight. One file has one writer (no lock is taken: these runs take seconds).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FORMAT = "mctslab-records"
VERSION = 1


class RecordFileError(ValueError):
    """A record file holds another run, or a damaged line before its last."""


def _line(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, separators=(",", ":")) + "\n").encode()


class RecordFile:
    """A file of records for one run: read what is there, then append what is computed.

    Args:
        path: the file (created with its header, and its folder, by the first :meth:`append`).
        header: what identifies the run (JSON-ready); a file whose header differs is refused.
    """

    def __init__(self, path: str | os.PathLike, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = {"format": FORMAT, "version": VERSION, **header}
        self._end: int | None = None  # bytes of the file known sound (header and whole records)

    def read(self) -> list[dict[str, Any]]:
        """The records stored so far, in file order (none if the file is missing, empty or part of a header).

        Raises:
            RecordFileError: another run's header, or a damaged line before the last.
        """
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            data = b""
        if _line(self.header).startswith(data):  # empty, or stopped while writing its header: nothing to read
            self._end = 0
            return []
        lines = data.split(b"\n")
        complete = data.endswith(b"\n")
        if complete:
            lines.pop()
        self._check_header(lines[0])
        records, end = [], len(lines[0]) + 1
        for number, raw in enumerate(lines[1:], start=2):
            last = number == len(lines)
            try:
                record = json.loads(raw)
                if not isinstance(record, dict) or (last and not complete):
                    raise ValueError("not a whole JSON object")
            except ValueError as err:
                if last:  # being written when the run stopped: computed again
                    break
                raise RecordFileError(f"{self.path}, line {number}: {err}") from None
            records.append(record)
            end += len(raw) + 1
        self._end = end
        return records

    def _check_header(self, raw: bytes) -> None:
        try:
            stored = json.loads(raw)
        except ValueError:
            stored = None
        if not isinstance(stored, dict):
            raise RecordFileError(f"{self.path}: the first line is not a header of {FORMAT}")
        for key, value in self.header.items():
            if stored.get(key) != value:
                raise RecordFileError(
                    f"{self.path} holds another run: its {key} is {stored.get(key)!r}, this run's is {value!r}"
                )

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        """Add ``records`` at the end (after the header, written first if the file is new), and flush.

        Raises:
            RecordFileError: see :meth:`read` (the file is checked before its first append).
        """
        if self._end is None:
            self.read()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as f:
            f.truncate(self._end)  # drops a damaged last line, if any
            data = b"".join(_line(r) for r in records)
            if self._end == 0:
                data = _line(self.header) + data
            f.write(data)
            f.flush()
        self._end += len(data)


def indexed(records: Iterable[dict[str, Any]], key: str, field: str) -> dict[tuple[Any, int], Any]:
    """Sequences stored as records ``{key: k, "first": j, field: [v0, v1, ...]}``, as ``{(k, j): v0, (k, j + 1): v1}``.

    Raises:
        RecordFileError: a record without ``key``, an integer ``first`` >= 0 and a list
            ``field``, or one index stored twice with different values.
    """
    found: dict[tuple[Any, int], Any] = {}
    for record in records:
        k, first, values = record.get(key), record.get("first"), record.get(field)
        if k is None or not isinstance(first, int) or first < 0 or not isinstance(values, list):
            raise RecordFileError(f"not a record of {key!r} and {field!r}: {record!r}")
        for i, value in enumerate(values):
            if found.setdefault((k, first + i), value) != value:
                raise RecordFileError(f"{field} {first + i} of {key} {k!r} is stored twice, differently")
    return found


class Appender:
    """Appends the new values of one sequence as they are computed: records of consecutive indices.

    Args:
        store: the file (``None``: nothing is stored, :meth:`add` does nothing).
        key: the sequence's key, e.g. ``{"budget": 2}``: every record starts with it.
        field: the name of the list of values in a record.
        size: values per record, at most: a run stopped loses at most as many.
    """

    def __init__(self, store: RecordFile | None, key: dict[str, Any], field: str, size: int = 100) -> None:
        self.store, self.key, self.field, self.size = store, key, field, size
        self.first, self.values = 0, []

    def add(self, index: int, value: Any) -> None:
        """Value number ``index`` of the sequence (written with the values before it, or when ``size`` are waiting)."""
        if self.store is None:
            return
        if self.values and index != self.first + len(self.values):
            self.flush()
        if not self.values:
            self.first = index
        self.values.append(value)
        if len(self.values) >= self.size:
            self.flush()

    def flush(self) -> None:
        """Write the values waiting, if any."""
        if self.store is not None and self.values:
            self.store.append([{**self.key, "first": self.first, self.field: self.values}])
            self.values = []
