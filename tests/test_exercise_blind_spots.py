"""Issue 40's blind spots: wrong agents that passed every check, each now failing the check that names its function.

Notebook 04b (``check_uct``): a selection that never goes below the root's children (``if``
for ``while``, in a loop or in a recursion) passed "selection follows UCB1 at every depth"
with 0 choices below depth 1; a selection that goes on below a node with untried moves
passed "the tree grows below the root" with 9 nodes in 8 levels. Notebook 12
(``check_chance_uct``): an outcome's node made with no untried moves, a selection that stops
at the outcome's node it reaches, a child's ``player`` set to ``1 - parent.player`` (wrong
after a roll when the roller moves again), a playout that never holds. Each slip is written
as a student writes it (a class whose methods are the phases, notebook functions, a
recursive class of its own nodes), not as the reference; each fails exactly the check that
names its function, and the checks pass correct agents of three styles in several seed
streams (the new checks are exact, except ``playout_policy``, whose margin is derived in
:mod:`mctslab.course.exercises.chance_depth`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest
from test_exercise_blame import agent_of
from test_exercise_chance import ChanceUCT, DiceMCTS, Leaf, backpropagate, draw_outcome, select_chance, ucb1
from test_exercise_parts import expand  # the student's `expand` from 04b, pasted into notebook 12
from test_exercise_uct_agent import Student
from test_exercises_uct import select

from mctslab.course.exercises import TreeNode, check_chance_uct, check_uct
from mctslab.course.exercises.chance import _Runner
from mctslab.course.exercises.chance_depth import POLICY_ALPHA, POLICY_SEARCHES, policy_win
from mctslab.course.exercises.chance_probes import acceptance
from mctslab.course.exercises.uct import _Checker
from mctslab.games import CHANCE
from mctslab.games.pig import HOLD, ROLL
from mctslab.ucb import SQRT2


def _only(report, failed: dict[str, str]) -> None:
    """``report`` failed exactly the checks ``failed`` (name -> the function it names); the others passed or waited."""
    assert report.failed == list(failed), str(report)
    assert {name: report[name].part for name in report.failed} == failed, str(report)
    assert all(c.status in ("passed", "skipped") for c in report.checks if c.name not in failed), str(report)


# == notebook 04b ==============================================================================


# -- a third style: a dataclass node, recursion for the descent -----------------------------
@dataclass(eq=False)
class Vertex:
    state: Any
    move: Any
    up: Vertex | None
    who: int  # the player who made `move`
    todo: list
    children: list = field(default_factory=list)
    visits: int = 0
    wins: float = 0.0


class RecursiveUCT:
    def __init__(self, seed=None, iterations=400):
        self.r = random.Random(seed)
        self.iterations = iterations

    def down(self, v):
        if v.todo or not v.children:
            return v
        log_n = math.log(v.visits)
        best = max(v.children, key=lambda k: k.wins / k.visits + SQRT2 * math.sqrt(log_n / k.visits))
        return self.down(best)

    def search(self, game, state):
        top = Vertex(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations):
            v = self.down(top)
            if v.todo:
                m = v.todo.pop(self.r.randrange(len(v.todo)))
                s = game.apply(v.state, m)
                kid = Vertex(s, m, v, game.to_move(v.state), list(game.legal_moves(s)))
                v.children.append(kid)
                v = kid
            s = v.state
            while not game.is_terminal(s):
                s = game.apply(s, self.r.choice(game.legal_moves(s)))
            result = game.returns(s)
            while v is not None:
                v.visits, v.wins, v = v.visits + 1, v.wins + result[v.who], v.up
        return top

    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda k: k.visits).move


class RecursionStopsAtOneLevel(RecursiveUCT):
    def down(self, v):
        if v.todo or not v.children:
            return v
        log_n = math.log(v.visits)
        return max(v.children, key=lambda k: k.wins / k.visits + SQRT2 * math.sqrt(log_n / k.visits))  # no recursion


class IfForWhile(Student):
    def descend(self, node):
        if len(node.untried) == 0 and len(node.children) > 0:  # `if`: one step down, never two
            node = self.pick(node)
        return node


def select_below_untried(node, c=SQRT2):
    while node.children:  # goes on while the node has children, even with untried moves left
        parent = node
        node = max(parent.children, key=lambda ch: ucb1(ch.wins, ch.visits, parent.visits, c))
    return node


def agent_of_select(select_function):
    """Notebook 04b's style: plain functions, a class that calls them (``select`` replaced)."""
    return agent_of(select=select_function)


