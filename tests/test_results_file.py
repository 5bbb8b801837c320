"""Results files: reading never writes; files written by earlier versions are still read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mctslab import make_game
from mctslab.tournament import ResultsFileError, ResultsFileWarning, play_match, read_match, round_robin
from mctslab.tournament.results_file import ResultsFile

DATA = Path(__file__).parent / "data"
CHEAP = "flat:playouts=4"
RR_AGENTS = ["random", CHEAP, "flat:playouts=8"]


def _results_file(path: Path, games: int = 6) -> ResultsFile:
    """A ResultsFile for the match stored in ``match_v1.jsonl`` (header taken from that file)."""
    header = json.loads((DATA / "match_v1.jsonl").read_text().splitlines()[0])
    run_header = {k: v for k, v in header.items() if k not in ("format", "version")}
    schedule = {(0, i): i % 2 == 0 for i in range(games)}
    return ResultsFile(path, run_header, make_game("tictactoe"), schedule)


def test_a_match_file_written_by_the_previous_version_is_resumed_whole(tmp_path):
    out = tmp_path / "m.jsonl"
    shutil.copy(DATA / "match_v1.jsonl", out)
    before = out.read_bytes()
    resumed = play_match("tictactoe", CHEAP, "random", games=6, seed=7, workers=1, out=out, progress=False)
    fresh = play_match("tictactoe", CHEAP, "random", games=6, seed=7, workers=1, progress=False)
    assert resumed.resumed == 6 and resumed.as_dict() == fresh.as_dict()
    assert out.read_bytes() == before  # nothing to play, nothing written


def test_a_round_robin_file_written_by_the_previous_version_is_resumed_whole(tmp_path):
    out = tmp_path / "rr.jsonl"
    shutil.copy(DATA / "round_robin_v1.jsonl", out)
    resumed = round_robin("tictactoe", RR_AGENTS, games=2, seed=1, workers=1, out=out, progress=False)
    fresh = round_robin("tictactoe", RR_AGENTS, games=2, seed=1, workers=1, progress=False)
    assert sum(m.resumed for m in resumed.matches.values()) == 6
    assert resumed.as_dict() == fresh.as_dict()


def test_loading_a_file_with_a_damaged_last_line_does_not_change_it(tmp_path):
    out = tmp_path / "m.jsonl"
    text = (DATA / "match_v1.jsonl").read_text()
    out.write_text(text[: len(text) - 20])  # killed while writing the last game
    damaged = out.read_bytes()
    results_file = _results_file(out)
    games = results_file.load()
    assert sorted(games) == [(0, i) for i in range(5)]
    contents = results_file.read()
    assert contents.damaged_line == 7 and "incomplete" in contents.damage
    assert out.read_bytes() == damaged  # loading is read-only
    with pytest.warns(ResultsFileWarning, match="line 7: the line is incomplete"):
        assert results_file.open_for_append() == games
    assert out.read_text() == "".join(line + "\n" for line in text.splitlines()[:6])  # the damaged line is cut


def test_loading_a_missing_file_does_not_create_it_opening_it_writes_the_header(tmp_path):
    out = tmp_path / "sub" / "m.jsonl"
    results_file = _results_file(out)
    assert results_file.load() == {}
    assert not out.exists() and not out.parent.exists()
    assert results_file.open_for_append() == {}
    header = json.loads(out.read_text())
    assert header == json.loads((DATA / "match_v1.jsonl").read_text().splitlines()[0])


def test_another_runs_file_is_refused_on_load_and_left_alone(tmp_path):
    out = tmp_path / "m.jsonl"
    shutil.copy(DATA / "round_robin_v1.jsonl", out)
    before = out.read_bytes()
    with pytest.raises(ResultsFileError, match="kind"):
        _results_file(out).load()
    with pytest.raises(ResultsFileError, match="kind"):
        _results_file(out).open_for_append()
    assert out.read_bytes() == before


def test_games_beyond_the_schedule_are_kept_but_not_returned(tmp_path):
    out = tmp_path / "m.jsonl"
    shutil.copy(DATA / "match_v1.jsonl", out)
    assert sorted(_results_file(out, games=4).load()) == [(0, i) for i in range(4)]
    shorter = play_match("tictactoe", CHEAP, "random", games=4, seed=7, workers=1, out=out, progress=False)
    assert shorter.resumed == 4 and len(out.read_text().splitlines()) == 7


# -- each side's iterations ---------------------------------------------------------------
def test_each_game_records_both_sides_iterations_and_a_file_keeps_them(tmp_path):
    out = tmp_path / "m.jsonl"
    played = play_match("tictactoe", "uct:iterations=7", "random", games=4, seed=3, workers=1, out=out, progress=False)
    for r in played.results:  # 7 per move of UCT's; random plays without iterating
        a_moves = (r.plies + 1) // 2 if r.a_first else r.plies // 2
        assert r.iterations == (7 * a_moves, 0)
    assert played.iterations == (sum(r.iterations[0] for r in played.results), 0)
    lines = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert [tuple(g["iterations"]) for g in lines] == [r.iterations for r in played.results]
    back = play_match("tictactoe", "uct:iterations=7", "random", games=4, seed=3, workers=1, out=out, progress=False)
    assert back.resumed == 4 and [r.iterations for r in back.results] == [r.iterations for r in played.results]


def test_games_stored_without_iterations_read_as_none(tmp_path):
    out = tmp_path / "m.jsonl"
    shutil.copy(DATA / "match_v1.jsonl", out)  # written before iterations were recorded
    resumed = play_match("tictactoe", CHEAP, "random", games=6, seed=7, workers=1, out=out, progress=False)
    assert all(r.iterations is None for r in resumed.results) and resumed.iterations is None


def test_a_line_with_malformed_iterations_is_not_a_game_record(tmp_path):
    out = tmp_path / "m.jsonl"
    lines = (DATA / "match_v1.jsonl").read_text().splitlines()
    game = json.loads(lines[1])
    game["iterations"] = [3, -1]
    out.write_text("\n".join([lines[0], json.dumps(game), *lines[2:]]) + "\n")
    with pytest.raises(ResultsFileError, match="iterations must be two whole numbers"):
        _results_file(out).load()


def _append_then(monkeypatch, action):
    """Make the second batch's append first do ``action(path)`` (something done to the file mid-run)."""
    append = ResultsFile.append
    calls = []

    def append_after(self, results):
        calls.append(len(results))
        if len(calls) == 2:
            action(self.path)
        append(self, results)

    monkeypatch.setattr(ResultsFile, "append", append_after)


