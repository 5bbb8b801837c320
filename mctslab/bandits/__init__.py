"""Multi-armed bandits: the slot machines of Bradberry 2015, UCB1 and its rivals, regret and its bounds.

The first notebook of the course, ``notebooks/01_bandits_and_ucb1.ipynb``, is built
on this package. Quick start::

    >>> from mctslab.bandits import BernoulliArms, UCB1, run
    >>> result = run(UCB1(), BernoulliArms([0.3, 0.5, 0.7]), runs=100, steps=1000, progress=False)
    >>> result.at(1000).shape
    (100,)

Modules: :mod:`~.arms` (environments), :mod:`~.policy` (the interface),
:mod:`~.policies` (greedy to Thompson sampling), :mod:`~.exploration` (best-arm
identification), :mod:`~.experiment` (vectorised seeded runs), :mod:`~.theory`
(Hoeffding, Lai-Robbins, Auer et al.), :mod:`~.plots`, :mod:`~.widgets` and
:mod:`~.bench`.
"""

from .arms import Arms, BernoulliArms, GaussianArms
from .experiment import METRICS, BanditResult, Trace, compare, log_grid, run, simulate, trace
from .exploration import EliminationPolicy, RoundRobin, SequentialHalving, SuccessiveRejects
from .policies import UCB1, EpsilonGreedy, ExploreThenCommit, Greedy, ThompsonSampling, UCB1Tuned
from .policy import Policy, Stats, argmax_random
from .theory import bernoulli_kl, hoeffding_radius, lai_robbins_bound, lai_robbins_coefficient, ucb1_regret_bound

__all__ = [
    "METRICS",
    "UCB1",
    "Arms",
    "BanditResult",
    "BernoulliArms",
    "EliminationPolicy",
    "EpsilonGreedy",
    "ExploreThenCommit",
    "GaussianArms",
    "Greedy",
    "Policy",
    "RoundRobin",
    "SequentialHalving",
    "Stats",
    "SuccessiveRejects",
    "ThompsonSampling",
    "Trace",
    "UCB1Tuned",
    "argmax_random",
    "bernoulli_kl",
    "compare",
    "hoeffding_radius",
    "lai_robbins_bound",
    "lai_robbins_coefficient",
    "log_grid",
    "run",
    "simulate",
    "trace",
    "ucb1_regret_bound",
]
