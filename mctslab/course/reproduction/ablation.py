"""Which defect makes Racioppo 2020's window 3 weak as O: a precomputed ablation with many games.

Window 3 as O ("random X vs window 3 (MC 100) as O", In [154]) is the one row of Racioppo
2020's tables where the windowed player's defects (``index`` and ``threshold``) act, and
its differences are a few percent: 500 games per variant cannot tell them apart. This
module plays the row under the paper's procedure, with each defect switched off in turn
("without ..."), with each defect alone ("only ..."), and corrected, many thousands of
games each, and stores the counts in a small JSON file that notebook 08 (and 03) load.

The run is one tournament schedule (:func:`mctslab.tournament.schedule.play_schedule`):
pairing ``v`` is variant ``v`` (X against O, X always first), its games are counted in
chunks of ``chunk_games``, and game ``i`` of chunk ``c`` is seeded with
``game_seed(row_seed(seed, row, "corrected"), (c, i))``, the same seeds for every variant
(common random numbers). The games go to a results file (one JSON line per game, the
tournament's format), so an interrupted run loses at most the games in flight and picks up
where it stopped; the small JSON file that the notebooks load holds their counts per
variant and chunk, written from the results file at the end. Regenerate with::

    nice -n 10 python -m mctslab.course.reproduction.ablation --games 20000

Window-1 rows need no simulation: :mod:`mctslab.course.reproduction.exact_rows` computes them exactly.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path

from ...games import make_game
from ...tournament.match import seed_header
from ...tournament.records import GameResult, GameTask
from ...tournament.schedule import play_schedule
from ...validation import positive_int
from ..experiments.tables import PanelTable
from .agent import DEFECTS
from .experiments import row_seed
from .rows import PAPER_ROWS, Row
from .table import Measurement

DATA_FILE = Path(__file__).with_name("data") / "ablation_w3-o.json"
"""The stored ablation of window 3 as O (seed 2020, 20,000 games per variant): counts per chunk."""

GAMES_FILE = Path("ablation_w3-o.games.jsonl")
"""Where :func:`main` writes the games by default (in the current folder): a results file of
about 30 MB at 20,000 games per variant, kept to resume or extend the run, not shipped."""

ACTING = ("check", "index", "threshold", "ties")
"""The defects that act when O searches against a random X: ``turn`` acts only on X's evaluations."""


def ablation_variants(acting: tuple[str, ...] = ACTING) -> dict[str, tuple[str, ...]]:
    """The variants, in display order: ``name -> defects switched on``.

    ``"paper"`` (every defect), ``"without d"`` for each acting defect ``d`` (every defect
    but ``d``: what switching ``d`` off changes), ``"corrected"`` (none) and ``"only d"``
    (``d`` alone: what ``d`` does by itself). A defect that cannot act on the row (``turn``,
    when X plays at random) would only repeat ``"paper"`` and ``"corrected"``, so it is left out.
    """
    variants = {"paper": tuple(DEFECTS)}
    variants.update({f"without {d}": tuple(e for e in DEFECTS if e != d) for d in acting})
    variants["corrected"] = ()
    variants.update({f"only {d}": (d,) for d in acting})
    return variants


def variant_row(row: Row, defects: tuple[str, ...]) -> Row:
    """``row`` with its agents' procedure replaced by exactly ``defects``."""
    text = "defects=" + ("-".join(defects) or "none")
    return replace(row, x=row.x.replace("procedure={procedure}", text), o=row.o.replace("procedure={procedure}", text))


def chunk_tasks(pair: int, chunk: int, chunk_games: int) -> list[GameTask]:
    """The games of chunk ``chunk`` of pairing ``pair``: X (A) first, game ``i`` seeded at ``(chunk, i)``."""
    return [GameTask(pair, chunk * chunk_games + i, True, (chunk, i)) for i in range(chunk_games)]


def chunk_counts(results: Sequence[GameResult]) -> tuple[int, int, int]:
    """``(X wins, O wins, draws)`` of games where X is A."""
    x = sum(r.winner == "a" for r in results)
    o = sum(r.winner == "b" for r in results)
    return (x, o, len(results) - x - o)


def ablation_chunk(
    row: Row,
    defects: tuple[str, ...],
    chunk: int,
    chunk_games: int,
    seed: int,
    *,
    executor: Executor | None = None,
    workers: int | None = 1,
) -> tuple[int, int, int]:
    """``(X wins, O wins, draws)`` of chunk ``chunk`` of the ablation of ``row`` with ``defects`` on (nothing kept)."""
    game = make_game("tictactoe")
    root = row_seed(seed, row, "corrected")
    pairs = [variant_row(row, defects).agents("corrected")]
    tasks = chunk_tasks(0, chunk, chunk_games)
    played = play_schedule(game, pairs, root, tasks, header={}, executor=executor, workers=workers, progress=False)
    return chunk_counts(played.results)


