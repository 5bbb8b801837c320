"""A compiled UCT engine (Numba): the same algorithm as :class:`mctslab.agents.uct.UCT`, many times faster.

Optional: ``pip install "mctslab[fast]"`` installs Numba. The UCT agent uses this engine
with ``engine="compiled"`` (``make_agent("uct:iterations=10000,engine=compiled")``); plain
``uct`` stays the readable pure-Python engine, and its seeded results do not change.

The same player, not the same random numbers:

* the same algorithm: UCB1 ``mean + c * sqrt(ln N / n)`` with the same ``c`` (unvisited
  children first, ties to the first child created), one new node per iteration for a
  uniformly random untried move, uniformly random playouts (``max_moves`` cuts one short
  as a draw), rewards 1 / 0.5 / 0 kept for the player who made each node's move (so a
  parent maximises its children's means, as in :class:`~mctslab.agents.uct.Node`), and
  the most visited child played (``final="visits"``; ties: higher mean) or the best mean
  (``final="mean"``);
* other random numbers: playouts draw from Numba's generator. Each search seeds it with
  32 bits drawn from the agent's own generator (``agent.rng``, made from its ``seed``),
  so the same seed gives the same moves, game after game. Numba's generator is one per
  thread and separate from NumPy's global one; a search runs to completion before
  another starts in the same thread, so searches never share a stream.
  ``tests/test_engine.py`` checks that the two engines choose moves with the same
  frequencies, within sampling error.

Games: a game takes part through :meth:`~mctslab.games.base.Game.compiled_encoding`
(its kind and integer parameters) and :meth:`~mctslab.games.base.Game.compiled_state`
(a position as an int64 vector); tic-tac-toe (boards up to 7 x 7), Connect Four (up to
63 bits of board) and Ultimate Tic-Tac-Toe with Fractio have them. The tree is a set of
parallel arrays (36 bytes per slot; see :mod:`mctslab.engine.kernels`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from math import inf

import numpy as np

from ..games.base import Game, State

__all__ = [
    "CompiledTree",
    "available",
    "check_engine",
    "compile_seconds",
    "random_results",
    "require",
    "search",
    "supports",
]

EXTRA_HINT = "the compiled engine needs Numba: pip install 'mctslab[fast]'"
KINDS = {"tictactoe": 0, "connect4": 1, "uttt": 2}
NO_LIMIT = 1 << 40
SLOT_BYTES = 4 + 4 + 2 + 2 + 4 + 4 + 8 + 8
"""Bytes per tree slot: move, first child, legal and expanded counts, visits, half points, mean, 1/sqrt(visits)."""


def available() -> bool:
    """True when Numba can be imported (``pip install "mctslab[fast]"``)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    """Raise a one-line :class:`ImportError` naming the extra when Numba is missing."""
    if not available():
        raise ImportError(EXTRA_HINT)


def check_engine(name: str, engine: str) -> str:
    """An agent's ``engine`` parameter: ``"python"`` or ``"compiled"``.

    Raises:
        ValueError: for any other value.
        ImportError: (one line, naming the extra) for ``"compiled"`` without Numba.
    """
    if engine not in ("python", "compiled"):
        raise ValueError(f"{name} must be 'python' or 'compiled', got {engine!r}")
    if engine == "compiled":
        require()
    return engine


def _kernels():
    require()
    from . import kernels

    return kernels


def supports(game: Game) -> bool:
    """True when the compiled engine can play ``game``."""
    return game.compiled_encoding() is not None


