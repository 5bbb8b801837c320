"""What games raise: an illegal move, a value that is not a state; and how a bad value is shown."""

from __future__ import annotations

import reprlib
from typing import Any


class IllegalMoveError(ValueError):
    """A move that is not legal in the given state; the message lists the legal moves."""


class InvalidStateError(ValueError):
    """A value given as a state that is not a position of this game.

    For example a Connect Four state given to tic-tac-toe, or a 4 x 4 tic-tac-toe state
    given to the 3 x 3 game. Raised by :meth:`Game.check_state`, which :meth:`Game.play`
    and every agent's ``select_move`` / ``analyse`` call before anything else.
    """


_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxtuple = 40, 60, 8


def describe_value(value: Any) -> str:
    """A value for an error message: its repr, shortened, and its type."""
    return f"{_short.repr(value)} (a {type(value).__name__})"
