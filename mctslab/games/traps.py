"""Random game trees with planted shallow traps (after Ramanujan, Sabharwal & Selman 2010).

A **level-k trap** is a move after which the opponent can force a win within k plies. This
game plants them: a tree of ``branching`` moves per position and at most ``depth`` moves,
whose plain leaves are won by either player with probability 1/2, and where some of the
first player's (MAX's) moves are traps:

* at the root, one move (chosen by the seed) is always a trap, so every tree asks the
  question at its first decision;
* elsewhere, each of MAX's moves is a trap with probability ``density`` percent.

After a trap move the opponent (MIN) has exactly one move at each of its turns that keeps
the trap (hidden among the ``branching`` moves), every reply of MAX keeps it, and after
``level`` plies MIN has won. Any other MIN move leaves the trap for a plain subtree. So a
random playout after a trap move finds the refutation with probability about
``branching ** -((level + 1) / 2)``: the deeper the trap, the better it looks to sampling,
while minimax of depth ``level + 1`` sees it at once.

Like :mod:`mctslab.games.pgame`, the tree is never stored: every choice is a stable hash
(splitmix64) of ``(seed, path)``.
"""

from __future__ import annotations

from typing import NamedTuple

from .base import Game
from .pgame import MASK64, child_key, splitmix64
from .registry import register_game

PLAIN, TRAPPED, SPRUNG = 0, 1, 2
"""Kinds of position: in a plain subtree, inside a trap (plies left), or the trap's end (MIN has won)."""


class TrapState(NamedTuple):
    """A position of a trap tree.

    Attributes:
        path: the moves played from the root.
        key: the 64-bit hash of ``(seed, path)``.
        kind: :data:`PLAIN`, :data:`TRAPPED` or :data:`SPRUNG`.
        left: inside a trap, the plies left until MIN's win (0 elsewhere).
    """

    path: tuple[int, ...]
    key: int
    kind: int
    left: int