SLIPS_04B = {
    "`if` for `while` in a class's descent": (IfForWhile, "`while` loop, not an `if`"),
    "a recursive descent that does not recurse": (RecursionStopsAtOneLevel, "`while` loop, not an `if`"),
    "a descent below untried moves (notebook functions)": (agent_of_select(select_below_untried), "untried moves"),
}


@pytest.mark.parametrize("slip", SLIPS_04B)
def test_a_selection_that_stops_early_or_goes_too_deep_fails_the_tree_check_naming_select(slip):
    agent_class, words = SLIPS_04B[slip]
    report = check_uct(lambda seed: agent_class(seed=seed), show_progress=False)
    _only(report, {"tree": "select"})
    assert words in report["tree"].detail, str(report)
    assert report.status("selection") == "skipped", str(report)  # never a pass with no choice below the root


@pytest.mark.parametrize("agent_class", [IfForWhile, RecursionStopsAtOneLevel])
def test_the_selection_check_itself_fails_a_selection_that_stops_at_depth_one(agent_class):
    """Issue 40: "0 choices at depth 2 and more follow UCB1" passed; the probe now sees where selection stopped."""
    checker = _Checker(lambda seed: agent_class(seed=seed))
    checker.agent(0)
    ok, detail = checker.selection()
    assert not ok and "without choosing a child" in detail and "0 choices" not in detail, detail


def test_the_selection_check_never_passes_with_no_choice_below_the_root():
    """Issue 40's vacuous pass: a tree that never grows below the root gave "0 choices at depth 2 and more"."""
    from test_exercises_uct import NeverExpanded

    checker = _Checker(lambda seed: NeverExpanded(seed=seed))
    checker.agent(0)
    ok, detail = checker.selection()
    assert not ok and "(0 choices)" in detail and "`while` loop" in detail, detail


def test_a_tree_of_a_chain_is_not_a_tree_that_grows():
    """Issue 40: 9 nodes in 8 levels after 200 iterations passed; the count and the levels are now read."""
    checker = _Checker(lambda seed: agent_of_select(select_below_untried)(seed=seed))
    checker.agent(0)
    ok, detail, part = checker.tree()
    assert not ok and part == "select", detail
    assert "9 nodes (by depth: 1, 1, 1, 1, 1, 1, 1, 1, 1)" in detail, detail


CORRECT_04B = {
    "a class of phases": Student,
    "notebook functions": agent_of_select(select),
    "a recursive dataclass": RecursiveUCT,
}


@pytest.mark.parametrize("style", CORRECT_04B)
def test_correct_agents_pass_the_growth_and_depth_checks_in_several_seed_streams(style):
    agent_class = CORRECT_04B[style]
    for stream in range(3):
        checker = _Checker(lambda seed, stream=stream: agent_class(seed=seed + 1000 * stream))
        checker.agent(0)
        assert checker.tree()[0], (stream, checker.tree())
        ok, detail = checker.selection()
        assert ok, (stream, detail)


def test_a_recursive_dataclass_agent_passes_every_check():
    report = check_uct(lambda seed: RecursiveUCT(seed=seed), show_progress=False)
    assert report.ok, str(report)


# == notebook 12 ===============================================================================


def expand_chance(game, node, outcome, rng):
    if outcome is None:
        return PARTS["expand"](game, node, rng)
    after = game.apply(node.state, outcome)
    kid = TreeNode(after, node.player, outcome, node, list(game.legal_moves(after)))
    node.children.append(kid)
    return kid


