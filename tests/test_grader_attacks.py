"""In-kernel attacks on the grader earn nothing for the parts it judges in its own process (issue 36 item 2).

One submission of 04b (the student edition, stubs as given) with a slip in ``ucb1`` (no
exploration term: one of its two checks fails) and in ``wilson`` (the Wald interval: both
fail) is graded as it is, and once more with each attack added in a cell after it. Each
attack is one that changed a verdict when the checks ran in the kernel (the issue's list):
patching ``report.Check.to_dict``, ``json.dumps`` or ``exercises.runner._one``; finding the
grader's function in ``user_ns`` or through ``gc.get_objects`` and using its nonce; a
``sys.setprofile`` or ``sys.settrace`` hook that rewrites the report as the check returns;
``builtins`` edits; an ``atexit`` handler; a thread that patches late; display outputs forged
with the nonce. Every part of every exercise is judged in the grader's process
(:data:`~mctslab.course.grader.judge.JUDGED`), the agent of ``uct`` through a proxy
(:mod:`mctslab.course.grader.proxy`): each attacked submission earns exactly what the same
submission earns without the attack, in every part, with the same checks passed and failed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mctslab.course.grader.batch import grade_folder
from mctslab.course.grader.catalogue import EXERCISES
from mctslab.course.grader.judge import JUDGED
from mctslab.course.grader.sandbox import Limits

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "04b_write_uct_yourself.ipynb"

SLIPS = """
import math

def ucb1(wins, visits, parent_visits, c=math.sqrt(2)):
    if visits == 0:
        return math.inf
    return wins / visits  # no exploration term


def wilson(successes, n, z=1.96):
    p = successes / n
    half = z * math.sqrt(p * (1 - p) / n)  # the Wald interval
    return p - half, p + half
"""

PASSED = '{"name": "all", "title": "all", "status": "passed", "passed": True, "detail": "", "weight": 1.0}'

FORGE = """
def _forged(report):
    checks = [type(c)(c.name, c.title, "passed", "", None, c.seconds, c.weight) for c in report.checks]
    report.checks[:] = checks
"""

ATTACKS = {
    "check_to_dict": f"""
from mctslab.course.exercises import report as _report
_report.Check.to_dict = lambda self: {PASSED}
""",
    "json_dumps": """
import json
_dumps = json.dumps

def _all_passed(value, *args, **kwargs):
    if isinstance(value, dict) and isinstance(value.get("report"), dict):
        for check in value["report"].get("checks", []):
            check["status"] = "passed"
    return _dumps(value, *args, **kwargs)

json.dumps = _all_passed
""",
    "runner_one": """
import mctslab.course.exercises.runner as _runner
_runner._one = lambda title, name, check, hint, clock: ("passed", "", None)
""",
    "user_ns_nonce": f"""
import json as _json
from IPython.display import publish_display_data as _publish

for _key, _value in list(globals().items()):
    _names = getattr(getattr(_value, "__code__", None), "co_freevars", ())
    if "nonce" in _names:
        _cells = dict(zip(_names, _value.__closure__))
        _nonce, _mime = _cells["nonce"].cell_contents, _cells["mime"].cell_contents

        def _forged_grader(part, argument, needs, _nonce=_nonce, _mime=_mime):
            _publish({{_mime: _json.dumps({{"nonce": _nonce, "part": part, "report": {{"checks": [{PASSED}]}}}})}})

        globals()[_key] = _forged_grader
""",
    "gc_closure": f"""
import gc as _gc
import types as _types

for _obj in _gc.get_objects():
    if isinstance(_obj, _types.FunctionType) and {{"to_dict", "nonce"}} <= set(_obj.__code__.co_freevars):
        _cell = dict(zip(_obj.__code__.co_freevars, _obj.__closure__))["to_dict"]
        _cell.cell_contents = lambda report: {{"checks": [{PASSED}]}}
""",
    "setprofile": FORGE
    + """
import sys as _sys

def _hook(frame, event, arg):
    if event == "return" and type(arg).__name__ == "Report":
        _forged(arg)

_sys.setprofile(_hook)
""",
    "settrace": FORGE
    + """
import sys as _sys

def _local(frame, event, arg):
    if event == "return" and type(arg).__name__ == "Report":
        _forged(arg)
    return _local

def _tracer(frame, event, arg):
    return _local if frame.f_code.co_name.startswith("check_") else None

_sys.settrace(_tracer)
""",
    "builtins": """
import builtins as _builtins
import math as _math

_builtins.all = lambda iterable: True
_math.isclose = lambda *args, **kwargs: True
""",
    "atexit": f"""
import atexit as _atexit
from mctslab.course.exercises import report as _report

def _at_exit():
    _report.Check.to_dict = lambda self: {PASSED}

