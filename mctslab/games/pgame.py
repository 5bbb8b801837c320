"""P-games: random game trees whose exact answer is known (Kocsis & Szepesvári 2006; Smith & Nau 1994).

A P-game tree has ``branching`` moves at every position and ends after ``depth`` moves.
Every move carries a random integer value: the first player's moves (MAX, player 0) add
a value in [0, 127], the second player's (MIN, player 1) subtract one in [0, 127]. A
leaf's value is the sum along its path; its sign decides the game: positive, player 0
wins; negative, player 1 wins; zero, a draw. The values follow the public generator of
mirsoleimani/paralleluct (``PGameState``: a random byte masked to 7 bits, its sign by
the depth of the move).

The tree is never stored. A move's value is a stable hash of ``(seed, path)``, computed
when the move is played: a position carries the 64-bit key of its path, and the key of
a child is :func:`splitmix64` of the parent's key mixed with the move. So a tree of
8^8 leaves costs no memory, and the same seed gives the same tree in every process and
on every machine (Python's ``hash()`` is never used).
"""

from __future__ import annotations

import random
from math import floor
from typing import NamedTuple

from ..specs import Param
from .base import DRAW, WIN0, WIN1, Game
from .hooks import Drawing, drawing, register_drawing
from .registry import register_game

MASK64 = (1 << 64) - 1
MAX_MOVE_VALUE = 127
"""A move's value lies in [0, 127] for player 0 and in [-127, 0] for player 1."""
MAX_BRANCHING = 16
MAX_DEPTH = 40


