"""The compiled engine's tree: parallel NumPy arrays of slots, grown as the search needs."""

from __future__ import annotations

import mmap
import os
import sys
import threading
import time
from dataclasses import dataclass
from functools import cache, lru_cache
from math import inf
from typing import Any, TypeVar

import numpy as np

from .. import validation
from ..games.compiled import CompiledGame
from .backend import kernels

__all__ = [
    "CHUNK_SECONDS", "INITIAL_SLOTS", "MAX_VISITS", "NO_LIMIT", "SLOT_BYTES", "Budget", "CompiledTree",
    "MAX_FIELDS", "MAX_MOVES", "MAX_PATH", "check_capacity", "check_tree_fits", "memory_available",
]  # fmt: skip

NO_LIMIT = 1 << 40
SLOT_BYTES = 4 + 4 + 2 + 2 + 4 + 4 + 8 + 8
"""Bytes per tree slot: move, first child, legal and expanded counts, visits, half points, mean, 1/sqrt(visits)."""
INITIAL_SLOTS = 1 << 20
"""At most this many slots (36 MiB) are made at first, whatever the budget; the arrays double as the tree grows.

A search of ``n`` iterations needs at most ``1 + n * block`` slots (one block of legal moves per
expansion, :meth:`CompiledTree.slots_for`): up to this cap it gets them at once, so it never
grows (and copies) its arrays. The block is zeroed by the system when its pages are first
touched (NumPy's ``zeros`` asks for zeroed memory): slots never reached cost no time."""
MAX_SLOTS = 1 << 31
"""Slot numbers are int32: the arrays never grow past this."""
MAX_VISITS = (1 << 30) - 1
"""The root's visits stop here: visits and half points (two per win) stay within int32."""
CHUNK_SECONDS = 0.1
"""About how long one compiled call runs (Ctrl-C is seen between calls)."""
FIRST_CHUNK, MAX_CHUNK = 8192, 1 << 24
"""Iterations of the first compiled call of a search (a few milliseconds: a short search is one call), and the most
in one call."""


CHECKED_BYTES = 1 << 28
"""Budgets whose tree needs less than this (256 MiB) are not checked against the memory left (it costs a file read)."""


def memory_available() -> int:
    """Bytes this process may still take: the least of the system's available memory and what RLIMIT_AS leaves.

    The system's share is ``MemAvailable`` of ``/proc/meminfo`` (elsewhere the free pages); the
    address-space limit (``ulimit -v``), when set, less the address space already mapped.
    """
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    free = None
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if free is None:
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * page
        except (AttributeError, OSError, ValueError):
            free = 1 << 62  # not known: not refused here
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        limit = -1
    if limit not in (-1, getattr(sys.modules.get("resource"), "RLIM_INFINITY", -1)):
        try:
            with open("/proc/self/statm") as statm:
                mapped = int(statm.read().split()[0]) * page
        except OSError:
            mapped = 0
        free = min(free, max(0, limit - mapped))
    return free


