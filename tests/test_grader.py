"""The grader marks a class's notebooks, names each bug, and nothing a submission does escapes.

A folder of 04b submissions written in student style (a copy of the notebook with its
solution cells removed and the stubs filled in, some with a classic mistake, some
hostile) is graded with two workers. Each gets the marks and flags it deserves, the
grader finishes, and then the test looks for what could have escaped: a file written
outside the submission's folder, a process still running, a connection to a port the
test listens on. The sandbox level is the one this machine allows (``probe``), or the
lower one with ``MCTSLAB_GRADER_SANDBOX=rlimits``; without bubblewrap, the file and
network checks are skipped with the reason, as the grader itself says at its start.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import re
import secrets
import socket
import threading
from pathlib import Path

import pytest

from mctslab.course.grader.batch import grade_folder, results_path
from mctslab.course.grader.catalogue import EXERCISES
from mctslab.course.grader.cells import student_cells
from mctslab.course.grader.html import write_report
from mctslab.course.grader.judge import JUDGED
from mctslab.course.grader.points import POINTS
from mctslab.course.grader.sandbox import Limits, probe

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "04b_write_uct_yourself.ipynb"
PARTS = ("ucb1", "select", "expand", "simulate", "backpropagate", "uct", "wilson")
FULL = POINTS["04b"]
SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")  # "rlimits": test the level without bubblewrap
LEVEL = probe() if SANDBOX != "rlimits" else "rlimits"
TOKEN = secrets.token_hex(6)  # marks this run's escaping processes and files


def _student(replace: dict[str, tuple[str, str]] | None = None, extra: dict[str, str] | None = None) -> dict:
    """04b as a student hands it in: solutions removed, each stub filled with the solution's code.

    ``replace[name] = (old, new)`` edits the code written for ``name``'s stub; ``extra[name]``
    is a cell the student added after that stub.
    """
    notebook = json.loads(NOTEBOOK.read_text())
    cells, out = notebook["cells"], []
    for i, cell in enumerate(cells):
        if "solution" in cell["metadata"].get("tags", []):
            continue
        cell = copy.deepcopy(cell)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
            source = "".join(cell["source"])
            following = cells[i + 1] if i + 1 < len(cells) else {"metadata": {}}
            if "NotImplementedError" in source and "solution" in following["metadata"].get("tags", []):
                source = "".join(following["source"])
                name = re.match(r"(?:def|class)\s+(\w+)", source).group(1)
                old, new = (replace or {}).get(name, ("", ""))
                assert old in source, f"{old!r} not in {name}"
                source = source.replace(old, new, 1) if old else source
                cell["source"] = source
                out.append(cell)
                if extra and name in extra:
                    out.append(
                        {
                            "cell_type": "code",
                            "metadata": {},
                            "outputs": [],
                            "execution_count": None,
                            "source": extra[name],
                        }
                    )
                continue
        out.append(cell)
    notebook["cells"] = out
    return notebook


def _fake_outputs(notebook: dict) -> dict:
    """Stored outputs copied from someone else: every check cell claims all passed (never read)."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code" and "check_" in "".join(cell["source"]):
            cell["outputs"] = [
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {
                        "text/plain": "all checks passed",
                        "application/x-mctslab-grade+json": {"nonce": "copied", "report": {"ok": True}},
                    },
                }
            ]
    return notebook


PATCHES = """
import json
import mctslab.course.exercises as exercises_module
import mctslab.course.exercises.parts as parts_module
from IPython.display import publish_display_data
from mctslab.course.exercises.report import Check, Report

def fake(*args, **kwargs):
    return Report("faked", [Check("all", "everything", "passed")])

for name in ["check_ucb1", "check_select", "check_expand", "check_simulate", "check_backpropagate",
             "check_uct", "check_wilson"]:
    setattr(exercises_module, name, fake)
    setattr(parts_module, name, fake)
    globals()[name] = fake
Report.ok = property(lambda self: True)
Report.to_dict = lambda self: {"checks": [{"status": "passed"}]}
for key, value in list(globals().items()):  # the grader's hidden function, if it can be found
    if key.startswith("_") and getattr(value, "__closure__", None):
        globals()[key] = lambda *args: None

def ucb1(wins, visits, parent_visits, c=1.4):
    publish_display_data({"application/x-mctslab-grade+json": json.dumps(
        {"nonce": "guessed", "part": "ucb1", "report": {"checks": [{"status": "passed"}]}})})
    return 0.0
"""


