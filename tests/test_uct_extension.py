"""Extending UCT by subclass: its own node class and selection rule, searched, recorded, drawn, explored.

``Tuned`` below is UCB1-Tuned (Auer, Cesa-Bianchi and Fischer 2002): a node class whose
``add`` also keeps the sum of squared rewards, a selection rule object that uses it, and
one class naming both. Nothing in ``mctslab`` knows about it, and everything works with
it: searched, recorded, drawn, outlined and tabled under its own name.
"""

from __future__ import annotations

import doctest
import math

import pytest
from conftest import games_for

from mctslab import UCT, Node, make_agent, make_game, play_game
from mctslab.agents import AGENTS
from mctslab.agents import uct as uct_module
from mctslab.agents.rules import UCB1, SelectionRule, rule_for
from mctslab.engine import available as engine_available
from mctslab.ucb import SQRT2, exploration, ucb1
from mctslab.viz import (
    PHASES,
    SearchRecorder,
    TreeExplorer,
    draw_iteration,
    draw_tree,
    graph_html,
    tree_explorer,
    tree_outline,
)
from mctslab.viz import tree as tree_module

GAMES = games_for(UCT.handles)


class TunedNode(Node):
    """A node that also keeps the sum of the squared rewards of its playouts."""

    __slots__ = ("squares",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.squares = 0.0

    def add(self, reward):
        super().add(reward)
        self.squares += reward**2


def tuned_value(mean, squares, n_parent, n_child):
    """UCB1-Tuned, written out from the paper: mean + sqrt(ln N / n * min(1/4, V))."""
    log_n = math.log(n_parent) if n_parent > 1 else 0.0
    variance = squares / n_child - mean**2 + math.sqrt(2 * log_n / n_child)
    return mean + math.sqrt(log_n / n_child * min(0.25, variance))


class TunedRule(SelectionRule):
    """UCB1-Tuned's score (``inf`` for an unvisited child)."""

    name = "UCB1-Tuned"

    def value(self, parent, child):
        if child.visits == 0:
            return math.inf
        return tuned_value(child.mean, child.squares, parent.visits, child.visits)


class Tuned(UCT):
    """UCB1-Tuned: its own node class and its own rule; nothing else."""

    node_class = TunedNode
    rule_class = TunedRule


class LeastVisited(SelectionRule):
    """The least visited child first (ties: the first)."""

    name = "least visited"

    def value(self, parent, child):
        return -child.visits


class RoundRobin(UCT):
    """Overrides the rule only."""

    rule_class = LeastVisited


class LastChild(UCT):
    """Overrides the whole choice only: always the newest child."""

    def select_child(self, node):
        return node.children[-1]


def shape(node):
    """Everything a search decides about a tree, as nested tuples (children in creation order)."""
    return (node.move, node.player, node.visits, node.wins, tuple(shape(ch) for ch in node.children))


# -- the search ------------------------------------------------------------------------
@pytest.mark.parametrize("spec", GAMES)
def test_a_variant_builds_its_tree_from_its_own_node_class_and_keeps_its_statistic(spec):
    game = make_game(spec)
    root = Tuned(iterations=150, seed=1).search(game, game.initial_state())
    nodes = list(root.iter_nodes())
    assert len(nodes) > 1 and all(type(n) is TunedNode for n in nodes)
    for n in nodes:
        # rewards are in [0, 1]: sum r^2 <= sum r, and (sum r)^2 <= n sum r^2 (Cauchy-Schwarz)
        assert n.squares <= n.wins + 1e-9
        assert n.wins**2 <= n.visits * n.squares + 1e-9


@pytest.mark.parametrize("spec", GAMES)
def test_a_variant_plays_legal_moves(spec):
    game = make_game(spec)
    record = play_game(game, [Tuned(iterations=40, seed=2), make_agent("random", seed=3)])
    assert record.moves
    state = game.initial_state()
    for move in record.moves:
        assert move in game.legal_moves(state)
        state = game.play(state, move)
    assert game.is_terminal(state)


@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "nim"])
def test_a_variant_is_deterministic_under_a_seed_and_differs_from_uct(spec):
    game = make_game(spec)
    state = game.initial_state()
    first = Tuned(iterations=300, seed=5).search(game, state)
    again = Tuned(iterations=300, seed=5).search(game, state)
    plain = UCT(iterations=300, seed=5).search(game, state)
    assert shape(first) == shape(again)
    assert shape(first) != shape(plain)
    a, b = (Tuned(iterations=300, seed=5).analyse(game, state) for _ in range(2))
    assert (a.move, a.stats, a.max_depth) == (b.move, b.stats, b.max_depth)


