"""Issue 40, item 5: the class as a regression suite; run ``python tests/test_exercise_class.py`` for the table.

Four students (:mod:`class_of_students`: classes, loops, recursion, dicts) write notebooks 04b
and 12; each slip is one change in one student's own code, and must fail exactly the checks
that name its function ("named"), never a check naming another ("misblamed"), never pass
("passed"). The four correct students pass every check at 20 seed streams each (the agent's
seed offset by 1,000 per stream); the streams after the first are made cheap (:func:`cheap`):
smaller budgets for the checks whose verdict is exact, and the statistical strength checks,
whose margins are derived for their own budgets (``strength.py``, ``chance_probes.py``), run
at full budget in the first stream only. All in-process, no kernels.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).parent))

import class_of_students as cs  # noqa: E402
from test_exercise_blame import SLIPS as EXPAND_SLIPS  # noqa: E402
from test_exercise_blind_spots import RecursiveUCT  # noqa: E402
from test_exercise_chance import DiceMCTS  # noqa: E402
from test_exercise_uct_agent import Student  # noqa: E402

from mctslab.course.exercises import (  # noqa: E402  # noqa: E402  # noqa: E402
    agent_probes,
    chance,
    chance_depth,
    chance_probes,
    check_chance_uct,
    check_uct,
    selection_probes,
    uct,
)
from mctslab.course.exercises.student import _Skip  # noqa: E402


def _of(cls: type) -> Callable[[int], Any]:
    return lambda seed: cls(seed=seed)


Slip = tuple[str, str, str, Callable[[int], Any], str]
"""(notebook, style, slip, make_agent, the function the failing checks must name)."""

SLIPS: list[Slip] = [
    # -- 04b, classes
    ("04b", "classes", "X's result credited everywhere", _of(cs.SignSlip), "backpropagate"),
    ("04b", "classes", "the root never counted", _of(cs.RootNeverCounted), "backpropagate"),
    ("04b", "classes", "`if` for `while` in the descent", _of(cs.IfForWhile), "select"),
    ("04b", "classes", "errors swallowed by `except`", _of(cs.SwallowsErrors), "descend"),
    ("04b", "classes", "the node returned, not its move", _of(cs.ReturnsTheNode), "select_move"),
    ("04b", "classes", "one iteration too many", _of(cs.OneTooMany), "search"),
    ("04b", "classes", "a draw counted as a loss", _of(cs.DrawIsLoss), "backpropagate"),
    ("04b", "classes", "the child's player: the one to move there", _of(cs.PlayerOfChild), "expand"),
    ("04b", "classes", "an unseeded generator", _of(cs.Unseeded), "search"),
    ("04b", "classes", "playouts that always play the first move", _of(cs.FirstMovePlayouts), "simulate"),
    *[("04b", "classes", f"expand: {name}", _of(EXPAND_SLIPS[name][0]), "expand")
      for name in ("untried: a copy of the parent's", "child: not appended", "move: its index in the untried moves")],
    # -- 04b, loops
    ("04b", "loops", "selection goes below untried moves", _of(cs.loops_04b(select=cs.l_select_past_untried)),
     "select"),
    ("04b", "loops", "the move not removed from untried", _of(cs.loops_04b(expand=cs.l_expand_keeps_move)), "expand"),
    ("04b", "loops", "expand returns the parent", _of(cs.loops_04b(expand=cs.l_expand_returns_parent)), "expand"),
    ("04b", "loops", "credited to the player to move",
     _of(cs.loops_04b(backpropagate=cs.l_backpropagate_to_move)), "backpropagate"),
    ("04b", "loops", "the root's visits as N", _of(cs.loops_04b(select=cs.l_select_root_visits)), "select"),
    # -- 04b, recursion
    ("04b", "recursion", "the descent does not recurse", _of(cs.RecursionStopsAtOneLevel), "select"),
    ("04b", "recursion", "the factor 2 inside the root", _of(cs.RecursiveTwoInside), "select"),
    ("04b", "recursion", "`who` set to the player to move", _of(cs.RecursiveWho), "expand"),
    ("04b", "recursion", "a budget of its own", _of(cs.RecursiveBudgetOfItsOwn), "search"),
    # -- 04b, dicts
    ("04b", "dicts", "the root never counted", _of(cs.PathRootUncounted), "backpropagate"),
    ("04b", "dicts", "the log of the child's visits", _of(cs.PathLogOfChild), "select"),
    ("04b", "dicts", "the move with most wins played", _of(cs.PathMostWins), "select_move"),
    ("04b", "dicts", "one level of selection", _of(cs.PathOneLevel), "select"),
    ("04b", "dicts", "an unseeded generator", _of(cs.PathUnseeded), "search"),
    # -- 12, loops
    ("12", "loops", "a uniform die", cs.loops_12(draw=cs.draw_uniform), "draw_outcome"),
    ("12", "loops", "face 1 never drawn", cs.loops_12(draw=cs.draw_never_one), "draw_outcome"),
    ("12", "loops", "the (outcome, probability) pair drawn", cs.loops_12(draw=cs.draw_pair), "draw_outcome"),
    ("12", "loops", "one child for every outcome", cs.loops_12(select=cs.select_merged), "select_chance"),
    ("12", "loops", "selection stops at the outcome", cs.loops_12(select=cs.select_stops_at_outcome),
     "select_chance"),
    ("12", "loops", "an outcome without untried moves", cs.loops_12(expand_chance=cs.expand_chance_no_untried),
     "expand_chance"),
    ("12", "loops", "chance moves uniform in playouts", cs.loops_12(simulate=cs.simulate_uniform_chance),
     "simulate_chance"),
    ("12", "loops", "playouts always play the first move", cs.loops_12(simulate=cs.simulate_first_move),
     "simulate_chance"),
    ("12", "loops", "chance nodes left out of the backup", cs.loops_12(backpropagate=cs.backpropagate_skips_chance),
     "backpropagate"),
    ("12", "loops", "the root never counted", cs.loops_12(backpropagate=cs.backpropagate_no_root), "backpropagate"),
    # -- 12, classes
    ("12", "classes", "a uniform die", _of(cs.RollerUniform), "draw_outcome"),
    ("12", "classes", "an outcome credited to chance", _of(cs.RollerOutcomeToChance), "expand_chance"),
    ("12", "classes", "chance moves uniform in rollouts", _of(cs.RollerRolloutUniform), "simulate_chance"),
    ("12", "classes", "the random module's generator", _of(cs.RollerGlobalRandom), "roll"),
    ("12", "classes", "the root never counted", _of(cs.RollerRootUncounted), "backpropagate"),
    # -- 12, recursion
    ("12", "recursion", "a uniform die", cs.DiceUniform, "draw_outcome"),
    ("12", "recursion", "the cumulative draw off by one", cs.DiceRollsTheLastFace, "draw_outcome"),
    ("12", "recursion", "players alternate", cs.DiceAlternates, "expand"),
    ("12", "recursion", "chance moves uniform in playouts", cs.DiceUniformPlayout, "simulate_chance"),
    # -- 12, dicts
    ("12", "dicts", "the other player moves after a roll", _of(cs.PathChanceOtherPlayer), "expand_chance"),
    ("12", "dicts", "the root never counted", _of(cs.PathChanceNoRoot), "backpropagate"),
    ("12", "dicts", "a uniform die", _of(cs.PathChanceUniform), "draw_outcome"),
]  # fmt: skip


def _offset(make: Callable[[int], Any]) -> Callable[[int], Callable[[int], Any]]:
    return lambda k: lambda seed: make(seed + k)


CORRECT: dict[str, dict[str, Callable[[int], Callable[[int], Any]]]] = {
    "04b": {"classes": _offset(_of(Student)), "loops": _offset(_of(cs.loops_04b())),
            "recursion": _offset(_of(RecursiveUCT)), "dicts": _offset(_of(cs.PathUCT))},
    "12": {"classes": _offset(_of(cs.Roller)), "loops": _offset(cs.loops_12()), "recursion": _offset(DiceMCTS),
           "dicts": _offset(_of(cs.PathChance))},
}  # fmt: skip
"""Per notebook and style, ``make(offset)``: the correct student's factory with its seeds offset."""

