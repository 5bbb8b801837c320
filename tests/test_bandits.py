"""Tests for mctslab.bandits: environments, policies and the experiment bookkeeping.

Stochastic tests are seeded and their margins come from the sample size (a few
standard errors), never from a lucky run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mctslab.bandits.policies as policies_module
from mctslab.bandits import (
    UCB1,
    Arms,
    BernoulliArms,
    EpsilonGreedy,
    ExploreThenCommit,
    GaussianArms,
    Greedy,
    Policy,
    RoundRobin,
    SequentialHalving,
    Stats,
    SuccessiveRejects,
    ThompsonSampling,
    UCB1Tuned,
    argmax_random,
    compare,
    log_grid,
    run,
    simulate,
    trace,
)
from mctslab.ucb import ucb1

# -- helpers ---------------------------------------------------------------------------


class Scripted(Policy):
    """Plays a fixed sequence of arms in every run."""

    def __init__(self, sequence):
        self.sequence = list(sequence)

    def select(self, stats, rng):
        return np.full(stats.runs, self.sequence[stats.t])


class ScriptedArms(Arms):
    """Pays a fixed sequence of rewards (whatever arm is pulled), with given true means."""

    def __init__(self, means, rewards):
        self.means = np.asarray(means, dtype=float)
        self.rewards = list(rewards)
        self.step = 0

    def pull(self, arms, rng):
        reward = self.rewards[self.step]
        self.step += 1
        return np.full(len(arms), reward)


def sigma_margin(p: float, n: int, k: float = 4.0) -> float:
    """``k`` standard errors of a proportion ``p`` estimated from ``n`` samples."""
    return k * math.sqrt(max(p * (1 - p), 1e-12) / n)


def first_pulls(policy, means, runs, steps, seed=0):
    """The arms pulled in the first ``steps`` steps, shape (steps, runs), and the final stats."""
    pulls, stats = [], None
    for step_stats, chosen, _ in simulate(policy, means, runs=runs, steps=steps, seed=seed):
        pulls.append(chosen.copy())
        stats = step_stats
    return np.array(pulls), stats


# -- environments ----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [[], [0.5, 1.2], [-0.1, 0.5], [0.5, float("nan")], [[0.1, 0.2]]])
def test_bernoulli_arms_reject_bad_means(bad):
    with pytest.raises(ValueError, match=r"arm|\[0, 1\]|flat|numbers"):
        BernoulliArms(bad)


@pytest.mark.parametrize("bad", ["abc", [0.5, "x"], [0.5, object()]])
def test_bernoulli_arms_reject_means_that_are_not_numbers_with_a_type_error(bad):
    with pytest.raises(TypeError, match=r"means must be a list of numbers in \[0, 1\], got "):
        BernoulliArms(bad)


def test_bad_mean_message_names_the_arm_and_the_range():
    with pytest.raises(ValueError, match=r"means\[1\] = 1\.5 is outside \[0, 1\]"):
        BernoulliArms([0.2, 1.5])
    with pytest.raises(ValueError, match="at least one arm"):
        BernoulliArms([])


def test_bernoulli_pull_frequency_matches_mean():
    bandit = BernoulliArms([0.3, 0.8])
    n = 20_000
    rewards = bandit.pull(np.zeros(n, dtype=int), np.random.default_rng(1))
    assert set(np.unique(rewards)) <= {0.0, 1.0}
    assert abs(rewards.mean() - 0.3) < sigma_margin(0.3, n)


def test_arms_gaps_and_best():
    bandit = BernoulliArms([0.2, 0.9, 0.9, 0.5])
    assert bandit.k == 4
    assert bandit.best_mean == 0.9
    np.testing.assert_allclose(bandit.gaps, [0.7, 0.0, 0.0, 0.4])
    assert bandit.best_arms.tolist() == [1, 2]


def test_gaussian_arms_exact_mean_of_clipped_rewards():
    bandit = GaussianArms([0.05, 0.5, 0.97], sigma=0.2)
    n = 40_000
    rng = np.random.default_rng(2)
    for arm, true in enumerate(bandit.means):
        rewards = bandit.pull(np.full(n, arm), rng)
        assert rewards.min() >= 0.0 and rewards.max() <= 1.0
        # A clipped reward has standard deviation below sigma.
        assert abs(rewards.mean() - true) < 4 * 0.2 / math.sqrt(n)
    # Clipping pulls the means of the end arms towards 1/2, the middle one stays.
    assert bandit.means[0] > 0.05 and bandit.means[2] < 0.97
    assert bandit.means[1] == pytest.approx(0.5, abs=1e-12)
    with pytest.raises(ValueError, match="sigma"):
        GaussianArms([0.5], sigma=-1)


# -- the shared machinery --------------------------------------------------------------


def test_stats_update_by_hand():
    stats = Stats(runs=2, arms=3, horizon=10)
    stats.update(np.array([0, 2]), np.array([1.0, 0.5]))
    stats.update(np.array([0, 0]), np.array([0.0, 1.0]))
    assert stats.t == 2
    np.testing.assert_array_equal(stats.counts, [[2, 0, 0], [1, 0, 1]])
    np.testing.assert_allclose(stats.sums, [[1, 0, 0], [1, 0, 0.5]])
    np.testing.assert_allclose(stats.sumsq, [[1, 0, 0], [1, 0, 0.25]])
    np.testing.assert_allclose(stats.means, [[0.5, 0, 0], [1, 0, 0.5]])


def test_argmax_random_breaks_ties_uniformly():
    values = np.tile([0.2, 0.7, 0.7, 0.1, 0.7], (30_000, 1))
    picks = argmax_random(values, np.random.default_rng(3))
    assert set(np.unique(picks)) == {1, 2, 4}
    for arm in (1, 2, 4):
        assert abs(np.mean(picks == arm) - 1 / 3) < sigma_margin(1 / 3, len(picks))
    # Without ties it is np.argmax.
    values = np.random.default_rng(4).random((100, 6))
    np.testing.assert_array_equal(argmax_random(values, np.random.default_rng(0)), values.argmax(axis=1))


# -- policies --------------------------------------------------------------------------


def test_ucb1_plays_every_arm_once_first():
    k = 6
    pulls, _ = first_pulls(UCB1(), [0.1, 0.2, 0.3, 0.4, 0.5, 0.9], runs=50, steps=k)
    for r in range(pulls.shape[1]):
        assert sorted(pulls[:, r]) == list(range(k))


def test_ucb1_pulls_the_arm_with_the_highest_shared_ucb1_index():
    means = [0.2, 0.45, 0.5, 0.8]
    policy, rng = UCB1(c=0.7), np.random.default_rng(5)
    stats = Stats(runs=64, arms=4, horizon=300)
    bandit = BernoulliArms(means)
    for _ in range(300):
        index = ucb1(stats.means, stats.t, stats.counts, 0.7)
        chosen = policy.select(stats, rng)
        assert np.all(index[np.arange(64), chosen] == index.max(axis=1))
        stats.update(chosen, bandit.pull(chosen, rng))


def test_ucb1_policy_calls_the_one_ucb1_function(monkeypatch):
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        return ucb1(*args, **kwargs)

    monkeypatch.setattr(policies_module, "ucb1", spy)
    run(UCB1(), [0.3, 0.6], runs=3, steps=20, progress=False)
    run(UCB1Tuned(), [0.3, 0.6], runs=3, steps=20, progress=False)
    assert len(calls) == 40


def test_ucb1_with_c_zero_is_greedy():
    a = run(UCB1(c=0.0), [0.3, 0.5, 0.6], runs=40, steps=200, seed=6, progress=False)
    b = run(Greedy(), [0.3, 0.5, 0.6], runs=40, steps=200, seed=6, progress=False)
    np.testing.assert_array_equal(a.counts, b.counts)


def test_greedy_gets_stuck_on_a_worse_arm():
    # Arm 1 is better. A run whose first pulls paid 1 on arm 0 and 0 on arm 1 never
    # pulls arm 1 again: arm 0's mean stays above 0, arm 1's stays 0.
    runs, means = 400, [0.3, 0.7]
    seen_first = None
    for stats, _, _ in simulate(Greedy(), means, runs=runs, steps=300, seed=7):
        if stats.t == 2:
            seen_first = stats.sums.copy()
    stuck = (seen_first[:, 0] == 1) & (seen_first[:, 1] == 0)
    assert stuck.sum() > 0  # expected 0.3 * 0.3 * 400 = 36 such runs
    assert np.all(stats.counts[stuck, 1] == 1)
    assert np.all(stats.counts[stuck, 0] == 299)


def test_epsilon_greedy_with_epsilon_one_is_uniform():
    result = run(EpsilonGreedy(1.0), [0.1, 0.5, 0.9, 0.2], runs=50, steps=400, progress=False)
    share = result.counts.sum(axis=0) / result.counts.sum()
    for s in share:
        assert abs(s - 0.25) < sigma_margin(0.25, result.counts.sum())


def test_epsilon_greedy_explores_a_fraction_epsilon():
    # Arms 0 and 1 pay exactly 0 and 1: after the first round greedy always takes arm 1,
    # so pulls of arm 0 after that come only from exploration (with probability epsilon / 2).
    eps, runs, steps = 0.3, 200, 200
    result = run(EpsilonGreedy(eps), [0.0, 1.0], runs=runs, steps=steps, seed=8, progress=False)
    n = runs * (steps - 2)
    share = (result.counts[:, 0].sum() - runs) / n
    assert abs(share - eps / 2) < sigma_margin(eps / 2, n) + 2 * eps / steps


def test_explore_then_commit_explores_in_turn_then_commits_to_the_best_estimate():
    m, k, steps, runs = 5, 3, 60, 30
    pulls, means_after_exploring = [], None
    for stats, chosen, _ in simulate(ExploreThenCommit(m), [0.2, 0.5, 0.6], runs=runs, steps=steps, seed=9):
        pulls.append(chosen.copy())
        if stats.t == m * k:
            means_after_exploring = stats.means.copy()
    pulls = np.array(pulls)
    np.testing.assert_array_equal(pulls[: m * k], np.tile(np.arange(m * k) % k, (runs, 1)).T)
    committed = pulls[m * k :]
    assert np.all(committed == committed[0])
    chosen_mean = means_after_exploring[np.arange(runs), committed[0]]
    np.testing.assert_array_equal(chosen_mean, means_after_exploring.max(axis=1))


def test_thompson_posterior_updates_exactly():
    policy = ThompsonSampling(a=2, b=3)
    stats = Stats(runs=1, arms=2, horizon=10)
    for arm, reward in [(0, 1), (0, 0), (1, 1), (0, 1), (1, 1)]:
        stats.update(np.array([arm]), np.array([float(reward)]))
    alpha, beta = policy.posterior(stats)
    # Arm 0: 2 successes, 1 failure; arm 1: 2 successes, 0 failures.
    np.testing.assert_array_equal(alpha, [[2 + 2, 2 + 2]])
    np.testing.assert_array_equal(beta, [[3 + 1, 3 + 0]])


def _prob_beta_greater(a1, b1, a2, b2):
    """Exact P(X2 > X1) for X1 ~ Beta(a1, b1), X2 ~ Beta(a2, b2), integer a2 (Evan Miller's formula)."""

    def lbeta(a, b):
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)

    return sum(
        math.exp(lbeta(a1 + i, b1 + b2) - math.log(b2 + i) - lbeta(1 + i, b2) - lbeta(a1, b1)) for i in range(a2)
    )


