"""The checks of the search agents' shared parameters: exploration constant, time budget, final choice.

Each takes ``(name, value)`` as :class:`~mctslab.agents.base.Param` calls it and returns the
value to store, or raises a one-line TypeError (wrong type) or ValueError (out of range).
"""

from __future__ import annotations

from functools import cache

from ..validation import non_negative_number, optional, positive_number

MAX_SECONDS = 86_400.0
"""The longest time budget per move: one day (``seconds=1e300`` would search for ever)."""

__all__ = ["check_c", "check_final", "check_seconds", "overridden"]


def check_c(name: str, c: float) -> float:
    """The exploration constant as a finite float >= 0 (TypeError for a non-number, ValueError otherwise)."""
    return non_negative_number(name, c, finite=True, hint=" (the exploration constant)")


def check_seconds(name: str, seconds: float | None) -> float | None:
    """``None``, or a time budget in (0, :data:`MAX_SECONDS`] seconds (TypeError if not a number, else ValueError)."""
    seconds = optional(positive_number, name, seconds, finite=True, hint=" (seconds per move)")
    if seconds is not None and seconds > MAX_SECONDS:
        raise ValueError(f"{name} must be at most {MAX_SECONDS:g} (one day per move), got {seconds!r}")
    return seconds


def check_final(name: str, final: str) -> str:
    """``"visits"`` or ``"mean"`` (ValueError otherwise)."""
    if final not in ("visits", "mean"):
        raise ValueError(f"{name} must be 'visits' or 'mean', got {final!r}")
    return final


@cache
def overridden(cls: type, base: type, parts: tuple[str, ...]) -> tuple[str, ...]:
    """The names in ``parts`` that ``cls`` defines otherwise than ``base`` (a compiled agent's check, every move).

    Cached per class: a class's methods are set when it is made (a test that patches one
    makes a new class).
    """
    return tuple(name for name in parts if getattr(cls, name) is not getattr(base, name))
