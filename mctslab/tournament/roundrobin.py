"""A round robin: every pair of agents plays a match; a score table and Elo ratings.

Every pairing is a :func:`~mctslab.tournament.match.play_match` with seats swapped, and
pairing ``p`` is seeded with ``SeedSequence(seed).spawn(P)[p]``; all games of all
pairings go to the executor together, so the cores stay busy until the end. Ratings
are a Bradley-Terry fit (:func:`~mctslab.tournament.elo.bradley_terry`).
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..display import Table
from ..games import Game, make_game
from ..validation import one_of, positive_int
from .elo import EloRatings, bradley_terry
from .factory import AgentLike, label_of, name_of, resolve
from .match import SEATS, MatchResult, a_moves_first, run_header
from .records import GameResult, GameTask, game_seed
from .runner import check_games
from .schedule import play_schedule


@dataclass
class RoundRobinResult:
    """The matches of a round robin and the ratings they give.

    Attributes:
        game: the game's spec.
        agents: the agents' specs, in input order.
        matches: one :class:`MatchResult` per pairing ``(i, j)``, ``i < j``, with
            ``agents[i]`` as A.
        elo: the fitted :class:`EloRatings` (named by the agents' labels).
        labels: the agents' display names in tables (``"window@450"``; most agents:
            the spec), in input order.
    """

    game: str
    agents: tuple[str, ...]
    matches: dict[tuple[int, int], MatchResult]
    elo: EloRatings
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.labels:
            self.labels = tuple(self.agents)

    def score_matrix(self) -> np.ndarray:
        """``k x k`` matrix: row ``i``, column ``j`` is agent ``i``'s score against ``j`` (NaN on the diagonal)."""
        k = len(self.agents)
        scores = np.full((k, k), np.nan)
        for (i, j), match in self.matches.items():
            scores[i, j] = match.outcomes.score
            scores[j, i] = 1 - match.outcomes.score
        return scores

    def table(self) -> str:
        """The score table (row's score against column, 95% interval) and the ratings."""
        k = len(self.agents)
        width = max(len(a) for a in self.labels)
        lines = [f"{self.game}: round robin, score of the row against the column (95% interval)"]
        lines.append(" " * (width + 4) + "".join(f"{'#' + str(j + 1):>20}" for j in range(k)))
        for i in range(k):
            cells = []
            for j in range(k):
                if i == j:
                    cells.append(f"{'-':>20}")
                    continue
                o = self.matches[(min(i, j), max(i, j))].outcomes
                o = o if i < j else o.flipped()
                low, high = o.score_ci()
                cells.append(f"{o.score:.3f} [{low:.2f},{high:.2f}]".rjust(20))
            lines.append(f"#{i + 1:<2} {self.labels[i]:<{width}}" + "".join(cells))
        lines.append("")
        lines.append(self.elo.table())
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: agents, each pairing's counts, and the ratings."""
        return {
            "game": self.game,
            "agents": list(self.agents),
            "pairings": [{"i": i, "j": j, **m.as_dict()} for (i, j), m in self.matches.items()],
            "elo": self.elo.as_dict(),
        }

    def score_table(self) -> Table:
        """The score matrix of :meth:`table` as a :class:`~mctslab.display.Table` (for HTML)."""
        k = len(self.agents)
        rows = []
        for i in range(k):
            cells = []
            for j in range(k):
                if i == j:
                    cells.append("-")
                    continue
                o = self.matches[(min(i, j), max(i, j))].outcomes
                o = o if i < j else o.flipped()
                low, high = o.score_ci()
                cells.append(f"{o.score:.3f} [{low:.2f}, {high:.2f}]")
            rows.append([f"#{i + 1} {self.labels[i]}", *cells])
        return Table(
            ["", *(f"#{j + 1}" for j in range(k))],
            rows,
            caption=f"{self.game}: round robin, score of the row against the column (95% interval)",
        )

    def pairings_table(self) -> Table:
        """One row per pairing: the same numbers as :meth:`score_table`, narrow enough for text."""
        rows = []
        for (i, j), match in self.matches.items():
            o = match.outcomes
            low, high = o.score_ci()
            rows.append([self.labels[i], self.labels[j], str(o.games), f"{o.score:.3f} [{low:.2f}, {high:.2f}]"])
        return Table(
            ["A", "B", "games", "A's score"],
            rows,
            caption=f"{self.game}: round robin, A's score against B (95% interval)",
        )

    def elo_table(self) -> Table:
        """The ratings, best first, as a :class:`~mctslab.display.Table`."""
        rows = []
        for i in self.elo.ranking():
            low, high = self.elo.ci95[i]
            rows.append([self.elo.names[i], f"{self.elo.elo[i]:+.0f}", f"[{low:+.0f}, {high:+.0f}]", self.elo.games[i]])
        return Table(["agent", "Elo", "95% interval", "games"], rows, align="lrrr")

    def _repr_html_(self) -> str:
        return self.score_table()._repr_html_() + "<br>" + self.elo_table()._repr_html_()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        # The text form lists pairings: a k x k matrix of intervals is too wide for 100 characters.
        p.text(f"{self.pairings_table()}\n\n{self.elo_table()}")