def test_thompson_picks_each_arm_with_its_posterior_probability_of_being_best():
    runs = 20_000
    stats = Stats(runs=runs, arms=2, horizon=100)
    stats.counts[:] = [6, 4]  # posteriors Beta(3, 5) and Beta(4, 2) under the uniform prior
    stats.sums[:] = [2, 3]
    stats.means[:] = stats.sums / stats.counts
    picks = ThompsonSampling().select(stats, np.random.default_rng(10))
    p = _prob_beta_greater(3, 5, 4, 2)
    assert 0.5 < p < 1
    assert abs(np.mean(picks == 1) - p) < sigma_margin(p, runs)


@pytest.mark.parametrize("steps", [30, 3000])
def test_ucb1_tuned_bound_is_variance_aware_and_below_ucb1_half(steps):
    # Few pulls: the cap 1/4 binds. Many pulls of low-variance arms: the observed variance does.
    rng = np.random.default_rng(11)
    stats = Stats(runs=20, arms=3, horizon=steps)
    bandit = BernoulliArms([0.05, 0.5, 0.95])
    for _ in range(steps):
        chosen = rng.integers(0, 3, size=20)
        stats.update(chosen, bandit.pull(chosen, rng))
    tuned = UCB1Tuned().index(stats)
    n, t = stats.counts, stats.t
    var = stats.sumsq / n - stats.means**2
    v = var + np.sqrt(2 * np.log(t) / n)
    expected = stats.means + np.sqrt(np.log(t) / n * np.minimum(0.25, v))
    np.testing.assert_allclose(tuned[n > 0], expected[n > 0])
    half = ucb1(stats.means, t, n, 0.5)
    assert np.all(tuned <= half + 1e-12)
    if steps > 1000:
        assert np.all(v[:, [0, 2]] < 0.25)  # the low-variance arms are below the cap...
        assert np.all(tuned[:, [0, 2]] < half[:, [0, 2]] - 1e-3)  # ...so their bounds are tighter


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: UCB1(c=-1), "c must be a number >= 0"),
        (lambda: EpsilonGreedy(1.5), r"epsilon must be a number in \[0.0, 1.0\]"),
        (lambda: ExploreThenCommit(0), "integer >= 1"),
        (lambda: ThompsonSampling(a=0), "a > 0"),
    ],
)
def test_policies_reject_bad_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: UCB1(c="big"), "c must be a number"),
        (lambda: EpsilonGreedy("0.1"), r"epsilon must be a number in \[0.0, 1.0\]"),
        (lambda: ExploreThenCommit(2.5), "integer >= 1"),
        (lambda: ThompsonSampling(b=None), "b must be a number"),
    ],
)
def test_policies_reject_parameters_of_the_wrong_type_with_a_type_error(make, match):
    with pytest.raises(TypeError, match=match):
        make()


