"""Kocsis & Szepesvári 2006's failure rate on random P-game trees, against the budget.

The failure rate of an algorithm at budget N is the fraction of random trees on which
the root move it chooses after N iterations (N positions for alpha-beta) is not optimal.
"Optimal" is exact: the moves that keep the root's game-theoretic value (win, draw or
loss for MAX), found by alpha-beta (:func:`mctslab.exact.alphabeta.optimal_moves`).

Results go to a JSON-lines file, one line per tree (its optimal moves) and per
(tree, algorithm, budget) (the move chosen); a run that is stopped resumes where it
stopped, and a larger run reuses a smaller one's lines. Every choice is seeded from
(tree shape, tree, algorithm, budget), so a line does not depend on the order of the run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ....display import ShownAsTable, Table
from ....exact.alphabeta import optimal_moves
from ....games.pgame import PGame
from ....tournament.stats import wilson
from .players import ALGORITHMS, LABELS, choose

SHORT = {"mmmc": "MC, minimax backup", "mc": "plain MC"}
"""Column headers of the table where the plot's label is long (MC: Monte Carlo)."""


@dataclass(frozen=True)
class Setup:
    """One figure's trees and budgets.

    Attributes:
        branching: moves per position.
        depth: moves per game.
        budgets: the N at which each algorithm chooses a root move, ascending.
        trees: how many random trees (seeds ``first .. first + trees - 1``).
        first: the first tree's seed (a fresh set of trees: ``first`` past the stored run's).
    """

    branching: int
    depth: int
    budgets: tuple[int, ...]
    trees: int
    first: int = 0

    @property
    def seeds(self) -> range:
        """The trees' seeds, ``first .. first + trees - 1``."""
        return range(self.first, self.first + self.trees)

    @property
    def name(self) -> str:
        """``"b2_d20"``: the name of its results file."""
        return f"b{self.branching}_d{self.depth}"

    def game(self, tree: int) -> PGame:
        """The ``tree``-th random tree of this shape."""
        return PGame(branching=self.branching, depth=self.depth, seed=tree)

    def scaled(self, scale: float) -> Setup:
        """The same shape with ``scale`` times the trees (at least 10)."""
        return Setup(self.branching, self.depth, self.budgets, max(10, round(self.trees * scale)), self.first)


PAPER_SHAPES = (
    Setup(2, 20, (16, 32, 64, 128, 256, 512, 1024, 2048, 4096), 300),
    Setup(8, 8, (16, 32, 64, 128, 256, 512, 1024, 2048, 4096), 300),
)
"""The two tree shapes of the paper's P-game figure at this package's full scale (the figures command)."""


def choice_seed(setup: Setup, tree: int, algorithm: str, budget: int) -> int:
    """A stable 63-bit seed for one choice (blake2b of its description; never Python's ``hash()``)."""
    text = f"{setup.name}/{tree}/{algorithm}/{budget}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


