"""The matches of notebook 09: each variant against plain UCT, at equal iterations and at equal time.

Every match is a :func:`mctslab.tournament.play_match` of :data:`SEED` (game ``i``:
``SeedSequence(SEED).spawn(...)[i]``, seats alternating), written to one results file per
:class:`Pairing` in the tournament's format (one JSON line per game, with each side's
seconds and iterations), so a run resumes where it stopped and the notebook reads the
games back. The equal-time matches that record each side's iterations are in
:mod:`.timed`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ....tournament import MatchResult, play_match, read_match
from ..curves import Curve


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
notebook's 29 comparisons: ``games_needed_one_sample(0.6, 0.5, confidence=1 - 0.05 / 29)``
is 392 (:mod:`mctslab.tournament.stats`). A game takes 0.05-1 s on a quiet core."""

COSTLY_GAMES = 150
"""Games of decisive playouts against UCT on Ultimate Tic-Tac-Toe at equal iterations: a game
there takes about 1 s on a quiet core (each decisive playout costs some 30 random ones), so fewer
games, powered for a larger effect (a true score of about 0.67 against 1/2)."""

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
