"""Leaf parallelism in the compiled engine: ``uct:engine=compiled,threads=K,parallel=leaf``.

One tree; each new leaf is simulated K times at once (the selecting thread and K - 1
spinning workers, ``mctslab.engine.shared_tree``), the K results backed up together. The
checks: K = 1 is plain UCT bit for bit; seeded searches repeat exactly run after run
(worker ``k`` plays the ``k``-th playout of every leaf from its own seeded generator), and
every worker's seed matters; the root gets K visits per leaf; the visit invariant of plain
UCT holds with K playouts per creation; moves are legal; the spec round-trips. No timing is
asserted (``python -m mctslab bench`` reports the hand-over's cost).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from conftest import random_unfinished_positions

from mctslab import engine, make_agent, make_game

pytestmark = pytest.mark.skipif(not engine.available(), reason="the compiled engine needs Numba")

C = math.sqrt(2)
GAMES = ("tictactoe", "connect4", "uttt")
ARRAYS = ("move", "first", "nlegal", "nexp", "visits", "wins2", "mean", "isq")


def _leaf(game, state, iterations, seeds, seconds=None):
    from mctslab.engine.shared_tree import search_leaf_parallel

    return search_leaf_parallel(game, state, engine.Budget(C, iterations, seconds), seeds=seeds)


def _arrays(tree) -> list[np.ndarray]:
    return [getattr(tree, name)[: tree.slots].copy() for name in ARRAYS]


def check_leaf_tree(game, state, tree, k: int, leaves: int) -> None:
    """Root visits K per leaf; every created node K visits from its own creation plus its children's."""
    assert int(tree.visits[tree.root]) == k * leaves
    stack = [(tree.root, state)]
    while stack:
        slot, position = stack.pop()
        v = int(tree.visits[slot])
        assert v % k == 0 and v >= k
        f = int(tree.first[slot])
        if f < 0:
            assert v == k or game.is_terminal(position)  # a leaf: its creation's K playouts (or a finished game)
            continue
        kids = range(f, f + int(tree.nexp[slot]))
        own = 0 if slot == tree.root else k
        assert v == own + sum(int(tree.visits[c]) for c in kids)
        assert sorted(int(m) for m in tree.move[f : f + int(tree.nlegal[slot])]) == sorted(game.legal_moves(position))
        stack += [(c, game.apply(position, int(tree.move[c]))) for c in kids]


@pytest.mark.parametrize("spec", GAMES)
def test_one_thread_is_plain_uct_bit_for_bit(spec):
    game = make_game(spec)
    state = game.initial_state()
    its = {"tictactoe": 2_000, "connect4": 3_000, "uttt": 1_000}[spec]
    plain = engine.search(game, state, c=C, iterations=its, seconds=None, max_moves=None, seed=4)
    leaf = _leaf(game, state, its, [4])
    assert leaf.tree.slots == plain.tree.slots
    for a, b in zip(_arrays(leaf.tree), _arrays(plain.tree), strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize("k", [2, 3])
def test_seeded_searches_repeat_exactly_and_every_seed_matters(spec, k):
    game = make_game(spec)
    state = game.initial_state()
    its = {"tictactoe": 600, "connect4": 800, "uttt": 300}[spec]
    seeds = [11 * j + 1 for j in range(k)]
    first = _leaf(game, state, its, seeds)
    check_leaf_tree(game, state, first.tree, k, its)
    assert first.done == its
    for _ in range(2):
        again = _leaf(game, state, its, seeds)
        assert all(np.array_equal(a, b) for a, b in zip(_arrays(again.tree), _arrays(first.tree), strict=True))
    for j in range(k):  # another seed for thread j (the selector's or a worker's): another tree
        other = _leaf(game, state, its, [s + 1000 if i == j else s for i, s in enumerate(seeds)])
        assert not all(np.array_equal(a, b) for a, b in zip(_arrays(other.tree), _arrays(first.tree), strict=True))


def test_the_agent_repeats_its_moves_and_counts_leaves():
    game = make_game("connect4")
    state = game.apply(game.initial_state(), 3)

    def stats(seed: int) -> tuple:
        analysis = make_agent("uct:iterations=500,engine=compiled,threads=2,parallel=leaf", seed=seed).analyse(
            game, state
        )
        assert analysis.iterations == 500 and analysis.root.visits == 2 * 500
        return tuple((s.move, s.visits, s.mean) for s in analysis.stats), analysis.move

    first = stats(3)
    assert stats(3) == first and stats(4) != first


@pytest.mark.parametrize("spec", ["connect4", "uttt"])
def test_the_move_is_legal_from_many_positions(spec):
    game = make_game(spec)
    agent = make_agent("uct:iterations=400,engine=compiled,threads=2,parallel=leaf", seed=0)
    for state in random_unfinished_positions(game, 10, random.Random(3)):
        analysis = agent.analyse(game, state)
        assert analysis.move in game.legal_moves(state)
        check_leaf_tree(game, state, analysis.root.tree, 2, 400)


def test_a_time_budget_and_the_spec():
    game = make_game("tictactoe")
    agent = make_agent("uct:seconds=0.02,engine=compiled,threads=2,parallel=leaf", seed=0)
    assert agent.spec == "uct:seconds=0.02,engine=compiled,threads=2,parallel=leaf"
    assert make_agent(agent.spec).spec == agent.spec
    analysis = agent.analyse(game, game.initial_state())
    assert analysis.iterations >= 1 and analysis.root.visits == 2 * analysis.iterations


def test_a_budget_past_the_32_bit_counters_is_refused_in_one_line():
    game = make_game("tictactoe")
    # with a clock: the memory check, made with the budget, does not apply to it, so the leaves' is the one reached
    with pytest.raises(ValueError, match="at most 536870911 leaves") as err:
        _leaf(game, game.initial_state(), 2**30 - 1, [1, 2], seconds=60.0)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError) as err:  # iterations alone: refused too, by whichever check comes first
        _leaf(game, game.initial_state(), 2**30 - 1, [1, 2])
    assert "\n" not in str(err.value)
