"""Issue 40, item 3: blame follows causality; each slip named where it is made, not where it shows.

Each agent is written as a student writes it (a class of phases, a dataclass with a recursive
descent, notebook 12's functions), with one slip whose consequence used to be blamed on
another function: an ``except Exception: pass`` around the iteration (read as "ignores
``iterations``"), a root never counted in notebook 12 (read as "ValueError in ``ucb1``"), a die
that never shows face 1 (read as a slip of building the tree), ``draw_outcome`` returning the
(outcome, probability) pair (read as ``simulate_chance``'s), a wrong ``ucb1`` under a right
``select`` (read as "the root's visits as N"), ``select_move`` returning a node (read as a
generator misused), a node's player set wrongly where the node is made, in a node of the
student's own design (read as ``backpropagate``'s), and a correct but slow agent (read as "a loop
that never ends"). Every failure names the function to look at.
"""

from __future__ import annotations

import math

import pytest
import test_exercise_chance as chance
from test_exercise_blind_spots import RecursiveUCT, Vertex
from test_exercise_uct_agent import Node, Student, score

import mctslab.course.exercises.uct as uct_module
from mctslab.course.exercises import check_chance_uct, check_select, check_uct
from mctslab.ucb import SQRT2


def _only(report, failed: dict[str, str]) -> None:
    assert {name: report[name].part for name in report.failed} == failed, str(report)


# == notebook 04b ==============================================================================
class SwallowsErrors(Student):
    """Its descent does not stop at a finished game (max() of no children), and `search` hides the error."""

    def descend(self, node):
        while len(node.untried) == 0:
            node = max(node.children, key=lambda ch: score(ch, node.visits, self.c))
        return node

    def search(self, game, state):
        root = Node(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations):
            try:
                leaf = self.grow(game, self.descend(root))
                self.update(leaf, self.playout(game, leaf.state))
            except Exception:  # noqa: BLE001 - the slip
                pass
        return root


def test_an_error_swallowed_in_the_iteration_is_named_where_it_was_raised():
    report = check_uct(lambda seed: SwallowsErrors(seed=seed), show_progress=False)
    _only(report, {"one_iteration": "descend"})
    detail = report["one_iteration"].detail
    assert "raised ValueError in `descend`" in detail and "swallowed" in detail, detail
    assert "ignores `iterations`" not in detail, detail


class ReturnsTheNode(Student):
    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda ch: ch.visits)  # the node, not its move


def test_a_node_returned_as_the_move_is_not_called_a_random_generator_misused():
    report = check_uct(lambda seed: ReturnsTheNode(seed=seed), show_progress=False)
    _only(report, {"legal": "select_move"})
    assert report.status("determinism") == "passed", str(report)


class WhoIsToMove(RecursiveUCT):
    """Its nodes keep `who`, not `player`; the slip is where a node is made."""

    def search(self, game, state):
        top = Vertex(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations):
            v = self.down(top)
            if v.todo:
                m = v.todo.pop(self.r.randrange(len(v.todo)))
                s = game.apply(v.state, m)
                kid = Vertex(s, m, v, game.to_move(s), list(game.legal_moves(s)))  # the slip: the player to move
                v.children.append(kid)
                v = kid
            s = v.state
            while not game.is_terminal(s):
                s = game.apply(s, self.r.choice(game.legal_moves(s)))
            result = game.returns(s)
            while v is not None:
                v.visits, v.wins, v = v.visits + 1, v.wins + result[v.who], v.up
        return top


def test_a_wrong_player_made_with_the_node_is_blamed_on_expand_in_a_node_of_its_own_design():
    report = check_uct(lambda seed: WhoIsToMove(seed=seed), show_progress=False)
    _only(report, {"point_of_view": "expand"})
    detail = report["point_of_view"].detail
    assert "`who`" in detail and "`backpropagate` rightly credits" in detail, detail


