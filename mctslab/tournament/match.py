"""A match: N games between two agents, seats swapped, with intervals on every rate.

>>> from mctslab.tournament import play_match
>>> result = play_match("tictactoe", "flat:playouts=20", "random", games=40, seed=1, workers=1, progress=False)
>>> result.games, result.by_seat["a_first"].games, result.by_seat["b_first"].games
(40, 20, 20)

Half the games have A moving first and half B (``seats="alternate"``: A first in the
even-numbered games), because moving first is worth a lot: random play wins 58% of
tic-tac-toe games as X and 29% as O. ``seats="a-first"`` or ``"b-first"`` fixes the
seats instead, as Racioppo 2020 does when it reports X and O separately.
"""

from __future__ import annotations

import os
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..display import Table
from ..games import Game, make_game
from ..validation import non_negative_int, one_of
from .factory import AgentLike, label_of, name_of, resolve
from .files import lock_shared
from .records import GameResult, GameTask
from .results_file import ResultsFile, ResultsFileError, check_path
from .runner import check_games
from .schedule import play_schedule
from .stats import Outcomes

SEATS = ("alternate", "a-first", "b-first")
"""How seats are assigned: swapped every game, or one agent always moving first."""


def a_moves_first(seats: str, index: int) -> bool:
    """Whether agent A moves first in game ``index`` under the seating rule ``seats``."""
    if seats == "alternate":
        return index % 2 == 0
    return seats == "a-first"


def seed_header(seed: int | np.random.SeedSequence) -> dict[str, Any]:
    """How a tournament's seed is written in a results file header (JSON-ready).

    Raises:
        TypeError: if ``seed`` is neither an int nor a ``SeedSequence``.
        ValueError: for a negative int.
    """
    if isinstance(seed, np.random.SeedSequence):
        return {"entropy": seed.entropy, "spawn_key": list(seed.spawn_key)}
    return {"entropy": non_negative_int("seed", seed, hint=" (or a numpy SeedSequence)"), "spawn_key": []}


def run_header(
    kind: str, game_spec: str, agents: list[str], seed: int | np.random.SeedSequence, seats: str
) -> dict[str, Any]:
    """What identifies a run in its results file's header (the format and version are added by the file).

    Every key is checked against the header of a file being resumed or read: a file whose
    value differs is refused, naming the key. The one place to add what else identifies a
    run (e.g. a content hash of the weights files that agent specs name); a file's header
    keys that a run does not have are not checked.
    """
    return {"kind": kind, "game": game_spec, "agents": agents, "seed": seed_header(seed), "seats": seats}


_NOTES = "count, rate in %, [95% interval: Wilson's; the score's counts draws]; score = (wins + draws / 2) / games"
"""The note under a match's table."""


