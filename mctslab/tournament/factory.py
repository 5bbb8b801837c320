"""Agents in a tournament: specs, or factories for agents that :func:`mctslab.make_agent` does not know.

A tournament builds a fresh agent for every game, from that game's seed, in whatever
process plays it. An agent is named either by a spec string (``"uct:iterations=1000"``)
or by an :class:`AgentFactory`: a class and its parameters, which travels to worker
processes (it pickles) and builds the agent there. Factories let experiments use their
own agent classes without adding them to the global registry, e.g. seed 001's
:class:`~mctslab.reproduction.agent.RacioppoMonteCarlo`::

    AgentFactory(RacioppoMonteCarlo, (("playouts", 100), ("procedure", "paper")))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents import Agent, make_agent


@dataclass(frozen=True)
class AgentFactory:
    """Builds an agent from a class (or any callable taking ``seed=``) and fixed parameters.

    Attributes:
        make: the agent's class, or a function ``make(**params, seed=...) -> Agent``;
            it must be importable (defined at module level) to reach worker processes.
        params: the parameters, as ``(name, value)`` pairs.
    """

    make: Callable[..., Agent]
    params: tuple[tuple[str, Any], ...] = ()

    def build(self, seed: int | np.random.SeedSequence | None = None) -> Agent:
        """A new agent seeded with ``seed``."""
        return self.make(**dict(self.params), seed=seed)

    @property
    def spec(self) -> str:
        """The built agent's spec (its name in tables and results files)."""
        return self.build(0).spec


AgentLike = str | Agent | AgentFactory
"""What a tournament accepts as an agent: a spec, an agent (replaced by its spec), or a factory."""


def resolve(agent: AgentLike) -> str | AgentFactory:
    """What games are played with: the canonical spec of a spec or agent (checked), or the factory itself.

    Raises:
        mctslab.SpecError: for an unknown or malformed spec.
    """
    if isinstance(agent, AgentFactory):
        agent.build(0)  # fail here, not in a worker, if the parameters are wrong
        return agent
    return make_agent(agent, seed=0).spec


def name_of(agent: str | AgentFactory) -> str:
    """The spec string that names a resolved agent."""
    return agent.spec if isinstance(agent, AgentFactory) else agent


def build(agent: str | AgentFactory, seed: np.random.SeedSequence) -> Agent:
    """A fresh agent from a resolved agent and one seed."""
    return agent.build(seed) if isinstance(agent, AgentFactory) else make_agent(agent, seed=seed)