def check_tree_fits(iterations: int, trees: int = 1, slot_bytes: int = SLOT_BYTES) -> None:
    """Refuse, in one line and at once, a budget whose trees cannot fit in :func:`memory_available`.

    An iteration adds a node to the tree (until the game's whole tree is built), and a node
    takes at least ``slot_bytes`` (its slot; an expansion reserves a slot per legal move), so
    ``iterations`` iterations take at least ``iterations * slot_bytes`` bytes per tree.
    Without this check ``uct:iterations=1000000000,engine=compiled`` on Connect Four grew its
    arrays for minutes, then failed with a traceback when memory ran out.

    Args:
        iterations: iterations per tree.
        trees: trees searched at once (root parallelism: one per thread).
        slot_bytes: bytes per slot of the tree.

    Raises:
        ValueError: (one line) naming the memory needed, the memory left and the largest budget that fits.
    """
    need = (iterations + 1) * slot_bytes * trees
    if need < CHECKED_BYTES:
        return
    free = memory_available()
    if need > free:
        each = f" for each of {trees} trees" if trees > 1 else ""
        most = max(1, free // (slot_bytes * trees) - 1)
        raise ValueError(
            f"iterations={iterations:,}: the compiled tree takes a node of {slot_bytes} bytes per iteration,"
            f" {need / 2**30:.1f} GiB{each}, more than the {free / 2**30:.1f} GiB this process may use"
            f" (available memory and ulimit -v); use at most {most:,} iterations, or seconds"
        )


@dataclass(frozen=True, slots=True)
class Budget:
    """What one compiled search may spend: checked once, when made, then handed down unchanged.

    Made where a search is asked for (an agent's :class:`~mctslab.agents.engines.CompiledEngine`,
    again only when the agent's parameters change; :func:`mctslab.engine.search` from its keywords)
    and passed as it is to every entry point, tree and run (:meth:`CompiledTree.run`).

    Attributes:
        c: the exploration constant of UCB1, finite and >= 0.
        iterations: iterations of the search, 1 to :data:`MAX_VISITS` (per tree for root
            parallelism, leaves for leaf parallelism), or ``None``: until ``seconds`` have passed.
        seconds: wall-clock seconds, finite and > 0, or ``None``: until ``iterations`` are done.
        max_moves: cap on a playout's length (one cut short counts as a draw), >= 1, or ``None``.

    Raises:
        TypeError, ValueError: (one line) for a budget the engine cannot run: a value out of its
            range, neither ``iterations`` nor ``seconds``, or ``iterations`` alone whose tree cannot
            fit in memory (:func:`check_tree_fits`).
    """

    c: float
    iterations: int | None
    seconds: float | None = None
    max_moves: int | None = None

    def __post_init__(self) -> None:
        validation.non_negative_number("c", self.c, finite=True)
        validation.optional(validation.integer, "iterations", self.iterations, low=1, high=MAX_VISITS)
        validation.optional(validation.positive_number, "seconds", self.seconds, finite=True)
        validation.optional(validation.positive_int, "max_moves", self.max_moves)
        if self.iterations is None and self.seconds is None:
            raise ValueError("the compiled engine needs iterations or seconds (or both), got neither")
        if self.iterations is not None and self.seconds is None:
            check_tree_fits(self.iterations)

    @property
    def limit(self) -> int:
        """``max_moves`` as the kernels take it (:data:`NO_LIMIT` for none)."""
        return NO_LIMIT if self.max_moves is None else self.max_moves


@lru_cache(maxsize=1)
def _roots() -> np.ndarray:
    """The kernels' table of ``sqrt(ln n)`` and ``1 / sqrt(n)``, one per process, filled by the kernels as they go."""
    return np.zeros((2, kernels().ROOTS), dtype=np.float64)


MAPPED_BYTES = 1 << 23
"""Blocks of at least this many bytes (8 MiB) are mapped from the system (:func:`_zeroed`)."""


def _zeroed(nbytes: int) -> np.ndarray:
    """``nbytes`` zeroed bytes; a large block straight from the system, zeroed page by page as first touched.

    ``np.zeros`` asks ``calloc``, which may hand back heap memory freed by the last search and
    clear all of it at once: a 12 MB tree (a timed Ultimate search sized for 4,096 iterations)
    took 14 ms to make, most of a 5 ms move's budget spent before the search started. An
    anonymous map is zero pages the system fills on first touch, so the slots a search never
    reaches cost nothing; it is unmapped when the tree is freed. Smaller blocks stay with
    ``calloc``, whose reused heap memory is faster than fresh pages when most of it is used
    (a Connect Four search of 5,000 iterations: 1.3 MB, nearly all of it).
    """
    if nbytes < MAPPED_BYTES:
        return np.zeros(nbytes, dtype=np.uint8)
    return np.frombuffer(mmap.mmap(-1, nbytes), dtype=np.uint8)


@cache
def _layout(cls: type) -> tuple[tuple[tuple[str, np.dtype, int], ...], int]:
    """A tree class's arrays as ``(name, dtype, bytes per slot)``, and the bytes per slot, worked out once per class."""
    fields = tuple((name, np.dtype(dtype), np.dtype(dtype).itemsize) for name, dtype in cls._ARRAYS)
    return fields, sum(itemsize for _, _, itemsize in fields)


MAX_FIELDS, MAX_MOVES, MAX_PATH = 32, 128, 256
"""The kernels' capacity, the three parts of their scratch array (``kernels.SCRATCH``: 416 int64):
a position of at most 32 fields, at most 128 legal moves, a path of at most 256 slots (the root
and 255 plies below it)."""


def check_capacity(spec: str, compiled: CompiledGame) -> None:
    """Refuse, in one line, a game the kernels' fixed arrays cannot hold (instead of indexing past them).

    Args:
        spec: the game's spec, for the message.
        compiled: the game's :func:`~mctslab.games.compiled_rules` and their declared sizes.

    Raises:
        ValueError: naming the limit that is passed (:data:`MAX_FIELDS`, :data:`MAX_MOVES`, :data:`MAX_PATH`).
    """
    for what, value, most in (
        ("fields of compiled_state", compiled.fields, MAX_FIELDS),
        ("legal moves in a position", compiled.max_moves, MAX_MOVES),
        ("plies in a game (the tree's depth)", compiled.max_plies, MAX_PATH - 1),
    ):
        if value > most:
            raise ValueError(
                f"the compiled engine holds at most {most} {what}; {spec} has up to {value}: use engine=python"
            )


T = TypeVar("T", bound="CompiledTree")


class CompiledTree:
    """A UCT tree in arrays (see :mod:`mctslab.engine.kernels`), rooted at slot :attr:`root`.

    Attributes:
        root: the slot of the root.
        slots: slots in use (created nodes and untried moves of expanded nodes).
        iterations: iterations run since the root was set.
        max_depth: deepest node added, in plies below the root.
    """

    def __init__(self, compiled: CompiledGame, root_state: np.ndarray, capacity: int) -> None:
        self.rules, self.prm, self.tab = compiled, compiled.prm, compiled.tab
        self.block = compiled.max_moves  # slots one expansion can take
        self._allocate(max(capacity, 1 + self.block))
        self.move[0], self.first[0], self.mean[0], self.isq[0] = -1, -1, 0.5, inf
        self.info = np.array([1, 0, 0, self.block], dtype=np.int64)  # slots used, max depth, iterations, block
        self.scratch = np.empty(kernels().SCRATCH, dtype=np.int64)  # the kernel's working arrays, kept alive here
        self.roots = _roots()
        self.root = 0
        self.root_state = root_state

    _ARRAYS = (
        ("mean", np.float64), ("isq", np.float64), ("move", np.int32), ("first", np.int32),
        ("visits", np.int32), ("wins2", np.int32), ("nlegal", np.int16), ("nexp", np.int16),
    )  # fmt: skip
    """The arrays, widest first: as views of one zeroed block (one allocation), each stays aligned."""

    KERNEL = "uct"
    """The kernel :meth:`_iterate` calls (a variant's tree names its own; compiled once per game's rules)."""

    @staticmethod
    def slots_for(compiled: CompiledGame, iterations: int) -> int:
        """Slots that ``iterations`` iterations can need, at most :data:`INITIAL_SLOTS` (the arrays grow past it)."""
        return min(1 + iterations * compiled.max_moves, INITIAL_SLOTS)

    @classmethod
    def for_budget(cls: type[T], compiled: CompiledGame, root_state: np.ndarray, budget: Budget, **extra: Any) -> T:
        """A fresh tree of ``root_state`` with the slots ``budget`` can need (4096 iterations' under a clock alone);
        ``extra``: the tree class's own arguments (RAVE's ``k``)."""
        iterations = budget.iterations if budget.iterations is not None else 4096
        return cls(compiled, root_state, capacity=cls.slots_for(compiled, iterations), **extra)

    def _allocate(self, size: int) -> dict[str, np.ndarray]:
        """Make every array ``size`` slots long, zeroed, in one block; returns the old arrays by name."""
        fields, slot_bytes = _layout(type(self))
        old = {name: getattr(self, name) for name, _, _ in fields} if hasattr(self, "move") else {}
        block, at = _zeroed(size * slot_bytes), 0
        for name, dtype, itemsize in fields:
            width = size * itemsize
            setattr(self, name, block[at : at + width].view(dtype))
            at += width
        return old

    def _grow(self, done: int) -> None:
        """Double every array (``done``: iterations so far, for the error)."""
        size = 2 * self.move.shape[0]
        if size > MAX_SLOTS:
            raise MemoryError(
                f"the compiled tree is full ({self.move.shape[0]:,} slots) after {done:,} iterations;"
                " lower iterations or seconds"
            )
        try:
            old = self._allocate(size)
        except MemoryError:
            raise MemoryError(
                f"the compiled tree cannot grow to {size:,} slots ({size * self.slot_bytes / 2**30:.1f} GiB) after"
                f" {done:,} iterations: not enough memory; lower iterations or seconds"
            ) from None
        for name, array in old.items():
            getattr(self, name)[: array.shape[0]] = array

    def run(self, budget: Budget, stop: threading.Event | None = None) -> int:
        """Iterate from the root within ``budget`` (at least one iteration); returns iterations done.

        The budget runs in chunks of compiled calls of about :data:`CHUNK_SECONDS` each
        (512 iterations with a clock), so Ctrl-C stops a search within a fraction of a
        second; the calls continue one random stream and one tree, so the chunks do not
        change what is found. The arrays grow (doubling) when a call runs out of slots.
        The root's visits stop at :data:`MAX_VISITS` (the 32-bit counters' limit).
        ``stop``: when set (by another thread, e.g. on Ctrl-C), the search ends after the current call.

        Raises:
            MemoryError: (one line) when the arrays cannot grow any more.
        """
        compiled = kernels()
        iterations, c, limit = budget.iterations, float(budget.c), budget.limit
        deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        done, chunk = 0, FIRST_CHUNK
        while True:
            todo = NO_LIMIT if iterations is None else iterations - done
            todo = min(todo, MAX_VISITS - int(self.visits[self.root]), 512 if deadline is not None else chunk)
            if todo <= 0 or (stop is not None and stop.is_set()):
                break
            if self.info[0] + self.block > self.move.shape[0]:
                self._grow(done)  # only when another call follows: a finished search keeps its arrays
            start = time.perf_counter()
            done += self._iterate(compiled, c, limit, todo)
            took = time.perf_counter() - start
            if deadline is not None and done >= 1 and time.perf_counter() >= deadline:
                break
            if took < CHUNK_SECONDS / 4 and chunk < MAX_CHUNK:
                chunk *= 2
            elif took > CHUNK_SECONDS and chunk > FIRST_CHUNK:
                chunk //= 2
        self.iterations = int(self.visits[self.root])
        self.max_depth = int(self.info[1])
        return done

    def _iterate(self, compiled: Any, c: float, limit: int, todo: int) -> int:
        """One compiled call of at most ``todo`` iterations; the iterations done.

        A tree of a variant of UCT (more arrays in :attr:`_ARRAYS`, its own kernel) overrides this.
        """
        return compiled.uct(
            self.rules, self.prm, self.tab, self.root_state, self.root, c, limit, todo,
            self.move, self.first, self.nlegal, self.nexp, self.visits, self.wins2, self.mean, self.isq,
            self.info, self.scratch, self.roots,
        )  # fmt: skip

    @property
    def slot_bytes(self) -> int:
        """Bytes per slot of this tree's arrays (:data:`SLOT_BYTES` for plain UCT)."""
        return _layout(type(self))[1]

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
        return self.slots * self.slot_bytes / self.nodes()
