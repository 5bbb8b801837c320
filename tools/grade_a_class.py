"""Grade a class the way an instructor meets one, and say whether every submission got what it deserves.

Usage::

    python tools/grade_a_class.py OUT              # the class: ~70 submissions of every kind
    python tools/grade_a_class.py OUT --correct 100  # 100 correct 04b submissions (the timing of issue 36)

Builds ``OUT/submissions`` from the instructor edition of notebook 04b (and 12): correct work in
five styles (the reference's, and the test class's four students: classes, loops, recursion,
dicts; none of them the reference's code), one slip in each part, the student edition as given
(nothing written), files that are not notebooks, a notebook under another name, names that
differ only by space, case or script, byte-identical pairs, submissions that attack the
machine (the sandbox's) and every in-kernel attack on the grader of ``tests/test_grader_attacks.py``.
Each submission carries what it should earn: a correct one every point; a slip fewer, with
its part below full marks; an attack exactly what the same submission earns without it.
It then runs ``python -m mctslab grade`` once, prints the table of expected against given
marks and the flags, the wall and CPU time (the grader's processes, and the kernels as the grader measured them),
and runs it again with nothing new (the rerun's time). Exit status 1 if any submission got
what it should not.

The submissions are built with the tests' own helpers (``tests/test_grader.py``,
``tests/class_of_students.py``), so this runs from a checkout, not an installed wheel.
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import resource
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import class_of_students as cs  # noqa: E402
import test_exercise_blind_spots as blind  # noqa: E402
import test_exercise_uct_agent as classes  # noqa: E402
from test_grader import PATCHES, _fake_outputs, _student  # noqa: E402

try:
    from test_grader_attacks import ATTACKS, SLIPS  # noqa: E402
except ImportError:  # a checkout before the judge (issue 36 item 2)
    ATTACKS, SLIPS = {}, ""

FULL = "full"
"""Expected: every point."""


# -- styles: the agent cell (and the part functions) as four students write them ------------------
def _source(*objects: object) -> str:
    return "\n\n".join(textwrap.dedent(inspect.getsource(o)) for o in objects)


HEADER = (
    "from __future__ import annotations\n\n"
    "import math\nimport random\nfrom dataclasses import dataclass, field\nfrom typing import Any\n\n"
)

STYLES: dict[str, dict[str, str]] = {
    "classes": {"MyUCT": HEADER + _source(classes.Node, classes.score, classes.Student) + "\n\nMyUCT = Student\n"},
    "recursion": {"MyUCT": HEADER + _source(blind.Vertex, blind.RecursiveUCT) + "\n\nMyUCT = RecursiveUCT\n"},
    "dicts": {"MyUCT": HEADER + _source(cs.View, cs.PathUCT) + "\n\nMyUCT = PathUCT\n"},
    "loops": {
        "ucb1": _source(cs._ucb).replace("_ucb(", "ucb1(").replace(", c)", ", c=SQRT2)"),
        "select": _source(cs.l_select).replace("l_select(node, c)", "select(node, c=SQRT2)").replace("_ucb(", "ucb1("),
        "expand": _source(cs.l_expand).replace("def l_expand", "def expand"),
        "simulate": _source(cs.l_simulate).replace("def l_simulate", "def simulate"),
        "backpropagate": _source(cs.l_backpropagate).replace("def l_backpropagate", "def backpropagate"),
    },
}  # fmt: skip

AGENT_SLIPS = {
    "classes": (HEADER + _source(classes.Node, classes.score, classes.Student), [
        cs.SignSlip, cs.RootNeverCounted, cs.IfForWhile, cs.ReturnsTheNode, cs.OneTooMany, cs.DrawIsLoss,
        cs.PlayerOfChild, cs.Unseeded, cs.FirstMovePlayouts]),
    "dicts": (HEADER + _source(cs.View, cs.PathUCT), [
        cs.PathRootUncounted, cs.PathLogOfChild, cs.PathMostWins, cs.PathOneLevel, cs.PathUnseeded]),
    "recursion": (HEADER + _source(blind.Vertex, blind.RecursiveUCT), [
        cs.RecursionStopsAtOneLevel, cs.RecursiveTwoInside, cs.RecursiveWho, cs.RecursiveBudgetOfItsOwn]),
}  # fmt: skip
"""Each style's agent with one slip of the test class's (tests/class_of_students.py), as the MyUCT cell."""

SLIPS_04B = {
    "ucb1": ("ucb1", "math.log(parent_visits)", "math.log(visits)"),
    "select": ("select", "    while not node.untried", "    if not node.untried"),
    "backpropagate": ("backpropagate", "returns[node.player]", "returns[1 - node.player]"),
    "wilson": ("wilson", "z * z", "z"),
}


def _with_code(code: dict[str, str]) -> dict:
    """04b with the reference's code, the cells named in ``code`` replaced by the student's."""
    notebook = _student()
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        for name, text in code.items():
            if source.lstrip().startswith((f"def {name}(", f"class {name}:", f"class {name}(")):
                cell["source"] = text
    return notebook


def _edition() -> dict:
    """The student edition of 04b as given: stubs unwritten, solutions removed."""
    notebook = json.loads((ROOT / "notebooks" / "04b_write_uct_yourself.ipynb").read_text())
    notebook["cells"] = [c for c in notebook["cells"] if "solution" not in c["metadata"].get("tags", [])]
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return notebook


NOTEBOOK = "04b_write_uct_yourself.ipynb"


def _cell(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}


def _after_first_stub(notebook: dict, code: str) -> dict:
    at = next(i for i, c in enumerate(notebook["cells"]) if "def ucb1" in "".join(c["source"]))
    notebook["cells"].insert(at + 1, _cell(code))
    return notebook


def _attacked(attack: str) -> dict:
    """The attack tests' submission: the student edition, slips in ucb1 and wilson, then ``attack`` (if any)."""
    notebook = _edition()
    for source in (SLIPS, attack) if attack else (SLIPS,):
        notebook["cells"].append(_cell(source))
    return notebook


