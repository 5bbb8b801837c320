"""Are a student's playouts uniformly random? The statistical test of :func:`.playout_parts.check_simulate`.

:data:`PLAYOUTS` playouts from the empty tic-tac-toe board are played through a game
that records every move (:class:`Recorder`). Two kinds of counts are compared with
exact binomial acceptance ranges:

* **the moves**: at plies 1 to 5 (9, 8, 7, 6 and 5 legal moves; no game ends before
  the 5th move, so every playout makes all five choices) the number of playouts that
  chose the i-th legal move, for every i: 9 + 8 + 7 + 6 + 5 = 35 counts, each
  Binomial(PLAYOUTS, 1/k) under uniform random play;
* **the results**: X wins, O wins and draws, each Binomial(PLAYOUTS, p) with p the
  exact rate of uniformly random play (:func:`mctslab.exact.random_play_odds`).

**False fails.** Each of the 38 counts is accepted within ``[lo, hi]``, the exact
binomial quantiles with at most ``ALPHA / 76`` of probability below ``lo`` and at most
``ALPHA / 76`` above ``hi`` (:func:`acceptance`). A right answer fails only if some
count falls outside its range: by the union bound over the 76 tails, with probability
at most ``ALPHA`` = 1e-4 (whatever the dependence between the counts), assuming its
rng behaves as a random one.

**Slips caught.** With :data:`PLAYOUTS` = 1,000 the ranges of the move counts are
67 to 160 for 9 legal moves (111 expected) and 143 to 261 for 5 (200 expected)
(``tests/test_exercise_parts.py`` computes them): a playout that never plays some
legal move (the off-by-one ``moves[int(rng.random() * (len(moves) - 1))]``), plays one
player's moves in a fixed order, always the first move, or the same playout every time
(an rng re-seeded in the function) has a count of 0, or of 1,000, outside its range:
it fails with probability 1. A playout that plays the first legal move a quarter of the time and otherwise
uniformly (first move with probability 1/3 at 9 moves) passes the first ply's count
with probability 4e-13 (exact binomial, in the tests). Each slip fails with
probability above 99.9%; the tests also play each over 200 seeds (all fail) and a
right playout over 200 seeds (all pass).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from ...exact import random_play_odds
from ...games.base import Game, State
from .runner import Unusable, none_returned

__all__ = ["ALPHA", "PLAYOUTS", "Recorder", "acceptance", "uniformity"]

PLAYOUTS = 1000
"""Playouts from the empty board the uniformity check plays."""

ALPHA = 1e-4
"""Bound on the probability that a right answer fails the uniformity check."""

PLIES = 5
"""Plies every tic-tac-toe playout reaches (no line of three before the 5th move)."""

_CELLS = sum(9 - t for t in range(PLIES)) + 3  # move counts and result counts
RESULTS = ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5))
LABELS = ("X wins", "O wins", "draws")


def _log_pmf(n: int, k: int, p: float) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p) + (n - k) * math.log1p(-p)


@lru_cache(maxsize=64)
def acceptance(n: int, p: float, tail: float) -> tuple[int, int]:
    """The range ``[lo, hi]`` with P(X < lo) <= tail and P(X > hi) <= tail, X ~ Binomial(n, p), widest such.

    Exact: the binomial probabilities are summed from each end.
    """
    pmf = [math.exp(_log_pmf(n, k, p)) for k in range(n + 1)]
    lo, below = 0, 0.0
    while below + pmf[lo] <= tail:
        below += pmf[lo]
        lo += 1
    hi, above = n, 0.0
    while above + pmf[hi] <= tail:
        above += pmf[hi]
        hi -= 1
    return lo, hi


class Recorder:
    """A game that records the moves applied, to read back the line a playout played.

    Every attribute is the wrapped game's, except :meth:`apply`, which also records.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.applied: list[tuple[State, int, State]] = []

    def apply(self, state: State, move: int) -> State:
        after = self.game.apply(state, move)
        self.applied.append((state, move, after))
        return after

    def line(self, start: State, plies: int = 100) -> list[tuple[int, int]]:
        """``(legal moves, index of the move played)`` along the line played from ``start``, then forgets it.

        At most ``plies`` moves are read. When several moves were applied to one position (a
        look-ahead), the last one is the one played.
        """
        after_of = {state: (move, after) for state, move, after in self.applied}
        self.applied.clear()
        out, state = [], start
        while state in after_of and len(out) < plies:
            move, after = after_of.pop(state)
            legal = list(self.game.legal_moves(state))
            out.append((len(legal), legal.index(move) if move in legal else -1))
            state = after
        return out

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.game, name)
        self.__dict__[name] = value  # looked up once: later reads find it without a call
        return value