def _submissions(folder: Path, outside: Path, port: int) -> None:
    def save(name: str, notebook: dict) -> None:
        path = folder / name / "04b_write_uct_yourself.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(notebook))

    save("correct", _fake_outputs(_student()))
    save("sign_slip", _student({"backpropagate": ("returns[node.player]", "returns[1 - node.player]")}))
    save(
        "root_never_counted", _student({"backpropagate": ("while node is not None:", "while node.parent is not None:")})
    )
    subclass = "from mctslab import UCT\n\n\nclass MyUCT(UCT):\n    pass\n"
    save("subclassed", _student({"MyUCT": ("class MyUCT:", "class _Mine:")}, {"MyUCT": subclass}))
    save("patches_checks", _fake_outputs(_stubs_with(PATCHES)))
    sleep = "    import time\n\n    time.sleep(10**6)\n"
    save("sleeps_in_select", _student({"select": ("    while not node.untried", sleep + "    while not node.untried")}))
    save("allocates_30GB", _student(extra={"ucb1": "big = bytearray(30 * 2**30)\nbig[-1] = 1\n"}))
    writes = (
        f"import os\nfor place in [{str(outside)!r}, {str(folder)!r}, os.path.expanduser('~/..')]:\n"
        f"    try:\n        os.makedirs(place, exist_ok=True)\n"
        f"        open(os.path.join(place, 'escaped-{TOKEN}.txt'), 'w').write('out')\n"
        f"    except OSError as error:\n        print(error)\n"
    )
    save("writes_outside", _student(extra={"expand": writes}))
    background = (
        "import subprocess, sys\n"
        f"child = subprocess.Popen(['sleep', '1000'])\n"
        f"daemon = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)', 'escape-{TOKEN}'],\n"
        "                          start_new_session=True, env={})\n"
    )
    save("background_process", _student(extra={"simulate": background}))
    opens = (
        "import socket\ntry:\n"
        f"    connection = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        f"    connection.sendall(b'escape-{TOKEN}')\n"
        "except OSError as error:\n    print('no connection:', error)\n"
    )
    save("opens_socket", _student(extra={"wilson": opens}))
    # (a cell spinning forever: tests/test_grader_limits.py's `spins`, the same cell, at a tighter limit)
    save("kills_its_kernel", _student(extra={"simulate": "import os\n\nos.kill(os.getpid(), 9)\n"}))
    # (a C call that ignores the interrupt: tests/test_grader_limits.py's `hangs_in_c`, at a tighter limit)


