"""Exact outcome probabilities of random playouts on 3 x 3 tic-tac-toe, correct and as Racioppo 2020 plays them.

A flat Monte Carlo evaluation runs ``n`` random playouts after a test move and counts
wins, draws and losses. The ``n`` playouts are independent draws from one distribution,
the outcome probabilities of a random playout from that position, so the counts are a
*multinomial* sample from it. Tic-tac-toe is small enough to compute these
probabilities exactly (a few thousand positions), so a decision that would take
``9 x 100`` playouts takes one multinomial draw instead, with exactly the same
distribution of decisions. That is what makes reproducing Racioppo 2020's tables at
thousands of games per row take seconds rather than hours (its own code takes about
0.1 ms per playout step).

Two playout procedures are modelled:

* the **correct** playout (:meth:`mctslab.games.base.Game.rollout`): the player to
  move after the test move moves first, and a position that is already won or full
  is scored as it stands;
* Racioppo 2020's ``f_Rand_i`` (:func:`mctslab.course.reproduction.paper_code.f_Rand_i`), with
  defect ``turn`` (its first random move is always X's, because it alternates on the
  loop counter ``i`` from 0 rather than on whose turn it is) and defect ``check``
  (it checks for a winner only after a random move, X's lines before O's, and scores a
  board with no empty cell left as a draw whatever is on it).

Source: Racioppo 2020, notebook cell "f_Rand_i".
"""

from __future__ import annotations

from functools import cache

from ...games.tictactoe import winning_lines

LINES = winning_lines(3, 3)
FULL = (1 << 9) - 1
X_WINS, O_WINS, DRAW = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)


def has_line(bits: int) -> bool:
    """Whether the stones ``bits`` (a 9-bit board) contain three in a row."""
    return any(bits & m == m for m in LINES)


@cache
def playout_probabilities(x: int, o: int, first: int, paper_check: bool = False) -> tuple[float, float, float]:
    """Probabilities ``(X wins, O wins, draw)`` of a uniformly random playout from a board.

    Args:
        x: bitboard of X's stones (bit ``i`` is cell ``i``, row-major).
        o: bitboard of O's stones.
        first: who makes the playout's first move: 0 for X, 1 for O (then they
            alternate). The correct playout starts with the player to move; Racioppo 2020's
            always starts with X (defect ``turn``).
        paper_check: check for a result as Racioppo 2020's ``f_Rand_i`` does (defect
            ``check``): not before the first random move, X's lines before O's after
            each move, and a board with no empty cell is a draw without looking. Without
            it, a board that is already won or full is scored as it stands, and after
            each move only the mover can have made a line.

    Returns:
        Three probabilities summing to 1.
    """
    if not paper_check:
        if has_line(x):
            return X_WINS
        if has_line(o):
            return O_WINS
    empty = [c for c in range(9) if not (x | o) >> c & 1]
    if not empty:
        return DRAW
    x_wins = o_wins = draws = 0.0
    for cell in empty:
        bit = 1 << cell
        nx, no = (x | bit, o) if first == 0 else (x, o | bit)
        if paper_check:
            result = X_WINS if has_line(nx) else O_WINS if has_line(no) else None
        else:
            result = (X_WINS if first == 0 else O_WINS) if has_line(nx if first == 0 else no) else None
        if result is None:
            result = playout_probabilities(nx, no, 1 - first, paper_check)
        x_wins += result[0]
        o_wins += result[1]
        draws += result[2]
    k = len(empty)
    return (x_wins / k, o_wins / k, draws / k)


def after_move_probabilities(
    x: int, o: int, mover: int, move: int, turn: bool, check: bool
) -> tuple[float, float, float]:
    """``(X wins, O wins, draw)`` of one playout after ``mover`` plays ``move`` on the board ``(x, o)``.

    Args:
        x: X's stones before the test move.
        o: O's stones before the test move.
        mover: who plays the test move (0 for X, 1 for O).
        move: the test move, a cell 0-8 (empty).
        turn: Racioppo 2020's defect ``turn``: the playout starts with X whoever moved.
        check: Racioppo 2020's defect ``check`` (see :func:`playout_probabilities`).
    """
    bit = 1 << move
    nx, no = (x | bit, o) if mover == 0 else (x, o | bit)
    first = 0 if turn else 1 - mover
    return playout_probabilities(nx, no, first, check)
