"""Checking arguments: one rule, one wording, everywhere in mctslab.

The rule:

* a value of the **wrong type** raises :class:`TypeError`;
* a value of the right type but **out of range** raises :class:`ValueError`;
* either message names the parameter, says what is allowed and shows the value given,
  e.g. ``games must be an integer >= 1, got 0`` or
  ``games must be an integer >= 1, got '10' (a str)``.

``bool`` is not an integer here (``True`` is not a number of games), although Python
makes it a subclass of ``int``. NumPy integers and floats are accepted. Every checker
returns the value converted to a plain Python ``int``, ``float`` or the option itself,
so callers can write ``self.games = positive_int("games", games)``.

>>> positive_int("games", 10)
10
>>> probability("epsilon", 0.1)
0.1
>>> one_of("seats", "alternate", ("alternate", "a-first", "b-first"))
'alternate'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, TypeVar

__all__ = [
    "finite",
    "integer",
    "non_negative_int",
    "non_negative_number",
    "number",
    "one_of",
    "optional",
    "positive_int",
    "positive_number",
    "probability",
]

T = TypeVar("T")


def _got(value: Any, show_type: bool) -> str:
    return f"got {value!r} (a {type(value).__name__})" if show_type else f"got {value!r}"


def _int_range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"in [{low}, {high}]"
    if low is not None:
        return f">= {low}"
    if high is not None:
        return f"<= {high}"
    return ""


def integer(name: str, value: Any, *, low: int | None = None, high: int | None = None, hint: str = "") -> int:
    """``value`` as an ``int`` if it is an integer in ``[low, high]`` (either bound may be open-ended).

    Args:
        name: the parameter's name, as the caller knows it (it starts the message).
        value: what was passed.
        low: the smallest allowed value, or ``None`` for no lower bound.
        high: the largest allowed value, or ``None`` for no upper bound.
        hint: text added after the allowed range, e.g. ``" (games per task)"``.

    Returns:
        ``int(value)``.

    Raises:
        TypeError: if ``value`` is not an integer (a ``bool`` is not).
        ValueError: if it lies outside ``[low, high]``.
    """
    allowed = " ".join(filter(None, ("an integer", _int_range(low, high))))
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}{hint}, {_got(value, True)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be {allowed}{hint}, {_got(value, False)}")
    return int(value)


def positive_int(name: str, value: Any, *, hint: str = "") -> int:
    """``value`` as an ``int`` if it is an integer >= 1 (a number of games, iterations, runs...).

    Raises:
        TypeError: if ``value`` is not an integer (a ``bool`` is not).
        ValueError: if it is < 1.
    """
    return integer(name, value, low=1, hint=hint)


def non_negative_int(name: str, value: Any, *, hint: str = "") -> int:
    """``value`` as an ``int`` if it is an integer >= 0 (a count, an index, a seed).

    Raises:
        TypeError: if ``value`` is not an integer (a ``bool`` is not).
        ValueError: if it is < 0.
    """
    return integer(name, value, low=0, hint=hint)


def number(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = False,
    hint: str = "",
) -> float:
    """``value`` as a ``float`` if it is a real number between ``low`` and ``high``.

    NaN is never in range. Infinities are allowed unless a bound excludes them or
    ``finite`` is set (a budget or a constant must be finite: ``seconds=inf`` would search
    forever, ``c=inf`` makes ``inf * 0`` a NaN).

    Args:
        name: the parameter's name (it starts the message).
        value: what was passed.
        low: the lower bound, or ``None`` for none.
        high: the upper bound, or ``None`` for none.
        low_open: exclude ``low`` itself (``> low`` rather than ``>= low``).
        high_open: exclude ``high`` itself.
        finite: also refuse infinities ("a finite number").
        hint: text added after the allowed range, e.g. ``" (a probability)"``.

    Returns:
        ``float(value)``.

    Raises:
        TypeError: if ``value`` is not a real number (a ``bool`` is not).
        ValueError: if it is NaN, infinite with ``finite``, or outside the range.
    """
    kind = "a finite number" if finite else "a number"
    if low is not None and high is not None:
        allowed = f"{kind} in {'(' if low_open else '['}{low!r}, {high!r}{')' if high_open else ']'}"
    elif low is not None:
        allowed = f"{kind} {'>' if low_open else '>='} {low!r}"
    elif high is not None:
        allowed = f"{kind} {'<' if high_open else '<='} {high!r}"
    else:
        allowed = kind
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {allowed}{hint}, {_got(value, True)}")
    try:
        x = float(value)
    except (OverflowError, ValueError):  # e.g. a Fraction or an int too large for a float
        raise ValueError(f"{name} must be {allowed}{hint}, {_got(value, False)}") from None
    below = low is not None and (x <= low if low_open else x < low)
    above = high is not None and (x >= high if high_open else x > high)
    if math.isnan(x) or below or above or (finite and math.isinf(x)):
        raise ValueError(f"{name} must be {allowed}{hint}, {_got(value, False)}")
    return x


def positive_number(name: str, value: Any, *, finite: bool = False, hint: str = "") -> float:
    """``value`` as a ``float`` if it is a real number > 0 (a standard deviation, a time).

    Raises:
        TypeError: if ``value`` is not a real number.
        ValueError: if it is <= 0 or NaN (or infinite, with ``finite``).
    """
    return number(name, value, low=0.0, low_open=True, finite=finite, hint=hint)


def non_negative_number(name: str, value: Any, *, finite: bool = False, hint: str = "") -> float:
    """``value`` as a ``float`` if it is a real number >= 0 (an exploration constant).

    Raises:
        TypeError: if ``value`` is not a real number.
        ValueError: if it is < 0 or NaN (or infinite, with ``finite``).
    """
    return number(name, value, low=0.0, finite=finite, hint=hint)


def finite(name: str, value: Any, *, hint: str = "") -> float:
    """``value`` as a ``float`` if it is a finite real number (not NaN, not infinite).

    Raises:
        TypeError: if ``value`` is not a real number.
        ValueError: if it is NaN or infinite.
    """
    return number(name, value, finite=True, hint=hint)


def optional(check: Any, name: str, value: Any, **options: Any) -> Any:
    """``None``, or ``value`` checked by ``check(name, value, **options)`` (an unset option).

    >>> optional(positive_int, "depth", None) is None
    True
    """
    return None if value is None else check(name, value, **options)


def probability(name: str, value: Any, *, hint: str = "") -> float:
    """``value`` as a ``float`` if it is a real number in [0, 1].

    Raises:
        TypeError: if ``value`` is not a real number.
        ValueError: if it is outside [0, 1] or NaN.
    """
    return number(name, value, low=0.0, high=1.0, hint=hint)


def one_of(name: str, value: T, options: Sequence[T]) -> T:
    """``value`` if it is one of ``options`` (compared with ``==``).

    Args:
        name: the parameter's name.
        value: what was passed.
        options: the allowed values, listed in the message in this order.

    Returns:
        ``value``.

    Raises:
        TypeError: if ``value`` is not of the type of any option (e.g. a number where
            names are expected).
        ValueError: if it has the right type but is none of the options.
    """
    allowed = f"one of {', '.join(repr(o) for o in options)}"
    bool_mismatch = isinstance(value, bool) and not any(isinstance(o, bool) for o in options)
    if bool_mismatch or not any(isinstance(value, type(o)) for o in options):
        raise TypeError(f"{name} must be {allowed}; {_got(value, True)}")
    if value not in options:
        raise ValueError(f"{name} must be {allowed}; {_got(value, False)}")
    return value
