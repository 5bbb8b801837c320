"""The agents and :func:`make_agent` to build them from a spec."""

from __future__ import annotations

from ..seeding import Seed
from ..specs import Entry, build, to_bool, to_int_list
from .base import Agent, Analysis, MoveStat
from .minimax import Minimax
from .montecarlo import FlatMonteCarlo, WindowedMonteCarlo
from .random_agent import RandomAgent
from .uct import UCT, Node


def _keep(text: str) -> tuple[int, ...] | str:
    return "half" if text == "half" else to_int_list(text)


AGENTS: dict[str, Entry] = {
    "random": Entry(RandomAgent, {}, "a uniformly random legal move"),
    "flat": Entry(
        FlatMonteCarlo, {"playouts": int, "max_moves": int, "batched": to_bool}, "pure Monte Carlo, playouts per move"
    ),
    "windowed": Entry(
        WindowedMonteCarlo,
        {"playouts": int, "window": int, "keep": _keep, "reuse": to_bool, "max_moves": int, "batched": to_bool},
        "Monte Carlo repeated on the best moves (seed 001)",
    ),
    "uct": Entry(
        UCT,
        {"iterations": int, "c": float, "seconds": float, "max_moves": int, "final": str, "reuse": to_bool},
        "Monte Carlo Tree Search with UCB1",
    ),
    "minimax": Entry(Minimax, {"depth": int}, "negamax with alpha-beta; perfect without depth"),
}
"""The registered agents: spec name -> :class:`mctslab.specs.Entry`."""


def make_agent(spec: str | Agent, seed: Seed = None) -> Agent:
    """Build an agent from its spec.

    Examples: ``"random"``, ``"flat:playouts=100"``,
    ``"windowed:playouts=100,window=3"``, ``"uct:iterations=1000,c=1.414"``,
    ``"uct:seconds=0.5"``, ``"minimax"``, ``"minimax:depth=4"``.

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
    return build(spec, AGENTS, "agent", seed=seed)


__all__ = [
    "AGENTS",
    "UCT",
    "Agent",
    "Analysis",
    "FlatMonteCarlo",
    "Minimax",
    "MoveStat",
    "Node",
    "RandomAgent",
    "WindowedMonteCarlo",
    "make_agent",
]
