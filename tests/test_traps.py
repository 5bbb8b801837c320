"""Shallow traps: exact.traps against exact distances to the win, the planted-trap trees, and their experiments."""

from __future__ import annotations

import random
from math import comb

import pytest

from mctslab import check_game, make_game
from mctslab.exact import WIN, move_scores, reachable_states
from mctslab.exact.alphabeta import alphabeta, move_values
from mctslab.exact.traps import forces_win, shallowest_trap, trap_level
from mctslab.games.traps import TrapTree, plain_root_win_chance


def by_scores(game, state, k):
    """The moves after which the opponent's fastest forced win is at most k plies away (from exact scores)."""
    return {m for m, score in move_scores(game, state).items() if score <= -(WIN - k - 1)}


@pytest.mark.parametrize("spec", ["tictactoe", "nim:heaps=2-3-4", "connect4:rows=4,cols=4,k=3"])
def test_trap_levels_match_exact_distances_to_the_win(spec):
    game = make_game(spec)
    states = [s for s in reachable_states(game) if not game.is_terminal(s)]
    for state in random.Random(0).sample(states, min(400, len(states))):
        levels = {m: trap_level(game, state, m) for m in game.legal_moves(state)}
        for k in (1, 3, 5):
            assert {m for m, lv in levels.items() if lv is not None and lv <= k} == by_scores(game, state, k)
        found = [lv for lv in levels.values() if lv is not None]
        assert shallowest_trap(game, state) == (min(found) if found else None)


def test_an_open_three_is_a_level_one_trap_to_ignore():
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 4, 1])  # X threatens 2; O must block
    assert trap_level(game, state, 2) is None
    assert all(trap_level(game, state, m) == 1 for m in game.legal_moves(state) if m != 2)
    assert shallowest_trap(game, state) == 1
    assert forces_win(game, game.apply(state, 5), 0, 1) and not forces_win(game, game.apply(state, 2), 0, 1)


# -- the planted-trap trees (mctslab.games.traps) --------------------------------------------


def plain_minimax(game, state):
    if game.is_terminal(state):
        return {0: 1, 1: -1, None: 0}[game.winner(state)]
    values = [plain_minimax(game, game.apply(state, m)) for m in game.legal_moves(state)]
    return max(values) if game.to_move(state) == 0 else min(values)


@pytest.mark.parametrize("spec", ["traps:branching=3,depth=6,level=3,density=30,seed=1", "traps"])
def test_trap_trees_keep_the_game_contract(spec):
    check_game(make_game(spec))


def test_the_root_trap_is_a_trap_of_exactly_its_level_on_many_trees():
    for seed in range(60):
        level = (1, 3, 5)[seed % 3]
        game = TrapTree(branching=2 + seed % 3, depth=level + 1 + seed % 3, level=level, density=20, seed=seed)
        root, trap = game.initial_state(), game.root_trap()
        assert trap_level(game, root, trap, 7) == level, game.spec
        assert move_values(game, root)[trap] == -1
        assert all(not game.is_trap(root, m) for m in game.legal_moves(root) if m != trap)


def test_alphabeta_matches_plain_minimax_on_hundreds_of_small_trap_trees():
    for seed in range(200):
        level = (1, 3)[seed % 2]
        game = TrapTree(branching=2 + seed % 2, depth=4 + seed % 3, level=level, density=seed % 60, seed=seed)
        root = game.initial_state()
        assert alphabeta(game)[0] == plain_minimax(game, root), game.spec
        assert move_values(game, root) == {m: plain_minimax(game, game.apply(root, m)) for m in game.legal_moves(root)}


def test_bad_trap_parameters_are_refused_by_name():
    with pytest.raises(ValueError, match="level must be odd"):
        TrapTree(level=2, depth=8)
    with pytest.raises(ValueError, match="depth must be an int from 6 to 40, got 4"):
        TrapTree(level=5, depth=4)
    with pytest.raises(ValueError, match="density"):
        make_game("traps:density=101")


# -- the experiments (mctslab.course.experiments.classic) -------------------------------------
def test_the_trap_experiment_resumes_and_counts(tmp_path):
    from mctslab.course.experiments.classic.traps import TrapSetup, run_traps

    setup = TrapSetup(levels=(1, 5), trees=3, iterations=300, branching=3, depth=8)
    first = run_traps(setup, tmp_path, progress=False)
    path = tmp_path / f"{setup.name}.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n" + lines[2][:7] + "\n")
    again = run_traps(setup, tmp_path, progress=False)
    assert again.row(1).estimates == first.row(1).estimates and again.row(5).counts == first.row(5).counts
    # Minimax of depth k + 1 sees every trap; the solver proves a level-1 trap in 300 iterations of 3 moves.
    assert all(r.counts["minimax_trap"] == 0 for r in first.rows)
    assert first.row(1).counts["solver_proved"] == 3
    # ``first`` picks the trees by seed: trees 1 and 2 are read back, not measured again.
    later = TrapSetup(levels=(1,), trees=2, iterations=300, branching=3, depth=8, first=1)
    assert list(later.seeds) == [1, 2]
    assert run_traps(later, tmp_path, progress=False).row(1).estimates == first.row(1).estimates[1:]


