"""The C reference UCT (``mctslab/bench/c/uct.c``): built with the system compiler, loaded with ctypes.

The same algorithm as the compiled engine (:mod:`mctslab.engine.kernels`) and the same
random numbers (xorshift64*, seeded with splitmix64, as :mod:`mctslab.games._jit`), so that a
search here builds the engine's tree bit for bit from the same seed
(``tests/test_c_reference.py`` checks it). ``python -m mctslab bench --c`` times it beside
the engine. The library is built once per source and flags into a cache folder
(``$MCTSLAB_CACHE``, else ``$XDG_CACHE_HOME/mctslab``, else ``~/.cache/mctslab``); without
a C compiler, :func:`unavailable` says so in one line and nothing is built.

``rng="mt"`` (Numba's MT19937, the engine's generator until 2026-11-30) and ``rng="pcg"`` (PCG64)
build the same search drawing other numbers (other trees, the same work): the difference in
speed is what a generator costs. Built ``-O3 -march=native`` (the tightest the compiler makes it),
floating-point contraction off (a fused multiply-add would round UCB1 otherwise than the engine).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..games import compiled_encoding, compiled_rules
from ..games.base import Game, State

__all__ = ["RNGS", "CSearch", "c_playouts", "c_search", "compiler", "library", "timed_searches", "unavailable"]

SOURCE = Path(__file__).with_name("c") / "uct.c"
FLAGS = ("-O3", "-ffp-contract=off", "-fno-math-errno", "-fPIC", "-shared")
"""``-ffp-contract=off``: no fused multiply-add, whose rounding would differ from Numba's UCB1."""
NATIVE = "-march=native"
"""Tried first, dropped where the compiler refuses it."""
RNGS = {"xorshift": (), "mt": ("-DMCTS_MT",), "pcg": ("-DMCTS_PCG",)}
"""The generators the C search can draw from, and the macro that selects each: xorshift64*, the engine's (its trees
bit for bit); MT19937, the engine's until 2026-11-30, and PCG64, to measure what a generator costs."""


def compiler() -> str | None:
    """The C compiler to use: ``$CC``, else ``cc``, else ``gcc``, else ``clang`` (``None``: none found)."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _cache_dir() -> Path:
    if os.environ.get("MCTSLAB_CACHE"):
        return Path(os.environ["MCTSLAB_CACHE"]).expanduser() / "c"
    return Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser() / "mctslab" / "c"


def unavailable() -> str | None:
    """Why the C reference cannot run here (one line), or ``None`` when it can."""
    if compiler() is None:
        return "the C reference is skipped: no C compiler found (set CC, or install gcc or clang)"
    try:
        library("xorshift")
    except (OSError, RuntimeError) as err:
        return f"the C reference is skipped: {err}"
    return None


@lru_cache(maxsize=4)
def library(rng: str = "xorshift") -> ctypes.CDLL:
    """The built library for generator ``rng`` (built on first use, then loaded from the cache).

    Raises:
        ValueError: for an unknown ``rng``.
        RuntimeError: (one line) when no compiler is found or the build fails.
    """
    if rng not in RNGS:
        raise ValueError(f"rng must be one of {', '.join(RNGS)}, got {rng!r}")
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler found (set CC, or install gcc or clang)")
    source = SOURCE.read_bytes()
    errors = []
    for native in ((NATIVE,), ()):
        flags = (*FLAGS, *native, *RNGS[rng])
        key = hashlib.sha256(source + " ".join((cc, *flags)).encode()).hexdigest()[:16]
        target = _cache_dir() / f"uct-{rng}-{key}.so"
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
                built = Path(tmp) / target.name
                command = [cc, *flags, str(SOURCE), "-o", str(built), "-lm"]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    errors.append(done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"])
                    continue
                os.replace(built, target)  # atomic: another process may be building the same file
        lib = ctypes.CDLL(str(target))
        _declare(lib)
        return lib
    raise RuntimeError(f"{cc} could not build {SOURCE.name}: {errors[-1][0]}")


def _declare(lib: ctypes.CDLL) -> None:
    i64, i32p, i64p = ctypes.c_int64, ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64)
    lib.mcts_uct.restype = i64
    lib.mcts_uct.argtypes = [
        ctypes.c_int, i64p, i64p, i64, i64p, i64, ctypes.c_double, i64, i64, ctypes.c_uint32, i64,
        i32p, i32p, i32p, i32p, i32p, i32p, i64p,
    ]  # fmt: skip
    lib.mcts_playouts.restype = i64
    lib.mcts_playouts.argtypes = [ctypes.c_int, i64p, i64p, i64, i64p, i64, i64, i64, ctypes.c_uint32, i64p]


@dataclass
class CSearch:
    """One C search: the tree's slots in use (as the engine's arrays), and per root child (creation order)."""

    done: int
    slots: int
    max_depth: int
    arrays: dict[str, np.ndarray] | None
    moves: list[int]
    visits: list[int]
    wins2: list[int]


def _ptr(a: np.ndarray, ctype: type) -> object:
    return a.ctypes.data_as(ctypes.POINTER(ctype))


C_KINDS = {"mctslab.games.tictactoe": 0, "mctslab.games.connect4": 1, "mctslab.games.ultimate": 2}
"""The games ``uct.c`` has rules for (its own ``kind`` numbers), by the module of the game's compiled rules: the C
reference is a transcription of those three games' compiled rules, not a search open to any game as the engine is."""


