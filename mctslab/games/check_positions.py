"""What the stone games' ``check_state`` shares: is the stored result the one the stones say?

A stone game keeps its result in the state (:mod:`mctslab.games.stones`), so a state
built by hand can claim a game in progress where a line is already made (a search
would then play on after the end), or a win nobody has. :func:`result_fault` says
what is wrong, in a few words, or ``None``; each game's ``check_state`` passes it on.
"""

from __future__ import annotations

from .stones import DRAWN, O_WON, ONGOING, X_WON

RESULT_NAMES = {ONGOING: "-1 (in progress)", X_WON: "0 (X won)", O_WON: "1 (O won)", DRAWN: "2 (drawn)"}
"""The values of ``result`` with what they mean, for messages."""


def result_fault(x_wins: bool, o_wins: bool, x: int, o: int, result: int, closed: bool) -> str | None:
    """What is wrong with ``result`` given who holds a win, or ``None``.

    Args:
        x_wins, o_wins: whether X's / O's stones make a win (a line, three boards...).
        x, o: the stones (bitboards); whoever has more stones played last.
        result: the state's stored result.
        closed: no move would be left (the board is full, every local board decided).
    """
    if x_wins and o_wins:
        return "both X and O have won (the game ends at the first win)"
    x_last = x.bit_count() > o.bit_count()
    if x_wins or o_wins:
        name = "X" if x_wins else "O"
        if x_last != x_wins:
            return f"{name} has won but did not play the last stone"
        expected = X_WON if x_wins else O_WON
    else:
        expected = DRAWN if closed else ONGOING
    if result != expected:
        return f"result is {RESULT_NAMES.get(result, result)} but the stones say {RESULT_NAMES[expected]}"
    return None