def test_the_census_takes_one_position_per_game_and_resumes(tmp_path):
    from mctslab.course.experiments.classic.census import run_census, sample_position

    game, state = sample_position("tictactoe", "random", 0)
    assert not game.is_terminal(state) and sample_position("tictactoe", "random", 0)[1] == state
    census = run_census(tmp_path, 12, ["tictactoe"], ["random"], progress=False)
    row = census.row("tictactoe", "random")
    assert row.with_trap[0] <= row.with_trap[1] <= row.with_trap[2] <= 12
    expected = [shallowest_trap(*sample_position("tictactoe", "random", i)) for i in range(12)]
    assert row.with_trap == tuple(sum(lv is not None and lv <= k for lv in expected) for k in (1, 3, 5))
    assert run_census(tmp_path, 12, ["tictactoe"], ["random"], progress=False) == census
    # A fresh sample: other indices, into the same file, without touching the first ones.
    fresh = run_census(tmp_path, 4, ["tictactoe"], ["random"], first=12, progress=False).row("tictactoe", "random")
    later = [shallowest_trap(*sample_position("tictactoe", "random", i)) for i in range(12, 16)]
    assert fresh.with_trap == tuple(sum(lv is not None and lv <= k for lv in later) for k in (1, 3, 5))
    assert run_census(tmp_path, 12, ["tictactoe"], ["random"], progress=False) == census
    with pytest.raises(ValueError, match="unknown source 'human'; known: random, uct"):
        sample_position("tictactoe", "human", 0)


# -- balanced leaves: the trap costs a win on about half the trees ----------------------------


def binomial_region(n: int, alpha: float = 1e-3) -> tuple[int, int]:
    """The counts of Binomial(n, 1/2) outside which each tail holds at most alpha / 2 (exact)."""
    tail, low = 0, 0
    while (tail := tail + comb(n, low)) <= alpha / 2 * 2**n:
        low += 1
    return low, n - low


def small_shape(seed: int, last: str) -> TrapTree:
    """A small tree whose last ply is ``last``'s ("min": an even depth, as the notebook's and the default)."""
    level = (1, 3)[seed % 2]
    depth = level + 1 + 2 * (seed // 2 % 2) + (last == "max")
    return TrapTree(branching=2 + seed % 3, depth=depth, level=level, density=seed % 40, seed=seed)


@pytest.mark.parametrize("last", ["min", "max"])
def test_a_non_trap_root_move_wins_on_about_half_the_trees(last):
    # Exact, by alpha-beta: on each tree, does the best of the root's other moves win for MAX?
    # With coin-flip leaves (before balancing) MAX won 14 of these 200 trees when MIN moves last
    # (every root move lost, so the trap cost nothing) and 167 when MAX does.
    trees = [small_shape(seed, last) for seed in range(200)]
    won = 0
    for game in trees:
        root = game.initial_state()
        others = [m for m in game.legal_moves(root) if m != game.root_trap()]
        won += any(alphabeta(game, game.apply(root, m))[0] == 1 for m in others)
    low, high = binomial_region(len(trees))
    assert low <= won <= high, (won, len(trees), (low, high))


@pytest.mark.parametrize("spec", ["traps", *(f"traps:branching=4,depth=12,level={k},density=10" for k in (1, 3, 5, 7))])
def test_the_default_and_the_notebooks_shapes_are_balanced(spec):
    # The notebook's shapes are too deep for many exact solves here: the model of the test above,
    # which that test checks against the exact solver, gives 1/2 for them.
    game = make_game(spec)
    chance = plain_root_win_chance(game.leaf_chance, game.branching, game.depth, game.level, game.density)
    assert abs(chance - 0.5) < 1e-6 and 0.5 < game.leaf_chance < 1


def test_the_trap_move_is_lost_at_its_stated_level_on_the_notebooks_trees():
    # Balanced leaves favour MAX; the trap must still be MIN's forced win in exactly k plies (not fewer),
    # so its exact value for MAX is a loss while the other moves win on about half the trees.
    for k in (1, 3, 5, 7):
        for seed in range(4):
            game = TrapTree(branching=4, depth=12, level=k, density=10, seed=seed)
            root, trap = game.initial_state(), game.root_trap()
            assert trap_level(game, root, trap, 7) == k, game.spec
            assert forces_win(game, game.apply(root, trap), 1, k), game.spec
