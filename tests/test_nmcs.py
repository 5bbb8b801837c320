"""Nested Monte Carlo Search: the "left move" toy problem's exact level-1 distribution, and SameGame."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from functools import cache
from math import comb
from typing import NamedTuple

import pytest

from mctslab import make_agent, make_game, play_game
from mctslab.agents.base import CannotPlayError
from mctslab.agents.nmcs import NestedMonteCarlo, nested_search, playout, step
from mctslab.exact import samegame_optimum
from mctslab.games import Game


class LeftState(NamedTuple):
    depth: int
    lefts: int


class LeftMove(Game):
    """Cazenave 2009's "left move" problem: ``n`` binary choices, the score is the number of lefts (move 0)."""

    num_players = 1

    def __init__(self, n: int) -> None:
        self.n, self.spec, self.score_range = n, f"leftmove:n={n}", (0, n)

    def initial_state(self) -> LeftState:
        return LeftState(0, 0)

    def to_move(self, state):
        return 0

    def legal_moves(self, state):
        return () if state.depth == self.n else (0, 1)

    def apply(self, state, move):
        return LeftState(state.depth + 1, state.lefts + (move == 0))

    def is_terminal(self, state):
        return state.depth == self.n

    def winner(self, state):
        return None

    def returns(self, state):
        return (self.normalise(state.lefts),)

    def render(self, state):
        return f"{state.depth} moves, {state.lefts} left"


def binomial(d: int) -> list[Fraction]:
    """P(k lefts among d random moves), k = 0..d."""
    return [Fraction(comb(d, k), 2**d) for k in range(d + 1)]


def level_one_distribution(n: int) -> dict[int, Fraction]:
    """The exact distribution of level-1 NMCS's score on left move, by dynamic programming.

    The memorised sequence matters only through its number ``k`` of lefts among the ``d``
    moves left to play: it was a uniform random playout chosen for its score alone, so given
    ``k`` its lefts are spread uniformly and its next move is left with probability ``k / d``.
    Moves are tried left first, and a sequence replaces the best only if strictly better.
    """

    @cache
    def final(d: int, lefts: int, k: int | None) -> tuple[tuple[int, Fraction], ...]:
        if d == 0:
            return ((lefts + k, Fraction(1)),)
        out: dict[int, Fraction] = {}

        def add(p: Fraction, nxt: tuple[tuple[int, Fraction], ...]) -> None:
            for score, q in nxt:
                out[score] = out.get(score, Fraction(0)) + p * q

        for x1, p1 in enumerate(binomial(d - 1)):
            for x2, p2 in enumerate(binomial(d - 1)):
                best = None if k is None else lefts + k
                choice = "old"
                if best is None or lefts + 1 + x1 > best:
                    best, choice = lefts + 1 + x1, "left"
                if lefts + x2 > best:
                    choice = "right"
                p = p1 * p2
                if choice == "left":
                    add(p, final(d - 1, lefts + 1, x1))
                elif choice == "right":
                    add(p, final(d - 1, lefts, x2))
                else:
                    if k:
                        add(p * Fraction(k, d), final(d - 1, lefts + 1, k - 1))
                    if d - k:
                        add(p * Fraction(d - k, d), final(d - 1, lefts, k))
        return tuple(sorted(out.items()))

    return dict(final(n, 0, None))


def test_the_exact_distribution_is_a_distribution_and_beats_one_playout():
    dist = level_one_distribution(6)
    assert sum(dist.values()) == 1 and min(dist) >= 1  # the first step's left playout scores at least 1
    mean = sum(s * p for s, p in dist.items())
    assert mean > Fraction(6, 2)  # one random playout averages n / 2


