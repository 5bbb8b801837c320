"""The check of notebook 00's exercise: a misère version of a game written in the notebook.

:func:`check_misere` runs the student's class and returns one line, never raising for
the student's mistakes (the notebook runs with or without its reference solution):
``"passed: ..."``, ``"not yet: ..."`` saying what is wrong without giving the answer
away, or ``"not written yet: ..."`` while the class is still the stub. Tested in
``tests/test_games_exercises.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...exact import solve
from ...games.check import GameContractError, check_game
from .isolation import unchanged_globals
from .limits import TimeLimitExceeded, time_limit

CHECK_SECONDS = 10.0
"""The time limit of the whole check (it takes a few milliseconds with a right answer)."""

__all__ = ["check_misere"]


def _who_says_the_target(moves: list[int]) -> int:
    return (len(moves) - 1) % 2  # player 0 says the first number


def check_misere(cls: Callable[[int], Any]) -> str:
    """Check a misère twenty-one: whoever says the target **loses**.

    ``cls(target)`` must build the game of notebook 00 (state ``(total, player)``,
    moves 1, 2 or 3) with the misère rule. The check runs :func:`check_game` on it,
    then looks at finished games: the player who said the target must not be the
    winner. Only when both hold does it ask the exact solver who wins from the start,
    with targets 21 and 22, and report it.

    Args:
        cls: the student's class, called with the target.

    Returns:
        One line: ``"passed: ..."`` with the solver's verdicts, ``"not yet: ..."`` saying
        what is wrong, or ``"not written yet: ..."`` while the class raises
        ``NotImplementedError``; nothing runs longer than :data:`CHECK_SECONDS`.
    """
    try:
        with unchanged_globals(), time_limit(CHECK_SECONDS, "MisereTwentyOne"):
            values = _solve_if_misere(cls)
    except _NotYet as err:
        return f"not yet: {err}"
    except NotImplementedError:
        return (
            "not written yet: write MisereTwentyOne above (override the method the misère rule changes), "
            "then run this cell again."
        )
    except TimeLimitExceeded as err:
        return f"not yet: your game did not answer within {err.within}: look for a loop that never ends"
    except GameContractError as err:
        return f"not yet: check_game found a problem: {err}"
    except Exception as err:  # the student's code failed: one line, no traceback into the check
        return f"not yet: your code raised {type(err).__name__}: {err} (run it on its own to see where)"
    verdict = {1: "wins", 0: "draws", -1: "loses"}
    return (
        f"passed: check_game is happy; with perfect play the first player {verdict[values[21]]} with target 21 "
        f"and {verdict[values[22]]} with target 22"
    )


class _NotYet(Exception):
    """A requirement the student's game does not meet yet (its message says which)."""


def _solve_if_misere(cls: Callable[[int], Any]) -> dict[int, int]:
    """The misère rule on finished and unfinished games, ``check_game``, then the solver's values for 21 and 22.

    Raises:
        _NotYet: naming the first rule the game breaks.
    """
    game = cls(21)
    for moves in ([3] * 7, [3] * 6 + [1, 2]):  # player 0, then player 1 says 21
        end = game.state_from_moves(moves)
        sayer = _who_says_the_target(moves)
        if not game.is_terminal(end):
            raise _NotYet(f"after the moves {moves} the total is 21, but is_terminal() says the game goes on")
        got = game.winner(end)
        if got == sayer:
            raise _NotYet(
                f"after the moves {moves} player {sayer} said 21, and winner() names player {sayer}: "
                "in the misère game whoever says the target loses"
            )
        if got != 1 - sayer:
            raise _NotYet(f"after the moves {moves} winner() returns {got!r}; it should name a player, 0 or 1")
    if game.winner(game.state_from_moves([1, 2])) is not None:
        raise _NotYet("winner() names a winner while the game is still going (total 3 of 21)")
    check_game(game)
    return {target: solve(cls(target)) for target in (21, 22)}
