"""The one agent registry: every agent is registered here once, and built from its spec.

An agent class declares its name and parameters (:class:`~mctslab.agents.base.Param`);
:func:`register_agent` adds it to :data:`AGENTS`; :func:`make_agent` parses a spec
against that declaration and builds the agent; the agent's ``spec`` is generated from
the values it holds. Tournaments, the command line and the notebooks name agents by
spec strings only, so what is played is exactly what is reported.

Adding an agent (a new file in ``mctslab/agents/``)::

    @register_agent
    class Greedy(Agent):
        name = "greedy"
        params = (Param("playouts", int, 10, check_positive_int, "playouts per move"),)

        def __init__(self, playouts=10, seed=None):
            super().__init__(seed)
            self.set_params(playouts=playouts)
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..seeding import Seed
from ..specs import SpecError, parse_spec
from .base import REGISTERED, Agent

AGENTS: dict[str, type[Agent]] = REGISTERED  # the one dict: base's refusals name registered agents
"""The registered agents: spec name -> agent class (with its declared ``params``)."""

A = TypeVar("A", bound=type[Agent])


def register_agent(cls: A) -> A:
    """Register an agent class under its :attr:`~mctslab.agents.base.Agent.name` (usable as a decorator).

    Raises:
        ValueError: if the name is taken by another class, or is not a plain lower-case name.
        TypeError: if ``cls`` is not an :class:`~mctslab.agents.base.Agent` subclass.
    """
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise TypeError(f"register_agent takes an Agent subclass, not {cls!r}")
    name = cls.name
    if not name or name != name.strip().lower() or any(ch in name for ch in ":,= "):
        raise ValueError(f"an agent's name must be lower case without ':', ',', '=' or spaces; got {name!r}")
    if name in AGENTS and AGENTS[name] is not cls:
        raise ValueError(f"agent name {name!r} is already registered to {AGENTS[name].__name__}")
    names = [p.name for p in cls.params]
    if len(set(names)) != len(names):
        raise ValueError(f"{cls.__name__} declares a parameter twice: {names}")
    AGENTS[name] = cls
    return cls


def known_agents() -> str:
    """The registered names, the experiments' agents apart: ``"flat, ...; experiments' agents: perfect, ..."``."""
    general = ", ".join(n for n in sorted(AGENTS) if not AGENTS[n].experiment)
    special = ", ".join(n for n in sorted(AGENTS) if AGENTS[n].experiment)
    return general + (f"; experiments' agents: {special}" if special else "")


def parse_agent_spec(spec: str) -> tuple[type[Agent], dict[str, Any]]:
    """The agent class a spec names and its parameters, parsed from text by their declarations.

    Raises:
        SpecError: for an unknown agent or parameter, or text a parameter cannot read;
            the message lists what is known.
    """
    name, raw = parse_spec(spec)
    if name not in AGENTS:
        raise SpecError(
            f"unknown agent {name!r}; known agents: {known_agents()}"
            " (the course's own agents, such as racioppo, are registered by `import mctslab.course`)"
        )
    cls = AGENTS[name]
    declared = {p.name: p for p in cls.params}
    kwargs: dict[str, Any] = {}
    for key, text in raw.items():
        if key not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise SpecError(f"unknown parameter {key!r} for agent {name!r}; known parameters: {known}")
        try:
            kwargs[key] = declared[key].parse(text)
        except (TypeError, ValueError) as err:
            raise SpecError(f"bad value {text!r} for parameter {key!r} of agent {name!r}: {err}") from None
    return cls, kwargs


def make_agent(spec: str | Agent, seed: Seed = None) -> Agent:
    """Build an agent from its spec.

    Examples: ``"random"``, ``"flat:playouts=100"``,
    ``"windowed:playouts=100,window=3"``, ``"uct:iterations=1000,c=1.414"``,
    ``"uct:seconds=0.5"``, ``"minimax"``, ``"minimax:depth=4"``. The agents and their
    parameters: :func:`describe_agents`.

    Args:
        spec: a registered name with optional ``key=value`` parameters, or an
            :class:`Agent` (returned as it is).
        seed: an int, a :class:`numpy.random.SeedSequence`, a :class:`random.Random`
            or ``None``; the same seed gives the same moves.

    Raises:
        mctslab.specs.SpecError: (a ``ValueError``) for an unknown agent, parameter or
            bad value; the message lists what is known.
    """
    if isinstance(spec, Agent):
        return spec
    cls, kwargs = parse_agent_spec(spec)
    try:
        return cls(**kwargs, seed=seed)
    except SpecError:
        raise
    except ValueError as err:  # a TypeError is about an extra argument (e.g. the seed): let it say so itself
        raise SpecError(f"agent spec {spec!r}: {err}") from None


def canonical_spec(spec: str | Agent) -> str:
    """The spec of the agent ``spec`` builds: checked, defaults left out, parameters in declared order.

    Raises:
        mctslab.specs.SpecError: as :func:`make_agent`.
    """
    if isinstance(spec, Agent):
        if AGENTS.get(spec.name) is not type(spec):
            raise SpecError(
                f"{type(spec).__name__} is not registered under its own name ({spec.name!r} builds "
                f"{AGENTS[spec.name].__name__ if spec.name in AGENTS else 'nothing'}): give the class a name "
                "and register_agent it, so that its spec rebuilds it"
            )
        return spec.spec
    return make_agent(spec, seed=0).spec


def agent_label(spec: str | Agent) -> str:
    """The short display name of an agent (its :attr:`~mctslab.agents.base.Agent.label`), for tables and plots."""
    return spec.label if isinstance(spec, Agent) else make_agent(spec, seed=0).label


def describe_agents(experiments: bool | None = None) -> str:
    """One line per registered agent: its name, parameters with defaults, and what it is.

    Args:
        experiments: ``True`` lists only the experiments' agents, ``False`` only the
            others, ``None`` all of them.
    """
    lines = []
    for name in sorted(AGENTS):
        cls = AGENTS[name]
        if experiments is not None and cls.experiment != experiments:
            continue
        summary = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        params = ", ".join(f"{p.name}={'' if p.default is None else p.format(p.default)}" for p in cls.params)
        lines.append(f"{name}{':' + params if params else ''}  {summary}")
    return "\n".join(lines)
