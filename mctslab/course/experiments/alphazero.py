"""From UCT to AlphaZero, measured: PUCT with the shipped network against UCT and perfect play.

Notebook 10 draws its verdicts from the stored games of :data:`MATCHES` (under the
notebooks' ``data/10_from_uct_to_alphazero``), regenerated, resumable, by
``python -m mctslab.course.experiments.alphazero`` (a few minutes on one core).
Every match is a seeded :func:`~mctslab.tournament.play_match` of seed :data:`SEED`
(game ``i``: ``SeedSequence(SEED).spawn(...)[i]``), seats alternating, played in one
process so that the seconds each side spent are comparable.

How many games: each comparative match is sized by
:func:`~mctslab.tournament.stats.games_needed_one_sample` for the score a pilot measured
(:data:`EXPECTED`), at the Bonferroni confidence ``1 - 0.05 / COMPARISONS`` of the
notebook's :data:`COMPARISONS` interval verdicts, with power 0.8.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from ...tournament import play_match
from ...tournament.stats import Outcomes, games_needed_one_sample, wilson

SEED = 0
"""The seed of every match."""

COMPARISONS = 12
"""The interval verdicts notebook 10 draws: the bridge match, PUCT+net against UCT at 16, 32
and 64 simulations and at about equal time, UCT's loss rate against perfect play at 16, 32
and 64, the exploratory self-play's X score, and UCT's trap rate at 8, 32 and 128 iterations."""

CONFIDENCE = 1 - 0.05 / COMPARISONS
"""Bonferroni: each interval at this confidence, so that all of them hold together at 95%."""

EXPECTED = {"bridge": 0.53, "equal_time": 0.55, "versus_uct": 0.65}
"""The score each comparison is sized for: the bridge's and the equal-time match's from a pilot
at other seeds (2,000 and 400 games: 0.530 and 0.550), the smallest of the three matches at
equal simulations from notebook 10's first edition (100 games at 64 simulations: 0.650)."""


def games_for(expected: float) -> int:
    """Games (even, seats alternating) to tell a score of ``expected`` from 0.5 at :data:`CONFIDENCE`, power 0.8."""
    n = games_needed_one_sample(expected, 0.5, confidence=CONFIDENCE, power=0.8)
    return n + n % 2


@dataclass(frozen=True)
class Match:
    """One stored match: agent A (the row's subject) against B.

    Attributes:
        key: its name in :data:`MATCHES`.
        a: A's spec.
        b: B's spec.
        budget: the simulations per move the row is labelled with.
        games: games (seats alternating).
    """

    key: str
    a: str
    b: str
    budget: int
    games: int

    @property
    def filename(self) -> str:
        """The results file's name: both specs, readable."""
        text = f"{self.a}__vs__{self.b}"
        return text.replace(":", "_").replace(",", "_").replace("=", "-") + ".jsonl"


def _net(n: int) -> str:
    return f"puct:iterations={n},evaluator=net"


def _matches() -> tuple[Match, ...]:
    out = [
        Match("bridge", "puct:iterations=64,evaluator=rollout", "uct:iterations=64", 64, games_for(EXPECTED["bridge"]))
    ]
    out += [Match(f"uct{n}", _net(n), f"uct:iterations={n}", n, 400) for n in (16, 32, 64)]
    out.append(Match("equal_time", _net(32), "uct:iterations=256", 32, games_for(EXPECTED["equal_time"])))
    for n in (16, 32, 64):
        out += [Match(f"perfect_puct{n}", _net(n), "perfect", n, 400)]
        out += [Match(f"perfect_uct{n}", f"uct:iterations={n}", "perfect", n, 400)]
    return tuple(out)


MATCHES = {m.key: m for m in _matches()}
"""The notebook's matches by key: ``bridge``, ``uct16``/``uct32``/``uct64``, ``equal_time``,
``perfect_puct16``... and ``perfect_uct16``... (each agent against perfect play)."""

STORED_GAMES = "10_from_uct_to_alphazero"
"""The folder, under the notebooks' ``data/``, of notebook 10's stored games."""


