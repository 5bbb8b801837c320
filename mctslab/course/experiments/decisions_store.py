"""Stored decisions: :func:`~mctslab.course.experiments.decisions.decision_quality`'s runs, kept and resumed.

A decision-quality run (notebook 03) lets one agent decide ``repeats`` times on each of a set of
positions at each budget. Its stored run is one file per agent, :func:`decisions_file`, in the
manner of a results file (:mod:`mctslab.tournament.results_file`): JSON lines, the first a
header describing the run (game, label, the agent's spec at each budget, a digest of the
positions, repeats and seed), then one line per finished budget (a **chunk**): the move chosen
and the playouts spent by every decision at that budget, position by position, repeat by
repeat. A chunk is appended when it is finished, so an interrupted run loses at most the chunk
in flight, and running again plays only the missing chunks. Since decision ``(i, p, r)`` is
seeded by its place alone (:func:`decide`), a chunk read back is the chunk played afresh.

What is checked on reading: the header must be this run's (the file's name already is a digest
of it); each chunk line must parse, name a budget of the run once, and hold one move and one
count per decision. An unfinished last line (a run stopped while writing it) is ignored, and cut
when the run resumes; damage anywhere else is a :class:`ValueError` naming the line. One run
writes a file at a time.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...games.base import Game, State
from ...tournament import game_seed

FORMAT = "mctslab-decisions"
VERSION = 1
MakeAgent = Callable[[int, np.random.SeedSequence], Any]


@dataclass(frozen=True)
class Chunk:
    """The decisions of one budget, in order: position ``p``'s ``r``-th at ``p * repeats + r``.

    Attributes:
        moves: the move each decision chose.
        iterations: the playouts each decision spent.
    """

    moves: tuple[int, ...]
    iterations: tuple[int, ...]


def decide(
    game: Game, state: State, make: MakeAgent, budget: int, seed: int, key: tuple[int, int, int]
) -> tuple[int, int]:
    """One seeded decision: the move ``make(budget, game_seed(seed, key))`` chooses in ``state``, and its playouts.

    ``key`` is ``(i, p, r)``: the budget's index, the position's and the repeat's.
    """
    analysis = make(budget, game_seed(seed, key)).analyse(game, state)
    return analysis.move, analysis.iterations


def play_chunk(
    game: Game, positions: Sequence[State], make: MakeAgent, budget: int, i: int, repeats: int, seed: int
) -> Chunk:
    """Every decision at budget index ``i`` (``budget`` playouts), position by position, repeat by repeat."""
    decided = [decide(game, s, make, budget, seed, (i, p, r)) for p, s in enumerate(positions) for r in range(repeats)]
    return Chunk(tuple(m for m, _ in decided), tuple(n for _, n in decided))


def run_header(
    game: Game, positions: Sequence[State], label: str, make: MakeAgent, budgets: Sequence[int], repeats: int, seed: int
) -> dict[str, Any]:
    """What describes a decision-quality run: checked against a stored file's first line."""
    agents = [make(b, game_seed(seed, (i, 0, 0))).spec for i, b in enumerate(budgets)]
    digest = hashlib.sha256("\n".join(repr(s) for s in positions).encode()).hexdigest()
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.spec,
        "label": label,
        "agents": agents,
        "budgets": [int(b) for b in budgets],
        "positions": {"count": len(positions), "sha256": digest},
        "repeats": repeats,
        "seed": seed,
    }


def decisions_file(folder: str | os.PathLike, header: dict[str, Any]) -> Path:
    """The stored run of ``header`` in ``folder``: ``decisions_<label>_<digest of the header>.jsonl``."""
    slug = re.sub(r"[^a-z0-9]+", "-", header["label"].lower()).strip("-") or "agent"
    digest = hashlib.sha256(json.dumps(header, sort_keys=True).encode()).hexdigest()[:10]
    return Path(folder) / f"decisions_{slug}_{digest}.jsonl"


def read_chunks(path: Path, header: dict[str, Any]) -> tuple[dict[int, Chunk], int]:
    """The finished chunks in ``path`` (none if it is missing) and how many bytes of it are sound.

    Only whole lines count: what follows the last newline is the line a stopped run was writing
    (not counted; :meth:`DecisionsFile.append` cuts it).

    Raises:
        ValueError: if the file holds another run, or a whole line is damaged, names no budget of
            the run, repeats one, or holds the wrong number of decisions.
    """
    if not path.exists():
        return {}, 0
    *lines, _partial = path.read_bytes().split(b"\n")
    chunks: dict[int, Chunk] = {}
    decisions = header["positions"]["count"] * header["repeats"]
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}, line {number}: damaged ({err})") from None
        if number == 1:
            if record != header:
                raise ValueError(f"{path} holds another run: its header is {record}, this run's is {header}")
            continue
        i = record.get("chunk") if isinstance(record, dict) else None
        if not isinstance(i, int) or not 0 <= i < len(header["budgets"]) or i in chunks:
            raise ValueError(f"{path}, line {number}: budget index {i!r} is not one of the run's, or is repeated")
        moves, spent = record.get("moves"), record.get("iterations")
        if record.get("budget") != header["budgets"][i] or not all(
            isinstance(x, list) and len(x) == decisions for x in (moves, spent)
        ):
            raise ValueError(f"{path}, line {number}: not budget {header['budgets'][i]}'s {decisions} decisions")
        chunks[i] = Chunk(tuple(moves), tuple(spent))
    return chunks, sum(len(line) + 1 for line in lines)


class DecisionsFile:
    """One decision-quality run's stored chunks: read those finished, append the others as they finish."""

    def __init__(self, folder: str | os.PathLike, header: dict[str, Any]) -> None:
        self.header = header
        self.path = decisions_file(folder, header)
        self.chunks, self._end = read_chunks(self.path, header)

    def append(self, i: int, chunk: Chunk) -> None:
        """Write budget index ``i``'s finished chunk (the header first, for a new file; a damaged last line cut)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "r+b" if self.path.exists() else "wb") as f:
            f.truncate(self._end)
            f.seek(self._end)
            if self._end == 0:
                f.write((json.dumps(self.header) + "\n").encode())
            record = {"chunk": i, "budget": self.header["budgets"][i], **chunk.__dict__}
            f.write((json.dumps(record, separators=(",", ":")) + "\n").encode())
            self._end = f.tell()
        self.chunks[i] = chunk
