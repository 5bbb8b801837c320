"""Stored counts: a seeded experiment kept as the counts of its chunks, read back instead of played again.

Some experiments are thousands of seeded games (or trials) of which a notebook shows only
counts: X wins, O wins and draws, or how often X opens in the centre. Their stored run is one
small file of counts per **chunk** (items ``start`` to ``stop - 1``; :data:`CHUNK` each), not
of games: a results file (:mod:`mctslab.tournament.results_file`) of notebook 08's 50,000
games would weigh megabytes. Since item ``i`` is seeded by its place alone (game ``i`` of a
match by ``game_seed(seed, (i,))``, exactly as :func:`mctslab.tournament.play_match` seeds
it), a chunk played again is the chunk stored, and the counts of a whole run are the sums of
its chunks' counts.

:func:`stored_counts` reads the chunks a run has stored, computes the missing ones and
stores each as it finishes (an interrupted run loses at most the chunks in flight);
:func:`match_chunks` computes chunks of a match. The file (:class:`CountsFile`) is one JSON
document, rewritten whole (to a temporary file, then renamed) after each chunk, one chunk a line::

    {"format": "mctslab-counts", "version": 1, "runs": {
      "<run>": {"header": {...}, "chunks": {"0-100": [91, 7, 2], "100-200": [...], ...}}, ...}}

A run's header says what identifies it (game, agents, seed, seats, what is counted) and is
checked when the run is read again, so that a run with other agents or another seed is never
counted as this one. A chunk is found by its exact range: a run of 20 games stores ``0-20``,
one of 1,000 the ranges ``0-100`` to ``900-1000``, and each reads only its own.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ...games import make_game
from ...tournament import GameResult, GameTask
from ...tournament.factory import resolve
from ...tournament.match import a_moves_first, seed_header
from ...tournament.runner import available_cores
from ...tournament.schedule import play_schedule
from ...validation import positive_int

FORMAT = "mctslab-counts"
VERSION = 1
CHUNK = 100
"""Items (games or trials) per stored chunk."""

Counts = tuple[int, ...]
Chunks = Callable[[Sequence[tuple[int, int]]], Iterable[tuple[tuple[int, int], Counts]]]
"""Computes chunks: given their ``(start, stop)`` ranges, yields ``((start, stop), counts)`` as each is done."""


def chunk_ranges(total: int, chunk: int = CHUNK) -> list[tuple[int, int]]:
    """The ranges ``(start, stop)`` that cut ``range(total)`` into chunks of ``chunk`` (the last one shorter)."""
    total, chunk = positive_int("total", total), positive_int("chunk", chunk)
    return [(start, min(start + chunk, total)) for start in range(0, total, chunk)]


class CountsFile:
    """A stored-counts file: runs by name, each a header and the counts of its chunks.

    Reading never changes the file; :meth:`store` rewrites it with one chunk more.

    Args:
        path: the file (created by the first :meth:`store` if missing).

    Raises:
        ValueError: if the file is not a stored-counts file, or a run or chunk in it is damaged.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.headers: dict[str, dict[str, Any]] = {}
        self.chunks: dict[str, dict[tuple[int, int], Counts]] = {}
        if not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text())
            if (data.get("format"), data.get("version")) != (FORMAT, VERSION):
                raise ValueError(f"not {FORMAT} version {VERSION}")
            for name, run in data["runs"].items():
                self.headers[name] = run["header"]
                self.chunks[name] = {_span(key): tuple(int(k) for k in counts) for key, counts in run["chunks"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"{self.path} is not a sound stored-counts file ({err!r})") from None

    def stored(self, run: str, header: dict[str, Any]) -> dict[tuple[int, int], Counts]:
        """The chunks stored for ``run``, ``(start, stop) -> counts`` (empty if none).

        Raises:
            ValueError: if the file holds another run under that name (the keys that differ are named).
        """
        old = self.headers.get(run)
        if old is not None and old != header:
            differs = sorted(k for k in {*old, *header} if old.get(k) != header.get(k))
            raise ValueError(
                f"{self.path} holds another run named {run!r} ({', '.join(differs)} differ: "
                f"stored {[old.get(k) for k in differs]}, asked {[header.get(k) for k in differs]}); "
                "give another folder"
            )
        return dict(self.chunks.get(run, {}))

    def store(self, run: str, header: dict[str, Any], span: tuple[int, int], counts: Counts) -> None:
        """Add one chunk of ``run`` and rewrite the file (a temporary file renamed over it)."""
        self.stored(run, header)
        self.headers[run] = header
        self.chunks.setdefault(run, {})[span] = tuple(int(k) for k in counts)
        runs = {
            name: {
                "header": self.headers[name],
                "chunks": {f"{a}-{b}": list(c) for (a, b), c in sorted(self.chunks.get(name, {}).items())},
            }
            for name in sorted(self.headers)
        }
        data = {"format": FORMAT, "version": VERSION, "runs": runs}
        # One line per chunk: indented JSON with every list of numbers or names kept on one line.
        text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]",
                      json.dumps(data, indent=1))  # fmt: skip
        assert json.loads(text) == data
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(text + "\n")
        tmp.replace(self.path)