def test_a_results_file_deleted_during_a_run_is_written_again_whole_and_resumes(tmp_path, monkeypatch):
    # before: appending recreated it without its header; no run could resume it
    out = tmp_path / "m.jsonl"
    _append_then(monkeypatch, lambda path: path.unlink())
    with pytest.warns(ResultsFileWarning, match="was deleted during the run; wrote it again with its header and the 3"):
        first = play_match(
            "tictactoe", CHEAP, "random", games=9, seed=4, workers=1, batch_size=3, out=out, progress=False
        )
    monkeypatch.undo()
    again = play_match("tictactoe", CHEAP, "random", games=9, seed=4, workers=1, out=out, progress=False)
    assert again.resumed == 9 and again.as_dict() == first.as_dict()
    # the lock moved to the new file: another writer is refused while a run holds it
    holder = _results_file(out)
    with holder.lock(), pytest.raises(ResultsFileError, match="being written by another run"):
        play_match("tictactoe", CHEAP, "random", games=9, seed=4, workers=1, out=out, progress=False)


def test_a_results_file_replaced_during_a_run_stops_it_and_is_left_alone(tmp_path, monkeypatch):
    out = tmp_path / "m.jsonl"

    def replace_it(path):
        path.unlink()
        path.write_text("someone else's file\n")

    _append_then(monkeypatch, replace_it)
    with pytest.raises(ResultsFileError, match="was replaced by another file during the run"):
        play_match("tictactoe", CHEAP, "random", games=9, seed=4, workers=1, batch_size=3, out=out, progress=False)
    assert out.read_text() == "someone else's file\n"


def test_read_match_reads_a_finished_match_and_never_plays_or_writes(tmp_path):
    out = tmp_path / "m.jsonl"
    played = play_match("tictactoe", CHEAP, "random", games=6, seed=2, workers=1, out=out, progress=False)
    assert read_match("tictactoe", CHEAP, "random", 6, 2, out=out).as_dict() == played.as_dict()
    text = out.read_text()
    for name, damaged in [
        ("missing game", "".join(text.splitlines(True)[:-1])),
        ("cut last line", text[:-10]),
        ("repeated game", text + text.splitlines(True)[1]),
        ("empty", ""),
    ]:
        out.write_text(damaged)
        with pytest.raises(ResultsFileError) as err:
            read_match("tictactoe", CHEAP, "random", 6, 2, out=out)
        assert "\n" not in str(err.value) and out.read_text() == damaged, name


@pytest.mark.parametrize("kind", ["symbolic", "dangling", "hard"])
def test_a_results_file_that_is_a_link_onto_another_file_is_refused_and_left_alone(tmp_path, kind):
    # before: the header was written through the link (a dangling one created its target)
    source = tmp_path / "source.py"
    if kind != "dangling":
        source.write_text("" if kind == "hard" else "print('a source file')\n")
    out = tmp_path / "m.jsonl"
    (out.hardlink_to if kind == "hard" else out.symlink_to)(source)
    before = source.read_text() if source.exists() else None
    with pytest.raises(ResultsFileError, match="never through a link"):
        play_match("tictactoe", CHEAP, "random", games=2, seed=1, workers=1, out=out, progress=False)
    assert (source.read_text() if source.exists() else None) == before


def test_read_match_refuses_a_file_that_a_run_is_writing(tmp_path):
    out = tmp_path / "m.jsonl"
    play_match("tictactoe", CHEAP, "random", games=6, seed=2, workers=1, out=out, progress=False)
    writer = _results_file(out)
    with writer.lock(), pytest.raises(ResultsFileError, match="is being written by a run"):
        read_match("tictactoe", CHEAP, "random", 6, 2, out=out)
    assert read_match("tictactoe", CHEAP, "random", 6, 2, out=out).games == 6  # once it has ended
