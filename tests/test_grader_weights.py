"""Issue 40, item 4: partial credit by severity; a check not reached is shown as such, never as failed.

Three slips graded as the grader grades them (its ``mark`` on the reports the checks
return, without kernels), each written as a student writes it: one iteration too many (a
class of phases: the budget is off, every result right), a selection that stops one level
down (notebook functions: a shallow search), and a child's player flipped from its parent's
in notebook 12 (wrong results at depth 3 and more in Pig). With the weights beside the checks
(3 a wrong result, 2 a result off in degree, 1 a secondary check) they score 99.26, 85.96 and
80.65 of 100 (04b with its playouts check), in the order of their severity; before, by counting
checks, 76.92 (every check after the first waited), 97 and 100 (the last two passed everything
there was).
"""

from __future__ import annotations

import pytest
import test_exercise_blind_spots as blind
from test_exercise_blind_spots import DiceStudent, agent_of_select
from test_exercise_parts import expand as students_expand
from test_exercise_uct_agent import Node, Student

from mctslab.course.exercises import check_chance_uct, check_select, check_uct
from mctslab.course.grader.catalogue import EXERCISES
from mctslab.course.grader.html import _student
from mctslab.course.grader.points import POINTS, share
from mctslab.course.grader.run import mark
from mctslab.course.grader.scheme import default_scheme

FULL = {"checks": [{"status": "passed", "weight": 1.0}]}


def _grade(notebook: str, reports: dict) -> float:
    """The grader's score of a submission whose parts not in ``reports`` pass every check."""
    results = {part: {"report": reports.get(part, FULL)} for part in POINTS[notebook]}
    return round(sum(mark(EXERCISES[notebook], results, set(), default_scheme()).values()), 2)


class OneTooMany(Student):
    def search(self, game, state):
        root = Node(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations + 1):  # the slip
            leaf = self.grow(game, self.descend(root))
            self.update(leaf, self.playout(game, leaf.state))
        return root


def one_level(node, c):
    if not node.untried and node.children:  # `if` for `while`
        parent = node
        node = max(parent.children, key=lambda ch: blind.ucb1(ch.wins, ch.visits, parent.visits, c))
    return node


def flipped_expand(game, node, rng):
    if len(node.untried) == 0:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    after = game.apply(node.state, move)
    kid = blind.TreeNode(after, 1 - node.player, move, node, list(game.legal_moves(after)))  # the slip
    node.children.append(kid)
    return kid


@pytest.fixture
def flipped():
    blind.PARTS["expand"] = flipped_expand
    yield
    blind.PARTS["expand"] = students_expand


def test_slips_score_in_the_order_of_their_severity(flipped):
    extra = check_uct(lambda seed: OneTooMany(seed=seed), show_progress=False)
    assert extra.failed == ["budget"] and "one iteration too many" in extra["budget"].detail, str(extra)
    shallow = check_uct(lambda seed: agent_of_select(one_level)(seed=seed), show_progress=False)
    deep_player = check_chance_uct(lambda seed: DiceStudent(seed=seed), show_progress=False)
    assert deep_player.failed == ["players"], str(deep_player)
    scores = {
        "one extra iteration": _grade("04b", {"uct": extra.to_dict()}),
        "one-level selection": _grade("04b", {"uct": shallow.to_dict(), "select": check_select(one_level).to_dict()}),
        "wrong player below depth 2": _grade("12", {"chance_uct": deep_player.to_dict()}),
    }
    assert scores == {"one extra iteration": 99.26, "one-level selection": 85.96, "wrong player below depth 2": 80.65}


def test_weights_make_a_wrong_result_cost_more_than_a_secondary_check():
    assert share([{"status": "passed", "weight": 3}, {"status": "failed", "weight": 1}]) == 0.75
    assert share([{"status": "failed", "weight": 3}, {"status": "passed", "weight": 1}]) == 0.25
    assert share([{"status": "passed"}, {"status": "skipped"}]) == 0.5  # a report without weights: each counts 1


def test_a_check_not_reached_is_shown_as_not_reached_on_the_page():
    report = {"summary": "1 of 2 checks passed", "checks": [
        {"name": "a", "title": "first", "status": "failed", "detail": "look at `search`: wrong", "weight": 3},
        {"name": "b", "title": "second", "status": "skipped", "detail": "runs once 'first' passes", "weight": 3},
    ]}  # fmt: skip
    page = _student({"score": 0, "max_score": 25, "points": {"uct": 0}, "reports": {"uct": {"report": report}}})
    assert ">not reached</td>" in page and ">skipped</td>" not in page, page
