"""Grade a made-up class of notebook 04b in one ``python -m mctslab grade`` run; print what each earned.

Issue 36's "done when": at least 60 submissions built from the student edition (the tests'
own students): correct ones in two styles (the notebook's solutions; the loops student of
``tests/class_of_students.py``, plain and with its names changed), one-slip ones, the stubs
as given, empty and malformed files, a correct 04b renamed ``hw-12.ipynb``, names that differ
only by space, underscore, case or script, byte-identical pairs, hostile cells (an endless
loop, a kernel that kills itself, 30 GB asked for, patches of the checks), and every attack of
``tests/test_grader_attacks.py`` with the slipped submission it is added to. It prints, for
each submission, the marks expected and given, the flags, then the attacks that paid (an
attacked submission earning more than the same submission without the attack, in any part),
the wall and CPU time of the run (the grader and every process it waited for: its workers,
their kernels) and of a rerun with nothing new.

Usage (from a checkout, the test extra installed)::

    python tools/class_run.py [--workers 2] [--keep FOLDER]

A correct 04b takes 2-3 s of CPU: the class takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import class_of_students as styles  # noqa: E402
from test_grader import PATCHES, _stubs_with, _student  # noqa: E402
from test_grader_attacks import ATTACKS, SLIPS, _submission  # noqa: E402

from mctslab.course.grader.batch import results_path  # noqa: E402
from mctslab.course.grader.points import POINTS  # noqa: E402

NAME = "04b_write_uct_yourself.ipynb"
FULL = POINTS["04b"]
PARTS = tuple(FULL)


def _loops(renamed: bool = False, **slips: object) -> dict:
    """04b written by the loops student: ``select``... are ``class_of_students``' ``l_*`` functions (or ``slips``)."""
    replace = {}
    for part in ("select", "expand", "simulate", "backpropagate"):
        function = slips.get(part, getattr(styles, f"l_{part}"))
        source = inspect.getsource(function)
        source = re.sub(r"def \w+\(", f"def {part}(", source, count=1).replace("_ucb(", "ucb1(")
        source = source.replace("l_simulate(", "simulate(")
        if renamed:  # the same code, other names: what two students who worked together hand in
            source = re.sub(r"\bnode\b", "vertex", source).replace("returns", "outcome")
        replace[part] = source
    notebook = _student()
    for cell in notebook["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        match = re.match(r"def (\w+)\(", text)
        if cell["cell_type"] == "code" and match and match.group(1) in replace:
            cell["source"] = replace[match.group(1)]
    return notebook


def _expect(less: tuple[str, ...] = (), zero: tuple[str, ...] = (), loose: tuple[str, ...] = ()) -> dict:
    """Each part's expected marks: ``full``, ``less`` (some lost), ``zero``, or ``any`` (``loose``)."""
    return {p: "zero" if p in zero else "less" if p in less else "any" if p in loose else "full" for p in PARTS}


def build(folder: Path) -> dict[str, dict]:
    """Write the class under ``folder``; return each submission's (relative path) expectations."""
    expected: dict[str, dict] = {}

    def save(name: str, notebook: dict | bytes | str, expect: dict, file: str = NAME) -> None:
        path = folder / name / file
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(notebook, dict):
            path.write_text(json.dumps(notebook))
        elif isinstance(notebook, bytes):
            path.write_bytes(notebook)
        else:
            path.write_text(notebook)
        expected[f"{name}/{file}"] = expect

    full, nothing = _expect(), _expect(zero=PARTS)
    for k in range(6):  # the notebook's own solutions: byte-identical pairs, and the reference itself
        save(f"solutions_{k}", _student(), full)
    for k in range(6):  # the loops student: three pairs, each pair the same code
        save(f"loops_{k}", _loops(renamed=k >= 4), full)
    for k in range(8):  # the loops student, one name changed apiece
        notebook = _loops()
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code" and "def ucb1" in "".join(cell["source"]):
                cell["source"] = "".join(cell["source"]).replace("parent_visits", f"total_{k}")
        save(f"loops_named_{k}", notebook, full)
    slips = {
        "select_past_untried": ({"select": styles.l_select_past_untried}, ("select",)),
        "select_root_visits": ({"select": styles.l_select_root_visits}, ("select",)),
        "expand_keeps_move": ({"expand": styles.l_expand_keeps_move}, ("expand",)),
        "expand_returns_parent": ({"expand": styles.l_expand_returns_parent}, ("expand",)),
        "backpropagate_to_move": ({"backpropagate": styles.l_backpropagate_to_move}, ("backpropagate",)),
        "simulate_draw_loss": ({"simulate": styles.l_simulate_draw_loss}, ("simulate",)),
    }
    for name, (slip, parts) in slips.items():
        save(f"slip_{name}", _loops(**slip), _expect(less=parts, loose=("uct",)))
    save("slip_sign", _student({"backpropagate": ("returns[node.player]", "returns[1 - node.player]")}),
         _expect(less=("backpropagate",), loose=("uct",)))  # fmt: skip
    save("slip_root_never_counted", _student({"backpropagate": ("while node is not None:",
                                                                "while node.parent is not None:")}),
         _expect(less=("backpropagate",), loose=("uct",)))  # fmt: skip
    save("slip_ucb1_no_exploration", _student({"ucb1": ("wins / visits +", "wins / visits + 0 *")}),
         _expect(less=("ucb1",), loose=("uct",)))  # fmt: skip
    subclass = "from mctslab import UCT\n\n\nclass MyUCT(UCT):\n    pass\n"
    save("uses_the_package_uct", _student({"MyUCT": ("class MyUCT:", "class _Mine:")}, {"MyUCT": subclass}),
         _expect(zero=("uct",)))  # fmt: skip
    save("stubs_as_given", _submission(), nothing)
    save("patches_checks", _stubs_with(PATCHES), nothing)
    save("loops_forever", _student(extra={"ucb1": "while True:\n    pass\n"}), full)
    save("kills_its_kernel", _student(extra={"simulate": "import os\n\nos.kill(os.getpid(), 9)\n"}), full)
    save("allocates_30GB", _student(extra={"ucb1": "big = bytearray(30 * 2**30)\nbig[-1] = 1\n"}), full)
    for name, text in {"empty_file": b"", "a_list": "[1, 2, 3]", "a_string": '"notebook"', "null": "null",
                       "cells_not_cells": '{"cells": [1, 2]}', "not_utf8": b"\xff\xfe\x00{",
                       "truncated": json.dumps(_student())[:5000]}.items():  # fmt: skip
        save(f"malformed_{name}", text, nothing)
    save("renamed", _student(), full, file="hw-12.ipynb")
    for name in ("alice smith", "alice_smith", "Alice Smith", "alice-smith", "张三", "李四"):
        save(name, _student(), full)
    save("attack_none", _submission(SLIPS), _expect(loose=PARTS))
    for attack, cell in ATTACKS.items():
        save(f"attack_{attack}", _submission(SLIPS, cell), _expect(loose=PARTS))
    return expected


def _grade(folder: Path, out: Path, workers: int) -> tuple[float, float]:
    """Run ``python -m mctslab grade`` once; its wall and CPU seconds (it and every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    command = [sys.executable, "-m", "mctslab", "grade", str(folder), "--out", str(out), "--workers", str(workers),
               "--html", str(out.parent / "report"), "--no-progress"]  # fmt: skip
    subprocess.run(command, check=True, cwd=out.parent)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return time.perf_counter() - began, cpu


def _verdict(want: str, got: float, full: float) -> bool:
    return {"full": got == full, "zero": got == 0, "less": got < full, "any": True}[want]


def main() -> int:
    """Build, grade, grade again; print the table. Exit status 1 when a mark or an attack is not as expected."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="build and grade here, and keep it")
    options = parser.parse_args()
    base = options.keep or Path(tempfile.mkdtemp(prefix="mctslab-class-"))
    folder, out = base / "submissions", base / "grades.csv"
    shutil.rmtree(folder, ignore_errors=True)
    expected = build(folder)
    print(f"{len(expected)} submissions in {folder}")
    wall, cpu = _grade(folder, out, options.workers)
    again_wall, again_cpu = _grade(folder, out, options.workers)
    rows = {}
    for line in results_path(out).read_text().splitlines():
        row = json.loads(line)
        rows[row["submission"]] = row  # the last line of each is its result
    copies = {}
    with out.open() as handle:
        for row in csv.DictReader(handle):
            copies[row["submission"]] = row.get("flags", "")
    wrong = paid = 0
    print(f"\n{'submission':44s} {'expected':18s} {'given':>6s}  flags")
    for key in sorted(expected):
        row = rows.get(key)
        want = expected[key]
        if row is None:
            print(f"{key:44s} {'(no row)':18s}")
            wrong += 1
            continue
        points = row.get("points") or {}
        bad = [p for p in PARTS if not _verdict(want[p], float(points.get(p, 0.0)), float(FULL[p]))]
        shown = "full" if set(want.values()) == {"full"} else "0" if set(want.values()) == {"zero"} else ",".join(
            f"{p}:{w}" for p, w in want.items() if w != "full")  # fmt: skip
        if key.startswith("attack_") and key != "attack_none/" + NAME:
            plain = rows["attack_none/" + NAME]["points"]
            bad += [f"{p} paid" for p in PARTS if points.get(p, 0.0) > plain.get(p, 0.0)]
            paid += any(points.get(p, 0.0) > plain.get(p, 0.0) for p in PARTS)
            shown = "as attack_none"
        wrong += bool(bad)
        mark = "" if not bad else "  <-- " + ", ".join(bad)
        print(f"{key[:44]:44s} {shown[:18]:18s} {row.get('score', 0):6.1f}  {copies.get(key, '')}{mark}")
    print(f"\n{len(expected)} submissions; {wrong} not as expected; attacks paid: {paid} of {len(ATTACKS)}")
    print(f"grading: {wall:.1f} s wall, {cpu:.1f} s CPU ({options.workers} workers); "
          f"rerun with nothing new: {again_wall:.1f} s wall, {again_cpu:.1f} s CPU")  # fmt: skip
    if options.keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