STREAMS = 20


def check(notebook: str, make: Callable[[int], Any]):
    """The notebook's check of ``make``."""
    if notebook == "04b":
        return check_uct(make, show_progress=False)
    return check_chance_uct(make, show_progress=False)


def verdict(report, expected: str) -> str:
    """named: every failed check names ``expected``; misblamed: some names another; passed: none failed."""
    if not report.failed:
        return "passed"
    return "named" if {report[n].part for n in report.failed} == {expected} else "misblamed"


def _not_run(self) -> None:
    raise _Skip("not run in a cheap seed stream: its margin is derived for its own budget")


@contextmanager
def cheap(strength: bool = False) -> Iterator[None]:
    """Smaller budgets for the checks whose verdict is exact; the strength checks run only with ``strength``."""
    patches = [
        mock.patch.dict(uct.BUDGETS, {"legal": 5, "tree": 40, "determinism": 10}),
        mock.patch.object(agent_probes, "VIEW_ITERATIONS", 40),
        mock.patch.object(agent_probes, "POINT_OF_VIEW", agent_probes.POINT_OF_VIEW[::2]),
        mock.patch.object(selection_probes, "FINAL_BUDGETS", range(6, 8)),
        mock.patch.object(selection_probes, "DEPTH_BUDGET", 24),
        mock.patch.object(selection_probes, "DEPTH_POSITIONS", (("XOX.O.O.X", 3),)),  # 3 moves left: fewer iterations
        mock.patch.object(selection_probes, "FINAL_POSITIONS", selection_probes.FINAL_POSITIONS[1:]),
        mock.patch.object(chance_probes, "ITERATIONS", 40),
        mock.patch.object(chance_depth, "ITERATIONS", 40),
        mock.patch.object(chance_probes, "DETERMINISM_ITERATIONS", 30),
        mock.patch.object(chance_probes, "PLAYOUT_SEARCHES", 20),
        mock.patch.object(chance_depth, "POLICY_SEARCHES", 24),
    ]
    if not strength:
        patches += [mock.patch.object(uct._Checker, name, _not_run) for name in ("one_move", "draws", "perfect")]
        patches.append(mock.patch.object(chance._Runner, "strength", _not_run))
    with ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        yield


