"""The matches of notebook 09: each variant against plain UCT, at equal iterations and at equal time.

Every match is a :func:`mctslab.tournament.play_match` of :data:`SEED` (game ``i``:
``SeedSequence(SEED).spawn(...)[i]``, seats alternating), written to one results file per
:class:`Pairing` in the tournament's format (one JSON line per game, with each side's
seconds and iterations), so a run resumes where it stopped and the notebook reads the
games back. The equal-time matches on Ultimate Tic-Tac-Toe (:data:`TIMED_MATCHES`) are
played in one process: concurrent games would share the cores their clocks measure; so are
the equal-time matches on the compiled engine (:data:`COMPILED_MATCHES`: the compiled solver
and RAVE against the compiled UCT), which compare the algorithms rather than their
implementations.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ....agents import make_agent
from ....games import Game, make_game
from ....tournament import MatchResult, Outcomes, play_match, read_match
from ..curves import Curve
from .costs import Timings


@dataclass(frozen=True)
class Pairing:
    """One match of the notebook: a variant against plain UCT on one game.

    Attributes:
        game: the game's spec.
        variant: the variant's spec.
        baseline: plain UCT's spec, at the same budget.
        games: games to play (seats alternate).
        budget: ``"iterations"`` or ``"time"``: what is equal between the two.
    """

    game: str
    variant: str
    baseline: str
    games: int
    budget: str = "iterations"

    @property
    def filename(self) -> str:
        """The results file's name: game, variant and budget, readable."""
        text = f"{self.game.split(':')[0]}__{self.variant}__{self.budget}"
        return text.replace(":", "_").replace(",", "_").replace("=", "-") + ".jsonl"

    @property
    def seconds(self) -> float | None:
        """The variant's seconds per move (``None`` at equal iterations)."""
        for setting in self.variant.partition(":")[2].split(","):
            if setting.startswith("seconds="):
                return float(setting.removeprefix("seconds="))
        return None


ITERATIONS = 200
"""Iterations per move of both sides in the equal-iterations matches."""

SECONDS = 0.02
"""Seconds per move of both sides in the equal-time matches (noisy on a loaded machine)."""

VARIANTS = ("solver", "rave", "transpositions", "uct:playout=decisive")
"""The variants measured (``uct:playout=decisive`` is UCT with decisive playouts)."""


def _with(spec: str, budget: str) -> str:
    sep = "," if ":" in spec else ":"
    return spec + sep + budget


GAMES = 400
"""Games per match at equal iterations (the table's, and the budget curve's at 200), seats alternating.

Enough to tell a true score of 0.6 from 1/2 with power 0.8 at the Bonferroni level of the
notebook's 25 comparisons: ``games_needed_one_sample(0.6, 0.5, confidence=1 - 0.05 / 25)``
is 384 (:mod:`mctslab.tournament.stats`). A game takes 0.05-1 s on a quiet core."""

COSTLY_GAMES = 150
"""Games of decisive playouts against UCT on Ultimate Tic-Tac-Toe at equal iterations: a game
there takes about 1 s on a quiet core (each decisive playout costs some 30 random ones), so fewer
games, powered for a larger effect (a true score of about 0.66 against 1/2)."""

TIME_GAMES = 40
"""Games per equal-time match on Connect Four (kept as stored: their verdicts are large effects)."""


def matches(scale: float = 1.0) -> list[Pairing]:
    """The notebook's matches: every variant against UCT on Connect Four and Ultimate Tic-Tac-Toe.

    At equal iterations (:data:`ITERATIONS`, :data:`GAMES` games, :data:`COSTLY_GAMES` for
    decisive playouts on Ultimate Tic-Tac-Toe) on both games; at equal
    time (:data:`SECONDS`, :data:`TIME_GAMES` games) on Connect Four. ``scale`` multiplies
    the number of games.
    """
    out = []
    for game in ("connect4", "uttt"):
        for v in VARIANTS:
            variant = _with(v, f"iterations={ITERATIONS}")
            games = COSTLY_GAMES if (game, v) == ("uttt", "uct:playout=decisive") else GAMES
            out.append(Pairing(game, variant, f"uct:iterations={ITERATIONS}", max(2, round(games * scale))))
    for v in VARIANTS:
        out.append(
            Pairing(
                "connect4",
                _with(v, f"seconds={SECONDS}"),
                f"uct:seconds={SECONDS}",
                max(2, round(TIME_GAMES * scale)),
                "time",
            )
        )
    return out