@dataclass(frozen=True)
class Point:
    """One point of a curve: failures among trees at a budget, with its Wilson interval."""

    algorithm: str
    budget: int
    failures: int
    trees: int

    @property
    def rate(self) -> float:
        """The failure rate, ``failures / trees``."""
        return self.failures / self.trees

    def ci(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of the failure rate."""
        return wilson(self.failures, self.trees, confidence)


@dataclass(frozen=True, repr=False)
class FailureCurves(ShownAsTable):
    """The measured failure rates of one :class:`Setup`; shows itself as a table.

    Attributes:
        setup: the trees and budgets.
        points: one :class:`Point` per (algorithm, budget).
        random_rate: the exact failure rate of a uniformly random root move, averaged
            over the trees (a :class:`~fractions.Fraction`): where every curve starts.
        decisive: how many trees have a root move that is not optimal (on the others
            no algorithm can fail).
        failed: (algorithm, budget) -> for each tree, whether that algorithm failed on it
            (for paired comparisons on the same trees, :meth:`paired`).
    """

    setup: Setup
    points: tuple[Point, ...]
    random_rate: Fraction
    decisive: int
    failed: dict[tuple[str, int], tuple[bool, ...]]

    def paired(self, first: str, second: str, budget: int) -> tuple[int, int]:
        """On the same trees at ``budget``: (trees only ``first`` fails on, trees only ``second`` fails on).

        Trees where both fail or both succeed say nothing about which fails less; of the
        others (the discordant trees), the share where only ``second`` fails estimates
        how often ``first`` is the one that is right (a sign test, McNemar's).
        """
        a, b = self.failed[(first, budget)], self.failed[(second, budget)]
        return sum(x and not y for x, y in zip(a, b, strict=True)), sum(y and not x for x, y in zip(a, b, strict=True))

    def between_budgets(self, algorithm: str, first: int, second: int) -> tuple[int, int]:
        """On the same trees, one algorithm at two budgets: (trees it fails on only at ``first``, only at ``second``).

        The discordant trees of a sign test of "the failure rate falls from ``first`` to ``second``".
        """
        a, b = self.failed[(algorithm, first)], self.failed[(algorithm, second)]
        return sum(x and not y for x, y in zip(a, b, strict=True)), sum(y and not x for x, y in zip(a, b, strict=True))

    def point(self, algorithm: str, budget: int) -> Point:
        """The point of ``algorithm`` at ``budget``."""
        for p in self.points:
            if p.algorithm == algorithm and p.budget == budget:
                return p
        raise KeyError(f"no point for {algorithm} at budget {budget}")

    def curve(self, algorithm: str) -> tuple[Point, ...]:
        """The points of ``algorithm``, by budget."""
        return tuple(p for p in self.points if p.algorithm == algorithm)

    def algorithms(self) -> tuple[str, ...]:
        """The algorithms measured, in :data:`ALGORITHMS` order."""
        return tuple(a for a in ALGORITHMS if any(p.algorithm == a for p in self.points))

    def as_table(self) -> Table:
        """One row per budget: each algorithm's failure rate and 95% interval."""
        algorithms = self.algorithms()
        rows = []
        for budget in self.setup.budgets:
            row = [str(budget)]
            for a in algorithms:
                p = self.point(a, budget)
                low, high = p.ci()
                row.append(f"{p.rate:.2f} [{low:.2f}, {high:.2f}]")
            rows.append(row)
        headers = ["N", *(SHORT.get(a, LABELS[a]) for a in algorithms)]  # short: fits a laptop's notebook
        return Table(headers, rows, align="r" * len(headers))


def _read(path: Path) -> tuple[dict[int, tuple[int, ...]], dict[tuple[int, str, int], int]]:
    optimal: dict[int, tuple[int, ...]] = {}
    chosen: dict[tuple[int, str, int], int] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run: it is redone
            if "optimal" in record:
                optimal[record["tree"]] = tuple(record["optimal"])
            else:
                chosen[(record["tree"], record["algorithm"], record["budget"])] = record["move"]
    return optimal, chosen


def run_failure(
    setup: Setup,
    out_dir: str | os.PathLike,
    algorithms: Sequence[str] = ALGORITHMS,
    *,
    progress: bool = True,
) -> FailureCurves:
    """Measure (or read back) every algorithm's failure rate at every budget of ``setup``.

    Args:
        setup: the tree shape, budgets and number of trees.
        out_dir: where the results file ``failure_<shape>.jsonl`` lives; lines already
            there are reused, missing ones computed and appended as they finish.
        algorithms: a subset of :data:`ALGORITHMS`.
        progress: show a progress bar (tqdm) over the trees.

    Raises:
        ValueError: for an unknown algorithm.
    """
    unknown = [a for a in algorithms if a not in ALGORITHMS]
    if unknown:
        raise ValueError(f"unknown algorithm {unknown[0]!r}; known: {', '.join(ALGORITHMS)}")
    path = Path(out_dir) / f"failure_{setup.name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    optimal, chosen = _read(path)
    todo = [
        t
        for t in setup.seeds
        if t not in optimal or any((t, a, b) not in chosen for a in algorithms for b in setup.budgets)
    ]
    with path.open("a") as out:
        for tree in _bar(todo, progress, f"P-game {setup.name}"):  # a bar only for work left to do
            game = setup.game(tree)
            root = game.initial_state()
            if tree not in optimal:
                optimal[tree] = optimal_moves(game, root)
                _write(out, {"tree": tree, "optimal": list(optimal[tree])})
            for algorithm in algorithms:
                for budget in setup.budgets:
                    key = (tree, algorithm, budget)
                    if key not in chosen:
                        chosen[key] = choose(algorithm, game, root, budget, choice_seed(setup, *key))
                        _write(out, {"tree": tree, "algorithm": algorithm, "budget": budget, "move": chosen[key]})
    return _curves(setup, algorithms, optimal, chosen)


def _curves(
    setup: Setup,
    algorithms: Sequence[str],
    optimal: dict[int, tuple[int, ...]],
    chosen: dict[tuple[int, str, int], int],
) -> FailureCurves:
    trees = setup.seeds
    failed = {
        (a, budget): tuple(chosen[(t, a, budget)] not in optimal[t] for t in trees)
        for a in ALGORITHMS
        if a in algorithms
        for budget in setup.budgets
    }
    points = tuple(Point(a, budget, sum(f), setup.trees) for (a, budget), f in failed.items())
    b = setup.branching
    random_rate = sum((Fraction(b - len(optimal[t]), b) for t in trees), Fraction(0)) / setup.trees
    decisive = sum(len(optimal[t]) < b for t in trees)
    return FailureCurves(setup, points, random_rate, decisive, failed)


def _write(out, record: dict) -> None:
    out.write(json.dumps(record) + "\n")
    out.flush()


def _bar(items: list[int], progress: bool, desc: str) -> Iterable[int]:
    if not progress or not items:  # nothing to do: no bar (a notebook reading stored results stores none)
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, leave=False)


STORED = "11_classic_experiments"
"""The folder (under the notebooks' ``data/``) of the stored full-scale results."""


def results_folder(folder: str | os.PathLike = Path("data") / STORED) -> Path:
    """Where notebook 11 keeps its results: ``folder`` if it holds the stored ones, else the installed course's copy.

    When neither holds a results file of every :data:`PAPER_SHAPES` shape, ``folder``
    itself: :func:`run_failure` then computes what is missing there (minutes at full scale).
    """
    from ...editions import DATA_FOLDER, NOTEBOOKS  # the installed course's notebooks, else the repository's

    wanted = [f"failure_{s.name}.jsonl" for s in PAPER_SHAPES]
    for candidate in (Path(folder), NOTEBOOKS / DATA_FOLDER / STORED):
        if all((candidate / name).is_file() for name in wanted):
            return candidate
    return Path(folder)
