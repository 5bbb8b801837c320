"""From UCT to AlphaZero, measured: PUCT with the shipped network against UCT and perfect play.

The notebook "From UCT to AlphaZero" imports these; the closing numbers of the PUCT issue
come from :func:`versus_uct` at 400 games per budget (``python -m mctslab.course.experiments.alphazero``).
Every match is a seeded :func:`~mctslab.tournament.play_match`, seats swapped, written to a
results file when ``out`` is given, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...tournament import play_match
from ...tournament.stats import Outcomes


@dataclass(frozen=True)
class Row:
    """One match of the measurements: PUCT+net (A) against an opponent at a budget.

    Attributes:
        budget: simulations per move of both agents (PUCT's and, for UCT, UCT's).
        puct: PUCT's spec.
        opponent: the opponent's spec.
        outcomes: PUCT's wins, draws and losses, with Wilson intervals.
        seconds: total seconds PUCT and the opponent spent choosing moves.
    """

    budget: int
    puct: str
    opponent: str
    outcomes: Outcomes
    seconds: tuple[float, float]

    def line(self) -> str:
        """One readable line: budget, record, score with its 95% interval."""
        o = self.outcomes
        low, high = o.score_ci()
        return (
            f"{self.budget:>4} simulations vs {self.opponent:<20} {o.wins:>4} W {o.draws:>4} D {o.losses:>4} L  "
            f"score {o.score:.3f} [{low:.3f}, {high:.3f}]"
        )


def match_row(
    a: str,
    b: str,
    budget: int,
    games: int,
    seed: int,
    *,
    game: str = "tictactoe",
    out: Path | None = None,
    progress: bool = False,
) -> Row:
    """One seeded match of ``a`` against ``b`` (seats alternating) as a :class:`Row`.

    Args:
        a: the first agent's spec (PUCT in this module's rows).
        b: the opponent's spec.
        budget: the simulations per move the row is labelled with.
        games: games, >= 1.
        seed: the match's seed.
        game: the game's spec.
        out: a folder for the match's resumable results file, or ``None``.
        progress: a progress bar.
    """
    path = None if out is None else out / f"{a.split(':')[0]}_vs_{b.split(':')[0]}_{budget}.jsonl"
    r = play_match(game, a, b, games=games, seed=seed, out=path, progress=progress)
    return Row(budget, a, b, r.outcomes, r.seconds)


def versus_uct(
    budgets: Sequence[int] = (16, 32, 64),
    games: int = 400,
    seed: int = 0,
    *,
    game: str = "tictactoe",
    out: str | Path | None = None,
    progress: bool = False,
) -> list[Row]:
    """PUCT with the shipped network against plain UCT, at equal simulations per move.

    Args:
        budgets: simulations per move (both agents).
        games: games per budget, seats alternating.
        seed: the seed of every match (the same games' seeds at every budget).
        game: the game's spec (a network must be shipped for it).
        out: a folder for the results files (resumable), or ``None``.
        progress: progress bars.
    """
    folder = None if out is None else Path(out)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    return [
        match_row(
            f"puct:iterations={n},evaluator=net",
            f"uct:iterations={n}",
            n,
            games,
            seed,
            game=game,
            out=folder,
            progress=progress,
        )  # fmt: skip
        for n in budgets
    ]


def versus_perfect(
    budgets: Sequence[int] = (32,),
    games: int = 100,
    seed: int = 0,
    *,
    opponent: str = "uct",
    out: str | Path | None = None,
    progress: bool = False,
) -> list[Row]:
    """Perfect play (tic-tac-toe) against PUCT+net and against ``opponent`` at the same budgets.

    Returns:
        For each budget, the PUCT row then the ``opponent`` row (its spec as agent A).
    """
    folder = None if out is None else Path(out)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in budgets:
        for a in (f"puct:iterations={n},evaluator=net", f"{opponent}:iterations={n}"):
            rows.append(match_row(a, "perfect", n, games, seed, out=folder, progress=progress))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """The closing measurements: ``python -m mctslab.course.experiments.alphazero --out DIR``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="folder for the resumable results files")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for row in versus_uct(games=args.games, seed=args.seed, out=args.out, progress=True):
        print(row.line(), f"(seconds: PUCT {row.seconds[0]:.1f}, UCT {row.seconds[1]:.1f})", flush=True)
    for row in versus_perfect((16, 32, 64), games=args.games, seed=args.seed, out=args.out, progress=True):
        print(row.puct.split(",")[0], row.line(), flush=True)


if __name__ == "__main__":
    main()


@dataclass(frozen=True)
class TrapRate:
    """How often an agent avoids the flat Monte Carlo traps of notebook 02 at one budget.

    Attributes:
        agent: the agent's spec.
        budget: its simulations per move.
        safe: searches that chose a move that does not lose against perfect play.
        searches: searches run (traps x seeds).
    """

    agent: str
    budget: int
    safe: int
    searches: int

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of the rate ``safe / searches``."""
        from ...tournament.stats import wilson

        return wilson(self.safe, self.searches)


def trap_rates(
    kinds: Sequence[str] = ("uct", "puct"), budgets: Sequence[int] = (8, 32, 128), seeds: int = 5, seed: int = 0
) -> list[TrapRate]:
    """Search every trap position of :func:`mctslab.exact.flat_traps` (tic-tac-toe) at each budget.

    Args:
        kinds: ``"uct"`` (plain UCT) and/or ``"puct"`` (PUCT with the shipped network).
        budgets: simulations per search.
        seeds: UCT's searches per position and budget (each with its own seed). PUCT with
            the network searches each position once: nothing in its search is random (no
            playouts, no root noise), so more seeds would repeat the same search.
        seed: the seed the searches' seeds come from.

    Returns:
        One :class:`TrapRate` per kind and budget, in that order.
    """
    from ...agents.registry import make_agent
    from ...exact import flat_traps
    from ...games import make_game
    from ...seeding import child_seed

    game = make_game("tictactoe")
    traps = flat_traps(game)
    rows = []
    for k, kind in enumerate(kinds):
        for n in budgets:
            spec = f"uct:iterations={n}" if kind == "uct" else f"puct:iterations={n},evaluator=net"
            safe = 0
            repeats = seeds if kind == "uct" else 1
            for t, trap in enumerate(traps):
                for s in range(repeats):
                    agent = make_agent(spec, seed=child_seed(seed, (k, n, t, s)))
                    safe += agent.select_move(game, trap.state) in trap.safe
            rows.append(TrapRate(spec, n, safe, len(traps) * repeats))
    return rows
