"""Kuhn poker solved exactly: a policy's value, its best responses and exploitability, in Fractions.

A *policy* maps each information state (:meth:`Kuhn.information_state
<mctslab.games.kuhn.Kuhn.information_state>`: own card, cards dealt, bets) to move
probabilities, ``{key: {0: p_pass, 1: p_bet}}``, for both players (a key tells whose turn
it is). Values are in chips for player 0, exact :class:`~fractions.Fraction` s.

* :func:`policy_value`: player 0's expected chips when both follow the policy;
* :func:`best_response_value`: what one player wins at best against the other's part
  of the policy. A player has 6 information sets with 2 moves each, so the 64 pure
  strategies are enumerated and the best one kept (exact, no approximation);
* :func:`exploitability`: the mean of the two best responses' gains,
  ``(BR_0 + BR_1) / 2`` with both in the best responder's chips, as OpenSpiel's
  ``exploitability`` (NashConv / 2); 0 exactly at a Nash equilibrium;
* :func:`equilibrium`: Kuhn's closed-form family, player 0 bluffing the Jack with
  probability ``alpha`` in [0, 1/3]; value -1/18 for player 0 (Kuhn 1950);
* :func:`cfr`: vanilla counterfactual regret minimisation (Zinkevich et al. 2007, simultaneous
  updates) computing an equilibrium here, its average policy's exploitability falling towards 0;
* :func:`perfect_information_values`: a move's minimax value when every card is seen,
  what determinized search converges to in each world.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from fractions import Fraction
from itertools import permutations, product

from ..games.kuhn import Kuhn, KuhnState

Policy = Mapping[Hashable, Mapping[int, Fraction | float]]
"""Information state -> move -> probability."""

GAME = Kuhn()
DEALS: tuple[tuple[int, int], ...] = tuple(permutations(range(3), 2))
"""The six deals ``(player 0's card, player 1's card)``, each of probability 1/6."""
HISTORIES = {0: ((), (0, 1)), 1: ((0,), (1,))}
"""The bets before each player's decisions."""


def information_states(player: int) -> list[Hashable]:
    """``player``'s six information states: each card, before each of the player's decisions."""
    return [(card, 2, history) for card in range(3) for history in HISTORIES[player]]


def representative(key: Hashable) -> KuhnState:
    """A position with information state ``key`` for the player to move (the opponent's lowest possible card)."""
    card, _, history = key
    player = len(history) % 2
    other = min(c for c in range(3) if c != card)
    cards = (card, other) if player == 0 else (other, card)
    return KuhnState(cards, history)


def _value(cards: tuple[int, int], history: tuple[int, ...], policy: Policy) -> Fraction:
    state = KuhnState(cards, history)
    if GAME.is_terminal(state):
        return Fraction(GAME.chips(state))
    player = len(history) % 2
    probabilities = policy[(cards[player], 2, history)]
    return sum((Fraction(probabilities.get(m, 0)) * _value(cards, (*history, m), policy) for m in (0, 1)), Fraction(0))


def policy_value(policy: Policy) -> Fraction:
    """Player 0's expected chips when both players follow ``policy`` (exact)."""
    return sum((_value(deal, (), policy) for deal in DEALS), Fraction(0)) / len(DEALS)


def pure_strategies(player: int) -> Iterator[dict[Hashable, dict[int, Fraction]]]:
    """Every deterministic policy of ``player``: one move at each of the six information states."""
    keys = information_states(player)
    for moves in product((0, 1), repeat=len(keys)):
        yield {key: {m: Fraction(int(m == move)) for m in (0, 1)} for key, move in zip(keys, moves, strict=True)}


def best_response_value(policy: Policy, player: int) -> Fraction:
    """``player``'s best expected chips against the other player's part of ``policy`` (exact).

    The maximum over ``player``'s 64 pure strategies, which a best response can always be.
    """
    sign = 1 if player == 0 else -1
    others = {key: policy[key] for key in information_states(1 - player)}
    return max(sign * policy_value({**others, **pure}) for pure in pure_strategies(player))


def exploitability(policy: Policy) -> Fraction:
    """``(BR_0 + BR_1) / 2``: how much a best responder wins on average over the two seats; 0 at equilibrium."""
    return (best_response_value(policy, 0) + best_response_value(policy, 1)) / 2


