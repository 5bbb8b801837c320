"""What a search engine and the agent it searches for see of each other, as :class:`typing.Protocol` classes.

:class:`~mctslab.agents.uct.UCT` (and every variant) owns an engine (:mod:`mctslab.agents.engines`)
that satisfies :class:`SearchEngine`; the engine sees the agent as a :class:`Searcher`: its declared
parameters, its generator, its rule and its public steps, never its private fields. What an engine
keeps between moves (the tree ``reuse`` continues from) it keeps itself (:class:`TreeKeeper`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..games.base import Game, State
from .base import Analysis, MoveStat
from .node import Node
from .rules import SelectionRule

if TYPE_CHECKING:
    from ..engine import Budget

__all__ = ["SearchEngine", "Searcher", "TreeKeeper"]


class Searcher(Protocol):
    """What an engine reads of the agent it searches for (:class:`~mctslab.agents.uct.UCT`'s public face)."""

    iterations: int | None
    seconds: float | None
    c: float
    max_moves: int | None
    final: str
    reuse: bool
    threads: int
    parallel: str
    virtual_loss: int
    playout: str
    rng: random.Random
    rule_class: type[SelectionRule]
    compiled_analysis: Callable[..., Analysis]
    params: tuple[Any, ...]

    @property
    def rule(self) -> SelectionRule:
        """The agent's one selection rule."""
        ...

    def new_root(self, game: Game, state: State) -> Node:
        """A fresh root for ``state``."""
        ...

    def iterate(self, game: Game, root: Node) -> int:
        """One iteration of the four steps; the depth simulated from."""
        ...

    def best_child(self, root: Any) -> Any:
        """The child to play."""
        ...

    def final_move(self, root: Any) -> int:
        """The move to play after a search."""
        ...

    def move_stats(self, root: Any) -> tuple[MoveStat, ...]:
        """Per-child statistics of ``root``, in move order."""
        ...

    def check_compiled(self) -> None:
        """Refuse, in one line, what the compiled engine cannot run."""
        ...


class SearchEngine(Protocol):
    """What an engine does for an agent: one search of a position, with or without the final decision."""

    def analyse(self, agent: Searcher, game: Game, state: State) -> Analysis:
        """Search ``state`` within ``agent``'s budget; the move, per-move statistics, depth and root."""
        ...

    def search(self, agent: Searcher, game: Game, state: State) -> Any:
        """Search ``state`` within ``agent``'s budget and return the root (a :class:`Node` or a view of one)."""
        ...

    def reset(self) -> None:
        """Forget what is kept between moves (the tree ``reuse`` continues from)."""
        ...


class TreeKeeper(Protocol):
    """An engine that keeps the last tree for ``reuse`` (``previous``: ``(game, tree, root state)`` or ``None``) and
    the budget it made of the agent's parameters."""

    previous: tuple[Game, Any, State] | None

    def budget(self, agent: Searcher) -> Budget:
        """The agent's budget, made and checked once (:class:`mctslab.engine.Budget`)."""
        ...
