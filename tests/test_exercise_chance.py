"""check_chance_uct (notebook 12's exercise): a correct agent passes; each classic slip fails the check named after it.

Two correct agents: the notebook's skeleton filled in (the functions the check blames by
name), and one written differently (its own node class, a cumulative draw, recursion).
Each slip is the skeleton with one function replaced, and must fail exactly one check,
blaming the function that was replaced; a hang is stopped at its limit; the package's UCT
is refused.
"""

from __future__ import annotations

import math
import random

import pytest
from machine_load import CpuClock, burn

from mctslab.agents.uct import UCT
from mctslab.course.exercises import TreeNode, check_chance_uct
from mctslab.course.exercises.chance_game import COIN, LOADED, DiceState, LoadedDice, exact_value
from mctslab.course.exercises.chance_probes import CHECKS, acceptance
from mctslab.games import CHANCE
from mctslab.ucb import SQRT2

# -- the skeleton of notebook 12, filled in -------------------------------------------------


def ucb1(wins, visits, parent_visits, c=SQRT2):
    if visits == 0:
        return math.inf
    return wins / visits + c * math.sqrt(math.log(parent_visits) / visits)


def expand(game, node, rng):
    if not node.untried:
        return node
    move = node.untried.pop(rng.randrange(len(node.untried)))
    state = game.apply(node.state, move)
    child = TreeNode(state, game.to_move(node.state), move, node, game.legal_moves(state))
    node.children.append(child)
    return child


def backpropagate(node, returns):
    while node is not None:
        node.visits += 1
        node.wins += returns[node.player]
        node = node.parent


def draw_outcome(game, state, rng):
    outcomes, probabilities = zip(*game.chance_outcomes(state), strict=True)
    return rng.choices(outcomes, weights=probabilities)[0]


def select_chance(game, node, rng, c=SQRT2):
    while True:
        if game.to_move(node.state) == CHANCE:
            outcome = PARTS["draw_outcome"](game, node.state, rng)
            child = next((ch for ch in node.children if ch.move == outcome), None)
            if child is None:
                return node, outcome
            node = child
        elif node.untried or not node.children:
            return node, None
        else:
            parent = node
            node = max(parent.children, key=lambda ch: ucb1(ch.wins, ch.visits, parent.visits, c))


def expand_chance(game, node, outcome, rng):
    if outcome is None:
        return expand(game, node, rng)
    state = game.apply(node.state, outcome)
    child = TreeNode(state, node.player, outcome, node, game.legal_moves(state))
    node.children.append(child)
    return child


def simulate_chance(game, node, rng):
    state = node.state
    while not game.is_terminal(state):
        if game.to_move(state) == CHANCE:
            move = PARTS["draw_outcome"](game, state, rng)
        else:
            move = rng.choice(game.legal_moves(state))
        state = game.apply(state, move)
    return game.returns(state)


CORRECT = {
    "draw_outcome": draw_outcome,
    "select_chance": select_chance,
    "expand_chance": expand_chance,
    "simulate_chance": simulate_chance,
    "backpropagate": backpropagate,
}
PARTS = dict(CORRECT)
"""The functions the agent below calls: a slip replaces one (see ``slip``)."""


class ChanceUCT:
    def __init__(self, iterations=300, c=SQRT2, seed=None):
        self.iterations = iterations
        self.c = c
        self.rng = random.Random(seed)

    def search(self, game, state):
        root = TreeNode.root(game, state)
        for _ in range(self.iterations):
            node, outcome = PARTS["select_chance"](game, root, self.rng, self.c)
            node = PARTS["expand_chance"](game, node, outcome, self.rng)
            PARTS["backpropagate"](node, PARTS["simulate_chance"](game, node, self.rng))
        return root

    def select_move(self, game, state):
        root = self.search(game, state)
        return max(root.children, key=lambda child: child.visits).move


@pytest.fixture
def slip():
    """``slip(function)``: the skeleton with ``function`` in place of the part of the same name (restored after)."""

    def replace(function):
        PARTS[function.__name__] = function
        return check_chance_uct(lambda seed: ChanceUCT(seed=seed), show_progress=False)

    yield replace
    PARTS.update(CORRECT)


def test_the_skeleton_filled_in_passes():
    report = check_chance_uct(lambda seed: ChanceUCT(seed=seed), show_progress=False)
    assert report.ok, str(report)
    assert [c.name for c in report.checks] == list(CHECKS)


# -- a correct agent written otherwise ---------------------------------------------------------


class Leaf:
    """A student's own node: the same attribute names the check reads, nothing else shared."""

    def __init__(self, state, move, mover, up):
        self.state, self.move, self.mover, self.up = state, move, mover, up
        self.children, self.visits, self.wins = [], 0, 0.0
        self.todo = None


