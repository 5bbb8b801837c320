"""The part checks of notebook 04b against student-style answers: the right one passes, each slip is named.

Every answer here is written as a student writes it (plain loops on the course's
:class:`TreeNode`, the game's rules, no code of the package's agents), one function per
slip of :mod:`mctslab.course.exercises.parts_diagnoses`; the test of the catalogue runs
each and checks that the report names exactly that slip, blames the student's function
(``Check.part``) and never a frame of the checker. Endless loops stop at their limit,
and the package's own implementation (or a wrapper of it) does not pass.
"""

from __future__ import annotations

import math
import random

import pytest
from machine_load import CpuClock, burn, busy_machine

from mctslab import make_game
from mctslab.course.exercises import (
    TreeNode,
    check_backpropagate,
    check_expand,
    check_select,
    check_simulate,
    check_ucb1,
    runner,
    uniformity,
)
from mctslab.course.exercises.parts import _deep_tree, _descend
from mctslab.course.exercises.parts_diagnoses import DIAGNOSES, diagnosis
from mctslab.course.exercises.report import FAILED, PASSED, SKIPPED
from mctslab.ucb import SQRT2

CHECKS = {
    "ucb1": check_ucb1,
    "select": check_select,
    "expand": check_expand,
    "simulate": check_simulate,
    "backpropagate": check_backpropagate,
}


# -- the right answers, as a student writes them ----------------------------------------
def ucb1(wins, visits, parent_visits, c=SQRT2):
    if visits == 0:
        return math.inf
    mean = wins / visits
    return mean + c * math.sqrt(math.log(parent_visits) / visits)


def select(node, c=SQRT2):
    while len(node.untried) == 0 and len(node.children) > 0:
        best, best_value = None, -math.inf
        for child in node.children:
            value = ucb1(child.wins, child.visits, node.visits, c)
            if value > best_value:
                best, best_value = child, value
        node = best
    return node


def expand(game, node, rng):
    if len(node.untried) == 0:
        return node
    i = rng.randrange(len(node.untried))
    move = node.untried[i]
    del node.untried[i]
    new_state = game.apply(node.state, move)
    child = TreeNode(new_state, game.to_move(node.state), move, node, list(game.legal_moves(new_state)))
    node.children.append(child)
    return child


def simulate(game, node, rng):
    state = node.state
    while not game.is_terminal(state):
        moves = game.legal_moves(state)
        state = game.apply(state, moves[rng.randrange(len(moves))])
    return game.returns(state)


def backpropagate(node, returns):
    current = node
    while current is not None:
        current.visits = current.visits + 1
        current.wins = current.wins + returns[current.player]
        current = current.parent


RIGHT = {"ucb1": ucb1, "select": select, "expand": expand, "simulate": simulate, "backpropagate": backpropagate}


# -- one student per slip ---------------------------------------------------------------
def _ucb(exploration):
    def slip(wins, visits, parent_visits, c=SQRT2):
        if visits == 0:
            return math.inf
        return exploration(wins, visits, parent_visits, c)

    return slip


def ucb1_no_return(wins, visits, parent_visits, c=SQRT2):
    if visits == 0:
        return math.inf
    wins / visits + c * math.sqrt(math.log(parent_visits) / visits)  # noqa: B018 - the slip


def ucb1_pair(wins, visits, parent_visits, c=SQRT2):
    if visits == 0:
        return math.inf
    return wins / visits, c * math.sqrt(math.log(parent_visits) / visits)


def ucb1_unvisited_zero(wins, visits, parent_visits, c=SQRT2):
    if visits == 0:
        return 0.0
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def ucb1_no_guard(wins, visits, parent_visits, c=SQRT2):
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def _select_by(score, until_untried=True, levels=None):
    def slip(node, c=SQRT2):
        root, level = node, 0
        while (not node.untried or not until_untried) and node.children and (levels is None or level < levels):
            parent = node
            node = max(parent.children, key=lambda ch: score(ch, parent, root, c))
            level += 1
        return node

    return slip


def select_no_return(node, c=SQRT2):
    while not node.untried and node.children:
        node = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, node.visits, c))


def select_inverted(node, c=SQRT2):
    while node.untried and node.children:  # the condition turned around
        node = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, node.visits, c))
    return node


def select_counting(node, c=SQRT2):
    while not node.untried and node.children:
        node.visits += 1  # counted here and again by backpropagation
        node = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, node.visits, c))
    return node


