"""One compiled UCT search, and compiled random playouts, of a game that declares a kernel."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from .. import validation
from ..games.base import Game, IllegalMoveError, State
from ..games.compiled import CompiledGame, compiled_encoding, compiled_rules
from .backend import check_supported, kernel_games, kernels
from .tree import NO_LIMIT, Budget, CompiledTree, check_capacity

__all__ = [
    "SearchResult", "check_search", "compile_seconds", "random_results", "search", "search_budget",
]  # fmt: skip


def _encode(game: Game, state: State) -> tuple[CompiledGame, np.ndarray]:
    check_supported(game)
    return _encoded(game, state)


def _encoded(game: Game, state: State) -> tuple[CompiledGame, np.ndarray]:
    """The game's compiled rules and ``state``'s encoding, for a game already checked to have them.

    Raises:
        ValueError: (one line) for a game past the kernels' capacity (:func:`~.tree.check_capacity`).
    """
    compiled = compiled_rules(game)
    if id(compiled) not in _FITS:
        check_capacity(game.spec, compiled)
        _FITS[id(compiled)] = compiled  # kept alive: its id is not reused
    encoded = np.array(compiled_encoding(game).compiled_state(state), dtype=np.int64)
    if encoded.shape[0] != compiled.fields:
        raise ValueError(
            f"{game.spec}: compiled_state gives {encoded.shape[0]} fields, its compiled rules declare {compiled.fields}"
        )
    return compiled, encoded


_FITS: dict[int, CompiledGame] = {}
"""The compiled rules already checked by :func:`~.tree.check_capacity` (checked once each)."""


def compile_seconds(game: Game | None = None, tree_class: type[CompiledTree] = CompiledTree, **extra: Any) -> float:
    """Run 8 iterations on a ``tree_class`` tree of ``game`` (``None``: of every game with compiled rules), unless
    done for its kernel and that game's rules in this process; the seconds it took (0 if nothing to do).

    Compiles (or loads from Numba's cache) the tree's kernel (:attr:`CompiledTree.KERNEL`; ``extra``: the
    tree class's own arguments). Each game file's rules have their own compiled kernels
    (:mod:`mctslab.engine.game_rules`). A timed search calls it before its clock starts, so a first
    move is not spent compiling.
    """
    if game is not None and (tree_class.KERNEL, compiled_rules(game).rules) in _COMPILED:
        return 0.0  # what every search after the first asks: answered without a list
    games = [game] if game is not None else kernel_games()
    todo = [g for g in games if (tree_class.KERNEL, compiled_rules(g).rules) not in _COMPILED]
    if not todo:
        return 0.0
    start = time.perf_counter()
    kernels().seed(0)
    for g in todo:
        tree_class(*_encode(g, g.initial_state()), capacity=1024, **extra).run(_WARM)
        _COMPILED.add((tree_class.KERNEL, compiled_rules(g).rules))
    return time.perf_counter() - start


_COMPILED: set[tuple[str, Callable[[], Any]]] = set()
"""The ``(kernel, rules function)`` pairs this process has compiled or loaded."""
_WARM = Budget(c=1.0, iterations=8)
""":func:`compile_seconds`'s budget."""


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

    The keywords of :class:`Budget`, for people and notebooks: :func:`search_budget` with ``Budget(c,
    iterations, seconds, max_moves)``.

    Args:
        game, state: the position (checked with :meth:`~mctslab.games.base.Game.check_state`; not over).
        c, iterations, seconds, max_moves: as :class:`mctslab.agents.uct.UCT` (see :class:`Budget`).
        seed: seeds the engine's generator for this search (the agent draws it from its own).
        tree: a tree whose :attr:`CompiledTree.root` is already ``state`` (tree reuse), or
            ``None`` for a fresh one.

    Raises:
        TypeError, ValueError: (one line) for a game without a kernel, a budget it cannot run: iterations
            outside 1 to :data:`~mctslab.engine.tree.MAX_VISITS`, seconds not finite and > 0, neither given.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    check_supported(game)  # before the budget, as before anything is compiled: a game without a kernel fails at once
    return search_budget(game, state, Budget(c, iterations, seconds, max_moves), seed=seed, tree=tree)


def search_budget(
    game: Game,
    state: State,
    budget: Budget,
    *,
    seed: int,
    tree: CompiledTree | None = None,
    tree_class: type[CompiledTree] = CompiledTree,
    checked: bool = False,
    **extra: Any,
) -> SearchResult:
    """One compiled search of ``state`` within ``budget`` (the budget in chunks: Ctrl-C stops it within a second).

    Args:
        game, state, seed, tree: as :func:`search`.
        budget: the search's :class:`Budget` (checked when it was made).
        tree_class, extra: the tree of a fresh search and its own arguments (a variant's: MCTS-Solver's
            :class:`~mctslab.engine.solver.SolverTree`, RAVE's :class:`~mctslab.engine.rave.RaveTree` and ``k``).
        checked: ``True`` for a caller that has checked the game, state and seed as :func:`check_search`
            does (an agent: its state once per move by :func:`~mctslab.agents.base.legal_or_raise`);
            checking them again is a tenth of a short search.

    Raises:
        ValueError: (one line) for a game without a kernel, a seed outside 32 bits.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    if not checked:
        check_search(game, state, (seed,), fresh=tree is None)
    compiled = kernels()
    compile_seconds(game, tree_class, **extra)
    if tree is None:
        tree = tree_class.for_budget(*_encoded(game, state), budget, **extra)
    compiled.seed(seed)
    return SearchResult(tree, tree.run(budget))


def check_search(game: Game, state: State, seeds: tuple[int, ...], fresh: bool) -> None:
    """What every compiled search checks first, in one line each (``fresh``: no tree is reused, check ``state``).

    Its budget was checked when it was made (:class:`Budget`).

    Raises:
        ValueError: for a game without a kernel (before anything is compiled), a seed outside 32 bits.
        TypeError: for a seed that is not an integer.
        InvalidStateError, IllegalMoveError: for a state that is not a position of the game, or a finished one.
    """
    check_supported(game)  # before compiling: a game without a kernel fails at once
    for seed in seeds:
        validation.integer("seed", seed, low=0, high=2**32 - 1)
    if fresh:
        game.check_state(state)
        if game.is_terminal(state):
            raise IllegalMoveError("no move to search: the game is over")


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
    rules, st = _encode(game, state)
    compiled = kernels()
    compiled.seed(seed)
    limit = NO_LIMIT if max_moves is None else max_moves
    counts = np.zeros(3, dtype=np.int64)
    scratch = np.empty(compiled.SCRATCH, dtype=np.int64)
    for done in range(0, playouts, PLAYOUT_CHUNK):
        todo = min(PLAYOUT_CHUNK, playouts - done)
        counts += compiled.random_results(rules, rules.prm, rules.tab, st, todo, limit, scratch)
    return counts


PLAYOUT_CHUNK = 1 << 16
""":func:`random_results` plays at most this many playouts per compiled call (well under a second)."""