class DiceMCTS:
    def __init__(self, seed, iterations=500):
        self.rand = random.Random(seed)
        self.iterations = iterations

    def roll(self, game, state):  # a cumulative draw from one uniform number
        u = self.rand.random()
        pairs = list(game.chance_outcomes(state))
        for face, chance in pairs:
            u -= chance
            if u < 0:
                return face
        return pairs[-1][0]

    def step(self, game, n):
        if game.is_terminal(n.state):
            result = game.returns(n.state)
        elif game.to_move(n.state) == CHANCE:
            face = self.roll(game, n.state)
            hits = [k for k in n.children if k.move == face]
            if hits:
                result = self.step(game, hits[0])
            else:
                kid = Leaf(game.apply(n.state, face), face, n.mover, n)
                n.children.append(kid)
                result = self.playout(game, kid.state)
                kid.visits, kid.wins = 1, result[kid.mover]
        else:
            if n.todo is None:
                n.todo = list(game.legal_moves(n.state))
                self.rand.shuffle(n.todo)
            if n.todo:
                m = n.todo.pop()
                kid = Leaf(game.apply(n.state, m), m, game.to_move(n.state), n)
                n.children.append(kid)
                result = self.playout(game, kid.state)
                kid.visits, kid.wins = 1, result[kid.mover]
            else:
                log_n = math.log(n.visits)
                best = max(n.children, key=lambda k: k.wins / k.visits + SQRT2 * math.sqrt(log_n / k.visits))
                result = self.step(game, best)
        n.visits += 1
        n.wins += result[n.mover]
        return result

    def playout(self, game, s):
        while not game.is_terminal(s):
            s = game.apply(
                s, self.roll(game, s) if game.to_move(s) == CHANCE else self.rand.choice(game.legal_moves(s))
            )
        return game.returns(s)

    def search(self, game, state):
        top = Leaf(state, None, 1 - game.to_move(state), None)
        for _ in range(self.iterations):
            self.step(game, top)
        return top

    def select_move(self, game, state):
        kids = self.search(game, state).children
        return sorted(kids, key=lambda k: -k.visits)[0].move


def test_a_correct_agent_written_otherwise_passes():
    report = check_chance_uct(DiceMCTS, show_progress=False)
    assert report.ok, str(report)


# -- the slips: each fails one check, which blames the part at fault ---------------------------


def _only_failure(report, name, part):
    assert report.failed == [name], str(report)
    assert report[name].part == part, str(report)
    assert all(c.status in ("passed", "skipped") for c in report.checks if c.name != name), str(report)


def test_uniform_draws_fail_the_draws_check(slip):
    def draw_outcome(game, state, rng):
        return rng.choice([face for face, _ in game.chance_outcomes(state)])

    report = slip(draw_outcome)
    _only_failure(report, "draws", "draw_outcome")
    assert "about equally often" in report["draws"].detail


def test_one_merged_child_fails_the_outcomes_check(slip):
    def select_chance(game, node, rng, c=SQRT2):
        while True:
            if game.to_move(node.state) == CHANCE:
                outcome = draw_outcome(game, node.state, rng)
                if not node.children:
                    return node, outcome
                node = node.children[0]  # the slip: the outcome drawn is not looked at
            elif node.untried or not node.children:
                return node, None
            else:
                parent = node
                node = max(parent.children, key=lambda ch: ucb1(ch.wins, ch.visits, parent.visits, c))

    _only_failure(slip(select_chance), "outcomes", "select_chance")


def test_a_chance_node_left_out_of_the_backup_fails_the_statistics_check(slip):
    def backpropagate(node, returns):
        while node is not None:
            if (
                node.state.__class__.__name__ == "PigState"
                and node.state.rolling
                or getattr(node.state, "die", -1) >= 0
            ):
                node = node.parent  # the slip: a chance node's statistics are not updated
                continue
            node.visits += 1
            node.wins += returns[node.player]
            node = node.parent

    _only_failure(slip(backpropagate), "statistics", "backpropagate")


@pytest.mark.parametrize("player", ["chance", "other"])
def test_an_outcome_scored_for_the_wrong_player_fails_the_point_of_view_check(slip, player):
    def expand_chance(game, node, outcome, rng):
        if outcome is None:
            return expand(game, node, rng)
        state = game.apply(node.state, outcome)
        mover = game.to_move(node.state) if player == "chance" else 1 - node.player  # the slip
        child = TreeNode(state, mover, outcome, node, game.legal_moves(state))
        node.children.append(child)
        return child

    report = slip(expand_chance)
    _only_failure(report, "point_of_view", "expand_chance")
    assert "player who rolled" in report["point_of_view"].detail


def test_uniform_playouts_fail_the_playouts_check(slip):
    def simulate_chance(game, node, rng):
        state = node.state
        while not game.is_terminal(state):
            state = game.apply(state, rng.choice(game.legal_moves(state)))  # the slip: chance moves uniform
        return game.returns(state)

    _only_failure(slip(simulate_chance), "playouts", "simulate_chance")


def test_draws_from_the_random_module_fail_the_determinism_check(slip):
    def draw_outcome(game, state, rng):
        outcomes, probabilities = zip(*game.chance_outcomes(state), strict=True)
        return random.choices(outcomes, weights=probabilities)[0]  # the slip: not the agent's rng

    report = slip(draw_outcome)
    _only_failure(report, "determinism", "draw_outcome")
    assert "random module" in report["determinism"].detail


