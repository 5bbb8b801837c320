"""Racioppo 2020's experiments, re-run with its own procedure and with the corrected one.

:func:`reproduce` plays each :class:`~mctslab.course.reproduction.rows.Row` under both procedures
and returns a :class:`~mctslab.course.reproduction.table.ReproductionTable`;
:func:`without_each_defect` switches the paper's defects off one at a time, to see which
one moves which number. Seats are fixed, as in the paper: agent X always moves first.

Given a ``folder``, :func:`measure` and :func:`reproduce` keep each run's counts there, chunk by
chunk (:data:`ROWS_FILE`, :mod:`mctslab.course.experiments.stored_counts`), and read them back
instead of playing again: the same numbers, since every game and trial is seeded by its place.
Notebook 08's stored runs: :mod:`mctslab.course.reproduction.stored`.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from ...agents import canonical_spec
from ...games import make_game
from ...tournament import game_seed, play_match
from ...tournament.factory import build
from ...tournament.match import seed_header
from ...tournament.runner import available_cores
from ..experiments.stored_counts import match_chunks, match_header, outcome_counts, pool_for, stored_counts
from .agent import DEFECTS, PROCEDURES
from .exact_rows import load_exact
from .rows import PAPER_ROWS, Row
from .table import Measurement, ReproductionTable

ROWS_FILE = "reproduction_rows.json"
"""The stored counts of the rows' runs, in a ``folder`` given to :func:`measure` or :func:`reproduce`."""


def row_seed(seed: int, row: Row, procedure: str) -> np.random.SeedSequence:
    """The seed of ``row`` under ``procedure`` (any other name: a shared third stream).

    It depends on the row's key, not its position, so it is stable when rows are added
    or reordered; the procedure's stream is its place in
    :data:`~mctslab.course.reproduction.agent.PROCEDURES` (fixed: ``paper``, ``corrected``).
    """
    which = PROCEDURES.index(procedure) if procedure in PROCEDURES else len(PROCEDURES)
    return game_seed(seed, (zlib.crc32(row.key.encode()), which))


def centre_first_rate(agent: str, trials: int, seed: int | np.random.SeedSequence, first: int = 0) -> tuple[int, int]:
    """How often ``agent`` opens in the centre: ``(centre, elsewhere)`` over ``trials`` fresh agents.

    Args:
        agent: a spec (``racioppo:...`` included).
        trials: how many first moves, >= 0.
        seed: trial ``i`` builds the agent from ``game_seed(seed, (i,))``.
        first: the number of the first trial (to split the trials between workers).
    """
    game = make_game("tictactoe")
    start = game.initial_state()
    agent = canonical_spec(agent)
    trial_numbers = range(first, first + trials)
    hits = sum(build(agent, game_seed(seed, (i,))).select_move(game, start) == 4 for i in trial_numbers)
    return (hits, trials - hits)


def _centre_trials(
    agent: str,
    trials: int,
    seed: np.random.SeedSequence,
    executor: Executor | None,
    workers: int | None,
    chunk: int = 1000,
) -> tuple[int, int]:
    """:func:`centre_first_rate` in chunks on an executor; the same counts as in one piece."""
    if executor is None and (workers == 1 or trials <= chunk):
        return centre_first_rate(agent, trials, seed)
    pool = executor if executor is not None else ProcessPoolExecutor(workers or available_cores())
    try:
        parts = [
            pool.submit(centre_first_rate, agent, min(chunk, trials - start), seed, start)
            for start in range(0, trials, chunk)
        ]
        hits = sum(part.result()[0] for part in parts)
    finally:
        if executor is None:
            pool.shutdown()
    return (hits, trials - hits)


