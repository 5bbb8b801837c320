"""UCT, minimax of depth k + 1 and MCTS-Solver on trees with a planted level-k trap at the root.

On each tree ``traps:...,level=k,seed=t`` (:class:`mctslab.games.traps.TrapTree`) the root
has one trap move, whose exact value for MAX is a loss (0); the other root moves are exact
wins on about half the trees (the trees' leaves are balanced so), and there the trap costs
the game. For each level and tree:

* the exact answer (alpha-beta, :func:`mctslab.exact.alphabeta.alphabeta`): whether the best
  non-trap root move wins;
* UCT (``uct:iterations=N``): its estimate of the trap move and of the best other move (the
  children's means), and whether it plays the trap;
* minimax of depth k + 1 (the registered ``minimax:depth=k+1``): whether it plays the trap;
* MCTS-Solver (``solver:iterations=N``): whether it plays the trap, and whether it proved
  the trap move lost.

Results go to a JSON-lines file per configuration, one line per (level, tree); resumable.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ....agents import make_agent
from ....display import ShownAsTable, Table
from ....exact.alphabeta import alphabeta
from ....games.traps import TrapTree
from ....tournament.stats import wilson
from .census import _bar, _seed

FIELDS = ("uct_estimate", "uct_other", "uct_trap", "minimax_trap", "solver_trap", "solver_proved", "other_wins")
"""A record's measurements: two of UCT's estimates, then yes/no answers (counted per level)."""
COUNTED = FIELDS[2:]


@dataclass(frozen=True)
class TrapSetup:
    """The trees and budget of the experiment.

    Attributes:
        levels: the trap levels k (odd).
        trees: trees per level (seeds ``first .. first + trees - 1``).
        iterations: UCT's and MCTS-Solver's budget.
        branching, depth, density: the trees' shape (see :class:`TrapTree`).
    """

    levels: tuple[int, ...] = (1, 3, 5, 7)
    trees: int = 60
    iterations: int = 2000
    branching: int = 4
    depth: int = 12
    density: int = 10
    first: int = 0
    """The first tree's seed (a fresh set of trees: ``first`` past the stored run's)."""

    @property
    def name(self) -> str:
        """The results file's name (``balanced``: the trees of balanced leaves, see :mod:`mctslab.games.traps`)."""
        return f"traps_balanced_b{self.branching}_d{self.depth}_p{self.density}_n{self.iterations}"

    @property
    def seeds(self) -> range:
        """The trees' seeds."""
        return range(self.first, self.first + self.trees)

    def game(self, level: int, tree: int) -> TrapTree:
        """The tree of seed ``tree`` with traps of ``level``."""
        return TrapTree(self.branching, self.depth, level, self.density, tree)


def measure(setup: TrapSetup, level: int, tree: int) -> dict:
    """The measurements of :data:`FIELDS` on one tree."""
    game = setup.game(level, tree)
    root, trap = game.initial_state(), game.root_trap()
    seed = _seed(setup.name, level, tree)
    uct = make_agent(f"uct:iterations={setup.iterations}", seed=seed).analyse(game, root)
    solver = make_agent(f"solver:iterations={setup.iterations}", seed=seed).analyse(game, root)
    try:
        proved = solver.root.child(trap).proven == 0.0  # proven a loss for MAX, who made the move
    except KeyError:
        proved = False
    others = [m for m in game.legal_moves(root) if m != trap]
    return {
        "uct_estimate": next(s.mean for s in uct.stats if s.move == trap),
        "uct_other": max(s.mean for s in uct.stats if s.move != trap),
        "uct_trap": uct.move == trap,
        "minimax_trap": make_agent(f"minimax:depth={level + 1}").select_move(game, root) == trap,
        "solver_trap": solver.move == trap,
        "solver_proved": proved,
        "other_wins": any(alphabeta(game, game.apply(root, m))[0] == 1 for m in others),  # exact
    }


