"""Pure (flat) and windowed Monte Carlo move selection, as in Racioppo 2020.

Flat Monte Carlo plays ``playouts`` random games after each legal move and picks the
move with the best score, *wins minus losses* (draws count 0) for the player to move.
Windowed Monte Carlo repeats the search on the best few moves: Racioppo 2020 searches all
moves, then the best 4, then the best 2, throwing earlier statistics away.

Both share the random playout of :meth:`mctslab.games.base.Game.rollout` with UCT,
so the playouts (and their turn order) are the same everywhere. With ``batched=True``
they play all of a round's playouts at once through
:meth:`mctslab.games.base.Game.playout_counts` (vectorised with NumPy for
tic-tac-toe): the same distribution, other random numbers, several times faster.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..engine import check_engine
from ..games.base import Game, State
from ..games.kinds import TWO_PLAYERS, WITH_CHANCE
from ..seeding import Seed
from ..specs import to_bool, to_int_list
from .base import (
    Agent,
    Analysis,
    MoveStat,
    Param,
    check_bool,
    check_optional_positive_int,
    check_positive_int,
    legal_or_raise,
)
from .registry import register_agent


def parse_keep(text: str) -> tuple[int, ...] | str:
    """Spec text of ``keep``: ``"4-2"`` -> ``(4, 2)``; ``"half"`` stays ``"half"``."""
    return "half" if text == "half" else to_int_list(text)


def check_keep(name: str, keep: Sequence[int] | str) -> tuple[int, ...] | str:
    """``keep`` as a tuple of ints >= 1, or ``"half"``.

    Raises:
        ValueError: for another string; TypeError or ValueError for a bad entry.
    """
    if isinstance(keep, str):
        if keep != "half":
            raise ValueError(f"{name} must be a list of ints such as 4-2, or 'half'; got {keep!r}")
        return "half"
    return tuple(check_positive_int(f"each entry of {name}", k) for k in keep)


PLAYOUTS = Param("playouts", int, 100, check_positive_int, "random games per move (per round)", show="always")
MAX_MOVES = Param("max_moves", int, None, check_optional_positive_int, "cap on playout length (cut short: a draw)")
BATCHED = Param("batched", to_bool, False, check_bool, "play each round's playouts at once (NumPy)")
MAX_BATCH = 1 << 18
"""The most playouts :func:`sample_moves_batched` plays in one NumPy call (about 30 MB of arrays)."""
ENGINE = Param("engine", str, "python", check_engine, "python, or compiled playouts (Numba: pip install mctslab[fast])")


class _Tally:
    """Wins, draws and losses of the playouts after one move, for the player to move."""

    __slots__ = ("move", "wins", "draws", "losses")

    def __init__(self, move: int) -> None:
        self.move, self.wins, self.draws, self.losses = move, 0, 0, 0

    @property
    def playouts(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> int:
        """Wins minus losses (Racioppo 2020's criterion)."""
        return self.wins - self.losses

    def stat(self) -> MoveStat:
        n = self.playouts
        mean = (self.wins + 0.5 * self.draws) / n if n else 0.5
        return MoveStat(self.move, n, mean, score=float(self.score))


def sample_moves(
    game: Game, state: State, tallies: Sequence[_Tally], playouts: int, rng, max_moves: int | None
) -> None:
    """Add ``playouts`` random playouts after each tallied move, scored for the player to move."""
    me = game.to_move(state)
    rollout = game.rollout
    for tally in tallies:
        child = game.apply(state, tally.move)
        for _ in range(playouts):
            r = rollout(child, rng, max_moves)[me]
            if r == 1.0:
                tally.wins += 1
            elif r == 0.0:
                tally.losses += 1
            else:
                tally.draws += 1


def sample_moves_compiled(
    game: Game, state: State, tallies: Sequence[_Tally], playouts: int, rng, max_moves: int | None
) -> None:
    """:func:`sample_moves` with compiled playouts (:func:`mctslab.engine.random_results`), seeded from ``rng``."""
    from ..engine import random_results

    me = game.to_move(state)
    for tally in tallies:
        child = game.apply(state, tally.move)
        won0, won1, drawn = random_results(game, child, playouts, rng.getrandbits(32), max_moves)
        tally.wins += int(won0 if me == 0 else won1)
        tally.losses += int(won1 if me == 0 else won0)
        tally.draws += int(drawn)


def sample_moves_batched(
    game: Game, state: State, tallies: Sequence[_Tally], playouts: int, rng: np.random.Generator, max_moves: int | None
) -> None:
    """:func:`sample_moves` with the round's playouts played at once (:meth:`Game.playout_counts`).

    At once means up to :data:`MAX_BATCH` playouts per call (a few tens of MB of arrays);
    a bigger round is played in several calls drawing on the same generator.
    """
    me = game.to_move(state)
    children = [game.apply(state, tally.move) for tally in tallies]
    # At most MAX_BATCH playouts at once: a budget never sizes the arrays (below it, one call as always).
    per_call = max(1, MAX_BATCH // len(children))
    counts = sum(
        game.playout_counts(children, min(per_call, playouts - done), rng, max_moves)
        for done in range(0, playouts, per_call)
    )
    for tally, (won0, won1, drawn) in zip(tallies, counts.tolist(), strict=True):
        tally.wins += won0 if me == 0 else won1
        tally.losses += won1 if me == 0 else won0
        tally.draws += drawn


@register_agent
class WindowedMonteCarlo(Agent):
    """Windowed Monte Carlo: flat Monte Carlo repeated on a shrinking window of the best moves.

    Round 1 samples every legal move; each later round keeps the best ``keep[i]`` moves
    of the previous round (by wins minus losses) and samples them again, ``playouts``
    games each. A round runs only if the previous one left more moves than it keeps
    (Racioppo 2020: "if there are at least 4 possible moves remaining"). The move with the
    best score in the last round is played; ties are broken at random.

    Racioppo 2020's version is ``window=3, keep=(4, 2), reuse=False``: all moves, then the
    best 4, then the best 2, each round starting from fresh counts. Its principled
    relative is *sequential halving* (Karnin, Koren and Somekh 2013, "Almost optimal
    exploration in multi-armed bandits"): halve the candidates each round and split a
    fixed budget evenly over rounds; ``keep="half"`` with ``reuse=True`` gives the
    halving schedule and keeps the evidence already gathered.

    Args:
        playouts: random games per candidate move per round, >= 1.
        window: number of rounds, >= 1 (1 is flat Monte Carlo).
        keep: moves kept for rounds 2, 3, ... (a sequence of ints >= 1), or ``"half"``
            to keep ``ceil(n / 2)`` of ``n`` each round. When ``window`` asks for more
            rounds than ``keep`` lists, later rounds halve.
        reuse: keep the counts of earlier rounds (``True``) or start each round afresh
            as Racioppo 2020 does (``False``).
        max_moves: cap on playout length; a playout cut short counts as a draw.
        batched: play each round's playouts all at once with
            :meth:`mctslab.games.base.Game.playout_counts` (same distribution, other
            random numbers; much faster on tic-tac-toe).
        engine: ``"python"``, or ``"compiled"``: the playouts run on :mod:`mctslab.engine`
            (Numba, ``pip install "mctslab[fast]"``; same distribution, other random numbers,
            seeded from the agent's generator; ``batched`` is then not used).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).

    Raises:
        ValueError, TypeError: for budgets < 1, a bad ``keep``, or a bad ``max_moves``.
    """

    name = "windowed"
    handles = frozenset({TWO_PLAYERS, WITH_CHANCE})  # rollouts draw chance outcomes; wins/losses need two players
    params = (
        PLAYOUTS,
        Param("window", int, 3, check_positive_int, "rounds (1: flat Monte Carlo)", show="always"),
        Param("keep", parse_keep, (4, 2), check_keep, "moves kept for rounds 2, 3, ... (e.g. 4-2), or half", "always"),
        Param("reuse", to_bool, False, check_bool, "keep earlier rounds' counts", show="always"),
        MAX_MOVES,
        BATCHED,
        ENGINE,
    )

    def __init__(
        self,
        playouts: int = 100,
        window: int = 3,
        keep: Sequence[int] | str = (4, 2),
        reuse: bool = False,
        max_moves: int | None = None,
        batched: bool = False,
        seed: Seed = None,
        engine: str = "python",
    ) -> None:
        super().__init__(seed)
        self.set_params(
            WindowedMonteCarlo,
            playouts=playouts,
            window=window,
            keep=keep,
            reuse=reuse,
            max_moves=max_moves,
            batched=batched,
            engine=engine,
        )

    def _kept(self, round_index: int, n: int) -> int:
        """How many of ``n`` candidates round ``round_index`` (2, 3, ...) keeps."""
        if self.keep != "half" and round_index - 2 < len(self.keep):
            return self.keep[round_index - 2]
        return max(1, math.ceil(n / 2))

    def round_sizes(self, moves: int) -> tuple[int, ...]:
        """How many moves each round samples among ``moves`` legal moves, e.g. ``(9, 4, 2)`` for Racioppo 2020's window.

        A round runs only if the previous one left more moves than it keeps.
        """
        sizes = [moves]
        for round_index in range(2, self.window + 1):
            kept = self._kept(round_index, sizes[-1])
            if sizes[-1] <= kept:
                break
            sizes.append(kept)
        return tuple(sizes)

    def _rank(self, tallies: list[_Tally]) -> list[_Tally]:
        """Best score first; equal scores in random order."""
        shuffled = list(tallies)
        self.rng.shuffle(shuffled)
        return sorted(shuffled, key=lambda t: -t.score)

    def analyse(self, game: Game, state: State) -> Analysis:
        """Run the rounds and return the chosen move with every move's latest statistics."""
        moves = legal_or_raise(game, state)
        tallies = [_Tally(m) for m in moves]
        last_seen = {t.move: t for t in tallies}
        candidates = tallies
        spent = 0
        batch_rng = np.random.default_rng(self.rng.getrandbits(64)) if self.batched else None
        for round_index, size in enumerate(self.round_sizes(len(moves)), 1):
            if round_index > 1:
                candidates = self._rank(candidates)[:size]
                if not self.reuse:
                    candidates = [_Tally(t.move) for t in candidates]
                    last_seen.update((t.move, t) for t in candidates)
            if self.engine == "compiled":
                sample_moves_compiled(game, state, candidates, self.playouts, self.rng, self.max_moves)
            elif batch_rng is not None:
                sample_moves_batched(game, state, candidates, self.playouts, batch_rng, self.max_moves)
            else:
                sample_moves(game, state, candidates, self.playouts, self.rng, self.max_moves)
            spent += self.playouts * len(candidates)
        best = self._rank(candidates)[0]
        stats = tuple(last_seen[m].stat() for m in moves)
        return Analysis(best.move, stats, iterations=spent)


@register_agent
class FlatMonteCarlo(WindowedMonteCarlo):
    """Pure (flat) Monte Carlo, Racioppo 2020: ``playouts`` random games after each move.

    Picks the move with the most wins minus losses for the player to move (draws 0);
    ties are broken at random. Equivalent to :class:`WindowedMonteCarlo` with one round.

    Args:
        playouts: random games per legal move, >= 1.
        max_moves: cap on playout length; a playout cut short counts as a draw.
        batched: play all the playouts at once (see :class:`WindowedMonteCarlo`).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
    """

    name = "flat"
    params = (PLAYOUTS, MAX_MOVES, BATCHED, ENGINE)

    def __init__(
        self,
        playouts: int = 100,
        max_moves: int | None = None,
        batched: bool = False,
        seed: Seed = None,
        engine: str = "python",
    ) -> None:
        super().__init__(playouts=playouts, window=1, max_moves=max_moves, batched=batched, seed=seed, engine=engine)
