"""Reading a student's agent and tree: its budget, its nodes, and where in its code an error was raised."""

from __future__ import annotations

import math
import operator
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_PACKAGE = str(Path(__file__).resolve().parents[2])


def _where(err: BaseException) -> str:
    """`` in `name` `` for the innermost function outside mctslab that was running (the student's)."""
    frames = traceback.extract_tb(err.__traceback__)
    theirs = [f for f in frames if not str(Path(f.filename).resolve()).startswith(_PACKAGE)]
    frame = (theirs or frames)[-1] if frames else None
    return f" in `{frame.name}`" if frame is not None and frame.name != "<module>" else ""


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
