"""Notebook 09's equal-time matches that record what each side's clock allowed: :func:`timed_match`.

:data:`TIMED_MATCHES`: every variant against plain UCT on Ultimate Tic-Tac-Toe at
:data:`~.matches.SECONDS` per move, on the Python engine; :data:`COMPILED_MATCHES`: the compiled
solver and RAVE against the compiled UCT on both games, which compare the algorithms rather
than their implementations. Both are played in one process (concurrent games would share the
cores their clocks measure), into the tournament's results files, each game with the seconds
and iterations of both sides.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ....agents import make_agent
from ....games import Game, make_game
from ....tournament import MatchResult, Outcomes, read_match
from .costs import Timings
from .matches import SECONDS, SEED, VARIANTS, Pairing, _with, head_to_head

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
move in it (plain UCT reached some 12,000 on Ultimate Tic-Tac-Toe and 37,000 on Connect Four
in the stored games, at a load average of 1 to 2 on 2 cores), tens of times what the Python
variants reach in 0.02 s, so the comparison is between deep searches; and a game then takes a few tenths of a second,
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

COMPILED_ITERATIONS = 5000
"""Iterations per move of both sides in the compiled equal-iterations matches.

Thousands, so the comparison is about deep searches (compiled UCT reached some 12,000 on
Ultimate Tic-Tac-Toe and 37,000 on Connect Four in :data:`COMPILED_SECONDS`), and few enough
that a game takes about 0.04 s on Connect Four and 0.25 s on Ultimate on a quiet core: the
four matches of :data:`COMPILED_GAMES` play in about four minutes on one core."""


def compiled_iteration_matches(scale: float = 1.0) -> list[Pairing]:
    """Each of :data:`COMPILED_VARIANTS` against compiled UCT on both games at :data:`COMPILED_ITERATIONS` each.

    Equal iterations on the compiled engine: whether an enhancement helps per iteration in
    deep searches, apart from what an iteration costs. Seeded and reproducible (no clock):
    played by :func:`~.matches.head_to_head` like the Python engine's equal-iterations
    matches; ``scale`` multiplies the games.
    """
    budget = f"iterations={COMPILED_ITERATIONS}"
    return [
        Pairing(game, _with(v, budget), _with(COMPILED_BASELINE, budget), max(2, round(COMPILED_GAMES * scale)))
        for game in ("connect4", "uttt")
        for v in COMPILED_VARIANTS
    ]


COMPILED_ITERATION_MATCHES = compiled_iteration_matches()
"""The compiled equal-iterations matches at the size the notebook shows (files ``*compiled_iterations-5000*``)."""


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

    def time_ratios(self) -> tuple[float, ...]:
        """Per game, A's seconds per move over B's (1 when both kept to the same clock)."""
        games = zip(self.result.results, self.decisions, strict=True)
        return tuple((g.seconds[0] / a) / (g.seconds[1] / b) for g, (a, b) in games)

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