class QuadraticDescent(RecursiveUCT):
    """Correct, but every iteration ranks every node against every other: O(n^2) work per iteration."""

    def down(self, v):
        everyone = [v]
        for w in everyone:
            everyone.extend(w.children)
        for w in everyone:
            w.rank = sum(1 for o in everyone if o.visits > w.visits)
        return super().down(v)


def test_a_slow_agent_is_told_too_slow_with_what_was_measured(monkeypatch):
    monkeypatch.setattr(uct_module, "call_limit", lambda iterations: 0.25)  # a cheap test: 0.25 s of CPU per call
    report = check_uct(lambda seed: QuadraticDescent(seed=seed), show_progress=False)
    failed = report.failed[0]
    detail = report[failed].detail
    assert report[failed].part == "down", str(report)
    assert "too slow" in detail and "CPU time" in detail and "never ends" not in detail, detail


def wrong_ucb1(wins, visits, parent_visits, c=SQRT2):
    if visits == 0:
        return math.inf
    return wins / visits + c * math.sqrt(2 * math.log(parent_visits) / visits)  # the 2 twice


def test_check_select_judges_select_with_the_reference_ucb1_and_says_so():
    space = {"ucb1": wrong_ucb1}
    exec(  # a notebook: `select` calls the notebook's global `ucb1`
        "def select(node, c):\n"
        "    while not node.untried and node.children:\n"
        "        parent = node\n"
        "        node = max(parent.children, key=lambda ch: ucb1(ch.wins, ch.visits, parent.visits, c))\n"
        "    return node\n",
        space,
    )
    report = check_select(space["select"])
    assert report.ok, str(report)
    assert "reference `ucb1` in place of yours" in report["descent"].detail, str(report)
    assert space["ucb1"] is wrong_ucb1  # restored


# == notebook 12 ===============================================================================
@pytest.fixture
def slip():
    def replace(function, name=None):
        chance.PARTS[name or function.__name__] = function
        return check_chance_uct(lambda seed: chance.ChanceUCT(seed=seed), show_progress=False)

    yield replace
    chance.PARTS.update(chance.CORRECT)


def test_a_root_never_counted_is_named_in_backpropagate_not_in_a_correct_ucb1(slip):
    def backpropagate(leaf, returns):
        while leaf.parent:  # stops below the root
            leaf.visits += 1
            leaf.wins += returns[leaf.player]
            leaf = leaf.parent

    report = slip(backpropagate)
    _only(report, {"factory": "backpropagate"})
    assert "stops before the root" in report["factory"].detail, str(report)


def test_a_die_that_never_shows_a_face_is_blamed_on_draw_outcome(slip):
    def draw_outcome(game, state, rng):
        faces = [face for face, p in game.chance_outcomes(state) if face != 1]  # "face 1 is a bust"
        weights = [p for face, p in game.chance_outcomes(state) if face != 1]
        return rng.choices(faces, weights)[0]

    report = slip(draw_outcome)
    _only(report, {"outcomes": "draw_outcome"})
    assert "face 1 (probability 3/10) never came" in report["outcomes"].detail, str(report)


def test_a_drawn_pair_is_blamed_on_draw_outcome(slip):
    def draw_outcome(game, state, rng):
        pairs = game.chance_outcomes(state)
        return rng.choices(pairs, [p for _, p in pairs])[0]  # the pair, not its outcome

    report = slip(draw_outcome)
    _only(report, {"factory": "draw_outcome"})
    assert "(outcome, probability) pair" in report["factory"].detail, str(report)


def test_every_failure_names_its_function_in_the_text_and_in_the_data(slip):
    def expand_chance(game, node, outcome, rng):
        if outcome is None:
            return chance.expand(game, node, rng)
        child = chance.TreeNode(game.apply(node.state, outcome), node.player, 0, node, [])  # every outcome is 0
        node.children.append(child)
        return child

    report = slip(expand_chance)
    assert report.failed, str(report)
    for name in report.failed:
        check = report[name]
        assert check.part and f"`{check.part}`" in check.to_dict()["detail"], str(report)
        assert f"`{check.part}`" in str(report), str(report)
