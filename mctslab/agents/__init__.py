"""The agents, the one registry that names them, and :func:`make_agent` to build them from a spec.

Every agent lives in this package and is registered once (:data:`AGENTS`); its spec
is generated from its declared parameters (:class:`Param`). A new agent is one file in
this folder: :mod:`.discovery` imports every module of it. Agents that exist for one
experiment of the course (``experiment = True``) are registered too, and listed apart.
"""

from __future__ import annotations

from .base import Agent, Analysis, ConcurrentSearchError, MoveStat, Param
from .budget import SCHEDULES, FixedBudget
from .determinized import Determinized, WorldView
from .expectimax import Expectimax
from .ismcts import ISMCTS, InfoNode
from .minimax import Minimax
from .moismcts import MOISMCTS, ObserverNode
from .montecarlo import FlatMonteCarlo, WindowedMonteCarlo
from .nmcs import NestedMonteCarlo
from .nrpa import NestedRolloutPolicyAdaptation
from .perfect import PerfectPlayer
from .puct import PUCT, PUCTNode  # noqa: I001  (after UCT, its parent)

# Importing a module registers its agents, in this order.
from .random_agent import RandomAgent  # noqa: I001
from .rave import Rave, RaveNode
from .registry import AGENTS, agent_label, canonical_spec, describe_agents, make_agent, register_agent
from .rules import UCB1, SelectionRule
from .simparallel import SimNode, SimParallel
from .solver import Solver, SolverNode
from .transpositions import TNode, TranspositionUCT
from .uct import UCT, Node

# isort: off
from . import discovery  # noqa: F401, E402  (last: every other agent file of the folder registers itself)

# isort: on
__all__ = [
    "Determinized",
    "ISMCTS",
    "InfoNode",
    "MOISMCTS",
    "ObserverNode",
    "WorldView",
    "PUCT",
    "PUCTNode",
    "AGENTS",
    "UCT",
    "Agent",
    "Expectimax",
    "Analysis",
    "ConcurrentSearchError",
    "FixedBudget",
    "FlatMonteCarlo",
    "Minimax",
    "MoveStat",
    "NestedMonteCarlo",
    "NestedRolloutPolicyAdaptation",
    "Node",
    "Param",
    "PerfectPlayer",
    "RandomAgent",
    "Rave",
    "RaveNode",
    "SCHEDULES",
    "SelectionRule",
    "SimNode",
    "SimParallel",
    "Solver",
    "SolverNode",
    "TNode",
    "TranspositionUCT",
    "UCB1",
    "WindowedMonteCarlo",
    "agent_label",
    "canonical_spec",
    "describe_agents",
    "make_agent",
    "register_agent",
]
