"""Hidden information on Kuhn poker, graded exactly (notebook 12b).

* :func:`search_policy`: the policy an agent's search gives at each of Kuhn poker's 12
  information states (as OpenSpiel's ``is_mcts_exploitability.py`` builds one), as
  normalised visits or as the most visited move;
* :func:`ismcts_exploitability`: that policy's exact exploitability for ISMCTS over
  budgets and seeds;
* :func:`determinized_limit_policy`: what determinized search converges to with a perfect
  search in each world: at every information state, the move that is best in more of
  the worlds (the opponent's two possible cards), a tie split evenly (or broken towards
  one move, which changes its exploitability from 1/12 to 1/6).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from fractions import Fraction

import numpy as np
from tqdm.auto import tqdm

from ...agents import ISMCTS
from ...exact import kuhn as exact
from ...games.kuhn import Kuhn, KuhnState

KEYS: tuple[Hashable, ...] = tuple(exact.information_states(0) + exact.information_states(1))
"""Kuhn poker's 12 information states, player 0's six first."""


def search_policy(agent: ISMCTS, final: str = "visits") -> dict[Hashable, dict[int, Fraction]]:
    """``agent``'s move probabilities at every information state of Kuhn poker.

    Args:
        agent: an ISMCTS agent (its seed and budget decide the searches).
        final: ``"visits"``, the root's visits normalised (OpenSpiel's
            ``NORMALIZED_VISIT_COUNT``), or ``"max"``, probability 1 on the move played
            (its ``MAX_VISIT_COUNT``).
    """
    return search_policies(agent, (final,))[final]


FINALS = ("visits", "max")
"""How a search's root becomes a policy (see :func:`search_policy`)."""


def search_policies(agent: ISMCTS, finals: Iterable[str] = FINALS) -> dict[str, dict[Hashable, dict[int, Fraction]]]:
    """:func:`search_policy` for each of ``finals``, from one search per information state.

    Raises:
        ValueError: for a final other than those of :data:`FINALS`.
    """
    finals = tuple(finals)
    unknown = [f for f in finals if f not in FINALS]
    if unknown:
        raise ValueError(f"final must be one of {', '.join(map(repr, FINALS))}, got {unknown[0]!r}")
    game = Kuhn()
    policies: dict[str, dict[Hashable, dict[int, Fraction]]] = {final: {} for final in finals}
    for key in KEYS:
        analysis = agent.analyse(game, exact.representative(key))
        total = sum(s.visits for s in analysis.stats)
        for final in finals:
            if final == "max":
                policies[final][key] = {m: Fraction(int(m == analysis.move)) for m in (0, 1)}
            else:
                policies[final][key] = {s.move: Fraction(s.visits, total) for s in analysis.stats}
    return policies


def ismcts_exploitability(
    budgets: Iterable[int], seeds: Iterable[int], c: float = 2**0.5, final: str = "visits"
) -> dict[int, list[Fraction]]:
    """Exact exploitability (chips) of ISMCTS's policy at each budget, one value per seed."""
    return ismcts_exploitabilities(budgets, seeds, c, (final,))[final]


def ismcts_exploitabilities(
    budgets: Iterable[int],
    seeds: Iterable[int],
    c: float = 2**0.5,
    finals: Iterable[str] = FINALS,
    progress: bool = False,
) -> dict[str, dict[int, list[Fraction]]]:
    """:func:`ismcts_exploitability` for each of ``finals``, searching once for all of them.

    ``progress``: a bar (``tqdm.auto``) counting the iterations searched, over all budgets and seeds.
    """
    budgets, finals, seeds = tuple(budgets), tuple(finals), list(seeds)
    curves: dict[str, dict[int, list[Fraction]]] = {final: {} for final in finals}
    with tqdm(total=sum(budgets) * len(seeds), desc="ISMCTS searches", unit="it", disable=not progress) as bar:
        for budget in budgets:
            for final in finals:
                curves[final][budget] = []
            for seed in seeds:
                policies = search_policies(ISMCTS(iterations=budget, c=c, seed=seed), finals)
                for final in finals:
                    curves[final][budget].append(exact.exploitability(policies[final]))
                bar.update(budget)
    return curves