def test_level_one_matches_its_exact_distribution_on_left_move():
    n, runs = 8, 2000
    game = LeftMove(n)
    dist = level_one_distribution(n)
    mean = sum(s * p for s, p in dist.items())
    var = sum(s * s * p for s, p in dist.items()) - mean**2
    rng = random.Random(2009)
    scores = [nested_search(game, game.initial_state(), 1, rng).score * n for _ in range(runs)]
    assert abs(sum(scores) / runs - float(mean)) < 4 * math.sqrt(float(var) / runs)
    for score in (n, n - 1):  # the top of the distribution too, within 4 standard errors
        p = float(dist[score])
        share = sum(s == score for s in scores) / runs
        assert abs(share - p) < 4 * math.sqrt(p * (1 - p) / runs)


def test_level_one_plays_two_playouts_per_step_on_left_move():
    game = LeftMove(10)
    found = nested_search(game, game.initial_state(), 1, random.Random(0))
    assert found.playouts == 2 * 10 and len(found.moves) == 10
    assert found.score == game.returns(game.state_from_moves(found.moves))[0]


def test_memorising_never_ends_below_the_first_steps_best_search():
    # With memorisation the final score is the best any search found: at least the first step's best.
    game = make_game("samegame:rows=6,cols=6,colors=4,seed=3")
    optimum = samegame_optimum(game).score
    for seed in range(5):
        found = nested_search(game, game.initial_state(), 2, random.Random(seed))
        end = game.state_from_moves(found.moves)
        assert game.is_terminal(end) and game.returns(end)[0] == found.score
        _, first_best, _, stats = step(game, game.initial_state(), 2, random.Random(seed), None)
        assert first_best.score == max(s.mean for s in stats) <= found.score
        assert game.score(end) <= optimum


def test_the_agent_plays_exactly_the_nested_search_of_its_stream():
    game = make_game("samegame:rows=6,cols=6,colors=4,seed=1")
    for level in (1, 2):
        found = nested_search(game, game.initial_state(), level, NestedMonteCarlo(level=level, seed=5).rng)
        record = play_game(game, [NestedMonteCarlo(level=level, seed=5)])
        assert record.moves == list(found.moves) and record.iterations == [found.playouts]
        assert (
            play_game(game, [f"nmcs:level={level}"], seed=4).moves
            == play_game(game, [f"nmcs:level={level}"], seed=4).moves
        )


def test_level_two_reaches_the_exact_optimum_more_often_than_level_one():
    # 40 seeded 5 x 5 boards, one run of each level: on the boards where exactly one level finds the
    # exact optimum, level 2 must be that one more often than a fair coin would allow (exact sign
    # test, one-sided p < 0.01).
    only = {1: 0, 2: 0}
    for s in range(40):
        game = make_game(f"samegame:rows=5,cols=5,colors=3,seed={s}")
        best = samegame_optimum(game).score
        hit = {
            level: game.score(game.state_from_moves(play_game(game, [f"nmcs:level={level}"], seed=s).moves)) == best
            for level in only
        }
        if hit[1] != hit[2]:
            only[1 if hit[1] else 2] += 1
    n = only[1] + only[2]
    p_value = sum(comb(n, k) for k in range(only[2], n + 1)) / 2**n
    assert p_value < 0.01, only


def test_nmcs_refuses_two_player_games_and_bad_levels_in_one_line():
    with pytest.raises(CannotPlayError, match="cannot play tictactoe"):
        make_agent("nmcs").select_move(make_game("tictactoe"), make_game("tictactoe").initial_state())
    with pytest.raises(ValueError, match="level must be an int from 1 to 4 .* got 5"):
        make_agent("nmcs:level=5")
    assert make_agent("nmcs:level=3,memorise=false").spec == "nmcs:level=3,memorise=false"


def test_a_playout_is_uniform_over_left_move():
    game = LeftMove(4)
    rng = random.Random(1)
    counts = [round(playout(game, game.initial_state(), rng).score * 4) for _ in range(1600)]
    for k, p in enumerate(binomial(4)):
        share = counts.count(k) / 1600
        assert abs(share - float(p)) < 4 * math.sqrt(float(p) * (1 - float(p)) / 1600)