@dataclass
class MatchResult:
    """The games of a match between agents A and B, and what they show.

    Attributes:
        game: the game's spec.
        a: agent A's spec.
        b: agent B's spec.
        seed: the match's seed.
        seats: the seating rule (see :data:`SEATS`).
        results: the games, by index.
        resumed: how many of them were read from the results file rather than played.
    """

    game: str
    a: str
    b: str
    seed: int | np.random.SeedSequence
    seats: str
    results: list[GameResult] = field(default_factory=list)
    resumed: int = 0

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.results)

    @property
    def outcomes(self) -> Outcomes:
        """A's wins, draws and losses (B's wins), with intervals."""
        return _outcomes(self.results)

    @property
    def by_seat(self) -> dict[str, Outcomes]:
        """A's outcomes in the games where A moved first (``"a_first"``) and where B did (``"b_first"``)."""
        return {
            "a_first": _outcomes(r for r in self.results if r.a_first),
            "b_first": _outcomes(r for r in self.results if not r.a_first),
        }

    @property
    def seconds(self) -> tuple[float, float]:
        """Total wall-clock seconds A and B spent choosing moves."""
        return (sum(r.seconds[0] for r in self.results), sum(r.seconds[1] for r in self.results))

    @property
    def iterations(self) -> tuple[int, int] | None:
        """Total iterations (or playouts) A and B ran, as their analyses report them.

        What a clock allowed, for agents with ``seconds=``. ``None`` if a game was read from a
        results file written before iterations were recorded.
        """
        if any(r.iterations is None for r in self.results):
            return None
        return (sum(r.iterations[0] for r in self.results), sum(r.iterations[1] for r in self.results))

    @property
    def mean_plies(self) -> float:
        """Average game length in moves."""
        return sum(r.plies for r in self.results) / self.games if self.games else float("nan")

    def as_dict(self) -> dict[str, Any]:
        """The match as one JSON-ready dict (what ``python -m mctslab match --json`` prints).

        Keys: ``game``, ``a``, ``b``, ``seed``, ``seats``, ``games``, ``a_wins``,
        ``b_wins``, ``draws``, ``a_score`` and ``a_score_ci95`` (:func:`~.stats.score_interval`), Wilson intervals
        on each rate (``a_win_ci95``, ``draw_ci95``, ``b_win_ci95``), ``mean_plies``, and
        ``by_seat``: the same counts for the games where A moved first (``a_first``) and
        where B did (``b_first``). No timings: the dict depends only on the seed.
        """
        out: dict[str, Any] = {"game": self.game, "a": self.a, "b": self.b, "seed": seed_header(self.seed)}
        if not out["seed"]["spawn_key"]:
            out["seed"] = out["seed"]["entropy"]
        out["seats"] = self.seats
        out.update(_counts(self.outcomes))
        out["mean_plies"] = round(self.mean_plies, 4) if self.games else None
        out["by_seat"] = {seat: _counts(o) for seat, o in self.by_seat.items()}
        return out

    def table(self) -> str:
        """A readable summary: counts, rates with 95% intervals, and the per-seat breakdown."""
        rows = [("all games", self.outcomes)]
        if self.seats == "alternate":  # with fixed seats the breakdown would repeat the first row
            rows += [(_seat_label(s), o) for s, o in self.by_seat.items()]
        lines = [
            f"{self.game}: A = {_named(self.a)}  vs  B = {_named(self.b)}  ({self.games} games, seats {self.seats})",
            f"{'':<14}{'games':>6}" + "".join(f"{h:>29}" for h in ("A wins", "draws", "B wins", "A score")),
        ]
        for label, o in rows:
            if not o.games:
                continue
            lines.append(
                f"{label:<14}{o.games:>6}"
                + "".join(
                    _cell(k, rate, ci)
                    for k, rate, ci in (
                        (o.wins, o.win_rate, o.win_ci()),
                        (o.draws, o.draw_rate, o.draw_ci()),
                        (o.losses, o.loss_rate, o.loss_ci()),
                        (None, o.score, o.score_ci()),
                    )
                )
            )
        lines.append(_NOTES)
        return "\n".join(lines)

    def as_table(self) -> Table:
        """The summary of :meth:`table` as a :class:`~mctslab.display.Table`, one column per set of games.

        Rows are A's wins, the draws, B's wins and A's score; columns are all games and,
        with alternating seats, the games where A or B moved first. This is what a
        notebook shows (HTML, and plain text under 100 characters wide).
        """
        columns = [("all games", self.outcomes)]
        if self.seats == "alternate":
            columns += [(_seat_label(s), o) for s, o in self.by_seat.items() if o.games]
        rows = [["games", *(str(o.games) for _, o in columns)]]
        for label, pick in (
            ("A wins", lambda o: (o.wins, o.win_rate, o.win_ci())),
            ("draws", lambda o: (o.draws, o.draw_rate, o.draw_ci())),
            ("B wins", lambda o: (o.losses, o.loss_rate, o.loss_ci())),
            ("A score", lambda o: (None, o.score, o.score_ci())),
        ):
            rows.append([label, *(_short_cell(*pick(o)) if o.games else "-" for _, o in columns)])
        who = f"A = {_named(self.a)} vs B = {_named(self.b)}"
        return Table(
            ["", *(label for label, _ in columns)],
            rows,
            caption=f"{self.game}: {who} ({self.games} games, seats {self.seats})",
            align="l" + "r" * len(columns),
            notes=_NOTES,
        )

    def _repr_html_(self) -> str:
        return self.as_table()._repr_html_()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self.as_table()))

    def __repr__(self) -> str:
        o = self.outcomes
        low, high = o.score_ci()
        return (
            f"MatchResult({self.a!r} vs {self.b!r}: {self.games} games, A {o.wins}-{o.draws}-{o.losses}, "
            f"score {o.score:.3f} [{low:.3f}, {high:.3f}])"
        )


def _named(spec: str) -> str:
    """A spec as a table shows it: itself, or ``"window@450 (fixedbudget:kind=window,budget=450)"``."""
    label = label_of(spec)
    return spec if label == spec else f"{label} ({spec})"


def _seat_label(seat: str) -> str:
    return "A moved first" if seat == "a_first" else "B moved first"


def _short_cell(k: int | None, rate: float, ci: tuple[float, float]) -> str:
    count = "" if k is None else f"{k}  "
    return f"{count}{100 * rate:.1f} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _cell(k: int | None, rate: float, ci: tuple[float, float]) -> str:
    count = "" if k is None else str(k)
    return f"{count:>7} {100 * rate:5.1f} [{100 * ci[0]:5.1f}, {100 * ci[1]:5.1f}]"


def _outcomes(results) -> Outcomes:
    wins = draws = losses = 0
    for r in results:
        if r.winner == "a":
            wins += 1
        elif r.winner == "b":
            losses += 1
        else:
            draws += 1
    return Outcomes(wins, draws, losses)


def _counts(o: Outcomes) -> dict[str, Any]:
    d = o.as_dict(prefix="a_")
    return {
        "games": d["games"],
        "a_wins": o.wins,
        "b_wins": o.losses,
        "draws": o.draws,
        "a_score": d["a_score"],
        "a_score_ci95": d["a_score_ci95"],
        "a_win_ci95": d["a_win_ci95"],
        "draw_ci95": d["draw_ci95"],
        "b_win_ci95": d["a_loss_ci95"],
    }


