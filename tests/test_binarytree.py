"""The binary-tree puzzles (left move, leftmost path) and their exact score distributions.

The exact level-1 distribution is checked against the real search by enumerating every
random stream a level-1 search can draw on a small tree (each playout move is one
``rng.random()``, so a stream of ``depth * (depth - 1)`` coin flips decides a whole search).
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest
from test_nmcs import level_one_distribution

from mctslab import check_game, make_game, play_game
from mctslab.agents.nmcs import nested_search
from mctslab.exact.binarytree import level1_cost, level1_distribution, mean, playout_distribution
from mctslab.games import drawing
from mctslab.tournament.stats import wilson


class Coins(random.Random):
    """A random stream that plays back fixed coin flips: ``0.25`` for 0 (left), ``0.75`` for 1 (right)."""

    def __init__(self, flips: tuple[int, ...]) -> None:
        super().__init__(0)
        self.flips, self.used = flips, 0

    def random(self) -> float:
        flip = self.flips[self.used]
        self.used += 1
        return 0.25 + 0.5 * flip


def every_search(game, level: int = 1):
    """The scores of the level-1 search under every stream of coin flips, each stream used up exactly."""
    draws = level1_cost(game.depth)[1]
    for flips in product((0, 1), repeat=draws):
        rng = Coins(flips)
        found = nested_search(game, game.initial_state(), level, rng)
        assert rng.used == draws, "a level-1 search draws exactly depth * (depth - 1) random moves"
        assert found.playouts == level1_cost(game.depth)[0]
        yield game.score(game.state_from_moves(found.moves))


@pytest.mark.parametrize("spec", ["leftmove:depth=5", "leftmost:depth=5"])
def test_the_puzzles_pass_check_game_and_score_their_paths(spec):
    game = make_game(spec)
    check_game(game)
    assert game.legal_moves(()) == (0, 1) and game.is_terminal((0,) * 5)
    rule = {"leftmove": (0, 1, 0, 0, 1), "leftmost": (0, 1, 0, 0, 1)}
    assert game.score(rule[game.name]) == (3 if game.name == "leftmove" else 1)
    assert game.returns((0,) * 5) == (1.0,) and game.returns((1,) * 5) == (0.0,)
    assert drawing(game).board_cells((0, 1)) == [["L", "", "", "", ""], ["", "R", "", "", ""]]
    assert drawing(game).click_move((0, 1), 1, 2) == 1 and drawing(game).click_move((0, 1), 0, 0) is None


def test_a_depth_out_of_range_is_refused_in_one_line():
    with pytest.raises(ValueError, match="depth must be an int from 1 to 64, got 0"):
        make_game("leftmove:depth=0")


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_the_exact_level1_distribution_is_the_search_over_every_random_stream(depth):
    game = make_game(f"leftmove:depth={depth}")
    scores = list(every_search(game))
    counted = {s: Fraction(scores.count(s), len(scores)) for s in sorted(set(scores))}
    assert counted == level1_distribution(game)


def test_level1_always_finds_the_leftmost_path_in_2n_playouts_and_n_n_minus_1_random_moves():
    game = make_game("leftmost:depth=4")
    assert set(every_search(game)) == {4}
    assert level1_distribution(game) == {4: Fraction(1)}
    big = make_game("leftmost:depth=30")
    for seed in range(20):
        found = nested_search(big, (), 1, random.Random(seed))
        assert found.moves == (0,) * 30 and (found.playouts, found.random_moves) == level1_cost(30) == (60, 30 * 29)


def test_the_exact_level1_distribution_agrees_with_test_nmcs_s_independent_one():
    for depth in range(1, 9):
        assert level1_distribution(make_game(f"leftmove:depth={depth}")) == level_one_distribution(depth)


def test_the_playout_distributions_are_exact():
    for spec in ("leftmove:depth=5", "leftmost:depth=5"):
        game = make_game(spec)
        paths = list(product((0, 1), repeat=5))
        exact = playout_distribution(game)
        for s, p in exact.items():
            assert Fraction(sum(game.score(path) == s for path in paths), 32) == p
        assert sum(exact.values()) == 1
    assert mean(playout_distribution(make_game("leftmove:depth=8"))) == 4


def test_the_agent_reaches_the_exact_level1_rate_within_a_wilson_interval():
    game = make_game("leftmove:depth=8")
    exact = level1_distribution(game)[8]
    runs = 300
    hits = sum(play_game(game, ["nmcs:level=1"], seed=seed).moves == [0] * 8 for seed in range(runs))
    low, high = wilson(hits, runs, 0.999)
    assert low <= exact <= high, (hits, float(exact))


def test_too_deep_a_left_move_tree_is_refused():
    with pytest.raises(ValueError, match="depth at most 24, got 30"):
        level1_distribution(make_game("leftmove:depth=30"))
    with pytest.raises(TypeError, match="needs a leftmove or leftmost game"):
        playout_distribution(make_game("samegame:rows=3,cols=3,colors=2,seed=0"))
