"""Causes that show elsewhere: errors a student's ``except`` swallowed, and a drawn pair passed on as an outcome.

Two slips are seen first where they do no harm of their own, and a check reading only what
it sees there blames the wrong function (issue 40):

* ``try: ... except Exception: pass`` around an iteration hides the error that ended it: the
  root then has fewer visits than iterations, which reads as "the search ignores
  ``iterations``". :class:`Swallowed` runs the search again with a trace hook on the
  student's frames only, and records each exception raised there that never reached the
  check: the function it was raised in, its type and its message.
* ``draw_outcome`` returning the ``(outcome, probability)`` pair of ``game.chance_outcomes``
  instead of the outcome fails later, in ``game.apply`` called from whichever function
  applies it first (``simulate_chance``...). :func:`drawn_pair` reads the move given to the
  game's code in the traceback and names ``draw_outcome`` when it is such a pair.

Both read only the student's frames (:func:`~.student._theirs`), so nothing here blames the
checks' own code.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from ...games import CHANCE
from .student import _theirs
from .watches import active

__all__ = ["Swallowed", "drawn_pair", "swallowed_detail"]

_ANONYMOUS = {"<lambda>", "<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>", "<module>"}


@dataclass
class Swallowed:
    """``with Swallowed() as seen:`` records the exceptions raised in the student's frames during the block.

    Attributes:
        raised: per exception object (by id, first seen first): ``(type name, message, function)``,
            the function the innermost of the student's named functions it passed through.
        escaped: True when an exception left the block (then nothing was swallowed there).
    """

    raised: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    escaped: bool = False

    def __enter__(self) -> Swallowed:
        self.previous = sys.gettrace()
        self.listed = active("swallowed", self._served)
        self.listed.__enter__()
        sys.settrace(self._call)
        return self

    def __exit__(self, kind: Any, *exc: object) -> None:
        sys.settrace(self.previous)
        self.listed.__exit__(None, None, None)
        self.escaped = kind is not None

    def _served(self, raised: Any) -> None:
        """The exceptions a call served from the kernel saw raised in the student's frames (:mod:`.watches`)."""
        for kind, message, name in list(raised)[:1000]:
            self.raised[-1 - len(self.raised)] = (str(kind)[:200], str(message)[:500], str(name)[:200])

    def served(self) -> list[tuple[str, str, str]]:
        """What :meth:`_served` takes on the other side."""
        return list(self.raised.values())

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call" and _theirs(frame.f_code.co_filename):
            return self._local
        return None

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "exception":
            kind, value, _ = arg
            if isinstance(value, Exception) and id(value) not in self.raised:
                name = frame.f_code.co_name
                if name in _ANONYMOUS and frame.f_back is not None:
                    name = frame.f_back.f_code.co_name  # a lambda's error is its caller's
                self.raised[id(value)] = (kind.__name__, str(value), name)
                self._keep = getattr(self, "_keep", []) + [value]  # ids stay unique while the block runs
        return self._local

    def first(self) -> tuple[str, str, str, int] | None:
        """The first exception swallowed: (type name, message, function, how many were), or None."""
        if self.escaped or not self.raised:
            return None
        kind, message, name = next(iter(self.raised.values()))
        return kind, message, name, len(self.raised)


def swallowed_detail(found: tuple[str, str, str, int], iterations: int, visits: int) -> str:
    """The diagnosis of errors an ``except`` swallowed: ``found`` from :meth:`Swallowed.first`."""
    kind, message, name, count = found
    return (
        f"after {iterations} iterations the root has {visits} visits: {count} time{'s' * (count != 1)} your agent "
        f"raised {kind} in `{name}` ({message}), and an `except` in your code swallowed it, so that iteration was "
        f"not counted. Look at `{name}` (remove the `try`/`except` to see the error where it happens)"
    )


def drawn_pair(err: BaseException) -> str | None:
    """The diagnosis when ``err`` was raised in the game's code on a move that is an ``(outcome, probability)`` pair.

    That pair is what ``game.chance_outcomes(state)`` lists; an outcome drawn from it is its
    first item. None when ``err`` was not raised so.
    """
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "apply" and not _theirs(frame.f_code.co_filename):
            game, state = frame.f_locals.get("self"), frame.f_locals.get("state")
            move = next((v for k, v in frame.f_locals.items() if k in ("move", "action", "outcome")), None)
            if isinstance(move, tuple) and len(move) == 2 and _is_outcome_pair(game, state, move):
                return (
                    f"`draw_outcome` returned {move!r}, an (outcome, probability) pair of game.chance_outcomes, "
                    f"and the game was given it as a move ({type(err).__name__} in game.apply): return the "
                    f"outcome alone, the pair's first item ({move[0]!r})"
                )
        tb = tb.tb_next
    return None


def _is_outcome_pair(game: Any, state: Any, move: tuple) -> bool:
    try:
        return game.to_move(state) == CHANCE and tuple(move) in [tuple(p) for p in game.chance_outcomes(state)]
    except Exception:  # noqa: BLE001 - not a game's frame after all
        return False
