"""The marking scheme of a run (points and partial-credit policy) and the fingerprints that make a rerun regrade.

The instructor's scheme is a TOML file given with ``--points FILE``; without one, the
package's :mod:`.points` is used. The file names the policy and, per exercise, the points
of the parts it changes (a part left out keeps the package's points)::

    partial_credit = false      # a part earns its points only when all its checks pass

    [points.04b]
    ucb1 = 5
    uct = 30

    [points.12]
    chance_uct = 50

Each result is kept with two fingerprints (:func:`run_key`, :func:`fingerprint`): the
submission's bytes, the checks' source (the exercise checks and the grader's own code that
runs and marks them) and the package's version; and those with the scheme. A rerun grades
again, in a kernel, a submission whose run key changed; it marks again, from the stored
check reports (no kernel), one whose scheme alone changed; it reuses only what matches both.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

from . import points as package_points
from .catalogue import EXERCISES, Exercise

__all__ = ["Scheme", "checks_digest", "default_scheme", "fingerprint", "load_scheme", "run_key"]


@dataclass(frozen=True)
class Scheme:
    """Points per exercise and part, and the partial-credit policy.

    Attributes:
        points: ``points[exercise][part]``, what a fully correct part earns (every part of every exercise).
        partial_credit: whether a part whose checks pass only in part earns the weighted share of its
            points that passed (see :func:`.points.share`).
        source: where it comes from (``"the package's points.py"`` or the file's path), for messages.
    """

    points: dict[str, dict[str, float]]
    partial_credit: bool
    source: str = "the package's points.py"

    def of(self, exercise: Exercise) -> dict[str, float]:
        """The points of ``exercise``'s parts, in the order they are checked."""
        return {part.name: float(self.points[exercise.key][part.name]) for part in exercise.parts}

    def digest(self) -> str:
        """A hash of the points and the policy (not of where they come from)."""
        text = json.dumps({"points": self.points, "partial_credit": self.partial_credit}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def default_scheme() -> Scheme:
    """The package's scheme: :data:`.points.POINTS` and :data:`.points.PARTIAL_CREDIT`."""
    table = {key: {p.name: float(package_points.POINTS[key][p.name]) for p in e.parts} for key, e in EXERCISES.items()}
    return Scheme(table, bool(package_points.PARTIAL_CREDIT))


def _toml(path: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            raise ValueError("--points needs Python 3.11 or the tomli package: pip install tomli") from None
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"--points {path}: cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ValueError(f"--points {path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"--points {path}: not TOML: {error}") from None


def load_scheme(path: Path, extras: dict[str, tuple[str, ...]] | None = None) -> Scheme:
    """The scheme in the instructor's TOML file (see the module's docstring); the package's for what it leaves out.

    Args:
        path: the TOML file.
        extras: per exercise, the instructor's extra checks (:meth:`.extras.Extras.names`): parts
            the file may give points to, and must (they have no points in the package).

    Raises:
        ValueError: (one line) for a file that cannot be read or is not TOML, an unknown key,
            exercise or part, points that are not a number >= 0, a policy that is not true/false,
            or an extra check given no points.
    """
    data = _toml(path)
    scheme = default_scheme()
    table: dict[str, dict] = {key: dict(parts) for key, parts in scheme.points.items()}
    for key, names in (extras or {}).items():
        table[key].update(dict.fromkeys(names))  # None until the file gives their points
    for key in data:
        if key not in ("points", "partial_credit"):
            raise ValueError(f"--points {path}: unknown key {key!r}; allowed: partial_credit, points")
    partial = data.get("partial_credit", scheme.partial_credit)
    if not isinstance(partial, bool):
        raise ValueError(f"--points {path}: partial_credit = {partial!r} is not true or false")
    given = data.get("points", {})
    if not isinstance(given, dict):
        raise ValueError(f"--points {path}: points is not a table of exercises ([points.04b])")
    for exercise, parts in given.items():
        if exercise not in table:
            raise ValueError(f"--points {path}: unknown exercise {exercise!r}; known: {', '.join(table)}")
        if not isinstance(parts, dict):
            raise ValueError(f"--points {path}: points.{exercise} is not a table of parts (ucb1 = 10)")
        for part, value in parts.items():
            if part not in table[exercise]:
                known = ", ".join(table[exercise])
                raise ValueError(f"--points {path}: unknown part {part!r} of exercise {exercise}; known: {known}")
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or value < 0:
                raise ValueError(f"--points {path}: points.{exercise}.{part} = {value!r} is not a number >= 0")
            table[exercise][part] = float(value)
    unpointed = [(key, part) for key, parts in table.items() for part, value in parts.items() if value is None]
    if unpointed:
        key, part = unpointed[0]
        names = ", ".join(part for _, part in unpointed)
        raise ValueError(
            f"--points {path}: no points for the extra checks {names}: add e.g. {part} = 5 under [points.{key}]"
        )
    return Scheme(table, partial, str(path))


_CHECKED = ("exercises", "grader/catalogue.py", "grader/cells.py", "grader/extras.py", "grader/run.py")
"""What decides a verdict, under ``mctslab/course/``: the exercise checks, and the grader's code that runs them."""


def checks_digest() -> str:
    """A hash of the checks' source (:data:`_CHECKED`) and the package's version."""
    from importlib import metadata

    course = Path(__file__).resolve().parents[1]
    hashed = hashlib.sha256()
    try:
        hashed.update(metadata.version("mctslab").encode())
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed: the source alone
        pass
    for where in _CHECKED:
        found = sorted((course / where).rglob("*.py")) if (course / where).is_dir() else [course / where]
        for path in found:
            hashed.update(str(path.relative_to(course)).encode() + b"\0" + path.read_bytes())
    return hashed.hexdigest()


def run_key(checks: str, submission_sha256: str) -> str:
    """What a kernel's verdicts depend on: the checks (:func:`checks_digest`) and the submission's bytes."""
    return hashlib.sha256(f"{checks}:{submission_sha256}".encode()).hexdigest()


def fingerprint(run: str, scheme: Scheme) -> str:
    """What a row's marks depend on: its :func:`run_key` and the scheme."""
    return hashlib.sha256(f"{run}:{scheme.digest()}".encode()).hexdigest()
