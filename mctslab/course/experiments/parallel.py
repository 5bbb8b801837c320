"""Notebook 13's experiment: Chaslot, Winands and van den Herik (2008)'s strength-speedup on Connect Four.

The paper's measure: a parallel program's **strength-speedup** is how many times longer the
one-thread program must search to reach the parallel program's winning rate against a fixed
opponent. Here time is playouts, and the threads are simulated
(:class:`~mctslab.agents.simparallel.SimParallel`), so the result depends on the algorithm only:

* the **curve**: sequential UCT at ``N, 2N, ..., 64N`` playouts per move against a fixed
  opponent (:data:`OPPONENT`), one seeded match each;
* the **points**: each mode (root, tree, tree without virtual loss, leaf) at ``K = 2, 4, 8, 16``
  workers of ``N`` playouts each, against the same opponent;
* :func:`difference_interval`: two points' scores compared;
* :data:`PAPER_TABLE` and :func:`beside_the_paper`: the paper's strength-speedups as a
  secondary source transcribes them (the paper itself was not read), beside ours;
* :func:`strength_speedup`: the budget multiple at which the curve reaches a point's score
  (linear in log2 of the budget between the measured budgets), with an interval from the
  point's score interval and the curve's own intervals (:func:`speedup_interval`).

Sequential UCT and the opponent run on the compiled engine (``engine=compiled``: the same
algorithm as the Python UCT the simulated workers run, many times faster).
``python -m mctslab.course.experiments.parallel`` regenerates the stored runs (resumable:
one results file per match, in :data:`FOLDER`; about 15 minutes on two cores).
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from ...tournament import ResultsFileError, play_match, read_match
from ...tournament.stats import Outcomes

GAME = "connect4"
N = 50
"""Playouts per move of one worker, and the sequential curve's first budget."""
OPPONENT = "uct:iterations=400,engine=compiled"
"""The fixed opponent: compiled UCT at ``8 N`` playouts per move (the curve's middle)."""
MULTIPLES = (1, 2, 4, 8, 16, 32, 64)
"""The sequential budgets, as multiples of :data:`N`."""
WORKERS = (2, 4, 8, 16)
MODES = ("root", "tree", "treenovl", "leaf")
GAMES = 2000
SEED = 13
FOLDER = Path("notebooks/data/13_parallel_search")


def sequential_spec(multiple: int, n: int = N) -> str:
    """Compiled UCT at ``multiple x n`` playouts per move."""
    return f"uct:iterations={multiple * n},engine=compiled"


THREADS = (2, 4)
"""Real threads measured: root parallelism on the compiled engine (:func:`threads_spec`)."""


def threads_spec(threads: int, n: int = N) -> str:
    """Compiled UCT with real root parallelism: ``threads`` trees of ``n`` playouts each, searched in threads."""
    from ...agents import make_agent

    return make_agent(f"uct:iterations={n},engine=compiled,threads={threads},parallel=root").spec


def run_threads(
    games: int = GAMES, folder: str | os.PathLike | None = FOLDER, progress: bool = True
) -> dict[int, Outcomes]:
    """Real root parallelism at each of :data:`THREADS` threads against :data:`OPPONENT` (resumable with ``folder``).

    The same algorithm as ``simparallel:mode=root`` at as many workers, on the compiled engine
    with real threads: the two should play alike (the notebook compares them).
    """
    return {k: run_match(threads_spec(k), games, folder, progress) for k in THREADS}


def parallel_spec(mode: str, workers: int, n: int = N) -> str:
    """Simulated ``mode`` parallelization with ``workers`` workers of ``n`` playouts each (canonical spec)."""
    from ...agents import make_agent

    return make_agent(f"simparallel:iterations={n},workers={workers},mode={mode}").spec


def _file(name: str) -> str:
    return name.replace(":", "_").replace(",", "_").replace("=", "-") + ".jsonl"


