"""The one tournament pipeline: resume from a results file, play what is missing, write as games finish.

A match and a round robin differ only in their schedule (which games, with which seats
and seeds) and in how they summarise the results; both run their schedule through
:func:`play_schedule`:

1. check the options (before any file is touched);
2. with a results file: lock it (one writer per file), open it (:meth:`ResultsFile.open_for_append
   <mctslab.tournament.results_file.ResultsFile.open_for_append>`), which checks its
   header against this run's, reads the finished games, writes the header of a new file
   and cuts a damaged last line;
3. play the games that are not finished (:func:`~mctslab.tournament.runner.run_games`),
   appending each batch to the file as it finishes;
4. return every game of the schedule, in order, and which were read from the file.

Since a game's seed depends only on its place in the schedule, the games read from the
file are those an uninterrupted run would have played.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..games import Game
from ..nets.files import weights_digest
from .records import GameResult, GameTask
from .results_file import ResultsFile
from .runner import Run, check_workers
from .workers import RunIncomplete, RunInterrupted


@dataclass(frozen=True)
class Played:
    """The games of a schedule once it has been run.

    Attributes:
        results: one :class:`GameResult` per task, sorted by ``(pair, index)``.
        resumed: the ``(pair, index)`` keys of the games read from the results file
            rather than played.
    """

    results: list[GameResult]
    resumed: frozenset[tuple[int, int]]


def play_schedule(
    game: Game,
    pairs: Sequence[tuple[str, str]],
    seed: int | np.random.SeedSequence,
    tasks: Sequence[GameTask],
    *,
    header: dict[str, Any],
    out: str | os.PathLike | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    batch_size: int | None = None,
    progress: bool = True,
    desc: str = "games",
) -> Played:
    """Play the games of ``tasks`` that ``out`` does not already hold, and return them all.

    Args:
        game: the game.
        pairs: ``(A, B)`` agents of each pairing (resolved specs or factories).
        seed: the tournament's seed; task ``t`` is seeded with ``game_seed(seed, t.seed_key)``.
        tasks: the schedule: every game of the run.
        header: what describes the run in the results file (checked against the file's).
        out: the results file, or ``None`` to keep nothing.
        executor: see :func:`~mctslab.tournament.runner.run_games`.
        workers: see :func:`~mctslab.tournament.runner.run_games`.
        batch_size: see :func:`~mctslab.tournament.runner.run_games`.
        progress: show a progress bar.
        desc: the progress bar's label.

    Returns:
        :class:`Played`.

    Raises:
        TypeError, ValueError: for bad ``workers`` or ``batch_size``, or a game not of two players.
        ResultsFileError: if ``out`` holds another run's results or is damaged before
            its last line, is being written by another run, cannot be written (one line
            saying why), or the disk fills up (the games written so far are kept).
        RunInterrupted: (a ``KeyboardInterrupt``) on Ctrl-C, once every finished game
            is written to ``out``; it says how many and how to resume.
        RunIncomplete: if a worker died or games came back missing: every finished game
            is in ``out``; it says why, how many, and how to resume.
    """
    check_workers(workers, batch_size)
    if game.num_players != 2:
        raise ValueError(
            f"a match or round robin pits two agents against each other; {game.spec} is {game.kind().describe()}: "
            f"play it with mctslab.play_game(game, [{', '.join(['agent'] * game.num_players)}])"
        )
    run = Run(game.spec, tuple(tuple(p) for p in pairs), seed, executor, workers, batch_size, progress, desc)
    if out is None:
        return Played(run.play(tasks), frozenset())
    digest = weights_digest(header.get("agents", ()))  # a replaced network file is another player
    header = {**header, "weights": digest} if digest else header
    results_file = ResultsFile(out, header, game, {t.key: t.a_first for t in tasks})
    with results_file.lock():  # one writer per file, from reading it to the last game
        done = results_file.open_for_append()
        todo = [t for t in tasks if t.key not in done]
        try:
            played = run.play(todo, done=len(done), on_batch=results_file.append)
        except RunInterrupted as stop:
            raise RunInterrupted(stop.finished, stop.total, os.fspath(out)) from None
        except RunIncomplete as stop:
            raise RunIncomplete(stop.finished, stop.total, stop.reason, os.fspath(out)) from None
    results = sorted([*done.values(), *played], key=lambda r: r.key)
    return Played(results, frozenset(done))