def select_no_children_test(node, c=SQRT2):
    while not node.untried:
        node = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, node.visits, c))
    return node


_by_ucb1 = _select_by(lambda ch, parent, root, c: ucb1(ch.wins, ch.visits, parent.visits, c))


def _expand_with(pick=None, player=None, untried=True, attach=True, parent=True, remove=True, shared=False):
    def slip(game, node, rng):
        if not node.untried:
            return node
        i = pick(node, rng) if pick else rng.randrange(len(node.untried))
        move = node.untried.pop(i) if remove else node.untried[i]
        state = game.apply(node.state, move)
        mover = player(game, node.state, state) if player else game.to_move(node.state)
        child = TreeNode(state, mover, move, node if parent else None, game.legal_moves(state) if untried else ())
        if shared:
            child.untried = game.legal_moves(state)  # the game's own list, not a copy
        if attach:
            node.children.append(child)
        return child

    return slip


def expand_no_return(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    state = game.apply(node.state, move)
    node.children.append(TreeNode(state, game.to_move(node.state), move, node, game.legal_moves(state)))


def expand_bare_return(game, node, rng):
    if not node.untried:
        return
    return expand(game, node, rng)


def _simulate_with(choose, finish=None):
    def slip(game, node, rng):
        state = node.state
        while not game.is_terminal(state):
            state = game.apply(state, choose(list(game.legal_moves(state)), rng))
        return finish(game, state) if finish else game.returns(state)

    return slip


def simulate_moving_the_node(game, node, rng):
    while not game.is_terminal(node.state):
        node.state = game.apply(node.state, rng.choice(game.legal_moves(node.state)))
    return game.returns(node.state)


def simulate_no_return(game, node, rng):
    state = node.state
    while not game.is_terminal(state):
        state = game.apply(state, rng.choice(game.legal_moves(state)))


def _backup(credit, stop_before_root=False, climb=True):
    def slip(node, returns):
        while node is not None and not (stop_before_root and node.parent is None):
            node.visits += 1
            node.wins += credit(node, returns)
            node = node.parent if climb else None

    return slip


def backpropagate_siblings_too(node, returns):
    while node is not None:
        for other in node.parent.children if node.parent else [node]:
            other.visits += 1  # the whole family instead of the node
        node.wins += returns[node.player]
        node = node.parent


def backpropagate_flipping(node, returns):
    while node is not None:
        node.visits += 1
        node.wins += returns[node.player]
        returns[0], returns[1] = returns[1], returns[0]  # "turn it round for the parent"
        node = node.parent


def _never_last(moves, rng):
    return moves[int(rng.random() * (len(moves) - 1))]  # off by one: the last move is never played


SLIPS = {
    ("ucb1", "no_return"): ucb1_no_return,
    ("ucb1", "not_a_number"): ucb1_pair,
    ("ucb1", "unvisited_finite"): ucb1_unvisited_zero,
    ("ucb1", "divides_by_zero"): ucb1_no_guard,
    ("ucb1", "wins_for_mean"): _ucb(lambda w, n, N, c: w + c * math.sqrt(math.log(N) / n)),
    ("ucb1", "log_of_child"): _ucb(lambda w, n, N, c: w / n + c * math.sqrt(math.log(n) / n)),
    ("ucb1", "two_inside"): _ucb(lambda w, n, N, c: w / n + c * math.sqrt(2 * math.log(N) / n)),
    ("ucb1", "two_outside"): _ucb(lambda w, n, N, c: w / n + 2 * math.sqrt(math.log(N) / n)),
    ("ucb1", "c_ignored"): _ucb(lambda w, n, N, c: w / n + SQRT2 * math.sqrt(math.log(N) / n)),
    ("ucb1", "no_square_root"): _ucb(lambda w, n, N, c: w / n + c * math.log(N) / n),
    ("ucb1", "divides_by_parent"): _ucb(lambda w, n, N, c: w / n + c * math.sqrt(math.log(N) / N)),
    ("ucb1", "no_exploration"): _ucb(lambda w, n, N, c: w / n),
    ("select", "no_return"): select_no_return,
    ("select", "past_untried"): _select_by(lambda ch, p, r, c: ucb1(ch.wins, ch.visits, p.visits, c), False),
    ("select", "stays_at_root"): select_inverted,
    ("select", "best_mean"): _select_by(lambda ch, p, r, c: ch.wins / ch.visits),
    ("select", "most_visits"): _select_by(lambda ch, p, r, c: ch.visits),
    ("select", "one_level"): _select_by(lambda ch, p, r, c: ucb1(ch.wins, ch.visits, p.visits, c), levels=1),
    ("select", "root_visits"): _select_by(lambda ch, p, r, c: ucb1(ch.wins, ch.visits, r.visits, c)),
    ("select", "changes_tree"): select_counting,
    ("select", "no_stop_without_children"): select_no_children_test,
    ("expand", "no_return"): expand_no_return,
    ("expand", "not_attached"): _expand_with(attach=False),
    ("expand", "no_parent"): _expand_with(parent=False),
    ("expand", "move_stays_untried"): _expand_with(remove=False),
    ("expand", "wrong_player"): _expand_with(player=lambda game, before, after: game.to_move(after)),
    ("expand", "no_untried"): _expand_with(untried=False),
    ("expand", "not_random"): _expand_with(pick=lambda node, rng: len(node.untried) - 1),
    ("expand", "global_random"): _expand_with(pick=lambda node, rng: random.randrange(len(node.untried))),
    ("expand", "unseeded"): _expand_with(pick=lambda node, rng: random.Random().randrange(len(node.untried))),
    ("expand", "shared_moves"): _expand_with(shared=True),
    ("expand", "terminal_not_returned"): expand_bare_return,
    ("simulate", "no_return"): simulate_no_return,
    ("simulate", "winner"): _simulate_with(lambda m, rng: rng.choice(m), lambda game, s: game.winner(s)),
    ("simulate", "one_number"): _simulate_with(lambda m, rng: rng.choice(m), lambda game, s: game.returns(s)[0]),
    ("simulate", "draw_as_loss"): _simulate_with(
        lambda m, rng: rng.choice(m), lambda game, s: (0.0, 0.0) if game.winner(s) is None else game.returns(s)
    ),
    ("simulate", "global_random"): _simulate_with(lambda m, rng: random.choice(m)),
    ("simulate", "unseeded"): _simulate_with(lambda m, rng: random.Random().choice(m)),
    ("simulate", "moves_node"): simulate_moving_the_node,
    ("simulate", "not_uniform"): _simulate_with(_never_last),
    ("backpropagate", "leaf_only"): _backup(lambda node, r: r[node.player], climb=False),
    ("backpropagate", "root_not_counted"): _backup(lambda node, r: r[node.player], stop_before_root=True),
    ("backpropagate", "off_path"): backpropagate_siblings_too,
    ("backpropagate", "sign_slip"): _backup(lambda node, r: r[1 - node.player]),
    ("backpropagate", "fixed_player"): _backup(lambda node, r: r[0]),
    ("backpropagate", "draw_as_loss"): _backup(lambda node, r: 1.0 if r[node.player] == 1.0 else 0.0),
    ("backpropagate", "changes_returns"): backpropagate_flipping,
}


# -- endless loops and the package's own code -------------------------------------------
def ucb1_endless(wins, visits, parent_visits, c=SQRT2):
    total = 0.0
    while parent_visits > 0:  # parent_visits is never decreased
        total += 1.0
    return total


def select_endless(node, c=SQRT2):
    while not node.untried and node.children:
        best = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, node.visits, c))  # noqa: F841
    return node


