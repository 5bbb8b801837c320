"""Random game trees with planted shallow traps (after Ramanujan, Sabharwal & Selman 2010).

A **level-k trap** is a move after which the opponent can force a win within k plies. This
game plants them: a tree of ``branching`` moves per position and at most ``depth`` moves,
whose plain leaves MAX wins with the chance :func:`balanced_leaf_chance` (see below), and
where some of the first player's (MAX's) moves are traps:

* at the root, one move (chosen by the seed) is always a trap, so every tree asks the
  question at its first decision;
* elsewhere, each of MAX's moves is a trap with probability ``density`` percent.

After a trap move the opponent (MIN) has exactly one move at each of its turns that keeps
the trap (hidden among the ``branching`` moves), every reply of MAX keeps it, and after
``level`` plies MIN has won. Any other MIN move leaves the trap for a plain subtree. So a
random playout after a trap move finds the refutation with probability about
``branching ** -((level + 1) / 2)``: the deeper the trap, the better it looks to sampling,
while minimax of depth ``level + 1`` sees it at once.

**Balanced leaves.** With coin-flip leaves, MIN moving last and a few plies, MAX almost never
wins a plain subtree (each MIN turn needs every reply to hold, each MAX turn only one), so
every root move would be lost and playing the trap would cost nothing. The leaves are
instead won by MAX with the chance that makes the root's best **other** (non-trap) move
a win on half the trees, computed from the shape by :func:`plain_root_win_chance`; the trap
then turns a won root into a lost one on about half the trees. The chance is a multiple of
2^-32 found by bisection with IEEE additions and products only, so it is the same on every
machine.

Like :mod:`mctslab.games.pgame`, the tree is never stored: every choice is a stable hash
(splitmix64) of ``(seed, path)``.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from ..specs import Param
from .base import Game
from .hooks import Drawing, drawing, register_drawing
from .pgame import MASK64, child_key, splitmix64
from .registry import register_game

PLAIN, TRAPPED, SPRUNG = 0, 1, 2
"""Kinds of position: in a plain subtree, inside a trap (plies left), or the trap's end (MIN has won)."""
LEAF_BITS = 32
"""A plain leaf's chance is a multiple of ``2 ** -LEAF_BITS``, compared with the top bits of its hash."""


def plain_root_win_chance(leaf: float, branching: int, depth: int, level: int, density: int) -> float:
    """The chance, over the trees of a shape, that the root's best non-trap move wins for MAX.

    Subtrees hang on distinct hashes, so they are independent: a plain position at MIN's turn
    is MAX's when every reply is, one at MAX's turn when some move is neither a planted trap
    (chance ``density`` percent where ``level`` plies fit below it) nor lost.

    Args:
        leaf: MAX's chance to win a plain leaf, 0 to 1.
        branching, depth, level, density: the shape (see :class:`TrapTree`).

    Returns:
        The chance that one of the ``branching - 1`` plain root moves is a win.
    """
    won = leaf  # MAX's chance to win a plain position, from the leaves up to ply 1
    for ply in range(depth - 1, 0, -1):
        if ply % 2:  # MIN to move: every reply must be MAX's
            won = _power(won, branching)
        else:
            trap = density / 100 if depth - ply - 1 >= level else 0.0
            won = _some(1.0 - trap, won, branching)
    return _some(1.0, won, branching - 1)


@functools.cache
def balanced_leaf_chance(branching: int, depth: int, level: int, density: int) -> float:
    """MAX's chance to win a plain leaf that makes :func:`plain_root_win_chance` 1/2 (a multiple of 2^-32).

    The smallest such multiple at which the root's best other move wins at least half the
    time; 1 if no chance does (every MAX move below the root a trap, ``density=100``).
    """
    low, high = 0, 1 << LEAF_BITS  # the chance is high / 2^32; plain_root_win_chance rises with it
    while high - low > 1:
        mid = (low + high) // 2
        if plain_root_win_chance(mid / (1 << LEAF_BITS), branching, depth, level, density) < 0.5:
            low = mid
        else:
            high = mid
    return high / (1 << LEAF_BITS)


def _some(share: float, won: float, n: int) -> float:
    """``1 - (1 - share * won) ** n``: the chance that one of ``n`` moves wins, each with chance ``share * won``.

    Written ``y * (1 + (1 - y) + ... + (1 - y) ** (n - 1))`` with ``y = share * won``, so that a tiny
    chance is not lost to ``1 - y`` rounding to 1; sums and products only, as in :func:`_power`.
    """
    y = share * won
    q, total, term = 1.0 - y, 0.0, 1.0
    for _ in range(n):
        total += term
        term *= q
    return y * total


def _power(x: float, n: int) -> float:
    """``x ** n`` by products alone (IEEE products round the same way on every machine; ``pow`` may not)."""
    result = 1.0
    for _ in range(n):
        result *= x
    return result


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
    params=(
        Param("branching", int, 4, doc="moves per position, 2 to 16", show="always"),
        Param("depth", int, 10, doc="most moves in a game, level + 1 to 40", show="always"),
        Param(
            "level", int, 3, doc="the traps' level k, odd, 1 to 15: MIN wins k plies after a trap move", show="always"
        ),
        Param(
            "density", int, 10, doc="percent chance that a MAX move below the root is a trap, 0 to 100", show="always"
        ),
        Param("seed", int, 0, doc="which tree, an int >= 0", show="always"),
    ),
    summary="a random tree with planted level-k traps (Ramanujan et al. 2010); a non-trap root move wins half the time",
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
        self._moves = tuple(range(branching))
        self._initial = TrapState((), splitmix64(seed), PLAIN, 0)
        self.leaf_chance = balanced_leaf_chance(branching, depth, level, density)
        """MAX's chance to win a plain leaf (:func:`balanced_leaf_chance` of the shape)."""
        self._leaf_threshold = round(self.leaf_chance * (1 << LEAF_BITS))

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
        """MIN (1) where a trap sprung; a plain leaf is MAX's with chance :attr:`leaf_chance` (by its hash).

        ``None`` in a game in progress.
        """
        if state.kind == SPRUNG:
            return 1
        if len(state.path) < self.depth:
            return None
        if state.kind == TRAPPED:
            return 1
        return 0 if splitmix64(state.key ^ 0xC01) >> (64 - LEAF_BITS) < self._leaf_threshold else 1

    def render(self, state: TrapState) -> str:
        """The path, who moves (or who won), and whether a trap is under way."""
        path = "".join("abcdefghijklmnop"[m] for m in state.path) or "(root)"
        trap = f", trap springs in {state.left}" if state.kind == TRAPPED else ""
        if not self.is_terminal(state):
            return f"path {path}, {drawing(self).mark(self.to_move(state))} to move{trap}"
        return f"path {path}: {drawing(self).mark(self.winner(state))} wins" + (
            " (trap)" if state.kind == SPRUNG else ""
        )


@register_drawing(TrapTree)
class TrapTreeDrawing(Drawing):
    """How TrapTree is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def mark(self, player: int) -> str:
        """``"MAX"`` for player 0, ``"MIN"`` for player 1."""
        return ("MAX", "MIN")[player]

    def move_text(self, move: int, short: bool = False) -> str:
        """``"a"``, ``"b"``... (the move's letter); long form ``"move a"``."""
        letter = "abcdefghijklmnop"[move]
        return letter if short else f"move {letter}"
