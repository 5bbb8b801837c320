"""Checks for the exercises of notebooks 02 (pure Monte Carlo) and 05 (tournaments).

Each check takes the student's answer and returns a :class:`Verdict`: it never raises
for a wrong or unfinished answer. An unfinished answer (a function that raises
``NotImplementedError``, or a number left at ``None``) gets "not written yet"; a wrong one
gets a diagnosis that says what is wrong without giving the answer away. So a notebook
runs from top to bottom with or without its reference solutions (the student edition
drops the cells tagged ``solution``). Tested in ``tests/test_course_exercises.py``
against right, wrong and unfinished answers.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from ...exact import exact_flat_values, leading_moves
from ...games import make_game
from ...tournament import games_needed, play_match
from ..exercises.limits import TimeLimitExceeded, time_limit
from .decisions import predicted_flat_choices
from .strength import budget_agent

__all__ = [
    "FLAT_POSITIONS",
    "Verdict",
    "check_centre_playouts",
    "check_flat",
    "check_games_needed",
    "check_settled",
]

FLAT_POSITIONS = ((2, 3, 8, 7), (0, 4, 1), (4, 0, 8, 2))
"""The positions (moves from the empty board) on which :func:`check_flat` grades a flat player."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of an exercise check; it shows as its message in a notebook.

    Attributes:
        ok: True when the answer passed.
        done: False when the answer is not written yet (a stub).
        message: what was checked and what was found, in plain words.
    """

    ok: bool
    done: bool
    message: str

    def __repr__(self) -> str:
        return self.message

    def __str__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return self.ok


def _not_done(what: str) -> Verdict:
    return Verdict(False, False, f"not written yet: {what}, then run this cell again.")


def _raised(error: Exception) -> Verdict:
    return Verdict(False, True, f"your answer raised {type(error).__name__}: {error}")


CALL_SECONDS = 10.0
"""The time limit of one call of the student's function (a right answer takes a fraction of a second)."""


def _too_slow(err: TimeLimitExceeded, hint: str) -> Verdict:
    return Verdict(False, True, f"`{err.part}` did not return within {err.within}: {hint}")


# -- notebook 02 ---------------------------------------------------------------------------
def check_flat(choose: Callable[..., Any], seeds: int = 10, playouts: int = 300) -> Verdict:
    """Exercise 1 of notebook 02: a flat Monte Carlo player written by hand.

    ``choose(game, state, playouts, rng)`` must return a legal move. On each position of
    :data:`FLAT_POSITIONS` (each has one move with the best exact flat value,
    :func:`mctslab.exact.exact_flat_values`), it is called with ``seeds`` different
    ``random.Random`` generators; it passes if at least 80% of the choices are that move
    (a correct player with 300 playouts per move agrees about 95% of the time).

    Returns:
        A :class:`Verdict`.
    """
    game = make_game("tictactoe")
    agree = total = 0
    for moves in FLAT_POSITIONS:
        position = game.state_from_moves(list(moves))
        (best,) = leading_moves(exact_flat_values(game, position))
        for seed in range(seeds):
            try:
                with time_limit(CALL_SECONDS, getattr(choose, "__name__", "my_flat")):
                    move = choose(game, position, playouts, random.Random(seed))
            except TimeLimitExceeded as err:
                return _too_slow(err, f"{playouts} playouts per move take well under a second; does each playout stop?")
            except NotImplementedError:
                return _not_done("write my_flat above")
            except Exception as error:  # the student's code: report, never raise
                return _raised(error)
            if move not in game.legal_moves(position):
                return Verdict(False, True, f"{move!r} is not a legal move after the moves {list(moves)}")
            agree += move == best
            total += 1
    if agree < 0.8 * total:
        return Verdict(
            False,
            True,
            f"only {agree} of {total} choices were the move with the best exact flat value: check the score's sign "
            "(wins minus losses for the player to move, game.to_move(state), not always for X) and that you "
            "keep the best score, not the last one",
        )
    return Verdict(True, True, f"passed: {agree} of {total} choices were the move with the best exact flat value")


CENTRE_BUDGETS = tuple(range(50, 1001, 50))
"""The candidate playouts per move of exercise 2 of notebook 02."""