def expand_endless(game, node, rng):
    while node.untried:
        move = node.untried[rng.randrange(len(node.untried))]  # never removed
    return node if not node.untried else TreeNode(game.apply(node.state, move), 0)


def simulate_endless(game, node, rng):
    state = node.state
    while not game.is_terminal(node.state):  # tests the node's state, which never changes
        state = game.apply(state, rng.choice(game.legal_moves(state))) if not game.is_terminal(state) else state
    return game.returns(state)


def backpropagate_endless(node, returns):
    while node is not None:
        node.visits += 1
        node.wins += returns[node.player]  # and no node = node.parent


ENDLESS = {
    "ucb1": ucb1_endless,
    "select": select_endless,
    "expand": expand_endless,
    "simulate": simulate_endless,
    "backpropagate": backpropagate_endless,
}


def ucb1_package(wins, visits, parent_visits, c=SQRT2):
    from mctslab.ucb import ucb1 as theirs

    return theirs(wins / visits if visits else 0.0, parent_visits, visits, c)


def select_package(node, c=SQRT2):
    from mctslab.agents.rules import UCB1, best_child_by

    while not node.untried and node.children:
        node = best_child_by(UCB1(c), node)
    return node


def select_rule_package(node, c=SQRT2):
    from mctslab.agents.rules import UCB1

    return UCB1(c).descend(node)[0]  # the selection rule object's own descent


