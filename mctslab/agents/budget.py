"""Monte Carlo agents held to a fixed number of playouts per decision, for fair comparisons.

Flat and windowed Monte Carlo take their budget as playouts *per move and round*, so
what a decision costs depends on how many moves there are and on the schedule: with
100 playouts, flat Monte Carlo spends 900 on the empty tic-tac-toe board, Racioppo 2020's
window 3 spends 1,500. UCT takes iterations, one playout each. To compare them at
*the same budget*, :class:`FixedBudget` picks, at every decision, the largest number
of playouts per move and round whose total stays within ``budget`` playouts, then
decides exactly as the library's agent with that number does.

The schedules (:data:`SCHEDULES`):

* ``flat``: every move gets the same playouts (Racioppo 2020's pure Monte Carlo);
* ``window``: Racioppo 2020's windowed search: all moves, then the best 4, then the best 2,
  each round starting from fresh counts;
* ``halving``: sequential halving's schedule (Karnin, Koren and Somekh 2013): halve
  the candidates until two are left, keeping the evidence already gathered.

Used by notebooks 03 and 05 and by :mod:`mctslab.course.figures`; named in tournaments as
``fixedbudget:kind=window,budget=450`` and shown in tables as ``window@450``.
"""

from __future__ import annotations

import math

from ..games.base import Game, State
from ..games.kinds import TWO_PLAYERS, WITH_CHANCE
from ..seeding import Seed
from .base import Agent, Analysis, Param, check_positive_int, legal_or_raise
from .montecarlo import ENGINE, WindowedMonteCarlo
from .registry import register_agent

SCHEDULES: dict[str, str] = {
    "flat": "pure Monte Carlo: the same playouts for every move",
    "window": "Racioppo 2020's window: all moves, the best 4, the best 2, fresh counts each round",
    "halving": "sequential halving's schedule: halve the candidates until two are left, keeping the counts",
}
"""The schedules :class:`FixedBudget` knows, with what each does."""


def schedule(kind: str, moves: int) -> tuple[int, tuple[int, ...] | str, bool]:
    """The windowed Monte Carlo settings ``(window, keep, reuse)`` of a schedule for ``moves`` legal moves.

    Raises:
        ValueError: for an unknown schedule (the message lists them).
    """
    if kind == "flat":
        return 1, (), False
    if kind == "window":
        return 3, (4, 2), False
    if kind == "halving":
        return max(1, math.ceil(math.log2(moves))), "half", True
    raise ValueError(f"unknown schedule {kind!r}; known: {', '.join(SCHEDULES)}")


def round_sizes(kind: str, moves: int) -> tuple[int, ...]:
    """How many moves each round samples, e.g. ``(9, 4, 2)`` for Racioppo 2020's window on 9 moves.

    The windowed agent's own rule (:meth:`WindowedMonteCarlo.round_sizes`) with the
    schedule's settings.
    """
    window, keep, reuse = schedule(kind, moves)
    return WindowedMonteCarlo(1, window=window, keep=keep, reuse=reuse, seed=0).round_sizes(moves)


def check_kind(name: str, kind: str) -> str:
    """A schedule of :data:`SCHEDULES` (ValueError naming them otherwise)."""
    if kind not in SCHEDULES:
        raise ValueError(f"unknown schedule {kind!r} for {name}; known: {', '.join(SCHEDULES)}")
    return kind


@register_agent
class FixedBudget(Agent):
    """Flat, windowed or halving Monte Carlo spending at most ``budget`` playouts per decision.

    At each decision with ``k`` legal moves, the playouts per move and round are
    ``budget // sum(round_sizes(kind, k))`` (at least 1), and the move is the one
    :class:`~mctslab.agents.montecarlo.WindowedMonteCarlo` with those settings chooses,
    drawing from this agent's own random stream.

    Args:
        kind: a schedule of :data:`SCHEDULES`: ``"flat"``, ``"window"`` or ``"halving"``.
        budget: playouts per decision, >= 1 (a decision with more moves than playouts
            gives every move one playout, and so spends more).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
        engine: ``"python"``, or ``"compiled"``: the playouts run on :mod:`mctslab.engine` (as
            :class:`~mctslab.agents.montecarlo.WindowedMonteCarlo`'s ``engine``: the same decisions'
            distribution, other random numbers).

    Raises:
        ValueError, TypeError: for an unknown schedule or a budget < 1.
    """

    name = "fixedbudget"
    handles = frozenset({TWO_PLAYERS, WITH_CHANCE})  # as the flat and windowed Monte Carlo it runs
    experiment = True
    params = (
        Param("kind", str, "flat", check_kind, "schedule: flat, window or halving", show="always"),
        Param("budget", int, 1000, check_positive_int, "playouts per decision", show="always"),
        ENGINE,
    )

    def __init__(self, kind: str = "flat", budget: int = 1000, seed: Seed = None, engine: str = "python") -> None:
        super().__init__(seed)
        self.set_params(kind=kind, budget=budget, engine=engine)

    @property
    def label(self) -> str:
        """The display name in tables and plots: ``"window@450"`` (a label, not a spec)."""
        return f"{self.kind}@{self.budget}"

    def playouts_per_move(self, moves: int) -> int:
        """Playouts per move and round for a decision among ``moves`` legal moves."""
        return max(1, self.budget // sum(round_sizes(self.kind, moves)))

    def analyse(self, game: Game, state: State) -> Analysis:
        """Decide as the windowed agent with this decision's playouts does, from this agent's stream."""
        k = len(legal_or_raise(game, state))
        window, keep, reuse = schedule(self.kind, k)
        inner = WindowedMonteCarlo(
            self.playouts_per_move(k), window=window, keep=keep, reuse=reuse, seed=self.rng, engine=self.engine
        )
        return inner.analyse(game, state)
