"""Pig: the dice game of Neller & Presser (2004), as OpenSpiel's ``pig``; the smallest game with chance nodes here.

Two players take turns. On a turn a player rolls a die as often as they like: each face
``2`` to ``die`` adds to the *turn total*; a ``1`` loses the turn total and passes the
turn ("pigging out"). A player who *holds* adds the turn total to their score and
passes the turn. The first whose score reaches ``target`` wins.

Moves, in OpenSpiel's order: ``0`` roll, ``1`` hold (only hold once holding wins, as in
OpenSpiel, so a game has finitely many positions). A roll leads to
a chance node (:data:`~mctslab.games.kinds.CHANCE` to move) whose outcomes are the
faces ``1`` to ``die``, each with probability ``Fraction(1, die)``; the face rolled is
recorded as a move.

A ``horizon`` ends the game as a draw after that many decisions (rolls and holds, not the
faces rolled), as OpenSpiel's ``pig`` does (its ``IsTerminal``: ``total_moves_ >= horizon_``;
its ``Returns``: a score at the target still wins, else every player gets 0). OpenSpiel's
default is 1000, so ``pig:horizon=1000`` is its ``pig``. Ours is none (``horizon=None``):
the exact solutions (:mod:`mctslab.exact.pig`, the ``expectimax`` agent) are for the game
without one, in which positions repeat (two players who pig out in turn are back where
they were); a horizon puts the count of decisions in the state, so none repeats.

Source: Todd W. Neller and Clifton G. M. Presser, "Optimal Play of the Dice Game Pig",
The UMAP Journal 25(1), 2004 (the rules, and the optimal policy by value iteration:
:mod:`mctslab.exact.pig`). With ``die=2`` (a coin: ``1`` loses the turn, ``2`` scores 2)
and a small ``target`` the game is small enough to solve exactly with fractions.

The state is a :class:`PigState`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..specs import Param
from .base import Game
from .hooks import Drawing, register_drawing
from .kinds import CHANCE
from .registry import register_game

ROLL = 0
"""The move that rolls the die (OpenSpiel's ``pig``: action 0)."""
HOLD = 1
"""The move that banks the turn total and passes the turn (OpenSpiel's ``pig``: action 1)."""

MAX_TARGET = 1000
MAX_DIE = 20
MAX_HORIZON = 1_000_000


class PigState(NamedTuple):
    """A Pig position.

    Attributes:
        scores: the banked scores of players 0 and 1.
        total: the turn total of the player to move (points rolled this turn, not yet banked).
        player: the player whose turn it is, 0 or 1.
        rolling: True at a chance node: the die is in the air.
        decisions: the rolls and holds played so far, counted only in a game with a
            ``horizon`` (always 0 without one, so that positions repeat).
    """

    scores: tuple[int, int]
    total: int
    player: int
    rolling: bool
    decisions: int = 0


@register_game(
    "pig",
    params=(
        Param("target", int, 100, doc=f"the score that wins, 1 to {MAX_TARGET}", show="always"),
        Param("die", int, 6, doc=f"the die's faces, 2 to {MAX_DIE}", show="always"),
        Param(
            "horizon", int, None, doc=f"decisions before a draw, 1 to {MAX_HORIZON} (default: no limit)", show="always"
        ),
    ),
    summary=(
        "Pig, the dice game: roll (0) or hold (1); a 1 loses the turn's points (default target=100, die=6; "
        "horizon=H ends it as a draw after H decisions, as OpenSpiel's pig)"
    ),
    test_spec="pig:target=10",
)
class Pig(Game):
    """Pig with a ``die``-sided die, played to ``target`` points.

    Args:
        target: the score that wins, 1 to 1000 (default 100).
        die: the number of faces, 2 to 20 (default 6).
        horizon: the number of decisions (rolls and holds) after which the game ends as a
            draw unless a score has reached the target, 1 to 1,000,000, as OpenSpiel's
            ``horizon`` (its default 1000); ``None`` (the default) for no limit.

    Raises:
        ValueError: if ``target``, ``die`` or ``horizon`` is out of range.
    """

    has_chance = True
    rollout_order = "ordered"

    def __init__(self, target: int = 100, die: int = 6, horizon: int | None = None) -> None:
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= MAX_TARGET:
            raise ValueError(f"Pig's target must be an int from 1 to {MAX_TARGET}, got {target!r}")
        if isinstance(die, bool) or not isinstance(die, int) or not 2 <= die <= MAX_DIE:
            raise ValueError(f"Pig's die must have 2 to {MAX_DIE} faces, got die={die!r}")
        if horizon is not None and (
            isinstance(horizon, bool) or not isinstance(horizon, int) or not 1 <= horizon <= MAX_HORIZON
        ):
            raise ValueError(
                f"Pig's horizon must be an int from 1 to {MAX_HORIZON} (decisions before a draw) or None, "
                f"got horizon={horizon!r}"
            )
        self.target = target
        self.die = die
        self.horizon = horizon
        self._step = 0 if horizon is None else 1  # what a decision adds to the count (none without a horizon)
        self._limit = MAX_HORIZON + 1 if horizon is None else horizon  # a count never reached without a horizon
        self._outcomes = tuple((face, Fraction(1, die)) for face in range(1, die + 1))
        self._initial = PigState((0, 0), 0, 0, False)

    def initial_state(self) -> PigState:
        """Both scores 0, player 0 to move."""
        return self._initial

    def check_state(self, state: PigState) -> None:
        """Refuse a state of another game, or scores, totals or players this game cannot have.

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        scores, total, player, rolling, _ = state
        if type(scores) is not tuple or len(scores) != 2 or not all(type(s) is int and s >= 0 for s in scores):
            self.refuse_state(state, "its scores must be two ints >= 0")
        if min(scores) >= self.target:
            self.refuse_state(state, f"only one score can reach the target {self.target}")
        if type(total) is not int or total < 0:
            self.refuse_state(state, "its turn total must be an int >= 0")
        if type(player) is not int or player not in (0, 1) or type(rolling) is not bool:
            self.refuse_state(state, "the player must be 0 or 1 and rolling a bool")
        decisions = state.decisions
        if self.horizon is None and decisions != 0:
            self.refuse_state(state, "without a horizon its count of decisions must be 0")
        if self.horizon is not None and (type(decisions) is not int or not 0 <= decisions <= self.horizon):
            self.refuse_state(state, f"its count of decisions must be an int from 0 to the horizon {self.horizon}")

    def to_move(self, state: PigState) -> int:
        """The player whose turn it is, or ``CHANCE`` while the die rolls."""
        return CHANCE if state.rolling else state.player

    def chance_outcomes(self, state: PigState) -> tuple[tuple[int, Fraction], ...]:
        """While the die rolls: each face ``1`` to ``die`` with probability ``Fraction(1, die)``.

        Raises:
            ValueError: if the die is not rolling.
        """
        if not state.rolling:
            return super().chance_outcomes(state)
        return self._outcomes

    def legal_moves(self, state: PigState) -> tuple[int, ...]:
        """``(0, 1)`` (roll, hold); ``(1,)`` once holding wins; the faces while the die rolls; ``()`` at the end."""
        if self.is_terminal(state):
            return ()
        if state.rolling:
            return tuple(range(1, self.die + 1))
        if state.scores[state.player] + state.total >= self.target:
            return (HOLD,)  # as OpenSpiel: holding wins, so it is the only move
        return (ROLL, HOLD)

    def apply(self, state: PigState, move: int) -> PigState:
        """Roll, hold, or (while rolling) the face that came up (unchecked; see :meth:`Game.play`)."""
        scores, total, player, rolling, decisions = state
        if rolling:
            if move == 1:  # pigged out: the turn total is lost, the turn passes
                return PigState(scores, 0, 1 - player, False, decisions)
            return PigState(scores, total + move, player, False, decisions)
        if move == ROLL:  # a roll or a hold is a decision (OpenSpiel's total_moves_)
            return PigState(scores, total, player, True, decisions + self._step)
        banked = (scores[0] + total, scores[1]) if player == 0 else (scores[0], scores[1] + total)
        return PigState(banked, 0, 1 - player, False, decisions + self._step)

    def is_terminal(self, state: PigState) -> bool:
        """True once a score has reached the target, or after ``horizon`` decisions (even with the die in the air)."""
        return state.decisions >= self._limit or max(state.scores) >= self.target

    def winner(self, state: PigState) -> int | None:
        """The player whose score reached the target; ``None`` during the game or at a draw (the horizon)."""
        if state.scores[0] >= self.target:
            return 0
        if state.scores[1] >= self.target:
            return 1
        return None

    def render(self, state: PigState) -> str:
        """Scores, the turn total and who is to move (or who won)."""
        head = f"P0 {state.scores[0]} - P1 {state.scores[1]} (target {self.target}, d{self.die})"
        won = self.winner(state)
        if won is not None:
            return f"{head}\nplayer {won} wins"
        if self.is_terminal(state):
            return f"{head}\ndraw: the horizon of {self.horizon} decisions is reached"
        action = "rolling the die" if state.rolling else "to move: 0 roll, 1 hold"
        return f"{head}\nplayer {state.player} {action}, turn total {state.total}"


@register_drawing(Pig)
class PigDrawing(Drawing):
    """How Pig is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """``"roll"`` (move 0) or ``"hold"`` (move 1)."""
        return {ROLL: "roll", HOLD: "hold"}.get(move, str(move))

    def outcome_text(self, state: PigState, outcome: int) -> str:
        """The face rolled, ``"rolled 4"``; a 1 says what it cost: ``"rolled 1: loses 8, turn over"``."""
        if outcome == 1:
            return f"rolled 1: loses {state.total}, turn over" if state.total else "rolled 1: turn over"
        return f"rolled {outcome}"

    def render_for(self, state: PigState, player: int) -> str:
        """The position told to ``player`` (Pig hides nothing): the scores, whose turn, the turn total, the choice."""
        me = f"P{player}"
        head = f"you are {me}; scores: P0 {state.scores[0]}, P1 {state.scores[1]} (first to {self.game.target} wins)"
        won = self.game.winner(state)
        if won is not None:
            return f"{head}\n{'you win' if won == player else f'P{won} wins'}"
        if self.game.is_terminal(state):
            return f"{head}\ndraw: the horizon of {self.game.horizon} decisions is reached"
        who = "your" if state.player == player else f"P{state.player}'s"
        line = f"{who} turn, turn total {state.total}"
        if state.player == player and not state.rolling and self.game.legal_moves(state) == (HOLD,):
            line += f": hold and win ({state.scores[player] + state.total} points)"
        elif state.player == player and not state.rolling:
            risk = f"a 1 loses the {state.total}" if state.total else "a 1 ends your turn"
            bank = f"bank it: {state.scores[player] + state.total}" if state.total else "pass the turn"
            line += f": roll (2 to {self.game.die} add to it, {risk}) or hold ({bank})"
        return f"{head}\n{line}"