def check_centre_playouts(n: int | None, trials: int = 40_000, seed: int = 1) -> Verdict:
    """Exercise 2 of notebook 02: the fewest playouts per move (in steps of 50) that open in the centre 95% of the time.

    Uses :func:`~mctslab.course.experiments.predicted_flat_choices` (the exact playout odds,
    ``trials`` simulated decisions): ``n`` passes if it reaches 95% and ``n - 50`` does not.

    Returns:
        A :class:`Verdict`.
    """
    if n is None:
        return _not_done("set my_playouts above")
    if n not in CENTRE_BUDGETS:
        return Verdict(False, True, f"{n!r} is not one of 50, 100, 150, ..., 1000")
    game = make_game("tictactoe")
    empty = game.initial_state()
    rate = predicted_flat_choices(game, empty, n, trials, seed)[4]
    if rate < 0.95:
        return Verdict(False, True, f"with {n} playouts the centre is chosen {rate:.1%} of the time: not enough")
    below = predicted_flat_choices(game, empty, n - 50, trials, seed)[4] if n > 50 else 0.0
    if below >= 0.95:
        return Verdict(False, True, f"{n - 50} playouts already reach 95% ({below:.1%}): look lower")
    return Verdict(
        True, True, f"passed: {n} playouts open in the centre {rate:.1%} of the time, {n - 50} only {below:.1%}"
    )


# -- notebook 05 ---------------------------------------------------------------------------
GAMES_NEEDED_CASES = ((0.6, 0.55), (0.9, 0.7), (0.51, 0.5), (0.3, 0.1))
"""The rate pairs on which :func:`check_games_needed` compares the student's formula with the package's."""


def check_games_needed(formula: Callable[[float, float], int]) -> Verdict:
    """Exercise 1 of notebook 05: the two-proportion sample size, by hand.

    Passes if ``formula(p1, p2)`` equals :func:`mctslab.tournament.games_needed` on every
    pair of :data:`GAMES_NEEDED_CASES`.

    Returns:
        A :class:`Verdict`.
    """
    for p1, p2 in GAMES_NEEDED_CASES:
        try:
            with time_limit(CALL_SECONDS, getattr(formula, "__name__", "my_games_needed")):
                mine = formula(p1, p2)
        except TimeLimitExceeded as err:
            return _too_slow(err, "the formula is a few arithmetic operations; look for a loop that never ends")
        except NotImplementedError:
            return _not_done("write my_games_needed above")
        except Exception as error:  # the student's code: report, never raise
            return _raised(error)
        reference = games_needed(p1, p2)
        if mine != reference:
            hint = (
                "round up (math.ceil) to a whole number of games"
                if isinstance(mine, float) and abs(mine - reference) < 1
                else "compare your formula with the one above term by term"
            )
            return Verdict(False, True, f"{p1} against {p2}: {mine!r} games, expected {reference}: {hint}")
    return Verdict(True, True, "passed: your formula agrees with games_needed")


SETTLE_SEED = 7
"""The seed of the match that :func:`check_settled` plays."""


def check_settled(games: int | None, executor: Executor | None = None, workers: int | None = 1) -> Verdict:
    """Exercise 2 of notebook 05: enough games to tell UCT (100 iterations) from halving (100 playouts).

    Plays ``games`` games (seed :data:`SETTLE_SEED`, seats alternating) between
    ``uct:iterations=100`` and halving with 100 playouts per decision; passes if the
    95% interval of UCT's score (``score_ci``) excludes 0.5, with no more than 1,000 games.

    Args:
        games: the student's number of games (``None``: not chosen yet).
        executor: where the games run (a process pool for speed); the result is the
            same on any executor.
        workers: processes when no executor is given.

    Returns:
        A :class:`Verdict`.
    """
    if games is None:
        return _not_done("set my_games above")
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= 1000:
        return Verdict(False, True, f"{games!r}: choose a whole number of games between 1 and 1,000")
    ttt = make_game("tictactoe")
    match = play_match(
        ttt,
        "uct:iterations=100",
        budget_agent("halving", 100),
        games,
        seed=SETTLE_SEED,
        executor=executor,
        workers=workers,
        progress=False,
    )
    score, (low, high) = match.outcomes.score, match.outcomes.score_ci()
    if low <= 0.5 <= high:
        return Verdict(
            False,
            True,
            f"UCT scored {score:.3f} [{low:.3f}, {high:.3f}] in {games} games: the interval contains 0.5, not "
            "settled; plan the games from a pilot's score with the formula that fits a question about one rate",
        )
    verdict = "stronger" if low > 0.5 else "weaker"
    return Verdict(True, True, f"passed: in {games} games UCT scored {score:.3f} [{low:.3f}, {high:.3f}]: {verdict}")
