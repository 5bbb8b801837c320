"""Strength in games: each agent against a fixed opponent, against the budget and over UCT's ``c``.

The experiments of notebook 05 (and section 4 of notebook 03): seeded matches with seats
alternating, whose results are :class:`~mctslab.tournament.Outcomes` with Wilson
intervals. The default opponent is perfect play (:data:`PERFECT`), which makes exactly
minimax's moves from a cached enumeration, so thousands of games cost seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from ..agents import UCT
from ..exact import PerfectPlayer
from ..games.base import Game
from ..tournament import AgentFactory, Outcomes, game_seed, play_match
from ..tournament.factory import AgentLike, name_of, resolve
from .budget import FixedBudget

PERFECT = AgentFactory(PerfectPlayer)
"""Perfect play as a tournament agent: minimax's choices, from a cached enumeration (spec ``"perfect"``)."""


# -- strength in games -------------------------------------------------------------------
def budget_agent(kind: str, budget: int) -> str | AgentFactory:
    """A tournament agent of ``kind`` spending ``budget`` playouts per decision.

    ``kind`` is ``"uct"`` (``uct:iterations=budget``) or a :class:`FixedBudget` schedule
    (``"flat"``, ``"window"``, ``"halving"``).
    """
    if kind == "uct":
        return f"uct:iterations={budget}"
    FixedBudget(kind, budget)  # check the name here, not in a worker
    return AgentFactory(FixedBudget, (("kind", kind), ("budget", budget)))


@dataclass(frozen=True)
class Curve:
    """An agent's results against one opponent at several budgets (seats alternating).

    Attributes:
        label: the legend's text.
        xs: the budgets (playouts per decision).
        outcomes: the agent's wins, draws and losses at each budget.
        opponent: the opponent's spec.
    """

    label: str
    xs: tuple[int, ...]
    outcomes: tuple[Outcomes, ...]
    opponent: str

    def rates(self, rate: str = "score") -> np.ndarray:
        """``"score"`` (wins + draws / 2), ``"win"`` or ``"loss"`` rate at each budget."""
        return np.array([o.rate_and_ci(rate)[0] for o in self.outcomes])

    def bands(self, rate: str = "score") -> np.ndarray:
        """Wilson 95% intervals of :meth:`rates`, shape ``(len(xs), 2)``."""
        return np.array([o.rate_and_ci(rate)[1] for o in self.outcomes])


def strength_curves(
    game: str | Game,
    kinds: Mapping[str, str],
    budgets: Sequence[int],
    *,
    opponent: AgentLike = PERFECT,
    games: int = 100,
    seed: int = 0,
    executor: Executor | None = None,
    workers: int | None = 1,
) -> dict[str, Curve]:
    """Each agent kind against ``opponent`` at each budget, seats alternating.

    Args:
        game: the game or its spec.
        kinds: label -> kind (see :func:`budget_agent`), e.g. ``{"UCT": "uct"}``.
        budgets: playouts per decision.
        opponent: the fixed opponent (perfect play by default: :data:`PERFECT`).
        games: games per point, >= 1.
        seed: the seed; point ``(kind, budget)`` plays a match seeded by its place in the grid.
        executor, workers: where the games are played (see :func:`mctslab.play_match`).

    Returns:
        Label -> :class:`Curve`.
    """
    curves = {}
    for k, (label, kind) in enumerate(kinds.items()):
        outcomes = []
        for i, budget in enumerate(budgets):
            match = play_match(
                game,
                budget_agent(kind, budget),
                opponent,
                games,
                game_seed(seed, (k, i)),
                executor=executor,
                workers=workers,
                progress=False,
            )
            outcomes.append(match.outcomes)
        curves[label] = Curve(label, tuple(budgets), tuple(outcomes), name_of(resolve(opponent)))
    return curves


@dataclass(frozen=True)
class Grid:
    """UCT's results over exploration constants and budgets.

    Attributes:
        cs: the exploration constants (rows).
        budgets: the iterations per move (columns).
        outcomes: ``outcomes[i][j]``: UCT's results with ``cs[i]`` and ``budgets[j]``.
        opponent: the opponent's spec.
    """

    cs: tuple[float, ...]
    budgets: tuple[int, ...]
    outcomes: tuple[tuple[Outcomes, ...], ...]
    opponent: str

    def scores(self) -> np.ndarray:
        """UCT's score (wins + draws / 2) per cell, shape ``(len(cs), len(budgets))``."""
        return np.array([[o.score for o in row] for row in self.outcomes])

    def losses(self) -> np.ndarray:
        """UCT's loss rate per cell."""
        return np.array([[o.loss_rate for o in row] for row in self.outcomes])


def uct_grid(
    game: str | Game,
    cs: Sequence[float],
    budgets: Sequence[int],
    *,
    opponent: AgentLike = PERFECT,
    games: int = 40,
    seed: int = 0,
    executor: Executor | None = None,
    workers: int | None = 1,
) -> Grid:
    """UCT with each ``c`` and each budget against ``opponent`` (perfect play by default), seats alternating."""
    rows = []
    for i, c in enumerate(cs):
        row = []
        for j, budget in enumerate(budgets):
            spec = UCT(iterations=budget, c=c).spec
            match = play_match(
                game,
                spec,
                opponent,
                games,
                game_seed(seed, (i, j)),
                executor=executor,
                workers=workers,
                progress=False,
            )
            row.append(match.outcomes)
        rows.append(tuple(row))
    return Grid(tuple(float(c) for c in cs), tuple(budgets), tuple(rows), name_of(resolve(opponent)))
