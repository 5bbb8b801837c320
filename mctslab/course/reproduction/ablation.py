"""Which defect makes Racioppo 2020's window 3 weak as O: a precomputed ablation with many games.

Window 3 as O ("random X vs window 3 (MC 100) as O", In [154]) is the one row of Racioppo
2020's tables where the windowed player's defects (``index`` and ``threshold``) act, and
its differences are a few percent: 500 games per variant cannot tell them apart. This
module plays the row under the paper's procedure, with each defect switched off in turn
("without ..."), with each defect alone ("only ..."), and corrected, many thousands of
games each, and stores the counts in a small JSON file that notebook 08 (and 03) load.

The run is seeded and resumable: the games of each variant are played in chunks, chunk
``c`` seeded with ``game_seed(row_seed(seed, row, "corrected"), (c,))`` (the same seeds for
every variant: common random numbers), and the file is rewritten after each chunk, so an
interrupted run loses at most one chunk and picks up where it stopped. Regenerate with::

    nice -n 10 python -m mctslab.course.reproduction.ablation --games 20000

Window-1 rows need no simulation: :mod:`mctslab.course.reproduction.exact_rows` computes them exactly.
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from tqdm.auto import tqdm

from ...tournament import play_match
from ...tournament.runner import game_seed
from ...validation import positive_int
from ..experiments.tables import Table
from .agent import DEFECTS
from .experiments import row_seed
from .rows import PAPER_ROWS, Row
from .table import Measurement

DATA_FILE = Path(__file__).with_name("data") / "ablation_w3-o.json"
"""The stored ablation of window 3 as O (seed 2020, 20,000 games per variant)."""


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
    """``(X wins, O wins, draws)`` of chunk ``chunk`` of the ablation of ``row`` with ``defects`` on."""
    v = variant_row(row, defects)
    x, o = v.agents("corrected")
    chunk_seed = game_seed(row_seed(seed, row, "corrected"), (chunk,))
    result = play_match(
        "tictactoe", x, o, chunk_games, chunk_seed, seats="a-first", executor=executor, workers=workers, progress=False
    )
    out = result.outcomes
    return (out.wins, out.losses, out.draws)


def precompute_ablation(
    path: str | os.PathLike = DATA_FILE,
    *,
    row_key: str = "w3-o",
    games: int = 20_000,
    chunk_games: int = 500,
    seed: int = 2020,
    workers: int | None = None,
    progress: bool = True,
) -> dict:
    """Play (or finish playing) the ablation and store it at ``path``; returns the stored data.

    Chunks already in the file (same row, seed and chunk size) are kept, so an interrupted
    run resumes. ``games`` is rounded up to whole chunks.

    Raises:
        ValueError: if ``path`` holds another run (other row, seed or chunk size).
    """
    games, chunk_games = positive_int("games", games), positive_int("chunk_games", chunk_games)
    row = next(r for r in PAPER_ROWS if r.key == row_key)
    header = {"row": row.key, "label": row.label, "seed": seed, "chunk_games": chunk_games}
    path = Path(path)
    data = json.loads(path.read_text()) if path.exists() else {**header, "chunks": {}}
    if any(data.get(k) != v for k, v in header.items() if k != "label"):
        raise ValueError(f"{path} holds another run ({ {k: data.get(k) for k in header} }); use another path")
    chunks = -(-games // chunk_games)
    # Chunk by chunk across the variants, so that a stopped run leaves them all with about as many games.
    todo = [
        (name, c) for c in range(chunks) for name in ablation_variants() if str(c) not in data["chunks"].get(name, {})
    ]
    pool = ProcessPoolExecutor(workers) if workers != 1 else None
    try:
        for name, c in tqdm(todo, desc=f"ablation of {row.key}", disable=not progress):
            counts = ablation_chunk(row, ablation_variants()[name], c, chunk_games, seed, executor=pool, workers=1)
            data["chunks"].setdefault(name, {})[str(c)] = list(counts)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            tmp.replace(path)  # written whole after each chunk: an interruption loses at most one chunk
    finally:
        if pool is not None:
            pool.shutdown()
    return data


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
    parser.add_argument("--out", default=str(DATA_FILE), help="the JSON file (resumed if it exists)")
    args = parser.parse_args(argv)
    precompute_ablation(args.out, games=args.games, chunk_games=args.chunk_games, seed=args.seed, workers=args.workers)
    for name, m in load_ablation(args.out).items():
        print(f"{name:>20}: {m.counts} of {m.games}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def ablation_table(measured: dict[str, Measurement], title: str = "") -> Table:
    """The ablation as a :class:`~mctslab.course.experiments.tables.Table`: rates with Wilson 95% intervals."""
    rows = []
    for name, m in measured.items():
        cells = [
            f"{p:.1f} [{low:.1f}, {high:.1f}]" for p, (low, high) in zip(m.percentages, m.intervals(), strict=True)
        ]
        rows.append([name, *cells])
    games = {m.games for m in measured.values()}
    note = f"{'/'.join(str(g) for g in sorted(games))} games per variant, the same seeds for all; Wilson 95% intervals"
    return Table(["variant", "X wins %", "O wins %", "draws %"], rows, title=title, note=note)
