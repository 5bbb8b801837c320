"""A census of shallow traps in the course's games (Ramanujan, Sabharwal & Selman 2010's question).

For each game and each source of positions (uniformly random play, or UCT self-play), play
seeded games, take **one** position per game at a uniformly random ply among those where the
game is not over (so the positions are independent and a Wilson interval applies), and find
the shallowest trap among its moves (:func:`mctslab.exact.traps.shallowest_trap`): the
fraction of positions with a trap of level at most 1, 3 and 5.

Results go to a JSON-lines file per (game, source), one line per position; a run resumes
where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ....agents import make_agent
from ....display import ShownAsTable, Table
from ....exact.traps import shallowest_trap
from ....games import make_game
from ....tournament.stats import wilson

GAMES = ("tictactoe", "connect4", "uttt")
SOURCES = ("random", "uct")
LEVELS = (1, 3, 5)
CENSUS_POSITIONS = 2000
"""Positions per (game, source) in the stored census."""
UCT_SPEC = "uct:iterations=200"
"""The self-play agent of the ``uct`` source."""


def _seed(*parts: object) -> int:
    text = "/".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def sample_position(game_spec: str, source: str, index: int):
    """The ``index``-th position of ``source`` in ``game_spec``: one seeded game, one uniformly random ply.

    Raises:
        ValueError: for an unknown source.
    """
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; known: {', '.join(SOURCES)}")
    game = make_game(game_spec)
    rng = random.Random(_seed(game_spec, source, index))
    agent = make_agent(UCT_SPEC, seed=_seed(game_spec, source, index, "agent")) if source == "uct" else None
    state, positions = game.initial_state(), []
    while not game.is_terminal(state):
        positions.append(state)
        move = rng.choice(game.legal_moves(state)) if agent is None else agent.select_move(game, state)
        state = game.apply(state, move)
    return game, positions[rng.randrange(len(positions))]


@dataclass(frozen=True)
class CensusRow:
    """The positions of one (game, source) and how many have a trap of level at most 1, 3, 5."""

    game: str
    source: str
    positions: int
    with_trap: tuple[int, ...]

    def rate(self, level: int) -> float:
        """The fraction of positions with a trap of level at most ``level``."""
        return self.with_trap[LEVELS.index(level)] / self.positions

    def ci(self, level: int, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of :meth:`rate`."""
        return wilson(self.with_trap[LEVELS.index(level)], self.positions, confidence)


@dataclass(frozen=True, repr=False)
class Census(ShownAsTable):
    """The census table: one :class:`CensusRow` per (game, source); shows itself as a table."""

    rows: tuple[CensusRow, ...]

    def row(self, game: str, source: str) -> CensusRow:
        """The row of ``game`` (its spec) and ``source``."""
        return next(r for r in self.rows if r.game == game and r.source == source)

    def as_table(self) -> Table:
        """Game, source, positions, and each level's rate with its 95% interval."""
        rows = []
        for r in self.rows:
            cells = [f"{r.rate(k):.2f} [{r.ci(k)[0]:.2f}, {r.ci(k)[1]:.2f}]" for k in LEVELS]
            rows.append([r.game, r.source, str(r.positions), *cells])
        headers = ["game", "positions from", "n", *(f"trap level <= {k}" for k in LEVELS)]
        return Table(headers, rows, align="llr" + "r" * len(LEVELS))


def run_census(
    out_dir: str | os.PathLike,
    positions: int,
    games: Sequence[str] = GAMES,
    sources: Sequence[str] = SOURCES,
    *,
    first: int = 0,
    progress: bool = True,
) -> Census:
    """Find (or read back) the shallowest trap of ``positions`` positions per (game, source).

    Args:
        out_dir: where ``census_<game>_<source>.jsonl`` live; lines there are reused.
        positions: positions per (game, source): indices ``first .. first + positions - 1``.
        games: game specs.
        sources: a subset of :data:`SOURCES`.
        first: the first position's index (a fresh sample: ``first`` past the stored census's).
        progress: a progress bar per (game, source).
    """
    rows = []
    for game_spec in games:
        for source in sources:
            path = Path(out_dir) / f"census_{game_spec.replace(':', '_')}_{source}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            found = _read(path)
            indices = range(first, first + positions)
            with path.open("a") as out:
                todo = [i for i in indices if i not in found]
                for i in _bar(todo, progress, f"{game_spec} {source}"):  # a bar only for work left to do
                    if i not in found:
                        game, state = sample_position(game_spec, source, i)
                        found[i] = shallowest_trap(game, state, max(LEVELS))
                        out.write(json.dumps({"index": i, "level": found[i]}) + "\n")
                        out.flush()
            levels = [found[i] for i in indices]
            counts = tuple(sum(lv is not None and lv <= k for lv in levels) for k in LEVELS)
            rows.append(CensusRow(game_spec, source, positions, counts))
    return Census(tuple(rows))


def _read(path: Path) -> dict[int, int | None]:
    found: dict[int, int | None] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run: redone
            found[record["index"]] = record["level"]
    return found


def _bar(items: list[int], progress: bool, desc: str) -> Iterable[int]:
    if not progress or not items:  # nothing to do: no bar (a notebook reading stored results stores none)
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, leave=False)