def run_match(
    spec: str, games: int = GAMES, folder: str | os.PathLike | None = FOLDER, progress: bool = True
) -> Outcomes:
    """``spec`` against :data:`OPPONENT` at Connect Four, seats alternating, seed :data:`SEED`; A's outcomes.

    With ``folder``, the games go to (and are read back from) one results file per spec there:
    a finished file is read without a progress bar (nothing to play), any other is resumed.
    """
    out = None if folder is None else Path(folder) / _file(spec)
    if out is not None:
        if out.exists():
            try:
                return read_match(GAME, spec, OPPONENT, games, SEED, out=out).outcomes
            except ResultsFileError:  # unfinished (or damaged): play_match resumes it, with its own checks
                pass
        out.parent.mkdir(parents=True, exist_ok=True)
    return play_match(GAME, spec, OPPONENT, games=games, seed=SEED, workers=1, out=out, progress=progress).outcomes


@dataclass(frozen=True)
class Results:
    """The sequential curve and the parallel points.

    Attributes:
        curve: ``{multiple: outcomes}`` of sequential UCT at ``multiple x N``.
        points: ``{(mode, workers): outcomes}`` of the simulated parallel searches.
    """

    curve: dict[int, Outcomes]
    points: dict[tuple[str, int], Outcomes]


def run_all(
    games: int = GAMES,
    folder: str | os.PathLike | None = FOLDER,
    modes: Sequence[str] = MODES,
    workers: Sequence[int] = WORKERS,
    progress: bool = True,
) -> Results:
    """Every match of the experiment (resumable with ``folder``): the curve, then each mode's points.

    ``progress``: a bar (``tqdm.auto``) counting the matches read or played, and each played match's own.
    """
    keys = [*MULTIPLES, *((mode, k) for mode in modes for k in workers)]
    found: dict = {}
    for key in tqdm(keys, desc="matches read or played", unit="match", disable=not progress):
        spec = sequential_spec(key) if isinstance(key, int) else parallel_spec(*key)
        found[key] = run_match(spec, games, folder, progress)
    return Results({m: found[m] for m in MULTIPLES}, {k: v for k, v in found.items() if not isinstance(k, int)})


def _monotone(values: Sequence[float]) -> list[float]:
    """The running maximum: the curve made non-decreasing before it is inverted."""
    out, best = [], -math.inf
    for v in values:
        best = max(best, v)
        out.append(best)
    return out


def invert(score: float, multiples: Sequence[int], scores: Sequence[float]) -> float:
    """The budget multiple at which a curve through ``(multiples, scores)`` reaches ``score``.

    Linear in log2 of the multiple between measured budgets, on the running maximum of
    ``scores``. Below the curve's first score: ``multiples[0]`` (a lower end, at most that);
    above its last: ``inf`` (beyond the measured budgets).
    """
    ys = _monotone(scores)
    if score <= ys[0]:
        return float(multiples[0])
    for i in range(1, len(ys)):
        (x0, y0), (x1, y1) = (multiples[i - 1], ys[i - 1]), (multiples[i], ys[i])
        if y0 < score <= y1:
            t = (score - y0) / (y1 - y0)
            return 2 ** (math.log2(x0) + t * (math.log2(x1) - math.log2(x0)))
    return math.inf


def strength_speedup(point: Outcomes, curve: dict[int, Outcomes]) -> float:
    """The sequential budget multiple that scores what ``point`` scores (point estimates)."""
    multiples = sorted(curve)
    return invert(point.score, multiples, [curve[m].score for m in multiples])


def speedup_interval(point: Outcomes, curve: dict[int, Outcomes], confidence: float) -> tuple[float, float]:
    """An interval on the strength-speedup: the point's score interval inverted through the curve's bands.

    The low end is where the curve's *upper* band reaches the point's low score, the high
    end where the curve's *lower* band reaches its high score, so both the point's noise and
    the curve's are in it (each interval at ``confidence``).
    """
    multiples = sorted(curve)
    bands = [curve[m].score_ci(confidence) for m in multiples]
    low_score, high_score = point.score_ci(confidence)
    low = invert(low_score, multiples, [b[1] for b in bands])
    high = invert(high_score, multiples, [b[0] for b in bands])
    return low, high