def expand_package(game, node, rng):
    from mctslab.agents.uct import UCT

    agent = UCT(iterations=1, seed=0)
    agent.rng = rng
    return UCT.expand(agent, game, node)


def simulate_package(game, node, rng):
    return game.rollout(node.state, rng)


def backpropagate_package(node, returns):
    from mctslab.agents.node import Node

    while node is not None:
        Node.add(node, returns[node.player])
        node = node.parent


PACKAGE = {
    "ucb1": ucb1_package,
    "select": select_package,
    "expand": expand_package,
    "simulate": simulate_package,
    "backpropagate": backpropagate_package,
}


# -- the tests ----------------------------------------------------------------------------
@pytest.mark.parametrize("part", CHECKS)
def test_the_right_answer_passes_and_every_check_names_its_part_and_time(part):
    with CpuClock() as clock:
        report = CHECKS[part](RIGHT[part])
    assert report.ok, str(report)
    data = report.to_dict()
    assert data["ok"] and all(c["part"] == part and c["seconds"] >= 0 for c in data["checks"])
    assert clock.seconds < 5, clock.seconds  # CPU time: the wall clock (report.seconds) would measure the load


def test_every_diagnosis_of_the_catalogue_has_a_student_here():
    named = {(d.part, d.name) for d in DIAGNOSES if d.check != "*"}
    assert named == set(SLIPS)
    assert {d.name for d in DIAGNOSES if d.check == "*"} == {"endless_loop", "package_code"}
    assert len({(d.part, d.name) for d in DIAGNOSES}) == len(DIAGNOSES)
    with pytest.raises(KeyError, match="known: "):
        diagnosis("select", "nothing")


def _no_checker_frame(detail):
    for frame in ("<listcomp>", "<genexpr>", "<lambda>", "`point_of_view`", "`formula`", "`run`", "`uniform`"):
        assert frame not in detail, detail


@pytest.mark.parametrize(("part", "name"), sorted(SLIPS))
def test_each_slip_gets_its_named_diagnosis_with_what_was_expected(part, name):
    d = diagnosis(part, name)
    report = CHECKS[part](SLIPS[(part, name)])
    check = report[d.check]
    assert check.status == FAILED, str(report)
    assert check.detail.startswith(d.says), str(report)
    assert check.part == part and not report.ok
    _no_checker_frame(check.detail)
    for other in report.checks:  # whatever else fails is blamed on the same function, never on the checker
        assert other.part == part
        _no_checker_frame(other.detail)


NUMBERS = {
    ("backpropagate", "sign_slip"): ["[1.0, 0.0, 1.0]", "expected [0.0, 1.0, 0.0]"],
    ("backpropagate", "root_not_counted"): ["[0, 1, 1]", "expected [1, 1, 1]"],
    ("select", "root_visits"): ["N = 1000", "N = 30", "move 10"],
    ("ucb1", "log_of_child"): ["yours", "UCB1"],
    ("ucb1", "no_return"): ["is a `return` missing"],
    ("select", "no_return"): ["is a `return` missing"],
    ("expand", "no_return"): ["is a `return` missing"],
    ("simulate", "no_return"): ["is a `return` missing"],
    ("simulate", "winner"): ["0 from a position X has won", "(1.0, 0.0)"],
    ("simulate", "not_uniform"): ["was played 0 times", "accepted"],
    ("expand", "wrong_player"): ["(0)", "(1,"],
}


@pytest.mark.parametrize("slip", sorted(NUMBERS))
def test_the_diagnoses_give_the_numbers_expected_and_seen(slip):
    d = diagnosis(*slip)
    detail = CHECKS[slip[0]](SLIPS[slip])[d.check].detail
    for words in NUMBERS[slip]:
        assert words in detail, detail


