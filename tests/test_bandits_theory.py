"""Tests for mctslab.bandits theory curves, figures, the playground and the benchmark."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mctslab.bandits import (
    UCB1,
    BernoulliArms,
    EpsilonGreedy,
    bernoulli_kl,
    compare,
    hoeffding_radius,
    lai_robbins_bound,
    lai_robbins_coefficient,
    trace,
    ucb1_regret_bound,
)
from mctslab.bandits.bench import bench_bandits, format_table
from mctslab.ucb import SQRT2, exploration, ucb1

# -- theory ----------------------------------------------------------------------------


def test_bernoulli_kl_by_hand_and_edge_cases():
    p, q = 0.3, 0.6
    assert bernoulli_kl(p, q) == pytest.approx(p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q)))
    assert bernoulli_kl(0.4, 0.4) == 0.0
    assert bernoulli_kl(0.0, 0.25) == pytest.approx(-math.log(0.75))
    assert bernoulli_kl(1.0, 0.25) == pytest.approx(-math.log(0.25))
    assert bernoulli_kl(0.5, 1.0) == math.inf
    grid = np.linspace(0, 1, 11)
    assert np.all(bernoulli_kl(grid[:, None], grid[None, :]) >= 0)
    # Pinsker: kl(p, q) >= 2 (p - q)^2.
    inner = np.linspace(0.05, 0.95, 19)
    pp, qq = np.meshgrid(inner, inner)
    assert np.all(bernoulli_kl(pp, qq) >= 2 * (pp - qq) ** 2 - 1e-12)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bernoulli_kl(1.5, 0.5)


def test_lai_robbins_coefficient_by_hand():
    gap, kl = 0.1, 0.5 * math.log(0.5 / 0.6) + 0.5 * math.log(0.5 / 0.4)
    assert lai_robbins_coefficient([0.5, 0.6]) == pytest.approx(gap / kl)
    assert lai_robbins_coefficient([0.7, 0.7]) == 0.0
    both = lai_robbins_coefficient([0.2, 0.5, 0.6])
    assert both == pytest.approx(gap / kl + 0.4 / bernoulli_kl(0.2, 0.6))
    t = np.array([1, 10, 1000])
    np.testing.assert_allclose(lai_robbins_bound([0.5, 0.6], t), gap / kl * np.log(t))
    with pytest.raises(ValueError, match="t counts pulls"):
        lai_robbins_bound([0.5, 0.6], 0)
    with pytest.raises(ValueError, match="outside"):
        lai_robbins_coefficient([0.5, 1.6])


def test_ucb1_regret_bound_by_hand():
    means, t = [0.2, 0.5, 0.9], 1000
    expected = 8 * math.log(t) * (1 / 0.7 + 1 / 0.4) + (1 + math.pi**2 / 3) * (0.7 + 0.4)
    assert ucb1_regret_bound(means, t) == pytest.approx(expected)


def test_hoeffding_radius_with_delta_t_minus_4_is_the_ucb1_bonus():
    for t, n in [(10, 1), (100, 7), (12_345, 300)]:
        assert hoeffding_radius(n, t**-4.0) == pytest.approx(exploration(t, n, SQRT2))
        assert ucb1(0.25, t, n) == pytest.approx(0.25 + hoeffding_radius(n, t**-4.0))


def test_hoeffding_radius_covers_with_probability_one_minus_delta():
    # Bernoulli(1/2) has the largest variance of any [0, 1] reward: the hardest case.
    rng = np.random.default_rng(20)
    n, delta, trials = 50, 0.1, 20_000
    means = rng.binomial(n, 0.5, size=trials) / n
    above = np.mean(means - 0.5 >= hoeffding_radius(n, delta))
    assert above <= delta  # Hoeffding is conservative; at n = 50 the true rate is ~0.05
    with pytest.raises(ValueError, match="delta"):
        hoeffding_radius(10, 0.0)
    with pytest.raises(ValueError, match="n must be > 0"):
        hoeffding_radius(0, 0.1)


# -- figures and the playground --------------------------------------------------------


@pytest.fixture(scope="module")
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_plot_metric_draws_one_line_per_policy_and_the_theory(plt):
    from mctslab.bandits.plots import plot_metric

    results = compare([UCB1(), EpsilonGreedy()], [0.2, 0.8], runs=8, steps=100, progress=False)
    ax = plot_metric(results, lai_robbins=True, ucb1_bound=True)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[:2] == ["UCB1(c=1.41)", "EpsilonGreedy(epsilon=0.1)"]
    assert any("Lai-Robbins" in label for label in labels)
    assert ax.get_xscale() == "log"
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), results["UCB1(c=1.41)"].mean())
    ax = plot_metric(list(results.values()), "simple_regret", band=None, logx=False, colors={"UCB1(c=1.41)": "red"})
    assert ax.get_xscale() == "linear"
    assert ax.get_lines()[0].get_color() == "red"


def test_snapshot_matches_what_ucb1_pulled_next(plt):
    from mctslab.bandits.plots import plot_pulls, plot_snapshot, snapshot

    c = 1.0
    tr = trace(UCB1(c), [0.1, 0.4, 0.5, 0.9], steps=120, seed=21)
    for t in range(0, 120):
        snap = snapshot(tr, t, c)
        assert snap.upper[snap.next_arm] == snap.upper.max()
        played = snap.counts > 0
        np.testing.assert_allclose((snap.upper[played] + snap.lower[played]) / 2, snap.estimates[played])
    final = snapshot(tr, 120, c)
    assert final.next_arm is None and final.counts.sum() == 120
    plot_snapshot(snapshot(tr, 2, c))  # with unplayed arms
    plot_pulls(tr, 60)
    with pytest.raises(ValueError, match=r"t must be an integer in \[0, 120\]"):
        snapshot(tr, 121, c)


def test_parse_means():
    from mctslab.bandits.widgets import parse_means

    assert parse_means("0.1, 0.5 0.9") == [0.1, 0.5, 0.9]
    with pytest.raises(ValueError, match="'x' is not a number"):
        parse_means("0.1, x")
    with pytest.raises(ValueError, match="outside"):
        parse_means("0.1, 1.5")
    with pytest.raises(ValueError, match="at least one arm"):
        parse_means("  ")


def test_playground_figure_and_widget(plt):
    from mctslab.bandits.widgets import playground_figure

    fig = playground_figure([0.2, 0.5, 0.8], c=0.5, t=30, steps=60, seed=1)
    assert len(fig.axes) == 2
    with pytest.raises(ValueError, match=r"t must be an integer in \[0, 60\]"):
        playground_figure([0.2, 0.5], t=100, steps=60)
    pytest.importorskip("ipywidgets")
    from mctslab.bandits.widgets import playground

    box = playground("0.3, 0.6", steps=40)
    text = box.children[0].children[0]
    text.value = "0.3, oops"  # a typing mistake shows a message instead of raising
    assert "not a number" in box.children[2].value
    text.value = "0.3, 0.7"
    assert box.children[2].value == ""
    # Where widgets cannot be drawn (untrusted notebook, GitHub), the stored text says what is there.
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    stand_in = bundle["text/plain"]
    assert stand_in.startswith("UCB1 playground") and "0.3, 0.7" in stand_in and "of 40" in stand_in
    assert "VBox" not in stand_in and max(len(line) for line in stand_in.splitlines()) <= 100
    # The two panels exist only once the cell runs: the stand-in does not describe them as there.
    assert stand_in.splitlines()[-1].startswith("once it runs:")


# -- benchmark -------------------------------------------------------------------------


def test_bench_bandits_tiny():
    rows = bench_bandits(runs=4, steps=60, arms=3, repeats=1, policies=[UCB1(), EpsilonGreedy()])
    assert [row["name"] for row in rows] == ["UCB1(c=1.41)", "EpsilonGreedy(epsilon=0.1)"]
    for row in rows:
        assert row["runs"] == 4 and row["steps"] == 60 and row["arms"] == 3
        assert row["seconds"] > 0 and row["cpu_seconds"] >= 0
    table = format_table(rows)
    assert "UCB1(c=1.41)" in table and len(table.splitlines()) == 4
    with pytest.raises(ValueError, match="at least 2 arms"):
        bench_bandits(arms=1)


def test_bench_default_policies_all_run():
    rows = bench_bandits(runs=2, steps=40, arms=4, repeats=1)
    assert len(rows) == 8
    assert all(np.isfinite(row["final_regret"]) for row in rows)
    assert BernoulliArms(np.linspace(0.1, 0.9, 4)).k == 4
