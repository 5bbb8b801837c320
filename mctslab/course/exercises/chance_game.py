"""A tiny dice game with loaded dice, for :func:`~mctslab.course.exercises.check_chance_uct`.

Pig's die is fair, so an agent that draws a die's faces uniformly instead of by their
probabilities plays Pig exactly as it should. :class:`LoadedDice` has dice whose faces come up
with unequal probabilities, and positions small enough to be valued exactly with fractions
(:func:`exact_value`), so each check of the exercise has a known answer.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ...games.base import Game
from ...games.kinds import CHANCE

__all__ = [
    "COIN",
    "LOADED",
    "STEADY",
    "WILD",
    "DiceState",
    "LoadedDice",
    "WatchedDice",
    "exact_value",
    "random_play_win",
]

Die = tuple[tuple[int, Fraction], ...]

LOADED: Die = ((0, Fraction(6, 10)), (1, Fraction(3, 10)), (2, Fraction(1, 10)))
"""A three-faced die loaded towards 0: faces 0, 1, 2 with probabilities 6/10, 3/10, 1/10."""
COIN: Die = ((0, Fraction(9, 10)), (2, Fraction(1, 10)))
"""A bent coin: 0 with probability 9/10, 2 with probability 1/10."""
STEADY: Die = ((1, Fraction(1, 2)), (2, Fraction(1, 2)))
"""A steady die: 1 or 2, evenly."""
WILD: Die = ((0, Fraction(3, 4)), (4, Fraction(1, 4)))
"""A wild die: 0 with probability 3/4, 4 with probability 1/4."""


class DiceState(NamedTuple):
    """A position: the number of rolls made, both scores, and the die in the air (-1 when a player chooses)."""

    turn: int
    scores: tuple[int, int]
    die: int


class LoadedDice(Game):
    """Players take turns (player 0 first): choose one of ``dice`` (move = its index), then roll it.

    The face rolled is added to the roller's score; after ``turns`` rolls the higher score wins
    (equal scores: a draw). While a die rolls the player to move is :data:`CHANCE` and
    :meth:`chance_outcomes` lists its faces with their (unequal) probabilities.

    Args:
        dice: the dice, each a tuple of (face, probability) with distinct faces.
        turns: the number of rolls in a game.
    """

    has_chance = True

    def __init__(self, dice: tuple[Die, ...] = (LOADED,), turns: int = 2) -> None:
        self.dice = dice
        self.turns = turns
        self.spec = f"loaded-dice:{dice!r}:{turns}"

    def initial_state(self) -> DiceState:
        """No roll yet, scores 0-0, player 0 to choose."""
        return DiceState(0, (0, 0), -1)

    def to_move(self, state: DiceState) -> int:
        """``CHANCE`` while a die rolls, else the player whose roll it is (turns alternate)."""
        return CHANCE if state.die >= 0 else state.turn % 2

    def chance_outcomes(self, state: DiceState) -> tuple[tuple[int, Fraction], ...]:
        """The rolling die's faces with their probabilities."""
        if state.die < 0:
            return super().chance_outcomes(state)
        return self.dice[state.die]

    def legal_moves(self, state: DiceState) -> tuple[int, ...]:
        """The dice to choose from; the faces while a die rolls; nothing at the end."""
        if self.is_terminal(state):
            return ()
        if state.die >= 0:
            return tuple(face for face, _ in self.dice[state.die])
        return tuple(range(len(self.dice)))

    def apply(self, state: DiceState, move: int) -> DiceState:
        """Choose die ``move``, or (while a die rolls) add face ``move`` to the roller's score."""
        if state.die < 0:
            return DiceState(state.turn, state.scores, move)
        scores = list(state.scores)
        scores[state.turn % 2] += move
        return DiceState(state.turn + 1, (scores[0], scores[1]), -1)

    def is_terminal(self, state: DiceState) -> bool:
        """Over after ``turns`` rolls."""
        return state.turn >= self.turns

    def winner(self, state: DiceState) -> int | None:
        """The player with the higher score at the end (``None``: a draw, or not over)."""
        if not self.is_terminal(state) or state.scores[0] == state.scores[1]:
            return None
        return 0 if state.scores[0] > state.scores[1] else 1

    def render(self, state: DiceState) -> str:
        """Roll number, scores and what happens next."""
        head = f"roll {state.turn} of {self.turns}, scores {state.scores[0]}-{state.scores[1]}"
        return head + (f", die {state.die} rolling" if state.die >= 0 else "")


class WatchedDice(LoadedDice):
    """:class:`LoadedDice` that record the dice player 1 chooses (``chosen``): ``check_chance_uct``'s view of a playout.

    Plain data, so that the grader can hand it to an agent in a submission's kernel and read
    back what it recorded there (:mod:`mctslab.course.grader.wire`).
    """

    def __init__(self, dice: tuple[Die, ...] = (LOADED,), turns: int = 2) -> None:
        super().__init__(dice, turns)
        self.chosen: list[int] = []

    def apply(self, state: DiceState, move: int) -> DiceState:
        """As :meth:`LoadedDice.apply`; a die player 1 chooses is recorded first."""
        if state.die < 0 and state.turn == 1:
            self.chosen.append(move)
        return super().apply(state, move)


def exact_value(game: LoadedDice, state: DiceState, player: int) -> Fraction:
    """``player``'s expected return from ``state`` when both players choose their best die (expectimax)."""
    if game.is_terminal(state):
        return Fraction(game.returns(state)[player])
    if state.die >= 0:
        return sum((p * exact_value(game, game.apply(state, f), player) for f, p in game.dice[state.die]), Fraction(0))
    values = [exact_value(game, game.apply(state, m), player) for m in game.legal_moves(state)]
    return max(values) if game.to_move(state) == player else min(values)


def random_play_win(game: LoadedDice, state: DiceState, player: int) -> Fraction:
    """The probability that ``player`` wins from ``state`` when both choose their die uniformly at random.

    What a playout that plays uniformly random legal moves (and rolls each die with its
    probabilities) gives, exactly: the ``playout_policy`` check of ``check_chance_uct`` compares
    the playouts' wins with it.
    """
    if game.is_terminal(state):
        return Fraction(int(game.winner(state) == player))
    if state.die >= 0:
        faces = game.dice[state.die]
        return sum((p * random_play_win(game, game.apply(state, f), player) for f, p in faces), Fraction(0))
    moves = game.legal_moves(state)
    return sum((random_play_win(game, game.apply(state, m), player) for m in moves), Fraction(0)) / len(moves)
