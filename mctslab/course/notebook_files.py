"""Reading the instructor edition's notebooks strictly, and writing an edition without harming it.

:mod:`mctslab.course.editions` reads each source notebook with :func:`read_notebook` (a
notebook that is not valid JSON, not a notebook, or whose cells' metadata is malformed is
refused in one line naming the file and the cell) and reads cell tags with
:func:`cell_tags` (a single string tag is a tag, not a string of letters; tags compare
without regard to case). It writes with :func:`write_atomic` (a temporary file beside the
target, then a rename: a full disk or an interruption leaves the previous file or none,
never a truncated one, and a link at the target is replaced, never written through), into
a folder that :func:`check_target` has checked is not the instructor edition, does not
contain it and does not lead into it through a link (compared by device and inode, not
by name).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CELL_TYPES = ("code", "markdown", "raw")
"""The cell types of nbformat 4."""


MAX_DEPTH = 64
"""The deepest nesting of JSON arrays and objects read in a notebook (a real one needs under 10)."""


class NotebookError(ValueError):
    """A notebook, or a folder to write an edition to, that cannot be used: one line saying why."""


def cell_tags(cell: dict, where: str = "a cell") -> list[str]:
    """A cell's tags, lower-cased: a list of strings, or one string (one tag).

    Raises:
        NotebookError: for tags of another kind (``null``, a number, a list holding a non-string).
    """
    metadata = cell.get("metadata", {})
    if not isinstance(metadata, dict):
        raise NotebookError(f"{where}: its metadata must be a JSON object, got {type(metadata).__name__}")
    tags = metadata.get("tags", [])
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise NotebookError(f"{where}: its metadata.tags must be a list of strings, got {tags!r}"[:200])
    return [t.strip().lower() for t in tags]


def _depth(value: Any) -> int:
    """How deeply JSON arrays and objects nest in ``value`` (counted without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack += [(child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


def check_notebook(notebook: Any, name: str) -> None:
    """Refuse (NotebookError naming ``name`` and the cell) what is not an nbformat 4 notebook we can edit."""
    if _depth(notebook) > MAX_DEPTH:
        raise NotebookError(f"{name} is nested more than {MAX_DEPTH} levels deep; a notebook needs far fewer")
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError(f"{name} is not a Jupyter notebook (no list of cells)")
    if not isinstance(notebook.get("metadata", {}), dict):
        raise NotebookError(f"{name}: its metadata must be a JSON object")
    for i, cell in enumerate(notebook["cells"]):
        where = f"{name}, cell {i}"
        if not isinstance(cell, dict) or cell.get("cell_type") not in CELL_TYPES:
            raise NotebookError(f"{where} is not a notebook cell (a JSON object with a cell_type in {CELL_TYPES})")
        source = cell.get("source", "")
        if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))):
            raise NotebookError(f"{where}: its source must be text or a list of lines")
        cell_tags(cell, where)
        if cell["cell_type"] == "code" and not isinstance(cell.get("outputs", []), list):
            raise NotebookError(f"{where}: its outputs must be a list")


def read_notebook(path: Path) -> Any:
    """A source notebook, as an ``nbformat.NotebookNode``, after :func:`check_notebook`.

    Raises:
        NotebookError: one line naming the file: not a file, unreadable, not JSON, nested
            too deep, or not a notebook nbformat can read.
    """
    import nbformat

    if not path.is_file():
        raise NotebookError(f"{path} is not a notebook file (a folder, or not a regular file)")
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        check_notebook(data, str(path))
        for cell in data["cells"]:
            if isinstance(cell.get("metadata", {}).get("tags"), str):  # one tag, written as a string
                cell["metadata"]["tags"] = [cell["metadata"]["tags"]]
                text = None
        return nbformat.reads(text if text is not None else json.dumps(data), as_version=4)
    except NotebookError:
        raise
    except RecursionError:
        raise NotebookError(f"{path} is nested too deeply to be a notebook") from None
    except OSError as err:
        raise NotebookError(f"{path} cannot be read ({err.strerror or type(err).__name__})") from None
    except Exception as err:  # json's and nbformat's many errors: all mean "not a notebook we can read"
        why = " ".join(str(err).split())[:160]
        raise NotebookError(f"{path} is not a notebook nbformat can read ({type(err).__name__}: {why})") from None


def identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()  # follows links: a link to the source is the source
    except OSError:
        return None
    return info.st_dev, info.st_ino


def source_folders(source: Path, data: str) -> set[tuple[int, int]]:
    """``(device, inode)`` of the source folder and of every folder under its ``data``."""
    ids = {identity(source)}
    if (source / data).is_dir():
        ids |= {identity(p) for p in [source / data, *(source / data).rglob("*")] if p.is_dir()}
    return {i for i in ids if i is not None}


def check_target(target: Path, source: Path) -> None:
    """Refuse an output folder that is, contains, or links to the instructor edition ``source``.

    Raises:
        NotebookError: naming the folder and what is wrong.
    """
    if not os.fspath(target).strip():
        raise NotebookError("OUT must name a folder for the student edition, got ''")
    try:
        exists = target.exists()
        if exists and not target.is_dir():
            raise NotebookError(
                f"{target} is not a folder (a file or a device); choose a folder for the student edition"
            )
    except OSError as err:
        raise NotebookError(f"{target} cannot be used ({err.strerror or type(err).__name__})") from None
    mine = identity(target)
    if mine is None:
        return
    if mine in source_folders(source, "data"):
        raise NotebookError(f"{target} is the instructor edition itself (or a link to it); choose another folder")
    for above in source.resolve().parents:
        if identity(above) == mine:
            raise NotebookError(f"{target} contains the instructor edition ({source}); choose another folder")


def write_atomic(path: Path, data: bytes, forbidden: Iterable[tuple[int, int]] = ()) -> None:
    """Write ``data`` to ``path`` whole or not at all, replacing (never following) a link there.

    Args:
        path: the file to write.
        data: its bytes.
        forbidden: ``(device, inode)`` of folders never to write into (the instructor edition).

    Raises:
        NotebookError: if ``path``'s folder is forbidden, or writing fails (the disk is full...):
            one line; the previous file, if any, is left as it was.
    """
    folder = path.parent
    if identity(folder) in set(forbidden):
        raise NotebookError(f"{folder} is a folder of the instructor edition (through a link); not writing there")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise NotebookError(
            f"cannot write {path} ({err.strerror or type(err).__name__}); nothing was left half-written"
        ) from None
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
