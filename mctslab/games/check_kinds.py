"""The parts of :func:`~mctslab.games.check.check_game` about kinds of game: players, chance, hidden information.

Each check takes the game, the position and the moves that led there, and returns
the broken rule as a sentence (``None`` when the rule holds); ``check_game`` adds the
game's spec and the moves and raises.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from fractions import Fraction
from numbers import Real
from typing import Any

from .base import Game, IllegalMoveError
from .hooks import drawing
from .kinds import CHANCE

PROBABILITY_TOLERANCE = 1e-9
"""How far float probabilities may sum from 1 (exact :class:`~fractions.Fraction` s must sum to exactly 1)."""


def declaration_fault(game: Game) -> str | None:
    """What is wrong with the game's declared kind (``num_players``, ``has_chance``, ``perfect_information``)."""
    n = game.num_players
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return f"num_players must be an int >= 1, got {n!r}"
    for name in ("has_chance", "perfect_information"):
        if not isinstance(getattr(game, name), bool):
            return f"{name} must be True or False, got {getattr(game, name)!r}"
    low_high = game.score_range
    if low_high is not None and not (len(low_high) == 2 and low_high[0] < low_high[1]):
        return f"score_range must be None or (lowest, highest) with lowest < highest, got {low_high!r}"
    if n == 2:
        return None  # check_game's own mark(0) / mark(1) rule
    marks = [drawing(game).mark(p) for p in range(n)]
    if not all(isinstance(m, str) and m for m in marks) or len(set(marks)) != n:
        return f"mark(player) must give {n} different non-empty strings for players 0 to {n - 1}, got {marks!r}"
    return None


def player_fault(game: Game, player: Any) -> str | None:
    """What is wrong with ``to_move()``'s answer ``player`` for a game of this kind."""
    if player == CHANCE and not isinstance(player, bool):
        return None if game.has_chance else "to_move() returned CHANCE but the game does not declare has_chance = True"
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < game.num_players:
        allowed = f"a player 0 to {game.num_players - 1}" + (" or CHANCE" if game.has_chance else "")
        return f"to_move() must be {allowed}, got {player!r}"
    return None


def returns_fault(game: Game, returns: Any, where: str = "returns()") -> str | None:
    """What is wrong with ``returns`` (from ``where``): one number in [0, 1] per player."""
    n = game.num_players
    try:
        values = tuple(returns)
    except TypeError:
        return f"{where} must give a tuple of {n} numbers in [0, 1], got {returns!r}"
    if len(values) != n:
        return f"{where} must give one entry per player ({n}, num_players), got {len(values)}: {values}"
    if not all(isinstance(v, Real) and not isinstance(v, bool) and 0 <= v <= 1 for v in values):
        hint = " (a game with raw scores declares score_range and returns normalise(score))" if n == 1 else ""
        return f"{where} must give numbers in [0, 1], got {values}{hint}"
    return None


def chance_fault(game: Game, state: Any) -> str | None:
    """At a chance node: outcomes are distinct legal moves with probabilities > 0 summing to 1."""
    outcomes = game.chance_outcomes(state)
    if not isinstance(outcomes, tuple) or not all(isinstance(o, tuple) and len(o) == 2 for o in outcomes):
        return f"chance_outcomes() must be a tuple of (move, probability) pairs, got {outcomes!r}"
    moves = [m for m, _ in outcomes]
    if len(set(moves)) != len(moves):
        return f"chance_outcomes() must name each move once, got moves {moves}"
    if moves != list(game.legal_moves(state)):
        return f"chance_outcomes() moves {moves} must be the legal moves {list(game.legal_moves(state))}, ascending"
    probabilities = [p for _, p in outcomes]
    if not all(isinstance(p, Real) and not isinstance(p, bool) and p > 0 for p in probabilities):
        return f"chance_outcomes() probabilities must be positive numbers, got {probabilities}"
    total = sum(probabilities, Fraction(0))
    exact = all(isinstance(p, (int, Fraction)) for p in probabilities)
    if (total != 1) if exact else (abs(float(total) - 1) > PROBABILITY_TOLERANCE):
        return f"chance_outcomes() probabilities must sum to 1, got {total} from {probabilities}"
    return None