def c_rules(game: Game) -> tuple[int, np.ndarray, np.ndarray]:
    """``uct.c``'s ``kind`` for ``game`` and the game's compiled tables ``prm`` and ``tab``.

    Raises:
        ValueError: (one line) for a game whose rules ``uct.c`` does not have.
    """
    compiled = compiled_rules(game)
    kind = C_KINDS.get(compiled.rules.__module__) if compiled is not None else None
    if kind is None:
        raise ValueError(f"the C reference has no rules for {game.spec}; it has {', '.join(sorted(C_KINDS))}")
    return kind, compiled.prm, compiled.tab


def c_search(
    game: Game,
    state: State,
    *,
    c: float,
    iterations: int,
    seed: int,
    max_moves: int | None = None,
    rng: str = "xorshift",
    arrays: bool = True,
) -> CSearch:
    """One UCT search of ``state`` by the C reference: :func:`mctslab.engine.search`'s arguments, its tree.

    Args:
        arrays: copy the whole tree out (the engine's move, first, nlegal, nexp, visits and
            wins2 per slot); the root's children are returned either way.

    Raises:
        ValueError: for a game without a kernel, or iterations < 1.
        RuntimeError: when the library cannot be built, or the search runs out of memory.
    """
    from ..engine import NO_LIMIT, check_supported

    check_supported(game)
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    kind, prm, tab = c_rules(game)
    st = np.array(compiled_encoding(game).compiled_state(state), dtype=np.int64)
    size = 1 + iterations * compiled_rules(game).max_moves if arrays else 0
    out = {name: np.zeros(size, dtype=np.int32) for name in ("move", "first", "nlegal", "nexp", "visits", "wins2")}
    info = np.zeros(2, dtype=np.int64)
    p = [_ptr(out[name], ctypes.c_int32) if arrays else None for name in out]
    done = library(rng).mcts_uct(
        kind, _ptr(prm, ctypes.c_int64), _ptr(tab, ctypes.c_int64), tab.shape[1], _ptr(st, ctypes.c_int64), st.size,
        float(c), NO_LIMIT if max_moves is None else max_moves, iterations, seed, size, *p, _ptr(info, ctypes.c_int64),
    )  # fmt: skip
    if done < 0:
        raise RuntimeError(f"the C reference ran out of memory for {iterations:,} iterations")
    slots = int(info[0])
    root = int(out["first"][0]) if arrays else -1
    if not arrays:
        return CSearch(done, slots, int(info[1]), None, [], [], [])
    kids = range(root, root + int(out["nexp"][0])) if root >= 0 else range(0)
    trimmed = {name: a[:slots] for name, a in out.items()}
    return CSearch(
        done,
        slots,
        int(info[1]),
        trimmed,
        [int(out["move"][s]) for s in kids],
        [int(out["visits"][s]) for s in kids],
        [int(out["wins2"][s]) for s in kids],
    )


def c_playouts(
    game: Game, state: State, playouts: int, seed: int, max_moves: int | None = None, rng: str = "xorshift"
) -> np.ndarray:
    """:func:`mctslab.engine.random_results` by the C reference: counts of X wins, O wins and draws.

    Raises:
        ValueError: for a game without a kernel, or playouts < 1.
        RuntimeError: when the library cannot be built.
    """
    from ..engine import NO_LIMIT, check_supported

    check_supported(game)
    if playouts < 1:
        raise ValueError(f"playouts must be >= 1, got {playouts}")
    kind, prm, tab = c_rules(game)
    st = np.array(compiled_encoding(game).compiled_state(state), dtype=np.int64)
    counts = np.zeros(3, dtype=np.int64)
    library(rng).mcts_playouts(
        kind, _ptr(prm, ctypes.c_int64), _ptr(tab, ctypes.c_int64), tab.shape[1], _ptr(st, ctypes.c_int64), st.size,
        playouts, NO_LIMIT if max_moves is None else max_moves, seed, _ptr(counts, ctypes.c_int64),
    )  # fmt: skip
    return counts


def timed_searches(game_spec: str, iterations: int, seed: int) -> tuple[Callable[[], object], Callable[..., object]]:
    """What ``bench --c`` times beside a compiled row: the C search with its seed (the same tree), and a maker
    ``(rng, seed) -> run`` of C searches (the generator's cost: the two generators on the same seeds)."""
    from ..agents import make_agent
    from ..games import make_game

    game = make_game(game_spec)
    c = make_agent("uct", seed=0).c

    def run(rng: str, seed: int) -> Callable[[], object]:
        return lambda: c_search(
            game, game.initial_state(), c=c, iterations=iterations, seed=seed, rng=rng, arrays=False
        )

    return run("xorshift", seed), run
