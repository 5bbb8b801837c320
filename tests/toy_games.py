"""Small games of each kind the game model allows, and broken variants that ``check_game`` must reject.

* :class:`DiceDuel`: two players and dice (chance nodes, exact ``Fraction`` odds).
* :class:`HighCard`: a hidden card each (chance deals, information states, determinizations).
* :class:`CountingPuzzle`: one player, a raw score normalised to [0, 1].
* :class:`ThreeWayRace`: three players.

None is registered: ``tests/test_game_kinds.py`` builds them directly.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import NamedTuple

from mctslab.games import CHANCE, Game
from mctslab.games.hooks import Drawing, drawing, register_drawing

# -- dice: two players, chance -------------------------------------------------------------


class DiceState(NamedTuple):
    """``turn``: turns played (3 each); ``scores``: points per player; ``die``: -1, or the die chosen to roll."""

    turn: int
    scores: tuple[int, int]
    die: int


class DiceDuel(Game):
    """Three turns each: choose the steady die (faces 1, 2, 3) or the wild one (0 or 5), then roll it.

    Moves: 0 steady, 1 wild at a player's turn; at a chance node, the face rolled. The
    higher total wins.
    """

    spec = "diceduel"
    has_chance = True
    turns = 6
    faces = {0: (1, 2, 3), 1: (0, 5)}

    def initial_state(self) -> DiceState:
        return DiceState(0, (0, 0), -1)

    def to_move(self, state: DiceState) -> int:
        return CHANCE if state.die >= 0 else state.turn % 2

    def chance_outcomes(self, state: DiceState) -> tuple[tuple[int, Fraction], ...]:
        if state.die < 0:
            return super().chance_outcomes(state)
        faces = self.faces[state.die]
        return tuple((face, Fraction(1, len(faces))) for face in faces)

    def legal_moves(self, state: DiceState) -> tuple[int, ...]:
        if self.is_terminal(state):
            return ()
        return tuple(m for m, _ in self.chance_outcomes(state)) if state.die >= 0 else (0, 1)

    def apply(self, state: DiceState, move: int) -> DiceState:
        if state.die < 0:
            return DiceState(state.turn, state.scores, move)
        scores = list(state.scores)
        scores[state.turn % 2] += move
        return DiceState(state.turn + 1, (scores[0], scores[1]), -1)

    def is_terminal(self, state: DiceState) -> bool:
        return state.turn == self.turns

    def winner(self, state: DiceState) -> int | None:
        if not self.is_terminal(state) or state.scores[0] == state.scores[1]:
            return None
        return 0 if state.scores[0] > state.scores[1] else 1

    def render(self, state: DiceState) -> str:
        return f"turn {state.turn}, scores {state.scores}" + (f", rolling die {state.die}" if state.die >= 0 else "")


class UnfairDice(DiceDuel):
    """Broken: each die's faces have probabilities that sum to 5/6."""

    def chance_outcomes(self, state):
        outcomes = super().chance_outcomes(state)
        return tuple((face, p * Fraction(5, 6)) for face, p in outcomes)


class UndeclaredDice(DiceDuel):
    """Broken: it has chance nodes but does not say so."""

    has_chance = False


class ImpossibleFaceDice(DiceDuel):
    """Broken: a face that never comes up (probability 0) is listed."""

    def chance_outcomes(self, state):
        outcomes = super().chance_outcomes(state)
        return ((-1, Fraction(0)), *outcomes)  # DiceDuel.legal_moves lists it too


# -- a hidden card each ------------------------------------------------------------------


class CardState(NamedTuple):
    """``cards``: the cards dealt (player 0's, then player 1's); ``history``: the bets, 1 bet, 0 check or fold."""

    cards: tuple[int, ...]
    history: tuple[int, ...]