@pytest.mark.load
@pytest.mark.parametrize("part", CHECKS)
def test_an_endless_loop_fails_within_its_limit_and_the_rest_is_skipped(part, monkeypatch):
    monkeypatch.setattr(runner, "CALL_SECONDS", 0.3)
    with CpuClock() as clock:
        report = CHECKS[part](ENDLESS[part])
    assert clock.seconds < 2.0, clock.seconds  # 0.3 s in the loop, the rest the checks' own work
    failed = [c for c in report.checks if c.status == FAILED]
    assert len(failed) == 1, str(report)
    assert failed[0].detail.startswith(f"`{part}` did not return within 0.3 s of CPU time: "), str(report)
    assert failed[0].part == part
    after = report.checks[report.checks.index(failed[0]) + 1 :]
    assert all(c.status == SKIPPED for c in after), str(report)
    assert all(c.status == PASSED for c in report.checks[: report.checks.index(failed[0])])


def test_the_default_limit_is_a_few_seconds_and_names_the_question_to_ask():
    with CpuClock() as clock:
        report = check_backpropagate(backpropagate_endless)
    assert runner.CALL_SECONDS <= clock.seconds < runner.CALL_SECONDS + 1.5, clock.seconds
    assert report["path"].detail == (
        f"`backpropagate` did not return within {runner.CALL_SECONDS:g} s of CPU time: does the loop move up to "
        "`node.parent`, and stop after the root (whose parent is None)?"
    )


@pytest.mark.load
def test_a_check_that_runs_out_of_its_overall_time_says_the_part_is_too_slow(monkeypatch):
    monkeypatch.setitem(runner.CHECK_SECONDS, "simulate", 0.3)

    def slow(game, node, rng):
        burn(0.001)  # slow code spends CPU time (a sleep spends none: only the wall-clock backstop stops it)
        return simulate(game, node, rng)

    report = check_simulate(slow)
    assert report["random"].status == FAILED and report["random"].part == "simulate", str(report)
    assert report["random"].detail.startswith(
        "`simulate` is too slow: check_simulate did not finish within 0.3 s of CPU time"
    ), str(report)


@pytest.mark.parametrize("part", CHECKS)
def test_on_a_busy_machine_the_reference_passes_every_part_check(part, monkeypatch):
    """Each part's limit leaves the reference a factor of 5 at least, in CPU time; the machine's load costs
    it only wall-clock time. Both limits are shrunk to 5 times the reference's own CPU time, measured quietly:
    with limits on the wall, two spinning processes per core (a third of a core left) made this fail."""
    with CpuClock() as quiet:
        assert CHECKS[part](RIGHT[part]).ok
    limit = max(5 * quiet.seconds, 0.05)
    assert runner.CHECK_SECONDS[part] >= 5 * quiet.seconds and runner.CALL_SECONDS >= 5 * quiet.seconds
    monkeypatch.setitem(runner.CHECK_SECONDS, part, limit)
    monkeypatch.setattr(runner, "CALL_SECONDS", limit)
    with busy_machine(per_core=2):
        report = CHECKS[part](RIGHT[part])
    assert report.ok, str(report)


def test_except_exception_in_the_students_loop_does_not_hide_it(monkeypatch):
    monkeypatch.setattr(runner, "CALL_SECONDS", 0.3)

    def stubborn(node, returns):
        while node is not None:
            try:
                node.visits += 0
            except Exception:  # noqa: BLE001, S112 - a student's catch-all
                continue

    report = check_backpropagate(stubborn)
    assert report["path"].detail.startswith("`backpropagate` did not return within 0.3 s")


def test_keyboard_interrupt_from_the_user_goes_through():
    def interrupted(node, returns):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check_backpropagate(interrupted)


@pytest.mark.parametrize("part,answer", [*PACKAGE.items(), ("select", select_rule_package)])
def test_the_package_s_own_implementation_does_not_pass(part, answer):
    report = CHECKS[part](answer)
    assert not report.ok
    failed = [c for c in report.checks if c.status == FAILED]
    assert failed and failed[0].detail.startswith(f"`{part}` runs the package's own implementation"), str(report)
    assert "write your own" in failed[0].detail.lower()
    assert all(c.status in (PASSED, SKIPPED) for c in report.checks if c is not failed[0]), str(report)


def test_a_raising_part_is_blamed_on_the_student_s_function_with_a_hint():
    report = check_select(select_no_children_test)
    detail = report["terminal"].detail
    assert detail.startswith("`select` raised ValueError in `<lambda>`") or detail.startswith(
        "`select` raised ValueError in `select_no_children_test`"
    ), detail
    assert "selection must stop" in detail


