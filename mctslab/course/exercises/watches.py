"""The checks' in-process watches, made visible to a call served from another process.

Three watches of the checks see the student's code run in their own process through a profile
or trace hook: :func:`~.provenance.watching` (the package's code), :class:`~.student._NoneReturns`
(a forgotten ``return``) and :class:`~.causes.Swallowed` (an error an ``except`` swallowed).
When the grader judges a part (:mod:`mctslab.course.grader.judge`), the student's code runs in
the submission's kernel instead, where no hook of the grader's sees it. So each watch, while it
runs, is listed here by its name; a call served from the kernel asks the kernel to run the same
watches around the student's code (:func:`names`), and hands what they saw back to the watches
here (:func:`merge`). In a notebook nothing is served from elsewhere and this list is only read.

What the kernel's watches report is diagnosis (which function, which part of the package), as
everything else it sends: a check reading it can only fail, never pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ACTIVE", "Draws", "active", "global_draws", "merge", "names"]

ACTIVE: list[tuple[str, Callable[[Any], None]]] = []
"""The watches running now, innermost last: (name, the function that takes what a served call's watch saw)."""


@contextmanager
def active(name: str, take: Callable[[Any], None]) -> Iterator[None]:
    """List the watch ``name`` while the block runs; ``take(seen)`` receives what a served call's watch saw."""
    entry = (name, take)
    ACTIVE.append(entry)
    try:
        yield
    finally:
        ACTIVE.remove(entry)


def names() -> list[str]:
    """The names of the watches running now, each once, in a fixed order."""
    return sorted({name for name, _ in ACTIVE})


def merge(seen: dict[str, Any]) -> None:
    """Hand each running watch what the served call's watch of its name saw."""
    for name, take in list(ACTIVE):
        if name in seen:
            take(seen[name])


class Draws:
    """What :func:`global_draws` saw: ``drew`` is True once the block drew from ``random``'s own generator."""

    def __init__(self) -> None:
        self.drew = False

    def take(self, drew: Any) -> None:
        self.drew = self.drew or drew is True


@contextmanager
def global_draws() -> Iterator[Draws]:
    """Whether the block drew from the ``random`` module's own generator (whose state it leaves as it was).

    In this process, by the generator's state; in a call served from the kernel (the grader's
    judge), by what the kernel says of its own (:func:`merge` with ``{"drew": True}``).
    """
    saved = random.getstate()
    seen = Draws()
    try:
        with active("drew", seen.take):
            yield seen
    finally:
        if random.getstate() != saved:
            seen.drew = True
        random.setstate(saved)
