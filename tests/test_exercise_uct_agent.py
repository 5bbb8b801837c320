"""check_uct on whole agents written as students write them: each slip gets its named diagnosis, nothing hangs.

The agents here are written for this test, the way a student of notebook 04b writes one
(an own node class, plain loops, module-level functions called from ``search``), not the
package's reference and not the notebook's solution. A correct one passes; each slip
below fails the check that names it, with the numbers seen; an endless loop fails within
its time limit; the package's own UCT (subclassed or wrapped) does not pass as the
student's. The statistical checks are run over many seed streams: the correct agent
passes every one, each slip fails every one.
"""

from __future__ import annotations

import math
import random

import pytest
from machine_load import CpuClock, burn

from mctslab import UCT
from mctslab import engine as compiled_engine
from mctslab.course.exercises import check_uct, play_student_match
from mctslab.course.exercises.report import FAILED, PASSED, SKIPPED
from mctslab.course.exercises.statistics import StudentAgentError
from mctslab.course.exercises.uct import CHECKS, _Checker, call_limit


# -- a student's agent --------------------------------------------------------------------
class Node:
    def __init__(self, state, parent, move, player, untried):
        self.state = state
        self.parent = parent
        self.move = move
        self.player = player  # who played `move`
        self.untried = untried
        self.children = []
        self.visits = 0
        self.wins = 0


def score(child, parent_visits, c):
    if child.visits == 0:
        return math.inf
    return child.wins / child.visits + c * math.sqrt(math.log(parent_visits) / child.visits)


