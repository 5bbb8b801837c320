"""Kuhn poker (Kuhn 1950), as OpenSpiel's ``kuhn_poker``: three cards, one chip ante, one bet.

The deck is Jack, Queen, King (cards ``0``, ``1``, ``2``). Two chance moves deal a
card to player 0, then one of the two left to player 1 (OpenSpiel's order: chance
outcome ``c`` gives card ``c`` to the next player). Each player antes one chip; then
player 0 and player 1 act in turn with ``0`` pass (check, or fold after a bet) and
``1`` bet (one chip, or call a bet). The hand ends after pass-pass (showdown for the
antes), bet-call or pass-bet-call (showdown for two chips each), or a fold.

Returns: poker pays chips, ``+-1`` or ``+-2`` for player 0 (zero sum), and mctslab's
returns are numbers in [0, 1] per player. :meth:`Kuhn.returns` maps chips affinely,
``return = (chips + 2) / 4`` (:attr:`Kuhn.score_range` ``(-2, 2)`` and
:meth:`~mctslab.games.base.Game.normalise`), so a win of 2 chips is 1, of 1 chip
0.75, a loss of 1 chip 0.25, and the two returns sum to 1. An affine map keeps
expectations: a policy's expected return is ``(expected chips + 2) / 4``, and the game's
value of -1/18 chip for player 0 is a return of 35/72. :meth:`Kuhn.chips` gives the
raw chips (exact solvers use it: :mod:`mctslab.exact.kuhn`).

Hidden information: :meth:`Kuhn.information_state` is the player's own card and the
bets; :meth:`Kuhn.sample_state` deals the opponent one of the two other cards.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import NamedTuple

from .base import Game
from .hooks import Drawing, register_drawing
from .kinds import CHANCE
from .registry import register_game

CARDS = "JQK"
PASS, BET = 0, 1
TERMINAL_HISTORIES = frozenset({(0, 0), (0, 1, 0), (0, 1, 1), (1, 0), (1, 1)})
"""The betting sequences that end the hand."""
FOLDS = frozenset({(0, 1, 0), (1, 0)})
"""The betting sequences that end in a fold (no showdown: the cards stay hidden)."""


class KuhnState(NamedTuple):
    """A Kuhn poker position.

    Attributes:
        cards: the cards dealt so far, player 0's first (0 Jack, 1 Queen, 2 King).
        history: the actions after the deal, in order (0 pass/fold, 1 bet/call).
    """

    cards: tuple[int, ...]
    history: tuple[int, ...]


@register_game(
    "kuhn", params=(), summary="Kuhn poker: J, Q, K, one chip ante, one bet (OpenSpiel's kuhn_poker)", test_spec="kuhn"
)
class Kuhn(Game):
    """Kuhn poker for two players (see the module docstring for the rules and the returns).

    Moves: at a chance node the card dealt (0 J, 1 Q, 2 K); at a player's turn ``0``
    pass or fold, ``1`` bet or call.
    """

    has_chance = True
    perfect_information = False
    score_range = (-2, 2)

    def initial_state(self) -> KuhnState:
        return KuhnState((), ())

    def check_state(self, state: KuhnState) -> None:
        super().check_state(state)
        cards, history = state
        if len(cards) > 2 or len(set(cards)) != len(cards) or not set(cards) <= {0, 1, 2}:
            self.refuse_state(state, "cards holds at most two different cards from 0, 1, 2")
        if (history and len(cards) < 2) or not set(history) <= {0, 1} or len(history) > 3:
            self.refuse_state(state, "history holds at most three actions 0/1, after both cards are dealt")

    def to_move(self, state: KuhnState) -> int:
        return CHANCE if len(state.cards) < 2 else len(state.history) % 2

    def chance_outcomes(self, state: KuhnState) -> tuple[tuple[int, Fraction], ...]:
        if len(state.cards) == 2:
            return super().chance_outcomes(state)
        left = [c for c in range(3) if c not in state.cards]
        return tuple((c, Fraction(1, len(left))) for c in left)

    def legal_moves(self, state: KuhnState) -> tuple[int, ...]:
        if len(state.cards) < 2:
            return tuple(c for c in range(3) if c not in state.cards)
        return () if state.history in TERMINAL_HISTORIES else (PASS, BET)

    def apply(self, state: KuhnState, move: int) -> KuhnState:
        if len(state.cards) < 2:
            return KuhnState((*state.cards, move), ())
        return KuhnState(state.cards, (*state.history, move))

    def is_terminal(self, state: KuhnState) -> bool:
        return state.history in TERMINAL_HISTORIES

    def chips(self, state: KuhnState) -> int:
        """Player 0's winnings in chips in a finished hand (player 1's are the negative): -2, -1, 1 or 2.

        Raises:
            ValueError: if the hand is not over.
        """
        h = state.history
        if h not in TERMINAL_HISTORIES:
            raise ValueError("chips() needs a finished hand; this one is still in progress")
        if h == (1, 0):
            return 1  # player 1 folds to a bet
        if h == (0, 1, 0):
            return -1  # player 0 folds to a bet
        stake = 1 if h == (0, 0) else 2
        return stake if state.cards[0] > state.cards[1] else -stake

    def returns(self, state: KuhnState) -> tuple[float, float]:
        """``((chips + 2) / 4, (2 - chips) / 4)`` with ``chips`` player 0's winnings (see the module docstring)."""
        if not self.is_terminal(state):
            raise ValueError("returns() needs a finished game; this one is still in progress")
        chips = self.chips(state)
        return (self.normalise(chips), self.normalise(-chips))

    def winner(self, state: KuhnState) -> int | None:
        if not self.is_terminal(state):
            return None
        return 0 if self.chips(state) > 0 else 1

    def information_state(self, state: KuhnState, player: int) -> tuple[int | None, int, tuple[int, ...]]:
        """``(own card or None, cards dealt, bets)``: what ``player`` knows."""
        own = state.cards[player] if len(state.cards) > player else None
        return (own, len(state.cards), state.history)

    def sample_state(self, state: KuhnState, player: int, rng: random.Random) -> KuhnState:
        """The same position with the opponent's card redrawn from the two ``player`` does not hold."""
        if len(state.cards) < 2:
            return state
        hidden = [c for c in range(3) if c != state.cards[player]]
        cards = list(state.cards)
        cards[1 - player] = hidden[int(rng.random() * 2)]
        return KuhnState((cards[0], cards[1]), state.history)

    def render(self, state: KuhnState) -> str:
        """Both cards, the bets, and at the end who wins how many chips."""
        cards = ", ".join(f"P{p} holds {CARDS[c]}" for p, c in enumerate(state.cards)) or "no cards dealt"
        line = f"{cards}; bets: {self._bets(state)}"
        if self.is_terminal(state):
            line += f"\n{self._result(state, None)}"
        return line

    def _bets(self, state: KuhnState) -> str:
        """The betting in words: ``"P0 passed, P1 bet, P0 called"``."""
        words = []
        for i, move in enumerate(state.history):
            facing = BET in state.history[:i]
            word = ("folded" if facing else "passed") if move == PASS else ("called" if facing else "bet")
            words.append(f"P{i % 2} {word}")
        return ", ".join(words) or "none yet"

    def _result(self, state: KuhnState, player: int | None) -> str:
        """Who won how many chips, and why (showdown or fold), said to ``player`` (``None``: to everyone)."""
        chips = self.chips(state)
        winner = 0 if chips > 0 else 1

        def name(p: int) -> str:
            return "you" if p == player else f"P{p}"

        verb = "win" if winner == player else "wins"
        if state.history in FOLDS:
            folder = 1 - winner
            tail = "; the cards are not shown" if player is None else "; a folded hand is not shown"
            return f"{name(folder)} folded: {name(winner)} {verb} 1 chip (the ante){tail}"
        high, low = max(state.cards), min(state.cards)
        won = "1 chip (the other ante)" if abs(chips) == 1 else "2 chips (the other ante and bet)"
        return f"showdown: {CARDS[high]} beats {CARDS[low]}: {name(winner)} {verb} {won}"