def precompute_ablation(
    path: str | os.PathLike = DATA_FILE,
    *,
    games_file: str | os.PathLike = GAMES_FILE,
    row_key: str = "w3-o",
    games: int = 20_000,
    chunk_games: int = 500,
    seed: int = 2020,
    workers: int | None = None,
    progress: bool = True,
) -> dict:
    """Play (or finish playing) the ablation into ``games_file``, store its counts at ``path``; returns them.

    Games already in ``games_file`` (same row, seed and chunk size) are read, not played
    again. ``games`` is rounded up to whole chunks.

    Raises:
        ValueError: if ``games_file`` holds another run, or ``path`` holds chunks that
            ``games_file`` does not (give the games file they were played into).
    """
    games, chunk_games = positive_int("games", games), positive_int("chunk_games", chunk_games)
    row = next(r for r in PAPER_ROWS if r.key == row_key)
    variants = ablation_variants()
    pairs = [variant_row(row, defects).agents("corrected") for defects in variants.values()]
    chunks = -(-games // chunk_games)
    # Chunk by chunk across the variants, so that a stopped run leaves them all with about as many games.
    tasks = [t for c in range(chunks) for v in range(len(pairs)) for t in chunk_tasks(v, c, chunk_games)]
    root = row_seed(seed, row, "corrected")
    header = {"kind": "ablation", "game": "tictactoe", "row": row.key, "variants": list(variants),
              "agents": [list(p) for p in pairs], "seed": seed_header(root), "seats": "a-first",
              "chunk_games": chunk_games}  # fmt: skip
    game = make_game("tictactoe")
    played = play_schedule(
        game, pairs, root, tasks, header=header, out=games_file, workers=workers, progress=progress, desc="ablation"
    )
    by_chunk: dict[tuple[int, int], list[GameResult]] = {}
    for r in played.results:
        by_chunk.setdefault((r.pair, r.index // chunk_games), []).append(r)
    data = {"row": row.key, "label": row.label, "seed": seed, "chunk_games": chunk_games, "chunks": {}}
    for (v, c), results in sorted(by_chunk.items()):
        data["chunks"].setdefault(list(variants)[v], {})[str(c)] = list(chunk_counts(results))
    _check_nothing_lost(Path(path), data)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)
    return data


def _check_nothing_lost(path: Path, data: dict) -> None:
    """Refuse to replace stored counts with fewer: ``path`` must hold no chunk the new counts lack."""
    if not path.exists():
        return
    old = json.loads(path.read_text())
    missing = sorted({c for name, chunks in old.get("chunks", {}).items() for c in chunks} - {
        c for chunks in data["chunks"].values() for c in chunks
    }, key=int)  # fmt: skip
    if any(old.get(k) != data[k] for k in ("row", "seed", "chunk_games")) or missing:
        raise ValueError(
            f"{path} holds counts (chunks {', '.join(missing) or 'of another run'}) that the games file does not; "
            "give the games file they were played into (games_file=, --games-file) or another path"
        )


def load_ablation(path: str | os.PathLike = DATA_FILE) -> dict[str, Measurement]:
    """The stored ablation: ``variant -> Measurement``, in display order.

    Every variant is summed over the same chunks (0, 1, ... up to the last chunk that every
    variant has), so all variants have the same games and seeds.

    Raises:
        FileNotFoundError: if nothing is stored at ``path`` (run :func:`precompute_ablation`).
        ValueError: if a variant has no chunk 0.
    """
    data = json.loads(Path(path).read_text())
    stored = {name: data["chunks"].get(name, {}) for name in ablation_variants()}
    common = 0
    while all(str(common) in chunks for chunks in stored.values()):
        common += 1
    if common == 0:
        raise ValueError(f"{path}: some variant has no games yet; run precompute_ablation")
    return {
        name: Measurement(name, tuple(sum(chunks[str(c)][i] for c in range(common)) for i in range(3)))
        for name, chunks in stored.items()
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m mctslab.course.reproduction.ablation``: play or resume the stored ablation."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per variant (default 20000)")
    parser.add_argument("--chunk-games", type=int, default=500, help="games per stored chunk (default 500)")
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    parser.add_argument("--out", default=str(DATA_FILE), help="the JSON file of counts the notebooks load")
    parser.add_argument("--games-file", default=str(GAMES_FILE), help="the games' results file (resumed if it exists)")
    args = parser.parse_args(argv)
    precompute_ablation(
        args.out,
        games_file=args.games_file,
        games=args.games,
        chunk_games=args.chunk_games,
        seed=args.seed,
        workers=args.workers,
    )
    for name, m in load_ablation(args.out).items():
        print(f"{name:>20}: {m.counts} of {m.games}")
    return 0


def ablation_table(measured: dict[str, Measurement], title: str = "") -> PanelTable:
    """The ablation as a :class:`~mctslab.course.experiments.tables.PanelTable`: rates with Wilson 95% intervals."""
    rows = []
    for name, m in measured.items():
        cells = [
            f"{p:.1f} [{low:.1f}, {high:.1f}]" for p, (low, high) in zip(m.percentages, m.intervals(), strict=True)
        ]
        rows.append([name, *cells])
    games = {m.games for m in measured.values()}
    note = f"{'/'.join(str(g) for g in sorted(games))} games per variant, the same seeds for all; Wilson 95% intervals"
    return PanelTable(["variant", "X wins %", "O wins %", "draws %"], rows, title=title, note=note)


if __name__ == "__main__":
    raise SystemExit(main())
