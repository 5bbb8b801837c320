"""How soon a search plays a forced win: :func:`iterations_to_win`, :func:`win_race` on :data:`CONNECT4_ENDGAMES`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from tqdm.auto import tqdm

from .... import exact
from ....agents import UCT
from ....games.base import Game, State

CONNECT4_ENDGAMES: tuple[tuple[int, ...], ...] = (
    (6, 5, 4, 2, 4, 6, 1, 6, 1, 5, 4, 6, 3, 4, 2, 3, 3, 5, 5, 5, 6, 2, 0, 2, 4, 0, 3, 4),
    (6, 0, 0, 6, 1, 6, 5, 1, 0, 6, 4, 5, 4, 4, 5, 0, 0, 0, 6, 2, 5, 5, 1, 4, 1, 3, 1, 1),
    (1, 1, 0, 4, 2, 1, 0, 3, 4, 3, 3, 0, 5, 5, 5, 5, 0, 6, 3, 4, 5, 4, 1, 1, 1, 2, 2, 2),
    (6, 3, 0, 6, 5, 6, 1, 5, 5, 3, 5, 5, 2, 5, 6, 1, 0, 6, 3, 4, 6, 1, 3, 2, 4, 3, 1, 0),
    (5, 0, 3, 5, 1, 2, 6, 4, 2, 6, 2, 1, 5, 3, 4, 3, 3, 2, 2, 0, 6, 6, 4, 6, 4, 4, 6, 2),
    (2, 3, 5, 1, 5, 3, 3, 3, 3, 5, 1, 4, 0, 2, 4, 4, 5, 0, 5, 3, 5, 0, 4, 6, 6, 1, 0, 0),
    (6, 5, 4, 2, 1, 1, 3, 6, 3, 6, 0, 2, 6, 6, 0, 0, 1, 6, 0, 0, 3, 3, 3, 1, 2, 3, 0, 2),
    (3, 0, 5, 4, 0, 0, 1, 4, 2, 0, 1, 6, 4, 6, 4, 5, 6, 6, 3, 4, 0, 5, 4, 2, 2, 5, 6, 6),
)
"""Connect Four (6 x 7) positions, as moves from the start, where the player to move has a
forced win that takes at least 5 plies and not every move wins. Found by seeded random
play (28 moves) and solved exactly; the tests re-check each with :mod:`mctslab.exact`."""


def iterations_to_win(agent: UCT, game: Game, state: State, winning: Iterable[int], limit: int) -> int | None:
    """Iterations until the move ``agent`` would play is winning and stays winning up to ``limit``.

    The search runs one iteration at a time from a fresh root; after each, the move
    :meth:`~mctslab.agents.uct.UCT.best_child` would play is checked against ``winning``.

    Args:
        agent: a UCT agent or a variant (its ``best_child`` is its final choice).
        game: the game.
        state: a position with a forced win for the player to move.
        winning: the moves that keep the forced win (from :func:`mctslab.exact.move_values`).
        limit: iterations to run, >= 1.

    Returns:
        The first iteration count from which the choice is always winning (through
        ``limit``), or ``None`` if it is not winning after iteration ``limit``.
    """
    winning = set(winning)
    root = agent.new_root(game, state)
    since = None
    for i in range(1, limit + 1):
        agent.iterate(game, root)
        if agent.best_child(root).move in winning:
            if since is None:
                since = i
        else:
            since = None
    return since


@dataclass(frozen=True)
class Race:
    """How soon each agent plays a forced win, per position and seed (``None``: not within the limit).

    Attributes:
        specs: the agents' specs (without seed), in column order.
        limit: iterations run per search.
        counts: ``counts[agent][k]`` for run ``k`` (positions x seeds, in that order).
        seeds: runs per position (the seeds of each position, consecutive in ``counts``).

    The runs of one position share it, so they are not independent samples of positions:
    :meth:`sooner_on_positions` compares the agents position by position.
    """

    specs: tuple[str, ...]
    limit: int
    counts: tuple[tuple[int | None, ...], ...]
    seeds: int = 1

    def _key(self, c: int | None) -> int:
        """A run's iterations, ``limit + 1`` for one not winning within the limit."""
        return self.limit + 1 if c is None else c

    def shown(self, c: int | None) -> str:
        """A run's count as text: the iterations, or ``"> limit"`` (not winning within the limit)."""
        return f"> {self.limit}" if c is None else str(c)

    def solved(self, agent: int) -> int:
        """How many runs of agent ``agent`` (its column) play a winning move within the limit."""
        return sum(c is not None for c in self.counts[agent])

    def sooner(self, a: int, b: int) -> tuple[int, int, int]:
        """Runs where ``a`` needs fewer iterations than ``b``, as many, more (``None``: more than the limit)."""
        pairs = [(self._key(x), self._key(y)) for x, y in zip(self.counts[a], self.counts[b], strict=True)]
        return (sum(x < y for x, y in pairs), sum(x == y for x, y in pairs), sum(x > y for x, y in pairs))

    def sooner_on_positions(self, a: int, b: int) -> tuple[int, int, int]:
        """Positions where ``a`` needs fewer iterations than ``b`` summed over the position's seeds, as many, more."""
        k = self.seeds
        totals = [
            (sum(map(self._key, self.counts[a][i : i + k])), sum(map(self._key, self.counts[b][i : i + k])))
            for i in range(0, len(self.counts[a]), k)
        ]
        return (sum(x < y for x, y in totals), sum(x == y for x, y in totals), sum(x > y for x, y in totals))

    def sign_test(self, a: int, b: int) -> Fraction:
        """The exact two-sided sign test on positions: how likely a split at least this uneven if neither is sooner.

        Among the positions where ``a`` and ``b`` differ (:meth:`sooner_on_positions`), each
        would favour either with probability 1/2 if neither agent were sooner; the p-value is
        ``2 P(X >= max(sooner, later))`` for ``X ~ Binomial(differ, 1/2)``, at most 1 (1 when
        they never differ).
        """
        sooner, _, later = self.sooner_on_positions(a, b)
        n = sooner + later
        tail = sum(Fraction(comb(n, k), 2**n) for k in range(max(sooner, later), n + 1))
        return min(Fraction(1), 2 * tail)


def win_race(
    game: Game,
    positions: Sequence[Sequence[int]],
    agents: Sequence[Callable[[int], UCT]],
    specs: Sequence[str],
    seeds: Sequence[int],
    limit: int,
    progress: bool = False,
) -> Race:
    """:func:`iterations_to_win` for each agent on each position with each seed (the winning moves exact).

    Args:
        game: the game (small enough near the end for :func:`mctslab.exact.move_values`).
        positions: the positions, as moves from the start.
        agents: factories ``seed -> agent``, one per agent.
        specs: the agents' names for the table.
        seeds: one run per seed and position.
        limit: iterations per run.
        progress: show a progress bar (one step per position).
    """
    counts: list[list[int | None]] = [[] for _ in agents]
    for moves in tqdm(positions, desc="positions", disable=not progress):
        state = game.state_from_moves(moves)
        values = exact.move_values(game, state)
        winning = [m for m, v in values.items() if v == 1]
        for seed in seeds:
            for column, make in zip(counts, agents, strict=True):
                column.append(iterations_to_win(make(seed), game, state, winning, limit))
    return Race(tuple(specs), limit, tuple(tuple(c) for c in counts), len(seeds))
