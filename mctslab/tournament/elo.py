"""Elo ratings from a round robin: a Bradley-Terry fit, with confidence intervals.

The Bradley-Terry model gives each player a strength ``theta`` and says player ``i``
scores ``sigmoid(theta_i - theta_j)`` against player ``j`` on average. On the Elo scale
a rating is ``400 / ln(10) * theta``, so 400 points of difference mean an expected
score of 10/11 (odds of 10 to 1). A draw counts as half a win and half a loss.

The fit maximises the likelihood times a weak Gaussian prior on the ratings (standard
deviation ``prior_sd`` Elo, 1,000 by default): without it, a player who won every game
would get an infinite rating. Ratings are reported relative to their mean (which the
games cannot fix: only differences are measured), with 95% intervals from the curvature
of the log-posterior at its maximum (a Laplace approximation).

Sources: Bradley and Terry (1952), "Rank analysis of incomplete block designs", Biometrika
39; Hunter (2004), "MM algorithms for generalized Bradley-Terry models", Annals of
Statistics 32; Elo (1978), *The Rating of Chessplayers, Past and Present*.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import positive_number

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of Bradley-Terry log-strength (about 173.7)."""


@dataclass(frozen=True)
class EloRatings:
    """Fitted ratings of the players of a round robin.

    Attributes:
        names: the players, in input order.
        elo: each player's rating, relative to the players' mean (which is 0).
        ci95: each rating's 95% interval ``(low, high)`` (relative to the same mean).
        covariance: covariance matrix of the ratings, in Elo squared.
        games: games each player played.
    """

    names: tuple[str, ...]
    elo: tuple[float, ...]
    ci95: tuple[tuple[float, float], ...]
    covariance: np.ndarray
    games: tuple[int, ...]

    def expected_score(self, i: int, j: int) -> float:
        """Expected score of player ``i`` against player ``j`` under the fitted model, in (0, 1)."""
        return 1 / (1 + 10 ** ((self.elo[j] - self.elo[i]) / 400))

    def ranking(self) -> list[int]:
        """Player indices, highest rating first."""
        return sorted(range(len(self.names)), key=lambda i: -self.elo[i])

    def table(self) -> str:
        """Ratings as a text table, best first."""
        width = max(len("agent"), *(len(n) for n in self.names))
        lines = [f"{'agent':<{width}}  {'Elo':>6}  {'95% interval':>17}  {'games':>6}"]
        for i in self.ranking():
            low, high = self.ci95[i]
            lines.append(
                f"{self.names[i]:<{width}}  {self.elo[i]:>+6.0f}  [{low:>+6.0f}, {high:>+6.0f}]  {self.games[i]:>6}"
            )
        return "\n".join(lines)

    def as_dict(self) -> list[dict[str, object]]:
        """One JSON-ready dict per player: name, elo, elo_ci95, games."""
        return [
            {
                "agent": self.names[i],
                "elo": round(self.elo[i], 1),
                "elo_ci95": [round(v, 1) for v in self.ci95[i]],
                "games": self.games[i],
            }
            for i in range(len(self.names))
        ]


def bradley_terry(
    names: Sequence[str],
    points: np.ndarray | Sequence[Sequence[float]],
    games: np.ndarray | Sequence[Sequence[int]],
    prior_sd: float = 1000.0,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> EloRatings:
    """Fit Elo ratings to round-robin results by Bradley-Terry (draws count half).

    Args:
        names: the players' names, ``k >= 2`` of them.
        points: ``k x k`` matrix; ``points[i][j]`` is what player ``i`` scored against
            ``j`` (wins + draws / 2), from 0 to ``games[i][j]``.
        games: ``k x k`` symmetric matrix of games played between ``i`` and ``j``.
        prior_sd: standard deviation of the Gaussian prior on each rating, in Elo, > 0.
            It keeps unbeaten players finite; larger means weaker.
        tol: Newton's method stops when no rating moves more than this (in nats).
        max_iter: at most this many Newton steps.

    Returns:
        The fitted :class:`EloRatings`.

    Raises:
        TypeError: if ``prior_sd`` is not a number.
        ValueError: on mismatched shapes, fewer than two players, an asymmetric
            ``games`` matrix, points outside [0, games], ``points[i][j] +
            points[j][i] != games[i][j]``, or ``prior_sd <= 0``.
    """
    k = len(names)
    pts = np.asarray(points, dtype=float)
    n = np.asarray(games, dtype=float)
    if k < 2:
        raise ValueError(f"ratings need at least two players, got {k}")
    if pts.shape != (k, k) or n.shape != (k, k):
        raise ValueError(f"points and games must be {k} x {k} matrices, got {pts.shape} and {n.shape}")
    if not np.allclose(n, n.T) or np.any(n < 0):
        raise ValueError("games must be a symmetric matrix of non-negative counts")
    if np.any(pts < -1e-9) or np.any(pts > n + 1e-9) or not np.allclose(pts + pts.T, n):
        raise ValueError("points[i][j] must lie in [0, games[i][j]] and points[i][j] + points[j][i] = games[i][j]")
    prior_sd = positive_number("prior_sd", prior_sd, hint=" Elo")
    np.fill_diagonal(n, 0.0)
    precision = (ELO_PER_NAT / prior_sd) ** 2  # prior precision on theta (nats)
    theta = np.zeros(k)
    for _ in range(max_iter):
        p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
        gradient = (pts - n * p).sum(axis=1) - precision * theta
        weight = n * p * (1 - p)
        hessian = np.diag(weight.sum(axis=1) + precision) - weight  # of the negative log-posterior
        step = np.linalg.solve(hessian, gradient)
        theta += step
        if np.max(np.abs(step)) < tol:
            break
    p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
    weight = n * p * (1 - p)
    hessian = np.diag(weight.sum(axis=1) + precision) - weight
    centring = np.eye(k) - 1.0 / k
    cov = ELO_PER_NAT**2 * centring @ np.linalg.inv(hessian) @ centring.T
    elo = ELO_PER_NAT * (centring @ theta)
    half = 1.96 * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return EloRatings(
        names=tuple(names),
        elo=tuple(float(e) for e in elo),
        ci95=tuple((float(e - h), float(e + h)) for e, h in zip(elo, half, strict=True)),
        covariance=cov,
        games=tuple(int(g) for g in n.sum(axis=1)),
    )