MATCHES = matches()
"""The matches at the size the notebook shows."""

CURVE_VARIANT = "rave"
"""The variant of the budget curve: RAVE, the largest effect at equal iterations on Ultimate
Tic-Tac-Toe, and the enhancement whose effect should depend most on the budget (AMAF
statistics stand in for the real ones while a node has few visits)."""

CURVE_BUDGETS = (25, 50, 100, 200, 400, 800)
"""Iterations per move of both sides on the budget curve (200 is the table's match, the same
file and games), doubling from 25 to 800 (at 800 a game takes about 1.6 s on a quiet core)."""

CURVE_GAMES = {25: 200, 50: 200, 100: 200, ITERATIONS: GAMES, 400: 100, 800: 100}
"""Games per budget on the curve (seats alternating): the table's :data:`GAMES` at 200, 200 at the
smaller budgets (powered for a true score of about 0.64 against 1/2 at the notebook's Bonferroni
level), 100 at the larger ones, where a game takes 1-2 s on a quiet core (about 0.70)."""


def curve_matches(scale: float = 1.0) -> list[Pairing]:
    """The budget curve's matches: :data:`CURVE_VARIANT` against UCT on Ultimate at each of :data:`CURVE_BUDGETS`.

    The match at 200 iterations is the table's (the same file, the same games).
    """
    return [
        Pairing(
            "uttt",
            _with(CURVE_VARIANT, f"iterations={n}"),
            f"uct:iterations={n}",
            max(2, round(CURVE_GAMES[n] * scale)),
        )
        for n in CURVE_BUDGETS
    ]


CURVE_MATCHES = curve_matches()
"""The budget curve's matches at the size the notebook shows."""


def measured_curve(out_dir: str | os.PathLike, pairings: Sequence[Pairing] | None = None) -> Curve:
    """The score of :data:`CURVE_VARIANT` against UCT at each budget of :data:`CURVE_MATCHES`, read back.

    From ``out_dir``, read only (:func:`stored_match`): a missing or damaged game is an error,
    never played here (run the command first). ``xs``: iterations per move.
    """
    pairings = CURVE_MATCHES if pairings is None else pairings
    results = [stored_match(p, out_dir) for p in pairings]
    return Curve(
        label=f"{CURVE_VARIANT} vs uct (Ultimate Tic-Tac-Toe)",
        xs=tuple(float(p.variant.rpartition("iterations=")[2]) for p in pairings),
        outcomes=tuple(r.outcomes for r in results),
        opponent="uct",
        specs=tuple(p.variant for p in pairings),
    )


SEED = 2026
"""The seed of every match (game ``i`` of a match: ``SeedSequence(SEED).spawn(...)[i]``)."""


def head_to_head(
    pairing: Pairing,
    out_dir: str | os.PathLike | None = None,
    *,
    games: int | None = None,
    workers: int | None = 1,
    progress: bool = False,
) -> MatchResult:
    """Play (or read back) one pairing, the variant as A, seats alternating (:func:`~mctslab.tournament.play_match`).

    Args:
        pairing: the match.
        out_dir: the folder of the results files; games already there are read, not
            played again (``None``: play everything, keep nothing).
        games: play only the first ``games`` games (the same games: game ``i`` has the
            same seed whatever the total).
        workers: processes (1: in this process).
        progress: show a progress bar.
    """
    out = None if out_dir is None else Path(out_dir) / pairing.filename
    n = pairing.games if games is None else games
    return play_match(
        pairing.game, pairing.variant, pairing.baseline, games=n, seed=SEED, workers=workers, out=out, progress=progress
    )


