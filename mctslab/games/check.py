"""``check_game``: verify that a game keeps the contract of :class:`~mctslab.games.base.Game`.

Run it on your own game before searching it (``notebooks/00`` shows how); the test
suite runs it on every registered game. It plays seeded random games and checks, at
every position on the way, what the search code relies on.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import numpy as np

from .base import Game, IllegalMoveError

VALID_RETURNS = {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)}


class GameContractError(AssertionError):
    """A game broke its contract; the message says which rule, where, and how."""


def _fail(game: Game, moves: list[int], rule: str) -> GameContractError:
    return GameContractError(f"{game.spec}: {rule} (after moves {moves})")


def check_game(game: Game, *, games: int = 20, seed: int = 0, max_plies: int = 10_000) -> None:
    """Check ``game`` against the interface contract; raise on the first violation.

    Plays ``games`` seeded random games and checks at every position: the state is
    hashable and equal to itself rebuilt by :meth:`~Game.state_from_moves`; ``to_move``
    is 0 or 1; ``legal_moves`` is a sorted tuple of distinct ints, empty exactly when
    the game is over; ``play`` returns a new state and leaves the old one unchanged,
    agrees with ``apply``, and raises :class:`IllegalMoveError` naming the legal moves
    for an illegal move (also in a finished game); ``returns`` and ``winner`` agree and
    are 1 / 0.5 / 0; ``render`` gives a string; ``rollout`` gives valid returns (those
    of ``returns`` in a finished game), and so does ``playout_counts`` (one row of
    three counts adding up to the playouts asked for); every game ends within
    ``max_plies``.

    Args:
        game: the game to check.
        games: random games to play, >= 1.
        seed: seed of those games.
        max_plies: a game longer than this is reported as never ending.

    Raises:
        GameContractError: (an ``AssertionError``) describing the first violation.
    """
    rng = random.Random(seed)
    batch_rng = np.random.default_rng(seed)
    initial = game.initial_state()
    _check_hashable(game, initial, [])
    if initial != game.initial_state() or hash(initial) != hash(game.initial_state()):
        raise _fail(game, [], "initial_state() must give equal values on every call")
    if game.is_terminal(initial):
        raise _fail(game, [], "the initial state must not be terminal")
    for _ in range(games):
        state, moves = initial, []
        while True:
            _check_position(game, state, moves, rng)
            _check_playout_counts(game, state, moves, batch_rng)
            legal = game.legal_moves(state)
            if not legal:
                break
            move = rng.choice(legal)
            before, before_hash = state, hash(state)
            after = game.play(state, move)
            if state != before or hash(state) != before_hash:
                raise _fail(game, moves, "play() must not change the state it is given")
            if after != game.apply(state, move):
                raise _fail(game, moves, f"play() and apply() disagree on move {move}")
            state = after
            moves.append(move)
            if len(moves) > max_plies:
                raise _fail(game, moves[:20], f"a random game did not end within {max_plies} plies")


def _check_playout_counts(game: Game, state, moves: list[int], rng: np.random.Generator, playouts: int = 4) -> None:
    counts = np.asarray(game.playout_counts([state], playouts, rng))
    if counts.shape != (1, 3) or counts.dtype.kind not in "iu" or counts.min() < 0 or counts.sum() != playouts:
        rule = f"playout_counts() must give one row of 3 counts adding up to {playouts}, got {counts}"
        raise _fail(game, moves, rule)
    if game.is_terminal(state):
        column = {(1.0, 0.0): 0, (0.0, 1.0): 1, (0.5, 0.5): 2}[tuple(game.returns(state))]
        if counts[0, column] != playouts:
            raise _fail(game, moves, f"playout_counts() of a finished game must count only its result, got {counts}")


def _check_hashable(game: Game, state, moves: list[int]) -> None:
    try:
        if not isinstance(state, Hashable):
            raise TypeError(type(state).__name__)
        hash(state)
    except TypeError as err:
        raise _fail(game, moves, f"states must be immutable and hashable ({err})") from None


def _check_position(game: Game, state, moves: list[int], rng: random.Random) -> None:
    _check_hashable(game, state, moves)
    if game.state_from_moves(moves) != state:
        raise _fail(game, moves, "state_from_moves() must rebuild an equal state")
    player = game.to_move(state)
    if player not in (0, 1):
        raise _fail(game, moves, f"to_move() must be 0 or 1, got {player!r}")
    if not isinstance(game.render(state), str):
        raise _fail(game, moves, "render() must return a str")
    legal = game.legal_moves(state)
    if not isinstance(legal, tuple) or not all(isinstance(m, int) and not isinstance(m, bool) for m in legal):
        raise _fail(game, moves, f"legal_moves() must be a tuple of ints, got {legal!r}")
    if list(legal) != sorted(set(legal)):
        raise _fail(game, moves, f"legal_moves() must be ascending without repeats, got {legal}")
    terminal = game.is_terminal(state)
    if terminal != (not legal):
        raise _fail(game, moves, f"is_terminal() is {terminal} but legal_moves() is {legal}")
    rollout = game.rollout(state, rng)
    if tuple(rollout) not in VALID_RETURNS:
        raise _fail(game, moves, f"rollout() must give (1, 0), (0, 1) or (0.5, 0.5), got {rollout}")
    illegal = max(legal, default=0) + 1 if legal else 0
    try:
        game.play(state, illegal)
    except IllegalMoveError as err:
        if legal and not all(str(m) in str(err) for m in legal[:5]):
            raise _fail(game, moves, f"the IllegalMoveError message must list the legal moves: {err}") from None
    else:
        raise _fail(game, moves, f"play() accepted the illegal move {illegal}")
    if terminal:
        returns = tuple(game.returns(state))
        if returns not in VALID_RETURNS:
            raise _fail(game, moves, f"returns() must be (1, 0), (0, 1) or (0.5, 0.5), got {returns}")
        if tuple(game.rollout(state, rng)) != returns:
            raise _fail(game, moves, f"rollout() of a finished game must give returns() = {returns}")
        winner = game.winner(state)
        expected = {(1.0, 0.0): 0, (0.0, 1.0): 1, (0.5, 0.5): None}[returns]
        if winner != expected:
            raise _fail(game, moves, f"winner() is {winner!r} but returns() is {returns}")
    else:
        if game.winner(state) is not None:
            raise _fail(game, moves, "winner() must be None while the game is in progress")
        try:
            game.returns(state)
        except ValueError:
            pass
        else:
            raise _fail(game, moves, "returns() must raise ValueError while the game is in progress")