def simulate_chance(game, node, rng):
    state = node.state
    while not game.is_terminal(state):
        if game.to_move(state) == CHANCE:
            state = game.apply(state, draw_outcome(game, state, rng))
        else:
            moves = game.legal_moves(state)
            state = game.apply(state, moves[rng.randrange(len(moves))])
    return game.returns(state)


CORRECT_12 = {"expand": expand, "expand_chance": expand_chance, "select_chance": select_chance,
              "simulate_chance": simulate_chance}  # fmt: skip
PARTS = dict(CORRECT_12)


class DiceStudent:
    """A student's notebook 12: the skeleton's loop over their own functions (looked up in ``PARTS``)."""

    def __init__(self, seed=None, iterations=300, c=SQRT2):
        self.iterations, self.c, self.rng = iterations, c, random.Random(seed)

    def search(self, game, state):
        root = TreeNode.root(game, state)
        for _ in range(self.iterations):
            node, outcome = PARTS["select_chance"](game, root, self.rng, self.c)
            node = PARTS["expand_chance"](game, node, outcome, self.rng)
            backpropagate(node, PARTS["simulate_chance"](game, node, self.rng))
        return root

    def select_move(self, game, state):
        return max(self.search(game, state).children, key=lambda child: child.visits).move


@pytest.fixture
def slip12():
    """``slip12(function)``: the student's notebook 12 with ``function`` in place of the part of the same name."""

    def replace(function):
        PARTS[function.__name__] = function
        return check_chance_uct(lambda seed: DiceStudent(seed=seed), show_progress=False)

    yield replace
    PARTS.update(CORRECT_12)


def test_the_students_notebook_12_passes_every_check():
    report = check_chance_uct(lambda seed: DiceStudent(seed=seed), show_progress=False)
    assert report.ok, str(report)


def test_an_outcome_node_made_without_untried_moves_fails_growth_naming_expand_chance(slip12):
    def expand_chance(game, node, outcome, rng):
        if outcome is None:
            return PARTS["expand"](game, node, rng)
        kid = TreeNode(game.apply(node.state, outcome), node.player, outcome, node)  # the slip: no untried moves
        node.children.append(kid)
        return kid

    report = slip12(expand_chance)
    _only(report, {"growth": "expand_chance"})
    assert "never grew a child" in report["growth"].detail, str(report)


def test_a_selection_that_stops_at_the_outcome_it_reaches_fails_growth_naming_select_chance(slip12):
    def select_chance(game, node, rng, c=SQRT2):
        while True:
            if game.to_move(node.state) == CHANCE:
                face = draw_outcome(game, node.state, rng)
                for kid in node.children:
                    if kid.move == face:
                        return kid, None  # the slip: stops at the outcome's node instead of going on
                return node, face
            if node.untried or not node.children:
                return node, None
            n = node.visits
            node = max(node.children, key=lambda k: ucb1(k.wins, k.visits, n, c))

    report = slip12(select_chance)
    _only(report, {"growth": "select_chance"})
    assert "Selection stops at the outcome's node it reaches" in report["growth"].detail, str(report)


def test_a_childs_player_flipped_from_its_parents_fails_players_naming_expand(slip12):
    def expand(game, node, rng):
        if len(node.untried) == 0:
            return node
        move = node.untried.pop(rng.randrange(len(node.untried)))
        after = game.apply(node.state, move)
        kid = TreeNode(after, 1 - node.player, move, node, list(game.legal_moves(after)))  # the slip
        node.children.append(kid)
        return kid

    report = slip12(expand)
    _only(report, {"players": "expand"})
    assert "1 - its parent's `player`" in report["players"].detail, str(report)
    assert "at depth 3" in report["players"].detail, str(report)


