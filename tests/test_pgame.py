"""P-games (mctslab.games.pgame) and the alpha-beta solver (mctslab.exact.alphabeta)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from mctslab import check_game, make_game
from mctslab.exact.alphabeta import BudgetExhausted, alphabeta, best_move, move_values, optimal_moves, result_value
from mctslab.games.base import InvalidStateError
from mctslab.games.pgame import MAX_MOVE_VALUE, PGame, PGameState

ROOT = Path(__file__).resolve().parents[1]


def plain_minimax(game, state, leaf):
    """Minimax over the whole tree, no pruning: the independent reference."""
    if game.is_terminal(state):
        return leaf(state)
    values = [plain_minimax(game, game.apply(state, m), leaf) for m in game.legal_moves(state)]
    return max(values) if game.to_move(state) == 0 else min(values)


def small_trees(count: int):
    for seed in range(count):
        yield PGame(branching=2 + seed % 3, depth=2 + seed % 5, seed=1000 + seed)


@pytest.mark.parametrize("spec", ["pgame:branching=3,depth=4,seed=1", "pgame:branching=8,depth=8,seed=5"])
def test_pgame_keeps_the_game_contract(spec):
    check_game(make_game(spec))


def test_move_values_follow_the_paper_ranges_and_the_leaf_is_their_sum():
    game = PGame(branching=4, depth=6, seed=7)
    rng = random.Random(0)
    seen_max, seen_min = set(), set()
    for _ in range(300):
        state, total = game.initial_state(), 0
        while not game.is_terminal(state):
            move = rng.choice(game.legal_moves(state))
            value = game.move_value(state, move)
            (seen_max if game.to_move(state) == 0 else seen_min).add(value)
            total += value
            state = game.play(state, move)
        assert game.value(state) == total
        assert game.winner(state) == (0 if total > 0 else 1 if total < 0 else None)
    assert min(seen_max) >= 0 and max(seen_max) <= MAX_MOVE_VALUE
    assert max(seen_min) <= 0 and min(seen_min) >= -MAX_MOVE_VALUE
    # 300 games of 3 moves each per player: the values spread over the range.
    assert max(seen_max) > 100 and min(seen_min) < -100


@pytest.mark.parametrize("use_sum", [False, True])
def test_alphabeta_matches_plain_minimax_on_hundreds_of_small_trees(use_sum):
    for game in small_trees(300):
        leaf = game.value if use_sum else result_value(game)
        root = game.initial_state()
        children = {m: plain_minimax(game, game.apply(root, m), leaf) for m in game.legal_moves(root)}
        best = max(children.values())
        value, nodes = alphabeta(game, root, leaf if use_sum else None)
        assert value == plain_minimax(game, root, leaf) == best, game.spec
        assert move_values(game, root, leaf if use_sum else None) == children, game.spec
        assert optimal_moves(game, root, leaf if use_sum else None) == tuple(m for m in children if children[m] == best)
        assert 1 <= nodes <= sum(game.branching**d for d in range(game.depth + 1))
        move, move_value, _ = best_move(game, root, leaf if use_sum else None)
        assert move == min(m for m in children if children[m] == best) and move_value == best


def test_optimal_moves_for_the_minimising_player():
    for game in small_trees(100):
        state = game.apply(game.initial_state(), 0)
        if game.is_terminal(state):
            continue
        leaf = result_value(game)
        children = {m: plain_minimax(game, game.apply(state, m), leaf) for m in game.legal_moves(state)}
        worst = min(children.values())
        assert optimal_moves(game, state) == tuple(m for m in children if children[m] == worst), game.spec
        assert best_move(game, state)[:2] == (min(m for m in children if children[m] == worst), worst)


def test_budgeted_alphabeta_stops_at_its_budget():
    game = PGame(branching=8, depth=8, seed=0)
    _, needed = alphabeta(game)
    with pytest.raises(BudgetExhausted):
        alphabeta(game, max_nodes=needed - 1)
    assert alphabeta(game, max_nodes=needed)[1] == needed


def test_a_big_tree_costs_no_memory():
    """8^8 leaves: thousands of random moves, and no tree grows anywhere."""
    game = PGame(branching=8, depth=8, seed=3)
    attributes = dict(vars(game))
    rng = random.Random(1)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(500):  # 4,000 moves
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, rng.randrange(8))
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert vars(game) == attributes
    assert grown < 64_000, f"{grown} bytes kept after 4,000 moves"


def test_the_same_seed_gives_the_same_tree_in_another_process():
    code = (
        "from mctslab.games.pgame import PGame\n"
        "g = PGame(branching=8, depth=8, seed=12345)\n"
        "s = g.initial_state()\n"
        "for m in (3, 1, 4, 1, 5, 2, 6, 5): s = g.apply(s, m)\n"
        "print(s.key, s.total, g.winner(s))\n"
    )
    outputs = set()
    for hash_seed in ("0", "1", "random"):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hash_seed}
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.add(run.stdout.strip())
    game = PGame(branching=8, depth=8, seed=12345)
    state = game.initial_state()
    for m in (3, 1, 4, 1, 5, 2, 6, 5):
        state = game.apply(state, m)
    assert outputs == {f"{state.key} {state.total} {game.winner(state)}"}
    other = PGame(branching=8, depth=8, seed=12346)
    assert [game.move_value(game.initial_state(), m) for m in range(8)] != [
        other.move_value(other.initial_state(), m) for m in range(8)
    ]


def test_bad_parameters_and_foreign_states_are_refused_by_name():
    with pytest.raises(ValueError, match="branching must be an int from 2 to 16, got 1"):
        PGame(branching=1)
    with pytest.raises(ValueError, match="depth"):
        make_game("pgame:depth=0")
    game = PGame(branching=2, depth=3, seed=0)
    with pytest.raises(InvalidStateError, match="not those of this tree"):
        game.play(PGameState((1,), 5, 3), 0)
    with pytest.raises(InvalidStateError, match="not those of this tree"):
        game.play(PGame(branching=2, depth=3, seed=1).apply(PGame(branching=2, depth=3, seed=1).initial_state(), 1), 0)
