"""Tree parallelism in the compiled engine: ``uct:engine=compiled,threads=K,parallel=tree,virtual_loss=V``.

K threads search one tree at once (``mctslab.engine.shared_tree``). Thread timing decides
which thread reaches a node first, so a K-thread search is not reproducible: these tests
check what the module guarantees whatever the timing, after real concurrent searches (K = 2
and K = 4 on however many cores): the tree's structure (blocks of slots that never overlap
and fill ``info[0]`` exactly, every block a permutation of its position's legal moves),
the exact visit invariant ``visits[s] == ends[s] + sum(children's visits)``, the root's
visits equal to the iterations, no virtual loss left, no lock held, means restored from the
counts. One thread builds plain UCT's tree bit for bit. Strength: the move's quality on
solved tic-tac-toe positions, within a margin derived from the number of positions, against
one thread with the same total iterations. No timing is asserted (``python -m mctslab bench``).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from conftest import random_unfinished_positions

from mctslab import engine, make_agent, make_game
from mctslab.exact.alphabeta import optimal_moves

pytestmark = pytest.mark.skipif(not engine.available(), reason="the compiled engine needs Numba")

C = math.sqrt(2)
GAMES = ("tictactoe", "connect4", "uttt")


def _shared(game, state, iterations, seeds, virtual_loss=1):
    from mctslab.engine.shared_tree import search_tree_parallel

    return search_tree_parallel(game, state, engine.Budget(C, iterations), seeds=seeds, virtual_loss=virtual_loss)


def check_consistent(game, state, tree, iterations: int) -> int:
    """Every guarantee of the shared tree after its threads joined; returns the nodes walked."""
    n = tree.slots
    assert 1 <= n <= tree.move.shape[0]
    assert int(tree.visits[tree.root]) == iterations == int(tree.info[2])
    assert not tree.vloss[:n].any(), "virtual loss left behind"
    assert not tree.lock[:n].any(), "a lock left held"
    blocks = []
    stack = [(tree.root, state)]
    walked = 0
    while stack:
        slot, position = stack.pop()
        walked += 1
        f, nl, ne = int(tree.first[slot]), int(tree.nlegal[slot]), int(tree.nexp[slot])
        v = int(tree.visits[slot])
        assert v >= 1 and int(tree.ends[slot]) >= 0
        assert tree.mean[slot] == tree.wins2[slot] / (2.0 * v)
        if f == -1:  # a leaf: every playout through it ended there
            assert int(tree.ends[slot]) == v
            continue
        assert 1 <= f and f + nl <= n and 0 <= ne <= nl
        blocks.append((f, nl))
        assert sorted(int(m) for m in tree.move[f : f + nl]) == sorted(game.legal_moves(position))
        kids = range(f, f + ne)
        assert v == int(tree.ends[slot]) + sum(int(tree.visits[k]) for k in kids)
        stack += [(k, game.apply(position, int(tree.move[k]))) for k in kids]
    blocks.sort()
    at = 1
    for f, nl in blocks:  # the blocks tile [1, info[0]): none overlaps, none is lost
        assert f == at, f"block at slot {f} where slot {at} was expected (an overlap or a lost block)"
        at += nl
    assert at == n
    return walked


@pytest.mark.parametrize("spec", GAMES)
def test_one_thread_builds_plain_ucts_tree_bit_for_bit(spec):
    game = make_game(spec)
    state = game.initial_state()
    its = {"tictactoe": 2_000, "connect4": 3_000, "uttt": 1_000}[spec]
    plain = engine.search(game, state, c=C, iterations=its, seconds=None, max_moves=None, seed=7)
    shared = _shared(game, state, its, [7], virtual_loss=3)
    n = plain.tree.slots
    assert shared.tree.slots == n and shared.done == its
    for name in ("move", "first", "nlegal", "nexp", "visits", "wins2", "mean", "isq"):
        assert np.array_equal(getattr(shared.tree, name)[:n], getattr(plain.tree, name)[:n]), name
    assert (shared.moves, shared.visits) == (plain.moves, plain.visits)
    check_consistent(game, state, shared.tree, its)
    first_created = shared.tree.children()  # one thread: only the creation playout ends at an inner node
    assert all(int(shared.tree.ends[s]) == 1 for s in first_created if shared.tree.first[s] >= 0)


@pytest.mark.parametrize(("spec", "its"), [("tictactoe", 60_000), ("connect4", 40_000), ("uttt", 15_000)])
@pytest.mark.parametrize("k", [2, 4])
def test_k_threads_leave_a_consistent_tree(spec, its, k):
    """Real concurrent searches (K = 4 on 2 cores also preempts threads mid-iteration), then every guarantee."""
    game = make_game(spec)
    state = game.initial_state()
    result = _shared(game, state, its, list(range(1, k + 1)), virtual_loss=1 + k % 3)
    assert result.done == its
    assert check_consistent(game, state, result.tree, its) == result.tree.nodes()


def test_growing_arrays_between_rounds_keeps_the_tree_consistent(monkeypatch):
    """Arrays made small on purpose: the threads meet at a barrier while they double, several times."""
    from mctslab.engine import tree as tree_module

    monkeypatch.setattr(tree_module, "INITIAL_SLOTS", 4096)
    game = make_game("connect4")
    state = game.initial_state()
    its = 20_000
    result = _shared(game, state, its, [3, 4])
    assert result.tree.move.shape[0] >= 4 * 4096  # grown at least twice
    check_consistent(game, state, result.tree, its)


def _positions(game, count: int, seed: int) -> list:
    """Seeded random tic-tac-toe positions (2 to 5 plies in) with at least one losing or drawing mistake to make."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(rng.randint(2, 5)):
            state = game.apply(state, rng.choice(game.legal_moves(state)))
            if game.is_terminal(state):
                break
        if not game.is_terminal(state) and len(optimal_moves(game, state)) < len(game.legal_moves(state)):
            found.append(state)
    return found


