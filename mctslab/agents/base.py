"""What every agent offers: :meth:`Agent.select_move`, and :meth:`Agent.analyse` for the numbers behind it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from ..games.base import Game, IllegalMoveError, State
from ..seeding import Seed, make_rng


@dataclass(frozen=True)
class MoveStat:
    """What a search learned about one legal move at the root.

    Attributes:
        move: the move.
        visits: UCT visits of the child, or playouts spent on the move (flat/windowed).
        mean: mean return for the player to move, in [0, 1] (win 1, draw 0.5, loss 0).
        score: flat and windowed Monte Carlo: wins minus losses (draws 0), as in seed 001;
            ``None`` for UCT.
        exploration: UCT: the exploration term ``c * sqrt(ln N / n)`` of UCB1 at the root;
            ``None`` otherwise.
    """

    move: int
    visits: int
    mean: float
    score: float | None = None
    exploration: float | None = None

    @property
    def ucb(self) -> float | None:
        """UCT: the UCB1 value ``mean + exploration`` of this child; ``None`` otherwise."""
        return None if self.exploration is None else self.mean + self.exploration


@dataclass
class Analysis:
    """The result of one decision: the move and the statistics behind it.

    Attributes:
        move: the chosen move.
        stats: per-move statistics, one entry per move searched, in move order
            (empty for agents that keep none, like random).
        iterations: UCT iterations or playouts spent.
        max_depth: UCT: deepest node added to the tree, in plies below the root
            (seed 000's "Maximum depth searched"); ``None`` otherwise.
        root: UCT: the root :class:`~mctslab.agents.uct.Node` of the tree built.
        value: minimax: the value of the position for the player to move, in [0, 1].
    """

    move: int
    stats: tuple[MoveStat, ...] = ()
    iterations: int = 0
    max_depth: int | None = None
    root: Any = None
    value: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def table(self) -> str:
        """The per-move statistics as a text table, best first (seed 000's printout)."""
        rows = sorted(self.stats, key=lambda s: (-s.visits, -s.mean, s.move))
        lines = [f"{'move':>5} {'visits':>8} {'mean':>7}"]
        for s in rows:
            line = f"{s.move:>5} {s.visits:>8} {s.mean:>7.3f}"
            if s.score is not None:
                line += f" score {s.score:+g}"
            if s.exploration is not None:
                line += f" ucb {s.ucb:.3f}"
            lines.append(line)
        if self.max_depth is not None:
            lines.append(f"maximum depth searched: {self.max_depth}")
        return "\n".join(lines)


class Agent(ABC):
    """A player. Subclasses implement :meth:`analyse`.

    Args:
        seed: where randomness comes from (see :func:`mctslab.seeding.make_rng`); the
            same seed gives the same moves.

    Attributes:
        spec: the spec string :func:`mctslab.make_agent` accepts to rebuild the agent.
    """

    spec: str = "agent"

    def __init__(self, seed: Seed = None) -> None:
        self.rng = make_rng(seed)

    def select_move(self, game: Game, state: State) -> int:
        """The move this agent plays in ``state``.

        Raises:
            IllegalMoveError: if the game is already over.
        """
        return self.analyse(game, state).move

    @abstractmethod
    def analyse(self, game: Game, state: State) -> Analysis:
        """Decide on a move and return it with the statistics behind it."""

    def reset(self) -> None:  # noqa: B027 - a hook: most agents keep nothing between moves
        """Forget anything kept between moves (called at the start of each game)."""

    def __repr__(self) -> str:
        return f"make_agent({self.spec!r})"


def legal_or_raise(game: Game, state: State) -> tuple[int, ...]:
    """The legal moves, or :class:`IllegalMoveError` if the game is over (nothing to choose)."""
    moves = game.legal_moves(state)
    if not moves:
        raise IllegalMoveError("no move to select: the game is over")
    return moves


def check_positive_int(name: str, value: Any) -> int:
    """``value`` if it is an int >= 1, else a ValueError/TypeError that says so."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value
