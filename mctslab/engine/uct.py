"""One compiled UCT search, and compiled random playouts, of a game that declares a kernel."""

from __future__ import annotations

import time
from functools import cached_property, lru_cache

import numpy as np

from .. import validation
from ..games.base import Game, IllegalMoveError, State
from .backend import check_supported, kernels
from .tree import KINDS, MAX_VISITS, NO_LIMIT, CompiledTree, check_capacity, check_tree_fits

__all__ = ["SearchResult", "checked_search", "compile_seconds", "random_results", "search", "tables"]


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
    check_supported(game)
    return _encoded(game, state)


def _encoded(game: Game, state: State) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's tables and ``state``'s encoding, for a game already checked to have a kernel.

    Raises:
        ValueError: (one line) for a game past the kernels' capacity (:func:`~.tree.check_capacity`).
    """
    encoding = game.compiled_encoding()
    encoded = np.array(game.compiled_state(state), dtype=np.int64)
    if (encoding, encoded.shape[0]) not in _FITS:
        check_capacity(game.spec, encoding, encoded.shape[0])
        _FITS.add((encoding, encoded.shape[0]))
    return (*tables(*encoding), encoded)


_FITS: set[tuple[tuple[str, tuple[int, ...]], int]] = set()
"""The ``(kind, parameters, fields)`` already checked by :func:`~.tree.check_capacity` (checked once each)."""


_COMPILE_SECONDS: list[float] = []


def compile_seconds() -> float:
    """Compile (or load from Numba's cache) every kernel once; the seconds it took (0 once done)."""
    if _COMPILE_SECONDS:
        return 0.0
    from ..games import make_game

    compiled = kernels()
    start = time.perf_counter()
    compiled.seed(0)
    for spec in ("tictactoe", "connect4", "uttt"):
        game = make_game(spec)
        tree = CompiledTree(*_encode(game, game.initial_state()), capacity=1024)
        tree.run(c=1.0, max_moves=None, iterations=8, seconds=None)
    _COMPILE_SECONDS.append(time.perf_counter() - start)
    return _COMPILE_SECONDS[0]


def _check_budget(c: float, iterations: int | None, seconds: float | None, max_moves: int | None, seed: int) -> None:
    """Refuse, in one line, a budget the engine cannot run (as the agents' own checks do)."""
    validation.non_negative_number("c", c, finite=True)
    validation.optional(validation.integer, "iterations", iterations, low=1, high=MAX_VISITS)
    validation.optional(validation.positive_number, "seconds", seconds, finite=True)
    validation.optional(validation.positive_int, "max_moves", max_moves)
    validation.integer("seed", seed, low=0, high=2**32 - 1)
    if iterations is None and seconds is None:
        raise ValueError("the compiled engine needs iterations or seconds (or both), got neither")
    if iterations is not None and seconds is None:
        check_tree_fits(iterations)


class SearchResult:
    """What one compiled search found at the root: per child (creation order) move, visits, mean.

    Attributes:
        tree: the searched tree (its :attr:`~CompiledTree.root` is the searched position).
        done: iterations run by this search.
    """

    __slots__ = ("tree", "done", "__dict__")

    def __init__(self, tree: CompiledTree, done: int) -> None:
        self.tree, self.done = tree, done

    @cached_property
    def moves(self) -> list[int]:
        """The root's children's moves, in creation order (read from the arrays when first asked)."""
        return self.tree.move[self._kids].tolist()

    @cached_property
    def visits(self) -> list[int]:
        """The root's children's visits, in creation order."""
        return self.tree.visits[self._kids].tolist()

    @cached_property
    def means(self) -> list[float]:
        """The root's children's mean rewards (for the player who made the move), in creation order."""
        return self.tree.mean[self._kids].tolist()

    @property
    def _kids(self) -> slice:
        kids = self.tree.children()
        return slice(kids.start, kids.stop)

    def __repr__(self) -> str:
        return f"SearchResult(moves={self.moves}, visits={self.visits}, done={self.done})"


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
    """One UCT search of ``state`` with the compiled engine (the budget in chunks: Ctrl-C stops it within a second).

    Args:
        game, state: the position (checked with :meth:`~mctslab.games.base.Game.check_state`; not over).
        c, iterations, seconds, max_moves: as :class:`mctslab.agents.uct.UCT`.
        seed: seeds Numba's generator for this search (the agent draws it from its own).
        tree: a tree whose :attr:`CompiledTree.root` is already ``state`` (tree reuse), or
            ``None`` for a fresh one.

    Raises:
        TypeError, ValueError: (one line) for a budget it cannot run: iterations outside
            1 to :data:`~mctslab.engine.tree.MAX_VISITS`, seconds not finite and > 0, neither given.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    check_search(game, state, c, iterations, seconds, max_moves, seed, fresh=tree is None)
    return checked_search(
        game, state, c=c, iterations=iterations, seconds=seconds, max_moves=max_moves, seed=seed, tree=tree
    )


def check_search(
    game: Game,
    state: State,
    c: float,
    iterations: int | None,
    seconds: float | None,
    max_moves: int | None,
    seed: int,
    fresh: bool,
) -> None:
    """What every compiled search checks first, in one line each (``fresh``: no tree is reused, check ``state``).

    Raises:
        ValueError: for a game without a kernel (before anything is compiled), a budget the engine cannot run.
        TypeError: for a budget of the wrong type.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    check_supported(game)  # before compiling: a game without a kernel fails at once
    _check_budget(c, iterations, seconds, max_moves, seed)
    if fresh:
        game.check_state(state)
        if game.is_terminal(state):
            raise IllegalMoveError("no move to search: the game is over")


def checked_search(
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
    """:func:`search` for a caller that has checked its arguments as :func:`search` does (an agent: once per move).

    The agent's parameters were checked when it was made and its state by
    :func:`~mctslab.agents.base.legal_or_raise`; checking them again is a tenth of a short search.
    """
    compiled = kernels()
    compile_seconds()
    if tree is None:
        kind, prm, tab, root_state = _encoded(game, state)
        budget = iterations if iterations is not None else 4096
        tree = CompiledTree(kind, prm, tab, root_state, capacity=CompiledTree.slots_for(kind, prm, budget))
    compiled.seed(seed)
    done = tree.run(c, max_moves, iterations, seconds)
    return SearchResult(tree, done)


def random_results(game: Game, state: State, playouts: int, seed: int, max_moves: int | None = None) -> np.ndarray:
    """Compiled random playouts from ``state``: counts of X wins, O wins and draws (for tests and flat MC).

    Played in compiled calls of at most :data:`PLAYOUT_CHUNK` playouts drawing on one
    random stream (the counts do not depend on the chunks), so Ctrl-C stops it quickly.

    Raises:
        TypeError, ValueError: (one line) for playouts < 1, a seed outside 32 bits or max_moves < 1.
    """
    validation.positive_int("playouts", playouts)
    validation.integer("seed", seed, low=0, high=2**32 - 1)
    validation.optional(validation.positive_int, "max_moves", max_moves)
    kind, prm, tab, st = _encode(game, state)
    compiled = kernels()
    compiled.seed(seed)
    limit = NO_LIMIT if max_moves is None else max_moves
    counts = np.zeros(3, dtype=np.int64)
    scratch = np.empty(compiled.SCRATCH, dtype=np.int64)
    for done in range(0, playouts, PLAYOUT_CHUNK):
        counts += compiled.random_results(kind, prm, tab, st, min(PLAYOUT_CHUNK, playouts - done), limit, scratch)
    return counts


PLAYOUT_CHUNK = 1 << 16
""":func:`random_results` plays at most this many playouts per compiled call (well under a second)."""