class HighCard(Game):
    """One card each from 1, 2, 3, seen by its holder only. Player 0 checks (0) or bets (1); after a bet
    player 1 folds (0) or calls (1). A check or a call shows the cards: the higher wins. A fold loses.
    """

    spec = "highcard"
    has_chance = True
    perfect_information = False

    def initial_state(self) -> CardState:
        return CardState((), ())

    def to_move(self, state: CardState) -> int:
        return CHANCE if len(state.cards) < 2 else len(state.history) % 2

    def chance_outcomes(self, state: CardState) -> tuple[tuple[int, Fraction], ...]:
        if len(state.cards) == 2:
            return super().chance_outcomes(state)
        left = [c for c in (1, 2, 3) if c not in state.cards]
        return tuple((c, Fraction(1, len(left))) for c in left)

    def legal_moves(self, state: CardState) -> tuple[int, ...]:
        if self.is_terminal(state):
            return ()
        if len(state.cards) < 2:
            return tuple(c for c, _ in self.chance_outcomes(state))
        return (0, 1)

    def apply(self, state: CardState, move: int) -> CardState:
        if len(state.cards) < 2:
            return CardState((*state.cards, move), ())
        return CardState(state.cards, (*state.history, move))

    def is_terminal(self, state: CardState) -> bool:
        return state.history in ((0,), (1, 0), (1, 1))

    def winner(self, state: CardState) -> int | None:
        if not self.is_terminal(state):
            return None
        if state.history == (1, 0):
            return 0
        return 0 if state.cards[0] > state.cards[1] else 1

    def information_state(self, state: CardState, player: int) -> tuple:
        own = state.cards[player] if len(state.cards) > player else None
        return (own, len(state.cards), state.history)

    def sample_state(self, state: CardState, player: int, rng: random.Random) -> CardState:
        if len(state.cards) < 2:
            return state
        other = 1 - player
        hidden = [c for c in (1, 2, 3) if c != state.cards[player]]
        cards = list(state.cards)
        cards[other] = hidden[int(rng.random() * len(hidden))]
        return CardState(tuple(cards), state.history)

    def render(self, state: CardState) -> str:
        return f"cards {state.cards}, bets {state.history}"


class NamedHighCard(HighCard):
    """:class:`HighCard` with its cards named (Jack, Queen, King) and a view for each player.

    ``render_for`` shows a player their own card and the bets, never the other card, so a
    test can look for the other card's name anywhere the play board writes.
    """

    names = {1: "Jack", 2: "Queen", 3: "King"}

    def render(self, state: CardState) -> str:
        held = ", ".join(f"{drawing(self).mark(p)} holds {self.names[c]}" for p, c in enumerate(state.cards))
        return f"{held or 'no cards yet'}; bets {state.history}"


@register_drawing(NamedHighCard)
class NamedHighCardDrawing(Drawing):
    """How :class:`NamedHighCard` names its deals and moves, and what each player sees."""

    def outcome_text(self, state: CardState, outcome: int) -> str:
        return f"deals {self.game.names[outcome]} to {self.mark(len(state.cards))}"

    def move_text(self, move: int, short: bool = False) -> str:
        return {0: "check/fold", 1: "bet/call"}.get(move, str(move))  # the deals are named by outcome_text

    def render_for(self, state: CardState, player: int) -> str:
        own = self.game.names[state.cards[player]] if len(state.cards) > player else "no card yet"
        return f"you hold {own}; bets {state.history}"


class PeekingCards(HighCard):
    """Broken: player 0 may bet only when player 1's card is low, which player 0 cannot know."""

    def legal_moves(self, state):
        moves = super().legal_moves(state)
        if len(state.cards) == 2 and not state.history and state.cards[1] == 3:
            return (0,)
        return moves


class PeekingUnsampledCards(PeekingCards):
    """Broken the same way, without a determinization to give it away: two deals of one key disagree."""

    def sample_state(self, state, player, rng):
        return state


class ReshufflingCards(HighCard):
    """Broken: its determinization redraws the player's own card too."""

    def sample_state(self, state, player, rng):
        if len(state.cards) < 2:
            return state
        first = 1 + int(rng.random() * 3)
        second = 1 + (first + int(rng.random() * 2)) % 3
        return CardState((first, second), state.history)


# -- one player ----------------------------------------------------------------------------


class CountState(NamedTuple):
    """``steps``: numbers added so far; ``total``: their sum."""

    steps: int
    total: int