def measure(
    row: Row,
    procedure: str,
    games: int,
    seed: int,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: bool = False,
    folder: str | os.PathLike | None = None,
) -> Measurement:
    """Play ``row`` under ``procedure`` (``"paper"`` or ``"corrected"``) for ``games`` games or trials.

    Both procedures measure the same statistic, so that a row's columns compare like with
    like: a ``"centre"`` row counts X's first moves in the centre, a ``"centre-held"`` row
    what Racioppo 2020's In [150] counts (X holds the centre when the game ends).

    With ``folder``, the run's counts are kept in ``folder/``:data:`ROWS_FILE` chunk by chunk,
    under the name ``"<row key> <procedure>"`` (``"fixed"`` for rows without a procedure):
    the chunks stored there are read, only the missing ones are played (``progress`` is then
    ignored). The counts are those of a run without ``folder``.

    Raises:
        ValueError: for an unknown procedure or row kind, or ``games < 1``; with ``folder``,
            if it holds another run under that name.
    """
    if procedure not in PROCEDURES:
        raise ValueError(f"procedure must be one of {', '.join(PROCEDURES)}, got {procedure!r}")
    x, o = row.agents(procedure)
    stream = procedure if row.uses_procedure else "fixed"
    seed_seq = row_seed(seed, row, stream)
    if folder is not None:
        return _stored_measure(row, procedure, stream, games, seed_seq, Path(folder) / ROWS_FILE, executor, workers)
    if row.kind == "centre":
        return Measurement(procedure, _centre_trials(x, games, seed_seq, executor, workers), "first move")
    if row.kind not in ("outcomes", "centre-held"):
        raise ValueError(f"unknown row kind {row.kind!r}")
    result = play_match(
        "tictactoe", x, o, games, seed_seq, seats="a-first", executor=executor, workers=workers, progress=progress
    )
    if row.kind == "centre-held":
        held = sum(4 in r.moves[0::2] for r in result.results)
        return Measurement(procedure, (held, result.games - held), "held at the end")
    o_ = result.outcomes
    return Measurement(procedure, (o_.wins, o_.losses, o_.draws))


def _held_centre(results) -> tuple[int, int]:
    """``(games X ends holding the centre, the others)``: Racioppo 2020's In [150] statistic."""
    held = sum(4 in r.moves[0::2] for r in results)
    return (held, len(results) - held)


def _centre_chunks(agent: str, seed: np.random.SeedSequence, executor: Executor | None, workers: int | None):
    """Computes chunks of :func:`centre_first_rate` trials, on a pool when there is one (as they finish)."""

    def compute(spans: Sequence[tuple[int, int]]) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
        with pool_for(executor, workers) as pool:
            if pool is None:
                for start, stop in spans:
                    yield (start, stop), centre_first_rate(agent, stop - start, seed, start)
                return
            parts = {
                pool.submit(centre_first_rate, agent, stop - start, seed, start): (start, stop) for start, stop in spans
            }
            for part in as_completed(parts):
                yield parts[part], part.result()

    return compute


def _stored_measure(
    row: Row,
    procedure: str,
    stream: str,
    games: int,
    seed: np.random.SeedSequence,
    path: Path,
    executor: Executor | None,
    workers: int | None,
) -> Measurement:
    """:func:`measure` with its counts kept in ``path`` chunk by chunk (the same counts)."""
    x, o = row.agents(procedure)
    run = f"{row.key} {stream}"
    if row.kind == "centre":
        header = {"kind": "centre", "agent": x, "seed": seed_header(seed), "counted": "first move in the centre"}
        counts = stored_counts(path, run, header, games, _centre_chunks(x, seed, executor, workers))
        return Measurement(procedure, counts, "first move")
    if row.kind not in ("outcomes", "centre-held"):
        raise ValueError(f"unknown row kind {row.kind!r}")
    held = row.kind == "centre-held"
    header = match_header("tictactoe", x, o, seed, "a-first", "X ends holding the centre" if held else "outcomes")
    count = _held_centre if held else outcome_counts  # (held, not held) or (X wins, O wins, draws)
    compute = match_chunks("tictactoe", x, o, seed, "a-first", count, executor=executor, workers=workers)
    counts = stored_counts(path, run, header, games, compute)
    return Measurement(procedure, counts, "held at the end") if held else Measurement(procedure, counts)


