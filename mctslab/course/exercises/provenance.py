"""Is it the student's code? Spotting the package's own implementation behind an answer.

An exercise asks for ``ucb1``, ``select``... written by the student. An answer that is the
package's implementation, a subclass of it or a thin wrapper around it would pass every
check while teaching nothing, so the checks ask :func:`package_parts_called` which of the
package's reference implementations ran while the answer was computed, and say so
plainly instead of passing. The game's own rules (``game.apply``, ``game.legal_moves``),
:class:`~mctslab.course.exercises.TreeNode` and the standard library are not references:
students are meant to use them.

How: :func:`sys.setprofile` sees every Python function call; a call whose code object is
one of :func:`references`' is recorded. Nothing is patched, so an answer that imported a
reference under another name (``from mctslab.ucb import ucb1 as u``) is seen too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import CodeType, FunctionType
from typing import Any

from .watches import active

__all__ = ["references", "is_package_agent", "package_parts_called", "watching"]


def _codes(*functions: Any) -> frozenset[CodeType]:
    out = set()
    for f in functions:
        f = getattr(f, "fget", f)  # a property's getter
        f = getattr(f, "__func__", f)  # a bound or class method's function
        while hasattr(f, "__wrapped__"):
            f = f.__wrapped__
        if isinstance(f, FunctionType):
            out.add(f.__code__)
    return frozenset(out)


def _references() -> dict[str, frozenset[CodeType]]:
    from ...agents.engines import PythonEngine
    from ...agents.node import Node
    from ...agents.playouts import policy_rollout
    from ...agents.rules import UCB1, SelectionRule, best_child_by, descend
    from ...agents.uct import UCT
    from ...games.base import Game
    from ...ucb import exploration, ucb1

    rollouts = [Game.rollout]
    from ...games.registry import GAMES

    for entry in GAMES.values():  # each game's own (faster) playout is a reference too
        method = getattr(entry.factory, "rollout", None)
        if method is not None:
            rollouts.append(method)
    return {
        "ucb1": _codes(ucb1, exploration, UCB1.value, UCB1.exploration),
        "select": _codes(
            UCT.select,
            UCT.select_child,
            UCT.selection,
            best_child_by,
            descend,
            UCB1.value,
            UCB1.descend,
            SelectionRule.choose,
            SelectionRule.descend,
        ),  # fmt: skip
        "expand": _codes(UCT.expand, UCT.pop_untried),
        "simulate": _codes(*rollouts, UCT.simulate, policy_rollout),
        "backpropagate": _codes(UCT.backpropagate, Node.add),
        "search": _codes(UCT.search, UCT.iterate, UCT.analyse, UCT.best_child, PythonEngine.run),
    }


_CACHE: dict[str, frozenset[CodeType]] = {}


def references() -> dict[str, frozenset[CodeType]]:
    """Part name -> the code objects of the package's implementations of that part."""
    if not _CACHE:
        _CACHE.update(_references())
    return dict(_CACHE)


@contextmanager
def watching(parts: tuple[str, ...] | None = None) -> Iterator[set[str]]:
    """Record, in the yielded set, the parts whose reference implementation runs inside the block.

    Args:
        parts: which parts to watch (default: all of :func:`references`).
    """
    refs = references()
    watched = {code: part for part, codes in refs.items() if parts is None or part in parts for code in codes}
    seen: set[str] = set()
    previous = sys.getprofile()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            part = watched.get(frame.f_code)
            if part is not None:
                seen.add(part)

    def served(parts: Any) -> None:  # what the kernel's watch saw, in a call served from it (:mod:`.watches`)
        seen.update(str(p) for p in parts if str(p) in watched.values())

    sys.setprofile(profile)
    try:
        with active("package", served):
            yield seen
    finally:
        sys.setprofile(previous)


def package_parts_called(function: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, set[str]]:
    """Call ``function(*args, **kwargs)``; return its result and the reference parts that ran in it.

    Exceptions from ``function`` propagate (the profile hook is removed first).
    """
    with watching() as seen:
        result = function(*args, **kwargs)
    return result, seen


def is_package_agent(agent: Any) -> bool:
    """True when ``agent`` is one of the package's agents, or an instance of a subclass of one.

    An agent served from a submission's kernel (:mod:`mctslab.course.grader.proxy`) is known by what
    the kernel found there, its class's ``package_agent``.
    """
    from ...agents.base import Agent

    return isinstance(agent, Agent) or getattr(type(agent), "package_agent", None) is True