class CountingPuzzle(Game):
    """One player adds 1, 2 or 3 four times; the score is the total if it is at most 9, else 0.

    Raw scores lie in 0..9 (:attr:`score_range`); :meth:`returns` normalises them.
    """

    spec = "counting"
    num_players = 1
    score_range = (0, 9)
    steps = 4

    def initial_state(self) -> CountState:
        return CountState(0, 0)

    def to_move(self, state: CountState) -> int:
        return 0

    def legal_moves(self, state: CountState) -> tuple[int, ...]:
        return () if self.is_terminal(state) else (1, 2, 3)

    def apply(self, state: CountState, move: int) -> CountState:
        return CountState(state.steps + 1, state.total + move)

    def is_terminal(self, state: CountState) -> bool:
        return state.steps == self.steps

    def winner(self, state: CountState) -> int | None:
        return None

    def score(self, state: CountState) -> int:
        """The raw score of a finished puzzle."""
        return state.total if state.total <= 9 else 0

    def returns(self, state: CountState) -> tuple[float]:
        if not self.is_terminal(state):
            raise ValueError("returns() needs a finished game; this one is still in progress")
        return (self.normalise(self.score(state)),)

    def render(self, state: CountState) -> str:
        return f"{state.steps} steps, total {state.total}"


class RawScorePuzzle(CountingPuzzle):
    """Broken: returns the raw score, not normalised to [0, 1]."""

    def returns(self, state):
        if not self.is_terminal(state):
            raise ValueError("in progress")
        return (float(self.score(state)),)


class TwoSeatPuzzle(CountingPuzzle):
    """Broken: a one-player game that returns two entries."""

    def returns(self, state):
        value = super().returns(state)[0]
        return (value, 1 - value)


# -- three players -------------------------------------------------------------------------


class ThreeWayRace(Game):
    """Three players add 1 or 2 to a count in turn (0, 1, 2, 0...); whoever reaches 7 wins.

    State: the count and the player to add next, ``(total, player)``. The default
    :meth:`Game.returns` gives 1 to the winner and 0 to the two others.
    """

    spec = "threewayrace"
    num_players = 3
    goal = 7

    def initial_state(self) -> tuple[int, int]:
        return (0, 0)

    def to_move(self, state: tuple[int, int]) -> int:
        return state[1]

    def legal_moves(self, state: tuple[int, int]) -> tuple[int, ...]:
        return tuple(m for m in (1, 2) if state[0] + m <= self.goal)

    def apply(self, state: tuple[int, int], move: int) -> tuple[int, int]:
        return (state[0] + move, (state[1] + 1) % 3)

    def is_terminal(self, state: tuple[int, int]) -> bool:
        return state[0] == self.goal

    def winner(self, state: tuple[int, int]) -> int | None:
        return (state[1] - 1) % 3 if self.is_terminal(state) else None

    def render(self, state: tuple[int, int]) -> str:
        return f"{state[0]} of {self.goal}, player {state[1]} to add"


class TwoWinnersRace(ThreeWayRace):
    """Broken: a three-player game that returns two entries, as a two-player game would."""

    def returns(self, state):
        winner = super().returns(state).index(1.0)
        return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


KINDS = {"dice": DiceDuel, "cards": HighCard, "puzzle": CountingPuzzle, "three": ThreeWayRace}
"""The toy game of each kind."""

BROKEN = [
    (UnfairDice, "probabilities must sum to 1"),
    (UndeclaredDice, "does not declare has_chance = True"),
    (ImpossibleFaceDice, "probabilities must be positive"),
    (PeekingCards, "same information_state for player 0 have different legal moves"),
    (PeekingUnsampledCards, "same information_state for player 0 have different legal moves"),
    (ReshufflingCards, "rng) must give a state with the same information_state"),
    (RawScorePuzzle, "must give numbers in [0, 1]"),
    (TwoSeatPuzzle, "one entry per player (1, num_players)"),
    (TwoWinnersRace, "one entry per player (3, num_players)"),
]
"""Broken variants and the fault ``check_game``'s message must name."""
