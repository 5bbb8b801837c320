"""Whether the compiled back end can run: Numba installed, and a kernel for the game.

A game brings its compiled rules with a compiled encoding registered beside it
(:func:`~mctslab.games.compiled.compiled_rules`; ``None``: none). :func:`check_supported` turns that into one line of
error, before anything is compiled, so ``engine=compiled`` on a game without a kernel
fails at once and says which games have one.
"""

from __future__ import annotations

from functools import cache, lru_cache
from types import ModuleType

from .. import validation
from ..games.base import Game
from ..games.compiled import compiled_rules

__all__ = [
    "EXTRA_HINT",
    "MAX_THREADS",
    "PARALLEL",
    "available",
    "check_engine",
    "check_parallel",
    "check_supported",
    "check_threads",
    "check_virtual_loss",
    "games_with_kernels",
    "kernel_games",
    "require",
    "supports",
]

EXTRA_HINT = "the compiled engine needs Numba: pip install 'mctslab[fast]'"
MAX_THREADS = 256
"""The most threads one search may ask for (each thread builds its own tree)."""
PARALLEL = ("root", "tree", "leaf")
"""The kinds of parallel search: root (K trees, their root statistics summed), tree (one tree
shared by K threads, with virtual loss) and leaf (K playouts of each new leaf at once)."""
MAX_VIRTUAL_LOSS = 1 << 16
"""The most virtual visits a tree-parallel thread may add to a node of its path."""


def available() -> bool:
    """True when Numba can be imported (``pip install "mctslab[fast]"``)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    """Raise a one-line :class:`ModuleNotFoundError` (an ``ImportError``) naming the extra when Numba is missing.

    Its ``name`` is ``"numba"``, so the command line says in one line what to install.
    """
    if not available():
        raise ModuleNotFoundError(EXTRA_HINT, name="numba")


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


def check_threads(name: str, threads: int) -> int:
    """An agent's ``threads`` parameter: an integer from 1 to :data:`MAX_THREADS`.

    Raises:
        TypeError: (one line) for a value that is not an integer.
        ValueError: (one line) for a value outside 1 to :data:`MAX_THREADS`.
    """
    return validation.integer(name, threads, low=1, high=MAX_THREADS)


def check_parallel(name: str, parallel: str) -> str:
    """An agent's ``parallel`` parameter: ``"root"``, ``"tree"`` or ``"leaf"`` (:data:`PARALLEL`).

    Raises:
        ValueError: (one line) for any other value.
    """
    if parallel not in PARALLEL:
        raise ValueError(f"{name} must be 'root', 'tree' or 'leaf', got {parallel!r}")
    return parallel


def check_virtual_loss(name: str, virtual_loss: int) -> int:
    """An agent's ``virtual_loss`` parameter: an integer from 0 to :data:`MAX_VIRTUAL_LOSS` (else, as
    :func:`check_threads`, a one-line TypeError or ValueError)."""
    return validation.integer(name, virtual_loss, low=0, high=MAX_VIRTUAL_LOSS)


@cache
def kernels() -> ModuleType:
    """The module of compiled kernels (:mod:`mctslab.engine.kernels`); Numba compiles each at its first call.

    Looked up once (every search asks for it; a failed import is not cached).
    """
    require()
    from . import kernels as module

    return module


def supports(game: Game) -> bool:
    """True when ``game`` brings compiled rules (:func:`~mctslab.games.compiled.compiled_rules` is not ``None``)."""
    return compiled_rules(game) is not None


def kernel_games() -> list[Game]:
    """One game per registered game with compiled rules: its default form, or its form for the tests when only that
    has them (Hex: 11 x 11 by default, compiled up to 7 x 7). What :mod:`mctslab.engine.warm` compiles for."""
    from ..games import GAMES, make_game

    found = []
    for name in sorted(GAMES):
        spec = GAMES[name].test_spec
        for game in (make_game(name), *((make_game(spec),) if spec is not None else ())):
            if supports(game):
                found.append(game)
                break
    return found


@lru_cache(maxsize=1)
def games_with_kernels() -> tuple[str, ...]:
    """The registered games with compiled rules, in their default form or their form for the tests (``("connect4",
    "fractio", ...)``; see :func:`kernel_games`)."""
    return tuple(game.spec.partition(":")[0] for game in kernel_games())


def check_supported(game: Game) -> None:
    """Raise a one-line ValueError, before any compilation, if ``game`` declares no kernel.

    Raises:
        ValueError: naming the game, the games that have a kernel, and ``engine=python``.
    """
    if not supports(game):
        raise ValueError(
            f"the compiled engine has no kernel for {game.spec}; games with one: "
            f"{', '.join(games_with_kernels())} (some only up to a size); use engine=python"
        )