@register_drawing(Kuhn)
class KuhnDrawing(Drawing):
    """How Kuhn is drawn (:class:`~mctslab.games.hooks.Drawing`)."""

    def move_text(self, move: int, short: bool = False) -> str:
        """``"pass"`` (check, or fold facing a bet) or ``"bet"`` (bet, or call a bet), as OpenSpiel names them."""
        return {PASS: "pass", BET: "bet"}.get(move, str(move))

    def outcome_text(self, state: KuhnState, outcome: int) -> str:
        """The deal: ``"J to P0"`` (the card ``outcome`` goes to the next player without one)."""
        return f"{CARDS[outcome]} to {self.mark(len(state.cards))}"

    def reveals_at_end(self, state: KuhnState) -> bool:
        """True after a showdown (both cards are turned over); a hand that ends in a fold shows no card."""
        return self.game.is_terminal(state) and state.history not in FOLDS

    def render_for(self, state: KuhnState, player: int) -> str:
        """What ``player`` sees: their own card, the pot, the bets, what their two moves mean; never the other card.

        At the end of a hand, the result: after a showdown both cards (poker turns them over),
        after a fold only the player's own.
        """
        me = self.mark(player)
        if len(state.cards) <= player:
            return f"you are {me}; the cards are being dealt"
        pot = 2 + sum(state.history)
        shown = self.reveals_at_end(state)  # after a showdown the result names the other card: it is not hidden
        other = "both cards are turned over" if shown else "the other card is hidden"
        lines = [
            f"you are {me} and hold {CARDS[state.cards[player]]} (J < Q < K; {other})",
            f"bets: {self.game._bets(state)}; the pot holds {pot} chips (1 ante each)",
        ]
        if self.game.is_terminal(state):
            lines.append(self.game._result(state, player))
        elif len(state.cards) == 2 and self.game.to_move(state) == player:
            if BET in state.history:  # facing a bet
                lines.append("your move: pass = fold (lose your ante), bet = call (1 more chip, then showdown)")
            else:
                lines.append("your move: pass = check, bet = put in 1 more chip")
        return "\n".join(lines)