@dataclass(frozen=True)
class LevelRow:
    """One level's results over its trees.

    Attributes:
        level: the trap level k.
        trees: how many trees.
        estimates: per tree, UCT's estimate of the trap move.
        others: per tree, UCT's estimate of its best other root move.
        counts: per field of :data:`COUNTED`, the trees where it holds; and ``"uct_trap_won"``,
            the trees where UCT plays the trap although another move wins.
    """

    level: int
    trees: int
    estimates: tuple[float, ...]
    others: tuple[float, ...]
    counts: dict[str, int]

    def estimate_ci(self) -> tuple[float, float, float]:
        """UCT's mean estimate of the trap move and a 95% normal interval on it (the truth is 0)."""
        return _mean_ci(self.estimates)

    def other_ci(self) -> tuple[float, float, float]:
        """UCT's mean estimate of its best other root move and a 95% normal interval on it."""
        return _mean_ci(self.others)

    def gap_ci(self, z: float = 1.96) -> tuple[float, float, float]:
        """Paired over the trees: the mean of (best other move's estimate - trap's estimate), and a normal interval.

        Args:
            z: the interval's half-width in standard errors (1.96: 95%).
        """
        return _mean_ci([o - e for o, e in zip(self.others, self.estimates, strict=True)], z)

    def ci(self, field: str, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of the share of trees where ``field`` holds."""
        return wilson(self.counts[field], self.trees, confidence)

    def costly_ci(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of the share of the trees won by another move where UCT plays the trap."""
        return wilson(self.counts["uct_trap_won"], self.counts["other_wins"], confidence)


def _mean_ci(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean of ``values`` and a normal interval of ``z`` standard errors on it."""
    n = len(values)
    mean = sum(values) / n
    half = z * math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, n - 1)) / math.sqrt(n)
    return mean, mean - half, mean + half


@dataclass(frozen=True, repr=False)
class TrapResults(ShownAsTable):
    """The experiment's rows, one per level; shows itself as a table."""

    setup: TrapSetup
    rows: tuple[LevelRow, ...]

    def row(self, level: int) -> LevelRow:
        """The row of ``level``."""
        return next(r for r in self.rows if r.level == level)

    def as_table(self) -> Table:
        """One column per level k: UCT's estimate of the trap (truth 0), and how often each agent plays it or proves it.

        Levels are columns (not rows) so that the table fits a laptop's notebook window.
        """
        labels = {
            "other_wins": "another move wins",
            "uct_trap": "UCT plays it",
            "minimax_trap": "minimax plays it",
            "solver_trap": "solver plays it",
            "solver_proved": "solver proves it",
        }

        def cell(share: float, interval: tuple[float, float]) -> str:
            return f"{share:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"

        rows = [
            ["UCT: trap", *(cell(m, (lo, hi)) for m, lo, hi in (r.estimate_ci() for r in self.rows))],
            ["UCT: other - trap", *(cell(m, (lo, hi)) for m, lo, hi in (r.gap_ci() for r in self.rows))],
        ]
        for field in labels:
            rows.append([labels[field], *(cell(r.counts[field] / r.trees, r.ci(field)) for r in self.rows)])
        costly = [cell(r.counts["uct_trap_won"] / max(1, r.counts["other_wins"]), r.costly_ci()) for r in self.rows]
        rows.insert(4, ["UCT plays it, won", *costly])
        headers = ["", *(f"k = {r.level}" for r in self.rows)]
        trees = sorted({r.trees for r in self.rows})
        caption = f"{' or '.join(map(str, trees))} trees per level k. UCT's estimate of the trap move (truth 0),"
        caption += " and its best other move's estimate minus the trap's (paired, per tree);"
        caption += " the share of trees where another root move wins (exact, alpha-beta);"
        caption += " where UCT, minimax of depth k + 1 or MCTS-Solver plays the trap (UCT also: among the trees"
        caption += " another move wins) or the solver proves it lost. 95% intervals"
        return Table(headers, rows, align="l" + "r" * len(self.rows), caption=caption)


def run_traps(setup: TrapSetup, out_dir: str | os.PathLike, *, progress: bool = True) -> TrapResults:
    """Measure (or read back) every level and tree of ``setup``; results in ``out_dir/<setup.name>.jsonl``."""
    path = Path(out_dir) / f"{setup.name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    found: dict[tuple[int, int], dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run: redone
            found[(record["level"], record["tree"])] = record
    with path.open("a") as out:
        for level in setup.levels:
            todo = [t for t in setup.seeds if (level, t) not in found]
            for tree in _bar(todo, progress, f"traps level {level}"):  # a bar only for work left to do
                if (level, tree) not in found:
                    found[(level, tree)] = {"level": level, "tree": tree, **measure(setup, level, tree)}
                    out.write(json.dumps(found[(level, tree)]) + "\n")
                    out.flush()
    return TrapResults(setup, tuple(_row(setup, level, found) for level in setup.levels))


def _row(setup: TrapSetup, level: int, found: dict) -> LevelRow:
    records: Sequence[dict] = [found[(level, t)] for t in setup.seeds]
    counts = {f: sum(bool(r[f]) for r in records) for f in COUNTED}
    counts["uct_trap_won"] = sum(bool(r["uct_trap"] and r["other_wins"]) for r in records)
    estimates, others = (tuple(r[f] for r in records) for f in ("uct_estimate", "uct_other"))
    return LevelRow(level, setup.trees, estimates, others, counts)
