"""Limits per submission, not per process, and nothing of the class readable from a sandbox (issue 36, item 5).

Small hostile submissions are graded together under small limits (512 MB of memory, 16 MB of disk,
8 processes per submission): three child processes of 300 MB each (each far under the per-process
3 GB rlimit), 40 files of 1 MB whose write errors are swallowed (each far under the 64 MB
file-size rlimit), a loop forking 40 processes. Each is flagged ``memory`` / ``disk`` /
``processes`` with the reason on its page, the offending cell left out and the rest graded without
it; a classmate graded beside them is untouched. The class is graded from a folder inside the
repository checkout the package runs from (the trial's setup), and one submission tries to read a
classmate's notebook and the results file through absolute and relative paths, ``/proc/self/cwd``,
``/proc/1/root`` and ``..``: it finds none (under bubblewrap; the grader says the lower level
protects no file). Each submission writes only ``ucb1`` (the other stubs unwritten are marked fast).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mctslab.course.grader import cgroups
from mctslab.course.grader import sandbox as sandbox_module
from mctslab.course.grader.batch import grade_folder, results_path
from mctslab.course.grader.html import write_report
from mctslab.course.grader.points import POINTS
from mctslab.course.grader.sandbox import Limits, describe, probe
from mctslab.course.grader.usage import Reading, Usage, breach

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "04b_write_uct_yourself.ipynb"
SANDBOX = os.environ.get("MCTSLAB_GRADER_SANDBOX", "auto")
LEVEL = probe() if SANDBOX != "rlimits" else "rlimits"
UCB1 = float(POINTS["04b"]["ucb1"])
LIMITS = Limits(cell=10, notebook=40, memory_mb=512, disk_mb=16, processes=8)
SECRET = "classmate-secret-7f3a"

MEMORY = """
import subprocess, sys, time
hold = "import sys\\nblock = b'x' * (300 << 20)\\nprint('ready', flush=True)\\nsys.stdin.read()\\n"
children = [subprocess.Popen([sys.executable, '-c', hold], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            for _ in range(3)]
for child in children:
    child.stdout.readline()
time.sleep(3)  # all three hold their 300 MB: more than 512 MB together
for child in children:
    child.stdin.close()
    child.wait()
"""

DISK = """
import os
for i in range(40):
    try:
        with open(f"part-{i}.bin", "wb") as handle:
            handle.write(b"x" * (1 << 20))
    except OSError:
        pass  # a full disk ignored: the grader must see it anyway
"""

# A process started in one cell that grows while the next cell runs: the cell that started it is to blame.
GROWS_LATER = """
import subprocess, sys
grow = "import sys, time\\ntime.sleep(1.5)\\nblock = b'x' * (500 << 20)\\nsys.stdin.read()\\n"
child = subprocess.Popen([sys.executable, '-c', grow], stdin=subprocess.PIPE)
"""
# Waits (without computing) while the child lives, until it has grown and the grader has ended the kernel, however
# long a loaded machine takes to start it: a fixed sleep here let the kernel finish first under load (issue 37).
# At most 90 s, within the cell's wall-clock backstop (10 x 10 s + 30 s): a child that never grows fails the test,
# it does not hang. In the rerun, without the cell that started the child, it ends at once.
WAITS = """
import time

for _ in range(900):
    if "child" not in globals() or child.poll() is not None:
        break
    time.sleep(0.1)
"""

FORKS = """
import os, time
for _ in range(40):
    if os.fork() == 0:
        time.sleep(20)
        os._exit(0)
"""


def _reader(targets: list[Path]) -> str:
    """A cell raising (flagged ``crashed``) when it reads any of ``targets``, or fails to read the package."""
    return f"""
import os
import mctslab
found = []
here = os.getcwd()
for target in {[str(t) for t in targets]!r}:
    relative = os.path.relpath(target, here)
    for path in [target, relative, "/proc/self/cwd/" + relative, "/proc/1/root" + target,
                 here + "/.." * len(here.split("/")) + target]:
        try:
            if os.path.isdir(path):
                listed = os.listdir(path)
                if listed:
                    found.append((path, listed))
            else:
                with open(path, "rb") as handle:
                    data = handle.read()
                if data:
                    found.append((path, len(data)))
        except OSError:
            pass
for folder, _, files in os.walk(os.path.dirname(os.path.dirname(mctslab.__file__))):  # the checkout
    for name in files:
        path = os.path.join(folder, name)
        if name in ("04b_write_uct_yourself.ipynb", "grades.results.jsonl") and "{SECRET}" in open(path).read():
            found.append(path)
assert open(mctslab.__file__).read(), "the package must stay readable"
if found:
    raise RuntimeError(f"read from the sandbox: {{found}}")
"""


def _submission(extra: str | tuple[str, ...] = "", note: str = "") -> dict:
    """The student edition of 04b with only ``ucb1`` written, then the cell(s) ``extra`` (and a markdown ``note``)."""
    notebook = json.loads(NOTEBOOK.read_text())
    cells, out = notebook["cells"], []
    for i, cell in enumerate(cells):
        if "solution" in cell["metadata"].get("tags", []):
            continue
        cell = {**cell, "outputs": [], "execution_count": None} if cell["cell_type"] == "code" else cell
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and "def ucb1" in source and "NotImplementedError" in source:
            cell = {**cell, "source": "".join(cells[i + 1]["source"])}  # the solution that follows the stub
            out.append(cell)
            for source in (extra,) if isinstance(extra, str) and extra else extra:
                out.append(
                    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
                )
            if note:
                out.append({"cell_type": "markdown", "metadata": {}, "source": note})
            continue
        out.append(cell)
    notebook["cells"] = out
    return notebook


@pytest.fixture(scope="module")
def graded() -> dict:
    # Inside the repository checkout the package runs from, as in the trial (a hidden name, removed after).
    base = Path(tempfile.mkdtemp(prefix=".grader-inside-", dir=ROOT))
    try:
        folder, out = base / "submissions", base / "grades" / "grades.csv"
        out.parent.mkdir()
        results = results_path(out)
        classmate = folder / "a_classmate" / "04b_write_uct_yourself.ipynb"
        targets = [classmate, classmate.parent, folder, results, results.with_name(results.name + ".lock"), out.parent]
        notebooks = {
            "a_classmate": _submission(note=SECRET),
            "d_disk": _submission(DISK),
            "m_memory": _submission(MEMORY),
            "g_grows_later": _submission((GROWS_LATER, WAITS)),
            "p_forks": _submission(FORKS),
            "z_reader": _submission(_reader(targets)),
        }
        for name, notebook in notebooks.items():
            path = folder / name / "04b_write_uct_yourself.ipynb"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps(notebook))
        lines: list[str] = []
        rows = grade_folder(folder, out, workers=2, limits=LIMITS, sandbox=SANDBOX, progress=False, say=lines.append)
        pages = write_report(rows, base / "report").parent / "students"
        by = {row["submission"].split("/")[0]: row for row in rows}
        texts = {name: next(pages.glob(f"{name}_*.html")).read_text() for name in by}
        yield {"by": by, "pages": texts, "lines": lines, "notebooks": notebooks}
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize(
    ("name", "flag", "said"),
    [
        # Past the limit by the accounting, or, where a cgroup is made, killed at its hard cap before the next reading.
        ("m_memory", "memory", ("its processes held ", "killed at its hard memory cap")),
        ("d_disk", "disk", ("(limit 16 MB per submission)",)),
        ("p_forks", "processes", ("processes at once (limit 8 per submission)", "refused a new process")),
    ],
)
def test_a_breach_is_flagged_and_the_rest_graded_without_the_cell(
    graded: dict, name: str, flag: str, said: tuple[str, ...]
) -> None:
    row = graded["by"][name]
    assert row["flags"].split() == [flag, "not-written"], row
    assert list(row["removed"].values()) == [flag], row["removed"]  # the offending cell alone, left out
    (cell,) = row["removed"]
    (reason,) = [s for s in said if s in row["stopped"][cell]]
    assert row["points"]["ucb1"] == UCB1  # graded again without it
    assert f"{flag}: " in graded["pages"][name] and reason.split(" (")[0] in graded["pages"][name]
    classmate = graded["by"]["a_classmate"]  # graded beside them, untouched
    assert classmate["flags"] == "not-written" and classmate["removed"] == {} and classmate["points"]["ucb1"] == UCB1


def test_a_process_that_grows_later_blames_the_cell_that_started_it(graded: dict) -> None:
    row = graded["by"]["g_grows_later"]
    cells = graded["notebooks"]["g_grows_later"]["cells"]
    (started,) = [i for i, c in enumerate(cells) if c["source"] == GROWS_LATER]  # not the next cell, which waits
    assert row["removed"] == {str(started): "memory"} and row["flags"].split() == ["memory", "not-written"], row
    assert row["points"]["ucb1"] == UCB1


def test_a_process_started_just_before_the_next_cell_is_blamed_on_its_own_cell() -> None:
    """Start times are clock ticks (10 ms): a cell that starts a process and ends at once put it on the next
    cell's first tick, which then got the blame (one run in a few of the test above, quiet or loaded)."""
    from mctslab.course.grader.run import _Watch
    from mctslab.course.grader.usage import culprit

    watch = _Watch(object(), LIMITS)  # no kernel: only the cells' start ticks are read
    blamed = []
    for _ in range(5):
        watch.cell_started(0)
        child = subprocess.Popen(["sleep", "1"])  # the cell's last act
        watch.cell_started(1)  # the next cell starts at once
        blamed.append(culprit("processes", [child.pid], watch.cells[-2:], 1))
        child.kill()
        child.wait()
    assert blamed == [0] * 5, blamed


def test_the_submissions_and_the_grades_are_not_readable_from_the_sandbox(graded: dict) -> None:
    if LEVEL != "bwrap":
        pytest.skip("bubblewrap is not available here: the grader says it protects no file at this level")
    row = graded["by"]["z_reader"]
    assert row["flags"] == "not-written" and row["removed"] == {}, row  # its reading cell raised nothing
    assert row["points"]["ucb1"] == UCB1


def test_the_limits_are_said_at_the_start(graded: dict) -> None:
    (line,) = [line for line in graded["lines"] if line.startswith("sandbox:")]
    assert line == f"{describe(LEVEL, LIMITS)}; {cgroups.probe()}"  # the hard caps, or that there are none
    assert "memory 512 MB (PSS), disk 16 MB" in line and "8 processes" in line


def test_memory_counts_each_page_once_across_a_tree_of_processes() -> None:
    """100 MB shared by a process and two forked children (counted once) and 100 MB in a third: about 200 MB.

    The sum of the RSS counts the shared 100 MB three times; it is read first, and the PSS only past the limit.
    """
    hold = "import os, sys\nblock = b'x' * (100 << 20)\nprint('ready', flush=True)\nsys.stdin.read()\n"
    parent = (
        "import os, subprocess, sys, time\n"
        "shared = b'y' * (100 << 20)\n"
        "for _ in range(2):\n"  # two forked children: three processes share it
        "    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)\n"
        f"child = subprocess.Popen([sys.executable, '-c', {hold!r}], stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        "child.stdout.readline()\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", parent],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout.readline() == "ready\n"
        mib = 1 << 20
        rss = Usage(process.pid, Path("/nonexistent"), None, memory=1 << 40).read()
        pss = Usage(process.pid, Path("/nonexistent"), None, memory=0).read()
        assert rss.processes == pss.processes >= 4, rss
        assert rss.memory > 400 * mib  # the shared 100 MB three times
        assert 200 * mib < pss.memory < 300 * mib, pss.memory / mib  # once
    finally:
        os.killpg(process.pid, 9)
        process.wait()


def test_a_breach_is_the_first_limit_passed() -> None:
    mib = 1 << 20
    assert breach(Reading(512 * mib, 3, 0), 3, 512 * mib, 16 * mib, 8) is None  # at a limit is within it
    assert breach(Reading(513 * mib, 3, 0), 3, 512 * mib, 16 * mib, 8)[0] == "memory"
    assert breach(Reading(1, 3, 17 * mib), 3, 512 * mib, 16 * mib, 8)[0] == "disk"
    assert breach(Reading(1, 12, 0), 3, 512 * mib, 16 * mib, 8) == (
        "processes",
        "it ran 9 processes at once (limit 8 per submission)",
    )


def test_grades_in_the_checkout_are_hidden_but_the_package_is_shown(tmp_path: Path) -> None:
    """The output folder is the checkout holding the package (``--out grades.csv`` run from it)."""
    if LEVEL != "bwrap":
        pytest.skip("bubblewrap is not available here")
    work = tmp_path / "work"
    (work / "home").mkdir(parents=True)
    prefix = sandbox_module._bwrap_prefix(work, (ROOT, ROOT / "README.md"), 1 << 20)
    script = (
        "import os, importlib.util\n"
        f"print(os.path.exists({str(ROOT / 'README.md')!r}), os.path.exists({str(ROOT / 'tests')!r}),"
        " importlib.util.find_spec('mctslab') is not None)\n"
        "print([line.split()[1] for line in open('/proc/self/status') if line.startswith('CapEff')][0])\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False)
    # Hidden, hidden, the package shown; and no capability (as root it could unmount what hides them).
    assert done.stdout.split() == ["False", "False", "True", "0000000000000000"], done.stderr


def test_the_kernels_read_mctslab_bytecode_from_the_cache_rather_than_compile_it(tmp_path: Path) -> None:
    """Where this Python keeps bytecode in a cache folder (``./run`` sets ``PYTHONPYCACHEPREFIX``), a kernel's
    environment names it, and inside the sandbox the bytecode of mctslab is there to read (else every kernel
    compiled the package from source at its start: about 0.3 s of CPU time each)."""
    if not sys.pycache_prefix:
        pytest.skip("this Python keeps its bytecode beside the sources (no PYTHONPYCACHEPREFIX): nothing to pass on")
    import importlib.util

    import mctslab.course.exercises as exercises

    if not Path(importlib.util.cache_from_source(exercises.__file__)).exists():
        pytest.skip("no bytecode in the cache folder to read (written with PYTHONDONTWRITEBYTECODE set?)")
    work = tmp_path / "work"
    work.mkdir()
    box = sandbox_module.Sandbox(work, LEVEL, "t")
    prefix = sandbox_module._bwrap_prefix(work, (), 1 << 20) if LEVEL == "bwrap" else []
    script = (
        "import importlib.util, os, sys, mctslab.course.exercises as e\n"
        "print(sys.pycache_prefix is not None, os.path.exists(importlib.util.cache_from_source(e.__file__)))\n"
    )
    done = subprocess.run(
        [*prefix, sys.executable, "-c", script], capture_output=True, text=True, env=box.env(), check=False
    )
    assert done.stdout.split() == ["True", "True"], done.stderr
    assert box.env()["PYTHONDONTWRITEBYTECODE"] == "1"  # read, never written, from inside the sandbox


def test_a_cgroup_where_one_can_be_made_caps_memory_and_forks_hard() -> None:
    """The improvement over the accounting where this machine allows it (cgroup v2 delegated, or v1 as root)."""
    if cgroups.probe().startswith("no hard caps"):
        pytest.skip(cgroups.probe())
    group = cgroups.Cgroup(64, 1)  # caps: 80 MB, 260 tasks
    try:
        done = subprocess.run([sys.executable, "-c", "b = b'x' * (200 << 20)"], preexec_fn=group.join, check=False)
        assert done.returncode == -9 and group.hit() == "memory"
    finally:
        group.close()
    group = cgroups.Cgroup(512, 1)
    forks = "import os, time\nfor _ in range(400):\n    if os.fork() == 0:\n        time.sleep(2)\n        os._exit(0)"
    try:
        done = subprocess.run(
            [sys.executable, "-c", forks], preexec_fn=group.join, capture_output=True, text=True, check=False
        )
        assert "BlockingIOError" in done.stderr and group.hit() == "processes"
    finally:
        group.close()
    assert not any(folder.exists() for folder in group.folders.values())  # removed, what was in it killed


def test_two_grading_runs_in_one_process_group_sweep_only_their_own_cgroups() -> None:
    """A script that starts two graders in the background (or a test run's two workers) gives them one process
    group: the sweep at one run's end must not kill the other run's kernels (it did: "crashed" submissions)."""
    if cgroups.probe().startswith("no hard caps"):
        pytest.skip(cgroups.probe())
    with cgroups.grading_run():
        other = cgroups.Cgroup(64, 1)  # the other run's kernel's cgroup, its kernel in it
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], preexec_fn=other.join)
    try:
        with cgroups.grading_run():
            mine = cgroups.Cgroup(64, 1)  # this run's, left behind by a worker killed
            assert cgroups.sweep() == len(mine.folders)  # this run's only (one folder per controller)
        assert not any(folder.exists() for folder in mine.folders.values())
        assert sleeper.poll() is None and all(folder.exists() for folder in other.folders.values())
    finally:
        sleeper.kill()
        sleeper.wait()
        other.close()
