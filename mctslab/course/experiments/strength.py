"""Strength in games: each agent against a fixed opponent, against the budget and over UCT's ``c``.

The experiments of notebook 05 (and section 4 of notebook 03): seeded matches with seats
alternating, whose results are :class:`~mctslab.tournament.Outcomes` with Wilson
intervals. The default opponent is perfect play (:data:`PERFECT`), which makes exactly
minimax's moves from a cached enumeration, so thousands of games cost seconds.

Stored runs: given a ``folder``, each match (a curve's point, a grid's cell) is one results
file there (:func:`match_file`), read back when it is finished and resumed otherwise
(:func:`kept_match`), so a notebook replays nothing it has stored and an interrupted run
loses nothing; :func:`round_robin_file` names a round robin's file the same way. The
notebooks' stored runs are in ``notebooks/data/<notebook>/``: delete that folder and run the
notebook to regenerate them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from ...agents import UCT, FixedBudget, canonical_spec
from ...games import make_game
from ...games.base import Game
from ...tournament import MatchResult, Outcomes, ResultsFileError, game_seed, play_match, read_match
from ...tournament.factory import AgentLike
from .curves import Curve

PERFECT = "perfect"
"""Perfect play as a tournament agent: minimax's choices, from a cached enumeration
(:class:`~mctslab.agents.PerfectPlayer`)."""


# -- strength in games -------------------------------------------------------------------
def _slug(spec: str) -> str:
    """A spec as part of a file name: ``uct:iterations=50,c=1.0`` -> ``uct_iterations-50_c-1.0``."""
    return spec.replace(":", "_").replace(",", "_").replace("=", "-")


def _game_name(game: str | Game) -> str:
    """A game as part of a file name: its name without options (``tictactoe``); the header holds the options."""
    return make_game(game).spec.split(":")[0]


def _seed_name(seed: int | np.random.SeedSequence) -> str:
    """A seed as part of a file name: ``1927`` or, for ``game_seed(1927, (0, 3))``, ``1927-0-3``."""
    if isinstance(seed, np.random.SeedSequence):
        return "-".join(str(x) for x in (seed.entropy, *seed.spawn_key))
    return str(seed)


def match_file(
    folder: str | os.PathLike, game: str | Game, a: AgentLike, b: AgentLike, seed: int | np.random.SeedSequence
) -> Path:
    """The results file in ``folder`` of the match ``a`` against ``b`` at ``game`` seeded by ``seed``.

    Named by the game, the two canonical specs and the seed, e.g.
    ``tictactoe_fixedbudget_kind-flat_budget-25_vs_perfect_seed-1927-0-0.jsonl``, so a match of other
    agents or with another seed never meets this one's file; the game's options, the seats and the
    agents are checked again against the file's header when it is read.
    """
    name = f"{_game_name(game)}_{_slug(canonical_spec(a))}_vs_{_slug(canonical_spec(b))}_seed-{_seed_name(seed)}"
    return Path(folder) / f"{name}.jsonl"


def round_robin_file(
    folder: str | os.PathLike, game: str | Game, agents: Sequence[AgentLike], seed: int | np.random.SeedSequence
) -> Path:
    """The results file in ``folder`` of a round robin of ``agents`` at ``game`` seeded by ``seed``.

    Named by the game, the seed and a digest of the agents' specs, e.g.
    ``round-robin_tictactoe_seed-1927_251461b5e3.jsonl`` (five specs would make too long a name), so
    other agents never meet this run's file.
    """
    specs = [canonical_spec(a) for a in agents]
    digest = hashlib.sha256(json.dumps(specs).encode()).hexdigest()[:10]
    return Path(folder) / f"round-robin_{_game_name(game)}_seed-{_seed_name(seed)}_{digest}.jsonl"


def kept_match(
    game: str | Game,
    spec: str,
    opponent: AgentLike,
    games: int,
    seed: int | np.random.SeedSequence,
    folder: str | os.PathLike | None = None,
    executor: Executor | None = None,
    workers: int | None = 1,
) -> MatchResult:
    """``spec`` against ``opponent``, seats alternating, no progress bar.

    Without ``folder`` the games are played and kept nowhere. With it, they go to (and are read
    back from) :func:`match_file` there: a finished file is read (nothing is played), any other is
    resumed (:func:`mctslab.play_match` with ``out=``: only the missing games are played). Either
    way the games are those played afresh with the same seeds.
    """
    if folder is None:
        return play_match(game, spec, opponent, games, seed, executor=executor, workers=workers, progress=False)
    out = match_file(folder, game, spec, opponent, seed)
    if out.exists():
        try:
            return read_match(game, spec, opponent, games, seed, out=out)
        except ResultsFileError:  # unfinished (or damaged): play_match resumes it, with its own checks
            pass
    out.parent.mkdir(parents=True, exist_ok=True)
    return play_match(game, spec, opponent, games, seed, executor=executor, workers=workers, out=out, progress=False)


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
    folder: str | os.PathLike | None = None,
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
        folder: where the matches are stored (one results file each, see :func:`kept_match`):
            finished ones are read, the others played or resumed; ``None``: play them all, keep nothing.

    Returns:
        Label -> :class:`Curve`.
    """
    curves = {}
    bar = tqdm(total=len(kinds) * len(budgets), desc="strength curves", unit="point", disable=not progress)
    for k, (label, kind) in enumerate(kinds.items()):
        outcomes = []
        for i, budget in enumerate(budgets):
            spec = budget_agent(kind, budget, engine)
            point_seed = game_seed(seed, (k, i))
            outcomes.append(kept_match(game, spec, opponent, games, point_seed, folder, executor, workers).outcomes)
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
    folder: str | os.PathLike | None = None,
) -> Grid:
    """UCT with each ``c`` and each budget against ``opponent`` (perfect play by default), seats alternating.

    ``engine="compiled"`` plays UCT on the compiled engine (:mod:`mctslab.engine`): the same
    player, faster, so more games fit in the same time. ``progress=True`` shows a ``tqdm``
    progress bar counting the grid's cells (matches). With ``folder``, each cell's match is stored
    there (:func:`kept_match`): finished ones are read, the others played or resumed.
    """
    rows = []
    bar = tqdm(total=len(cs) * len(budgets), desc="UCT grid", unit="cell", disable=not progress)
    for i, c in enumerate(cs):
        row = []
        for j, budget in enumerate(budgets):
            spec = UCT(iterations=budget, c=c, engine=engine).spec
            cell = kept_match(game, spec, opponent, games, game_seed(seed, (i, j)), folder, executor, workers)
            row.append(cell.outcomes)
            bar.update()
        rows.append(tuple(row))
    bar.close()
    return Grid(tuple(float(c) for c in cs), tuple(budgets), tuple(rows), canonical_spec(opponent))