def test_a_hang_is_stopped_at_its_limit_and_named(slip):
    def select_chance(game, node, rng, c=SQRT2):
        while True:  # the slip: a chance node is never left
            if game.to_move(node.state) != CHANCE and (node.untried or not node.children):
                return node, None
            if game.to_move(node.state) != CHANCE:
                node = max(node.children, key=lambda ch: ucb1(ch.wins, ch.visits, node.visits, c))

    with CpuClock() as clock:
        report = slip(select_chance)
    assert clock.seconds < 3 + 3, clock.seconds
    _only_failure(report, "factory", "select_chance")
    assert "did not return within 3 s of CPU time" in report["factory"].detail


def test_a_stub_says_not_written_yet(slip):
    def draw_outcome(game, state, rng):
        raise NotImplementedError("your code here")

    report = slip(draw_outcome)
    assert not report.failed and report.not_written, str(report)
    assert "fill in `draw_outcome`" in str(report)


def test_the_packages_uct_is_refused():
    report = check_chance_uct(lambda seed: UCT(iterations=300, seed=seed), show_progress=False)
    assert report.failed == ["factory"] and "package's UCT" in report["factory"].detail

    class Wrapper:
        def __init__(self, seed):
            self.iterations, self.inner = 300, UCT(iterations=300, seed=seed)

        def search(self, game, state):
            self.inner.iterations = self.iterations
            return self.inner.search(game, state)

        def select_move(self, game, state):
            return self.inner.select_move(game, state)

    report = check_chance_uct(Wrapper, show_progress=False)
    assert report.failed == ["factory"] and "package's own" in report["factory"].detail


# -- the positions' exact answers --------------------------------------------------------------


def test_the_exact_answers_the_checks_rely_on():
    from mctslab.course.exercises.chance_probes import _DICE, STRENGTH_POSITIONS
    from mctslab.exact.pig import solve

    pig = solve(10)
    for _, state, best in STRENGTH_POSITIONS:
        if isinstance(state, DiceState):
            values = [exact_value(_DICE, _DICE.apply(state, m), _DICE.to_move(state)) for m in (0, 1)]
            assert values[best] - values[1 - best] >= 0.25
        else:
            hold, roll = pig.sides(state.scores[0], state.scores[1], state.total)
            assert (roll, hold)[best] - (roll, hold)[1 - best] > 0.4
    coin = LoadedDice((COIN,), turns=2)
    assert 1 - exact_value(coin, DiceState(0, (1, 0), -1), 0) == COIN[0][1] * COIN[1][1]
    assert sum(p for _, p in LOADED) == 1
    lo, hi = acceptance(299, 0.6)
    assert (lo, hi) == (137, 220)  # face 0 of the loaded die, 299 draws; a uniform draw gives about 100


def test_the_strength_positions_are_answered_by_a_correct_agent_with_seeds_the_check_does_not_use():
    # The margin of the strength check rests on the reference missing none of 1,000 searches per
    # position (seeds 10,000-10,999, chance_probes' docstring); 40 more seeds per position here.
    from mctslab.course.exercises.chance_probes import _DICE, ITERATIONS, STRENGTH_POSITIONS
    from mctslab.games import make_game

    pig = make_game("pig:target=10")
    for what, state, best in STRENGTH_POSITIONS:
        game = _DICE if isinstance(state, DiceState) else pig
        moves = [ChanceUCT(ITERATIONS, seed=2000 + seed).select_move(game, state) for seed in range(40)]
        assert moves.count(best) == 40, what


def test_an_agent_that_raises_is_reported_not_raised():
    def make_agent(seed):
        return {}["iterations"]

    report = check_chance_uct(make_agent, show_progress=False)
    assert report.failed == ["factory"] and "KeyError" in report["factory"].detail
    assert report["factory"].part == "make_agent"


@pytest.mark.load
def test_the_limit_firing_between_two_checks_fails_the_next_one(monkeypatch):
    """The whole-run limit can fire in the checker's own code, between two checks: one check fails saying so."""
    from mctslab.course.exercises import chance

    real_check, made = chance.Check, []

    def slow_record(*args, **kwargs):  # recording a check's result is where the time runs out
        made.append(args[0])
        if len(made) <= 3:
            burn(0.45)
        return real_check(*args, **kwargs)

    monkeypatch.setattr(chance, "Check", slow_record)
    monkeypatch.setattr(chance, "TOTAL_SECONDS", 1.0)
    report = check_chance_uct(lambda seed: ChanceUCT(seed=seed), show_progress=False)
    assert [c.name for c in report.checks] == list(CHECKS)
    stopped = [c for c in report.checks if "check_chance_uct stopped after 1 s" in c.detail]
    assert len(stopped) == 1 and stopped[0].status == "failed", str(report)
    after = report.checks[report.checks.index(stopped[0]) + 1 :]
    assert after and all(c.status == "skipped" and "ran out of its 1 s" in c.detail for c in after), str(report)
    assert not report.ok