def play_match(
    game: str | Game,
    a: AgentLike,
    b: AgentLike,
    games: int = 100,
    seed: int | np.random.SeedSequence = 0,
    *,
    seats: str = "alternate",
    executor: Executor | None = None,
    workers: int | None = None,
    batch_size: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = True,
) -> MatchResult:
    """Play ``games`` games between agents A and B and return the results with statistics.

    Game ``i`` is seeded with ``numpy.random.SeedSequence(seed).spawn(games)[i]``, so the
    result is the same whatever ``workers``, ``executor`` and ``batch_size``, and
    whatever order games finish in.

    Args:
        game: the game or its spec (e.g. ``"tictactoe"``).
        a: agent A: a spec such as ``"uct:iterations=1000"`` (an agent object is
            replaced by its spec: every game builds fresh agents from its own seed), or
            any registered agent's spec.
        b: agent B, likewise.
        games: number of games, >= 1.
        seed: an int >= 0 or a :class:`numpy.random.SeedSequence`.
        seats: ``"alternate"`` (A moves first in games 0, 2, 4, ...), ``"a-first"`` or
            ``"b-first"``.
        executor: any :class:`concurrent.futures.Executor` to play on (e.g. a Dask
            ``Client.get_executor()``); used, not shut down. By default a process pool.
        workers: processes for the default pool: ``None`` for every core, 1 for none
            (play in this process).
        batch_size: games per task (default: about eight tasks per worker of ``workers``,
            or of this machine's cores, at most 100). On a cluster, pick it so that each
            worker gets several tasks.
        out: a results file (one JSON line per game). If it already holds games of
            this same match, they are read and only the missing games are played.
        progress: show a progress bar (``tqdm.auto``).

    Returns:
        A :class:`MatchResult`.

    Raises:
        mctslab.SpecError: for an unknown or malformed game or agent spec.
        TypeError: for an argument of the wrong type (e.g. ``games=2.5``, ``seed=None``).
        ValueError: for ``games < 1`` or more than 1,000,000, a negative seed, an unknown seating rule, or
            ``workers`` or ``batch_size`` < 1.
        ResultsFileError: if ``out`` holds another run's results or is damaged (a
            damaged last line is repaired with a :class:`ResultsFileWarning`).
    """
    game_obj, (a_agent, b_agent), header, tasks = _plan(game, a, b, games, seed, seats)
    a_spec, b_spec = header["agents"]
    played = play_schedule(
        game_obj,
        [(a_agent, b_agent)],
        seed,
        tasks,
        header=header,
        out=out,
        executor=executor,
        workers=workers,
        batch_size=batch_size,
        progress=progress,
        desc=f"{a_spec} vs {b_spec}",
    )
    return MatchResult(game_obj.spec, a_spec, b_spec, seed, seats, played.results, resumed=len(played.resumed))


def _plan(game, a, b, games, seed, seats) -> tuple[Game, tuple[Any, Any], dict[str, Any], list[GameTask]]:
    """A match's game, agents, results-file header and schedule, its options checked."""
    games = check_games(games)
    seats = one_of("seats", seats, SEATS)
    game_obj = make_game(game)
    agents = (resolve(a), resolve(b))
    header = run_header("match", game_obj.spec, [name_of(x) for x in agents], seed, seats)
    return game_obj, agents, header, [GameTask(0, i, a_moves_first(seats, i), (i,)) for i in range(games)]


def read_match(
    game: str | Game,
    a: AgentLike,
    b: AgentLike,
    games: int,
    seed: int | np.random.SeedSequence = 0,
    *,
    seats: str = "alternate",
    out: str | os.PathLike,
) -> MatchResult:
    """The finished match that :func:`play_match` with the same arguments wrote to ``out``, read back.

    Nothing is played and the file is never changed: for results that are shipped or
    shared (a notebook's stored games). The file gets every check :func:`play_match`
    makes when it resumes (header, seats, duplicates, each game replayed to its recorded
    winner), and must hold every game of the match.

    Raises:
        ResultsFileError: if ``out`` is missing, holds another run, is damaged (its last
            line too), or lacks some of the match's games; ``ResultsFileBusyError`` while a
            run holds its lock (it is being written).
    """
    game_obj, _, header, tasks = _plan(game, a, b, games, seed, seats)
    path = check_path(out)
    schedule = {t.key: t.a_first for t in tasks}
    with lock_shared(path):  # not while a run writes it
        contents = ResultsFile(path, header, game_obj, schedule).read()
    if contents.damage is not None:
        raise ResultsFileError(
            f"{path}, line {contents.damaged_line}: {contents.damage}; a run may be writing it, or it is damaged "
            "(let the run finish, or run play_match with out= on it to remove that line and play its game again)"
        )
    missing = [key for key in schedule if key not in contents.games]
    if missing:
        raise ResultsFileError(
            f"{path} holds {len(schedule) - len(missing)} of the {len(schedule)} games of this match (game "
            f"{missing[0][1]} is missing); play the match with out= this file first: reading never plays"
        )
    results = sorted(contents.games.values(), key=lambda r: r.key)
    return MatchResult(game_obj.spec, *header["agents"], seed, header["seats"], results, resumed=len(results))
