"""Reading a student's agent and tree: its budget, its nodes, and where in its code an error was raised."""

from __future__ import annotations

import math
import operator
import sys
import sysconfig
import time
import traceback
from collections import Counter, deque
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from .limits import cpu_seconds
from .watches import active

_PACKAGE = str(Path(__file__).resolve().parents[2])
_NOT_THEIRS = tuple(
    {_PACKAGE} | {str(Path(sysconfig.get_paths()[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
)
_ANONYMOUS = {"<lambda>", "<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>", "<module>", "__init__"}


@lru_cache(maxsize=4096)
def _theirs(filename: str) -> bool:
    """True for code the student wrote: not mctslab, not the standard library, not an installed package."""
    if filename.startswith("<") and not filename.startswith("<ipython"):
        return False  # frozen or generated code
    return not str(Path(filename).resolve()).startswith(_NOT_THEIRS)


def _function(err: BaseException, named: bool = False) -> str | None:
    """The innermost function of the student's that was running when ``err`` was raised (None if none).

    ``named``: the innermost one with a name (a lambda's or a comprehension's caller), for a
    part to blame.

    For code its CPU limit stopped, the function the limit's ticks found running most often
    (:attr:`~.limits.TimeLimitExceeded.samples`): where the time went, not the line that
    happened to run when the time ran out (a slow ``select`` is blamed, not the playout it
    had just started).
    """
    busiest = _busiest(getattr(err, "samples", None) or [], named)
    if busiest is not None:
        return busiest
    frames = traceback.extract_tb(err.__traceback__)
    theirs = [f for f in frames if _theirs(f.filename) and f.name != "<module>"]
    if named:
        theirs = [f for f in theirs if f.name not in _ANONYMOUS] or theirs
    return theirs[-1].name if theirs else None  # never a checker's own function


def _busiest(samples: list[tuple[tuple[str, str], ...]], named: bool) -> str | None:
    """The student's function innermost in the most of ``samples`` (stacks of ``(file, function)``); None if none."""
    counts: Counter[str] = Counter()
    for stack in samples:
        theirs = [name for filename, name in stack if name != "<module>" and _theirs(filename)]
        if named:
            theirs = [name for name in theirs if name not in _ANONYMOUS] or theirs
        if theirs:
            counts[theirs[0]] += 1
    return max(counts, key=counts.__getitem__) if counts else None  # the first found of a tie


def _recursion(err: BaseException) -> tuple[str, str] | None:
    """For a ``RecursionError`` while the student's agent ran: (the function that recursed, what to tell); else None.

    The function that recursed is the student's function with the most frames in the
    traceback (the innermost one is usually a helper it called at the bottom, such as
    ``expand``). When none of the traceback's frames is known as the student's (code run
    through ``exec``), the agent is still the one that recursed, never the check. The limit
    named is the one in force: the checks restore the limit they found (:mod:`.isolation`),
    so a fresh kernel's is Python's default, 1,000.
    """
    if not isinstance(err, RecursionError):
        return None
    frames = [f.name for f in traceback.extract_tb(err.__traceback__) if _theirs(f.filename) and f.name != "<module>"]
    loop = "write that repetition as a loop (`for _ in range(self.iterations)`, `while node.children`)"
    limit = sys.getrecursionlimit()
    name = max(dict.fromkeys(frames), key=frames.count) if frames else None  # the most frames; the outermost of a tie
    if name is not None and frames.count(name) > 1:
        return name, (
            f"your agent raised RecursionError: `{name}` calls itself ({frames.count(name)} calls deep when "
            f"Python's recursion limit, {limit}, was reached). A search that recurses once per iteration, or a "
            f"descent once per level, fails at large budgets in a fresh kernel: {loop}"
        )
    called = f" (in code called from your `{frames[-1]}`)" if frames else ""
    return frames[-1] if frames else "search", (
        f"your agent raised RecursionError: Python's recursion limit, {limit}, was reached while it ran{called}. "
        f"Does a function of yours call itself once per iteration, or once per level of the tree? {loop[0].upper()}"
        f"{loop[1:]}"
    )


def _where(err: BaseException) -> str:
    """`` in `name` `` for the innermost function outside mctslab that was running (the student's)."""
    name = _function(err)
    return f" in `{name}`" if name else ""


class _NoneReturns:
    """Record, in order, the student's named functions that returned ``None`` (a forgotten ``return``?).

    A profile hook (:func:`sys.setprofile`) sees every return; only the student's own code
    (:func:`_theirs`) is recorded, lambdas and comprehensions left out. A frame left by an
    exception also reports a return of ``None``: :meth:`culprit` leaves out the frames of
    the exception's traceback.
    """

    def __init__(self) -> None:
        self.returns: deque[tuple[str, Any]] = deque(maxlen=64)

    def __enter__(self) -> _NoneReturns:
        self.previous = sys.getprofile()
        self.listed = active("nones", self._served)
        self.listed.__enter__()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self.previous)
        self.listed.__exit__(None, None, None)

    def _served(self, names: Any) -> None:
        """The functions a call served from the kernel saw return None (:mod:`.watches`), none of them unwound."""
        for name in list(names)[-64:]:
            self.returns.append((str(name)[:200], None))

    def served(self, err: BaseException | None) -> list[str]:
        """What :meth:`_served` takes on the other side: the names recorded, but those ``err`` unwound."""
        unwound, tb = set(), err.__traceback__ if err is not None else None
        while tb is not None:
            unwound.add(id(tb.tb_frame))
            tb = tb.tb_next
        return [name for name, frame in self.returns if frame is None or id(frame) not in unwound]

    def _hook(self, frame: Any, event: str, arg: Any) -> None:
        if event == "return" and arg is None and frame.f_code.co_name not in _ANONYMOUS:
            if _theirs(frame.f_code.co_filename):
                self.returns.append((frame.f_code.co_name, frame))

    def culprit(self, err: BaseException | None) -> str | None:
        """The last function that returned ``None`` without raising ``err`` (None if there is none)."""
        unwound, tb = set(), err.__traceback__ if err is not None else None
        while tb is not None:
            unwound.add(id(tb.tb_frame))
            tb = tb.tb_next
        names = [name for name, frame in self.returns if frame is None or id(frame) not in unwound]
        return names[-1] if names else None


_HANG_HINTS = (
    (("backprop", "update", "propag", "backup"), "does its loop move up to `node.parent` each time round, and stop "
     "after the root?"),
    (("select", "descend", "tree_policy", "traverse"), "does its loop move down to a child each time round, and "
     "stop at a node with untried moves or none?"),
    (("simulat", "rollout", "playout"), "does the playout apply a move each time round, until the game is over?"),
    (("expand", "grow"), "does it remove the move it expands from the untried moves?"),
)  # fmt: skip


def _counted(err: BaseException, iterations: int | None) -> str | None:
    """A counter of the student's, in the frames ``err`` stopped, far past the budget: a budget of its own."""
    least = max(1000, 100 * (iterations or 1))
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if _theirs(frame.f_code.co_filename):
            for name, value in frame.f_locals.items():
                if type(value) is int and value >= least:
                    return f"`{name}` in `{frame.f_code.co_name}` had reached {value}"
        tb = tb.tb_next
    return None


STAMP_SECONDS = 0.01
"""How often (wall seconds, at most) :class:`_Playouts` reads the CPU clock while playouts are being counted."""


class _Playouts:
    """Count the playouts a search finishes, by the game's ``returns`` calls (the check's own instrumentation).

    ``with _Playouts(game) as counted:`` wraps ``returns`` on that game object for the
    block, then restores it; ``counted.n`` is the number of calls. A student's playout ends
    with the result of the finished game, so the count says how many iterations the search
    ran, however fast the machine: a count above the budget proves a budget of its own.
    """

    def __init__(self, game: Any) -> None:
        self.game = game
        self.n = 0
        self.last = 0.0  # the CPU time (:func:`~.limits.cpu_seconds`) of the last playout counted, to 10 ms

    def __enter__(self) -> _Playouts:
        returns = self.game.returns
        read = [0.0]  # the wall clock at the last reading of the CPU clock

        def counted(state: Any) -> Any:
            self.n += 1
            # The CPU clock is a system call (0.6 us, 8% of a tic-tac-toe search's time when read at every
            # playout); the monotonic clock is not. Read it once 10 ms of wall time have passed: `last` is
            # then at most 10 ms of CPU time early, and a CPU second never passes unread.
            now = time.monotonic()
            if now - read[0] >= STAMP_SECONDS:
                read[0] = now
                self.last = cpu_seconds()
            return returns(state)

        try:
            self.game.returns = counted
            self.patched = True
        except (AttributeError, TypeError):  # a game that takes no attribute: nothing counted
            self.patched = False
        return self

    def __exit__(self, *exc: object) -> None:
        if self.patched:
            del self.game.returns


def _hang_hint(
    function: str | None, iterations: int | None, err: BaseException | None = None, playouts: int | None = None
) -> str:
    """What to look at when the student's ``function`` did not return in time (at ``iterations``, if known).

    ``playouts``: the playouts the call had finished when stopped (:class:`_Playouts`); more
    than ``iterations`` names a budget of the agent's own, whatever the machine's speed.

    When only the wall-clock backstop stopped it (``err.clock == "wall"``), the code was
    waiting rather than computing: the hint says so instead of suspecting a loop.
    """
    if getattr(err, "clock", None) == "wall":
        where = f" in `{function}`" if function else ""
        return f"it was waiting, not computing, when stopped{where}: look for `time.sleep`, `input()` or a lock"
    slow = _too_slow(err, iterations, playouts)
    if slow is not None:
        return slow
    budget = (
        f"does the search run `self.iterations` iterations (here {iterations}), not a number of its own?"
        if iterations is not None
        else "is there a loop that never ends?"
    )
    if playouts is not None and iterations is not None and playouts > iterations:
        return (
            f"{budget} When stopped, it had finished {playouts} playouts (counted by the check), more than the "
            f"{iterations} it was given"
        )
    counted = _counted(err, iterations) if err is not None else None
    if counted is not None:
        return f"{budget} When stopped, {counted}"
    if function is None:
        return budget
    for words, hint in _HANG_HINTS:
        if any(w in function.lower() for w in words):
            return f"it was running `{function}` when stopped: {hint} Or {budget}"
    return f"it was running `{function}` when stopped: is there a loop in it that never ends? Or {budget}"


def _too_slow(err: BaseException | None, iterations: int | None, playouts: int | None) -> str | None:
    """Says "too slow" when the search was still finishing playouts when stopped, within its budget; else None.

    ``err.stalled`` (set by the caller from :class:`_Playouts`): the CPU seconds since the last
    playout when the limit ran out. A loop that never ends stops finishing playouts; a slow
    agent finishes its last one shortly before the limit (within a fifth of it, or 0.5 s).
    """
    stalled = getattr(err, "stalled", None)
    seconds = getattr(err, "seconds", None)
    if not playouts or iterations is None or playouts > iterations or stalled is None or not seconds:
        return None
    if stalled > max(0.5, seconds / 5):
        return None
    return (
        f"too slow: in {err.within} (measured: the CPU time of the call) it finished {playouts} of its {iterations} "
        f"iterations (the playouts, counted by the check), the last {stalled:.2f} s before it was stopped: "
        f"{1000 * seconds / playouts:.1f} ms of CPU per iteration, where a correct agent takes about 0.01 ms "
        "in tic-tac-toe. Does each iteration do work that grows with the tree (a walk over every node, a copy, "
        "a search in a list)?"
    )


@contextmanager
def _budget(agent: Any, iterations: int) -> Iterator[None]:
    """Set the agent's ``iterations`` for the duration, if it has one."""
    if not hasattr(agent, "iterations"):
        yield
        return
    saved = agent.iterations
    agent.iterations = iterations
    try:
        yield
    finally:
        agent.iterations = saved


def _nodes(root: Any) -> Iterator[Any]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def _mean(node: Any) -> float:
    return node.wins / node.visits if node.visits else math.nan


class _Skip(Exception):
    """A check that cannot run for this agent (e.g. no search method)."""


def _as_int(move: Any) -> Any:
    """``move`` as an int when it is an integer of any kind (a NumPy integer too), else as it is."""
    if isinstance(move, bool):
        return move
    try:
        return operator.index(move)
    except TypeError:
        return move


def _depth(root: Any) -> int:
    best, stack = 0, [(root, 0)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        stack.extend((ch, d + 1) for ch in node.children)
    return best