def _status_ok(report) -> bool:
    """No check failed (in a cheap stream the strength checks wait for a check that does not exist)."""
    return not report.failed and not report.not_written


def table() -> tuple[list[tuple[str, str, str, str, str]], dict]:
    """Every slip's row (notebook, style, slip, expected function, verdict) and the correct students' false failures."""
    rows = []
    for notebook, style, name, make, expected in SLIPS:
        began = time.process_time()
        report = check(notebook, make)
        rows.append((notebook, style, name, expected, verdict(report, expected), report, time.process_time() - began))
    false = {}
    for notebook, styles in CORRECT.items():
        for style, make in styles.items():
            failures = []
            began = time.process_time()
            for stream in range(STREAMS):
                if stream == 0:
                    report = check(notebook, make(0))
                else:
                    with cheap():
                        report = check(notebook, make(1000 * stream))
                if not _status_ok(report):
                    failures.append((stream, str(report)))
            false[(notebook, style)] = failures
            print(notebook, style, round(time.process_time() - began, 2), file=sys.stderr)
    return rows, false


def _print(rows, false) -> None:
    print(f"{'nb':4}{'style':11}{'slip':46}{'expected':16}verdict")
    for notebook, style, name, expected, said, report, cpu in rows:
        seen = "" if said == "named" else "  <- " + ", ".join(f"{n}:{report[n].part}" for n in report.failed)
        print(f"{notebook:4}{style:11}{name[:45]:46}{expected:16}{said}{seen}  {cpu:.2f}")
    counts = Counter(r[4] for r in rows)
    styles = Counter(r[1] for r in rows)
    print(f"\n{len(rows)} slips ({dict(styles)}): {dict(counts)}")
    for (notebook, style), failures in false.items():
        print(f"correct {notebook} {style}: {STREAMS} seed streams, {len(failures)} false failures")


def test_every_slip_of_the_class_is_named_and_no_correct_student_fails():
    rows, false = table()
    wrong = [(r[0], r[1], r[2], r[4], str(r[5])) for r in rows if r[4] != "named"]
    assert not wrong, wrong
    assert len(rows) >= 40 and len({r[1] for r in rows}) == 4
    assert all(not failures for failures in false.values()), false


if __name__ == "__main__":
    _print(*table())