def test_a_stub_in_another_function_names_that_function():
    def my_ucb1(wins, visits, parent_visits, c=SQRT2):
        raise NotImplementedError("your code here")

    def my_select(node, c=SQRT2):
        while not node.untried and node.children:
            node = max(node.children, key=lambda ch: my_ucb1(ch.wins, ch.visits, node.visits, c))
        return node

    report = check_select(my_select)
    assert report.not_written and "fill in `my_ucb1`" in report.checks[1].detail, str(report)


def test_the_deep_selection_tree_tells_the_parent_s_visits_from_the_root_s():
    root = _deep_tree()
    want, wrong = _descend(root, SQRT2), _descend(root, SQRT2, root_visits=True)
    assert [n.move for n in want[1:]] == [1, 10, 20] and [n.move for n in wrong[1:]] == [1, 11]
    assert want[-1].untried and wrong[-1].untried
    for node in root.iter_nodes():  # a consistent tree: every node's visits are its children's sum
        assert not node.children or node.visits == sum(ch.visits for ch in node.children)
    # the slips' answers on it are all different nodes
    ends = {id(want[-1]), id(wrong[-1]), id(want[1])}
    assert len(ends) == 3


def test_the_check_leaves_the_module_random_as_it_was():
    random.seed(5)
    state = random.getstate()
    check_simulate(SLIPS[("simulate", "global_random")])
    check_expand(SLIPS[("expand", "global_random")])
    assert random.getstate() == state


# -- the statistics of check_simulate: margins derived, then tried over many seeds -------
def _tails(n, p, lo, hi):
    """Exact P(X < lo) + P(X > hi) for X ~ Binomial(n, p)."""
    pmf = [math.exp(uniformity._log_pmf(n, k, p)) for k in range(n + 1)]
    return sum(pmf[:lo]) + sum(pmf[hi + 1 :])


def _ranges():
    tail = uniformity.ALPHA / (2 * uniformity._CELLS)
    moves = [(9 - t, uniformity.acceptance(uniformity.PLAYOUTS, 1 / (9 - t), tail)) for t in range(uniformity.PLIES)]
    odds = uniformity.random_play_odds(make_game("tictactoe"))
    results = [(p, uniformity.acceptance(uniformity.PLAYOUTS, p, tail)) for p in odds]
    return moves, results


def test_a_right_playout_fails_the_uniformity_check_with_probability_below_1e_4():
    n = uniformity.PLAYOUTS
    moves, results = _ranges()
    bound = sum(k * _tails(n, 1 / k, lo, hi) for k, (lo, hi) in moves)  # k counts of each ply
    bound += sum(_tails(n, p, lo, hi) for p, (lo, hi) in results)
    assert bound < 1e-4  # the union bound over every count
    assert uniformity._CELLS == sum(k for k, _ in moves) + len(results) == 38


def test_each_statistical_slip_passes_with_probability_below_1e_3():
    n = uniformity.PLAYOUTS
    moves, _ = _ranges()
    for _, (lo, hi) in moves:  # a move never played, or played every time, is out of range: probability 0
        assert 0 < lo and hi < n
    assert moves[0][1] == (67, 160) and moves[4][1] == (143, 261)  # as the docstring of uniformity says
    # the first legal move a quarter of the time, uniform otherwise: probability 1/4 + 3/4 * 1/9 = 1/3 at ply 1
    lo, hi = moves[0][1]
    passes = 1 - _tails(n, 1 / 4 + 3 / 4 / 9, lo, hi)
    assert passes < 1e-12


def _first_often(moves, rng):
    return moves[0] if rng.random() < 0.25 else rng.choice(moves)


def _o_plays_first(moves, rng):
    return moves[0] if len(moves) % 2 == 0 else rng.choice(moves)  # O (even counts of empty cells) never draws


def _reseeded(game, node, rng):
    return _simulate_with(lambda m, r: r.choice(m))(game, node, random.Random(0))


STATISTICAL_SLIPS = {
    "never the last move": _simulate_with(_never_last),
    "the first move a quarter of the time": _simulate_with(_first_often),
    "O always plays its first legal move": _simulate_with(_o_plays_first),
    "an rng re-seeded in the function": _reseeded,
}


