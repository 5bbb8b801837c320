"""The two editions of the course: the repository (instructor) and the student edition.

The instructor edition is the repository itself: every notebook with its reference
solutions (cells tagged ``solution``, collapsed) and their outputs. The student
edition, written by ``python -m mctslab course student OUT/`` (:func:`export_student`),
is the same notebooks with

* every cell tagged ``solution`` removed, code and markdown alike: a solution's heading
  ("Reference solution ...") and any text that explains it are tagged with it;
* the outputs of the cells that would show what the reference solution did, cleared:

  - cells tagged ``exercise`` and every cell that calls a function the notebook imports
    from an ``exercises`` module of the package (``from mctslab.course.exercises.bandits
    import check_tuned_c``), whose stored output would otherwise show the reference
    solution's "passed: ..." line;
  - cells tagged ``reference-output``: any other cell whose stored output a solution
    made, because it uses what a solution defined (04b compares the student's Wilson
    interval with the package's on the match the reference agent played). The author
    tags them; ``tests/test_student_edition_leaks.py`` finds such cells on its own, by
    the names each cell reads, and fails on any that keeps its outputs here.

  Their nbval marker (the ``nbval-check-output`` tag, or a ``# NBVAL_CHECK_OUTPUT``
  comment) goes too, since there is no output left to compare;
* everything else as it is: the other cells, their ids, outputs and nbval markers, so
  the student edition runs under nbval like the repository, and its exercise checks
  say "not written yet" instead of raising;
* the data files the notebooks read (everything under ``notebooks/data/``, such as
  09's stored games), copied to ``OUT/data/`` so that each notebook reads the same data
  in both editions.

Each exported notebook records ``{"mctslab": {"edition": "student"}}`` in its metadata.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .notebook_files import (
    NotebookError,
    cell_tags,
    check_notebook,
    check_target,
    identity,
    read_notebook,
    source_folders,
    write_atomic,
)

__all__ = [
    "CHECK_OUTPUT_TAG",
    "DATA_FOLDER",
    "EXERCISE_TAG",
    "REFERENCE_OUTPUT_TAG",
    "SOLUTION_TAG",
    "ExportReport",
    "NotebookError",
    "copy_data",
    "exercise_checks",
    "export_student",
    "is_exercise_cell",
    "student_notebook",
]

SOLUTION_TAG = "solution"
"""Cell tag of a reference solution: dropped from the student edition."""
EXERCISE_TAG = "exercise"
"""Cell tag of an exercise's stub or check cell: kept, with its outputs cleared."""
REFERENCE_OUTPUT_TAG = "reference-output"
"""Cell tag of a cell whose stored output a reference solution made: kept, with its outputs cleared."""
DATA_FOLDER = "data"
"""The folder, beside the notebooks, of the data files they read: copied into the student edition."""
CHECK_OUTPUT_TAG = "nbval-check-output"
"""nbval's cell tag for "compare this cell's output" (the course's notebooks use it, not the comment)."""

_EXERCISE_IMPORT = re.compile(r"^\s*from\s+mctslab(?:\.\w+)*\.exercises(?:\.\w+)*\s+import\s+(\([^)]*\)|[^\n]*)", re.M)
_CHECK_OUTPUT_MARKER = re.compile(r"^[ \t]*#[ \t]*NBVAL_CHECK_OUTPUT[ \t]*\n?", re.MULTILINE)


def _notebooks() -> Path:
    installed = Path(__file__).resolve().parent / "notebooks"  # the wheel's copy (see setup.py)
    return installed if installed.is_dir() else Path(__file__).resolve().parents[2] / "notebooks"


NOTEBOOKS = _notebooks()
"""The instructor edition: the notebooks installed with the package, else the repository's ``notebooks/``."""


def _tags(cell: dict) -> list[str]:
    return cell_tags(cell)  # lower-cased; a single string is one tag (notebook_files)


def exercise_checks(notebook: dict) -> set[str]:
    """Names the notebook imports from the package's ``exercises`` modules (its check functions)."""
    names: set[str] = set()
    for cell in notebook["cells"]:
        if cell.get("cell_type") == "code":
            for imported in _EXERCISE_IMPORT.findall(_source(cell)):
                for part in imported.strip("()").replace("\n", ",").split(","):
                    words = part.split("#")[0].split()
                    if words:
                        names.add(words[-1])  # "check_x" or "check_x as alias"
    return names


