"""Statistics of the tournament: Wilson intervals, scores, games needed, Bradley-Terry Elo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mctslab.tournament import (
    Outcomes,
    as_far_probability,
    bradley_terry,
    games_needed,
    games_needed_one_sample,
    holm,
    score_interval,
    wilson,
)
from mctslab.tournament.elo import ELO_PER_NAT


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat. Med. 17, table I
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_published_values(k, n, low, high):
    got = wilson(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_edges_and_symmetry():
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    low, high = wilson(3, 10)
    assert wilson(7, 10) == pytest.approx((1 - high, 1 - low))
    assert wilson(0, 0) == (0.0, 1.0)
    # narrower with more games, wider with more confidence
    assert np.diff(wilson(30, 100))[0] < np.diff(wilson(3, 10))[0]
    assert np.diff(wilson(30, 100, 0.99))[0] > np.diff(wilson(30, 100))[0]


@pytest.mark.parametrize(("k", "n", "conf"), [(-1, 10, 0.95), (11, 10, 0.95), (1, -1, 0.95), (1, 10, 1.0)])
def test_wilson_rejects_bad_input(k, n, conf):
    with pytest.raises(ValueError):
        wilson(k, n, conf)


def test_wilson_covers_about_95_percent():
    rng = np.random.default_rng(5)
    n, p, trials = 50, 0.1, 4000
    ks = rng.binomial(n, p, size=trials)
    covered = np.mean([lo <= p <= hi for lo, hi in (wilson(int(k), n) for k in ks)])
    assert abs(covered - 0.95) < 5 * math.sqrt(0.95 * 0.05 / trials) + 0.02  # Wilson's coverage wobbles a little


def test_outcomes_score_and_intervals():
    o = Outcomes(wins=6, draws=2, losses=2)
    assert o.games == 10 and o.score == pytest.approx(0.7)
    assert o.score_ci() == score_interval(6, 2, 2)
    assert Outcomes(7, 0, 3).score_ci() == wilson(7, 10)  # without draws: Wilson's interval
    assert o.flipped() == Outcomes(2, 2, 6) and o.flipped().score == pytest.approx(0.3)
    assert o + o == Outcomes(12, 4, 4)
    assert math.isnan(Outcomes().score)


def test_games_needed_gives_the_promised_power():
    n = games_needed(0.6, 0.5)
    rng = np.random.default_rng(11)
    reps = 4000
    a, b = rng.binomial(n, 0.6, reps) / n, rng.binomial(n, 0.5, reps) / n
    pooled = (a + b) / 2
    z = (a - b) / np.sqrt(2 * pooled * (1 - pooled) / n)
    power = np.mean(np.abs(z) > 1.96)
    assert abs(power - 0.8) < 5 * math.sqrt(0.8 * 0.2 / reps)
    # and the false-alarm rate when the rates are equal is the promised 5%
    a2 = rng.binomial(n, 0.5, reps) / n
    pooled = (a2 + b) / 2
    alarms = np.mean(np.abs((a2 - b) / np.sqrt(2 * pooled * (1 - pooled) / n)) > 1.96)
    assert abs(alarms - 0.05) < 5 * math.sqrt(0.05 * 0.95 / reps)


def test_games_needed_grows_as_the_gap_shrinks_and_rejects_equal_rates():
    assert games_needed(0.9, 0.7) < games_needed(0.6, 0.55) < games_needed(0.51, 0.5)
    with pytest.raises(ValueError, match="equal"):
        games_needed(0.5, 0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        games_needed(1.2, 0.5)


def _one_sample_power(n: int, p: float, p0: float) -> float:
    """Exact binomial power of the two-sided z-test of ``k / n`` against ``p0`` at 5%, if the true rate is ``p``."""
    radius = 1.959963984540054 * math.sqrt(p0 * (1 - p0) / n)
    total = 0.0
    for k in range(n + 1):
        if abs(k / n - p0) > radius:
            total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
    return total


@pytest.mark.parametrize(("p", "p0"), [(0.56, 0.5), (0.6, 0.5), (0.3, 0.5), (0.9, 0.7)])
def test_games_needed_one_sample_gives_the_promised_power(p, p0):
    n = games_needed_one_sample(p, p0)
    # The exact binomial power at n games is close to 80% (the normal approximation's error
    # and the discreteness of k allow a few points), and clearly lower with half the games.
    assert 0.75 < _one_sample_power(n, p, p0) < 0.86
    assert _one_sample_power(n // 2, p, p0) < 0.65
    # one measured rate against a fixed value needs about half the games of two measured rates
    assert 0.4 < n / games_needed(p, p0) < 0.6


def test_games_needed_one_sample_docstring_numbers_and_errors():
    assert games_needed_one_sample(0.56) == 543 and games_needed(0.56, 0.5) == 1086  # quoted in the docstring
    assert games_needed_one_sample(0.4) == games_needed_one_sample(0.6)  # symmetric around 0.5
    with pytest.raises(ValueError, match="no number of games"):
        games_needed_one_sample(0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        games_needed_one_sample(1.2)
    with pytest.raises(TypeError):
        games_needed_one_sample("0.6")


def _simulated_round_robin(elos, games, rng, draw=0.2):
    k = len(elos)
    points, counts = np.zeros((k, k)), np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = 1 / (1 + 10 ** ((elos[j] - elos[i]) / 400))
            # a draw is half a win: draw with d, win with p - d/2, so the expected score is p
            d = min(draw, 2 * p, 2 * (1 - p))
            outcomes = rng.choice(3, size=games, p=[p - d / 2, d, 1 - p - d / 2])
            score = np.sum(outcomes == 0) + 0.5 * np.sum(outcomes == 1)
            points[i, j], points[j, i] = score, games - score
            counts[i, j] = counts[j, i] = games
    return points, counts


def test_bradley_terry_recovers_known_strengths():
    true = np.array([-300.0, -100.0, 0.0, 150.0, 400.0])
    points, counts = _simulated_round_robin(true, 400, np.random.default_rng(3))
    fit = bradley_terry([f"p{i}" for i in range(5)], points, counts)
    assert fit.ranking() == [4, 3, 2, 1, 0]
    centred = true - true.mean()
    for i in range(5):
        low, high = fit.ci95[i]
        half = (high - low) / 2
        # 4 standard errors: with 5 ratings, a 95% interval may miss by chance
        assert abs(fit.elo[i] - centred[i]) < half * 4 / 1.96
    assert sum(fit.elo) == pytest.approx(0.0, abs=1e-6)
    assert fit.expected_score(4, 0) > 0.9
    assert "p4" in fit.table().splitlines()[1]


def test_bradley_terry_keeps_an_unbeaten_player_finite():
    points = np.array([[0, 10, 10], [0, 0, 6], [0, 4, 0]])
    counts = np.array([[0, 10, 10], [10, 0, 10], [10, 10, 0]])
    fit = bradley_terry(["a", "b", "c"], points, counts)
    assert fit.ranking()[0] == 0 and all(math.isfinite(e) for e in fit.elo)
    assert fit.ci95[0][1] - fit.ci95[0][0] > fit.ci95[1][1] - fit.ci95[1][0]  # least certain about the unbeaten


def test_bradley_terry_two_players_matches_the_logit_of_the_score():
    fit = bradley_terry(["a", "b"], [[0, 75], [25, 0]], [[0, 100], [100, 0]], prior_sd=1e9)
    assert fit.elo[0] - fit.elo[1] == pytest.approx(ELO_PER_NAT * math.log(3), rel=1e-6)


def test_bradley_terry_rejects_inconsistent_tables():
    with pytest.raises(ValueError, match="points"):
        bradley_terry(["a", "b"], [[0, 7], [7, 0]], [[0, 10], [10, 0]])
    with pytest.raises(ValueError, match="two players"):
        bradley_terry(["a"], [[0]], [[0]])


def test_rate_and_ci_names_each_rate():
    from mctslab.tournament import Outcomes

    o = Outcomes(6, 2, 2)
    assert o.rate_and_ci("score") == (o.score, o.score_ci())
    assert o.rate_and_ci("win") == (o.win_rate, o.win_ci())
    assert o.rate_and_ci("loss") == (o.loss_rate, o.loss_ci())
    with pytest.raises(ValueError, match="'score', 'win' or 'loss'"):
        o.rate_and_ci("draws")


def test_as_far_probability_is_the_two_sided_binomial_tail():
    from fractions import Fraction

    # by hand, in fractions: n = 10, p = 1/2, k = 8: P(X >= 8) + P(X <= 2) = 2 * 56 / 1024
    assert as_far_probability(8, 10, 0.5) == pytest.approx(float(Fraction(112, 1024)), rel=1e-12)
    assert as_far_probability(5, 10, 0.5) == pytest.approx(1.0)
    assert as_far_probability(0, 5, 0.0) == 1.0 and as_far_probability(1, 5, 0.0) == 0.0
    # a seeded simulation agrees: the share of samples at least as far as k
    rng = np.random.default_rng(3)
    draws = rng.binomial(200, 0.577, 100_000)
    k = 136
    simulated = np.mean(np.abs(draws - 200 * 0.577) >= abs(k - 200 * 0.577) - 1e-9)
    exact = as_far_probability(k, 200, 0.577)
    assert abs(simulated - exact) < 5 * math.sqrt(exact * (1 - exact) / draws.size)
    with pytest.raises(ValueError):
        as_far_probability(11, 10, 0.5)
    with pytest.raises(ValueError):
        as_far_probability(1, 0, 0.5)


# -- the score interval with draws: exact coverage ------------------------------------------------


def _exact_coverage(n: int, rates: list[tuple[float, float]], confidence: float = 0.95) -> np.ndarray:
    """Coverage of :func:`score_interval` at each (win rate, draw rate): every outcome's probability summed."""
    triples = [(w, d, n - w - d) for w in range(n + 1) for d in range(n - w + 1)]
    w, d, lost = (np.array(x, dtype=float) for x in zip(*triples, strict=True))
    bounds = np.array([score_interval(*t, confidence) for t in triples])
    log_coef = np.array(
        [math.lgamma(n + 1) - math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(c + 1) for a, b, c in triples]
    )
    out = []
    for pw, pd in rates:
        pl = 1 - pw - pd
        mu = pw + pd / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            logp = log_coef + np.where(w > 0, w * np.log(pw), 0) + np.where(d > 0, d * np.log(pd), 0)
            logp = logp + np.where(lost > 0, lost * np.log(max(pl, 0.0)), 0)
        prob = np.exp(np.nan_to_num(logp, nan=-np.inf))
        covered = (bounds[:, 0] <= mu + 1e-12) & (mu - 1e-12 <= bounds[:, 1])
        out.append(prob[covered].sum())
    return np.array(out)