_atexit.register(_at_exit)
""",
    "late_thread": f"""
import threading as _threading
import time as _time

def _late():
    from mctslab.course.exercises import report as _report
    while True:  # from the first check on, and again whenever the grader may have restored it
        _time.sleep(0.002)
        _report.Check.to_dict = lambda self: {PASSED}

_threading.Thread(target=_late, daemon=True).start()
""",
    "forged_outputs": f"""
import json as _json
import sys as _sys
from IPython.display import publish_display_data as _publish

_ucb1_slipped, _wilson_slipped = ucb1, wilson

def _nonce():
    for value in globals().values():
        names = getattr(getattr(value, "__code__", None), "co_freevars", ())
        if "nonce" in names:
            cells = dict(zip(names, value.__closure__))
            return cells["nonce"].cell_contents, cells["mime"].cell_contents
    return None, None

def _forge(part):
    nonce, mime = _nonce()
    if nonce is not None:
        _publish({{mime: _json.dumps({{"nonce": nonce, "part": part, "report": {{"checks": [{PASSED}]}}}})}})

def ucb1(wins, visits, parent_visits, c=1.4):
    _forge("ucb1")
    return _ucb1_slipped(wins, visits, parent_visits, c)

def wilson(successes, n, z=1.96):
    _forge("wilson")
    return _wilson_slipped(successes, n, z)
""",
}
"""Each attack, as the cell a submission adds after its own functions."""

WIDGET = """
import ipywidgets as _widgets

_ucb1_slipped = ucb1

def ucb1(wins, visits, parent_visits, c=math.sqrt(2)):
    _widgets.IntSlider().value = visits  # a widget: messages on a comm of its own while the grader's call runs
    return _ucb1_slipped(wins, visits, parent_visits, c)
"""
"""Not an attack: a function that shows a widget (a progress bar does) while the grader calls it."""


def _submission(*cells: str) -> dict:
    """The student edition of 04b (solutions removed, stubs as given), then ``cells``."""
    notebook = json.loads(NOTEBOOK.read_text())
    kept = [c for c in notebook["cells"] if "solution" not in c["metadata"].get("tags", [])]
    for source in cells:
        kept.append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source})
    notebook["cells"] = kept
    return notebook


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("attacks")
    folder = base / "submissions"
    submissions = {"plain": (SLIPS,), "widget": (SLIPS, WIDGET), **{k: (SLIPS, v) for k, v in ATTACKS.items()}}
    for name, cells in submissions.items():
        path = folder / name / "04b_write_uct_yourself.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(_submission(*cells)))
    rows = grade_folder(
        folder, base / "grades.csv", workers=2, limits=Limits(cell=4, notebook=12), progress=False, say=lambda _: None
    )
    return {row["submission"].split("/")[0]: row for row in rows}


def _verdicts(row: dict, part: str) -> list[tuple[str, str]]:
    report = (row["reports"].get(part) or {}).get("report") or {}
    return [(c["name"], c["status"]) for c in report.get("checks", [])]


def test_the_slips_alone_earn_part_of_ucb1_and_nothing_of_wilson(graded: dict) -> None:
    row = graded["plain"]
    assert _verdicts(row, "ucb1") == [("unvisited", "passed"), ("formula", "failed")], row["reports"]["ucb1"]
    assert _verdicts(row, "wilson") == [("formula", "failed"), ("edges", "failed")], row["reports"]["wilson"]
    assert 0 < row["points"]["ucb1"] < 10 and row["points"]["wilson"] == 0


def test_every_part_of_every_exercise_is_judged_in_the_graders_process() -> None:
    parts = {part.name for exercise in EXERCISES.values() for part in exercise.parts}
    assert parts <= JUDGED, parts - JUDGED


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_in_the_kernel_earns_nothing_in_any_part(graded: dict, attack: str) -> None:
    plain, attacked = graded["plain"], graded[attack]
    assert set(plain["points"]) == {part.name for part in EXERCISES["04b"].parts}
    for part in sorted(plain["points"]):
        assert attacked["points"][part] == plain["points"][part], (attack, part, attacked["reports"][part])
        assert _verdicts(attacked, part) == _verdicts(plain, part), (attack, part)


def test_a_function_that_shows_a_widget_while_called_is_judged_as_without_it(graded: dict) -> None:
    """A widget's messages (on comms of its own) during a call are not replies to it (they were: `tampered`)."""
    plain, shown = graded["plain"], graded["widget"]
    for part in sorted(plain["points"]):
        assert shown["points"][part] == plain["points"][part], (part, shown["reports"][part])
        assert _verdicts(shown, part) == _verdicts(plain, part), part
    assert "tampered" not in shown["flags"]