# -- the class ----------------------------------------------------------------------------------
Expect = Callable[[dict, dict], str | None]
"""(row, all rows by submission) -> None if the row is what the submission deserves, else why not."""


def full(row: dict, rows: dict) -> str | None:
    return None if float(row["score"]) == float(row["max_score"]) else f"{row['score']} of {row['max_score']}"


def zero(flag: str) -> Expect:
    def check(row: dict, rows: dict) -> str | None:
        flags = row.get("flags", "")
        if float(row["score"]) != 0:
            return f"scored {row['score']}"
        return None if flag in flags else f"no {flag} flag ({flags})"

    return check


def below_in(part: str) -> Expect:
    def check(row: dict, rows: dict) -> str | None:
        if float(row["score"]) >= float(row["max_score"]):
            return "full marks for a slip"
        return None if part in row and float(row[part] or 0) < _full_part(part) else f"{part} at {row.get(part)}"

    return check


def same_as(other: str, flag: str | None = None) -> Expect:
    def check(row: dict, rows: dict) -> str | None:
        base = rows.get(other)
        if base is None:
            return f"{other} not graded"
        if float(row["score"]) != float(base["score"]):
            return f"{row['score']} against {base['score']} without the attack: it paid"
        return None

    return check


def flagged(flag: str, then: Expect = full) -> Expect:
    def check(row: dict, rows: dict) -> str | None:
        if flag not in row.get("flags", ""):
            return f"no {flag} flag ({row.get('flags', '')})"
        return then(row, rows)

    return check


def _full_part(part: str) -> float:
    from mctslab.course.grader.points import POINTS

    return float(POINTS["04b"][part])


def build(folder: Path, correct: int | None) -> dict[str, Expect]:
    """Write the class under ``folder``; what each submission (its path under ``folder``) deserves."""
    expect: dict[str, Expect] = {}

    def save(name: str, notebook: dict | bytes | str, deserves: Expect, file: str = NOTEBOOK) -> None:
        path = folder / name / file
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(notebook, dict):
            path.write_text(json.dumps(notebook))
        elif isinstance(notebook, bytes):
            path.write_bytes(notebook)
        else:
            path.write_text(notebook)
        expect[f"{name}/{file}"] = deserves  # fmt: skip

    if correct is not None:
        for i in range(correct):
            style = ["reference", *STYLES][i % (len(STYLES) + 1)]
            save(f"student{i:03d}-{style}", _student() if style == "reference" else _with_code(STYLES[style]), full)
        return expect

    for style, code in STYLES.items():
        save(f"correct-{style}", _with_code(code), full)
        save(f"correct-{style}-twin", _with_code(code), flagged("similar"))  # a byte-identical pair
    save("correct-reference", _student(), flagged("matches-reference"))
    save("copied-outputs", _fake_outputs(_student()), full)  # outputs are never read
    save("renamed", _student(), full, file="hw-12.ipynb")  # a 04b under another notebook's name
    save("alice smith", _student(), full)
    save("alice_smith", _student({"wilson": ("z * z", "z")}), below_in("wilson"))
    save("Alice_Smith", _student(), full)
    save("张三", _student(), full)
    save("李四", _student({"ucb1": ("math.log(parent_visits)", "math.log(visits)")}), below_in("ucb1"))
    for part, (name, old, new) in SLIPS_04B.items():
        save(f"slip-{part}", _student({name: (old, new)}), below_in(part))
    root = ("while node is not None:", "while node.parent is not None:")
    save("slip-root-never-counted", _student({"backpropagate": root}), below_in("backpropagate"))
    for style, (base, slips) in AGENT_SLIPS.items():
        for slip in slips:
            code = base + "\n\n" + _source(slip) + f"\n\nMyUCT = {slip.__name__}\n"
            save(f"slip-{style}-{slip.__name__}", _with_code({"MyUCT": code}), below_in("uct"))
    save("nothing-written", _edition(), zero(""))
    save("not-json", b"\x89PNG\r\n\x1a\n not a notebook", zero("unreadable"))
    save("a-list", "[1, 2, 3]", zero("unreadable"))
    save("null", "null", zero("unreadable"))
    save("cells-of-numbers", '{"cells": [1, 2]}', zero("unreadable"))
    save("empty-file", "", zero("unreadable"))
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    save("nbformat-3-empty", v3, zero(""))
    # hostile toward the machine: each flagged, the rest of the notebook graded without the cell
    save("patches-checks", _fake_outputs(_after_first_stub(_edition(), PATCHES)), zero(""))
    save("sleeps", _student(extra={"select": "import time\ntime.sleep(10**6)\n"}), flagged("timeout"))
    save("loops-forever", _student(extra={"ucb1": "while True:\n    pass\n"}), flagged("timeout"))
    save("allocates-30GB", _student(extra={"ucb1": "big = bytearray(30 * 2**30)\nbig[-1] = 1\n"}), flagged("memory"))
    forks = (
        "import os, time\nfor _ in range(200):\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)\n"
    )
    save("forks-processes", _student(extra={"expand": forks}), flagged("processes"))
    fills = "for i in range(40):\n    open(f'f{i}', 'wb').write(bytes(2**24))\n"
    save("fills-the-disk", _student(extra={"simulate": fills}), flagged("disk"))
    save("kills-its-kernel", _student(extra={"simulate": "import os\nos.kill(os.getpid(), 9)\n"}), flagged("crashed"))
    hangs = 'import re\nre.match(r"(a+)+$", "a" * 64 + "b")\n'
    save("hangs-in-c", _student(extra={"expand": hangs}), flagged("timeout"))
    # in-kernel attacks on the grader: each earns what the same submission earns without it
    if ATTACKS:
        save("attack-base", _attacked(""), below_in("ucb1"))
        for name, code in ATTACKS.items():
            save(f"attack-{name}", _attacked(code), same_as("attack-base/04b_write_uct_yourself.ipynb"))
    return expect


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def kernels_cpu(out: Path) -> float:
    """CPU seconds of the kernels of the submissions graded so far, as the grader measured each (its ``/proc``
    readings of the kernel's process tree, in the results file): a kernel under bubblewrap is not a child the
    grader waits for, so ``getrusage`` leaves it out."""
    path = out / "grades.results.jsonl"
    if not path.exists():
        return 0.0
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(float(json.loads(line).get("cpu_seconds") or 0.0) for line in lines if line.strip())