def _grid(draws: bool) -> list[tuple[float, float]]:
    steps = [round(0.05 * i, 2) for i in range(21)]
    if not draws:
        return [(pw, 0.0) for pw in steps if 0 < pw < 1]
    return [(pw, pd) for pd in steps if pd > 0 for pw in steps if pw + pd <= 1 + 1e-9 and pd < 1]


@pytest.mark.parametrize("n", [10, 30, 100])
def test_score_interval_coverage_with_and_without_draws(n):
    # What score_interval's docstring promises, computed exactly (no simulation noise).
    without = _exact_coverage(n, _grid(draws=False))
    with_draws = _exact_coverage(n, _grid(draws=True))
    assert without.mean() >= 0.94 and with_draws.mean() >= 0.95, (without.mean(), with_draws.mean())
    drawish = [c for c, (_, pd) in zip(with_draws, _grid(draws=True), strict=True) if pd >= 0.1]
    assert min(drawish) >= 0.92, min(drawish)
    if n == 30:  # the dip the docstring owns up to: Wilson's, at extreme rates with few games
        assert 0.855 < _exact_coverage(30, [(0.005, 0.0)])[0] < 0.865


def test_score_interval_coverage_by_simulation_in_a_drawish_match():
    # Tic-tac-toe-like: 10% wins, 88% draws, 2% losses; 100 games, 2,000 seeded matches.
    rng = np.random.default_rng(2026)
    pw, pd, n, trials = 0.10, 0.88, 100, 2000
    counts = rng.multinomial(n, [pw, pd, 1 - pw - pd], size=trials)
    mu = pw + pd / 2
    covered = np.mean([lo <= mu <= hi for lo, hi in (score_interval(*map(int, c)) for c in counts)])
    margin = 4 * math.sqrt(0.95 * 0.05 / trials)
    assert covered >= 0.95 - margin - 0.01, covered
    # and it is narrower than Wilson on the score, which ignores that draws vary less
    lo, hi = score_interval(12, 88, 0)
    wl, wh = wilson(12 + 88 / 2, 100)
    assert hi - lo < (wh - wl) / 2 and lo > 0.5 > wl