@lru_cache(maxsize=32)
def tables(kind: str, params: tuple[int, ...]) -> tuple[int, np.ndarray, np.ndarray]:
    """The kernel's ``(kind, prm, tab)`` for a game's :meth:`~mctslab.games.base.Game.compiled_encoding`."""
    if kind == "tictactoe":
        from ..games.tictactoe import winning_lines

        n, k = params
        cells = n * n
        lines = winning_lines(n, k)
        through = [[m for m in lines if m >> c & 1] for c in range(cells)]
        tab = np.zeros((cells, 1 + max(len(t) for t in through)), dtype=np.int64)
        for c, masks in enumerate(through):
            tab[c, 0] = len(masks)
            tab[c, 1 : 1 + len(masks)] = masks
        prm = np.array([n, k, cells, (1 << cells) - 1], dtype=np.int64)
    elif kind == "connect4":
        from ..games.connect4 import run_shifts

        rows, cols, k = params
        height = rows + 1
        shifts = run_shifts(k) or (0,)  # k = 1: any stone is a run (m & m >> 0 == m)
        full = sum(((1 << rows) - 1) << (c * height) for c in range(cols))
        tab = np.array([[s * d for s in shifts] for d in (1, height, height + 1, height - 1)], dtype=np.int64)
        prm = np.array([rows, cols, k, height, full, len(shifts)], dtype=np.int64)
    elif kind == "uttt":
        from ..games.ultimate import WINS

        cells = [[c for c in range(9) if m >> c & 1] for m in range(512)]
        tab = np.full((11, 512), -1, dtype=np.int64)
        tab[0] = WINS
        tab[1] = [len(c) for c in cells]
        for m, c in enumerate(cells):
            tab[2 : 2 + len(c), m] = c
        prm = np.array([params[0]], dtype=np.int64)
    else:
        raise ValueError(f"the compiled engine has no game kind {kind!r}; known: {', '.join(KINDS)}")
    prm.setflags(write=False)
    tab.setflags(write=False)
    return KINDS[kind], prm, tab


def _encode(game: Game, state: State) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    encoding = game.compiled_encoding()
    if encoding is None:
        raise ValueError(f"the compiled engine cannot play {game.spec}; use engine=python")
    kind, prm, tab = tables(*encoding)
    return kind, prm, tab, np.array(game.compiled_state(state), dtype=np.int64)


_COMPILE_SECONDS: list[float] = []


def compile_seconds() -> float:
    """Compile (or load from Numba's cache) every kernel once; the seconds it took (0 once done)."""
    if _COMPILE_SECONDS:
        return 0.0
    from ..games import make_game

    kernels = _kernels()
    start = time.perf_counter()
    kernels.seed(0)
    for spec in ("tictactoe", "connect4", "uttt"):
        game = make_game(spec)
        tree = CompiledTree(*_encode(game, game.initial_state()), capacity=1024)
        tree.run(c=1.0, max_moves=None, iterations=8, seconds=None)
    _COMPILE_SECONDS.append(time.perf_counter() - start)
    return _COMPILE_SECONDS[0]


