"""Notebook 12c's experiments: Nested Monte Carlo Search against exact answers, with stored runs.

* :func:`board_runs`: seeded SameGame boards (:data:`BOARD`), each solved exactly
  (:func:`mctslab.exact.samegame_optimum`) and played once by the agent :data:`AGENT` at
  each level, through :func:`mctslab.play_game` seeded with the board's seed;
* :func:`toy_scores`: seeded searches (:func:`mctslab.agents.nmcs.nested_search` with
  ``random.Random(seed)``, ``seed = 0, 1, ...``) on a toy puzzle of :mod:`mctslab.exact.binarytree`.

Each takes ``out``, a stored run (:class:`~mctslab.course.experiments.seeded_records.RecordFile`):
what it holds is read, what is missing is computed and appended (an interrupted run resumes).
The notebook's stored runs are in ``notebooks/data/12c_nested_search/``; to regenerate them,
delete that folder and run the notebook (about 20 s of CPU).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Sequence

from tqdm.auto import tqdm

from ...agents.nmcs import nested_search
from ...exact import samegame_optimum
from ...games import Game, make_game
from ...play import play_game
from .seeded_records import Appender, RecordFile, RecordFileError, indexed

BOARD = "samegame:rows=6,cols=6,colors=4,seed={seed}"
"""The boards of :func:`board_runs`: 6 x 6 with four colours, board ``seed``."""
AGENT = "nmcs:level={level}"
"""The agent of :func:`board_runs` at each level."""

Run = tuple[int, int, int, int]
"""One play of :func:`board_runs`: (board seed, level, score, the board's exact optimum)."""


def board_runs(
    seeds: Iterable[int], levels: Sequence[int], out: str | os.PathLike | None = None, progress: bool = False
) -> list[Run]:
    """Each board of ``seeds``, solved exactly and played by :data:`AGENT` at each of ``levels``.

    The game of board ``s`` at level ``L`` is ``play_game(board, ["nmcs:level=L"], seed=s)``;
    its score is the final position's ``board.score``.

    Args:
        seeds: the boards (:data:`BOARD`'s seeds).
        levels: the nesting levels, >= 1.
        out: a stored run, or ``None`` (compute everything, store nothing). It holds one
            record ``{"board": s, "optimum": score}`` per board and one record
            ``{"board": s, "level": L, "score": score, "moves": [...]}`` per game.
        progress: show a ``tqdm`` progress bar counting the boards.

    Returns:
        One :data:`Run` per board and level, board by board, levels in the order given.

    Raises:
        RecordFileError: ``out`` holds another run, or a game whose moves do not end with
            its score.
    """
    store = None if out is None else RecordFile(out, {"kind": "nested_boards", "boards": BOARD, "agent": AGENT})
    optima, games = {}, {}
    for record in [] if store is None else store.read():
        if "level" in record:
            games[record["board"], record["level"]] = record
        else:
            optima[record["board"]] = record["optimum"]
    runs = []
    for seed in tqdm(list(seeds), desc="boards", disable=not progress):
        board = make_game(BOARD.format(seed=seed))
        new = []
        if seed not in optima:
            optima[seed] = samegame_optimum(board).score
            new.append({"board": seed, "optimum": optima[seed]})
        for level in levels:
            record = games.get((seed, level))
            if record is None:
                moves = play_game(board, [AGENT.format(level=level)], seed=seed).moves
                record = {"board": seed, "level": level, "score": _score(board, moves), "moves": list(moves)}
                new.append(record)
            elif _score(board, record["moves"]) != record["score"]:
                raise RecordFileError(f"{out}: board {seed}'s game at level {level} does not score {record['score']}")
            runs.append((seed, level, record["score"], optima[seed]))
        if store is not None and new:
            store.append(new)
    return runs


def _score(board: Game, moves: Sequence) -> int:
    return board.score(board.state_from_moves(moves))


SCORES_PER_RECORD = 100
"""Searches per record of a stored run of :func:`toy_scores`."""


def toy_scores(
    game: Game, levels: Sequence[int], runs: int, out: str | os.PathLike | None = None, progress: bool = False
) -> dict[int, list[int]]:
    """The score of ``runs`` seeded searches at each level: ``nested_search(game, (), level, random.Random(seed))``.

    Args:
        game: a toy puzzle of :mod:`mctslab.exact.binarytree` (its start is the empty path ``()``).
        levels: the nesting levels, >= 0.
        runs: searches per level; search ``seed`` uses ``random.Random(seed)``, ``seed = 0 .. runs - 1``.
        out: a stored run, or ``None`` (compute everything, store nothing); records
            ``{"level": L, "first": s, "scores": [...]}`` hold the scores of searches ``s, s + 1, ...``.
        progress: show a ``tqdm`` progress bar counting the levels.

    Returns:
        ``{level: [score of search 0, search 1, ...]}``.

    Raises:
        RecordFileError: ``out`` holds another run or a damaged record.
    """
    header = {"kind": "nested_toy", "game": game.spec, "search": "nested_search(game, (), level, random.Random(seed))"}
    store = None if out is None else RecordFile(out, header)
    stored = {} if store is None else indexed(store.read(), "level", "scores")
    scores = {}
    for level in tqdm(levels, desc="levels", disable=not progress):
        new = Appender(store, {"level": level}, "scores", SCORES_PER_RECORD)
        scores[level] = []
        for seed in range(runs):
            score = stored.get((level, seed))
            if score is None:
                score = _score(game, nested_search(game, (), level, random.Random(seed)).moves)
                new.add(seed, score)
            scores[level].append(score)
        new.flush()
    return scores
