"""Win rate against the search budget, with Wilson 95% bands: one :class:`Curve` for every such experiment.

A table row at one budget hides how an agent improves with more playouts; a curve shows
it, and its confidence band shows which differences are real. :func:`budget_curve`
plays one agent against a fixed opponent at a list of budgets, seats fixed (Racioppo 2020's
tables, notebook 08); :func:`mctslab.course.experiments.strength.strength_curves` plays with
seats alternating (notebooks 03 and 05). :func:`mctslab.course.figures.plots.plot_curves`
draws them.

Given a ``folder``, :func:`budget_curve` keeps each point's counts there chunk by chunk
(:data:`CURVES_FILE`, :mod:`mctslab.course.experiments.stored_counts`) and reads them back
instead of playing again: the same numbers, since each game is seeded by its place.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...tournament import Outcomes, game_seed, play_match
from .stored_counts import match_chunks, match_header, stored_counts

CURVES_FILE = "budget_curves.json"
"""The stored counts of :func:`budget_curve`'s points, in the ``folder`` it is given."""


@dataclass(frozen=True)
class Curve:
    """One agent's results against one opponent at several budgets, from its own point of view.

    Attributes:
        label: the legend's text.
        xs: the budget of each point, as plotted (e.g. playouts per decision).
        outcomes: the agent's wins, draws and losses at each budget.
        opponent: the opponent's spec.
        specs: the agent's spec at each budget (empty when not recorded).
        seat: ``"x"`` (the agent moves first), ``"o"``, or ``"alternate"``.
    """

    label: str
    xs: tuple[float, ...]
    outcomes: tuple[Outcomes, ...]
    opponent: str
    specs: tuple[str, ...] = ()
    seat: str = "alternate"

    def rates(self, rate: str = "score") -> np.ndarray:
        """The ``rate`` (``"score"``, ``"win"`` or ``"loss"``) at each budget, in [0, 1]."""
        return np.array([o.rate_and_ci(rate)[0] for o in self.outcomes])

    def bands(self, rate: str = "score") -> np.ndarray:
        """Wilson 95% intervals of ``rate`` at each budget, shape ``(len(xs), 2)``."""
        return np.array([o.rate_and_ci(rate)[1] for o in self.outcomes])


def budget_curve(
    label: str,
    specs: Sequence[str],
    xs: Sequence[float],
    *,
    seat: str = "x",
    opponent: str = "random",
    game: str = "tictactoe",
    games: int = 500,
    seed: int = 0,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: bool = False,
    folder: str | os.PathLike | None = None,
) -> Curve:
    """Play the agent at each budget against ``opponent`` from a fixed seat.

    Args:
        label: the curve's name in a legend.
        specs: one agent spec per budget, e.g. ``[f"uct:iterations={n}" for n in (10, 100)]``
            (``racioppo:...`` specs included).
        xs: the budget of each spec, as it should be plotted (same length as ``specs``).
        seat: ``"x"`` (the agent moves first) or ``"o"`` (the opponent does).
        opponent: the opponent's spec.
        game: the game's spec.
        games: games per budget, >= 1.
        seed: the seed; each point's seed comes from it, the spec and the seat, so the
            same agent at the same seat gets the same games in every curve.
        executor: any ``concurrent.futures`` executor (default: a process pool).
        workers: processes for the default pool (``None``: every core; 1: none).
        progress: show a progress bar per point (not with ``folder``).
        folder: where the points' counts are kept, in ``folder/``:data:`CURVES_FILE`, one
            run per point named ``"<spec> as <seat> vs <opponent>, <game>, seed <seed>"``:
            the chunks stored there are read, only the missing ones are played. ``None``:
            play everything, keep nothing. The curve is the same either way.

    Returns:
        A :class:`Curve`.

    Raises:
        ValueError: if ``specs`` and ``xs`` differ in length, or ``seat`` is not x or o; with
            ``folder``, if it holds another run under a point's name.
    """
    if len(specs) != len(xs):
        raise ValueError(f"specs and xs must have the same length, got {len(specs)} and {len(xs)}")
    if seat not in ("x", "o"):
        raise ValueError(f"seat must be 'x' (moves first) or 'o', got {seat!r}")
    results = []
    for spec in specs:
        point_seed = game_seed(seed, (zlib.crc32(f"{spec}|{seat}|{opponent}".encode()),))
        seats = "a-first" if seat == "x" else "b-first"
        if folder is not None:
            header = match_header(game, spec, opponent, point_seed, seats, "outcomes")
            chunks = match_chunks(game, spec, opponent, point_seed, seats, executor=executor, workers=workers)
            run = f"{spec} as {seat} vs {opponent}, {game}, seed {seed}"
            a_wins, b_wins, draws = stored_counts(Path(folder) / CURVES_FILE, run, header, games, chunks)
            results.append(Outcomes(a_wins, draws, b_wins))
            continue
        match = play_match(
            game,
            spec,
            opponent,
            games,
            point_seed,
            seats=seats,
            executor=executor,
            workers=workers,
            progress=progress,
        )
        results.append(match.outcomes)
    return Curve(label, tuple(float(x) for x in xs), tuple(results), opponent, tuple(specs), seat)