def test_two_threads_choose_as_well_as_one_with_the_same_total_iterations():
    """Optimal-move rates on 150 solved positions: tree (K = 2) within 3 standard errors of one thread, or better.

    Each rate is a mean over n = 150 positions, so its standard error is at most
    sqrt(0.25 / n) = 0.041; the difference of two independent rates has at most
    sqrt(2) times that, 0.058; 3 of those (0.17) is the margin. A tree that lost its
    statistics or kept its virtual losses chooses far worse (tested by breaking it).
    """
    game = make_game("tictactoe")
    positions = _positions(game, 150, seed=1)
    its = 1_200
    plain = make_agent(f"uct:iterations={its},engine=compiled", seed=5)
    tree = make_agent(f"uct:iterations={its},engine=compiled,threads=2,parallel=tree", seed=5)
    good_plain = good_tree = 0
    for state in positions:
        best = set(optimal_moves(game, state))
        good_plain += plain.select_move(game, state) in best
        analysis = tree.analyse(game, state)
        assert analysis.iterations == its and analysis.move in game.legal_moves(state)
        good_tree += analysis.move in best
    n = len(positions)
    margin = 3 * math.sqrt(2) * math.sqrt(0.25 / n)
    assert good_tree / n >= good_plain / n - margin, (good_tree, good_plain, n)
    assert good_plain / n > 0.5  # the budget is enough for one thread to choose well: the comparison means something


@pytest.mark.parametrize("spec", ["connect4", "uttt"])
def test_the_move_is_legal_from_many_positions(spec):
    game = make_game(spec)
    agent = make_agent("uct:iterations=3000,engine=compiled,threads=2,parallel=tree,virtual_loss=2", seed=0)
    for state in random_unfinished_positions(game, 12, random.Random(2)):
        analysis = agent.analyse(game, state)
        assert analysis.move in game.legal_moves(state)
        tree = analysis.root.tree
        check_consistent(game, state, tree, 3000)