class CompiledTree:
    """A UCT tree in arrays (see :mod:`mctslab.engine.kernels`), rooted at slot :attr:`root`.

    Attributes:
        root: the slot of the root.
        slots: slots in use (created nodes and untried moves of expanded nodes).
        iterations: iterations run since the root was set.
        max_depth: deepest node added, in plies below the root.
    """

    def __init__(self, kind: int, prm: np.ndarray, tab: np.ndarray, root_state: np.ndarray, capacity: int) -> None:
        self.kind, self.prm, self.tab = kind, prm, tab
        self.block = 81 if kind == KINDS["uttt"] else int(prm[2] if kind == KINDS["tictactoe"] else prm[1])
        capacity = max(capacity, 1 + self.block)
        self.move = np.zeros(capacity, dtype=np.int32)
        self.first = np.zeros(capacity, dtype=np.int32)
        self.nlegal = np.zeros(capacity, dtype=np.int16)
        self.nexp = np.zeros(capacity, dtype=np.int16)
        self.visits = np.zeros(capacity, dtype=np.int32)
        self.wins2 = np.zeros(capacity, dtype=np.int32)
        self.mean = np.zeros(capacity, dtype=np.float64)
        self.isq = np.zeros(capacity, dtype=np.float64)
        self.move[0], self.first[0], self.mean[0], self.isq[0] = -1, -1, 0.5, inf
        self.info = np.array([1, 0, 0, self.block], dtype=np.int64)  # slots used, max depth, iterations, block
        self.root = 0
        self.root_state = root_state

    _ARRAYS = ("move", "first", "nlegal", "nexp", "visits", "wins2", "mean", "isq")

    def _grow(self) -> None:
        for name in self._ARRAYS:
            old = getattr(self, name)
            new = np.zeros(2 * old.shape[0], dtype=old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)

    def run(self, c: float, max_moves: int | None, iterations: int | None, seconds: float | None) -> int:
        """Iterate from the root within the budget (at least one iteration); returns iterations done."""
        kernels = _kernels()
        limit = NO_LIMIT if max_moves is None else max_moves
        deadline = None if seconds is None else time.perf_counter() + seconds
        done = 0
        while True:
            todo = NO_LIMIT if iterations is None else iterations - done
            if deadline is not None:
                todo = min(todo, 512)  # check the clock every 512 iterations
            if todo <= 0:
                break
            done += kernels.uct(
                self.kind, self.prm, self.tab, self.root_state, self.root, float(c), limit, todo,
                self.move, self.first, self.nlegal, self.nexp, self.visits, self.wins2, self.mean, self.isq,
                self.info,
            )  # fmt: skip
            if self.info[0] + self.block > self.move.shape[0]:
                self._grow()
            elif deadline is not None and done >= 1 and time.perf_counter() >= deadline:
                break
        self.iterations = int(self.visits[self.root])
        self.max_depth = int(self.info[1])
        return done

    @property
    def slots(self) -> int:
        """Slots in use."""
        return int(self.info[0])

    def children(self, slot: int | None = None) -> range:
        """The slots of the created children of ``slot`` (default the root), in creation order."""
        slot = self.root if slot is None else slot
        f = int(self.first[slot])
        return range(f, f + int(self.nexp[slot])) if f >= 0 else range(0)

    def nodes(self) -> int:
        """Nodes created in the whole arrays (the root included)."""
        return 1 + int(np.count_nonzero(self.visits[1 : self.slots]))

    def bytes_per_node(self) -> float:
        """Bytes of the arrays in use per node created."""
        return self.slots * SLOT_BYTES / self.nodes()


@dataclass
class SearchResult:
    """What one compiled search found at the root: per child (creation order) move, visits, mean."""

    tree: CompiledTree
    moves: list[int]
    visits: list[int]
    means: list[float]
    done: int


def search(
    game: Game,
    state: State,
    *,
    c: float,
    iterations: int | None,
    seconds: float | None,
    max_moves: int | None,
    seed: int,
    tree: CompiledTree | None = None,
) -> SearchResult:
    """One UCT search of ``state`` with the compiled engine.

    Args:
        game, state: the position (not over).
        c, iterations, seconds, max_moves: as :class:`mctslab.agents.uct.UCT`.
        seed: seeds Numba's generator for this search (the agent draws it from its own).
        tree: a tree whose :attr:`CompiledTree.root` is already ``state`` (tree reuse), or
            ``None`` for a fresh one.
    """
    kernels = _kernels()
    compile_seconds()
    if tree is None:
        kind, prm, tab, root_state = _encode(game, state)
        budget = iterations if iterations is not None else 4096
        tree = CompiledTree(kind, prm, tab, root_state, capacity=1 + 4 * budget)
    kernels.seed(seed)
    done = tree.run(c, max_moves, iterations, seconds)
    kids = tree.children()
    return SearchResult(
        tree,
        [int(tree.move[s]) for s in kids],
        [int(tree.visits[s]) for s in kids],
        [float(tree.mean[s]) for s in kids],
        done,
    )


def random_results(game: Game, state: State, playouts: int, seed: int, max_moves: int | None = None) -> np.ndarray:
    """Compiled random playouts from ``state``: counts of X wins, O wins and draws (for tests and flat MC)."""
    kernels = _kernels()
    kind, prm, tab, st = _encode(game, state)
    kernels.seed(seed)
    return kernels.random_results(kind, prm, tab, st, playouts, NO_LIMIT if max_moves is None else max_moves)
