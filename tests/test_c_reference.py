"""The C reference UCT (mctslab/bench/c/uct.c) builds the compiled engine's trees bit for bit.

Same seed, same position, same budget: every slot of the tree (move, first child, legal and
expanded counts, visits, half points) is the same in C and in the engine, on all the games
with a kernel, from the initial position and from positions in play. This is what makes
``python -m mctslab bench --c`` a comparison of implementations of one algorithm; it also
guards the engine's seeded results while its kernels are made faster. No timing here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mctslab import engine
from mctslab.bench import creference
from mctslab.games import make_game

pytestmark = [
    pytest.mark.skipif(not engine.available(), reason="the compiled engine needs Numba"),
    pytest.mark.skipif(creference.compiler() is None, reason="no C compiler: the C reference cannot be built"),
]

C = math.sqrt(2)
POSITIONS = [
    ("tictactoe", ()),
    ("tictactoe", (4, 0)),
    ("tictactoe:n=4,k=3", (5,)),
    ("connect4", ()),
    ("connect4", (3, 3, 2, 4)),
    ("connect4:rows=5,cols=6,k=5", (0,)),
    ("uttt", ()),
    ("uttt", (40, 36, 4)),
    ("fractio", (0, 1)),
]
"""(game, moves played from the initial position): the three games, their variants (another
k, another board, Fractio), from the start and in play (Ultimate: a forced local board)."""
ARRAYS = ("move", "first", "nlegal", "nexp", "visits", "wins2")


def _position(spec: str, moves: tuple[int, ...]):
    game = make_game(spec)
    state = game.initial_state()
    for m in moves:
        state = game.apply(state, m)
    return game, state


@pytest.mark.parametrize(("spec", "moves"), POSITIONS)
@pytest.mark.parametrize(("seed", "iterations"), [(0, 50), (7, 200), (2**32 - 1, 500)])
def test_c_builds_the_engines_tree(spec, moves, seed, iterations):
    game, state = _position(spec, moves)
    ours = engine.search(game, state, c=C, iterations=iterations, seconds=None, max_moves=None, seed=seed)
    ref = creference.c_search(game, state, c=C, iterations=iterations, seed=seed)
    tree = ours.tree
    assert ref.done == ours.done == iterations
    assert (ref.moves, ref.visits) == (ours.moves, ours.visits)
    assert ref.wins2 == [int(tree.wins2[s]) for s in tree.children()]
    assert sum(ref.visits) == tree.visits[tree.root] == iterations
    assert ref.slots == tree.slots and ref.max_depth == tree.max_depth
    for name in ARRAYS:
        np.testing.assert_array_equal(ref.arrays[name], getattr(tree, name)[: tree.slots], err_msg=name)


@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "uttt"])
def test_c_cuts_playouts_as_the_engine_does(spec):
    """``max_moves`` (a playout cut short is a draw) and another ``c``: still the same tree."""
    game, state = _position(spec, ())
    ours = engine.search(game, state, c=0.7, iterations=300, seconds=None, max_moves=3, seed=11)
    ref = creference.c_search(game, state, c=0.7, iterations=300, seed=11, max_moves=3)
    assert (ref.moves, ref.visits) == (ours.moves, ours.visits)
    np.testing.assert_array_equal(ref.arrays["wins2"], ours.tree.wins2[: ours.tree.slots])


def test_another_seed_builds_another_tree():
    """The comparison can fail: a tree from another seed differs from the engine's."""
    game, state = _position("connect4", ())
    ours = engine.search(game, state, c=C, iterations=500, seconds=None, max_moves=None, seed=1)
    ref = creference.c_search(game, state, c=C, iterations=500, seed=2)
    assert not np.array_equal(ref.arrays["wins2"][: ref.slots], ours.tree.wins2[: ref.slots])


@pytest.mark.parametrize("rng", ["mt", "pcg"])
@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "uttt"])
def test_the_other_generators_run_the_same_search_on_other_numbers(spec, rng):
    """The builds ``bench --c`` times a generator's cost with: a whole search, another tree than the engine's."""
    game, state = _position(spec, ())
    ref = creference.c_search(game, state, c=C, iterations=400, seed=3, rng=rng)
    assert sum(ref.visits) == ref.done == 400 and ref.moves and len(set(ref.moves)) == len(ref.moves)
    assert ref.arrays["visits"][0] == 400
    ours = engine.search(game, state, c=C, iterations=400, seconds=None, max_moves=None, seed=3)
    assert not np.array_equal(ref.arrays["wins2"][: ref.slots], ours.tree.wins2[: ref.slots])


def test_without_a_compiler_it_says_so(monkeypatch):
    monkeypatch.setenv("CC", "")
    monkeypatch.setenv("PATH", "")
    assert creference.compiler() is None
    assert creference.unavailable() == (
        "the C reference is skipped: no C compiler found (set CC, or install gcc or clang)"
    )


def test_unknown_generator_is_refused():
    with pytest.raises(ValueError, match="rng must be one of xorshift, mt, pcg, got 'lcg'"):
        creference.library("lcg")


@pytest.mark.parametrize(("spec", "moves"), POSITIONS)
def test_c_playouts_count_as_the_engines(spec, moves):
    game, state = _position(spec, moves)
    ours = engine.random_results(game, state, 2_000, seed=5)
    ref = creference.c_playouts(game, state, 2_000, seed=5)
    assert ref.tolist() == ours.tolist() and ref.sum() == 2_000


@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "uttt"])
def test_the_bench_times_one_search_in_both(spec):
    """``bench --c`` times the compiled row's own search in C: the same seed, the same tree, every round."""
    from mctslab.bench.suite import _compiled_uct

    run, setup, seed = _compiled_uct(spec, 300)
    setup()
    first = run()
    setup()
    again = run()
    game = make_game(spec)
    ref = creference.c_search(game, game.initial_state(), c=C, iterations=300, seed=seed)
    assert [ch.visits for ch in first.children] == [ch.visits for ch in again.children] == ref.visits
    assert [ch.move for ch in first.children] == ref.moves


def test_the_engines_root_tables_hold_the_very_doubles():
    """The tables of sqrt(ln n) and 1 / sqrt(n) keep what computing them each time gives, bit for bit."""
    game, state = _position("connect4", ())
    tree = engine.search(game, state, c=C, iterations=3_000, seconds=None, max_moves=None, seed=4).tree
    filled = [np.flatnonzero(tree.roots[k]) for k in (0, 1)]
    assert len(filled[0]) > 100 and len(filled[1]) > 100
    assert all(tree.roots[0, n] == math.sqrt(math.log(n)) for n in filled[0])
    assert all(tree.roots[1, n] == 1.0 / math.sqrt(n) for n in filled[1])
    kids = tree.children()
    assert all(tree.isq[s] == 1.0 / math.sqrt(int(tree.visits[s])) for s in kids)