def is_exercise_cell(cell: dict, checks: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """True for a code cell tagged ``exercise`` or calling one of ``checks`` (not merely importing it)."""
    if cell.get("cell_type") != "code":
        return False
    if EXERCISE_TAG in _tags(cell):
        return True
    source = _EXERCISE_IMPORT.sub("", _source(cell))
    return any(re.search(rf"\b{re.escape(name)}\s*\(", source) for name in checks)


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


@dataclass
class ExportReport:
    """What :func:`student_notebook` changed in one notebook.

    Attributes:
        dropped: ids of the removed ``solution`` cells.
        cleared: ids of the cells whose outputs were cleared (exercise cells, and cells
            tagged ``reference-output``).
    """

    dropped: list[str]
    cleared: list[str]


_COLAB_BADGE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\(https://colab\.research\.google\.com/github/[^)\s]+\)")
_COLAB_REPO = re.compile(r"(https://colab\.research\.google\.com/github/)[^/)\s]+/[^/)\s]+(/blob/)")
_REPO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")


def check_repo(repo: str | None) -> str | None:
    """``repo`` if it names a GitHub repository as ``OWNER/NAME`` (or is None).

    Raises:
        NotebookError: (one line) for anything else, a URL included.
    """
    if repo is not None and not _REPO.fullmatch(repo):
        raise NotebookError(
            f"--repo must name a GitHub repository as OWNER/NAME (say, my-school/mcts-course), got {repo!r}"
        )
    return repo


def student_notebook(notebook: dict, repo: str | None = None) -> tuple[dict, ExportReport]:
    """The student edition of one notebook (an nbformat 4 notebook or its JSON dict).

    Cell tags are read as :func:`~mctslab.course.notebook_files.cell_tags` does: a single
    string is one tag, and case does not matter (``"Solution"`` is a solution).

    The instructor edition's "Open in Colab" badge opens the instructor edition (its reference
    solutions with it): in the student edition it opens ``repo`` (``OWNER/NAME``, the GitHub
    repository where the instructor publishes the student edition, its notebooks in
    ``notebooks/``), or is left out when no ``repo`` is given.

    Returns:
        The new notebook (the input is left unchanged) and an :class:`ExportReport`.

    Raises:
        NotebookError: (a ValueError) if the notebook or a cell's metadata is malformed.
    """
    check_notebook(notebook, "the notebook")
    out = copy.deepcopy(notebook)
    checks = exercise_checks(out)
    cells, dropped, cleared = [], [], []
    for cell in out["cells"]:
        if SOLUTION_TAG in _tags(cell):
            dropped.append(cell.get("id", ""))
            continue
        if is_exercise_cell(cell, checks) or REFERENCE_OUTPUT_TAG in _tags(cell):
            cell["outputs"] = []
            cell["execution_count"] = None
            cell.get("metadata", {}).pop("execution", None)
            cell["source"] = _CHECK_OUTPUT_MARKER.sub("", _source(cell))
            if CHECK_OUTPUT_TAG in _tags(cell):
                tags = cell["metadata"]["tags"]
                tags = [tags] if isinstance(tags, str) else tags
                cell["metadata"]["tags"] = [t for t in tags if t.strip().lower() != CHECK_OUTPUT_TAG]
            cleared.append(cell.get("id", ""))
        if cell.get("cell_type") == "markdown" and _COLAB_BADGE.search(_source(cell)):
            if repo is None:
                text = _COLAB_BADGE.sub("", _source(cell)).strip()
                if not text:
                    continue  # the badge was the whole cell
                cell["source"] = text
            else:
                cell["source"] = _COLAB_REPO.sub(rf"\g<1>{repo}\g<2>", _source(cell))
        cells.append(cell)
    out["cells"] = cells
    out.setdefault("metadata", {})["mctslab"] = {"edition": "student"}
    return out, ExportReport(dropped, cleared)


def copy_data(source: str | Path, target: str | Path) -> list[Path]:
    """Copy the data files the notebooks in ``source`` read (its ``data/`` folder) into ``target``.

    Each file is written whole or not at all, and never into a folder of ``source`` (an
    ``OUT/data`` that links back to it is refused).

    Returns:
        The files copied, relative to ``target`` (none if ``source`` has no ``data/``).

    Raises:
        NotebookError: (a ValueError) one line, if a file cannot be read or written.
    """
    source, target = Path(source), Path(target)
    folder = source / DATA_FOLDER
    forbidden = source_folders(source, DATA_FOLDER)
    copied = []
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if path.is_file():
            relative = path.relative_to(source)
            try:
                (target / relative).parent.mkdir(parents=True, exist_ok=True)
                data = path.read_bytes()
            except OSError as err:
                raise NotebookError(f"cannot copy {path} to {target / relative} ({err.strerror})") from None
            write_atomic(target / relative, data, forbidden)
            copied.append(relative)
    return copied


def export_student(
    out_dir: str | Path, notebooks: str | Path | None = None, repo: str | None = None
) -> dict[str, ExportReport]:
    """Write the student edition of every notebook in ``notebooks`` into ``out_dir``.

    The data files the notebooks read (``notebooks/data/``) are copied along
    (:func:`copy_data`). Every source notebook is read and checked before anything is
    written; each file is then written whole (temporary file, then rename), replacing any
    link in ``out_dir`` instead of writing through it.

    Args:
        out_dir: the folder to write to (created if needed; same-named notebooks in it
            are replaced). It must not be, contain or link to the source folder.
        notebooks: the folder of the instructor edition (default: :data:`NOTEBOOKS`, the
            notebooks installed with the package or the repository's ``notebooks/``).
        repo: the GitHub repository (``OWNER/NAME``) where the student edition is published:
            the notebooks' "Open in Colab" badges open it (none without it; see
            :func:`student_notebook`).

    Returns:
        ``{file name: ExportReport}`` for each notebook written, in name order.

    Raises:
        FileNotFoundError: if the source folder does not exist or holds no notebook.
        NotebookError: (a ValueError) one line: ``out_dir`` is empty, a file, is or holds
            the instructor edition, cannot be written (the disk is full...), or a source
            notebook is malformed (nothing is written then).
    """
    import nbformat

    check_repo(repo)
    source = Path(notebooks) if notebooks is not None else NOTEBOOKS
    if not source.is_dir():
        raise FileNotFoundError(
            f"no notebooks folder at {source}: reinstall mctslab (its wheel carries the course), "
            "or pass the instructor edition's folder with --notebooks"
        )
    files = sorted(source.glob("*.ipynb"))
    if not files:
        raise FileNotFoundError(f"no .ipynb files in {source}")
    if not os.fspath(out_dir).strip():
        raise NotebookError(f"OUT must name a folder for the student edition, got {os.fspath(out_dir)!r}")
    target = Path(out_dir)
    check_target(target, source)
    written, reports = {}, {}
    for path in files:  # everything read and converted before anything is written
        try:
            student, reports[path.name] = student_notebook(read_notebook(path), repo)
            written[path.name] = nbformat.writes(nbformat.from_dict(student)).encode("utf-8")
        except RecursionError:
            raise NotebookError(f"{path} is nested too deeply to be a notebook") from None
        except NotebookError as err:
            raise NotebookError(str(err).replace("the notebook", str(path), 1)) from None
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise NotebookError(f"cannot create {target} ({err.strerror or type(err).__name__})") from None
    check_target(target, source)  # again, now that it exists (a link created meanwhile)
    forbidden = source_folders(source, DATA_FOLDER)
    for folder in [target / DATA_FOLDER, *(target / DATA_FOLDER).rglob("*")]:  # before the first write
        if folder.is_dir() and identity(folder) in forbidden:
            raise NotebookError(f"{folder} is a folder of the instructor edition (through a link); not writing there")
    for name, data in written.items():
        write_atomic(target / name, data, forbidden)
    copy_data(source, target)
    return reports


# -- the command line: python -m mctslab course student OUT/ ------------------------------
SUMMARY = "write the student edition of the notebooks (reference solutions removed)"
REPO_HELP = (
    "the GitHub repository where you publish the student edition (its notebooks in notebooks/): "
    "the Open in Colab and Binder links open it (default: no such links, since the course's own "
    "repository holds the reference solutions)"
)


def configure(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    """Arguments of ``python -m mctslab course``; returns its sub-commands, for others to add theirs."""
    editions = parser.add_subparsers(dest="edition", metavar="EDITION", required=True)
    student = editions.add_parser("student", help=SUMMARY, description=SUMMARY)
    student.add_argument("out", metavar="OUT", help="folder to write the notebooks to")
    student.add_argument(
        "--notebooks",
        metavar="DIR",
        default=None,
        help="the instructor edition (default: the course's notebooks, installed or the repository's)",
    )
    student.add_argument("--repo", metavar="OWNER/NAME", default=None, help=REPO_HELP)
    return editions


def run(args: argparse.Namespace) -> int:
    """Run ``python -m mctslab course student OUT``; print one line per notebook."""
    try:
        reports = export_student(args.out, args.notebooks, args.repo)
    except FileNotFoundError as err:
        raise ValueError(str(err)) from None  # reported by the command line as one line
    for name, report in reports.items():
        print(f"{name}: {len(report.dropped)} solution cells removed, {len(report.cleared)} cells' outputs cleared")
    data = Path(args.notebooks if args.notebooks is not None else NOTEBOOKS) / DATA_FOLDER
    files = sum(p.is_file() for p in data.rglob("*")) if data.is_dir() else 0
    print(f"the student edition is in {args.out} ({len(reports)} notebooks, {files} data files)")
    return 0
