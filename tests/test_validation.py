"""The one argument-checking rule: wrong type -> TypeError, out of range -> ValueError, messages that teach."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from mctslab.validation import (
    finite,
    integer,
    non_negative_int,
    non_negative_number,
    number,
    one_of,
    positive_int,
    positive_number,
    probability,
)


# -- integers ---------------------------------------------------------------------------
def test_positive_int_accepts_python_and_numpy_integers_and_returns_a_python_int():
    assert positive_int("games", 3) == 3
    value = positive_int("games", np.int64(7))
    assert value == 7 and type(value) is int


@pytest.mark.parametrize("bad", [True, False, 2.0, 2.5, "10", None, [1], np.float64(3.0)])
def test_a_non_integer_is_a_type_error_naming_the_parameter_range_value_and_type(bad):
    with pytest.raises(TypeError) as err:
        positive_int("games", bad)
    message = str(err.value)
    assert message.startswith("games must be an integer >= 1")
    assert repr(bad) in message and type(bad).__name__ in message


@pytest.mark.parametrize("bad", [0, -1, np.int32(-5)])
def test_an_integer_out_of_range_is_a_value_error_naming_the_parameter_range_and_value(bad):
    with pytest.raises(ValueError, match="^" + re.escape(f"games must be an integer >= 1, got {bad!r}") + "$"):
        positive_int("games", bad)


def test_non_negative_int_allows_zero():
    assert non_negative_int("n", 0) == 0
    with pytest.raises(ValueError, match=r"n must be an integer >= 0, got -1"):
        non_negative_int("n", -1)
    with pytest.raises(TypeError, match=r"n must be an integer >= 0, got True \(a bool\)"):
        non_negative_int("n", True)


def test_integer_with_both_bounds_and_a_hint():
    assert integer("t", 5, low=0, high=5) == 5
    with pytest.raises(ValueError, match=r"t must be an integer in \[0, 5\] for this trace, got 6"):
        integer("t", 6, low=0, high=5, hint=" for this trace")
    with pytest.raises(ValueError, match=r"x must be an integer <= 2, got 3"):
        integer("x", 3, high=2)
    assert integer("x", -(10**30)) == -(10**30)  # no bounds: any integer


# -- real numbers -----------------------------------------------------------------------
def test_numbers_accept_ints_and_numpy_floats_and_return_python_floats():
    value = non_negative_number("c", np.float32(0.5))
    assert value == 0.5 and type(value) is float
    assert positive_number("sd", 3) == 3.0
    assert number("x", -2) == -2.0


@pytest.mark.parametrize("bad", [True, "0.5", None, 1j, [0.5]])
def test_a_non_number_is_a_type_error(bad):
    with pytest.raises(TypeError, match=r"^epsilon must be a number in \[0.0, 1.0\] \(a probability\), got "):
        probability("epsilon", bad, hint=" (a probability)")


def test_bounds_open_and_closed():
    assert probability("p", 0) == 0.0 and probability("p", 1) == 1.0
    with pytest.raises(ValueError, match=r"p must be a number in \[0.0, 1.0\], got 1.5"):
        probability("p", 1.5)
    with pytest.raises(ValueError, match=r"sd must be a number > 0.0, got 0"):
        positive_number("sd", 0)
    assert non_negative_number("c", 0) == 0.0
    with pytest.raises(ValueError, match=r"c must be a number >= 0.0, got -0.1"):
        non_negative_number("c", -0.1)
    with pytest.raises(ValueError, match=r"confidence must be a number in \(0.0, 1.0\), got 1.0"):
        number("confidence", 1.0, low=0.0, high=1.0, low_open=True, high_open=True)
    with pytest.raises(ValueError, match=r"x must be a number < 2, got 2"):
        number("x", 2, high=2, high_open=True)


def test_nan_is_never_in_range_and_finite_refuses_infinities():
    with pytest.raises(ValueError, match="got nan"):
        probability("p", math.nan)
    with pytest.raises(ValueError, match="got nan"):
        number("x", math.nan)
    assert positive_number("sd", math.inf) == math.inf
    assert finite("x", -3) == -3.0
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="x must be a finite number"):
            finite("x", bad)
    with pytest.raises(TypeError, match=r"x must be a finite number, got '1' \(a str\)"):
        finite("x", "1")


# -- choices ----------------------------------------------------------------------------
def test_one_of():
    seats = ("alternate", "a-first", "b-first")
    assert one_of("seats", "a-first", seats) == "a-first"
    with pytest.raises(ValueError, match=r"seats must be one of 'alternate', 'a-first', 'b-first'; got 'x'"):
        one_of("seats", "x", seats)
    with pytest.raises(TypeError, match=r"seats must be one of .*; got 3 \(a int\)"):
        one_of("seats", 3, seats)
    with pytest.raises(TypeError, match="a bool"):
        one_of("k", True, (1, 2))
    assert one_of("k", 2, (1, 2)) == 2


# -- the rule holds where mctslab checks its arguments ----------------------------------
def test_the_package_follows_the_rule():
    from mctslab.bandits import UCB1, EpsilonGreedy, run
    from mctslab.seeding import make_rng
    from mctslab.tournament import games_needed, play_match, wilson

    with pytest.raises(TypeError, match="games must be an integer >= 1"):
        play_match("tictactoe", "random", "random", games=2.0, progress=False)
    with pytest.raises(ValueError, match="games must be an integer >= 1, got 0"):
        play_match("tictactoe", "random", "random", games=0, progress=False)
    with pytest.raises(TypeError, match="seats must be one of"):
        play_match("tictactoe", "random", "random", games=2, seats=1, progress=False)
    with pytest.raises(TypeError, match=r"workers must be an integer in \[1, 256\]"):
        play_match("tictactoe", "random", "random", games=2, workers=1.5, progress=False)
    with pytest.raises(TypeError, match="seed must be an integer >= 0"):
        play_match("tictactoe", "random", "random", games=2, seed=None, progress=False)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        play_match("tictactoe", "random", "random", games=2, seed=-1, progress=False)
    with pytest.raises(TypeError, match="runs must be an integer >= 1"):
        run(UCB1(), [0.5], runs=True, steps=10, progress=False)
    with pytest.raises(TypeError, match="the exploration constant c must be a number"):
        UCB1(c="big")
    with pytest.raises(ValueError, match=r"epsilon must be a number in \[0.0, 1.0\]"):
        EpsilonGreedy(-0.1)
    with pytest.raises(TypeError, match="n must be an integer >= 0"):
        wilson(1, 2.0)
    with pytest.raises(TypeError, match="p1 must be a number"):
        games_needed("0.5", 0.6)
    with pytest.raises(TypeError, match="seed must be an int >= 0"):
        make_rng("1")
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        make_rng(-1)
