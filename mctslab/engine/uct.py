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
from .tree import MAX_VISITS, NO_LIMIT, CompiledTree, check_capacity, check_tree_fits

__all__ = ["SearchResult", "checked_search", "compile_kernel", "compile_seconds", "random_results", "search"]


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


def compile_seconds(game: Game | None = None) -> float:
    """Compile (or load from Numba's cache) the UCT kernel for ``game`` once; the seconds it took (0 once done).

    ``None``: for every registered game with compiled rules. Each game file's rules have
    their own compiled kernels (:mod:`mctslab.engine.game_rules`).
    """
    return compile_kernel("uct", lambda rules, st: CompiledTree(rules, st, capacity=1024), game)


def compile_kernel(name: str, make: Callable[[CompiledGame, np.ndarray], CompiledTree], game: Game | None) -> float:
    """Run 8 iterations on a tree ``make(rules, root_state)`` of ``game`` (``None``: of every game with compiled
    rules), unless done for ``name`` and that game's rules in this process; the seconds it took (0 if nothing to do).

    A timed search calls it before its clock starts, so a first move is not spent compiling.
    """
    games = [game] if game is not None else kernel_games()
    todo = [g for g in games if (name, compiled_rules(g).rules) not in _COMPILED]
    if not todo:
        return 0.0
    start = time.perf_counter()
    kernels().seed(0)
    for g in todo:
        make(*_encode(g, g.initial_state())).run(c=1.0, max_moves=None, iterations=8, seconds=None)
        _COMPILED.add((name, compiled_rules(g).rules))
    return time.perf_counter() - start


_COMPILED: set[tuple[str, Callable[[], Any]]] = set()
"""The ``(kernel, rules function)`` pairs this process has compiled or loaded."""


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
    compile_seconds(game)
    if tree is None:
        rules, root_state = _encoded(game, state)
        budget = iterations if iterations is not None else 4096
        tree = CompiledTree(rules, root_state, capacity=CompiledTree.slots_for(rules, budget))
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