def test_a_variant_finds_the_win_in_one_from_both_seats():
    game = make_game("tictactoe")
    assert Tuned(iterations=400, seed=0).select_move(game, game.state_from_moves([0, 3, 1, 4])) == 2  # X
    assert Tuned(iterations=400, seed=0).select_move(game, game.state_from_moves([0, 3, 1, 4, 8])) == 5  # O


def test_selection_uses_the_variants_rule_and_the_steps_choose_its_argmax():
    game = make_game("tictactoe")
    agent = Tuned(iterations=400, seed=0)
    root = agent.search(game, game.initial_state())
    plain = UCT()
    differs = 0
    for node in root.iter_nodes():
        if node.untried or not node.children:
            continue
        values = [tuned_value(ch.mean, ch.squares, node.visits, ch.visits) for ch in node.children]
        assert [agent.rule.value(node, ch) for ch in node.children] == values
        assert agent.select_child(node) is node.children[values.index(max(values))]
        differs += agent.select_child(node) is not plain.select_child(node)
    assert differs > 0, "UCB1-Tuned chooses differently from UCB1 somewhere in its tree"
    leaf, depth = agent.select(root)
    node = root
    for _ in range(depth):
        node = agent.select_child(node)
    assert node is leaf


def test_overriding_only_the_rule_changes_which_child_is_selected():
    game = make_game("tictactoe")
    state = game.initial_state()
    root = UCT(iterations=300, seed=0).search(game, state)
    ucb_choice = UCT().select_child(root)
    least = RoundRobin().select_child(root)
    assert least is not ucb_choice
    assert least.visits == min(ch.visits for ch in root.children)
    assert RoundRobin().select(root)[0] is not UCT().select(root)[0]
    # The search follows the rule: once the root is expanded, its children take turns.
    tree = RoundRobin(iterations=500, seed=0).search(game, state)
    visits = [ch.visits for ch in tree.children]
    assert max(visits) - min(visits) <= 1
    assert max(ch.visits for ch in UCT(iterations=500, seed=0).search(game, state).children) > max(visits) + 1


def test_overriding_only_select_child_is_used_too():
    game = make_game("tictactoe")
    root = LastChild(iterations=200, seed=0).search(game, game.initial_state())
    # every fully expanded node was left by its newest child only, so the others kept one visit
    for node in root.iter_nodes():
        if len(node.children) > 1 and not node.untried:
            assert all(ch.visits == 1 for ch in node.children[:-1])


def test_plain_uct_rule_is_ucb1_and_its_fast_loop_chooses_the_same_children():
    game = make_game("connect4")
    agent = UCT(iterations=400, c=0.9, seed=4)
    root = agent.search(game, game.initial_state())
    for node in root.iter_nodes():
        if node.untried or not node.children:
            continue
        for ch in node.children:
            assert agent.rule.value(node, ch) == ucb1(ch.mean, node.visits, ch.visits, 0.9)
            assert agent.rule.exploration(node, ch) == exploration(node.visits, ch.visits, 0.9)
    assert type(agent.rule) is UCB1 and agent.rule.name == "UCB1" and agent.rule.c == 0.9
    # the generic loop (what a variant gets) and the inlined one agree on plain UCB1
    node, depth = root, 0
    while not node.untried and node.children:
        node, depth = agent.select_child(node), depth + 1
    assert (node, depth) == agent.select(root)


def test_the_analysis_of_a_variant_reports_its_own_rule():
    game = make_game("tictactoe")
    agent = Tuned(iterations=200, seed=0)
    a = agent.analyse(game, game.state_from_moves([4]))
    for stat in a.stats:
        child = a.root.child(stat.move)
        assert stat.exploration == agent.rule.value(a.root, child) - child.mean
        assert stat.ucb == pytest.approx(agent.rule.value(a.root, child))
    plain = UCT(iterations=200, seed=0).analyse(game, game.state_from_moves([4]))
    assert plain.stats == plain.root.move_stats(SQRT2)


def test_a_variant_is_drawn_outlined_and_tabled_under_its_own_name():
    game = make_game("tictactoe")
    agent = Tuned(iterations=300, seed=0)
    a = agent.analyse(game, game.state_from_moves([0, 3, 1, 4]))
    table = a.table()
    assert a.rule == "UCB1-Tuned"
    assert " UCB1-Tuned " in table and " ucb " not in table
    outline = tree_outline(a.root, game, depth=1, ucb=True, rule=agent.rule)
    assert "UCB1-Tuned " in outline and " ucb " not in outline
    child = a.root.children[0]
    assert f"UCB1-Tuned {child.mean:.2f}+{agent.rule.exploration(a.root, child):.2f}" in outline
    source = draw_tree(a.root, game, depth=1, ucb=True, rule=agent.rule).source
    assert "UCB1-Tuned " in source and "ucb " not in source
    # plain UCT keeps its short label
    plain = UCT(iterations=300, seed=0)
    p = plain.analyse(game, game.state_from_moves([0, 3, 1, 4]))
    assert " ucb " in p.table() and " ucb " in tree_outline(p.root, game, depth=1, ucb=True, rule=plain.rule)


