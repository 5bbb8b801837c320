"""No global state leaks from the exercise checks, and a student's RecursionError is named as the student's.

Issue 40: ``check_simulate`` computed an exact answer (:mod:`mctslab.exact.enumeration`), which
raised the recursion limit to 10,000 for the rest of the process; a student's search that
recurses once per iteration, which fails at Python's default limit in a fresh kernel, then
passed ``check_uct`` run after it. The enumeration now raises the limit only while it
recurses, and every check restores what it could change (:mod:`mctslab.course.exercises.isolation`).
"""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest
from test_exercise_chance import ChanceUCT
from test_exercise_uct_agent import Node, Student
from test_exercises_uct import expand, select, simulate

from mctslab import make_game
from mctslab.course.exercises import check_chance_uct, check_expand, check_select, check_simulate, check_uct
from mctslab.course.exercises.isolation import global_state
from mctslab.exact import random_play_odds, solve
from mctslab.exact.enumeration import _enumeration

DEFAULT_LIMIT = 1000
"""Python's default recursion limit: what a fresh kernel, and the grader's fresh process, allow."""


@pytest.fixture
def fresh_limit():
    """The recursion limit of a fresh process for the test (whatever earlier tests left), restored after."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(DEFAULT_LIMIT)
    yield
    sys.setrecursionlimit(before)


class RecursiveSearch(Student):
    """A student's search that calls itself once per iteration: fails at 2,000 iterations in a fresh process."""

    def search(self, game, state, root=None, left=None):
        if root is None:
            root = Node(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
            left = self.iterations
        if left == 0:
            return root
        leaf = self.grow(game, self.descend(root))
        self.update(leaf, self.playout(game, leaf.state))
        return self.search(game, state, root, left - 1)


def test_exact_answers_leave_the_recursion_limit_as_they_found_it(fresh_limit):
    game = make_game("tictactoe")
    _enumeration.cache_clear()  # a cold cache: the enumeration recurses (the old code raised the limit here)
    assert solve(game) == 0 and random_play_odds(game).first > 0.5
    assert sys.getrecursionlimit() == DEFAULT_LIMIT


def test_a_recursive_search_fails_check_uct_after_check_simulate_and_is_named(fresh_limit):
    _enumeration.cache_clear()
    assert check_simulate(simulate).ok
    assert sys.getrecursionlimit() == DEFAULT_LIMIT
    report = check_uct(lambda seed: RecursiveSearch(seed=seed), show_progress=False)
    assert report.failed == ["perfect"], str(report)  # 2,000 iterations: deeper than the default limit
    assert report["perfect"].part == "search", str(report)
    detail = report["perfect"].detail
    assert "RecursionError: `search` calls itself" in detail and "not in your code" not in detail, detail


class Meddler(Student):
    """A student whose agent changes the process's global state: it is theirs, and the checks put it back."""

    def search(self, game, state):
        random.random()  # the random module's own generator
        np.random.random()  # NumPy's  # noqa: NPY002 - the student's slip, on purpose
        sys.setrecursionlimit(5000)
        return super().search(game, state)


def test_the_checks_leave_the_globals_as_they_found_them(fresh_limit):
    random.seed(1)
    np.random.seed(1)  # noqa: NPY002 - a state to compare, never drawn from here
    before = global_state()
    check_uct(lambda seed: Meddler(seed=seed), show_progress=False)
    assert global_state() == before
    check_chance_uct(lambda seed: ChanceUCT(seed=seed), show_progress=False)
    assert global_state() == before

    def select_that_meddles(node, c=1.4):
        sys.setrecursionlimit(3000)
        return select(node, c)

    for check, function in ((check_select, select_that_meddles), (check_expand, expand), (check_simulate, simulate)):
        check(function)
        assert global_state() == before, check.__name__


def test_a_recursion_in_code_not_known_as_the_students_is_still_named_as_the_agents(fresh_limit):
    """Code run through ``exec`` has no file of the student's: the RecursionError is still not "the check's"."""
    namespace: dict = {}
    exec(compile("def search(n):\n    return search(n + 1)\n", "<string>", "exec"), namespace)  # noqa: S102

    class Exec(Student):
        def search(self, game, state):
            if self.iterations > 1000:
                namespace["search"](0)
            return super().search(game, state)

    report = check_uct(lambda seed: Exec(seed=seed), show_progress=False)
    assert report.failed == ["perfect"] and report["perfect"].part == "search", str(report)
    assert "Python's recursion limit, 1000, was reached" in report["perfect"].detail, str(report)