@dataclass(frozen=True)
class Row:
    """One match: A (PUCT, or UCT against perfect play) against an opponent at a budget.

    Attributes:
        budget: simulations per move of A (and of B, unless B's spec says otherwise).
        puct: A's spec.
        opponent: the opponent's spec.
        outcomes: A's wins, draws and losses.
        seconds: total seconds A and the opponent spent choosing moves.
        moves: moves A and the opponent chose, over all the games.
        per_game: seconds A and the opponent spent in each game.
    """

    budget: int
    puct: str
    opponent: str
    outcomes: Outcomes
    seconds: tuple[float, float]
    moves: tuple[int, int] = (0, 0)
    per_game: tuple[tuple[float, float], ...] = ()

    def line(self, confidence: float = 0.95) -> str:
        """One readable line: budget, record, score with its interval at ``confidence``."""
        o = self.outcomes
        low, high = o.score_ci(confidence)
        return (
            f"{self.budget:>4} simulations vs {self.opponent:<20} {o.wins:>4} W {o.draws:>4} D {o.losses:>4} L  "
            f"score {o.score:.3f} [{low:.3f}, {high:.3f}]"
        )

    def ms_per_move(self) -> tuple[float, float]:
        """Mean milliseconds per move of A and of the opponent."""
        return tuple(1000 * s / max(1, m) for s, m in zip(self.seconds, self.moves, strict=True))  # type: ignore[return-value]

    def time_ratio(self) -> tuple[float, float, float]:
        """A's seconds over the opponent's, game by game: the median and the quartiles ``(q1, median, q3)``.

        A median over games moves less with the machine's load than the ratio of the totals.
        """
        ratios = sorted(a / b for a, b in self.per_game if b > 0)
        if not ratios:
            return (float("nan"),) * 3  # type: ignore[return-value]
        return tuple(float(np.quantile(ratios, q)) for q in (0.25, 0.5, 0.75))  # type: ignore[return-value]