def test_a_variants_tree_drawn_without_its_agent_is_labelled_with_its_rule():
    """draw_tree(root) and tree_outline(root) alone find the rule by the tree's node class."""
    game = make_game("tictactoe")
    root = Tuned(iterations=300, seed=0).search(game, game.state_from_moves([0, 3, 1, 4]))
    child = root.children[0]
    rule = rule_for(root, SQRT2)
    assert type(rule) is TunedRule
    outline = tree_outline(root, game, depth=1, ucb=True)
    assert f"UCB1-Tuned {child.mean:.2f}+{rule.exploration(root, child):.2f}" in outline and " ucb " not in outline
    source = draw_tree(root, game, depth=1, ucb=True).source
    assert "UCB1-Tuned " in source and "ucb " not in source
    for spec in sorted(AGENTS):  # every registered variant of UCT, under its own rule's name
        cls = AGENTS[spec]
        if issubclass(cls, UCT) and cls.node_class is not Node:
            variant = make_agent(f"{spec}:iterations=50", seed=0)
            tree = variant.search(game, game.state_from_moves([0, 3]))
            assert type(rule_for(tree)) is cls.rule_class, spec
            assert variant.rule.label in tree_outline(tree, game, depth=1, ucb=True), spec
    assert type(rule_for(UCT(iterations=20, seed=0).search(game, game.initial_state()))) is UCB1


def test_the_rule_follows_a_change_of_c():
    agent = Tuned(c=0.5)
    assert agent.rule.c == 0.5 and type(agent.rule) is TunedRule
    agent.c = 2.0
    assert agent.rule.c == 2.0


class HighestMove(SelectionRule):
    """Always the child of the highest move: choices nobody could mistake for UCB1's."""

    name = "highest"

    def value(self, parent, child):
        return child.move


def test_a_rule_class_set_on_an_instance_is_what_the_search_uses_and_what_the_table_shows():
    # before: selection ran UCB1 by a flag set once per class, so the instance's rule changed the table only
    game = make_game("tictactoe")
    state = game.initial_state()
    agent = UCT(iterations=100, seed=0)
    agent.rule_class = HighestMove
    analysis = agent.analyse(game, state)
    # each move is expanded once (9 iterations); every later iteration descends into move 8
    assert {s.move: s.visits for s in analysis.stats} == {**dict.fromkeys(range(8), 1), 8: 92}
    assert analysis.rule == "highest" and " highest " in analysis.table() and " ucb " not in analysis.table()
    assert type(agent.rule) is HighestMove
    plain = UCT(iterations=100, seed=0).analyse(game, state)
    assert max(s.visits for s in plain.stats) < 92
    # the engines that could not search with it refuse it, in one line, before searching
    for extra in ({"threads": 2}, *(({"engine": "compiled"},) if engine_available() else ())):
        other = UCT(iterations=100, seed=0, **extra)
        other.rule_class = HighestMove
        with pytest.raises(ValueError, match="rule_class=HighestMove set on this agent") as err:
            other.analyse(game, state)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("old", ["child_value", "child_exploration", "rule_name"])
def test_an_old_style_variant_is_told_where_its_rule_goes(old):
    body = {old: "x"} if old == "rule_name" else {old: lambda self, parent, child: 0.0}
    with pytest.raises(TypeError, match=f"{old}: the selection rule is an object now.*SelectionRule.*rule_class"):
        type("OldStyle", (UCT,), body)


