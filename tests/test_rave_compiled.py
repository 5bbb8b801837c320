"""RAVE on the compiled engine (``rave:engine=compiled``) is the Python RAVE (mctslab.agents.rave).

Tree for tree is not possible: the engines draw different random numbers (Python's
``random.Random`` against Numba's MT19937), so the Python and compiled trees of one seed
differ. What is checked instead:

* the compiled kernel draws exactly what the UCT kernel draws: with ``k`` so small that
  beta vanishes, RAVE's tree is UCT's, slot for slot (so the marking playouts are the
  playouts, draw for draw);
* the AMAF update, iteration by iteration: the slots it changes are exactly the created
  children of the path's nodes whose ``(player, move)`` was played below the node (the
  tree moves below it, or one set of playout moves consistent with the leaf's position);
  and exact counts on tiny positions (hand-checked), invariants over many searches;
* the same player: from fixed positions the moves chosen over seeds have the same
  distribution (chi-square homogeneity, tests/test_engine.py's helpers), and the root
  children's mean visits, AMAF visits and AMAF means agree (Welch z); the same tests
  reject a RAVE whose AMAF counts are different;
* seeded compiled RAVE is the same run to run and however its budget is chunked.

Without Numba the tests skip, saying why. About 15 s of CPU once the kernels are cached.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_engine import Z_LIMIT, homogeneity, needs_numba, sample

from mctslab import make_agent, make_game, play_game
from mctslab.agents.rave import CompiledRaveNode, Rave, beta
from mctslab.games import compiled_encoding

pytestmark = needs_numba
TTT, C4, UTTT = make_game("tictactoe"), make_game("connect4"), make_game("uttt")


def test_the_engine_param_round_trips_and_what_it_cannot_run_is_refused_in_one_line():
    agent = make_agent("rave:iterations=300,k=40,engine=compiled")
    assert agent.spec == "rave:iterations=300,k=40,engine=compiled"
    assert make_agent(agent.spec).parameters() == agent.parameters()
    assert make_agent("rave").spec == "rave:iterations=1000"

    class Logging(Rave):
        def backpropagate(self, node, returns):
            super().backpropagate(node, returns)

    refusals = [
        (lambda: make_agent("rave:engine=compiled,playout=decisive"), "random playouts only"),
        (lambda: Rave(engine="compiled", threads=2), "one thread"),
        (lambda: Logging(engine="compiled").analyse(TTT, TTT.initial_state()), "overrides backpropagate"),
        (lambda: agent.analyse(make_game("nim"), make_game("nim").initial_state()), "no kernel"),
        (lambda: agent.analyse(make_game("pig"), make_game("pig").initial_state()), "chance"),
    ]
    for make, words in refusals:
        with pytest.raises(ValueError, match=words) as err:
            make()
        assert "\n" not in str(err.value)


def compiled_pair(game, moves, iterations, seed, k):
    """A compiled RAVE search with tiny ``k`` and a compiled UCT search, same seed: their trees."""
    from mctslab.engine import Budget, search_budget
    from mctslab.engine.rave import search_rave

    state = game.state_from_moves(moves)
    budget = Budget(c=1.4, iterations=iterations)
    return search_rave(game, state, budget, k=k, seed=seed).tree, search_budget(game, state, budget, seed=seed).tree


@pytest.mark.parametrize("game,moves", [(TTT, []), (C4, [3]), (UTTT, [])])
def test_with_beta_vanishing_the_rave_kernel_builds_the_uct_kernels_tree_slot_for_slot(game, moves):
    """The same draws (expansion, selection, marking playouts) as the UCT kernel: beta = 1e-150 changes nothing."""
    rave, uct = compiled_pair(game, moves, 3000, seed=5, k=1e-300)
    n = uct.slots
    assert rave.slots == n > 3000
    for name in ("move", "first", "nlegal", "nexp", "visits", "wins2"):
        assert np.array_equal(getattr(rave, name)[:n], getattr(uct, name)[:n]), name
    rave, uct = compiled_pair(game, moves, 3000, seed=5, k=250.0)  # and the test sees a real k
    assert not np.array_equal(rave.visits[: uct.slots], uct.visits[: uct.slots])


# -- the AMAF update, iteration by iteration ---------------------------------------------------
def parents_of(tree) -> dict[int, int]:
    return {s: p for p in range(tree.slots) for s in tree.children(p)}


def check_one_iteration(game, state, tree, before, parents) -> set[tuple[int, int]]:
    """The AMAF changes of the last iteration are RAVE's; returns the playout's pairs it implies."""
    dv = tree.visits[: tree.slots] - before["visits"][: tree.slots]
    path = sorted(np.flatnonzero(dv), key=lambda s: 0 if s == tree.root else 1 + depth(s, parents, tree.root))
    assert set(dv[path]) == {1} and path[0] == tree.root
    for a, b in zip(path, path[1:], strict=False):
        assert parents[b] == a, "the visited slots are a path from the root"
    mover0 = game.to_move(state)
    player = [(mover0 + d + 1) % 2 for d in range(len(path))]
    root_half = int(tree.wins2[tree.root] - before["wins2"][tree.root])  # for the root's player, 1 - mover0
    half = {1 - mover0: root_half, mover0: 2 - root_half}
    pair = {s: (player[d], int(tree.move[s])) for d, s in enumerate(path)}
    damv = tree.amv[: tree.slots] - before["amv"][: tree.slots]
    assert set(np.unique(damv)) <= {0, 1}
    updated = {int(s) for s in np.flatnonzero(damv)}
    kids = [list(tree.children(s)) for s in path]
    assert updated <= {j for ks in kids for j in ks}, "AMAF only for created children of the path's nodes"
    for j in updated:
        pj = 1 - player[path.index(parents[j])]
        assert tree.amw2[j] - before["amw2"][j] == half[pj]
        b = beta(tree.k, int(tree.visits[j]))  # the selection value's mix, recomputed as RaveRule.value does it
        assert tree.mix[j] == (1 - b) * float(tree.mean[j]) + b * (int(tree.amw2[j]) / 2 / int(tree.amv[j]))
    below = [{pair[s] for s in path[d + 1 :]} for d in range(len(path))]
    kid_pair = {j: (1 - player[d], int(tree.move[j])) for d, ks in enumerate(kids) for j in ks}
    playout = set().union(*({kid_pair[j] for j in ks if j in updated} - below[d] for d, ks in enumerate(kids)))
    for d, ks in enumerate(kids):
        assert {j for j in ks if j in updated} == {j for j in ks if kid_pair[j] in playout | below[d]}, d
    leaf = state
    for s in path[1:]:
        leaf = game.apply(leaf, int(tree.move[s]))
    if game.is_terminal(leaf):
        assert not playout
    elif game is not C4:  # a cell is played once: the playout's cells are open at the leaf, each by one player
        assert {m for _, m in playout} <= open_cells(game, leaf)
        assert len({m for _, m in playout}) == len(playout)
    return playout


def open_cells(game, state) -> set[int]:
    """The cells a playout from ``state`` may still play (Ultimate: empty cells of undecided boards)."""
    if game is TTT:
        return set(game.legal_moves(state))
    st = compiled_encoding(game).compiled_state(
        state
    )  # st[2 + b], st[11 + b]: the players' stones on board b; st[22]: decided boards
    return {
        9 * b + c for b in range(9) if not st[22] >> b & 1 for c in range(9) if not (st[2 + b] | st[11 + b]) >> c & 1
    }


def depth(slot, parents, root) -> int:
    d = 0
    while slot != root:
        slot, d = parents[slot], d + 1
    return d


@pytest.mark.parametrize("game,moves,seed", [(TTT, [], 0), (TTT, [4, 0], 1), (C4, [], 2), (UTTT, [40], 3)])
def test_each_iteration_updates_amaf_exactly_as_rave_backpropagate(game, moves, seed):
    from mctslab.engine import Budget
    from mctslab.engine.backend import kernels
    from mctslab.engine.rave import RaveTree
    from mctslab.engine.uct import _encode

    state = game.state_from_moves(moves)
    rules, root_state = _encode(game, state)
    tree = RaveTree(rules, root_state, capacity=RaveTree.slots_for(rules, 300), k=50.0)
    kernels().seed(seed)
    seen = 0
    for _ in range(300):
        before = {name: getattr(tree, name).copy() for name in ("visits", "wins2", "amv", "amw2")}
        tree.run(Budget(c=1.4, iterations=1))
        seen += len(check_one_iteration(game, state, tree, before, parents_of(tree)))
    assert seen > 300, "the playouts' moves count for AMAF"


def test_a_reused_tree_searched_with_another_k_has_the_mix_of_that_k():
    """set_k recomputes every mix: then as if grown with the new k (the per-iteration check's formula, bit for bit)."""
    from mctslab.engine import Budget
    from mctslab.engine.rave import search_rave

    budget = Budget(c=1.4, iterations=2000)
    tree = search_rave(C4, C4.initial_state(), budget, k=500.0, seed=1).tree
    tree.set_k(3.0)
    for j in range(1, tree.slots):
        if tree.amv[j]:
            b = beta(3.0, int(tree.visits[j]))
            assert tree.mix[j] == (1 - b) * float(tree.mean[j]) + b * (int(tree.amw2[j]) / 2 / int(tree.amv[j]))
    assert search_rave(C4, C4.initial_state(), budget, k=3.0, seed=1, tree=tree).done == 2000


# -- exact counts on tiny positions, invariants ------------------------------------------------
def test_the_root_reads_as_a_rave_node_and_is_drawn_as_one():
    from mctslab import draw_tree
    from mctslab.agents.rave import RaveRule
    from mctslab.agents.rules import rule_for

    agent = make_agent("rave:iterations=200,k=20,engine=compiled", seed=0)
    analysis = agent.analyse(TTT, TTT.initial_state())
    root = analysis.root
    kids = sorted(root.children, key=lambda ch: ch.move)  # the statistics: Rave.move_stats's, from the views
    assert [(s.move, s.visits, s.mean, s.exploration) for s in analysis.stats] == [
        (ch.move, ch.visits, ch.mean, agent.rule.exploration(root, ch)) for ch in kids
    ]
    assert analysis.move == max(kids, key=lambda ch: (ch.visits, ch.mean)).move and analysis.rule == "RAVE"
    assert isinstance(rule_for(root), RaveRule) and all(isinstance(ch, CompiledRaveNode) for ch in root.children)
    assert draw_tree(root, TTT, depth=1, ucb=True) is not None  # the UCB labels ask the rule: AMAF means read
    child = root.children[0]
    assert child.amaf_mean == child.amaf_wins / child.amaf_visits and "amaf_visits" in repr(child)
    with pytest.raises(TypeError, match="read-only"):
        child.add_amaf(1.0)


def test_the_hand_checked_position_gives_amaf_equal_to_visits():
    """As tests/test_rave.py: O can play a cell only by choosing it at the root, X's reply is forced."""
    state = TTT.state_from_moves([0, 1, 2, 4, 3, 5, 7])
    for seed in range(5):
        root = make_agent("rave:iterations=10,engine=compiled", seed=seed).search(TTT, state)
        assert isinstance(root, CompiledRaveNode) and sorted(ch.move for ch in root.children) == [6, 8]
        for child in root.children:
            assert child.amaf_visits == child.visits > 0
            for grandchild in child.children:
                assert grandchild.amaf_visits == grandchild.visits


def test_three_empty_cells_and_four_iterations_give_the_counts_worked_out_by_hand():
    """X: 0 5 7, O: 1 3 8, X to move on 2 4 6: every game is a draw, X plays two of the three cells.

    Iterations 1-3 create the root children c1, c2, c3, each followed by a playout (O, then X
    on the last cell z); iteration 4 selects a child x, adds O's reply, X plays the last cell.
    AMAF updates at the root: 1 (c1), 1 + [z = c1] (c2), 2 (c3: z is c1 or c2), 2 (x, z):
    6 or 7, and 7 half the time. Each is a draw: half points = visits.
    """
    state = TTT.state_from_moves([0, 1, 5, 3, 7, 8])
    totals = []
    for seed in range(40):
        root = make_agent("rave:iterations=4,engine=compiled", seed=seed).search(TTT, state)
        kids = root.children
        assert sorted(ch.move for ch in kids) == [2, 4, 6] and sum(ch.visits for ch in kids) == 4
        assert all(ch.amaf_visits >= ch.visits and ch.amaf_wins == ch.amaf_visits / 2 for ch in kids)
        (twice,) = [ch for ch in kids if ch.visits == 2]
        assert [g.amaf_visits for g in twice.children] == [1]
        totals.append(sum(ch.amaf_visits for ch in kids))
    assert set(totals) == {6, 7}  # each 40 times with probability 1/2: missing one, 2 ** -39


@pytest.mark.parametrize("spec,moves", [("tictactoe", []), ("connect4", [3, 3]), ("uttt", [40, 36])])
def test_invariants_hold_in_every_node_over_many_searches(spec, moves):
    game = make_game(spec)
    state = game.state_from_moves(moves)
    for seed in range(8):
        root = make_agent("rave:iterations=400,k=30,engine=compiled", seed=seed).search(game, state)
        assert root.visits == 400 == sum(ch.visits for ch in root.children)
        stack = [root]
        while stack:
            node = stack.pop()
            kids = node.children
            if node is not root and kids:
                assert node.visits == 1 + sum(ch.visits for ch in kids)
            for ch in kids:
                assert ch.visits <= ch.amaf_visits <= node.visits  # its own visits count; one update per playout
                assert 0 <= ch.amaf_wins <= ch.amaf_visits and ch.amaf_mean == ch.amaf_wins / ch.amaf_visits
            stack += kids


# -- the same player --------------------------------------------------------------------------
CASES = [("tictactoe", [], 60, 300), ("tictactoe", [0, 4, 8], 100, 200), ("connect4", [], 80, 150)]
CASES += [("uttt", [40], 60, 100)]


def amaf_sample(spec: str, game, state, searches: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per search (rows) and legal move (columns): the root child's AMAF visits and AMAF mean."""
    legal = game.legal_moves(state)
    visits, means = np.zeros((searches, len(legal))), np.full((searches, len(legal)), 0.5)
    for i in range(searches):
        root = make_agent(spec, seed=seed + i).search(game, state)
        for ch in root.children:
            visits[i, legal.index(ch.move)] = ch.amaf_visits
            means[i, legal.index(ch.move)] = ch.amaf_mean
    return visits, means


def welch_z(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """tests/test_engine.py's visit_z, 0 where both samples are constant and equal."""
    se = np.sqrt(a.var(0, ddof=1) / len(a) + b.var(0, ddof=1) / len(b))
    diff = a.mean(0) - b.mean(0)
    return np.divide(diff, se, out=np.where(diff == 0, 0.0, np.inf), where=se > 0)


@pytest.mark.parametrize("spec,moves,iterations,searches", CASES)
def test_both_engines_are_the_same_rave_player(spec, moves, iterations, searches):
    """Same move frequencies (chi-square), same mean root visits, AMAF visits and AMAF means (Welch z)."""
    game = make_game(spec)
    state = game.state_from_moves(moves)
    python_spec, compiled_spec = f"rave:iterations={iterations}", f"rave:iterations={iterations},engine=compiled"
    python, python_visits = sample(python_spec, game, state, searches, seed=0)
    compiled, compiled_visits = sample(compiled_spec, game, state, searches, seed=10_000)
    stat, df, p = homogeneity(python, compiled)
    assert df >= 2, "the positions must spread the choices over several moves"
    assert p > 0.001, f"chi-square {stat:.1f} on {df} df: python {python}, compiled {compiled}"
    assert np.abs(welch_z(python_visits, compiled_visits)).max() < Z_LIMIT
    python_amaf = amaf_sample(python_spec, game, state, searches, seed=0)
    compiled_amaf = amaf_sample(compiled_spec, game, state, searches, seed=10_000)
    for a, b in zip(python_amaf, compiled_amaf, strict=True):
        assert np.abs(welch_z(a, b)).max() < Z_LIMIT, np.round(welch_z(a, b), 1)


def test_the_amaf_test_rejects_a_rave_that_counts_differently():
    """Playouts cut after 2 moves (max_moves=2): fewer AMAF visits, other AMAF means; the z test sees it."""
    state = TTT.initial_state()
    python = amaf_sample("rave:iterations=60", TTT, state, 100, seed=0)
    other = amaf_sample("rave:iterations=60,max_moves=2,engine=compiled", TTT, state, 100, seed=10_000)
    assert np.abs(welch_z(python[0], other[0])).max() > Z_LIMIT


# -- reproducible ---------------------------------------------------------------------------------
def test_seeded_compiled_rave_is_the_same_run_to_run_and_however_the_budget_is_chunked(monkeypatch):
    from mctslab.engine import tree as tree_module

    def table(**patches):
        for name, value in patches.items():
            monkeypatch.setattr(tree_module, name, value)
        analysis = make_agent("rave:iterations=20000,engine=compiled", seed=3).analyse(C4, C4.initial_state())
        root = analysis.root
        return [(s.move, s.visits, s.mean) for s in analysis.stats], sorted(
            (ch.move, ch.amaf_visits, ch.amaf_wins) for ch in root.children
        )

    chunked = table(FIRST_CHUNK=64, MAX_CHUNK=128, INITIAL_SLOTS=16)  # hundreds of calls, many growths
    assert table(FIRST_CHUNK=1 << 20, MAX_CHUNK=1 << 20, INITIAL_SLOTS=1 << 19) == chunked  # one call
    assert table() == chunked


def test_a_game_with_tree_reuse_is_reproducible_and_reuses_the_tree():
    def game_moves():
        agent = make_agent("rave:iterations=300,reuse=true,engine=compiled", seed=7)
        record = play_game(UTTT, [agent, make_agent("random", seed=1)])
        return record.moves, agent.search_engine.previous[1].root  # the tree the compiled engine kept

    moves, root = game_moves()
    assert game_moves() == (moves, root) and root != 0  # the last search started inside the previous tree