def test_a_playout_that_never_holds_fails_the_playout_policy_naming_simulate_chance(slip12):
    def simulate_chance(game, node, rng):
        state = node.state
        while not game.is_terminal(state):
            if game.to_move(state) == CHANCE:
                state = game.apply(state, draw_outcome(game, state, rng))
            elif ROLL in game.legal_moves(state):
                state = game.apply(state, ROLL)  # the slip: "rolling is how you score"
            else:
                state = game.apply(state, HOLD)
        return game.returns(state)

    report = slip12(simulate_chance)
    _only(report, {"playout_policy": "simulate_chance"})
    assert "always the first legal move; in Pig: always roll, never hold" in report["playout_policy"].detail


# -- the same slips in a recursive agent of the student's own nodes (no `player`, no `untried`) --
class StopsAtTheOutcome(DiceMCTS):
    def step(self, game, n):
        if game.to_move(n.state) == CHANCE and not game.is_terminal(n.state):
            face = self.roll(game, n.state)
            hits = [k for k in n.children if k.move == face]
            if hits:  # the slip: a playout from the outcome's node, not a step into it
                kid = hits[0]
                result = self.playout(game, kid.state)
                kid.visits, kid.wins = kid.visits + 1, kid.wins + result[kid.mover]
                n.visits += 1
                n.wins += result[n.mover]
                return result
        return super().step(game, n)


class FlipsTheMover(DiceMCTS):
    def step(self, game, n):
        if not game.is_terminal(n.state) and game.to_move(n.state) != CHANCE and n.todo is None:
            n.todo = list(game.legal_moves(n.state))
            self.rand.shuffle(n.todo)
        if not game.is_terminal(n.state) and game.to_move(n.state) != CHANCE and n.todo:
            m = n.todo.pop()
            kid = Leaf(game.apply(n.state, m), m, 1 - n.mover, n)  # the slip: players alternate
            n.children.append(kid)
            result = self.playout(game, kid.state)
            kid.visits, kid.wins = 1, result[kid.mover]
            n.visits += 1
            n.wins += result[n.mover]
            return result
        return super().step(game, n)


def test_an_outcome_never_gone_into_by_a_recursive_agent_fails_growth_naming_both_suspects():
    """Its nodes keep no `untried`: made without moves or never gone into look alike, and the message says both."""
    report = check_chance_uct(StopsAtTheOutcome, show_progress=False)
    _only(report, {"growth": "expand_chance"})
    assert "never grew a child" in report["growth"].detail and "`select_chance`" in report["growth"].detail


def test_a_recursive_agent_whose_players_alternate_fails_players_naming_expand():
    """Its nodes keep `mover`, not `player`: the finished games' wins show that they count the other player."""
    report = check_chance_uct(FlipsTheMover, show_progress=False)
    _only(report, {"players": "expand"})
    assert "counts the other player's results" in report["players"].detail, str(report)


CORRECT_CHANCE = {"the skeleton": lambda seed: ChanceUCT(seed=seed), "a recursive class": DiceMCTS,
                  "the student's notebook": lambda seed: DiceStudent(seed=seed)}  # fmt: skip


@pytest.mark.parametrize("style", CORRECT_CHANCE)
def test_correct_agents_pass_the_new_chance_checks_in_several_seed_streams(style):
    make = CORRECT_CHANCE[style]
    for stream in range(3):
        runner = _Runner(lambda seed, stream=stream: make(seed + 10_000 * stream), show_progress=False)
        for name in ("growth", "players", "playout_policy"):
            ok, detail, *_ = getattr(runner, name)()
            assert ok, (style, stream, name, detail)
        runner.bar.close()


def test_the_policy_checks_margins():
    """A deterministic playout fails at any number of choices from 23 on; the exact win probabilities are as stated."""
    assert acceptance(22, Fraction(1, 2), POLICY_ALPHA) == (0, 22)  # 22 choices all alike: still plausible
    for n in range(23, POLICY_SEARCHES + 1):
        lo, hi = acceptance(n, Fraction(1, 2), POLICY_ALPHA)
        assert 0 < lo and hi < n, n
    assert (policy_win(0), policy_win(1)) == (Fraction(101, 200), Fraction(17, 20))
