"""Checks for the exercises of ``notebooks/01_bandits_and_ucb1.ipynb``.

Each check runs the student's answer and returns one line, never raising for the
student's mistakes: ``"passed: ..."`` with the numbers, ``"not yet: ..."`` saying
what is wrong (and, for the usual mistakes, why) without giving the answer away, or
``"not written yet: ..."`` while the answer is still the stub that raises
``NotImplementedError``. An error raised by the student's code is reported in one
line too (call the code yourself to see its traceback). The checks live here, not
in the notebook, so that they are tested (``tests/test_bandits_exercises.py``)
against right and wrong answers, and a notebook runs with or without its reference
solutions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ...bandits.experiment import run
from ...bandits.policies import UCB1, EpsilonGreedy
from ...bandits.policy import Policy
from ...bandits.theory import hoeffding_radius
from ...ucb import SQRT2
from .isolation import unchanged_globals
from .limits import CPU, TimeLimitExceeded, time_limit

__all__ = ["MACHINES", "check_epsilon_decreasing", "check_tuned_c", "check_two_sided_radius"]


class _NotYet(Exception):
    """A requirement the answer does not meet yet (turned into a ``"not yet: ..."`` line)."""


def _require(condition: object, message: str) -> None:
    if not condition:
        raise _NotYet(message)


CHECK_SECONDS = 60.0
"""The limit of one bandit check, in CPU seconds (:mod:`.limits`). The reference answers take 1-15 s of CPU
(``check_tuned_c``, the longest, about 14 s on the course's machine): a factor of 4 at least for a slow machine."""


def _verdict(check: Callable[[], str], stub: str) -> str:
    """Run ``check`` within :data:`CHECK_SECONDS`; a stub, an unmet requirement, an error or an overrun: one line."""
    try:
        with unchanged_globals(), time_limit(CHECK_SECONDS, "your code"):
            return check()
    except TimeLimitExceeded as err:
        if err.clock != CPU:
            return f"not yet: the check did not finish within {err.within}"
        return (
            f"not yet: the check did not finish within {err.within} (with the reference answer it takes well "
            "under that): look for a loop that never ends, or a step far slower than it needs to be"
        )
    except NotImplementedError:
        return f"not written yet: {stub}, then run this cell again."
    except _NotYet as err:
        return f"not yet: {err}"
    except Exception as err:  # the student's code failed: say how, without a traceback into the check
        return f"not yet: your code raised {type(err).__name__}: {err} (run it on its own to see where)"


MACHINES = (0.1, 0.3, 0.5, 0.7, 0.9)
"""The five slot machines of the notebook (Bernoulli payout probabilities)."""


def _long_run_report(policy: Policy, means: Sequence[float], runs: int, steps: int, seed: int) -> dict:
    result = run(policy, means, runs=runs, steps=steps, seed=seed, record=[steps // 10, steps], progress=False)
    best = int(np.argmax(means))
    return {
        "early": float(result.at(steps // 10).mean()),
        "late": float(result.at(steps).mean()),
        "stuck": float(np.mean(result.counts[:, best] < steps / 2)),
        "explored": bool(np.all(result.counts > 0)),
    }


def check_epsilon_decreasing(
    policy_class: type[Policy], *, runs: int = 200, steps: int = 10_000, seed: int = 0, **params: float
) -> str:
    """Exercise 1: an epsilon-decreasing policy must have logarithmic-looking regret.

    Runs ``policy_class(**params)`` on :data:`MACHINES` and checks that it explores
    every arm in every run, that its regret grows far slower than linearly
    (``R(steps) / R(steps / 10) < 2.5``, where linear growth gives 10), that at most
    5% of runs spend most pulls on a worse machine (greedy: about 16%), and that it
    beats epsilon-greedy with ``epsilon = 0.1``.

    Returns:
        One line: ``"passed: ..."`` with the numbers, ``"not yet: ..."`` saying which
        requirement failed, or ``"not written yet: ..."`` for an unfinished ``select``.
    """

    def check() -> str:
        policy = policy_class(**params)
        mine = _long_run_report(policy, MACHINES, runs, steps, seed)
        fixed = _long_run_report(EpsilonGreedy(0.1), MACHINES, runs, steps, seed)
        ratio = mine["late"] / max(mine["early"], 1e-12)
        _require(
            mine["explored"], "some run never pulled some machine: early on, epsilon_t should be 1 (pure exploration)"
        )
        _require(
            mine["stuck"] <= 0.05,
            f"{mine['stuck']:.1%} of runs spent most pulls on a worse machine: the policy stops exploring too "
            "soon (is epsilon_t too small, or is the greedy step wrong?)",
        )
        _require(
            ratio < 2.5,
            f"regret grew by a factor {ratio:.2f} from t = {steps // 10} to {steps} (linear growth would be 10, "
            "logarithmic about 1.3): does epsilon_t really decrease like 1/t?",
        )
        _require(
            mine["late"] < fixed["late"],
            f"regret {mine['late']:.1f} at t = {steps} is not below epsilon-greedy's {fixed['late']:.1f}",
        )
        return (
            f"passed: regret {mine['late']:.1f} at t = {steps:,} (epsilon-greedy 0.1: {fixed['late']:.1f}); "
            f"growth from t = {steps // 10:,} to {steps:,}: x{ratio:.2f}"
        )

    return _verdict(check, f"fill in {getattr(policy_class, '__name__', 'the policy')}.select above")


def check_two_sided_radius(radius: Callable[[int, float], float]) -> str:
    """Exercise 2: the two-sided Hoeffding radius ``u`` with ``P(|mean - mu| >= u) <= delta``.

    Compares ``radius(n, delta)`` with the right answer on a grid and names the two
    classic slips (the one-sided radius; ``n`` inside the logarithm, as in Racioppo 2020),
    then checks by simulation that the interval covers the truth at least
    ``1 - delta`` of the time for Bernoulli(1/2) rewards, the worst case.

    Returns:
        One line: ``"passed: ..."``, ``"not yet: ..."`` explaining the mismatch, or
        ``"not written yet: ..."`` for the stub.
    """

    def check() -> str:
        grid = [(n, delta) for n in (1, 10, 250) for delta in (0.01, 0.1, 0.5)]
        got = np.array([float(radius(n, delta)) for n, delta in grid])
        # P(|m - mu| >= u) <= 2 exp(-2 n u^2): the one-sided radius with delta / 2.
        want = np.array([hoeffding_radius(n, delta / 2) for n, delta in grid])
        one_sided = np.array([hoeffding_radius(n, delta) for n, delta in grid])
        n_inside_log = np.array([math.sqrt(-math.log(delta / (2 * n))) for n, delta in grid])
        if not np.allclose(got, want, rtol=1e-9):
            _require(
                not np.allclose(got, one_sided, rtol=1e-9),
                "this is the one-sided radius: the two-sided event |mean - mu| >= u has probability up to "
                "2 exp(-2 n u^2); set that bound to delta and solve for u",
            )
            _require(
                not np.allclose(got, n_inside_log, rtol=1e-9),
                "n is inside the logarithm (Racioppo 2020's slip): your radius grows with n instead of "
                "shrinking; solve the bound for u again, keeping n where it is",
            )
            n, delta = grid[int(np.argmax(np.abs(got - want)))]
            raise _NotYet(
                f"radius({n}, {delta}) = {float(radius(n, delta)):.6g} is not right; start from "
                "P(|mean - mu| >= u) <= 2 exp(-2 n u^2) and solve for u"
            )
        rng = np.random.default_rng(0)
        n, delta, trials = 40, 0.1, 20_000
        means = rng.binomial(n, 0.5, size=trials) / n
        coverage = float(np.mean(np.abs(means - 0.5) < radius(n, delta)))
        _require(coverage >= 1 - delta, f"the interval covered the truth only {coverage:.1%} of the time")
        return (
            f"passed: at n = {n}, delta = {delta} the interval covered the true mean in {coverage:.1%} "
            f"of {trials:,} trials"
        )

    return _verdict(check, "write radius(n, delta) above")


def check_tuned_c(c: float | None, *, runs: int = 200, steps: int = 10_000, seed: int = 0) -> str:
    """Exercise 3: a UCB1 constant ``c`` tuned for cumulative regret on :data:`MACHINES`.

    Passes if UCB1 with this ``c`` has less than half the regret of ``c = sqrt(2)`` at
    ``steps`` and keeps the logarithmic shape: growth below x2.5 from ``steps / 10``
    and no run stuck on a worse machine (too small a ``c`` is greedy in disguise).

    Returns:
        One line: ``"passed: ..."``, ``"not yet: ..."`` saying which requirement
        failed (also for a negative or non-numeric ``c``), or ``"not written yet: ..."``
        for ``c = None``, the notebook's stub.
    """
    if c is None:
        return "not written yet: set my_c above to your value of c, then run this cell again."

    def check() -> str:
        _require(isinstance(c, int | float) and not isinstance(c, bool), f"c must be a number, got {c!r}")
        _require(c >= 0, f"c must be >= 0 (it scales a width), got {c:g}")
        mine = _long_run_report(UCB1(c), MACHINES, runs, steps, seed)
        default = _long_run_report(UCB1(SQRT2), MACHINES, runs, steps, seed)
        ratio = mine["late"] / max(mine["early"], 1e-12)
        _require(
            mine["stuck"] == 0,
            f"with c = {c:g}, {mine['stuck']:.1%} of runs got stuck on a worse machine: too little exploration "
            "makes UCB1 greedy, and its regret linear",
        )
        _require(
            ratio < 2.5,
            f"with c = {c:g} regret grew x{ratio:.2f} from t = {steps // 10:,} to {steps:,}: not logarithmic",
        )
        _require(
            mine["late"] < 0.5 * default["late"],
            f"with c = {c:g} regret is {mine['late']:.1f}, not below half of c = sqrt(2)'s {default['late']:.1f}",
        )
        return f"passed: c = {c:g} has regret {mine['late']:.1f} at t = {steps:,} (c = sqrt(2): {default['late']:.1f})"

    return _verdict(check, "set my_c above")
