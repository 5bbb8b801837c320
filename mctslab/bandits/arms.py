"""Bandit environments: a row of slot machines whose true means are known.

Bradberry 2015 opens with "a row of slot machines, each with different payout
probabilities". An :class:`Arms` object is that row. It pulls one arm in each of
many independent runs at once (a NumPy vector of arm indices in, a vector of
rewards out), and it knows the true means, so experiments can measure regret
exactly. Rewards are on the package's scale, [0, 1].
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from ..validation import number

__all__ = ["Arms", "BernoulliArms", "GaussianArms", "check_means"]


def check_means(means: Sequence[float] | np.ndarray, what: str = "means") -> np.ndarray:
    """Validate a list of arm means and return it as a read-only float array.

    Args:
        means: one number per arm, each in [0, 1]; at least one arm.
        what: the name used in error messages.

    Returns:
        A 1-D ``float64`` array (a copy, marked read-only).

    Raises:
        TypeError: if ``means`` is not a list of numbers (e.g. a string).
        ValueError: if there are no arms, the list is not flat, or a mean is not a
            finite number in [0, 1] (the message names the offending arm).
    """
    try:
        arr = np.array(means, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a list of numbers in [0, 1], got {means!r}") from None
    if arr.ndim != 1:
        raise ValueError(f"{what} must be a flat list with one number per arm, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"a bandit needs at least one arm; {what} is empty")
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0.0) | (arr > 1.0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{what}[{i}] = {float(arr[i])!r} is outside [0, 1]; rewards in mctslab are on the scale "
            "win 1, draw 0.5, loss 0, so every mean must lie in [0, 1]"
        )
    arr.setflags(write=False)
    return arr


class Arms(ABC):
    """A stationary multi-armed bandit with known means (the environment).

    Subclasses set :attr:`means` and implement :meth:`pull`.

    Attributes:
        means: true mean reward of each arm, shape ``(K,)``, in [0, 1].
    """

    means: np.ndarray

    @property
    def k(self) -> int:
        """The number of arms ``K``."""
        return int(self.means.size)

    @property
    def best_mean(self) -> float:
        """The largest true mean ``mu*``."""
        return float(self.means.max())

    @property
    def gaps(self) -> np.ndarray:
        """``Delta_i = mu* - mu_i`` for every arm (0 for the best arms)."""
        return self.best_mean - self.means

    @property
    def best_arms(self) -> np.ndarray:
        """Indices of the arms whose mean equals ``mu*``."""
        return np.flatnonzero(self.means == self.best_mean)

    @abstractmethod
    def pull(self, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Pull ``arms[r]`` in run ``r``, for every run at once.

        Args:
            arms: integer array of shape ``(runs,)`` with values in ``[0, K)``.
            rng: the environment's random generator.

        Returns:
            ``float64`` rewards of shape ``(runs,)``, each in [0, 1].
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}({np.round(self.means, 4).tolist()})"


class BernoulliArms(Arms):
    """Arms that pay 1 with probability ``means[i]`` and 0 otherwise (Bradberry 2015's slot machines).

    Args:
        means: the payout probability of each arm, in [0, 1]; at least one arm.

    Raises:
        ValueError: if ``means`` is empty or a value lies outside [0, 1].

    Example:
        >>> import numpy as np
        >>> bandit = BernoulliArms([0.2, 0.5, 0.8])
        >>> bandit.pull(np.array([2, 2, 0]), np.random.default_rng(0)).shape
        (3,)
    """

    def __init__(self, means: Sequence[float] | np.ndarray) -> None:
        self.means = check_means(means)

    def pull(self, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # One uniform per run: the reward is 1 when it falls below the arm's mean.
        return (rng.random(len(arms)) < self.means[arms]).astype(float)


def _clipped_normal_mean(loc: float, sigma: float) -> float:
    """``E[min(max(X, 0), 1)]`` for ``X ~ N(loc, sigma^2)``."""
    if sigma == 0.0:
        return min(max(loc, 0.0), 1.0)

    def cdf(z: float) -> float:
        return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))

    def pdf(z: float) -> float:
        return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)

    a, b = (0.0 - loc) / sigma, (1.0 - loc) / sigma
    # The mass below 0 pays 0, the mass above 1 pays 1, the middle pays X.
    inside = loc * (cdf(b) - cdf(a)) + sigma * (pdf(a) - pdf(b))
    return inside + (1.0 - cdf(b))


class GaussianArms(Arms):
    """Arms that pay a normal reward ``N(loc_i, sigma^2)`` clipped to [0, 1].

    Clipping keeps rewards on the package's [0, 1] scale, so Hoeffding's inequality
    and the UCB1 guarantee still apply. It also moves the mean a little towards 1/2
    when ``loc_i`` is near 0 or 1; :attr:`means` is the exact mean of the clipped
    reward, so regret is still measured exactly.

    Args:
        locs: the centre ``loc_i`` of each arm's normal, in [0, 1]; at least one arm.
        sigma: the standard deviation, in [0, 1] (default 0.1).

    Attributes:
        locs: the centres as given.
        sigma: the standard deviation.
        means: the exact means of the clipped rewards.

    Raises:
        TypeError: if ``sigma`` is not a number.
        ValueError: if ``locs`` is empty or outside [0, 1], or ``sigma`` is outside [0, 1].
    """

    def __init__(self, locs: Sequence[float] | np.ndarray, sigma: float = 0.1) -> None:
        self.locs = check_means(locs, "locs")
        self.sigma = number("sigma", sigma, low=0.0, high=1.0, hint=" (a standard deviation)")
        means = np.array([_clipped_normal_mean(float(loc), self.sigma) for loc in self.locs])
        means.setflags(write=False)
        self.means = means

    def pull(self, arms: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.clip(self.locs[arms] + self.sigma * rng.standard_normal(len(arms)), 0.0, 1.0)

    def __repr__(self) -> str:
        return f"GaussianArms({np.round(self.locs, 4).tolist()}, sigma={self.sigma})"
