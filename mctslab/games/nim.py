"""Nim: take objects from one heap; whoever takes the last object wins (normal play).

Nim is solved (Bouton, 1901): the player to move loses exactly when the *nim-sum*,
the bitwise XOR of the heap sizes, is 0, and a winning move is one that leaves a
nim-sum of 0. So :meth:`Nim.evaluate` is exact, and :meth:`Nim.winning_moves` gives
the theory's answer for tests and notebooks to compare agents against.

The state is a :class:`NimState`: the heap sizes and the player to move.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import reduce
from math import floor
from operator import xor
from typing import NamedTuple

from ..specs import Param, to_int_list
from .base import DRAW, WIN0, WIN1, Game
from .hooks import Drawing, register_drawing
from .registry import register_game

MAX_HEAPS = 8
MAX_HEAP_SIZE = 15


class NimState(NamedTuple):
    """A Nim position.

    Attributes:
        heaps: the number of objects left in each heap, in the game's heap order
            (heaps keep their index, so an empty heap stays in the tuple as 0).
        player: the player to move, 0 or 1.
    """

    heaps: tuple[int, ...]
    player: int


def nim_sum(heaps: Iterable[int]) -> int:
    """The bitwise XOR of the heap sizes; 0 means the player to move loses with best play."""
    return reduce(xor, heaps, 0)


@register_game(
    "nim",
    params=(
        Param(
            "heaps",
            to_int_list,
            (3, 4, 5),
            doc=f"the heap sizes, 1 to {MAX_HEAPS} heaps of 1 to {MAX_HEAP_SIZE}, as 3-4-5",
            show="always",
        ),
    ),
    summary="Nim, normal play: take the last object to win (default heaps=3-4-5)",
    test_spec="nim",
)
class Nim(Game):
    """Nim with the given heaps; the player who takes the last object wins.

    Players: 0 moves first. A move takes ``take >= 1`` objects from heap ``heap``
    and is the integer ``heap * stride + (take - 1)``, where ``stride`` is the
    largest initial heap (no heap can ever hold more). With heaps ``(3, 4, 5)``,
    ``stride = 5``: move 0 takes 1 from heap 0, move 7 takes 3 from heap 1. Use
    :meth:`encode` and :meth:`decode` rather than the arithmetic.

    Args:
        heaps: the initial heap sizes, 1 to 8 heaps of 1 to 15 objects each
            (``(3, 4, 5)`` by default).

    Raises:
        ValueError: if ``heaps`` does not fit those ranges.
    """

    rollout_order = "ordered"  # rollout()'s r-th object is the r-th legal move in ascending order

    def __init__(self, heaps: Iterable[int] = (3, 4, 5)) -> None:
        try:
            heaps = tuple(heaps)
        except TypeError:
            raise ValueError(f"heaps must be a sequence of ints such as (3, 4, 5), got {heaps!r}") from None
        if not 1 <= len(heaps) <= MAX_HEAPS:
            raise ValueError(f"Nim needs 1 to {MAX_HEAPS} heaps, got {len(heaps)}: {heaps!r}")
        for h in heaps:
            if isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= MAX_HEAP_SIZE:
                raise ValueError(f"each Nim heap must be an int from 1 to {MAX_HEAP_SIZE}, got {h!r} in {heaps!r}")
        self.heaps = heaps
        self.stride = max(heaps)
        self._initial = NimState(heaps, 0)

    def encode(self, heap: int, take: int) -> int:
        """The move that takes ``take`` (>= 1) objects from heap ``heap`` (0-based)."""
        return heap * self.stride + take - 1

    def decode(self, move: int) -> tuple[int, int]:
        """``(heap, take)`` of a move; the inverse of :meth:`encode`."""
        heap, rest = divmod(move, self.stride)
        return heap, rest + 1

    def initial_state(self) -> NimState:
        """The initial heaps, player 0 to move."""
        return self._initial

    def check_state(self, state: NimState) -> None:
        """Refuse a state of another game, or heaps that this game's heaps cannot become.

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        heaps, player = state
        if (
            type(heaps) is not tuple
            or len(heaps) != len(self.heaps)
            or not all(type(h) is int and 0 <= h <= start for h, start in zip(heaps, self.heaps, strict=True))
        ):
            self.refuse_state(state, f"its heaps must be {len(self.heaps)} ints from 0 to at most {self.heaps}")
        if type(player) is not int or player not in (0, 1):
            self.refuse_state(state, "the player to move must be 0 or 1")

    def to_move(self, state: NimState) -> int:
        """The player to move (stored in the state)."""
        return state.player

    def legal_moves(self, state: NimState) -> tuple[int, ...]:
        """Every (heap, take) with ``1 <= take <= heap size``, encoded and ascending; ``()`` when all are empty."""
        stride = self.stride
        return tuple(i * stride + t for i, h in enumerate(state.heaps) for t in range(h))

    def apply(self, state: NimState, move: int) -> NimState:
        """Take the objects ``move`` names (unchecked; see :meth:`Game.play`)."""
        heap, rest = divmod(move, self.stride)
        heaps = list(state.heaps)
        heaps[heap] -= rest + 1
        return NimState(tuple(heaps), 1 - state.player)

    def is_terminal(self, state: NimState) -> bool:
        """True once every heap is empty."""
        return not any(state.heaps)

    def winner(self, state: NimState) -> int | None:
        """The player who took the last object (the one *not* to move), once all heaps are empty."""
        return 1 - state.player if not any(state.heaps) else None

    def returns(self, state: NimState) -> tuple[float, float]:
        """Per-player returns of a finished game: 1 for whoever took the last object, 0 for the other."""
        if any(state.heaps):
            raise ValueError("returns() needs a finished game; this one is still in progress")
        return WIN1 if state.player == 0 else WIN0

    def rollout(self, state: NimState, rng: random.Random, max_moves: int | None = None) -> tuple[float, float]:
        """A uniformly random playout (same distribution as :meth:`Game.rollout`).

        A legal move is one of the ``sum(heaps)`` objects: pick one uniformly and
        take it together with everything above it in its heap.
        """
        heaps = list(state.heaps)
        total = sum(heaps)
        player = state.player
        rand = rng.random
        steps = 0
        while total:
            if max_moves is not None and steps >= max_moves:
                return DRAW
            r = floor(rand() * total)
            i = 0
            while r >= heaps[i]:
                r -= heaps[i]
                i += 1
            # Objects r = 0 .. heaps[i] - 1 of heap i stand for take = 1 .. heaps[i].
            heaps[i] -= r + 1
            total -= r + 1
            player ^= 1
            steps += 1
        return WIN1 if player == 0 else WIN0

    def evaluate(self, state: NimState, player: int) -> float:
        """Exact value for ``player``: 1.0 if they win with best play, else 0.0.

        The player to move wins exactly when the nim-sum is not 0 (at the end all
        heaps are empty, the nim-sum is 0 and the player to move has lost).
        """
        mover_wins = nim_sum(state.heaps) != 0
        return 1.0 if mover_wins == (player == state.player) else 0.0

    def winning_moves(self, state: NimState) -> tuple[int, ...]:
        """The moves that leave a nim-sum of 0, ascending; ``()`` if the mover is losing (or the game is over).

        For each heap ``h`` with ``h ^ s < h`` (``s`` the nim-sum), taking
        ``h - (h ^ s)`` objects from it is the winning move.
        """
        s = nim_sum(state.heaps)
        if not s:
            return ()
        return tuple(self.encode(i, h - (h ^ s)) for i, h in enumerate(state.heaps) if h ^ s < h)

    def render(self, state: NimState) -> str:
        """One line per heap, e.g. ``heap 0: ||| (3)``, then who is to move (or who won)."""
        lines = [f"heap {i}: {'|' * h} ({h})" for i, h in enumerate(state.heaps)]
        if any(state.heaps):
            lines.append(f"player {state.player} to move")
        else:
            lines.append(f"player {1 - state.player} took the last object and wins")
        return "\n".join(lines)


@register_drawing(Nim)
class NimDrawing(Drawing):
    """How Nim is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """``"heap 1 take 2"``; short: ``"1:2"``."""
        heap, take = self.game.decode(move)
        return f"{heap}:{take}" if short else f"heap {heap} take {take}"