@register_game(
    "traps",
    params={"branching": int, "depth": int, "level": int, "density": int, "seed": int},
    summary="a random tree with planted level-k traps (Ramanujan et al. 2010); plain leaves a coin flip",
    test_spec="traps:branching=3,depth=6,level=3,density=30,seed=1",
)
class TrapTree(Game):
    """A random tree with planted traps of one level.

    Args:
        branching: moves per position, 2 to 16 (default 4).
        depth: most moves in a game, level + 1 to 40 (default 10).
        level: the traps' level k, odd, 1 to 15 (default 3): MIN wins k plies after a trap move.
        density: percent chance that a MAX move below the root is a trap, 0 to 100 (default 10).
        seed: which tree, an int >= 0.

    Raises:
        ValueError: for a value outside those ranges (the message names it).
    """

    def __init__(self, branching: int = 4, depth: int = 10, level: int = 3, density: int = 10, seed: int = 0) -> None:
        for name, value, low, high in (
            ("branching", branching, 2, 16),
            ("level", level, 1, 15),
            ("depth", depth, level + 1, 40),
            ("density", density, 0, 100),
            ("seed", seed, 0, MASK64),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"traps' {name} must be an int from {low} to {high}, got {value!r}")
        if level % 2 == 0:
            raise ValueError(f"traps' level must be odd (MIN moves at plies 1, 3, ..., k), got {level}")
        self.branching, self.depth, self.level, self.density, self.seed = branching, depth, level, density, seed
        self.spec = f"traps:branching={branching},depth={depth},level={level},density={density},seed={seed}"
        self._moves = tuple(range(branching))
        self._initial = TrapState((), splitmix64(seed), PLAIN, 0)

    def root_trap(self) -> int:
        """The move planted as a trap at the root."""
        return splitmix64(self._initial.key ^ 0x5EED) % self.branching

    def is_trap(self, state: TrapState, move: int) -> bool:
        """True if ``move`` in ``state`` is a planted trap (only MAX's moves in plain positions can be)."""
        if state.kind != PLAIN or len(state.path) % 2 or self.depth - len(state.path) - 1 < self.level:
            return False
        if not state.path:
            return move == self.root_trap()
        return child_key(state.key, move) % 100 < self.density

    def refutation(self, state: TrapState) -> int:
        """Inside a trap at MIN's turn: the one move that keeps the trap."""
        return splitmix64(state.key ^ 0x7AB) % self.branching

    # -- the interface ---------------------------------------------------------------
    def initial_state(self) -> TrapState:
        """The root: MAX (player 0) to move, in a plain position."""
        return self._initial

    def check_state(self, state: TrapState) -> None:
        """Refuse a state of another game or tree (it must be what its path leads to here).

        Raises:
            InvalidStateError: saying what is wrong.
        """
        super().check_state(state)
        path = state.path
        if type(path) is not tuple or any(type(m) is not int or not 0 <= m < self.branching for m in path):
            self.refuse_state(state, f"its path must be moves from 0 to {self.branching - 1}")
        expected = self._initial
        for move in path:
            if self.is_terminal(expected):
                self.refuse_state(state, f"its path {path} goes on after the game is over")
            expected = self.apply(expected, move)
        if expected != state:
            self.refuse_state(state, f"it is not what its path {path} leads to in this tree (seed {self.seed})")

    def to_move(self, state: TrapState) -> int:
        """MAX (0) at even depths, MIN (1) at odd depths."""
        return len(state.path) % 2

    def legal_moves(self, state: TrapState) -> tuple[int, ...]:
        """``0 .. branching - 1``; ``()`` once the game is over."""
        return () if self.is_terminal(state) else self._moves

    def apply(self, state: TrapState, move: int) -> TrapState:
        """The position after ``move`` (unchecked; see :meth:`Game.play`)."""
        key = child_key(state.key, move)
        path = (*state.path, move)
        if state.kind == PLAIN:
            if self.is_trap(state, move):
                return TrapState(path, key, TRAPPED, self.level)
            return TrapState(path, key, PLAIN, 0)
        # Inside a trap: MAX's replies keep it; MIN keeps it with its one refutation.
        if len(state.path) % 2 == 0 or move == self.refutation(state):
            left = state.left - 1
            return TrapState(path, key, SPRUNG if left == 0 else TRAPPED, left)
        return TrapState(path, key, PLAIN, 0)

    def is_terminal(self, state: TrapState) -> bool:
        """True when the trap has sprung or ``depth`` moves are played."""
        return state.kind == SPRUNG or len(state.path) >= self.depth

    def winner(self, state: TrapState) -> int | None:
        """MIN (1) where a trap sprung; at a plain leaf, a coin flip of its hash; ``None`` in a game in progress."""
        if state.kind == SPRUNG:
            return 1
        if len(state.path) < self.depth:
            return None
        return 1 if state.kind == TRAPPED else int(splitmix64(state.key ^ 0xC01) & 1)

    def render(self, state: TrapState) -> str:
        """The path, who moves (or who won), and whether a trap is under way."""
        path = "".join("abcdefghijklmnop"[m] for m in state.path) or "(root)"
        trap = f", trap springs in {state.left}" if state.kind == TRAPPED else ""
        if not self.is_terminal(state):
            return f"path {path}, {self.mark(self.to_move(state))} to move{trap}"
        return f"path {path}: {self.mark(self.winner(state))} wins" + (" (trap)" if state.kind == SPRUNG else "")

    def mark(self, player: int) -> str:
        """``"MAX"`` for player 0, ``"MIN"`` for player 1."""
        return ("MAX", "MIN")[player]

    def move_text(self, move: int, short: bool = False) -> str:
        """``"a"``, ``"b"``... (the move's letter); long form ``"move a"``."""
        letter = "abcdefghijklmnop"[move]
        return letter if short else f"move {letter}"
