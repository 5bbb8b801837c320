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
from tqdm.auto import tqdm

from ...agents import UCT, FixedBudget, canonical_spec
from ...games.base import Game
from ...tournament import Outcomes, game_seed, play_match
from ...tournament.factory import AgentLike
from .curves import Curve

PERFECT = "perfect"
"""Perfect play as a tournament agent: minimax's choices, from a cached enumeration
(:class:`~mctslab.agents.PerfectPlayer`)."""


# -- strength in games -------------------------------------------------------------------
def _outcomes(
    game: str | Game, spec: str, opponent: AgentLike, games: int, seed, executor: Executor | None, workers: int | None
) -> Outcomes:
    """One point of a curve or grid: ``spec`` against ``opponent``, seats alternating, no progress bar."""
    return play_match(game, spec, opponent, games, seed, executor=executor, workers=workers, progress=False).outcomes


def budget_agent(kind: str, budget: int, engine: str = "python") -> str:
    """The spec of an agent of ``kind`` spending ``budget`` playouts per decision.

    ``kind`` is ``"uct"`` (``uct:iterations=budget``), ``"uct-compiled"`` (the same on the
    compiled engine, :mod:`mctslab.engine`: ``uct:iterations=budget,engine=compiled``) or a
    :class:`~mctslab.agents.FixedBudget` schedule (``"flat"``, ``"window"``, ``"halving"``:
    ``fixedbudget:kind=...,budget=...``, shown in tables as ``flat@450``). ``engine`` is the
    engine of every kind (``"compiled"``: the same players, faster; ``"uct-compiled"`` is always
    compiled).

    Raises:
        ValueError, TypeError: for an unknown kind or engine, or a budget < 1.
    """
    if kind == "uct":
        return UCT(iterations=budget, engine=engine).spec
    if kind == "uct-compiled":
        return UCT(iterations=budget, engine="compiled").spec
    return FixedBudget(kind, budget, engine=engine).spec


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
    engine: str = "python",
    progress: bool = False,
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
        engine: every agent's engine (see :func:`budget_agent`): ``"compiled"`` plays the same
            players faster, with other random numbers.
        progress: show a ``tqdm`` progress bar counting the curves' points (matches).

    Returns:
        Label -> :class:`Curve`.
    """
    curves = {}
    bar = tqdm(total=len(kinds) * len(budgets), desc="strength curves", unit="point", disable=not progress)
    for k, (label, kind) in enumerate(kinds.items()):
        outcomes = []
        for i, budget in enumerate(budgets):
            spec = budget_agent(kind, budget, engine)
            outcomes.append(_outcomes(game, spec, opponent, games, game_seed(seed, (k, i)), executor, workers))
            bar.update()
        specs = tuple(budget_agent(kind, budget, engine) for budget in budgets)
        curves[label] = Curve(label, tuple(budgets), tuple(outcomes), canonical_spec(opponent), specs)
    bar.close()
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
    engine: str = "python",
    progress: bool = False,
) -> Grid:
    """UCT with each ``c`` and each budget against ``opponent`` (perfect play by default), seats alternating.

    ``engine="compiled"`` plays UCT on the compiled engine (:mod:`mctslab.engine`): the same
    player, faster, so more games fit in the same time. ``progress=True`` shows a ``tqdm``
    progress bar counting the grid's cells (matches).
    """
    rows = []
    bar = tqdm(total=len(cs) * len(budgets), desc="UCT grid", unit="cell", disable=not progress)
    for i, c in enumerate(cs):
        row = []
        for j, budget in enumerate(budgets):
            spec = UCT(iterations=budget, c=c, engine=engine).spec
            row.append(_outcomes(game, spec, opponent, games, game_seed(seed, (i, j)), executor, workers))
            bar.update()
        rows.append(tuple(row))
    bar.close()
    return Grid(tuple(float(c) for c in cs), tuple(budgets), tuple(rows), canonical_spec(opponent))