def test_score_interval_edges_symmetry_and_errors():
    assert score_interval(0, 0, 0) == (0.0, 1.0)
    assert score_interval(0, 0, 20) == wilson(0, 20) and score_interval(20, 0, 0)[1] == 1.0
    low, high = score_interval(0, 20, 0)
    assert 0 < low < 0.5 < high < 1 and high - 0.5 == pytest.approx(0.5 - low)
    lo, hi = score_interval(3, 5, 12)
    assert score_interval(12, 5, 3) == pytest.approx((1 - hi, 1 - lo))
    assert score_interval(3, 5, 12, 0.99)[1] - score_interval(3, 5, 12, 0.99)[0] > hi - lo
    for counts in [(5, 0, 5), (1, 1, 18), (0, 1, 19), (19, 1, 0), (40, 360, 0), (7, 3, 0)]:
        low, high = score_interval(*counts)
        score = (counts[0] + counts[1] / 2) / sum(counts)
        assert 0 <= low <= score <= high <= 1, counts
    with pytest.raises(ValueError, match="wins"):
        score_interval(-1, 2, 3)
    with pytest.raises(TypeError):
        score_interval(1.5, 2, 3)
    with pytest.raises(ValueError, match="confidence"):
        score_interval(1, 2, 3, 1.0)


def test_holm_steps_down_and_keeps_the_family_wise_error_rate():
    # Bonferroni (0.05 / 3 = 0.0167 each) rejects only the first; Holm compares 0.02 with 0.05 / 2, then 0.04 with 0.05.
    assert holm([0.001, 0.02, 0.04]) == (True, True, True)
    assert holm([0.04, 0.001, 0.02]) == (True, True, True)  # the order given is kept
    assert holm([0.001, 0.03, 0.04]) == (True, False, False)  # a step that fails stops the rest
    assert holm([0.2, 0.3]) == (False, False) and holm([]) == ()
    # Under the null (uniform p-values), three tests reject anything in at most 5% of families.
    rng = np.random.default_rng(38)
    families = 20_000
    false_alarms = sum(any(holm(rng.random(3))) for _ in range(families))
    assert wilson(false_alarms, families, 0.999)[0] < 0.05
    with pytest.raises(ValueError, match="p-value"):
        holm([0.5, 1.5])