def splitmix64(x: int) -> int:
    """The splitmix64 finaliser of ``x`` (Steele, Lea & Flood 2014): a stable 64-bit mix."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def child_key(key: int, move: int) -> int:
    """The key of the position reached by ``move`` from the position with key ``key``."""
    return splitmix64(key ^ ((move + 1) * 0xD1B54A32D192ED03 & MASK64))


class PGameState(NamedTuple):
    """A P-game position.

    Attributes:
        path: the moves played from the root, in order.
        key: the 64-bit hash of ``(seed, path)`` (it decides the values of the next moves).
        total: the sum of the values of the moves played (player 0's view).
    """

    path: tuple[int, ...]
    key: int
    total: int


@register_game(
    "pgame",
    params=(
        Param("branching", int, 2, doc=f"moves at every position, 2 to {MAX_BRANCHING}", show="always"),
        Param("depth", int, 20, doc=f"moves in every game, 1 to {MAX_DEPTH}", show="always"),
        Param("seed", int, 0, doc="which tree, an int >= 0 (the same seed, the same tree)", show="always"),
    ),
    summary="a random P-game tree (Kocsis & Szepesvari 2006): move values summed, the sign wins",
    test_spec="pgame:branching=3,depth=4,seed=1",
)
class PGame(Game):
    """A random P-game tree of ``branching`` moves per position and ``depth`` moves per game.

    Args:
        branching: moves at every position, 2 to 16 (default 2).
        depth: moves in every game, 1 to 40 (default 20).
        seed: which tree, an int >= 0; the same seed gives the same tree everywhere.

    Raises:
        ValueError: for a value outside those ranges (the message names it).
    """

    rollout_order = "ordered"

    def __init__(self, branching: int = 2, depth: int = 20, seed: int = 0) -> None:
        for name, value, low, high in (
            ("branching", branching, 2, MAX_BRANCHING),
            ("depth", depth, 1, MAX_DEPTH),
            ("seed", seed, 0, MASK64),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"pgame's {name} must be an int from {low} to {high}, got {value!r}")
        self.branching = branching
        self.depth = depth
        self.seed = seed
        self._moves = tuple(range(branching))
        self._initial = PGameState((), splitmix64(seed), 0)

    # -- the tree --------------------------------------------------------------------
    def move_value(self, state: PGameState, move: int) -> int:
        """The value ``move`` adds to the sum in ``state``: in [0, 127] for player 0, in [-127, 0] for player 1."""
        magnitude = child_key(state.key, move) & MAX_MOVE_VALUE
        return magnitude if len(state.path) % 2 == 0 else -magnitude

    def value(self, state: PGameState) -> int:
        """The sum of the values of the moves played so far (a leaf's value; its sign decides the game)."""
        return state.total

    # -- the interface ---------------------------------------------------------------
    def initial_state(self) -> PGameState:
        """The root: no move played, sum 0, player 0 (MAX) to move."""
        return self._initial

    def check_state(self, state: PGameState) -> None:
        """Refuse a state of another game or of another P-game tree (its key or sum does not match its path).

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        path = state.path
        if (
            type(path) is not tuple
            or len(path) > self.depth
            or any(type(m) is not int or not 0 <= m < self.branching for m in path)
        ):
            self.refuse_state(state, f"its path must be at most {self.depth} moves from 0 to {self.branching - 1}")
        expected = self._initial
        for move in path:
            expected = self.apply(expected, move)
        if expected != state:
            self.refuse_state(state, f"its key and sum are not those of this tree (seed {self.seed}) after {path}")

    def to_move(self, state: PGameState) -> int:
        """Player 0 at even depths, player 1 at odd depths."""
        return len(state.path) % 2

    def legal_moves(self, state: PGameState) -> tuple[int, ...]:
        """``0 .. branching - 1``; ``()`` at a leaf."""
        return () if len(state.path) >= self.depth else self._moves

    def apply(self, state: PGameState, move: int) -> PGameState:
        """The position after ``move`` (unchecked; see :meth:`Game.play`)."""
        key = child_key(state.key, move)
        magnitude = key & MAX_MOVE_VALUE
        total = state.total + (magnitude if len(state.path) % 2 == 0 else -magnitude)
        return PGameState((*state.path, move), key, total)

    def is_terminal(self, state: PGameState) -> bool:
        """True after ``depth`` moves."""
        return len(state.path) >= self.depth

    def winner(self, state: PGameState) -> int | None:
        """At a leaf, 0 if the sum is positive, 1 if negative; ``None`` for a draw or a game in progress."""
        if len(state.path) < self.depth or state.total == 0:
            return None
        return 0 if state.total > 0 else 1

    def rollout(self, state: PGameState, rng: random.Random, max_moves: int | None = None) -> tuple[float, float]:
        """A uniformly random playout (same distribution as :meth:`Game.rollout`), without building states."""
        key, total, ply = state.key, state.total, len(state.path)
        branching, depth, rand = self.branching, self.depth, rng.random
        steps = 0
        while ply < depth:
            if max_moves is not None and steps >= max_moves:
                return DRAW
            key = child_key(key, floor(rand() * branching))
            total += key & MAX_MOVE_VALUE if ply % 2 == 0 else -(key & MAX_MOVE_VALUE)
            ply += 1
            steps += 1
        return WIN0 if total > 0 else WIN1 if total < 0 else DRAW

    def render(self, state: PGameState) -> str:
        """The path, the sum so far and who moves (or who won)."""
        path = "".join(drawing(self).move_text(m, short=True) for m in state.path) or "(root)"
        head = f"path {path}, sum {state.total:+d}"
        if not self.is_terminal(state):
            return f"{head}, {drawing(self).mark(self.to_move(state))} to move"
        winner = self.winner(state)
        return f"{head}: " + ("a draw" if winner is None else f"{drawing(self).mark(winner)} wins")


@register_drawing(PGame)
class PGameDrawing(Drawing):
    """How PGame is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    # -- drawings --------------------------------------------------------------------
    def move_text(self, move: int, short: bool = False) -> str:
        """``"a"``, ``"b"``... (the move's letter); long form ``"move a"``."""
        letter = "abcdefghijklmnop"[move]
        return letter if short else f"move {letter}"

    def mark(self, player: int) -> str:
        """``"MAX"`` for player 0, ``"MIN"`` for player 1."""
        return ("MAX", "MIN")[player]