def _uniform(function, seed):
    game = make_game("tictactoe")
    return uniformity.uniformity(function, game, TreeNode(game.initial_state(), 1), random.Random(seed))[0]


def test_over_200_seeds_right_playouts_all_pass_and_each_slip_always_fails():
    right = _simulate_with(lambda m, rng: rng.choice(m))
    assert all(_uniform(simulate if seed % 2 else right, seed) for seed in range(200))
    for name, slip in STATISTICAL_SLIPS.items():
        seeds = range(200) if name != "an rng re-seeded in the function" else range(5)  # the seed is not used
        assert not any(_uniform(slip, seed) for seed in seeds), name


def test_a_call_instead_of_a_function_is_named_and_nothing_raises():
    report = check_ucb1(None)
    assert not report.ok and all("`ucb1` itself (without parentheses)" in c.detail for c in report.checks)


def test_other_checks_through_the_old_runner_blame_their_part():
    from mctslab.course.exercises import check_wilson

    report = check_wilson(lambda s, n, z: 1 / 0)
    assert report["formula"].part == "wilson" and report["formula"].detail.startswith("`wilson` raised ZeroDivision")


def test_returns_of_another_kind_are_read_as_pairs():
    import numpy as np

    def as_array(game, node, rng):
        return np.array(simulate(game, node, rng))

    assert check_simulate(as_array).ok


def test_the_long_check_shows_a_progress_bar(monkeypatch):
    from mctslab.course.exercises import playout_parts

    bars = []
    real = playout_parts.progress

    def spy(total, description, enabled=True):
        bars.append((total, description))
        return real(total, description, enabled=False)

    monkeypatch.setattr(playout_parts, "progress", spy)
    assert check_simulate(simulate).ok
    assert bars == [(uniformity.PLAYOUTS, "check_simulate")]


# -- other right answers pass too ---------------------------------------------------------
def _select_sum_of_children(node, c=SQRT2):
    while not node.untried and node.children:
        total = sum(ch.visits for ch in node.children)  # the parent's visits, counted another way
        node = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, total, c))
    return node


def _select_recursive(node, c=SQRT2):
    if node.untried or not node.children:
        return node
    scores = [(ucb1(ch.wins, ch.visits, node.visits, c), i) for i, ch in enumerate(node.children)]
    return _select_recursive(node.children[max(scores)[1]], c)


def _expand_choice(game, node, rng):
    if not node.untried:
        return node
    move = rng.choice(node.untried)
    node.untried.remove(move)
    state = game.apply(node.state, move)
    child = TreeNode(state, game.to_move(node.state))
    child.move, child.parent, child.untried = move, node, list(game.legal_moves(state))
    node.children.append(child)
    return child


def _expand_shuffled(game, node, rng):
    if not node.untried:
        return node
    rng.shuffle(node.untried)
    move = node.untried.pop()
    state = game.apply(node.state, move)
    node.children.append(TreeNode(state, game.to_move(node.state), move, node, game.legal_moves(state)))
    return node.children[-1]


def _backpropagate_alternating(node, returns):
    reward = returns[node.player]
    while node is not None:
        node.visits += 1
        node.wins += reward
        reward = 1 - reward  # the parent belongs to the other player
        node = node.parent


def _backpropagate_recursive(node, returns):
    node.visits += 1
    node.wins += returns[node.player]
    if node.parent is not None:
        _backpropagate_recursive(node.parent, returns)


VARIANTS = {
    "select": [_select_sum_of_children, _select_recursive],
    "expand": [_expand_choice, _expand_shuffled],
    "simulate": [
        _simulate_with(lambda m, rng: rng.choice(m)),
        _simulate_with(lambda m, rng: rng.sample(m, 1)[0]),
        _simulate_with(lambda m, rng: m[rng.randint(0, len(m) - 1)]),
    ],
    "backpropagate": [_backpropagate_alternating, _backpropagate_recursive],
}


@pytest.mark.parametrize(("part", "i"), [(p, i) for p, fs in VARIANTS.items() for i in range(len(fs))])
def test_other_right_answers_pass(part, i):
    report = CHECKS[part](VARIANTS[part][i])
    assert report.ok, str(report)


def test_exit_in_the_students_code_is_reported_not_raised():
    def leaving(node, returns):
        raise SystemExit(1)

    report = check_backpropagate(leaving)
    assert report["path"].status == FAILED and "called exit" in report["path"].detail