def information_fault(
    game: Game, state: Any, moves: list[int], rng: random.Random, seen: dict[tuple[int, Hashable], tuple]
) -> str | None:
    """Information keys are hashable; equal keys mean equal legal moves and views; sampled states keep the key.

    ``seen`` maps ``(player, key)`` to the legal moves and the moves that led to the first
    position with that key (kept across calls, so positions of different games meet).
    """
    for p in range(game.num_players):
        key = game.information_state(state, p)
        try:
            hash(key)
        except TypeError:
            return f"information_state(state, {p}) must be hashable, got a {type(key).__name__}"
    player = game.to_move(state)
    if player == CHANCE or game.is_terminal(state):
        return None
    key, legal = game.information_state(state, player), game.legal_moves(state)
    first_legal, first_moves = seen.setdefault((player, key), (legal, list(moves)))
    if first_legal != legal:
        return _same_key_fault(player, legal, first_legal, f"after moves {first_moves}")
    sampled = game.sample_state(state, player, rng)
    if not isinstance(sampled, Hashable) or game.information_state(sampled, player) != key:
        return f"sample_state(state, {player}, rng) must give a state with the same information_state for {player}"
    if game.to_move(sampled) != player:
        return f"sample_state(state, {player}, rng) must give a state where {player} is to move"
    if game.legal_moves(sampled) != legal:
        return _same_key_fault(player, legal, game.legal_moves(sampled), "in the position sample_state() drew")
    draw = drawing(game)
    for view in ("render_for", "board_cells_for"):  # what the play board shows the player
        if getattr(draw, view)(sampled, player) != getattr(draw, view)(state, player):
            return (
                f"{view}(state, {player}) differs between two positions with the same information_state for "
                f"{player}: it shows the player something they cannot know"
            )
    return None


def _same_key_fault(player: int, legal: tuple[int, ...], other: tuple[int, ...], where: str) -> str:
    return (
        f"two positions with the same information_state for player {player} have different legal moves: "
        f"{list(legal)} here, {list(other)} {where}; the legal moves may depend only on what the player "
        "to move knows"
    )


def position_fault(game: Game, state: Any, rng: random.Random, player: Any) -> str | None:
    """The rules of one position, for a game that is not two-player, deterministic and of perfect information.

    ``player`` is ``to_move(state)``. The same rules as for the classic games, with
    players, chance and returns as the game's kind declares them.
    """
    terminal, legal = game.is_terminal(state), game.legal_moves(state)
    if fault := player_fault(game, player):
        return fault
    if player == CHANCE and not terminal and (fault := chance_fault(game, state)):
        return fault
    if not isinstance(game.render(state), str):
        return "render() must return a str"
    if not isinstance(legal, tuple) or not all(type(m) is int for m in legal):
        return f"legal_moves() must be a tuple of ints, got {legal!r}"
    if list(legal) != sorted(set(legal)):
        return f"legal_moves() must be ascending without repeats, got {legal}"
    if terminal != (not legal):
        return f"is_terminal() is {terminal} but legal_moves() is {legal}"
    if fault := returns_fault(game, game.rollout(state, rng), "rollout()") or _illegal_move_fault(game, state, legal):
        return fault
    if terminal:
        return returns_fault(game, game.returns(state))
    try:
        game.returns(state)
    except ValueError:
        return None
    return "returns() must raise ValueError while the game is in progress"


def _illegal_move_fault(game: Game, state, legal: tuple[int, ...]) -> str | None:
    illegal = max(legal, default=0) + 1 if legal else 0
    try:
        game.play(state, illegal)
    except IllegalMoveError as err:
        if legal and not all(str(m) in str(err) for m in legal[:5]):
            return f"the IllegalMoveError message must list the legal moves: {err}"
        return None
    return f"play() accepted the illegal move {illegal}"
