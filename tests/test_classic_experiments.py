"""Notebook 11's experiments (mctslab.course.experiments.classic): the players and the resumable failure rates."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from mctslab.course.experiments.classic import ALGORITHMS, Setup, alphabeta_move, choose, mmmc_move, run_failure
from mctslab.exact.alphabeta import alphabeta, best_move, optimal_moves
from mctslab.games.pgame import PGame

SMALL = Setup(branching=3, depth=4, budgets=(8, 40), trees=4)


def test_minimax_backup_finds_an_optimal_move_once_the_whole_tree_is_grown():
    # 2 + 4 + 8 = 14 positions below the root: 200 iterations grow them all, and a
    # terminal node's playouts all give its exact result, so the minimax of the means is exact.
    for seed in range(30):
        game = PGame(branching=2, depth=3, seed=seed)
        move = mmmc_move(game, game.initial_state(), 200, random.Random(seed))
        assert move in optimal_moves(game), game.spec


def test_budgeted_alphabeta_plays_its_move_when_it_finishes_and_a_random_one_when_not():
    game = PGame(branching=8, depth=4, seed=2)
    root = game.initial_state()
    _, needed = alphabeta(game)
    assert alphabeta_move(game, root, needed + 1, random.Random(0)) == best_move(game)[0]
    moves = {alphabeta_move(game, root, 5, random.Random(s)) for s in range(40)}
    assert len(moves) > 4  # 40 uniform draws among 8 moves: fewer than 5 distinct has probability < 1e-6


def test_every_algorithm_plays_a_legal_root_move_and_an_unknown_one_is_named():
    game = PGame(branching=3, depth=5, seed=1)
    for algorithm in ALGORITHMS:
        assert choose(algorithm, game, game.initial_state(), 30, seed=4) in (0, 1, 2)
    with pytest.raises(ValueError, match="unknown algorithm 'ucb'; known: uct, mc, mmmc, alphabeta"):
        choose("ucb", game, game.initial_state(), 30, seed=4)


def test_failure_rates_resume_where_a_run_stopped(tmp_path):
    fresh = run_failure(SMALL, tmp_path / "a", progress=False)
    path = tmp_path / "a" / f"failure_{SMALL.name}.jsonl"
    lines = path.read_text().splitlines()
    assert len(lines) == SMALL.trees * (1 + len(ALGORITHMS) * len(SMALL.budgets))
    # Read back: nothing recomputed, nothing appended.
    assert run_failure(SMALL, tmp_path / "a", progress=False) == fresh
    assert path.read_text().splitlines() == lines
    # Stopped mid-way, with a line cut short: the rerun completes it to the same results.
    resumed = tmp_path / "b" / path.name
    resumed.parent.mkdir()
    resumed.write_text("\n".join(lines[:7]) + "\n" + lines[7][:10] + "\n")
    assert run_failure(SMALL, tmp_path / "b", progress=False) == fresh


def test_the_curves_count_failures_against_the_exact_optimal_moves(tmp_path):
    curves = run_failure(SMALL, tmp_path, ["alphabeta"], progress=False)
    optimal = [optimal_moves(SMALL.game(t)) for t in range(SMALL.trees)]
    assert curves.random_rate == sum(Fraction(3 - len(o), 3) for o in optimal) / SMALL.trees
    assert curves.decisive == sum(len(o) < 3 for o in optimal)
    # 3^4 = 81 leaves: 40 positions may not finish, but the whole tree (121 positions) would;
    # at a budget where every tree finishes, alpha-beta never fails.
    big = run_failure(Setup(3, 4, (121,), SMALL.trees), tmp_path, ["alphabeta"], progress=False)
    assert big.point("alphabeta", 121).failures == 0
    point = curves.point("alphabeta", 8)
    assert point.trees == SMALL.trees and point.ci()[0] <= point.rate <= point.ci()[1]
    assert "alpha-beta" in str(curves)


def test_paired_counts_are_the_discordant_trees(tmp_path):
    curves = run_failure(SMALL, tmp_path, ["uct", "alphabeta"], progress=False)
    for budget in SMALL.budgets:
        only_uct, only_ab = curves.paired("uct", "alphabeta", budget)
        uct, ab = curves.failed[("uct", budget)], curves.failed[("alphabeta", budget)]
        both = sum(x and y for x, y in zip(uct, ab, strict=True))
        assert only_uct + both == curves.point("uct", budget).failures
        assert only_ab + both == curves.point("alphabeta", budget).failures


def test_the_small_tree_drawing_shows_exact_values_and_refuses_big_trees():
    from mctslab.course.figures.classic import draw_pgame

    game = PGame(branching=2, depth=4, seed=0)
    text = draw_pgame(game).describe()
    assert text.splitlines()[0] == f"MAX to move, exact value {alphabeta(game)[0]:+.0f}"
    assert text.count("leaf") == 16
    with pytest.raises(ValueError, match="at most 64 leaves; pgame:branching=8,depth=8,seed=0 has 16777216"):
        draw_pgame(PGame(branching=8, depth=8, seed=0))


def test_a_fresh_set_of_trees_starts_at_first_and_is_the_same_trees_as_in_a_longer_run(tmp_path):
    # Trees 2 and 3 of a four-tree run, and a run of two trees from first=2: the same games,
    # the same seeded choices, so the same failures (a fresh-seed re-run is a slice, not a new stream).
    whole = run_failure(SMALL, tmp_path / "whole", progress=False)
    fresh_setup = Setup(SMALL.branching, SMALL.depth, SMALL.budgets, 2, first=2)
    fresh = run_failure(fresh_setup, tmp_path / "fresh", progress=False)
    assert list(fresh_setup.seeds) == [2, 3]
    for key, failed in fresh.failed.items():
        assert failed == whole.failed[key][2:]
    lines = (tmp_path / "fresh" / f"failure_{SMALL.name}.jsonl").read_text()
    assert '"tree": 0' not in lines and '"tree": 2' in lines
    optimal = [optimal_moves(SMALL.game(t)) for t in (2, 3)]
    assert fresh.random_rate == sum(Fraction(3 - len(o), 3) for o in optimal) / 2


def test_between_budgets_counts_the_trees_one_budget_fails_on_and_the_other_does_not(tmp_path):
    curves = run_failure(SMALL, tmp_path, ["uct"], progress=False)
    low, high = curves.failed[("uct", 8)], curves.failed[("uct", 40)]
    only_low, only_high = curves.between_budgets("uct", 8, 40)
    pairs = list(zip(low, high, strict=True))
    assert only_low == sum(x and not y for x, y in pairs) and only_high == sum(y and not x for x, y in pairs)
    assert only_low - only_high == curves.point("uct", 8).failures - curves.point("uct", 40).failures
    assert curves.between_budgets("uct", 40, 8) == (only_high, only_low)
