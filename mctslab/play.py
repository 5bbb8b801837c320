"""Play one game between two agents and keep a record of it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .agents import Agent, make_agent
from .games import Game, State, make_game
from .seeding import child_seeds

__all__ = ["GameRecord", "child_seeds", "play_game"]


@dataclass
class GameRecord:
    """What happened in one game.

    Attributes:
        game: the game's spec.
        agents: the two agents' specs, player 0 (moves first) then player 1.
        moves: the moves played, in order.
        winner: 0 or 1, or ``None`` for a draw.
        returns: per-player returns (1 win, 0.5 draw, 0 loss).
        seconds: wall-clock seconds each player spent choosing moves.
        iterations: iterations (or playouts) each player ran over the game, as its
            analyses report them (what its clock allowed, for an agent with ``seconds=``).
    """

    game: str
    agents: tuple[str, str]
    moves: list[int] = field(default_factory=list)
    winner: int | None = None
    returns: tuple[float, float] = (0.5, 0.5)
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    iterations: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def plies(self) -> int:
        """Number of moves played."""
        return len(self.moves)


def play_game(
    game: Game | str,
    agents: tuple[Agent | str, Agent | str] | list[Agent | str],
    seed: int | np.random.SeedSequence | None = None,
    start: State | None = None,
) -> GameRecord:
    """Play ``agents[0]`` (moving first) against ``agents[1]`` to the end: the package's one game loop.

    Each move is the mover's :meth:`~mctslab.agents.base.Agent.analyse` (what ``select_move``
    plays), timed, its iterations counted for that player. Matches, round robins, timed
    matches, the course's ablations and training evaluations all play their games here,
    through the tournament's schedule (:mod:`mctslab.tournament`).

    Args:
        game: a :class:`Game` or a game spec.
        agents: two agents or agent specs; player 0 moves first.
        seed: seeds the agents given as specs: an int or a
            :class:`numpy.random.SeedSequence` (such as one game's seed in a tournament),
            from which the two agents get independent child streams (those of
            ``SeedSequence(seed).spawn(2)``; a ``SeedSequence`` passed in is not changed,
            so the same one always gives the same game). Agent objects keep their own
            generators.
        start: the position to start from (default: the initial state).

    Returns:
        A :class:`GameRecord`.

    Raises:
        ValueError: if ``agents`` is not a pair.
        InvalidStateError: if ``start`` is not a position of ``game``.
    """
    if len(agents) != 2:
        raise ValueError(f"a game needs exactly two agents, got {len(agents)}")
    game = make_game(game)
    seeds = child_seeds(seed, 2) if seed is not None else [None, None]
    players = [make_agent(a, seed=s) for a, s in zip(agents, seeds, strict=True)]
    for agent in players:
        agent.reset()
    state = game.initial_state() if start is None else start
    game.check_state(state)
    record = GameRecord(game.spec, (players[0].spec, players[1].spec))
    while not game.is_terminal(state):
        mover = game.to_move(state)
        began = time.perf_counter()
        analysis = players[mover].analyse(game, state)  # what select_move plays, with its iterations
        record.seconds[mover] += time.perf_counter() - began
        record.iterations[mover] += analysis.iterations
        move = analysis.move
        state = game.play(state, move)
        record.moves.append(move)
    record.winner = game.winner(state)
    record.returns = game.returns(state)
    return record