def stored_match(pairing: Pairing, out_dir: str | os.PathLike) -> MatchResult:
    """One pairing's finished match read back from ``out_dir``: nothing played, the file never changed.

    :func:`~mctslab.tournament.read_match` on the file :func:`head_to_head` writes: every check
    a resumed match makes (header, seats, duplicates, each game replayed to its recorded
    winner), and every game of the pairing must be there.

    Raises:
        ResultsFileError: if the file is missing, holds another match, is damaged or lacks
            games (run ``python -m mctslab.course.experiments.improvements`` to complete it).
    """
    return read_match(
        pairing.game, pairing.variant, pairing.baseline, pairing.games, SEED, out=Path(out_dir) / pairing.filename
    )


# -- head to head at equal time, with the iterations each side reached ------------------
TIMED_GAMES = 60
"""Games per equal-time match on Ultimate Tic-Tac-Toe (seats alternating)."""


def timed_matches(scale: float = 1.0) -> list[Pairing]:
    """The equal-time matches on Ultimate Tic-Tac-Toe: every variant against UCT at :data:`SECONDS` per move.

    The same time per move as on Connect Four: a game of about 50 plies then takes
    about a second, so 60 games per variant are affordable. They are played by
    :func:`timed_match`, in one process.
    """
    return [
        Pairing(
            "uttt", _with(v, f"seconds={SECONDS}"), f"uct:seconds={SECONDS}", max(2, round(TIMED_GAMES * scale)), "time"
        )
        for v in VARIANTS
    ]


TIMED_MATCHES = timed_matches()
"""The equal-time matches on Ultimate Tic-Tac-Toe at the size the notebook shows."""

# -- equal time on the compiled engine: algorithms against algorithms -------------------
COMPILED_BASELINE = "uct:engine=compiled"
"""Plain UCT on the compiled engine: the opponent of :data:`COMPILED_VARIANTS`."""

COMPILED_VARIANTS = ("solver:engine=compiled", "rave:engine=compiled")
"""The variants that also run on the compiled engine, measured against :data:`COMPILED_BASELINE`."""

COMPILED_SECONDS = 0.005
"""Seconds per move of both sides in the compiled equal-time matches.

A quarter of :data:`SECONDS`: the compiled engine still runs thousands of iterations per
move in it (some 15,000 of plain UCT's on Ultimate Tic-Tac-Toe, 30,000 on Connect Four, on a
quiet core), tens of times what the Python variants reach in 0.02 s, so the
comparison is between deep searches; and a game then takes a few tenths of a second,
so 400 games per match regenerate in minutes."""

COMPILED_GAMES = 400
"""Games per compiled equal-time match: :data:`GAMES`, powered for a true score of 0.6 against 1/2."""


def compiled_matches(scale: float = 1.0) -> list[Pairing]:
    """The compiled equal-time matches: each of :data:`COMPILED_VARIANTS` against compiled UCT on both games.

    Both sides search on the compiled engine for :data:`COMPILED_SECONDS` per move, so what
    one side's iteration costs more than the other's is the algorithm's cost, not Python's.
    Played by :func:`timed_match`, in one process; ``scale`` multiplies the games.
    """
    baseline = _with(COMPILED_BASELINE, f"seconds={COMPILED_SECONDS}")
    return [
        Pairing(game, _with(v, f"seconds={COMPILED_SECONDS}"), baseline, max(2, round(COMPILED_GAMES * scale)), "time")
        for game in ("connect4", "uttt")
        for v in COMPILED_VARIANTS
    ]


COMPILED_MATCHES = compiled_matches()
"""The compiled equal-time matches at the size the notebook shows."""


def is_timed(pairing: Pairing) -> bool:
    """Whether ``pairing`` is an equal-time match whose file records iterations: Ultimate's, or any compiled one.

    Their iterations per move are shown (:func:`~mctslab.course.experiments.improvements.reach`)
    and their rows are labelled with the pairing's spec as written. Connect Four's
    equal-time games on the Python engine were played before results files recorded
    iterations and stay as stored.
    """
    compiled = pairing.baseline.startswith(COMPILED_BASELINE)
    return pairing.budget == "time" and (pairing.game == "uttt" or compiled)


