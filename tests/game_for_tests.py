"""A game that exists only for the tests: proof that one file registering a game is all it takes.

``conftest.py`` imports this module, so the game is in :data:`mctslab.games.GAMES` for the
whole test session. Nothing else names it: the tests that iterate the registry run it
through ``check_game``, the drawings, playouts, every agent that can play it and a
tournament (``tests/test_game_registry.py`` checks that they did).
"""

from __future__ import annotations

from typing import NamedTuple

from mctslab.games import Game, register_game
from mctslab.specs import Param


class RaceState(NamedTuple):
    """``total``: the count so far; ``player``: who adds next (0 or 1)."""

    total: int
    player: int


@register_game(
    "race",
    params=(Param("goal", int, 10, doc="the count to reach, 2 to 40", show="always"),),
    summary="race to the goal, adding 1 or 2 a turn",
    test_spec="race:goal=6",
)
class Race(Game):
    """Two players add 1 or 2 to a count in turn; whoever reaches ``goal`` wins.

    Moves are the number added: 1 or 2 (only 1 when the count is one short of the goal).

    Args:
        goal: the count to reach, 2 to 40.

    Raises:
        ValueError: for a goal out of range.
    """

    def __init__(self, goal: int = 10) -> None:
        if isinstance(goal, bool) or not isinstance(goal, int) or not 2 <= goal <= 40:
            raise ValueError(f"goal must be an int from 2 to 40, got {goal!r}")
        self.goal = goal  # the spec, race:goal=N, is generated from it

    def initial_state(self) -> RaceState:
        """A count of 0, player 0 to add."""
        return RaceState(0, 0)

    def to_move(self, state: RaceState) -> int:
        """The player who adds next."""
        return state.player

    def legal_moves(self, state: RaceState) -> tuple[int, ...]:
        """``(1, 2)``, ``(1,)`` one short of the goal, ``()`` at the goal."""
        return tuple(m for m in (1, 2) if state.total + m <= self.goal)

    def apply(self, state: RaceState, move: int) -> RaceState:
        """Add ``move``; the other player is next."""
        return RaceState(state.total + move, 1 - state.player)

    def is_terminal(self, state: RaceState) -> bool:
        """The goal is reached."""
        return state.total == self.goal

    def winner(self, state: RaceState) -> int | None:
        """The player who reached the goal: the one who is not next."""
        return 1 - state.player if self.is_terminal(state) else None

    def check_state(self, state: object) -> None:
        """Refuse anything but a :class:`RaceState` of this goal."""
        super().check_state(state)
        if not 0 <= state.total <= self.goal or state.player not in (0, 1):  # type: ignore[attr-defined]
            self.refuse_state(state, f"its counts are 0 to {self.goal} and its players 0 or 1")

    def render(self, state: RaceState) -> str:
        """``"4 of 6, player 1 to add"``."""
        return f"{state.total} of {self.goal}, player {state.player} to add"
