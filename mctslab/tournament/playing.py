"""Playing a schedule's games: each :class:`~.records.GameTask` through :func:`mctslab.play.play_game`.

What one worker does (:func:`play_batch`), and what a run in this process does
(:func:`play_games`, one game at a time). The agent in seat ``k`` of a game gets child
``k`` of the game's seed, as :func:`~mctslab.play.play_game` gives an agent spec, and the
game's chance moves (dice, deals) are drawn from its third child, so a game with chance
is the same game whichever worker plays it, and when a results file is resumed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..games import make_game
from ..play import play_game
from ..seeding import child_seeds
from .factory import build
from .records import GameResult, GameTask, game_seed


def play_games(
    game_spec: str,
    pairs: Sequence[tuple[str, str]],
    root: int | np.random.SeedSequence,
    tasks: Sequence[GameTask],
) -> Iterator[GameResult]:
    """Play the games of ``tasks`` one after the other, yielding each as it finishes.

    Args: as :func:`play_batch`.
    """
    game = make_game(game_spec)
    for task in tasks:
        a, b = pairs[task.pair]
        seats = (a, b) if task.a_first else (b, a)
        # the agent in seat k gets the game seed's child k, as play_game gives a spec; the seed
        # itself seeds the chance moves (its third child: games without chance are unchanged)
        seed = game_seed(root, task.seed_key)
        seeds = child_seeds(seed, 2)
        record = play_game(game, [build(agent, s) for agent, s in zip(seats, seeds, strict=True)], seed=seed)
        a_seat = 0 if task.a_first else 1
        winner = None if record.winner is None else ("a" if record.winner == a_seat else "b")
        yield GameResult(
            pair=task.pair,
            index=task.index,
            a_first=task.a_first,
            moves=tuple(int(m) for m in record.moves),
            winner=winner,
            returns=(record.returns[a_seat], record.returns[1 - a_seat]),
            seconds=(record.seconds[a_seat], record.seconds[1 - a_seat]),
            iterations=(record.iterations[a_seat], record.iterations[1 - a_seat]),
        )


def play_batch(
    game_spec: str,
    pairs: Sequence[tuple[str, str]],
    root: int | np.random.SeedSequence,
    tasks: Sequence[GameTask],
) -> list[GameResult]:
    """Play a batch of games (what one worker task does).

    Args:
        game_spec: the game, as :func:`mctslab.make_game` accepts it.
        pairs: agents ``(A, B)`` of each pairing (specs or factories), indexed by ``GameTask.pair``.
        root: the tournament's seed.
        tasks: the games to play.

    Returns:
        One :class:`GameResult` per task, in order.
    """
    return list(play_games(game_spec, pairs, root, tasks))
