"""Regrade by design (issue 36, item 6): ``--points FILE``, results keyed by fingerprints, ``--only PATTERN``.

A change of points or partial-credit policy marks every submission again from its stored
reports (no kernel); a change of the checks, the package's version or a submission's bytes
grades it again; ``--only`` grades again just the matches and keeps the other rows. A bad
points file is one line before anything is graded. The grader runs kernels once here, on two
submissions (one with two parts written, one that is not a notebook and needs no kernel); the
later runs reuse those results.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from mctslab.course.grader.batch import grade_folder, plan, results_path
from mctslab.course.grader.sandbox import Limits
from mctslab.course.grader.scheme import (
    Scheme,
    checks_digest,
    default_scheme,
    fingerprint,
    load_scheme,
    run_key,
)

SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")
IMPORTS = "import math\nfrom statistics import NormalDist\n\nfrom mctslab.ucb import SQRT2\n"
UCB1 = """
def ucb1(wins, visits, parent_visits, c=SQRT2):
    if visits == 0:
        return {unvisited}
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)
"""
WILSON = """
def wilson(successes, n, z=1.96):
    p, z2n = successes / n, z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    return (max(0.0, centre - half), min(1.0, centre + half))
"""
SUBMISSIONS = {  # a: ucb1 passes 1 of its 2 checks (an unvisited child worth 0), wilson all; b: not a notebook
    "a/04b.ipynb": [IMPORTS, UCB1.format(unvisited="0.0"), WILSON],
    "b/04b.ipynb": None,
}
SCHEME = """\
partial_credit = false
[points.04b]
ucb1 = 30
wilson = 5
"""


def _notebook(sources: list[str]) -> str:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s}
             for s in sources]  # fmt: skip
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _folder(base: Path) -> Path:
    folder = base / "submissions"
    for name, sources in SUBMISSIONS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(_notebook(sources) if sources else "[]")
    return folder


def _canned(path: str, root: str, *args) -> dict:  # noqa: ANN002 - stands in for batch._work: no kernel
    """A row made without grading, so that the test sees which submissions the run sent to a worker."""
    return {"submission": str(Path(path).relative_to(root)), "exercise": "04b", "points": {}, "reports": {},
            "score": 0.0, "max_score": 0.0, "flags": "", "seconds": 0.0, "canned": True}  # fmt: skip


def _scores(out: Path) -> dict[str, tuple[str, str]]:
    with out.open(encoding="utf-8") as handle:
        return {r["submission"]: (r["score"], r["max_score"]) for r in csv.DictReader(handle)}


def test_points_policy_and_only_regrade_what_they_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mctslab.course.grader import batch

    folder, out = _folder(tmp_path), tmp_path / "out" / "grades.csv"
    points = tmp_path / "points.toml"
    points.write_text(SCHEME)

    def run(scheme: Scheme | None = None, only: tuple[str, ...] = ()) -> tuple[dict[str, dict], list[str]]:
        lines: list[str] = []
        rows = grade_folder(folder, out, workers=2, limits=Limits(cell=4, notebook=12), sandbox=SANDBOX,
                            progress=False, say=lines.append, scheme=scheme, only=only)  # fmt: skip
        return {row["submission"]: row for row in rows}, lines

    first, _ = run()  # the package's points: ucb1 10, wilson 10, partial credit weighted by severity
    a = first["a/04b.ipynb"]  # ucb1's formula (weight 3) passes, its unvisited child (weight 2) fails: 3/5 of 10
    assert (a["score"], a["points"]["ucb1"], a["points"]["wilson"]) == (16.0, 6.0, 10.0), a
    assert _scores(out) == {"a/04b.ipynb": ("16.0", "100.0"), "b/04b.ipynb": ("0.0", "100.0")}

    monkeypatch.setattr(batch, "_work", _canned)  # from here on, a submission sent to a worker comes back canned
    again, lines = run()
    assert "resuming: 2 of 2" in lines[1] and not any(r.get("canned") for r in again.values()), lines

    marked, lines = run(load_scheme(points))  # other points, no partial credit: marked again, no kernel
    assert any(line.startswith("marking 2 submissions again under") for line in lines), lines
    assert not any(r.get("canned") for r in marked.values())
    assert _scores(out) == {"a/04b.ipynb": ("5.0", "115.0"), "b/04b.ipynb": ("0.0", "115.0")}
    assert marked["a/04b.ipynb"]["cpu_seconds"] == a["cpu_seconds"]  # the same run's
    _, lines = run(load_scheme(points))
    assert not any(line.startswith("marking") for line in lines), lines  # the new marks were kept

    only, lines = run(load_scheme(points), only=("a/*",))  # a graded again, b's row kept
    assert only["a/04b.ipynb"].get("canned") and not only["b/04b.ipynb"].get("canned"), lines
    assert _scores(out)["b/04b.ipynb"] == ("0.0", "115.0")
    assert any(line.startswith("--only: grading 1 of 2") for line in lines), lines
    assert len(results_path(out).read_text().splitlines()) == 2 + 2 + 1  # graded, marked again, a again


def test_a_change_of_checks_version_or_bytes_grades_again_and_of_points_marks_again(monkeypatch) -> None:
    from importlib import metadata

    scheme, other = default_scheme(), load_scheme_text("[points.04b]\nucb1 = 11\n")
    checks = checks_digest()
    digests = {"a.ipynb": "1" * 64, "b.ipynb": "2" * 64, "c.ipynb": "3" * 64}
    done = {}
    for key, digest in digests.items():
        key_run = run_key(checks, digest)
        done[key] = {"submission": key, "run_key": key_run, "fingerprint": fingerprint(key_run, scheme)}
    assert plan(digests, done, checks, scheme) == ([], [], [], [])
    assert plan(digests, done, checks, other) == ([], sorted(digests), [], [])
    assert plan(digests, done, "other checks", scheme) == (sorted(digests), [], [], [])
    assert plan({**digests, "b.ipynb": "9" * 64}, done, checks, scheme) == (["b.ipynb"], [], [], [])
    assert plan({**digests, "d.ipynb": "4" * 64}, done, checks, scheme) == (["d.ipynb"], [], [], [])
    new = {**digests, "d.ipynb": "4" * 64}
    assert plan(new, done, checks, other, only=("a*",)) == (["a.ipynb"], [], ["b.ipynb", "c.ipynb"], ["d.ipynb"])
    assert plan(digests, done, checks, scheme, only=("a*", "c*")) == (["a.ipynb", "c.ipynb"], [], [], [])
    monkeypatch.setattr(metadata, "version", lambda name: "99.0")  # another version of the package
    assert checks_digest() != checks


def load_scheme_text(text: str) -> Scheme:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "points.toml"
        path.write_text(text)
        return load_scheme(path)


def test_the_package_scheme_and_a_file_leaving_parts_out() -> None:
    from mctslab.course.grader.points import PARTIAL_CREDIT, POINTS

    assert default_scheme().points == {k: {p: float(v) for p, v in parts.items()} for k, parts in POINTS.items()}
    assert default_scheme().partial_credit is PARTIAL_CREDIT
    scheme = load_scheme_text(SCHEME)
    assert scheme.partial_credit is False and scheme.points["04b"]["ucb1"] == 30 and scheme.points["04b"]["uct"] == 25
    assert scheme.points["12"] == {"chance_uct": 100.0}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[points.04c]\nucb1 = 1\n", "unknown exercise '04c'; known: 04b, 12"),
        ("[points.04b]\nucb = 1\n", "unknown part 'ucb' of exercise 04b; known: ucb1, select"),
        ("[points.04b]\nucb1 = -1\n", "points.04b.ucb1 = -1 is not a number >= 0"),
        ("[points.04b]\nucb1 = nan\n", "points.04b.ucb1 = nan is not a number >= 0"),
        ('[points.04b]\nucb1 = "ten"\n', "points.04b.ucb1 = 'ten' is not a number >= 0"),
        ("[points.04b]\nucb1 = true\n", "points.04b.ucb1 = True is not a number >= 0"),
        ('partial_credit = "yes"\n', "partial_credit = 'yes' is not true or false"),
        ("partial = true\n", "unknown key 'partial'; allowed: partial_credit, points"),
        ("points = 3\n", "points is not a table of exercises"),
        ("[points]\n04b = 3\n", "points.04b is not a table of parts"),
        ("[points.04b\nucb1 = 1\n", "not TOML: "),
        (None, "cannot be read: No such file or directory"),
    ],
)
def test_a_bad_points_file_is_one_line_before_any_grading(tmp_path, capsys, text, says) -> None:
    from test_fuzz_course_tools import one_line_error

    folder = _folder(tmp_path)
    points = tmp_path / "points.toml"
    if text is not None:
        points.write_text(text)
    out = tmp_path / "grades.csv"
    line = one_line_error(capsys, ["grade", str(folder), "--out", str(out), "--points", str(points)])
    assert f"--points {points}: {says}" in line, line
    assert not out.exists() and not results_path(out).exists()


def test_only_matching_nothing_is_one_line_before_any_grading(tmp_path, capsys) -> None:
    from test_fuzz_course_tools import one_line_error

    folder, out = _folder(tmp_path), tmp_path / "grades.csv"
    line = one_line_error(capsys, ["grade", str(folder), "--out", str(out), "--only", "c/*"])
    assert "--only 'c/*' matches none of the 2 submissions" in line, line
    assert not out.exists() and not results_path(out).exists()