def _span(key: str) -> tuple[int, int]:
    """``"100-200"`` -> ``(100, 200)``."""
    start, stop = key.split("-")
    return int(start), int(stop)


def stored_counts(
    path: str | os.PathLike, run: str, header: dict[str, Any], total: int, compute: Chunks, *, chunk: int = CHUNK
) -> Counts:
    """The counts of ``run`` over items ``0`` to ``total - 1``: stored chunks read, missing ones computed and stored.

    Args:
        path: the stored-counts file (:class:`CountsFile`).
        run: the run's name in the file.
        header: what identifies the run (JSON-ready); checked against the stored one.
        total: items (games or trials), >= 1.
        compute: computes the missing chunks (:data:`Chunks`); each is stored as it is yielded.
        chunk: items per chunk (the stored ranges are :func:`chunk_ranges` of ``total`` and ``chunk``).

    Returns:
        The sum of the chunks' counts.

    Raises:
        ValueError: if the file holds another run under that name, or is damaged.
    """
    stored = CountsFile(path)
    spans = chunk_ranges(total, chunk)
    have = stored.stored(run, header)
    missing = [span for span in spans if span not in have]
    if missing:
        for span, counts in compute(missing):
            stored.store(run, header, span, counts)
            have[span] = tuple(counts)
    return tuple(int(k) for k in np.sum([have[span] for span in spans], axis=0))


def match_header(game: str, a: str, b: str, seed: int | np.random.SeedSequence, seats: str, counted: str) -> dict:
    """What identifies a match's stored counts: the game's and agents' canonical specs, the seed, seats, statistic."""
    return {
        "kind": "match",
        "game": make_game(game).spec,
        "agents": [resolve(a), resolve(b)],
        "seed": seed_header(seed),
        "seats": seats,
        "counted": counted,
    }


def match_chunk(
    game: str,
    a: str,
    b: str,
    seed: int | np.random.SeedSequence,
    seats: str,
    span: tuple[int, int],
    *,
    executor: Executor | None = None,
    workers: int | None = 1,
) -> list[GameResult]:
    """Games ``start`` to ``stop - 1`` of ``play_match(game, a, b, games, seed, seats=seats)`` (any ``games >= stop``).

    Each game is seeded and seated as in the whole match, so these are its games (nothing is kept).
    """
    start, stop = span
    tasks = [GameTask(0, i, a_moves_first(seats, i), (i,)) for i in range(start, stop)]
    pairs = [(resolve(a), resolve(b))]
    played = play_schedule(
        make_game(game), pairs, seed, tasks, header={}, executor=executor, workers=workers, progress=False
    )
    return played.results


def outcome_counts(results: Sequence[GameResult]) -> Counts:
    """``(A wins, B wins, draws)`` of ``results``."""
    a = sum(r.winner == "a" for r in results)
    b = sum(r.winner == "b" for r in results)
    return (a, b, len(results) - a - b)


@contextmanager
def pool_for(executor: Executor | None, workers: int | None) -> Iterator[Executor | None]:
    """``executor`` if given; else a process pool of ``workers`` (``None``: every core) shut down after, or none for 1.

    So that the chunks of a run share one pool instead of starting one each.
    """
    if executor is not None or workers == 1:
        yield executor
        return
    pool = ProcessPoolExecutor(workers or available_cores())
    try:
        yield pool
    finally:
        pool.shutdown()


def match_chunks(
    game: str,
    a: str,
    b: str,
    seed: int | np.random.SeedSequence,
    seats: str,
    count: Callable[[Sequence[GameResult]], Counts] = outcome_counts,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
) -> Chunks:
    """Computes chunks of a match (:data:`Chunks`): each chunk's games (:func:`match_chunk`), counted by ``count``."""

    def compute(spans: Sequence[tuple[int, int]]) -> Iterator[tuple[tuple[int, int], Counts]]:
        with pool_for(executor, workers) as pool:
            for span in spans:
                results = match_chunk(game, a, b, seed, seats, span, executor=pool, workers=1 if pool is None else None)
                yield span, tuple(count(results))

    return compute
