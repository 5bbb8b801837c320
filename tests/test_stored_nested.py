"""Notebook 12c's stored runs (mctslab.course.experiments.nested): complete, and made again from their seeds."""

from __future__ import annotations

import json
import random

import pytest

from mctslab import make_game, play_game
from mctslab.agents.nmcs import nested_search
from mctslab.course.editions import DATA_FOLDER, NOTEBOOKS
from mctslab.course.experiments import nested
from mctslab.course.experiments.seeded_records import RecordFileError
from mctslab.exact import samegame_optimum

DATA = NOTEBOOKS / DATA_FOLDER / "12c_nested_search"
BOARDS, LEVELS = 30, (1, 2, 3)  # the notebook's section 3
LEFTMOVE, RUNS, TOY_LEVELS = make_game("leftmove:depth=12"), 400, (0, 1, 2, 3)  # its section 6


def _lines(name: str) -> tuple[dict, list[dict]]:
    header, *records = (json.loads(line) for line in (DATA / name).read_text().splitlines())
    return header, records


def test_every_board_of_notebook_12c_is_stored_solved_and_played_at_every_level():
    header, records = _lines("samegame_boards.jsonl")
    assert (header["kind"], header["boards"], header["agent"]) == ("nested_boards", nested.BOARD, nested.AGENT)
    assert sorted(r["board"] for r in records if "level" not in r) == list(range(BOARDS))
    assert sorted((r["board"], r["level"]) for r in records if "level" in r) == [
        (b, level) for b in range(BOARDS) for level in LEVELS
    ]
    runs = nested.board_runs(range(BOARDS), LEVELS, DATA / "samegame_boards.jsonl")  # reads; replays every game
    assert all(score <= best for _, _, score, best in runs)


@pytest.mark.parametrize("board", [12, 13])  # boards whose levels score differently, cheap to solve
def test_a_stored_board_is_solved_and_played_again_from_its_seed(board):
    _, records = _lines("samegame_boards.jsonl")
    game = make_game(nested.BOARD.format(seed=board))
    assert next(r["optimum"] for r in records if r["board"] == board and "level" not in r) == (
        samegame_optimum(game).score
    )
    for level in LEVELS:  # played again, nothing kept
        stored = next(r for r in records if r["board"] == board and r.get("level") == level)
        moves = play_game(game, [nested.AGENT.format(level=level)], seed=board).moves
        assert list(moves) == stored["moves"] and game.score(game.state_from_moves(moves)) == stored["score"]


def test_every_toy_search_of_notebook_12c_is_stored_and_the_first_are_searched_again():
    header, _ = _lines("leftmove_scores.jsonl")
    assert (header["kind"], header["game"]) == ("nested_toy", LEFTMOVE.spec)
    stored = nested.toy_scores(LEFTMOVE, TOY_LEVELS, RUNS, DATA / "leftmove_scores.jsonl")
    assert {level: len(scores) for level, scores in stored.items()} == dict.fromkeys(TOY_LEVELS, RUNS)
    assert len((DATA / "leftmove_scores.jsonl").read_text().splitlines()) == 1 + 4 * RUNS // 100  # nothing added
    for level in TOY_LEVELS:
        for seed in range(3):
            found = nested_search(LEFTMOVE, (), level, random.Random(seed))
            assert LEFTMOVE.score(LEFTMOVE.state_from_moves(found.moves)) == stored[level][seed], (level, seed)


def test_from_an_empty_folder_the_runs_are_computed_stored_and_resumed(tmp_path):
    boards, toy = tmp_path / "data" / "boards.jsonl", tmp_path / "data" / "toy.jsonl"
    fresh = nested.board_runs([7, 12], (1, 2))
    assert nested.board_runs([7], (1,), boards) == fresh[:1]  # a shorter run, then the whole one
    assert nested.board_runs([7, 12], (1, 2), boards) == nested.board_runs([7, 12], (1, 2), boards) == fresh
    assert len(boards.read_text().splitlines()) == 1 + 2 + 4
    game = make_game("leftmove:depth=6")
    fresh_toy = nested.toy_scores(game, (0, 2), 5)
    assert nested.toy_scores(game, (0, 2), 3, toy) == {level: s[:3] for level, s in fresh_toy.items()}
    assert nested.toy_scores(game, (0, 2), 5, toy) == nested.toy_scores(game, (0, 2), 5, toy) == fresh_toy
    text = boards.read_text()
    boards.write_text(text.replace('"score":', '"score":1', 1))
    with pytest.raises(RecordFileError, match="does not score"):
        nested.board_runs([7, 12], (1, 2), boards)
    boards.write_text(text.replace("seed={seed}", "seed={seed},colors=5"))
    with pytest.raises(RecordFileError, match="its boards is"):
        nested.board_runs([7, 12], (1, 2), boards)
