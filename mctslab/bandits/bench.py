"""Benchmark: how long each policy takes for the course's standard experiment size.

The notebook's figures are only pleasant if an experiment of 1,000 runs x 10,000
steps x 10 arms takes seconds. ``python -m mctslab.bandits.bench`` prints a table
(``--help`` for the options); :func:`bench_bandits` returns the numbers.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

import numpy as np

from ..validation import integer, positive_int
from .experiment import run
from .exploration import SequentialHalving, SuccessiveRejects
from .policies import UCB1, EpsilonGreedy, ExploreThenCommit, Greedy, ThompsonSampling, UCB1Tuned
from .policy import Policy

__all__ = ["bench_bandits", "default_policies", "format_table"]


def default_policies() -> list[Policy]:
    """One policy of each kind, with the parameters the notebook uses."""
    return [
        Greedy(),
        EpsilonGreedy(0.1),
        ExploreThenCommit(50),
        UCB1(),
        UCB1Tuned(),
        ThompsonSampling(),
        SequentialHalving(),
        SuccessiveRejects(),
    ]


def bench_bandits(
    runs: int = 1000,
    steps: int = 10_000,
    arms: int = 10,
    seed: int = 0,
    policies: Sequence[Policy] | None = None,
    repeats: int = 3,
) -> list[dict]:
    """Time :func:`~mctslab.bandits.experiment.run` for each policy on a Bernoulli bandit.

    The bandit has ``arms`` arms with means evenly spaced in [0.1, 0.9]; every
    repeat uses the same seed, so the work is identical and only the clock varies.

    Args:
        runs: independent runs per experiment, >= 1.
        steps: pulls per run, >= 1.
        arms: number of arms, >= 2.
        seed: the experiment's seed.
        policies: the policies to time (default :func:`default_policies`).
        repeats: timings per policy, >= 1; the median is reported.

    Returns:
        One dict per policy with ``name``, ``seconds`` (median wall time),
        ``cpu_seconds`` (median process CPU time, which exceeds the wall time if
        NumPy uses several threads), ``runs``, ``steps``, ``arms`` and
        ``final_regret`` (mean over runs, a sanity check).

    Raises:
        TypeError: if ``runs``, ``steps``, ``arms`` or ``repeats`` is not an integer.
        ValueError: if ``arms < 2`` or ``runs``, ``steps`` or ``repeats`` < 1.
    """
    arms = integer("arms", arms, low=2, hint=" (the benchmark needs at least 2 arms)")
    repeats = positive_int("repeats", repeats)
    means = np.linspace(0.1, 0.9, arms)
    rows = []
    for policy in default_policies() if policies is None else policies:
        walls, cpus = [], []
        for _ in range(repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            result = run(policy, means, runs=runs, steps=steps, seed=seed, record=[steps], progress=False)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        rows.append(
            {
                "name": policy.name,
                "seconds": statistics.median(walls),
                "cpu_seconds": statistics.median(cpus),
                "runs": runs,
                "steps": steps,
                "arms": arms,
                "final_regret": float(result.regret[:, -1].mean()),
            }
        )
    return rows


def format_table(rows: Sequence[dict]) -> str:
    """The rows of :func:`bench_bandits` as a fixed-width text table."""
    header = f"{'policy':<28} {'wall s':>8} {'cpu s':>8} {'runs':>6} {'steps':>7} {'arms':>5} {'regret':>9}"
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row['name']:<28} {row['seconds']:>8.2f} {row['cpu_seconds']:>8.2f} {row['runs']:>6} "
            f"{row['steps']:>7} {row['arms']:>5} {row.get('final_regret', float('nan')):>9.1f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m mctslab.bandits.bench [--runs R] [--steps T] [--arms K] [--repeats N]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--arms", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = bench_bandits(args.runs, args.steps, args.arms, args.seed, repeats=args.repeats)
    print(format_table(rows))  # a command-line entry point is allowed to print


if __name__ == "__main__":
    main()