def world_votes(key: Hashable) -> dict[int, int]:
    """At information state ``key``: for each move, the worlds (opponent's cards) where it is strictly best."""
    card, _, history = key
    player = len(history) % 2
    votes = {0: 0, 1: 0}
    for other in (c for c in range(3) if c != card):
        cards = (card, other) if player == 0 else (other, card)
        values = exact.perfect_information_values(KuhnState(cards, history))
        best = max(values.values())
        winners = [m for m, v in values.items() if v == best]
        if len(winners) == 1:
            votes[winners[0]] += 1
    return votes


def determinized_limit_policy(tie: int | None = None) -> dict[Hashable, dict[int, Fraction]]:
    """Determinized search with a perfect search per world: the move best in more worlds.

    Four of the twelve information states are ties (each move best in one world, or no
    move strictly best in either). How a tie is broken decides the limit policy's
    exploitability: split evenly (``tie=None``) it is exactly 1/12 chip; broken always
    towards one move (``tie=0`` pass, ``tie=1`` bet) the policy is pure and gives away
    1/6, the least any deterministic policy of Kuhn poker can (:func:`least_exploitable_pure`).

    Args:
        tie: ``None`` to split a tie 1/2-1/2, or the move (0 pass, 1 bet) a tie goes to.

    Raises:
        ValueError: if ``tie`` is not ``None``, 0 or 1.
    """
    if tie not in (None, 0, 1) or isinstance(tie, bool):
        raise ValueError(f"tie must be None (split evenly), 0 (pass) or 1 (bet), got {tie!r}")
    policy = {}
    for key in KEYS:
        votes = world_votes(key)
        if votes[0] == votes[1]:
            if tie is None:
                policy[key] = {0: Fraction(1, 2), 1: Fraction(1, 2)}
            else:
                policy[key] = {m: Fraction(int(m == tie)) for m in (0, 1)}
        else:
            best = max(votes, key=votes.__getitem__)
            policy[key] = {m: Fraction(int(m == best)) for m in (0, 1)}
    return policy


def mean_and_spread(values: list[Fraction]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (floats, for a table)."""
    array = np.array([float(v) for v in values])
    return float(array.mean()), float(array.std(ddof=1) / np.sqrt(len(array))) if len(array) > 1 else 0.0


def least_exploitable_pure() -> Fraction:
    """The smallest exploitability of a deterministic policy (each player's 64 pure strategies, exactly).

    Exploitability splits by seat: ``(min over player 1's pure strategies of BR_0 + min over
    player 0's of BR_1) / 2``.
    """
    br0 = min(exact.best_response_value(pure, 0) for pure in exact.pure_strategies(1))
    br1 = min(exact.best_response_value(pure, 1) for pure in exact.pure_strategies(0))
    return (br0 + br1) / 2


PHANTOM_AGENTS = ("ismcts:iterations=500", "determinized:worlds=5,iterations=100")
"""ISMCTS and determinized UCT at the same budget: 500 iterations per move each (5 worlds x 100)."""
PHANTOM_FILE = "phantom_ismcts_vs_determinized.jsonl"
"""The stored match's results file, in ``notebooks/data/12b_hidden_information/``."""


def phantom_match(folder: str = "notebooks/data/12b_hidden_information", games: int = 400, progress: bool = True):
    """ISMCTS against determinized UCT at phantom tic-tac-toe, seats alternating, seed 12 (resumable).

    The stored run: ``python -c "from mctslab.course.experiments.hidden import phantom_match; phantom_match()"``
    from the repository (about 8 minutes on one core); run again, it plays only the games missing.
    """
    from pathlib import Path

    from ...tournament import play_match

    out = Path(folder) / PHANTOM_FILE
    return play_match("phantom_ttt", *PHANTOM_AGENTS, games=games, seed=12, workers=1, out=out, progress=progress)