def uniformity(
    simulate: Callable[[Any, Any, Any], Any], game: Game, node: Any, rng: Any, tick: Callable[[], Any] | None = None
) -> tuple[bool, str, dict]:
    """Play :data:`PLAYOUTS` playouts of ``simulate`` from ``node`` (the empty board); are they uniform?

    Args:
        simulate: the student's ``simulate(game, node, rng)``.
        game: tic-tac-toe.
        node: a node holding the empty board.
        rng: the ``random.Random`` handed to every playout.
        tick: called after each playout (a progress bar's update).

    Returns:
        ``(passed, detail, counts)``: the counts of the moves per ply and of the results.

    Raises:
        Unusable: naming what ``simulate`` returned, when it is not one of the three results.
    """
    recorder = Recorder(game)
    start = node.state
    moves = [[0] * (9 - t) for t in range(PLIES)]
    results = [0, 0, 0]
    for got, line in _playouts(simulate, recorder, node, rng, start):
        pair = _pair(got)
        if pair not in RESULTS:
            none_returned("simulate", got, "from the empty board")
            raise Unusable(
                f"`simulate` returned {got!r} from the empty board: return game.returns(state) at the end of the "
                "playout, (1.0, 0.0), (0.0, 1.0) or (0.5, 0.5)"
            )
        results[RESULTS.index(pair)] += 1
        for t, (k, index) in enumerate(line[:PLIES]):
            if k == 9 - t and index >= 0:
                moves[t][index] += 1
        if tick is not None:
            tick()
    counts = {"moves": moves, "results": results}
    tail = ALPHA / (2 * _CELLS)
    worst = None  # (how far out, text)
    if sum(moves[0]) == PLAYOUTS:  # the moves were seen (the playout uses game.apply)
        for t in range(PLIES):
            k = 9 - t
            lo, hi = acceptance(PLAYOUTS, 1 / k, tail)
            for i, count in enumerate(moves[t]):
                out = max(lo - count, count - hi)
                if out > 0 and (worst is None or out > worst[0]):
                    text = f"at move {t + 1} ({k} legal moves) the {_nth(i + 1)} legal move was played {count} times"
                    worst = (out, f"{text} (uniformly random: {PLAYOUTS / k:.0f}, accepted {lo} to {hi})")
    exact = random_play_odds(game)
    shown = []
    for label, count, p in zip(LABELS, results, exact, strict=True):
        lo, hi = acceptance(PLAYOUTS, p, tail)
        shown.append(f"{label} {count / PLAYOUTS:.3f} (exact {p:.3f})")
        if (count < lo or count > hi) and worst is None:
            worst = (1, f"{label}: {count} (uniformly random: {p * PLAYOUTS:.0f}, accepted {lo} to {hi})")
    if worst is None:
        return True, f"{PLAYOUTS:,} playouts from the empty board: " + ", ".join(shown), counts
    return False, f" ({PLAYOUTS:,} playouts): {worst[1]}; " + ", ".join(shown), counts


def _playouts(simulate: Any, recorder: Recorder, node: Any, rng: Any, start: State) -> Iterator[tuple[Any, Any]]:
    """What each of :data:`PLAYOUTS` playouts of ``simulate`` returned, and the line it played (:meth:`Recorder.line`).

    The grader, which judges a submission in its own process, calls the student's function in the
    submission's kernel (:mod:`mctslab.course.grader.judge`): there the playouts are played in one call.
    """
    many = getattr(getattr(simulate, "function", None), "playouts", None)
    if many is not None:
        yield from many(PLAYOUTS, recorder, node, rng, start, PLIES)
        return
    for _ in range(PLAYOUTS):
        got = simulate(recorder, node, rng)
        yield got, recorder.line(start, PLIES)


def _nth(i: int) -> str:
    return f"{i}{'st' if i == 1 else 'nd' if i == 2 else 'rd' if i == 3 else 'th'}"


def _pair(returns: Any) -> tuple[float, float] | None:
    """``returns`` as two floats (one per player), or None when it is not a pair of numbers."""
    try:
        a, b = returns
        return (float(a), float(b))
    except (TypeError, ValueError):
        return None
