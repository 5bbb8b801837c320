"""UCT, minimax of depth k + 1 and MCTS-Solver on trees with a planted level-k trap at the root.

On each tree ``traps:...,level=k,seed=t`` (:class:`mctslab.games.traps.TrapTree`) the root
has one trap move, whose exact value for MAX is a loss (0). For each level and tree:

* UCT (``uct:iterations=N``): its estimate of the trap move (the child's mean), and
  whether it plays the trap;
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
from ....games.traps import TrapTree
from ....tournament.stats import wilson
from .census import _bar, _seed

FIELDS = ("uct_estimate", "uct_trap", "minimax_trap", "solver_trap", "solver_proved")


@dataclass(frozen=True)
class TrapSetup:
    """The trees and budget of the experiment.

    Attributes:
        levels: the trap levels k (odd).
        trees: trees per level (seeds ``0 .. trees - 1``).
        iterations: UCT's and MCTS-Solver's budget.
        branching, depth, density: the trees' shape (see :class:`TrapTree`).
    """

    levels: tuple[int, ...] = (1, 3, 5, 7)
    trees: int = 60
    iterations: int = 2000
    branching: int = 4
    depth: int = 12
    density: int = 10

    @property
    def name(self) -> str:
        """The results file's name."""
        return f"traps_b{self.branching}_d{self.depth}_p{self.density}_n{self.iterations}"

    def game(self, level: int, tree: int) -> TrapTree:
        """The ``tree``-th tree with traps of ``level``."""
        return TrapTree(self.branching, self.depth, level, self.density, tree)


def measure(setup: TrapSetup, level: int, tree: int) -> dict:
    """The five measurements of :data:`FIELDS` on one tree."""
    game = setup.game(level, tree)
    root, trap = game.initial_state(), game.root_trap()
    seed = _seed(setup.name, level, tree)
    uct = make_agent(f"uct:iterations={setup.iterations}", seed=seed).analyse(game, root)
    solver = make_agent(f"solver:iterations={setup.iterations}", seed=seed).analyse(game, root)
    try:
        proved = solver.root.child(trap).proven == 0.0  # proven a loss for MAX, who made the move
    except KeyError:
        proved = False
    return {
        "uct_estimate": next(s.mean for s in uct.stats if s.move == trap),
        "uct_trap": uct.move == trap,
        "minimax_trap": make_agent(f"minimax:depth={level + 1}").select_move(game, root) == trap,
        "solver_trap": solver.move == trap,
        "solver_proved": proved,
    }


@dataclass(frozen=True)
class LevelRow:
    """One level's results over its trees."""

    level: int
    trees: int
    estimates: tuple[float, ...]
    counts: dict[str, int]

    def estimate_ci(self) -> tuple[float, float, float]:
        """UCT's mean estimate of the trap move and a 95% normal interval on it (the truth is 0)."""
        n = len(self.estimates)
        mean = sum(self.estimates) / n
        sd = math.sqrt(sum((e - mean) ** 2 for e in self.estimates) / max(1, n - 1))
        return mean, mean - 1.96 * sd / math.sqrt(n), mean + 1.96 * sd / math.sqrt(n)

    def ci(self, field: str, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of the share of trees where ``field`` holds."""
        return wilson(self.counts[field], self.trees, confidence)


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
            "uct_trap": "UCT plays it",
            "minimax_trap": "minimax plays it",
            "solver_trap": "solver plays it",
            "solver_proved": "solver proves it",
        }
        estimate = ["UCT's estimate"]
        for r in self.rows:
            mean, low, high = r.estimate_ci()
            estimate.append(f"{mean:.2f} [{low:.2f}, {high:.2f}]")
        rows = [estimate]
        for field in FIELDS[1:]:
            cells = [f"{r.counts[field] / r.trees:.2f} [{r.ci(field)[0]:.2f}, {r.ci(field)[1]:.2f}]" for r in self.rows]
            rows.append([labels.get(field, field), *cells])
        headers = ["", *(f"k = {r.level}" for r in self.rows)]
        trees = sorted({r.trees for r in self.rows})
        caption = f"{' or '.join(map(str, trees))} trees per level k: UCT's estimate of the trap move (truth 0)"
        caption += ", and the share of trees where UCT, minimax of depth k + 1 or MCTS-Solver plays it"
        caption += " or the solver proves it lost, with 95% intervals"
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
            todo = [t for t in range(setup.trees) if (level, t) not in found]
            for tree in _bar(todo, progress, f"traps level {level}"):  # a bar only for work left to do
                if (level, tree) not in found:
                    found[(level, tree)] = {"level": level, "tree": tree, **measure(setup, level, tree)}
                    out.write(json.dumps(found[(level, tree)]) + "\n")
                    out.flush()
    return TrapResults(setup, tuple(_row(setup, level, found) for level in setup.levels))


def _row(setup: TrapSetup, level: int, found: dict) -> LevelRow:
    records: Sequence[dict] = [found[(level, t)] for t in range(setup.trees)]
    counts = {f: sum(bool(r[f]) for r in records) for f in FIELDS[1:]}
    return LevelRow(level, setup.trees, tuple(r["uct_estimate"] for r in records), counts)
