"""What a tournament plays and what it keeps: :class:`GameTask`, :class:`GameResult`, a game's seed.

Every game of a tournament is a :class:`GameTask` whose seed is derived from the
tournament's seed and the game's place in the schedule (:func:`game_seed`), never from a
worker id or the order in which games finish. A finished game is a :class:`GameResult`,
written to a results file as one JSON line (:func:`result_to_json`, read back and checked
by :func:`result_from_dict`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..seeding import child_seed


@dataclass(frozen=True)
class GameTask:
    """One game to play.

    Attributes:
        pair: which pairing of the tournament (0 in a match).
        index: the game's number within its pairing, from 0.
        a_first: whether the pairing's first agent (A) moves first.
        seed_key: the path from the tournament's seed to this game's seed: ``(index,)``
            in a match, ``(pair, index)`` in a round robin.
    """

    pair: int
    index: int
    a_first: bool
    seed_key: tuple[int, ...]

    @property
    def key(self) -> tuple[int, int]:
        """``(pair, index)``: where the game sits in the schedule."""
        return (self.pair, self.index)


@dataclass(frozen=True)
class GameResult:
    """One finished game, from the point of view of the pairing's agents A and B.

    Attributes:
        pair: which pairing (0 in a match).
        index: the game's number within its pairing.
        a_first: whether A moved first.
        moves: the moves played, in order.
        winner: ``"a"``, ``"b"``, or ``None`` for a draw.
        returns: ``(A's return, B's return)``: 1 win, 0.5 draw, 0 loss.
        seconds: wall-clock seconds A and B spent choosing moves.
        iterations: iterations (or playouts) A and B ran over the game, as their
            analyses report them (what a clock allowed, in a timed match); ``None`` in
            results files written before they were recorded.
    """

    pair: int
    index: int
    a_first: bool
    moves: tuple[int, ...]
    winner: str | None
    returns: tuple[float, float]
    seconds: tuple[float, float]
    iterations: tuple[int, int] | None = None

    @property
    def plies(self) -> int:
        """Number of moves played."""
        return len(self.moves)

    @property
    def key(self) -> tuple[int, int]:
        """``(pair, index)``: where the game sits in the schedule."""
        return (self.pair, self.index)


def game_seed(root: int | np.random.SeedSequence, key: Sequence[int]) -> np.random.SeedSequence:
    """The seed of the game at ``key`` below the tournament's seed ``root``.

    The same as :func:`mctslab.seeding.child_seed` (this is its name in tournaments):
    ``game_seed(S, (i,))`` equals ``SeedSequence(S).spawn(N)[i]`` for any ``N > i``, so
    adding games to a tournament does not change the games already played.

    Args:
        root: the tournament's seed (an int >= 0 or a ``SeedSequence``).
        key: the spawn path, e.g. ``(index,)`` or ``(pair, index)``.
    """
    return child_seed(root, key)


def result_to_json(result: GameResult) -> str:
    """``result`` as one line of a results file (seconds rounded to microseconds), without the newline."""
    record: dict[str, Any] = {
        "pair": result.pair,
        "index": result.index,
        "a_first": result.a_first,
        "winner": result.winner,
        "returns": list(result.returns),
        "plies": result.plies,
        "seconds": [round(s, 6) for s in result.seconds],
    }
    if result.iterations is not None:
        record["iterations"] = list(result.iterations)
    record["moves"] = list(result.moves)
    return json.dumps(record, separators=(",", ":"))


FIELDS = frozenset({"pair", "index", "a_first", "winner", "returns", "plies", "seconds", "iterations", "moves"})
"""The fields a game line may have (``plies`` and ``iterations`` may be missing, in older files)."""


def _count(value: Any) -> bool:
    """A JSON whole number >= 0 (not a bool, not a float such as 1e400)."""
    return type(value) is int and value >= 0


def _pair_of_numbers(value: Any) -> bool:
    """Two finite JSON numbers >= 0 (returns are 0, 0.5 or 1; seconds a duration)."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(type(v) in (int, float) and math.isfinite(v) and v >= 0 for v in value)
    )


def result_from_dict(d: Any) -> GameResult:
    """The :class:`GameResult` of one parsed results-file line, its fields checked (not replayed).

    Raises:
        ValueError: one line saying what is not a game record about ``d``.
    """
    if not isinstance(d, dict):
        raise ValueError(f"the line is not a game record (a JSON {type(d).__name__}, not an object)")
    try:
        pair, index, a_first, winner = d["pair"], d["index"], d["a_first"], d["winner"]
        returns, seconds, moves = d["returns"], d["seconds"], d["moves"]
    except KeyError as err:
        raise ValueError(f"the line is not a game record (no {err.args[0]!r})") from None
    unknown = sorted(set(d) - FIELDS, key=str)
    if unknown:  # a damaged key (a flipped bit in "iterations") must not pass for an old file's missing field
        raise ValueError(f"the line is not a game record (unknown field {unknown[0]!r})")
    if not (_count(pair) and _count(index) and isinstance(moves, list) and all(map(_count, moves))):
        raise ValueError("the line is not a game record (pair, index and moves must be whole numbers >= 0)")
    if not (_pair_of_numbers(returns) and _pair_of_numbers(seconds)):
        raise ValueError("the line is not a game record (returns and seconds must be pairs of finite numbers >= 0)")
    if "plies" in d and d["plies"] != len(moves):
        raise ValueError(f"the line is not a game record (plies is {d['plies']!r}, its moves number {len(moves)})")
    if not isinstance(a_first, bool) or winner not in ("a", "b", None):
        raise ValueError("the line is not a game record (bad a_first or winner)")
    iterations = d.get("iterations")
    if iterations is not None and not (
        isinstance(iterations, list) and len(iterations) == 2 and all(map(_count, iterations))
    ):
        raise ValueError("the line is not a game record (iterations must be two whole numbers >= 0)")
    return GameResult(
        pair=pair,
        index=index,
        a_first=a_first,
        moves=tuple(moves),
        winner=winner,
        returns=(float(returns[0]), float(returns[1])),
        seconds=(float(seconds[0]), float(seconds[1])),
        iterations=None if iterations is None else (iterations[0], iterations[1]),
    )
