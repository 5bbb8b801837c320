"""Play one game between two agents and keep a record of it."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from .agents import Agent, make_agent
from .games import CHANCE, Game, State, make_game
from .seeding import child_seed, child_seeds, seed_sequence

__all__ = ["GameRecord", "child_seeds", "play_game"]


@dataclass
class GameRecord:
    """What happened in one game.

    Attributes:
        game: the game's spec.
        agents: the agents' specs, player 0 (moves first) then player 1 (one spec for a
            one-player game).
        moves: the moves played, in order, chance outcomes included (a die's face, a card
            dealt), so that ``game.state_from_moves(moves)`` replays the game.
        winner: 0 or 1, or ``None`` for a draw.
        returns: per-player returns (1 win, 0.5 draw, 0 loss).
        seconds: wall-clock seconds each player spent choosing moves.
        iterations: iterations (or playouts) each player ran over the game, as its
            analyses report them (what its clock allowed, for an agent with ``seconds=``).
    """

    game: str
    agents: tuple[str, ...]
    moves: list[int] = field(default_factory=list)
    winner: int | None = None
    returns: tuple[float, ...] = (0.5, 0.5)
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    iterations: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def plies(self) -> int:
        """Number of moves played."""
        return len(self.moves)


def play_game(
    game: Game | str,
    agents: tuple[Agent | str, ...] | list[Agent | str],
    seed: int | np.random.SeedSequence | None = None,
    start: State | None = None,
) -> GameRecord:
    """Play ``agents[0]`` (moving first) against ``agents[1]`` to the end: the package's one game loop.

    A one-player game (a puzzle) takes one agent. At a chance node (``game.to_move(state)`` is
    :data:`~mctslab.games.CHANCE`) no agent is asked: the outcome is drawn with
    :meth:`Game.chance_move <mctslab.games.base.Game.chance_move>` from the game's own
    stream, the third child of ``seed`` (the agents get the first two, so games without
    chance are played exactly as before). Every agent is given the whole position: an agent
    for hidden-information games must look only at its player's
    :meth:`~mctslab.games.base.Game.information_state` (the tests check that it does).

    Each move is the mover's :meth:`~mctslab.agents.base.Agent.analyse` (what ``select_move``
    plays), timed, its iterations counted for that player. Matches, round robins, timed
    matches, the course's ablations and training evaluations all play their games here,
    through the tournament's schedule (:mod:`mctslab.tournament`).

    Args:
        game: a :class:`Game` or a game spec.
        agents: one agent or agent spec per player (two, or one for a puzzle); player 0 moves first.
        seed: seeds the agents given as specs and the chance moves: an int or a
            :class:`numpy.random.SeedSequence` (such as one game's seed in a tournament),
            from which the two agents get independent child streams (those of
            ``SeedSequence(seed).spawn(2)``; a ``SeedSequence`` passed in is not changed,
            so the same one always gives the same game). Agent objects keep their own
            generators. Without a seed, chance moves are drawn from a fresh generator.
        start: the position to start from (default: the initial state).

    Returns:
        A :class:`GameRecord`.

    Raises:
        ValueError: if there is not one agent per player.
        InvalidStateError: if ``start`` is not a position of ``game``.
    """
    game = make_game(game)
    n = game.num_players
    if len(agents) != n:
        many = "exactly two agents" if n == 2 else f"{n} agent{'s' if n != 1 else ''}"
        raise ValueError(f"{game.spec} is a {n}-player game: it needs {many}, one per player, got {len(agents)}")
    root = seed_sequence(seed) if seed is not None else None

    def stream(k: int) -> np.random.SeedSequence | None:  # the k-th of seed's children (made only when used)
        return child_seed(root, (k,)) if root is not None else None

    players = [a if isinstance(a, Agent) else make_agent(a, seed=stream(k)) for k, a in enumerate(agents)]
    for agent in players:
        agent.reset()
    chance = _chance_generator(stream(2)) if game.has_chance else None
    state = game.initial_state() if start is None else start
    game.check_state(state)
    record = GameRecord(game.spec, tuple(p.spec for p in players), seconds=[0.0] * n, iterations=[0] * n)
    while not game.is_terminal(state):
        mover = game.to_move(state)
        if chance is not None and mover == CHANCE:
            move = game.chance_move(state, chance)
            state = game.play(state, move)
            record.moves.append(move)
            continue
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


def _chance_generator(seed: np.random.SeedSequence | None) -> random.Random:
    """The generator of a game's chance moves: from ``seed``, or fresh without one."""
    if seed is None:
        return random.Random()
    return random.Random(int(seed.generate_state(2, np.uint32).view(np.uint64)[0]))
