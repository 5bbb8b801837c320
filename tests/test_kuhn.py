"""Kuhn poker: OpenSpiel's deal order and moves, chips and returns, what each player knows."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from mctslab import check_game, make_game
from mctslab.games import CHANCE, drawing


@pytest.fixture(scope="module")
def kuhn():
    return make_game("kuhn")


def test_passes_check_game(kuhn):
    check_game(kuhn, games=100)


def test_deal_is_two_chance_moves_player0_first(kuhn):
    state = kuhn.initial_state()
    assert kuhn.to_move(state) == CHANCE
    assert kuhn.chance_outcomes(state) == ((0, Fraction(1, 3)), (1, Fraction(1, 3)), (2, Fraction(1, 3)))
    state = kuhn.play(state, 1)  # player 0 gets the Queen
    assert kuhn.to_move(state) == CHANCE
    assert kuhn.chance_outcomes(state) == ((0, Fraction(1, 2)), (2, Fraction(1, 2)))
    state = kuhn.play(state, 2)
    assert state.cards == (1, 2) and kuhn.to_move(state) == 0 and kuhn.legal_moves(state) == (0, 1)


@pytest.mark.parametrize(
    ("cards", "bets", "chips"),
    [
        ((2, 0), (0, 0), 1),
        ((0, 2), (0, 0), -1),
        ((0, 2), (1, 0), 1),  # player 1 folds
        ((2, 0), (0, 1, 0), -1),  # player 0 folds
        ((2, 1), (1, 1), 2),
        ((1, 2), (0, 1, 1), -2),
    ],
)
def test_chips_and_returns(kuhn, cards, bets, chips):
    state = kuhn.state_from_moves([*cards, *bets])
    assert kuhn.is_terminal(state)
    assert kuhn.chips(state) == chips
    assert kuhn.returns(state) == ((chips + 2) / 4, (2 - chips) / 4)
    assert kuhn.winner(state) == (0 if chips > 0 else 1)


def test_information_state_hides_the_other_card(kuhn):
    a = kuhn.state_from_moves([2, 0, 1])
    b = kuhn.state_from_moves([2, 1, 1])
    assert kuhn.information_state(a, 0) == kuhn.information_state(b, 0)
    assert kuhn.information_state(a, 1) != kuhn.information_state(b, 1)


def test_sample_state_deals_the_two_other_cards_evenly(kuhn):
    state = kuhn.state_from_moves([1, 2, 0])
    rng, n = random.Random(0), 4000
    counts = Counter(kuhn.sample_state(state, 1, rng).cards for _ in range(n))
    assert set(counts) == {(0, 2), (1, 2)}  # player 1 holds the King: player 0 has J or Q
    # each half: binomial sd is sqrt(n)/2 = 32; 4 sd
    assert abs(counts[(0, 2)] - n / 2) < 4 * n**0.5 / 2


@pytest.mark.parametrize("player", [0, 1])
def test_end_of_hand_text_says_hidden_only_while_the_other_card_is(kuhn, player):
    """A showdown names both cards, so the header no longer says the other card is hidden (issue 38)."""
    other = "KJ"[player]  # player 0 holds J against K, player 1 holds K against J
    showdown = drawing(kuhn).render_for(kuhn.state_from_moves([0, 2, 1, 1]), player)  # bet, call: cards turned over
    assert "hidden" not in showdown and "both cards are turned over" in showdown
    assert f"{other} beats" in showdown or f"beats {other}" in showdown
    fold = drawing(kuhn).render_for(kuhn.state_from_moves([0, 2, 1, 0]), player)  # bet, fold: no card shown
    assert "the other card is hidden" in fold and other not in fold.replace("J < Q < K", "")
    playing = drawing(kuhn).render_for(kuhn.state_from_moves([0, 2]), player)
    assert "the other card is hidden" in playing
