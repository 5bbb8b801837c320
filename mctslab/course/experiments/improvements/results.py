"""Notebook 09's measured table (variant x game x budget -> score against UCT) and what each clock allowed.

Both are read back from the results files of :mod:`.matches` and show themselves as a
:class:`mctslab.display.Table` laid out in fixed widths (text in a terminal and in the
notebook's stored outputs, the same text preformatted in HTML).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ....display import ShownAsTable, Table
from ....tournament import Outcomes
from ....tournament.stats import games_needed_one_sample
from .matches import CURVE_MATCHES, MATCHES, Pairing, stored_match
from .timed import COMPILED_ITERATION_MATCHES, COMPILED_MATCHES, TIMED_MATCHES, TimedMatch, is_timed, timed_match


@dataclass(frozen=True, repr=False)
class Reach(ShownAsTable):
    """What each side's clock allowed in the equal-time matches on this machine; shows itself."""

    matches: tuple[TimedMatch, ...]

    def as_table(self) -> Table:
        """One row per match: seconds per move and mean iterations per move of each side."""
        rows = []
        for m in self.matches:
            (sa, sb), (ia, ib) = m.seconds_per_move(), m.iterations_per_move()
            name = f"{m.pairing.variant}"
            rows.append([m.pairing.game.split(":")[0], name, f"{sa:.4f}", f"{sb:.4f}", f"{ia:.1f}", f"{ib:.1f}"])
        headers = ["game", "variant (A) vs uct (B), same engine", "s/move A", "s/move B", "it/move A", "it/move B"]
        return Table(headers, rows, align="llrrrr", widths=(10, 38, 9, 9, 10, 10))


def reach(out_dir: str | os.PathLike, pairings: Sequence[Pairing] | None = None) -> Reach:
    """Seconds and iterations per move of :data:`TIMED_MATCHES` and :data:`COMPILED_MATCHES` (read back only)."""
    pairings = [*TIMED_MATCHES, *COMPILED_MATCHES] if pairings is None else pairings
    return Reach(tuple(timed_match(p, out_dir, play=False) for p in pairings))


TABLE_MATCHES = [*MATCHES, *TIMED_MATCHES, *COMPILED_MATCHES, *COMPILED_ITERATION_MATCHES]
"""The measured table's matches, in its order."""

COMPARISONS = len({p.filename for p in [*TABLE_MATCHES, *CURVE_MATCHES]})
"""How many matches notebook 09 compares with 1/2 (the table's 24 and the budget curve's 5 others): 29."""


def bonferroni(comparisons: int = COMPARISONS, alpha: float = 0.05) -> float:
    """The confidence of each of ``comparisons`` intervals so that all hold together with probability >= ``1 - alpha``.

    Bonferroni: if each interval misses with probability at most ``alpha / comparisons``,
    the chance that any of them misses is at most ``alpha``.
    """
    if comparisons < 1:
        raise ValueError(f"comparisons must be at least 1, got {comparisons}")
    return 1 - alpha / comparisons


def detectable_score(games: int, confidence: float, power: float = 0.8) -> float:
    """The smallest true score (in hundredths, above 1/2) that ``games`` games tell from 1/2 with ``power``.

    The inverse of :func:`~mctslab.tournament.stats.games_needed_one_sample` on a grid of
    hundredths: a match of 400 games at the notebook's Bonferroni level detects 0.60. Returns
    1.0 when even a score of 0.99 needs more games.
    """
    for hundredths in range(51, 100):
        if games_needed_one_sample(hundredths / 100, 0.5, confidence, power) <= games:
            return hundredths / 100
    return 1.0


@dataclass(frozen=True)
class Row:
    """One line of the measured table: a variant's score against plain UCT, with its interval.

    Attributes:
        game: the game's spec.
        variant: the variant's spec.
        budget: ``"iterations"`` or ``"time"``.
        outcomes: the variant's wins, draws and losses.
        confidence: the confidence of the score's interval (:func:`bonferroni` for the notebook's).
    """

    game: str
    variant: str
    budget: str
    outcomes: Outcomes
    confidence: float = 0.95

    @property
    def interval(self) -> tuple[float, float]:
        """The score's interval (:meth:`~mctslab.tournament.Outcomes.score_ci` at :attr:`confidence`)."""
        return self.outcomes.score_ci(self.confidence)

    @property
    def verdict(self) -> str:
        """``"better"``/``"worse"`` than UCT when the score's interval excludes 1/2, else ``"not shown"``."""
        low, high = self.interval
        return "better" if low > 0.5 else "worse" if high < 0.5 else "not shown"