def without_each_defect(
    row: Row,
    games: int,
    seed: int,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
) -> dict[str, Measurement]:
    """The paper's procedure on ``row`` with each defect switched off in turn: which defect moves the numbers.

    All variants share the row's seed (common random numbers), so their differences are
    less noisy than independent runs.

    Args:
        row: an ``"outcomes"`` or ``"centre"`` row of Racioppo 2020's Monte Carlo.
        games: games (or trials) per variant, >= 1.
        seed: the seed.
        executor: any ``concurrent.futures`` executor (default: a process pool).
        workers: processes for the default pool.

    Returns:
        ``{"paper": ..., "without turn": ..., ..., "corrected": ...}``: all defects, all
        but one, none.

    Raises:
        ValueError: for a row that does not play Racioppo 2020's Monte Carlo, or a
            ``"centre-held"`` row (whole games of Monte Carlo against itself: use :func:`measure`).
    """
    if not row.uses_procedure or row.kind == "centre-held":
        raise ValueError(f"row {row.key!r} does not play Racioppo 2020's Monte Carlo with a fixed statistic")
    variants = {"paper": tuple(DEFECTS)}
    variants.update({f"without {d}": tuple(e for e in DEFECTS if e != d) for d in DEFECTS})
    variants["corrected"] = ()
    out = {}
    for name, defects in variants.items():
        text = "defects=" + ("-".join(defects) or "none")
        variant = replace(
            row, x=row.x.replace("procedure={procedure}", text), o=row.o.replace("procedure={procedure}", text)
        )
        m = measure(variant, "corrected", games, seed, executor=executor, workers=workers)
        out[name] = Measurement(name, m.counts, m.statistic)
    return out


def reproduce(
    rows: Sequence[Row] = PAPER_ROWS,
    games: int = 1000,
    seed: int = 2020,
    *,
    procedures: Sequence[str] = PROCEDURES,
    min_cheap_games: int = 10_000,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: bool = True,
    folder: str | os.PathLike | None = None,
) -> ReproductionTable:
    """Re-run Racioppo 2020's rows under each procedure, beside their exact values where known.

    Rows the paper did not run (:data:`PLANNED_ROWS`) are played with the corrected
    procedure only, since they have no paper procedure. The exact values of the window-1
    rows (:mod:`mctslab.course.reproduction.exact_rows`, stored) are attached to the table, and
    the fit p-values use them where they exist.

    Args:
        rows: the rows (default :data:`PAPER_ROWS`).
        games: games (or trials) per row and procedure, >= 1.
        seed: the seed; each row's seed comes from it and the row's key.
        procedures: which procedures to run.
        min_cheap_games: rows that cost little (random against random, and a first move
            on the empty board) get at least this many games or trials.
        executor: any ``concurrent.futures`` executor for the games (default: a process pool).
        workers: processes for the default pool (``None``: every core; 1: none).
        progress: show a progress bar over rows.
        folder: where the runs' counts are kept (see :func:`measure`): what is stored there
            is read, only the missing chunks are played. ``None``: play everything, keep nothing.

    Returns:
        A :class:`ReproductionTable`: the same with or without ``folder``.

    Raises:
        ValueError: with ``folder``, if it holds another run under a row's name.
    """
    stored = load_exact()["rows"]
    exact = {(row.key, p): stored[row.key][p] for row in rows if row.key in stored for p in procedures}
    table = ReproductionTable(tuple(rows), seed=seed, exact={k: v for k, v in exact.items() if v is not None})
    jobs = [(row, p) for row in rows for p in procedures if row.paper is not None or p == "corrected"]
    for row, procedure in tqdm(jobs, desc="Racioppo 2020 rows", disable=not progress):
        if not row.uses_procedure:
            # Random play, UCT and minimax have no paper procedure: one run serves both columns.
            same = next((m for (k, _), m in table.measured.items() if k == row.key), None)
            if same is not None:
                table.measured[(row.key, procedure)] = Measurement(procedure, same.counts, same.statistic)
                continue
        cheap = row.x == row.o == "random" or row.kind == "centre"
        n = max(games, min_cheap_games) if cheap else games
        table.measured[(row.key, procedure)] = measure(
            row, procedure, n, seed, executor=executor, workers=workers, folder=folder
        )
    return table