@pytest.mark.parametrize(
    ("choice", "match"),
    [(np.zeros(3, dtype=int), "shape"), (np.full(4, 7), "arm 7"), (np.full(4, 0.0), "integer")],
)
def test_a_policy_returning_a_bad_choice_gets_an_explanation(choice, match):
    class Broken(Policy):
        def select(self, stats, rng):
            return choice

    with pytest.raises(ValueError, match=match):
        run(Broken(), [0.5, 0.5], runs=4, steps=3, progress=False)


# -- pure exploration ------------------------------------------------------------------


@pytest.mark.parametrize("policy_class", [SequentialHalving, SuccessiveRejects])
@pytest.mark.parametrize(("k", "budget"), [(2, 10), (5, 100), (10, 1000), (7, 300)])
def test_elimination_schedules_fit_the_budget_and_end_with_one_arm(policy_class, k, budget):
    phases = policy_class().schedule(k, budget)
    survivors, used = k, 0
    for pulls, keep in phases:
        assert pulls >= 0 and 1 <= keep < survivors
        used += pulls * survivors
        survivors = keep
    assert survivors == 1
    assert used <= budget


def test_sequential_halving_pulls_survivors_equally_and_names_the_survivor():
    k, budget, runs = 8, 240, 20
    policy = SequentialHalving()
    phase_ends = np.cumsum([pulls * m for (pulls, _), m in zip(policy.schedule(k, budget), [8, 4, 2], strict=True)])
    for stats, _, _ in simulate(policy, np.linspace(0.2, 0.8, k), runs=runs, steps=budget, seed=12):
        if stats.t == phase_ends[0]:
            assert np.all(stats.counts == budget // (k * 3))
    # The budget ends with the final round of two arms; the recommendation is the better one.
    finalists = policy.survivors
    assert finalists.shape == (runs, 2)
    best = policy.recommend(stats, np.random.default_rng(0))
    finalist_means = np.take_along_axis(stats.means, finalists, axis=1)
    assert np.all(stats.means[np.arange(runs), best] == finalist_means.max(axis=1))
    assert np.all((finalists == best[:, None]).any(axis=1))


@pytest.mark.parametrize("policy_class", [SequentialHalving, SuccessiveRejects])
def test_elimination_finds_a_deterministic_best_arm(policy_class):
    result = run(policy_class(), [0.0, 0.0, 1.0, 0.0, 0.0], runs=30, steps=50, record=[50], progress=False)
    assert np.all(result.at(50, "simple_regret") == 0)


def test_sequential_halving_error_rate_within_karnin_bound():
    # Karnin, Koren and Somekh (2013), Theorem 4.1: P(wrong arm) <= 3 log2 K exp(-n / (8 H2 log2 K)).
    means = np.array([0.9, 0.5, 0.4, 0.3])
    gaps = np.sort(means.max() - means)[1:]
    h2 = max((i + 2) / g**2 for i, g in enumerate(gaps))
    budget, runs = 400, 400
    bound = 3 * math.log2(4) * math.exp(-budget / (8 * h2 * math.log2(4)))
    result = run(SequentialHalving(), means, runs=runs, steps=budget, record=[budget], seed=13, progress=False)
    errors = np.mean(result.at(budget, "simple_regret") > 0)
    assert errors <= bound + sigma_margin(bound, runs)


def test_elimination_rejects_too_small_budget():
    with pytest.raises(ValueError, match="at least"):
        run(SequentialHalving(), [0.1] * 8, runs=2, steps=20, progress=False)
    with pytest.raises(ValueError, match="larger than K"):
        run(SuccessiveRejects(), [0.1] * 8, runs=2, steps=8, progress=False)


# -- experiments -----------------------------------------------------------------------


def test_regret_bookkeeping_against_a_hand_worked_example():
    # means 0.2, 0.5, 0.9; pulls 0, 1, 2, 2, 1; gaps 0.7, 0.4, 0, 0, 0.4.
    arms = ScriptedArms([0.2, 0.5, 0.9], rewards=[0.6, 0.5, 0.8, 0.6, 0.1])
    result = run(Scripted([0, 1, 2, 2, 1]), arms, runs=1, steps=5, record=[1, 2, 3, 4, 5], progress=False)
    np.testing.assert_allclose(result.regret[0], [0.7, 1.1, 1.1, 1.1, 1.5])
    np.testing.assert_allclose(result.optimal_fraction[0], [0, 0, 1 / 3, 2 / 4, 2 / 5])
    # Empirical best so far: arm 0 (0.6), arm 0 (0.6 > 0.5), then arm 2 (0.8, 0.7, 0.7).
    np.testing.assert_allclose(result.simple_regret[0], [0.7, 0.7, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(result.counts[0], [1, 2, 2])
    assert result.steps == 5 and result.runs == 1


def test_same_seed_same_result_and_different_seed_different_result():
    means = [0.2, 0.4, 0.6]
    for policy in (EpsilonGreedy(0.2), ThompsonSampling(), UCB1(), SequentialHalving()):
        a = run(policy, means, runs=20, steps=100, seed=14, progress=False)
        b = run(policy, means, runs=20, steps=100, seed=14, progress=False)
        c = run(policy, means, runs=20, steps=100, seed=15, progress=False)
        for name in ("regret", "simple_regret", "optimal_fraction", "counts"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert not np.array_equal(a.counts, c.counts)
    g1 = run(UCB1(), means, runs=5, steps=50, seed=np.random.default_rng(3), progress=False)
    g2 = run(UCB1(), means, runs=5, steps=50, seed=np.random.default_rng(3), progress=False)
    np.testing.assert_array_equal(g1.regret, g2.regret)
    sequence = np.random.SeedSequence(4)
    s1 = run(EpsilonGreedy(), means, runs=5, steps=50, seed=sequence, progress=False)
    s2 = run(EpsilonGreedy(), means, runs=5, steps=50, seed=sequence, progress=False)
    np.testing.assert_array_equal(s1.regret, s2.regret)


def test_recording_does_not_change_the_run():
    means = [0.3, 0.5, 0.55]
    dense = run(ThompsonSampling(), means, runs=10, steps=200, seed=16, record=range(1, 201), progress=False)
    sparse = run(ThompsonSampling(), means, runs=10, steps=200, seed=16, record=[200], progress=False)
    np.testing.assert_array_equal(dense.at(200), sparse.at(200))
    np.testing.assert_array_equal(dense.at(200, "simple_regret"), sparse.at(200, "simple_regret"))


def test_round_robin_regret_is_exactly_linear():
    means = np.array([0.1, 0.4, 0.9])
    result = run(RoundRobin(), means, runs=3, steps=300, record=[3, 30, 300], progress=False)
    mean_gap = np.mean(means.max() - means)
    np.testing.assert_allclose(result.regret, np.tile([3 * mean_gap, 30 * mean_gap, 300 * mean_gap], (3, 1)))


def test_experiment_input_errors():
    with pytest.raises(ValueError, match="runs must be an integer >= 1"):
        run(UCB1(), [0.5], runs=0, steps=10, progress=False)
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        run(UCB1(), [0.5], runs=1, steps=-5, progress=False)
    with pytest.raises(ValueError, match=r"\[1, 10\]"):
        run(UCB1(), [0.5], runs=1, steps=10, record=[0, 5], progress=False)
    with pytest.raises(ValueError, match="at least one arm"):
        run(UCB1(), [], runs=1, steps=10, progress=False)
    with pytest.raises(ValueError, match="outside"):
        run(UCB1(), [0.5, 2.0], runs=1, steps=10, progress=False)
    result = run(UCB1(), [0.5, 0.6], runs=2, steps=10, record=[5, 10], progress=False)
    with pytest.raises(ValueError, match="not recorded"):
        result.at(7)
    with pytest.raises(ValueError, match="known measures"):
        result.mean("regrets")
    with pytest.raises(ValueError, match="both named"):
        compare([UCB1(), UCB1()], [0.5, 0.6], runs=2, steps=10, progress=False)


def test_log_grid():
    grid = log_grid(10_000)
    assert grid[0] == 1 and grid[-1] == 10_000
    assert {10, 100, 1000, 10_000} <= set(grid.tolist())
    assert np.all(np.diff(grid) > 0)
    assert log_grid(1).tolist() == [1]
    assert log_grid(37)[-1] == 37


def test_compare_uses_common_random_numbers():
    # Two copies of the same policy under different names see the same draws.
    class Named(UCB1):
        def __init__(self, label):
            super().__init__()
            self.label = label

        @property
        def name(self):
            return self.label

    results = compare([Named("a"), Named("b")], [0.3, 0.6], runs=5, steps=80, progress=False)
    np.testing.assert_array_equal(results["a"].regret, results["b"].regret)


def test_trace_counts_and_sums():
    tr = trace(UCB1(), [0.2, 0.8], steps=50, seed=17)
    assert tr.arms.shape == (50,) and tr.rewards.shape == (50,)
    assert tr.counts(50).sum() == 50
    assert tr.counts(0).sum() == 0
    np.testing.assert_allclose(tr.sums(50).sum(), tr.rewards.sum())


def test_ucb1_regret_stays_below_auer_bound_and_beats_epsilon_greedy_at_long_horizon():
    from mctslab.bandits import ucb1_regret_bound

    means = [0.1, 0.5, 0.9]
    result = run(UCB1(), means, runs=100, steps=3000, seed=18, progress=False)
    eps = run(EpsilonGreedy(0.1), means, runs=100, steps=3000, seed=18, progress=False)
    assert np.all(result.mean() <= ucb1_regret_bound(means, result.times))
    sem = math.hypot(result.at(3000).std(), eps.at(3000).std()) / math.sqrt(100)
    assert eps.at(3000).mean() - result.at(3000).mean() > 4 * sem


def test_subclassing_policy_needs_select():
    with pytest.raises(TypeError):
        Policy()  # abstract


def test_docstring_examples_run():
    import doctest

    import mctslab.bandits
    import mctslab.bandits.arms

    for module in (mctslab.bandits, mctslab.bandits.arms):
        failed, attempted = doctest.testmod(module)
        assert attempted > 0 and failed == 0
