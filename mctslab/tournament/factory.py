"""Agents in a tournament are spec strings: checked once, rebuilt in every game from its seed.

A tournament builds a fresh agent for every game, from that game's seed, in whatever
process plays it. Agents travel as spec strings (``"uct:iterations=1000"``), which
pickle, read well in results files, and name exactly what was played: every agent is in
the one registry (:data:`mctslab.agents.AGENTS`), experiments' agents included
(``"perfect"``, ``"fixedbudget:kind=window,budget=450"``, ``"racioppo:playouts=100,procedure=paper"``).
"""

from __future__ import annotations

import numpy as np

from ..agents import Agent, agent_label, canonical_spec, make_agent

AgentLike = str | Agent
"""What a tournament accepts as an agent: a spec, or an agent (replaced by its spec)."""


def resolve(agent: AgentLike) -> str:
    """The canonical spec games are played with (checked here, not in a worker).

    Raises:
        mctslab.SpecError: for an unknown or malformed spec.
    """
    return canonical_spec(agent)


def name_of(agent: str) -> str:
    """The spec string that names a resolved agent (itself)."""
    return agent


def build(agent: str, seed: np.random.SeedSequence) -> Agent:
    """A fresh agent from a resolved spec and one seed."""
    return make_agent(agent, seed=seed)


def label_of(agent: str) -> str:
    """The display name of a resolved agent in tables and ratings (``"window@450"``; most agents: the spec)."""
    return agent_label(agent)