def test_a_time_budget_searches_the_shared_tree():
    game = make_game("connect4")
    agent = make_agent("uct:seconds=0.05,engine=compiled,threads=2,parallel=tree", seed=0)
    analysis = agent.analyse(game, game.initial_state())
    assert analysis.iterations >= 1 and analysis.move in game.legal_moves(game.initial_state())
    check_consistent(game, game.initial_state(), analysis.root.tree, analysis.iterations)


def test_the_spec_round_trips_with_virtual_loss():
    written = {
        "uct:engine=compiled,threads=2,parallel=tree": "uct:iterations=1000,engine=compiled,threads=2,parallel=tree",
        "uct:engine=compiled,threads=3,parallel=tree,virtual_loss=0": (
            "uct:iterations=1000,engine=compiled,threads=3,parallel=tree,virtual_loss=0"
        ),
        "uct:engine=compiled,threads=2,parallel=tree,virtual_loss=1": (
            "uct:iterations=1000,engine=compiled,threads=2,parallel=tree"
        ),
    }
    for spec, expected in written.items():
        agent = make_agent(spec)
        assert agent.spec == expected and make_agent(agent.spec).spec == expected


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("uct:engine=compiled,threads=2,parallel=tree,virtual_loss=-1", "virtual_loss must be an integer"),
        ("uct:engine=compiled,threads=2,parallel=tree,virtual_loss=x", "'x'"),
        ("uct:engine=compiled,threads=2,virtual_loss=2", "virtual_loss=2 is used only by tree parallelism"),
        ("uct:engine=compiled,virtual_loss=2", "virtual_loss=2 is used only by tree parallelism"),
        ("uct:threads=2,parallel=tree", "parallel=tree with engine=python"),
        ("uct:engine=compiled,threads=2,parallel=trees", "parallel must be 'root', 'tree' or 'leaf'"),
        ("uct:engine=compiled,threads=2,parallel=tree,reuse=true", "reuse=True with threads=2"),
    ],
)
def test_bad_values_are_refused_in_one_line(spec, words):
    with pytest.raises((ValueError, TypeError)) as err:
        make_agent(spec)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_the_benchmark_reports_tree_and_leaf_rows_with_their_speedups():
    """Rows for every kind and K, work = root visits, speed-ups over root's threads=1 row (rates never asserted)."""
    from mctslab.bench import format_report, run_benchmark
    from mctslab.bench.parallel import LEAF, NAME, NAMES, TREE, thread_counts

    report = run_benchmark(rounds=1, scale=0.01, compare=False, progress=False, only=NAMES)
    rows = report.rows
    assert [(r.name, r.game, r.threads) for r in rows] == [
        (name, g, k) for name in NAMES for g in GAMES for k in thread_counts()
    ]
    for r in rows:
        one = next(b for b in rows if (b.name, b.game, b.threads) == (NAME, r.game, 1))
        assert r.rate > 0 and r.work % r.threads == 0 and r.speedup == pytest.approx(r.rate / one.rate)
        if r.name in (TREE, LEAF):  # the same work per thread as the root rows
            assert r.work == next(b.work for b in rows if (b.name, b.game, b.threads) == (NAME, r.game, r.threads))
    text = format_report(report)
    assert all(f"{kind} parallelism" in text for kind in ("root", "tree", "leaf")) and "load average" in text


def test_an_error_in_one_thread_ends_the_others_and_is_the_one_raised(monkeypatch):
    """A thread failing while growing the arrays: no thread is left waiting at the barrier; its error is raised."""
    from mctslab.engine import shared_tree
    from mctslab.engine import tree as tree_module

    monkeypatch.setattr(tree_module, "INITIAL_SLOTS", 4096)

    def fail(self, done):
        raise MemoryError(f"no room after {done:,} iterations")

    monkeypatch.setattr(shared_tree.SharedTree, "_grow", fail)
    game = make_game("connect4")
    with pytest.raises(MemoryError, match="no room after"):
        _shared(game, game.initial_state(), 20_000, [1, 2, 3])