def _stubs_with(patches: str) -> dict:
    """The student edition of 04b, stubs unwritten, with a cell of patches after the first stub."""
    notebook = json.loads(NOTEBOOK.read_text())
    cells = [c for c in notebook["cells"] if "solution" not in c["metadata"].get("tags", [])]
    at = next(i for i, c in enumerate(cells) if "def ucb1" in "".join(c["source"]))
    cells.insert(
        at + 1, {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": patches}
    )
    notebook["cells"] = cells
    return notebook


class _Listener:
    """A TCP port on the host's loopback that records every connection made to it."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.server.close()


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("grading")
    folder, outside = base / "submissions", base / "outside"
    listener = _Listener()
    try:
        _submissions(folder, outside, listener.port)
        lines: list[str] = []
        rows = grade_folder(
            folder,
            base / "grades.csv",
            workers=2,
            # A correct 04b uses about 1.7 s of CPU in all (kernel start included): twice that per cell, 7 times in all.
            limits=Limits(cell=4, notebook=12),
            sandbox=SANDBOX,
            progress=False,
            say=lines.append,
        )
    finally:
        listener.close()
    by_name = {row["submission"].split("/")[0]: row for row in rows}
    return {
        "rows": rows,
        "by": by_name,
        "lines": lines,
        "base": base,
        "folder": folder,
        "outside": outside,
        "connections": listener.connections,
    }


def _points(row: dict) -> dict:
    return row["points"]


def test_says_the_sandbox_level_once(graded: dict) -> None:
    assert [line for line in graded["lines"] if line.startswith("sandbox:")] == [graded["lines"][0]]
    assert ("bubblewrap (" in graded["lines"][0]) == (LEVEL == "bwrap")


def test_a_correct_submission_earns_every_point(graded: dict) -> None:
    row = graded["by"]["correct"]
    assert _points(row) == {part: float(FULL[part]) for part in PARTS}
    assert row["score"] == row["max_score"] == sum(FULL.values()) and row["flags"] == ""


@pytest.mark.parametrize("name", ["sign_slip", "root_never_counted"])
def test_a_backpropagation_slip_costs_backpropagate_and_the_agent_only(graded: dict, name: str) -> None:
    row = graded["by"][name]
    points = _points(row)
    for part in ("ucb1", "select", "expand", "simulate", "wilson"):
        assert points[part] == FULL[part], (name, part, row["reports"][part])
    assert points["backpropagate"] < FULL["backpropagate"] and points["uct"] < FULL["uct"]
    assert row["flags"] == ""
    failed = [c for c in row["reports"]["backpropagate"]["report"]["checks"] if c["status"] == "failed"]
    expected = {"sign_slip": "point_of_view", "root_never_counted": "path"}[name]
    assert expected in [c["name"] for c in failed]


def test_the_packages_uct_subclassed_earns_nothing_for_the_agent(graded: dict) -> None:
    row = graded["by"]["subclassed"]
    assert _points(row)["uct"] == 0 and "package-code" in row["flags"].split()
    assert all(_points(row)[p] == FULL[p] for p in PARTS if p != "uct")


def test_patching_the_checks_and_faking_outputs_changes_nothing(graded: dict) -> None:
    row = graded["by"]["patches_checks"]
    assert row["score"] == 0, row["points"]
    # Every part is judged in the grader's process, on what the student wrote (stubs, a ucb1 of 0.0): nothing.
    assert set(row["reports"]) <= JUDGED
    reports = [row["reports"][p]["report"] for p in row["reports"]]
    assert all(c["status"] != "passed" for report in reports for c in report["checks"]), reports
    assert row["flags"] == "not-written tampered"


def test_sleeping_forever_in_select_costs_select_and_the_agent(graded: dict) -> None:
    row = graded["by"]["sleeps_in_select"]
    points = _points(row)
    assert points["select"] < FULL["select"] and points["uct"] < FULL["uct"]
    assert all(points[p] == FULL[p] for p in ("ucb1", "expand", "simulate", "backpropagate", "wilson"))
    assert "timeout" in row["flags"].split()


@pytest.mark.parametrize(
    ("name", "flag"),
    [
        ("allocates_30GB", "memory"),
        ("kills_its_kernel", "crashed"),
    ],
)
def test_a_cell_that_dies_costs_only_what_depends_on_it(graded: dict, name: str, flag: str) -> None:
    row = graded["by"][name]
    assert _points(row) == {part: float(FULL[part]) for part in PARTS}
    assert row["flags"] == flag and list(row["removed"].values()) == [flag]


@pytest.mark.parametrize("name", ["writes_outside", "background_process", "opens_socket"])
def test_hostile_side_effects_cost_no_marks(graded: dict, name: str) -> None:
    row = graded["by"][name]
    assert _points(row) == {part: float(FULL[part]) for part in PARTS}, row["flags"]


def test_no_process_is_left_behind(graded: dict) -> None:
    assert graded["by"]["background_process"]["score"] == sum(FULL.values())
    assert _processes_with(f"escape-{TOKEN}") == []


def test_no_file_is_written_outside_and_no_connection_is_made(graded: dict) -> None:
    if LEVEL != "bwrap":
        pytest.skip("bubblewrap is not available here: the grader said so, and it does not protect files or network")
    escaped = [
        p for p in (graded["outside"], graded["folder"], Path.home().parent) if (p / f"escaped-{TOKEN}.txt").exists()
    ]
    assert escaped == [] and graded["connections"] == 0


def test_grades_csv_has_one_row_per_submission_and_the_declared_columns(graded: dict) -> None:
    with (graded["base"] / "grades.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["submission", "score", "max_score", *PARTS, "flags", "not_reached", "seconds"]
    handed_in = len(list(graded["folder"].rglob("*.ipynb")))
    assert handed_in == 11 and len(rows) == handed_in and all(float(r["seconds"]) > 0 for r in rows)
    assert [p.name for p in EXERCISES["04b"].parts] == list(PARTS)


def test_rerunning_resumes_without_grading_again(graded: dict) -> None:
    lines: list[str] = []
    results = results_path(graded["base"] / "grades.csv")
    before = results.read_text()
    rows = grade_folder(graded["folder"], graded["base"] / "grades.csv", progress=False, say=lines.append)
    handed_in = len(list(graded["folder"].rglob("*.ipynb")))
    assert results.read_text() == before and len(rows) == handed_in
    assert f"resuming: {handed_in} of {handed_in}" in lines[1]


def test_the_html_report_names_each_diagnosis(graded: dict) -> None:
    index = write_report(graded["rows"], graded["base"] / "report")
    summary = index.read_text()
    assert "data:image/png;base64," in summary and "Most common diagnoses" in summary
    (path,) = (graded["base"] / "report" / "students").glob("sign_slip_04b_write_uct_yourself-*.html")
    page = path.read_text()
    assert "backpropagate" in page and "failed" in page


def test_student_cells_leave_out_the_notebooks_own_checks() -> None:
    cells = dict(student_cells(_student(), EXERCISES["04b"]))
    code = "\n".join(cells.values())
    assert "check_uct(" not in code and "play_student_match(" not in code and "def select" in code


def test_student_cells_keep_a_definition_s_decorators() -> None:
    """A student's ``@dataclass`` node (and any decorated definition) runs in the grader as in the notebook.

    The cells' statements were cut from each definition's ``class``/``def`` line, which Python puts after
    the decorators: the grader ran a plain class, and a correct agent failed with "Vertex() takes no
    arguments" (found by ``tools/grade_a_class.py``'s recursion student)."""
    node = "from dataclasses import dataclass\n\n\n@dataclass(eq=False)\nclass Vertex:\n    visits: int = 0\n"
    cached = "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef depth(n):\n    return n\n"
    notebook = _student(extra={"MyUCT": node + "\n\n" + cached})
    (kept,) = [code for _, code in student_cells(notebook, EXERCISES["04b"]) if "class Vertex" in code]
    space: dict = {}
    exec(kept, space)  # the cell as the grader's kernel runs it
    assert space["Vertex"](visits=3).visits == 3 and space["depth"].cache_info().misses == 0


def test_the_command_says_in_one_line_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from mctslab.cli import main

    assert main(["grade", str(tmp_path / "nowhere"), "--out", str(tmp_path / "grades.csv")]) == 2
    error = capsys.readouterr().err
    assert error.endswith("is not a folder: give the folder of the submitted notebooks\n"), error
    assert main(["grade", str(tmp_path), "--workers", "0"]) == 2
    assert "not a number of workers" in capsys.readouterr().err
