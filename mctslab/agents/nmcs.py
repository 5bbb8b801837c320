"""Nested Monte Carlo Search (Cazenave 2009, IJCAI): search for one-player puzzles, by levels.

A level-0 search is one uniformly random playout. A level-``n`` search plays a whole game:
at each step it tries every legal move followed by a level-``n - 1`` search, and plays the
next move of the best sequence found so far (it *memorises* that sequence: a step whose
searches all do worse than it still follows it, so the score never drops). With
``memorise=False`` it plays the move whose own search scored best at this step, the
variant the paper reports as weaker.

:func:`nested_search` runs a level-``n`` search from a position. The agent
:class:`NestedMonteCarlo` (``nmcs:level=L``) plays the same search one move per call: its
first move is the first step of a level-``L`` search, and it keeps the best sequence
between calls, so a seeded :func:`~mctslab.play.play_game` plays exactly the moves of
:func:`nested_search` with the agent's random stream.

Scores are the game's normalised return (:meth:`Game.returns
<mctslab.games.base.Game.returns>`), so any one-player game works; ties keep the sequence
found first (moves are tried in ascending order).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from math import floor
from typing import Any, NamedTuple

from ..games.base import Game, State
from ..games.kinds import ONE_PLAYER
from ..seeding import Seed
from ..specs import to_bool
from .base import Agent, Analysis, MoveStat, Param, check_positive_int, legal_or_raise
from .registry import register_agent

MAX_LEVEL = 4
"""The deepest level the agent accepts: a level-n search costs about (moves x plies) times a level n-1 one."""


@dataclass(frozen=True)
class NestedResult:
    """What a nested search found.

    Attributes:
        score: the normalised return of the sequence played (with memorisation, the best found).
        moves: the moves played from the search's position to the end.
        playouts: random playouts run (level-0 searches).
        random_moves: moves drawn at random in those playouts (one ``rng.random()`` each).
    """

    score: float
    moves: tuple[int, ...]
    playouts: int
    random_moves: int = 0


def play_to_end(game: Game, state: State, choose: Callable[[tuple[int, ...]], int]) -> NestedResult:
    """One playout from ``state`` to the end, ``choose(legal moves)`` drawing each move (NMCS's and NRPA's level 0)."""
    moves = []
    while not game.is_terminal(state):
        move = choose(game.legal_moves(state))
        moves.append(move)
        state = game.apply(state, move)
    return NestedResult(game.returns(state)[0], tuple(moves), 1, len(moves))


def playout(game: Game, state: State, rng: random.Random) -> NestedResult:
    """A level-0 search: uniformly random legal moves to the end (one ``rng.random()`` per move)."""
    return play_to_end(game, state, lambda legal: legal[floor(rng.random() * len(legal))])


def nested_search(game: Game, state: State, level: int, rng: random.Random, memorise: bool = True) -> NestedResult:
    """A level-``level`` Nested Monte Carlo Search from ``state`` to the end of the game.

    Args:
        game: a one-player game.
        state: where to start.
        level: 0 is one random playout; ``n`` tries each move with a level ``n - 1`` search after it.
        rng: the random stream of the playouts.
        memorise: follow the best sequence found so far (Cazenave 2009); False plays the best move of each step.

    Returns:
        A :class:`NestedResult`: the sequence played, its score, and the playouts and random moves spent.
    """
    if level == 0:
        return playout(game, state, rng)
    best: NestedResult | None = None
    played: list[int] = []
    playouts = random_moves = 0
    while not game.is_terminal(state):
        move, best, spent, _ = step(game, state, level, rng, best if memorise else None)
        playouts += spent.playouts
        random_moves += spent.random_moves
        played.append(move)
        state = game.apply(state, move)
        best = NestedResult(best.score, best.moves[1:], 0)
    return NestedResult(game.returns(state)[0], tuple(played), playouts, random_moves)


class Spent(NamedTuple):
    """What a step of a nested search cost: random playouts, and random moves in them."""

    playouts: int
    random_moves: int


def step(
    game: Game, state: State, level: int, rng: random.Random, best: NestedResult | None
) -> tuple[int, NestedResult, Spent, list[MoveStat]]:
    """One step of a level-``level`` search: each move with a level ``level - 1`` search after it.

    Args:
        best: the best sequence from ``state`` found before (memorised), or None.

    Returns:
        The move to play, the best sequence from ``state`` (starting with that move), the
        playouts and random moves spent (:class:`Spent`), and one :class:`MoveStat` per move
        (its playouts and its search's score).
    """
    stats, spent, random_moves = [], 0, 0
    for move in game.legal_moves(state):
        found = nested_search(game, game.apply(state, move), level - 1, rng)
        spent += found.playouts
        random_moves += found.random_moves
        stats.append(MoveStat(move, found.playouts, found.score))
        if best is None or found.score > best.score:
            best = NestedResult(found.score, (move, *found.moves), 0)
    assert best is not None  # state is not terminal: at least one move was tried
    return best.moves[0], best, Spent(spent, random_moves), stats


def level_checker(max_level: int, note: str = "") -> Callable[[str, Any], int]:
    """A :class:`Param` check accepting a nesting level from 1 to ``max_level`` (``note`` is added to its error)."""

    def check(name: str, value: Any) -> int:
        level = check_positive_int(name, value)
        if level > max_level:
            raise ValueError(f"{name} must be an int from 1 to {max_level}{note}, got {value!r}")
        return level

    return check


_check_level = level_checker(MAX_LEVEL, " (level 0 is a random playout)")


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


@register_agent
class NestedMonteCarlo(Agent):
    """Nested Monte Carlo Search (Cazenave 2009) for one-player puzzles, one move per call.

    Args:
        level: 1 to 4: each move is tried with a level ``level - 1`` search after it.
        memorise: keep and follow the best sequence found so far (the paper's NMCS).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
    """

    name = "nmcs"
    handles = frozenset({ONE_PLAYER})
    params = (
        Param("level", int, 1, _check_level, "nesting level: 1 tries each move with a random playout after it"),
        Param("memorise", to_bool, True, _check_bool, "follow the best sequence found so far"),
    )

    def __init__(self, level: int = 1, memorise: bool = True, seed: Seed = None) -> None:
        super().__init__(seed)
        self.set_params(level=level, memorise=memorise)
        self._memory: tuple[State, NestedResult] | None = None

    def reset(self) -> None:
        """Forget the best sequence kept from the last move."""
        self._memory = None

    def analyse(self, game: Game, state: State) -> Analysis:
        """One step of a level-``level`` search from ``state``, continuing the best sequence kept from the last call.

        ``stats`` hold, per move, the playouts spent on it and the score of its search.
        """
        legal_or_raise(game, state)
        best = None
        if self.memorise and self._memory is not None and self._memory[0] == state:
            best = self._memory[1]
        move, best, spent, stats = step(game, state, self.level, self.rng, best)
        self._memory = (game.apply(state, move), NestedResult(best.score, best.moves[1:], 0))
        return Analysis(move, tuple(stats), iterations=spent.playouts)
