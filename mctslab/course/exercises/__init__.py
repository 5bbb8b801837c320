"""Exercise checks for the notebooks: a student's code in, a report with diagnoses out.

Every check returns a :class:`Report` (a table in a notebook, text elsewhere) and never
raises for a student's mistake or for a stub that still raises ``NotImplementedError``
(it says "not written yet"), so a notebook runs without errors with or without its
reference solutions. Each diagnosis names the mistake in plain words without giving
the code away. ``tests/test_exercises_uct.py`` shows, for every classic mistake, a
deliberately broken version that fails exactly the check named after it.

* :func:`check_uct`: a whole UCT agent (notebook 04b);
* :func:`check_chance_uct`: that agent with chance nodes added (notebook 12);
* :func:`check_ucb1`, :func:`check_select`, :func:`check_expand`, :func:`check_simulate`,
  :func:`check_backpropagate`: its parts, one at a time, on small hand-built trees
  of :class:`TreeNode`;
* :func:`check_wilson`: the Wilson interval of a win rate (tournament statistics);
* :func:`play_student_match`: the student's agent against another, scored with a Wilson interval.
"""

from .chance import check_chance_uct
from .parts import check_expand, check_select, check_ucb1
from .playout_parts import check_backpropagate, check_simulate
from .report import Check, Report
from .statistics import check_wilson, play_student_match
from .tree import ArmsGame, TreeNode
from .uct import check_uct, position

__all__ = [
    "ArmsGame",
    "Check",
    "Report",
    "TreeNode",
    "check_backpropagate",
    "check_chance_uct",
    "check_expand",
    "check_select",
    "check_simulate",
    "check_uct",
    "check_ucb1",
    "check_wilson",
    "play_student_match",
    "position",
]