def equilibrium(alpha: Fraction = Fraction(0)) -> dict[Hashable, dict[int, Fraction]]:
    """Kuhn's equilibrium family (Kuhn 1950), player 0's Jack bluffing with probability ``alpha`` in [0, 1/3].

    Player 0: bets the Jack with ``alpha``, the King with ``3 alpha``, never the Queen;
    after pass-bet, folds the Jack, calls the Queen with ``alpha + 1/3``, calls the King.
    Player 1: after a pass bets the Jack with 1/3, never the Queen, always the King;
    facing a bet folds the Jack, calls the Queen with 1/3, calls the King.

    Raises:
        ValueError: if ``alpha`` lies outside [0, 1/3].
    """
    alpha = Fraction(alpha)
    if not 0 <= alpha <= Fraction(1, 3):
        raise ValueError(f"alpha must lie in [0, 1/3] for Kuhn's equilibrium family, got {alpha}")
    third = Fraction(1, 3)
    bet = {
        (0, ()): alpha,
        (1, ()): Fraction(0),
        (2, ()): 3 * alpha,
        (0, (0, 1)): Fraction(0),
        (1, (0, 1)): alpha + third,
        (2, (0, 1)): Fraction(1),
        (0, (0,)): third,
        (1, (0,)): Fraction(0),
        (2, (0,)): Fraction(1),
        (0, (1,)): Fraction(0),
        (1, (1,)): third,
        (2, (1,)): Fraction(1),
    }
    return {(card, 2, history): {0: 1 - p, 1: p} for (card, history), p in bet.items()}


def uniform_policy() -> dict[Hashable, dict[int, Fraction]]:
    """Every information state: pass and bet with probability 1/2 each."""
    half = Fraction(1, 2)
    return {key: {0: half, 1: half} for player in (0, 1) for key in information_states(player)}


def cfr(iterations: int) -> dict[Hashable, dict[int, Fraction]]:
    """The average policy of ``iterations`` of vanilla CFR (Zinkevich et al. 2007), as exact Fractions.

    Vanilla (textbook) CFR with simultaneous updates: each iteration fixes both players'
    current strategies (regret matching on the regrets of the iterations before), walks
    all six deals with them, and only then adds the iteration's counterfactual regrets and
    reach-weighted strategies. The average policy's exploitability after 10 / 100 / 1,000
    iterations is 0.0962 / 0.0257 / 0.0073 chips (``tests/test_exploitability.py`` checks
    it against a second implementation and against OpenSpiel's simultaneous-update
    solver's average policy after two iterations).

    Regrets are floats; the average policy is turned into Fractions exactly (each float's
    own value), so :func:`exploitability` of it is exact.

    Args:
        iterations: how many CFR iterations, >= 0 (0 gives the uniform policy).

    Returns:
        The average policy, for both players' twelve information states.

    Raises:
        ValueError: if ``iterations`` is negative.
    """
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ValueError(f"iterations must be an integer >= 0, got {iterations!r}")
    keys = information_states(0) + information_states(1)
    regret = {key: [0.0, 0.0] for key in keys}
    total = {key: [0.0, 0.0] for key in keys}

    def matched(key: Hashable) -> list[float]:
        positive = [max(r, 0.0) for r in regret[key]]
        s = sum(positive)
        return [p / s for p in positive] if s > 0 else [0.5, 0.5]

    def walk(
        cards: tuple[int, int],
        history: tuple[int, ...],
        reach: list[float],
        sigma: Mapping[Hashable, list[float]],
        change: dict[Hashable, list[float]],
    ) -> float:
        state = KuhnState(cards, history)
        if GAME.is_terminal(state):
            return float(GAME.chips(state))
        player = len(history) % 2
        key = (cards[player], 2, history)
        here = sigma[key]
        values = []
        for m in (0, 1):
            child_reach = list(reach)
            child_reach[player] *= here[m]
            values.append(walk(cards, (*history, m), child_reach, sigma, change))
        node = here[0] * values[0] + here[1] * values[1]
        sign = 1 if player == 0 else -1
        for m in (0, 1):
            change[key][m] += reach[1 - player] * sign * (values[m] - node)
            total[key][m] += reach[player] * here[m]
        return node

    for _ in range(iterations):
        sigma = {key: matched(key) for key in keys}  # this iteration's strategies, fixed for all deals
        change = {key: [0.0, 0.0] for key in keys}
        for deal in DEALS:
            walk(deal, (), [1.0, 1.0], sigma, change)
        for key in keys:  # simultaneous update: the regrets change only after every deal is walked
            regret[key][0] += change[key][0]
            regret[key][1] += change[key][1]
    policy = {}
    for key in keys:
        s = sum(total[key])
        policy[key] = {m: Fraction(total[key][m] / s) if s else Fraction(1, 2) for m in (0, 1)}
        policy[key][1] = 1 - policy[key][0]  # exact sum to 1
    return policy


def perfect_information_values(state: KuhnState) -> dict[int, Fraction]:
    """Each legal move's minimax value in chips for the player to move, with both cards seen.

    What determinized UCT's search converges to in one world: the opponent (who sees the
    card too) answers perfectly.
    """
    player = GAME.to_move(state)
    sign = 1 if player == 0 else -1
    return {m: sign * _minimax(GAME.apply(state, m)) for m in GAME.legal_moves(state)}


def _minimax(state: KuhnState) -> Fraction:
    if GAME.is_terminal(state):
        return Fraction(GAME.chips(state))
    values = [_minimax(GAME.apply(state, m)) for m in GAME.legal_moves(state)]
    return max(values) if GAME.to_move(state) == 0 else min(values)
