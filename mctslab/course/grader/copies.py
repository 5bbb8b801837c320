"""Copies flagged: a part that is the published reference solution, and pairs of near-identical submissions.

A part's code is the last top-level definition of each name the part needs (``expand``;
``MyUCT``), with the top-level functions and classes those call that no other part needs
(a student's own ``Node`` class or ``score`` helper). It is normalised and
fingerprinted by :mod:`.winnow`: docstrings, comments, type annotations and formatting
go, every name the code binds itself is renamed (the names it only reads, ``math``,
``TreeNode``, ``node.untried``, stay: the exercise fixes them), and its tokens are
winnowed in the style of MOSS (Schleimer, Wilkerson and Aiken 2003, "Winnowing: local
algorithms for document fingerprinting"; k-grams of ``K = 5`` tokens, windows of ``W = 4``).
The fingerprints of the code the student edition gives everyone (the stubs: their
signatures) are left out, as MOSS does with base code. The similarity of two parts is the
Jaccard index of their fingerprint sets; at least :data:`THRESHOLD` flags them. Parts with
fewer than :data:`MIN_FINGERPRINTS` fingerprints of their own are too short to tell
copying from the one natural way to write them (``ucb1`` is one line of formula) and are
not compared.

Flags (in ``row["copies"]``, written into ``grades.csv``'s flags column and the report,
never into the score): ``matches-reference`` for a submission with a part at least
:data:`THRESHOLD` similar to the reference solution's (1.0: the reference, renamed,
reformatted or re-commented), ``similar:<other>`` for each other submission with a part
at least :data:`THRESHOLD` similar (or the same bytes: the whole file); two parts that are
both like the reference are not paired again (the reference explains them).
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .catalogue import EXERCISES, Exercise
from .winnow import fingerprint, normalise, tokens

__all__ = [
    "MIN_FINGERPRINTS",
    "THRESHOLD",
    "WHOLE_FILE",
    "Fingerprint",
    "attach_copies",
    "copy_flags",
    "definitions",
    "part_code",
    "reference_parts",
    "similarity",
]

THRESHOLD = 0.7
"""Jaccard similarity of two parts' fingerprints from which they are flagged. tests/test_grader_copies.py: the
course's agents and parts written in different styles are at most 0.51 alike (``expand`` as a student writes it
against the reference's; 0.49: a notebook 12 that takes two of its four functions from the skeleton as written;
the others at most 0.35), 0.19 below it; a renamed, reformatted, re-commented copy is 1.0, and one whose methods
are also reordered, with a line added, 0.99."""
MIN_FINGERPRINTS = 20
"""Parts with fewer fingerprints than this (after the stubs' are removed) are not compared."""
WHOLE_FILE = "(whole file)"
"""The part named for two submissions whose files are the same bytes."""


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else str(source)
    # IPython's magics and shell escapes are not Python: left out (they define nothing).
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


_DEFINES = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s", re.MULTILINE)


def definitions(cells: Iterable[dict]) -> dict[str, ast.stmt]:
    """Each top-level function or class of the code cells, by name: the last definition wins (as in a kernel)."""
    found: dict[str, ast.stmt] = {}
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _source(cell)
        if not _DEFINES.search(source):
            continue  # parsing is the cost here: a cell that defines nothing is not parsed
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found[node.name] = node
    return found


def _read(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def part_code(defined: dict[str, ast.stmt], needs: Iterable[str], others: Iterable[str] = ()) -> list[ast.stmt]:
    """The definitions of a part: those of ``needs``, then the top-level helpers they read, transitively.

    Args:
        defined: the notebook's top-level definitions (:func:`definitions`).
        needs: the names the part defines, in order.
        others: names other parts need (their code is theirs, not this part's helper).

    Returns:
        The definitions (:mod:`ast` nodes), the needed ones first; empty when none is defined.
    """
    skip = set(others) - set(needs)
    order = [n for n in needs if n in defined]
    queue = list(order)
    while queue:
        for name in _read(defined[queue.pop(0)]):
            if name in defined and name not in order and name not in skip:
                order.append(name)
                queue.append(name)
    return [defined[name] for name in order]


@dataclass(frozen=True)
class Fingerprint:
    """One part of one submission, ready to compare.

    Attributes:
        canonical: its tokens, bound names renamed by first use (:class:`_Rename`; equal: the same code renamed).
        prints: its winnowed fingerprints, the stubs' left out.
    """

    canonical: tuple[str, ...]
    prints: frozenset[int]

    @property
    def comparable(self) -> bool:
        """Long enough to tell a copy from the one natural way of writing it (:data:`MIN_FINGERPRINTS`)."""
        return len(self.prints) >= MIN_FINGERPRINTS


def similarity(a: Fingerprint | frozenset[int], b: Fingerprint | frozenset[int]) -> float:
    """The Jaccard index of two fingerprint sets (0 when both are empty); 1.0 for canonically equal code."""
    if isinstance(a, Fingerprint) and isinstance(b, Fingerprint) and a.canonical and a.canonical == b.canonical:
        return 1.0
    x = a.prints if isinstance(a, Fingerprint) else a
    y = b.prints if isinstance(b, Fingerprint) else b
    return len(x & y) / len(x | y) if x | y else 0.0


def _fingerprint(definitions: list[ast.stmt], base: frozenset[int]) -> Fingerprint | None:
    if not definitions:
        return None
    canonical, plain = tokens(definitions)
    return Fingerprint(tuple(canonical), fingerprint(plain) - base)


def _notebook(key: str, folder: Path | None) -> dict | None:
    from ..editions import NOTEBOOKS  # the instructor edition, installed with the package

    for path in sorted((folder or NOTEBOOKS).glob(f"{key}_*.ipynb")):
        return json.loads(path.read_text(encoding="utf-8"))
    return None


def _tags(cell: dict) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return [tags.lower()] if isinstance(tags, str) else [str(t).lower() for t in tags]


@dataclass(frozen=True)
class Reference:
    """An exercise's published reference solution: its parts' fingerprints, and the stubs' (left out of all)."""

    parts: dict[str, Fingerprint | None]
    base: frozenset[int]


def reference_parts(exercise: Exercise, folder: Path | None = None) -> Reference:
    """The reference solution of ``exercise`` from the instructor edition of its notebook (``folder``: elsewhere).

    The base code is every code cell the student edition keeps (the stubs, the skeleton); the
    reference is the notebook's code as the instructor edition runs it (its solutions win).
    """
    notebook = _notebook(exercise.key, folder)
    if notebook is None:
        return Reference({p.name: None for p in exercise.parts}, frozenset())
    cells = [c for c in notebook.get("cells", []) if isinstance(c, dict)]
    base: set[int] = set()
    for cell in cells:
        if cell.get("cell_type") == "code" and "solution" not in _tags(cell):
            try:
                base |= fingerprint(normalise(_source(cell)))
            except (SyntaxError, ValueError):
                continue
    base_prints = frozenset(base)
    names = exercise.names
    defined = definitions(cells)
    parts = {p.name: _fingerprint(part_code(defined, p.needs, names), base_prints) for p in exercise.parts}
    return Reference(parts, base_prints)


def _submission_parts(cells: list, exercise: Exercise, base: frozenset[int]) -> dict[str, Fingerprint]:
    out = {}
    defined = definitions(cells)
    for part in exercise.parts:
        try:
            found = _fingerprint(part_code(defined, part.needs, exercise.names), base)
        except (SyntaxError, ValueError, RecursionError):
            continue
        if found is not None and found.comparable:
            out[part.name] = found
    return out


def _flag_name(submission: str) -> str:
    """``similar:<other>`` keeps the flags column split by spaces: whitespace in a name is written ``%20``."""
    return re.sub(r"\s", lambda m: f"%{ord(m.group()):02X}", submission)


def copy_flags(entry: dict) -> list[str]:
    """The flags of ``row["copies"]``: ``matches-reference``, then ``similar:<other>`` for each other, sorted."""
    flags = ["matches-reference"] if entry.get("reference") else []
    others = sorted({pair["other"] for pair in entry.get("similar", [])})
    return flags + [f"similar:{_flag_name(other)}" for other in others]


def attach_copies(rows: list[dict], folder: Path, references: dict[str, Reference] | None = None) -> list[dict]:
    """Set ``row["copies"]`` of every row: the parts like the reference, and the similar submissions.

    ``row["copies"]`` is ``{"reference": {part: similarity}, "similar": [{"other", "part",
    "similarity"}]}``. Scores are not touched. A submission that cannot be read again (gone
    since it was graded) is compared by its bytes' hash only.

    Args:
        rows: the graded rows (``submission`` relative to ``folder``, ``exercise``, ``sha256``).
        folder: the submissions folder.
        references: the exercises' references (default: from the instructor edition, :func:`reference_parts`).

    Returns:
        ``rows`` (the same dicts).
    """
    from .run import Unreadable, read_submission

    if references is None:
        used = {row.get("exercise") for row in rows}
        references = {key: reference_parts(EXERCISES[key]) for key in EXERCISES if key in used}
    prints: dict[str, dict[str, Fingerprint]] = {}
    for row in rows:
        row["copies"] = {"reference": {}, "similar": []}
        key = row.get("exercise")
        if key not in references or "unreadable" in (row.get("flags") or ""):
            continue
        reference = references[key]
        try:
            cells = read_submission(folder / row["submission"])["cells"]
            mine = prints[row["submission"]] = _submission_parts(cells, EXERCISES[key], reference.base)
        except (Unreadable, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # gone since graded, or code too deep to parse: compared by its bytes only
        for part, found in mine.items():
            theirs = reference.parts.get(part)
            if theirs is not None and (score := similarity(found, theirs)) >= THRESHOLD:
                row["copies"]["reference"][part] = round(score, 2)
    by_name = {row["submission"]: row for row in rows}
    for a, b in itertools.combinations(sorted(by_name), 2):
        ra, rb = by_name[a], by_name[b]
        pairs = []
        if ra.get("sha256") and ra.get("sha256") == rb.get("sha256"):
            pairs.append((WHOLE_FILE, 1.0))
        elif ra.get("exercise") == rb.get("exercise") and a in prints and b in prints:
            for part in prints[a].keys() & prints[b].keys():
                if part in ra["copies"]["reference"] and part in rb["copies"]["reference"]:
                    continue  # both like the reference: matches-reference says where it came from
                score = similarity(prints[a][part], prints[b][part])
                if score >= THRESHOLD:
                    pairs.append((part, round(score, 2)))
        for part, score in sorted(pairs):
            ra["copies"]["similar"].append({"other": b, "part": part, "similarity": score})
            rb["copies"]["similar"].append({"other": a, "part": part, "similarity": score})
    return rows