@dataclass(frozen=True)
class TimedMatch:
    """An equal-time match's games, with what each side's clock allowed.

    Attributes:
        pairing: the match.
        result: its games (A: the variant, B: UCT), each with the seconds and iterations
            of both sides.
        decisions: moves A and B chose in each game, by index.
    """

    pairing: Pairing
    result: MatchResult
    decisions: tuple[tuple[int, int], ...]

    @property
    def outcomes(self) -> Outcomes:
        """The variant's (A's) wins, draws and losses."""
        return self.result.outcomes

    def iterations_per_move(self) -> tuple[float, float]:
        """Mean iterations per move that A (the variant) and B (UCT) reached in their time."""
        return self._per_move([g.iterations for g in self.result.results])

    def seconds_per_move(self) -> tuple[float, float]:
        """Mean wall-clock seconds per move of A and B (the budget, plus each move's overshoot)."""
        return self._per_move([g.seconds for g in self.result.results])

    def costs(self) -> Timings:
        """Seconds per iteration of B (``"uct"``, the baseline) and A (``"variant"``), one value per game.

        Both sides of a game share its clock and the machine's load while it lasts, so each
        game is a round of :class:`~mctslab.course.experiments.improvements.Timings`: its ratio
        is A's cost per iteration over B's in the same conditions (as many rounds as games).
        """
        games = self.result.results
        per_iteration = [tuple(s / n for s, n in zip(g.seconds, g.iterations, strict=True)) for g in games]
        variant, uct = zip(*per_iteration, strict=True)
        return Timings("uct", {"uct": uct, "variant": variant})

    def _per_move(self, totals: Sequence[Sequence[float]]) -> tuple[float, float]:
        """``(A, B)``: each side's sum of ``totals`` over the games, divided by its moves."""
        a, b = (sum(t[k] for t in totals) / sum(d[k] for d in self.decisions) for k in (0, 1))
        return (a, b)


def decisions(game: Game, moves: Sequence[int], a_first: bool) -> tuple[int, int]:
    """Moves A and B chose in a game of ``game`` that went ``moves`` (the game replayed)."""
    state, counts = game.initial_state(), [0, 0]
    for move in moves:
        counts[game.to_move(state)] += 1
        state = game.play(state, move)
    return (counts[0], counts[1]) if a_first else (counts[1], counts[0])


def warm_up(pairing: Pairing) -> None:
    """One search of each side from the initial position, thrown away: a kernel's compile is not a move's time.

    Agents of their own seed, so the match's games do not change.
    """
    game = make_game(pairing.game)
    for spec in (pairing.variant, pairing.baseline):
        make_agent(spec, seed=0).select_move(game, game.initial_state())


def timed_match(
    pairing: Pairing,
    out_dir: str | os.PathLike | None = None,
    *,
    games: int | None = None,
    progress: bool = False,
    play: bool = True,
) -> TimedMatch:
    """Play (or read back) an equal-time match in this process, with each side's seconds and iterations.

    Games already in ``out_dir``'s file are read, not played again; new games are
    appended as each batch ends (Ctrl-C keeps every finished game). The moves depend on
    this machine's speed, so a game played again need not be the same one. The file is
    the tournament's results file, with its checks and its lock.

    Args:
        pairing: the match (its variant and baseline with ``seconds=``).
        out_dir: the folder of the results files (``None``: play everything, keep nothing).
        games: the first ``games`` games (default: ``pairing.games``).
        progress: show a progress bar.
        play: play the missing games; ``False`` reads the finished match only
            (:func:`~mctslab.tournament.read_match`: nothing played, the file never
            changed, a missing or damaged game an error), as the notebook reads its stored games.

    Raises:
        ValueError: if the file holds another match, or games without iterations; with
            ``play=False``, if it lacks games or is damaged (a ``ResultsFileError``).
    """
    if play or out_dir is None:
        warm_up(pairing)
        result = head_to_head(pairing, out_dir, games=games, workers=1, progress=progress)
    else:
        n = pairing.games if games is None else games
        out = Path(out_dir) / pairing.filename
        result = read_match(pairing.game, pairing.variant, pairing.baseline, n, SEED, out=out)
    if any(g.iterations is None for g in result.results):
        raise ValueError(f"{pairing.filename} holds games without iterations; play the match again into a new file")
    game = make_game(result.game)
    return TimedMatch(pairing, result, tuple(decisions(game, g.moves, g.a_first) for g in result.results))