def difference_interval(a: Outcomes, b: Outcomes, confidence: float) -> tuple[float, float]:
    """An interval on ``a.score - b.score`` (independent matches) from the two score intervals.

    Newcombe's (1998) square-and-add of the distances from each estimate to its interval's ends
    (the MOVER method): ``d - sqrt((a - a_low)^2 + (b_high - b)^2)`` to
    ``d + sqrt((a_high - a)^2 + (b - b_low)^2)``.
    """
    (a_low, a_high), (b_low, b_high) = a.score_ci(confidence), b.score_ci(confidence)
    d = a.score - b.score
    return (
        d - math.sqrt((a.score - a_low) ** 2 + (b_high - b.score) ** 2),
        d + math.sqrt((a_high - a.score) ** 2 + (b.score - b_low) ** 2),
    )


PAPER_LABEL = "the paper's table as transcribed by a secondary source (the paper itself was not read)"
"""How :data:`PAPER_TABLE` is to be shown, every time it is shown."""
PAPER_METHODS = (
    "leaf",
    "root",
    "tree, global mutex",
    "tree, local mutexes",
    "tree, local mutexes + virtual loss",
)
"""The columns of :data:`PAPER_TABLE`, in its order."""
PAPER_TABLE: dict[int, tuple[float, ...]] = {
    2: (1.2, 3.0, 1.6, 1.9, 2.0),
    4: (1.7, 6.5, 3.0, 3.0, 3.6),
    16: (2.4, 14.9, 2.6, 3.3, 8.5),
}
"""Chaslot, Winands and van den Herik (2008)'s strength-speedups in Mango on 13 x 13 Go, by threads.

Threads -> one strength-speedup per method of :data:`PAPER_METHODS`. :data:`PAPER_LABEL`: the
paper's own text was not reachable; these numbers are its table as a public thesis repository
transcribes it (ofilip/Distributed-Monte-Carlo-Tree-Search, ``tests/r/parallel-mcts-matrix.txt``);
the 16-thread row and root's 6.5 at 4 threads agree with every other secondary source found
(the course's ``notes/papers.md``). A reference to read ours beside, never a target.
"""
NEAREST_MODE: dict[str, str | None] = {
    "leaf": "leaf",
    "root": "root",
    "tree, global mutex": None,
    "tree, local mutexes": "treenovl",
    "tree, local mutexes + virtual loss": "tree",
}
"""Each of the paper's methods -> the simulated mode nearest to it here (``None``: none; a global
mutex serialises the threads, which simulated workers, never waiting, cannot show)."""


def beside_the_paper(speedups: dict[tuple[str, int], float]) -> list[tuple[str, str | None, dict[int, tuple]]]:
    """:data:`PAPER_TABLE` beside the strength-speedups measured here, at the paper's thread counts.

    Args:
        speedups: ``{(mode, workers): strength-speedup}`` measured here (:func:`strength_speedup`).

    Returns:
        One row per method of :data:`PAPER_METHODS`: the method, the nearest mode here (or
        ``None``), and ``{threads: (the paper's value, ours or None)}`` for each thread count
        of :data:`PAPER_TABLE`.
    """
    rows = []
    for i, method in enumerate(PAPER_METHODS):
        mode = NEAREST_MODE[method]
        cells = {k: (row[i], None if mode is None else speedups.get((mode, k))) for k, row in PAPER_TABLE.items()}
        rows.append((method, mode, cells))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Regenerate the stored runs: ``python -m mctslab.course.experiments.parallel [--modes root,tree]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--folder", default=str(FOLDER))
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of " + ", ".join(MODES))
    parser.add_argument("--points-only", action="store_true", help="skip the sequential curve (another run plays it)")
    parser.add_argument("--threads", action="store_true", help="only the real threads' matches (run_threads)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.threads:
        run_threads(args.games, args.folder, not args.no_progress)
        return
    modes = tuple(args.modes.split(","))
    if args.points_only:
        for mode in modes:
            for k in WORKERS:
                run_match(parallel_spec(mode, k), args.games, args.folder, not args.no_progress)
        return
    run_all(args.games, args.folder, modes, WORKERS, not args.no_progress)


if __name__ == "__main__":
    main()