def _moves(result) -> tuple[int, int]:
    a = sum((r.plies + r.a_first) // 2 for r in result.results)
    return (a, sum(r.plies for r in result.results) - a)


def match_row(
    a: str,
    b: str,
    budget: int,
    games: int,
    seed: int = SEED,
    *,
    game: str = "tictactoe",
    out: str | os.PathLike | None = None,
    progress: bool = False,
) -> Row:
    """One seeded match of ``a`` against ``b`` (seats alternating, in this process) as a :class:`Row`.

    Args:
        a: the first agent's spec.
        b: the opponent's spec.
        budget: the simulations per move the row is labelled with.
        games: games, >= 1.
        seed: the match's seed.
        game: the game's spec.
        out: a resumable results file, or ``None``.
        progress: a progress bar.
    """
    r = play_match(game, a, b, games=games, seed=seed, out=out, workers=1, progress=progress)
    return Row(budget, a, b, r.outcomes, r.seconds, _moves(r), tuple(g.seconds for g in r.results))


def stored_games(folder: str | os.PathLike = Path("data") / STORED_GAMES) -> Path:
    """The folder of notebook 10's stored games: ``folder`` if it holds them all, else the installed course's copy.

    Raises:
        FileNotFoundError: neither holds every results file of :data:`MATCHES` (the message says how to make them).
    """
    from ..editions import DATA_FOLDER, NOTEBOOKS

    wanted = [m.filename for m in MATCHES.values()]
    for candidate in (Path(folder), NOTEBOOKS / DATA_FOLDER / STORED_GAMES):
        if all((candidate / name).is_file() for name in wanted):
            return candidate
    missing = [name for name in wanted if not (Path(folder) / name).is_file()]
    raise FileNotFoundError(
        f"stored results not found at {Path(folder).resolve()} ({len(missing)} of {len(wanted)} files missing, "
        f"such as {missing[0]}): run `python -m mctslab.course.experiments.alphazero {folder}` to make them"
    )


def stored_row(key: str, folder: str | os.PathLike, *, progress: bool = False) -> Row:
    """The match ``key`` of :data:`MATCHES` read back from ``folder`` (missing games are played and appended).

    Raises:
        KeyError: for an unknown key (the message lists the known ones).
    """
    if key not in MATCHES:
        raise KeyError(f"unknown match {key!r}; known: {', '.join(MATCHES)}")
    m = MATCHES[key]
    return match_row(m.a, m.b, m.budget, m.games, out=Path(folder) / m.filename, progress=progress)


def versus_uct(
    budgets: Sequence[int] = (16, 32, 64),
    games: int = 400,
    seed: int = SEED,
    *,
    game: str = "tictactoe",
    progress: bool = False,
) -> list[Row]:
    """PUCT with the shipped network against plain UCT at equal simulations, played now (nothing stored).

    Args:
        budgets: simulations per move (both agents).
        games: games per budget, seats alternating.
        seed: the seed of every match (the same games' seeds at every budget).
        game: the game's spec (a network must be shipped for it).
        progress: progress bars.
    """
    return [match_row(_net(n), f"uct:iterations={n}", n, games, seed, game=game, progress=progress) for n in budgets]


@dataclass(frozen=True)
class TrapRate:
    """How often an agent avoids the flat Monte Carlo traps of notebook 02 at one budget.

    Attributes:
        agent: the agent's spec.
        budget: its simulations per move.
        safe: searches that chose a move that does not lose against perfect play.
        searches: searches run (traps x seeds).
        deterministic: one search per trap of an agent with nothing random in its search:
            ``safe / searches`` is then the exact share of the traps it avoids.
    """

    agent: str
    budget: int
    safe: int
    searches: int
    deterministic: bool = False

    @property
    def exact(self) -> Fraction | None:
        """The exact share of the traps avoided (a deterministic agent), else ``None``."""
        return Fraction(self.safe, self.searches) if self.deterministic else None

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of the rate (a point, the exact share, for a deterministic agent)."""
        if self.deterministic:
            return (self.safe / self.searches,) * 2  # type: ignore[return-value]
        return wilson(self.safe, self.searches, confidence)


def trap_rates(
    kinds: Sequence[str] = ("uct", "puct"),
    budgets: Sequence[int] = (8, 32, 128),
    seeds: int = 5,
    seed: int = SEED,
    *,
    progress: bool = False,
) -> list[TrapRate]:
    """Search every trap position of :func:`mctslab.exact.flat_traps` (tic-tac-toe) at each budget.

    Args:
        kinds: ``"uct"`` (plain UCT) and/or ``"puct"`` (PUCT with the shipped network).
        budgets: simulations per search.
        seeds: UCT's searches per position and budget (each with its own seed). PUCT with
            the network searches each position once: nothing in its search is random (no
            playouts, no root noise), so more seeds would repeat the same search.
        seed: the seed the searches' seeds come from.
        progress: a progress bar over the (kind, budget) pairs.

    Returns:
        One :class:`TrapRate` per kind and budget, in that order.
    """
    from tqdm.auto import tqdm

    from ...agents.registry import make_agent
    from ...exact import flat_traps
    from ...games import make_game
    from ...seeding import child_seed

    game = make_game("tictactoe")
    traps = flat_traps(game)
    rows = []
    pairs = [(k, kind, n) for k, kind in enumerate(kinds) for n in budgets]
    for k, kind, n in tqdm(pairs, desc="trap searches", disable=not progress):
        spec = f"uct:iterations={n}" if kind == "uct" else _net(n)
        safe = 0
        repeats = seeds if kind == "uct" else 1
        for t, trap in enumerate(traps):
            for s in range(repeats):
                agent = make_agent(spec, seed=child_seed(seed, (k, n, t, s)))
                safe += agent.select_move(game, trap.state) in trap.safe
        rows.append(TrapRate(spec, n, safe, len(traps) * repeats, deterministic=kind == "puct"))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Play every missing game of :data:`MATCHES` and the self-play games into ``OUT_DIR``."""
    from .alphazero_selfplay import SELF_PLAY_GAMES, exploratory_self_play

    parser = argparse.ArgumentParser(prog="python -m mctslab.course.experiments.alphazero", description=main.__doc__)
    parser.add_argument("out_dir", nargs="?", default=f"notebooks/data/{STORED_GAMES}")
    parser.add_argument("--out", default=None, help="the same folder, as an option (the README's spelling)")
    parser.add_argument(
        "--only", default="", help="play only what has this in its key (a key of MATCHES, or self_play)"
    )
    args = parser.parse_args(argv)
    folder = Path(args.out if args.out is not None else args.out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for key in MATCHES:
        if args.only in key:
            row = stored_row(key, folder, progress=True)
            print(f"{key:<15}", row.line(CONFIDENCE), flush=True)
    if args.only in "self_play":  # "" (everything) or a part of the key
        scores = exploratory_self_play(SELF_PLAY_GAMES, out=folder, progress=True)
        print(f"self-play: X scores {scores.score:.3f} in {scores.games} games", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