def grade(folder: Path, out: Path, workers: int) -> tuple[float, float, float, list[dict]]:
    """Run the grader once; (wall seconds, CPU seconds of its processes, CPU seconds of the kernels it ran, rows)."""
    command = [sys.executable, "-m", "mctslab", "grade", str(folder), "--out", str(out / "grades.csv"),
               "--html", str(out / "report"), "--workers", str(workers), "--no-progress"]  # fmt: skip
    before, kernels, start = cpu_of_children(), kernels_cpu(out), time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall, cpu = time.monotonic() - start, cpu_of_children() - before
    if done.returncode != 0:
        sys.exit(f"the grader failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return wall, cpu, kernels_cpu(out) - kernels, list(csv.DictReader(handle))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="a folder to build the class in (emptied first)")
    parser.add_argument("--correct", type=int, help="only this many correct 04b submissions (timing)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    folder = args.out / "submissions"
    expect = build(folder, args.correct)
    wall, cpu, kernels, rows = grade(folder, args.out, args.workers)
    by = {row["submission"]: row for row in rows}
    wrong, attacks, paid = 0, 0, 0
    print(f"{'submission':<48} {'score':>7} {'max':>5}  {'verdict':<6} flags / why")
    for name, deserves in sorted(expect.items()):
        row = by.get(name)
        why = "no row" if row is None else deserves(row, by)
        wrong += why is not None
        if name.startswith("attack-") and name != "attack-base/04b_write_uct_yourself.ipynb":
            attacks += 1
            paid += why is not None
        score = "-" if row is None else row["score"]
        print(f"{name:<48} {score:>7} {row['max_score'] if row else '-':>5}  {'ok' if why is None else 'WRONG':<6} "
              f"{(row or {}).get('flags', '')}{'' if why is None else '  <- ' + why}")  # fmt: skip
    extra = set(by) - set(expect)
    print(f"\n{len(expect)} submissions, {len(rows)} rows ({len(extra)} unexpected: {sorted(extra)[:5]}), "
          f"{wrong} wrong; {paid} of {attacks} in-kernel attacks paid")  # fmt: skip
    print(f"graded in {wall:.1f} s of wall time, {cpu + kernels:.1f} s of CPU time ({cpu:.1f} s the grader's "
          f"processes, {kernels:.1f} s the kernels; {args.workers} workers)")  # fmt: skip
    wall2, cpu2, kernels2, rows2 = grade(folder, args.out, args.workers)
    same = [r["score"] for r in rows2] == [r["score"] for r in rows]
    verdict = "unchanged" if same else "CHANGED"
    print(f"rerun with nothing new: {wall2:.1f} s of wall time, {cpu2 + kernels2:.1f} s of CPU time; scores {verdict}")
    return 1 if wrong or extra or not same else 0


if __name__ == "__main__":
    sys.exit(main())