@dataclass(frozen=True, repr=False)
class MeasuredTable(ShownAsTable):
    """The measured table (enhancement x game x budget -> score vs UCT [interval]); shows itself."""

    rows: tuple[Row, ...]

    def as_table(self) -> Table:
        """The table, under 100 characters wide."""
        cells = []
        for r in self.rows:
            o = r.outcomes
            low, high = r.interval
            # two spaces lead the score column: the text shows them between games and score
            score = f"  {o.score:.3f} [{low:.3f}, {high:.3f}]"
            cells.append([r.game.split(":")[0], r.variant, r.budget, str(o.games), score, r.verdict])
        level = {r.confidence for r in self.rows}
        label = f"{100 * level.pop():.2f}%".replace(".00%", "%") if len(level) == 1 else "interval"
        headers = ["game", "variant (A) vs uct, same engine", "budget", "games", f"  score [{label}]", "verdict"]
        return Table(headers, cells, align="lllrll", widths=(9, 40, 11, 6, 24, 0))

    def row(self, game: str, variant: str, budget: str = "iterations") -> Row:
        """The row of ``variant`` (its name before ``:``, or the full spec) on ``game``."""
        for r in self.rows:
            if (
                r.game.split(":")[0] == game
                and r.budget == budget
                and (r.variant == variant or _short(r.variant) == variant)
            ):
                return r
        raise KeyError((game, variant, budget))


def _short(spec: str) -> str:
    name, _, rest = spec.partition(":")
    extra = [p for p in rest.split(",") if not p.startswith(("iterations=", "seconds="))]
    return ":".join([name, ",".join(extra)]) if extra else name


def measured_table(
    out_dir: str | os.PathLike, pairings: Sequence[Pairing] | None = None, confidence: float = 0.95
) -> MeasuredTable:
    """The table of :data:`TABLE_MATCHES` (equal iterations, equal time, compiled at both) read from ``out_dir``.

    Read only (:func:`~.matches.stored_match`, and ``timed_match(..., play=False)`` for the
    equal-time matches): a missing or damaged game is an error, never played here (run the
    command first). Intervals at ``confidence``. The equal-time rows show the variant's spec as
    the pairing writes it; the others, as the results file does.
    """
    rows = []
    for p in TABLE_MATCHES if pairings is None else pairings:
        if is_timed(p):
            rows.append(Row(p.game, p.variant, p.budget, timed_match(p, out_dir, play=False).outcomes, confidence))
        else:
            result = stored_match(p, out_dir)
            rows.append(Row(result.game, result.a, p.budget, result.outcomes, confidence))
    return MeasuredTable(tuple(rows))


LOAD_LOG = "machine_load.jsonl"
"""The file, beside the results, where each equal-time run notes the machine's load (one JSON line per run)."""


def machine_load(folder: str | os.PathLike) -> tuple[dict, ...]:
    """The runs noted in ``folder``'s :data:`LOAD_LOG`: file, games before and after, UTC start and end, load averages.

    ``loadavg_start`` and ``loadavg_end`` are :func:`os.getloadavg` (1, 5 and 15 minutes) when
    the run started and ended, ``cpus`` the machine's processors. Empty when there is no log.
    """
    path = Path(folder) / LOAD_LOG
    return tuple(json.loads(line) for line in path.read_text().splitlines()) if path.is_file() else ()


STORED_GAMES = "09_improving_uct"
"""The folder, under the notebooks' ``data/``, of notebook 09's stored games."""


def stored_games(folder: str | os.PathLike = Path("data") / STORED_GAMES) -> Path:
    """The folder of notebook 09's stored games: ``folder`` if it holds them, else the installed course's copy.

    The notebook draws its verdicts from these games only: a missing file is an error that
    says how to make it, never a few games played on the spot.

    Args:
        folder: where the notebook expects them (``data/09_improving_uct`` beside it, as in
            the repository's ``notebooks/`` and in the student edition).

    Raises:
        FileNotFoundError: neither ``folder`` nor the installed copy holds every results file.
    """
    from ...editions import DATA_FOLDER, NOTEBOOKS  # the installed course's notebooks, else the repository's

    wanted = {p.filename for p in [*TABLE_MATCHES, *CURVE_MATCHES]}
    for candidate in (Path(folder), NOTEBOOKS / DATA_FOLDER / STORED_GAMES):
        if all((candidate / name).is_file() for name in wanted):
            return candidate
    missing = sorted(name for name in wanted if not (Path(folder) / name).is_file())
    raise FileNotFoundError(
        f"stored results not found at {Path(folder).resolve()} ({len(missing)} of {len(wanted)} files missing, "
        f"such as {missing[0]}): run `python -m mctslab.course.experiments.improvements {folder}` to make them "
        "(hours), or use the repository's notebooks/data/09_improving_uct"
    )