def round_robin(
    game: str | Game,
    agents: list[AgentLike] | tuple[AgentLike, ...],
    games: int = 100,
    seed: int | np.random.SeedSequence = 0,
    *,
    seats: str = "alternate",
    executor: Executor | None = None,
    workers: int | None = None,
    batch_size: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = True,
    prior_sd: float = 1000.0,
) -> RoundRobinResult:
    """Every pair of ``agents`` plays ``games`` games; return the table and Elo ratings.

    Args:
        game: the game or its spec.
        agents: two or more agents, all different: specs (agent objects are replaced by
            their specs).
        games: games per pairing, >= 1 (seats swapped every game by default).
        seed: an int >= 0 or a :class:`numpy.random.SeedSequence`.
        seats: seating rule within each pairing (see :data:`mctslab.tournament.match.SEATS`).
        executor: any :class:`concurrent.futures.Executor` (default: a process pool).
        workers: processes for the default pool (``None``: every core; 1: none).
        batch_size: games per task.
        out: a results file; re-running with it resumes (see :mod:`.results_file`).
        progress: show a progress bar.
        prior_sd: the rating prior's standard deviation in Elo (see :func:`bradley_terry`).

    Returns:
        A :class:`RoundRobinResult`.

    Raises:
        mctslab.SpecError: for an unknown or malformed spec.
        TypeError: for an argument of the wrong type.
        ValueError: for fewer than two agents, a repeated agent, ``games < 1``, or a
            negative seed or an option out of range.
        ResultsFileError: if ``out`` holds another run's results or is damaged.
    """
    games = positive_int("games", games)
    seats = one_of("seats", seats, SEATS)
    game_obj = make_game(game)
    resolved = [resolve(a) for a in agents]
    specs = tuple(name_of(a) for a in resolved)
    if len(specs) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {len(specs)}")
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        raise ValueError(f"each agent may appear once in a round robin; repeated: {', '.join(repeated)}")
    pairings = list(itertools.combinations(range(len(specs)), 2))
    check_games(games, len(pairings))
    header = run_header("round-robin", game_obj.spec, list(specs), seed, seats)
    played = play_schedule(
        game_obj,
        [(resolved[i], resolved[j]) for i, j in pairings],
        seed,
        [GameTask(p, g, a_moves_first(seats, g), (p, g)) for p in range(len(pairings)) for g in range(games)],
        header=header,
        out=out,
        executor=executor,
        workers=workers,
        batch_size=batch_size,
        progress=progress,
        desc="round robin",
    )
    by_pair: dict[int, list[GameResult]] = {p: [] for p in range(len(pairings))}
    for r in played.results:  # sorted by (pair, index)
        by_pair[r.pair].append(r)
    matches = {}
    k = len(specs)
    points, counts = np.zeros((k, k)), np.zeros((k, k))
    for p, (i, j) in enumerate(pairings):
        results = by_pair[p]
        resumed = sum(1 for r in results if r.key in played.resumed)
        match = MatchResult(game_obj.spec, specs[i], specs[j], game_seed(seed, (p,)), seats, results, resumed)
        matches[(i, j)] = match
        o = match.outcomes
        points[i, j], points[j, i] = o.wins + o.draws / 2, o.losses + o.draws / 2
        counts[i, j] = counts[j, i] = o.games
    labels = tuple(label_of(s) for s in specs)
    elo = bradley_terry(labels, points, counts, prior_sd=prior_sd)
    return RoundRobinResult(game_obj.spec, specs, matches, elo, labels)