def test_the_class_docstring_example_runs():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    tests = [t for t in finder.find(uct_module.UCT, "UCT", globs=vars(uct_module)) if t.examples]
    assert tests
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# -- recorded, drawn and explored --------------------------------------------------------
@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "nim"])
def test_the_recorder_records_a_variant_with_its_own_scores_and_choices(spec):
    game = make_game(spec)
    state = game.initial_state()
    expected = Tuned(iterations=120, seed=7).search(game, state)
    agent = Tuned(seed=7)
    rec = SearchRecorder(game, state, agent)
    rec.run(40)
    chosen_differs = 0
    for _ in range(80):
        # what the rule says before the step (selection changes nothing)
        node, want = rec.root, []
        while not node.untried and node.children:
            values = [tuned_value(ch.mean, ch.squares, node.visits, ch.visits) for ch in node.children]
            best = node.children[values.index(max(values))]
            want.append((node, values, best))
            chosen_differs += best is not UCT(c=agent.c).select_child(node)
            node = best
        squares = {id(n): n.squares for n in rec.root.iter_nodes()}
        r = rec.step()
        assert r.rule == "UCB1-Tuned"
        assert [(s.node, [c.ucb for c in s.scores], s.chosen) for s in r.selection] == want
        for step in r.selection:
            for s in step.scores:
                assert s.exploration == pytest.approx(s.ucb - s.mean)
        # the variant's backup ran: each node on the path got the square of its reward
        for u in r.updates:
            assert u.node.squares == pytest.approx(squares.get(id(u.node), 0.0) + u.reward**2)
    assert chosen_differs > 0
    assert shape(rec.root) == shape(expected)
    assert rec.analysis().stats == Tuned(iterations=120, seed=7).analyse(game, state).stats


@pytest.mark.parametrize("spec", GAMES)
def test_a_variant_is_drawn_in_every_phase_and_as_a_tree(spec):
    game = make_game(spec)
    rec = SearchRecorder(game, game.initial_state(), Tuned(seed=3)).run(100)
    r = rec.step()
    assert r.selection, "the root is fully expanded after 100 iterations (81 moves at most)"
    for phase in PHASES:
        graph = draw_iteration(r, phase, game)
        assert graph.source and graph.text and graph_html(graph)
        assert "UCB1-Tuned" in r.describe(game)
    selection = draw_iteration(r, "selection", game)
    assert "highest UCB1-Tuned value" in selection.source and "highest UCB1 value" not in selection.source
    chosen = r.selection[0].chosen
    score = next(s for s in r.selection[0].scores if s.node is chosen)
    assert f"<B>UCB1-Tuned {score.mean:.2f}+{score.exploration:.2f}={score.ucb:.2f}</B>" in selection.source
    assert draw_tree(rec.root, game).source
    assert tree_outline(rec.root, game).count("\n") > 3


def test_the_record_of_plain_uct_still_says_ucb():
    game = make_game("tictactoe")
    r = SearchRecorder(game, game.initial_state(), seed=1).run(30).step()
    assert r.rule == "UCB1" and r.score_label == "ucb"
    assert " ucb " in r.describe(game) and "highest UCB1 value" in draw_iteration(r, "selection", game).source


def test_the_explorer_explores_a_variant_and_replays_it_exactly():
    game = make_game("tictactoe")
    agent = Tuned(seed=4)
    rng_before = agent.rng.getstate()
    ex = TreeExplorer(game, iteration=30, agent=agent)
    assert agent.rng.getstate() == rng_before, "the agent given is not used up"
    assert type(ex.root) is TunedNode and ex.record.rule == "UCB1-Tuned"
    after_30 = shape(ex.root)
    assert after_30 == shape(Tuned(iterations=30, seed=4).search(game, game.initial_state()))
    for _ in range(6):
        ex.step()
        assert ex.html()
    ex.go_to(30)  # backwards: replayed from the start with a copy of the agent
    assert shape(ex.root) == after_30
    ex.phase = None
    assert ex.figure().source and "c = " in ex.summary()
    ex.set_c(0.5)
    assert ex.c == 0.5 and agent.c == SQRT2
    assert shape(ex.root) == shape(Tuned(iterations=30, c=0.5, seed=4).search(game, game.initial_state()))


def test_the_explorer_refuses_what_it_cannot_explore():
    game = make_game("tictactoe")
    with pytest.raises(TypeError, match="UCT"):
        TreeExplorer(game, agent=make_agent("random", seed=0))
    with pytest.raises(TypeError, match="either agent= or c, seed and max_moves"):
        TreeExplorer(game, agent=Tuned(seed=0), seed=1)
    with pytest.raises(TypeError, match="UCT"):
        SearchRecorder(game, game.initial_state(), make_agent("flat:playouts=5", seed=0))


def test_the_explorer_widget_takes_a_variant(monkeypatch):
    pytest.importorskip("ipywidgets")
    monkeypatch.setattr(tree_module, "dot_available", lambda: False)  # the text form: plain words
    game = make_game("tictactoe")
    widget = tree_explorer(game, iteration=10, max_iterations=50, agent=Tuned(seed=0))
    assert widget.model.record.rule == "UCB1-Tuned"
    widget.forward.click()
    assert widget.model.phase == "selection" and "UCB1-Tuned" in widget.picture.value
