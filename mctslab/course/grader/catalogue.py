"""The exercises the grader knows: for each notebook, its parts, the check of each, and what it needs.

Adding another notebook's exercises: one :class:`Exercise` in :data:`EXERCISES` (its
parts' points go in :mod:`.points`). A part names the check function (imported by the
grader before any student code runs), the expression that hands the student's code to
it (evaluated in the student's namespace after their cells ran) and keyword arguments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .points import POINTS

__all__ = ["EXERCISES", "Exercise", "Part", "identify"]


@dataclass(frozen=True)
class Part:
    """One graded part of an exercise.

    Attributes:
        name: the column in ``grades.csv``, named after the student's function (``"select"``).
        check: ``"module:function"`` of the check (returns a ``Report``).
        argument: Python expression giving the check its argument, in the student's
            namespace (``"select"``, ``"lambda seed: MyUCT(seed=seed)"``).
        needs: the names the student defines for this part (missing: not written).
        kwargs: keyword arguments of the check.
    """

    name: str
    check: str
    argument: str
    needs: tuple[str, ...]
    kwargs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Exercise:
    """A notebook's exercises.

    Attributes:
        key: the notebook's number (``"04b"``), the key of :data:`.points.POINTS`.
        parts: its parts, in the order they are checked.
        skip_calls: names whose calls in the student's cells are not run by the grader
            (the notebook's own checks and matches: the grader runs its own).
        extra: the source of the instructor's extra checks its ``"<extra>:..."`` parts call
            (:mod:`.extras`; empty without any).
    """

    key: str
    parts: tuple[Part, ...]
    skip_calls: frozenset[str]
    extra: str = ""

    @property
    def points(self) -> dict[str, float]:
        """Points per part (from :data:`.points.POINTS`; an extra check's come from ``--points``: 0 here)."""
        return {part.name: float(POINTS[self.key].get(part.name, 0.0)) for part in self.parts}

    @property
    def names(self) -> set[str]:
        """Every name the student defines for the exercise."""
        return {name for part in self.parts for name in part.needs}


_EX = "mctslab.course.exercises"

EXERCISES: dict[str, Exercise] = {
    "04b": Exercise(
        key="04b",
        parts=(
            Part("ucb1", f"{_EX}:check_ucb1", "ucb1", ("ucb1",)),
            Part("select", f"{_EX}:check_select", "select", ("select",)),
            Part("expand", f"{_EX}:check_expand", "expand", ("expand",)),
            Part("simulate", f"{_EX}:check_simulate", "simulate", ("simulate",)),
            Part("backpropagate", f"{_EX}:check_backpropagate", "backpropagate", ("backpropagate",)),
            Part("uct", f"{_EX}:check_uct", "lambda seed: MyUCT(seed=seed)", ("MyUCT",), {"show_progress": False}),
            Part("wilson", f"{_EX}:check_wilson", "wilson", ("wilson",)),
        ),
        skip_calls=frozenset(
            {
                "check_ucb1",
                "check_select",
                "check_expand",
                "check_simulate",
                "check_backpropagate",
                "check_uct",
                "check_wilson",
                "play_student_match",
                "display",
            }
        ),
    ),
    "12": Exercise(
        key="12",
        parts=(
            Part(
                "chance_uct",
                f"{_EX}:check_chance_uct",
                "lambda seed: ChanceUCT(seed=seed)",
                ("draw_outcome", "select_chance", "expand_chance", "simulate_chance"),
                {"show_progress": False},
            ),
        ),
        # The notebook's long runs read stored data the submission does not carry: not run.
        skip_calls=frozenset({"check_chance_uct", "run_pig_match", "duel", "holds", "display"}),
    ),
}
"""The notebooks the grader marks, by key."""


def identify(filename: str, defined: set[str]) -> Exercise | None:
    """The exercise of a submission: by the names its cells define, the file name only a hint.

    A notebook that defines at least half of one exercise's names (its stubs, written or not)
    holds that exercise, whatever its file is called (a 04b saved as ``hw-12.ipynb`` is a 04b).
    Otherwise the exercise's key standing alone in the file name decides (``12_chance_nodes.ipynb``,
    ``alice-04b.ipynb``; ``12`` is not the key of ``12b_hidden_information.ipynb`` nor of
    ``2012.ipynb``); failing that, the exercise sharing the most names with it, if any.
    """

    def share(exercise: Exercise) -> float:
        return len(exercise.names & defined) / len(exercise.names)

    best = max(EXERCISES.values(), key=share, default=None)
    if best is not None and share(best) >= 0.5:
        return best
    lowered = filename.lower()
    for key, exercise in EXERCISES.items():
        if re.search(rf"(?<![0-9a-z]){re.escape(key)}(?![0-9a-z])", lowered):
            return exercise
    return best if best is not None and best.names & defined else None