class Student:
    def __init__(self, iterations=500, c=1.4142135623730951, seed=None):
        self.iterations = iterations
        self.c = c
        self.rng = random.Random(seed)

    def pick(self, node):
        best, best_score = None, -1.0
        for child in node.children:
            s = score(child, node.visits, self.c)
            if s > best_score:
                best, best_score = child, s
        return best

    def descend(self, node):
        while len(node.untried) == 0 and len(node.children) > 0:
            node = self.pick(node)
        return node

    def grow(self, game, node):
        if len(node.untried) == 0:
            return node
        i = self.rng.randrange(len(node.untried))
        move = node.untried[i]
        del node.untried[i]
        state = game.apply(node.state, move)
        child = Node(state, node, move, game.to_move(node.state), list(game.legal_moves(state)))
        node.children.append(child)
        return child

    def playout(self, game, state):
        while not game.is_terminal(state):
            moves = game.legal_moves(state)
            state = game.apply(state, moves[self.rng.randrange(len(moves))])
        return game.returns(state)

    def update(self, node, result):
        while node is not None:
            node.visits += 1
            node.wins += result[node.player]
            node = node.parent

    def search(self, game, state):
        root = Node(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(self.iterations):
            leaf = self.grow(game, self.descend(root))
            self.update(leaf, self.playout(game, leaf.state))
        return root

    def final(self, root):
        best = root.children[0]
        for child in root.children:
            if child.visits > best.visits:
                best = child
        return best.move

    def select_move(self, game, state):
        return self.final(self.search(game, state))


# -- the slips, each in the method where a student makes it --------------------------------
class SignSlip(Student):
    def update(self, node, result):
        while node is not None:
            node.visits += 1
            node.wins += result[0]  # X's result everywhere
            node = node.parent


class RootNeverCounted(Student):
    def update(self, node, result):
        while node.parent is not None:  # stops below the root
            node.visits += 1
            node.wins += result[node.player]
            node = node.parent


class EndlessBackup(Student):
    def update(self, node, result):
        while node is not None:
            node.visits += 1
            node.wins += result[node.player]  # forgot node = node.parent


class HardCodedBudget(Student):
    def search(self, game, state):
        root = Node(state, None, None, 1 - game.to_move(state), list(game.legal_moves(state)))
        for _ in range(20000):
            leaf = self.grow(game, self.descend(root))
            self.update(leaf, self.playout(game, leaf.state))
        return root


class HugeBudget(HardCodedBudget):
    def search(self, game, state):
        self.iterations = 10**9  # "more is better"
        return Student.search(self, game, state)


class RootN(Student):
    def descend(self, node):
        root = node
        while len(node.untried) == 0 and len(node.children) > 0:
            best, best_score = None, -1.0
            for child in node.children:
                s = score(child, root.visits, self.c)  # the root's visits at every depth
                if s > best_score:
                    best, best_score = child, s
            node = best
        return node


class MostWins(Student):
    def final(self, root):
        best = root.children[0]
        for child in root.children:
            if child.wins > best.wins:
                best = child
        return best.move


def forgot_return_score(child, parent_visits, c):
    if child.visits == 0:
        return math.inf
    child.wins / child.visits + c * math.sqrt(math.log(parent_visits) / child.visits)  # no return


class SameOldPlayout(Student):
    def playout(self, game, state):
        while not game.is_terminal(state):
            moves = game.legal_moves(state)
            state = game.apply(state, moves[-1])  # "any move will do"
        return game.returns(state)


class ForgotReturnInScore(Student):
    def pick(self, node):
        return max(node.children, key=lambda ch: forgot_return_score(ch, node.visits, self.c))


class ForgotReturnInDescend(Student):
    def descend(self, node):
        while len(node.untried) == 0 and len(node.children) > 0:
            node = self.pick(node)
        node  # noqa: B018 - the return a student forgot


class SubclassOfPackage(UCT):
    """A student's class that inherits everything from the package's UCT and writes nothing."""


class WrapsPackage:
    def __init__(self, iterations=500, seed=None):
        self.iterations, self.seed = iterations, seed

    def search(self, game, state):
        return UCT(iterations=self.iterations, seed=self.seed).search(game, state)

    def select_move(self, game, state):
        return UCT(iterations=self.iterations, seed=self.seed).select_move(game, state)


def check(agent_class, **kwargs):
    return check_uct(lambda seed: agent_class(seed=seed, **kwargs), show_progress=False)


def failed_with(report, name, *words):
    assert report.failed == [name], str(report)
    for w in words:
        assert w in report[name].detail, str(report)
    assert report[name].part is not None
    return report[name]


# -- the three students of the issue, and every slip ---------------------------------------
def test_a_correct_student_passes_every_check_with_parts_and_times():
    with CpuClock() as clock:
        report = check(Student)
    assert report.ok, str(report)
    assert [c.name for c in report.checks] == list(CHECKS)
    data = report.to_dict()
    assert all(c["part"] and c["seconds"] >= 0 for c in data["checks"])
    assert clock.seconds < 30, clock.seconds  # CPU time: the wall clock (report.seconds) would measure the load


def test_playouts_that_always_play_the_same_moves_are_named_with_the_results_seen():
    """Every other check passes them (the games against perfect play too, before this check existed)."""
    report = check(SameOldPlayout)
    c = failed_with(report, "playouts", "ended in one result only", "all", "times", "at random")
    assert c.part == "simulate"
    assert report.status("perfect") == SKIPPED  # it waits for the playouts


def test_the_tail_of_the_single_result_count_is_exact():
    from fractions import Fraction
    from itertools import product

    from mctslab.course.exercises.playout_probes import tail

    chances = [Fraction(1, 3), Fraction(1, 7), Fraction(2, 5), Fraction(9, 10)]
    for at_least in range(6):
        brute = Fraction(0)
        for happened in product((0, 1), repeat=len(chances)):
            if sum(happened) >= at_least:
                term = Fraction(1)
                for q, h in zip(chances, happened, strict=True):
                    term *= q if h else 1 - q
                brute += term
        assert tail(chances, at_least) == brute, at_least


def test_the_sign_slip_is_named_with_the_numbers_seen():
    c = failed_with(check(SignSlip), "point_of_view", "counts X's results", "should be", "but it has")
    assert c.part == "backpropagate"


def test_a_root_never_counted_is_named_not_the_math_domain_error():
    report = check(RootNeverCounted)
    c = failed_with(report, "one_iteration", "root has 0 visits", "log(N)", "math domain error")
    assert c.part == "backpropagate"
    assert "raised ValueError" not in str(report)


def test_an_endless_backpropagate_fails_within_its_limit():
    with CpuClock() as clock:
        report = check(EndlessBackup)
    assert clock.seconds < call_limit(1) + 3, clock.seconds  # stopped once, at its limit; the rest is skipped
    c = failed_with(report, "one_iteration", "did not return within 3 s of CPU time", "`update`", "`node.parent`")
    assert "at 1 iteration" in c.detail and c.part == "update"


@pytest.mark.load
def test_a_hard_coded_budget_is_named_quickly(monkeypatch):
    """Named by what the agent did (its root's visits, or the playouts the check counted past the budget
    it gave), never by how far it got in so many seconds: the diagnosis holds on any machine. (Each call
    gets 1 s of CPU time here, not 3: the same diagnosis, a third of the time under load.)"""
    from mctslab.course.exercises import uct

    monkeypatch.setattr(uct, "call_limit", lambda iterations: 1.0)
    with CpuClock() as clock:
        report = check(HardCodedBudget)
    assert clock.seconds < 1.0 + 3, clock.seconds
    detail = report["one_iteration"].detail
    if "did not return" in detail:  # a machine too slow for 20,000 iterations in 1 s of CPU time
        failed_with(report, "one_iteration", "`self.iterations`", "playouts (counted by the check), more than the 1")
    else:
        failed_with(report, "one_iteration", "`iterations` = 1", "20000 visits")
    with CpuClock() as clock:
        report = check(HugeBudget)
    assert clock.seconds < 1.0 + 3, clock.seconds
    failed_with(
        report, "one_iteration", "did not return within 1 s of CPU time", "`self.iterations`",
        "playouts (counted by the check), more than the 1 it was given",
    )  # fmt: skip


def test_the_class_passed_instead_of_a_factory_is_told_to_pass_a_factory():
    report = check_uct(Student, show_progress=False)
    failed_with(report, "factory", "Pass a factory: `check_uct(lambda seed: Student(seed=seed))`")
    assert "searched differently" not in str(report)

    class SeedFirst(Student):
        def __init__(self, seed=None):
            super().__init__(seed=seed)

    assert check_uct(SeedFirst, show_progress=False).ok  # a class taking the seed first is a factory


def test_root_n_at_every_depth_is_caught_below_the_root():
    c = failed_with(check(RootN), "selection", "root's", "at depth 2")
    assert c.part == "select"


def test_the_most_wins_final_move_is_caught():
    c = failed_with(check(MostWins), "most_visited", "most wins", "(10 visits)")
    assert c.part == "select_move"


@pytest.mark.parametrize(("agent", "culprit"), [(ForgotReturnInScore, "forgot_return_score"),
                                                (ForgotReturnInDescend, "descend")])  # fmt: skip
def test_a_forgotten_return_names_the_function_that_returned_none(agent, culprit):
    report = check(agent)
    c = failed_with(report, "one_iteration", f"`{culprit}` returned None")
    assert c.part == culprit
    assert "_Checker" not in c.detail and "uct.py" not in c.detail


@pytest.mark.parametrize("agent", [SubclassOfPackage, WrapsPackage])
def test_the_packages_uct_does_not_pass_as_the_students(agent):
    report = check(agent)
    c = failed_with(report, "factory", "package")
    assert not report.ok and c.part == "make_agent"


def test_the_packages_own_uct_does_not_pass():
    report = check_uct(lambda seed: UCT(iterations=300, seed=seed), show_progress=False)
    failed_with(report, "factory", "is the package's UCT")


def test_an_interrupt_still_stops_the_check():
    class Interrupted(Student):
        def search(self, game, state):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check(Interrupted)


# -- the statistical checks over many seed streams ------------------------------------------
def stream(agent_class, s, **kwargs):
    """An agent factory whose seeds are the check's seeds moved to stream ``s``."""
    return lambda seed: agent_class(seed=1_000_003 * s + seed, **kwargs)


def test_a_correct_uct_passes_the_statistical_checks_in_every_seed_stream():
    # The package's UCT on its compiled engine, for speed: the same algorithm as a student's (these checks do not
    # ask whose code it is; tests/test_engine.py checks that both engines choose moves with the same frequencies).
    engine = "compiled" if compiled_engine.available() else "python"
    for s in range(200):
        checker = _Checker(stream(UCT, s, engine=engine))
        for name in ("one_move", "draws"):
            ok, detail = getattr(checker, name)()
            assert ok, (s, name, detail)
    for s in range(25):
        ok, detail = _Checker(stream(UCT, s, engine=engine)).perfect()
        assert ok, (s, detail)


def test_each_slip_fails_its_check_in_every_seed_stream():
    class DrawsAsLosses(Student):
        def update(self, node, result):
            while node is not None:
                node.visits += 1
                node.wins += 1 if result[node.player] == 1 else 0
                node = node.parent

    for s in range(50):
        assert not _Checker(stream(SignSlip, s)).one_move()[0], s
        assert not _Checker(stream(DrawsAsLosses, s)).draws()[0], s
        for agent in (SignSlip, DrawsAsLosses):
            checker = _Checker(stream(agent, s))
            checker.agent(0)
            assert not checker.point_of_view()[0], (agent, s)
        checker = _Checker(stream(RootN, s))
        checker.agent(0)
        assert not checker.selection()[0], s


def test_the_probes_pass_a_correct_agent_in_every_seed_stream():
    for s in range(50):
        checker = _Checker(stream(Student, s))
        checker.agent(0)
        for name in ("one_iteration", "point_of_view", "most_visited", "selection"):
            ok, detail = getattr(checker, name)()
            assert ok, (s, name, detail)


def test_a_failed_check_keeps_the_checks_that_passed():
    report = check(SignSlip)
    assert report.status("legal") == PASSED and report.status("point_of_view") == FAILED


# -- the match against the package's UCT ----------------------------------------------------
def test_a_match_stops_with_a_clear_error_when_the_student_overruns_a_move():
    with (
        CpuClock() as clock,
        pytest.raises(
            StudentAgentError,
            match=r"game 1 of 2 .*move 1: your agent's select_move did not return within 1 s of CPU time "
            r"\(it was running `update`\)",
        ),
    ):
        play_student_match(lambda s: EndlessBackup(iterations=5, seed=s), "uct:iterations=5", games=2, move_seconds=1)
    assert clock.seconds < 1 + 2, clock.seconds


def test_a_match_stops_with_a_clear_error_at_an_illegal_move():
    class Illegal(Student):
        def select_move(self, game, state):
            return 99

    with pytest.raises(StudentAgentError, match=r"returned 99, not a legal move; legal moves: \[0, 1, 2"):
        play_student_match(lambda s: Illegal(iterations=5, seed=s), "uct:iterations=5", games=1)
    with pytest.raises(ValueError, match="move_seconds"):
        play_student_match(lambda s: Student(iterations=5, seed=s), "uct:iterations=5", games=1, move_seconds=0)
    outcomes = play_student_match(lambda s: Student(iterations=20, seed=s), "uct:iterations=20", games=2)
    assert outcomes.games == 2


@pytest.mark.load
def test_a_slow_agent_is_stopped_by_the_limit_of_the_whole_check(monkeypatch):
    from mctslab.course.exercises import uct

    class Slow(Student):
        def search(self, game, state):
            burn(0.3)  # slow: it computes (a sleep costs no CPU time; the wall-clock backstop is for those)
            return super().search(game, state)

    bars = []

    def progress(total, description):
        bars.append(total)
        return real_progress(total, description, enabled=False)

    real_progress = uct.progress
    monkeypatch.setattr(uct, "progress", progress)
    with monkeypatch.context() as later:  # a run shorter than PROGRESS_AFTER (on the wall: what a person waits)
        later.setattr(uct, "PROGRESS_AFTER", 1e6)
        assert check_uct(lambda seed: Student(seed=seed)).ok and bars == []  # shows no progress bar
    monkeypatch.setattr(uct, "TOTAL_SECONDS", 1.2)
    monkeypatch.setattr(uct, "PROGRESS_AFTER", 0.8)  # (2 s in the package: shorter here, to spend less)
    with CpuClock() as clock:
        report = check_uct(lambda seed: Slow(seed=seed))
    assert clock.seconds < 1.2 + 1.5, clock.seconds
    assert bars == [len(CHECKS)]  # a slow one (1.2 s of CPU time, so 1.2 s on the wall at least) does, after 0.8 s
    stopped = [c for c in report.checks if "check_uct stopped after 1.2 s of CPU time" in c.detail]
    assert len(stopped) == 1 and stopped[0].status == FAILED, str(report)
    after = report.checks[report.checks.index(stopped[0]) + 1 :]
    assert after and all("ran out of its 1.2 s" in c.detail for c in after), str(report)


@pytest.mark.load
def test_the_limit_of_the_whole_check_firing_between_two_checks_fails_the_next_one(monkeypatch):
    """The limit can fire in the checker's own code, after one check and before the next is recorded
    (a loaded machine): the student still sees one failed check saying why, not only skipped ones."""
    from mctslab.course.exercises import uct

    real_check, made = uct.Check, []

    def slow_record(*args, **kwargs):  # recording a check's result is where the time runs out
        made.append(args[0])
        if len(made) <= 3:
            burn(0.45)
        return real_check(*args, **kwargs)

    monkeypatch.setattr(uct, "Check", slow_record)
    monkeypatch.setattr(uct, "TOTAL_SECONDS", 1.0)
    report = check_uct(lambda seed: Student(seed=seed), show_progress=False)
    names = [c.name for c in report.checks]
    assert names == list(CHECKS), names  # every check reported once, in order
    stopped = [c for c in report.checks if "check_uct stopped after 1 s" in c.detail]
    assert len(stopped) == 1 and stopped[0].status == FAILED, str(report)
    after = report.checks[report.checks.index(stopped[0]) + 1 :]
    assert after and all(c.status == SKIPPED and "ran out of its 1 s" in c.detail for c in after), str(report)
    assert not report.ok


def test_a_tree_with_a_node_reached_twice_fails_instead_of_hanging():
    class Cycle(Student):
        def search(self, game, state):
            root = super().search(game, state)
            root.children[0].children.append(root)  # a node its own descendant
            return root

    failed_with(check(Cycle), "one_iteration", "reaches a node twice")


# -- the probes' positions are what they claim ----------------------------------------------
def test_the_point_of_view_positions_reach_wins_of_both_players_and_draws_within_two_moves():
    from mctslab import make_game
    from mctslab.course.exercises import position
    from mctslab.course.exercises.agent_probes import POINT_OF_VIEW, VIEW_ITERATIONS, _replay

    game, seen = make_game("tictactoe"), set()
    for seed, cells in enumerate(POINT_OF_VIEW):
        state = position(cells)
        root = Student(iterations=VIEW_ITERATIONS, seed=10 + seed).search(game, state)
        for _, after, _, depth in _replay(game, state, root):
            if game.is_terminal(after):
                seen.add((tuple(game.returns(after)), depth))
    for depth in (1, 2):
        assert {((1.0, 0.0), depth), ((0.0, 1.0), depth), ((0.5, 0.5), depth)} <= seen, seen


def test_the_selection_probe_checks_many_choices_below_the_root():
    import re

    checker = _Checker(lambda seed: Student(seed=seed))
    checker.agent(0)
    ok, detail = checker.selection()
    assert ok, detail
    assert int(re.search(r"(\d+) choices at depth 2 and more", detail).group(1)) >= 40, detail
