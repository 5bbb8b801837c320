"""Matches of games with chance and hidden information: chance outcomes recorded among the moves, replayable,
the same whatever the workers and when resumed; games not of two players refused in one line."""

from __future__ import annotations

import json

import pytest
from toy_games import CountingPuzzle, DiceDuel, HighCard, ThreeWayRace

from mctslab import play_match
from mctslab.cli import main
from mctslab.games import CHANCE, GAMES, register_game
from mctslab.tournament import read_match


@pytest.fixture
def toy_registered():
    """DiceDuel and HighCard registered for the length of one test (the workers are forked from it)."""
    added = {"diceduel": DiceDuel, "highcard": HighCard}
    for name, cls in added.items():
        register_game(name, cls, summary="a toy game of tests/toy_games.py")
    yield
    for name in added:
        GAMES.pop(name, None)


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def results(match):
    return [(r.moves, r.winner, r.returns, r.a_first) for r in match.results]


AGENTS = {"diceduel": ("flat:playouts=8", "random"), "highcard": ("random", "random")}


@pytest.mark.parametrize("spec", sorted(AGENTS))
def test_chance_outcomes_are_recorded_among_the_moves_and_replay_the_game(toy_registered, spec, tmp_path):
    out = tmp_path / "m.jsonl"
    match = play_match(spec, *AGENTS[spec], games=8, seed=4, workers=1, out=out, progress=False)
    game = {"diceduel": DiceDuel, "highcard": HighCard}[spec]()
    chance_moves = 0
    for result in match.results:
        state = game.initial_state()
        for move in result.moves:
            chance_moves += game.to_move(state) == CHANCE
            state = game.play(state, move)  # every move, chance's too, is legal where it was made
        assert game.is_terminal(state)
        winner = game.winner(state)
        seat_a = 0 if result.a_first else 1
        assert result.winner == (None if winner is None else "a" if winner == seat_a else "b")
    assert chance_moves >= 8 * (6 if spec == "diceduel" else 2)  # six rolls, or two deals, a game
    assert [tuple(d["moves"]) for d in lines(out)[1:]] == [r.moves for r in match.results]


@pytest.mark.parametrize("spec", sorted(AGENTS))
def test_a_chance_match_is_the_same_with_one_or_two_workers_and_run_again(toy_registered, spec):
    runs = [
        play_match(spec, *AGENTS[spec], games=10, seed=7, workers=w, batch_size=2, progress=False) for w in (1, 2, 1)
    ]
    assert results(runs[0]) == results(runs[1]) == results(runs[2])
    other = play_match(spec, *AGENTS[spec], games=10, seed=8, workers=1, progress=False)
    assert results(other) != results(runs[0])  # another seed, other dice


def test_a_resumed_chance_match_gives_the_same_results(toy_registered, tmp_path):
    whole = play_match("diceduel", *AGENTS["diceduel"], games=8, seed=3, workers=1, progress=False)
    out = tmp_path / "m.jsonl"
    play_match("diceduel", *AGENTS["diceduel"], games=8, seed=3, workers=1, out=out, progress=False)
    kept = out.read_text().splitlines()[:4]  # the header and three games: as if stopped there
    out.write_text("\n".join(kept) + "\n")
    resumed = play_match("diceduel", *AGENTS["diceduel"], games=8, seed=3, workers=2, out=out, progress=False)
    assert resumed.resumed == 3 and results(resumed) == results(whole)
    again = read_match("diceduel", *AGENTS["diceduel"], games=8, seed=3, out=out)
    assert results(again) == results(whole)


@pytest.mark.parametrize(("game", "players"), [(CountingPuzzle(), "one-player"), (ThreeWayRace(), "3-player")])
def test_a_match_refuses_a_game_not_of_two_players_in_one_line(game, players):
    with pytest.raises(ValueError, match=f"{game.spec} is a {players} game") as err:
        play_match(game, "random", "random", games=2, workers=1, progress=False)
    assert "\n" not in str(err.value) and "play_game" in str(err.value)


def test_the_command_line_plays_a_chance_match_the_same_with_one_or_two_workers(toy_registered, tmp_path, capsys):
    files = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}.jsonl"
        argv = ["match", "diceduel", "flat:playouts=8", "random", "--games", "6", "--seed", "2"]
        assert main([*argv, "--workers", str(workers), "--out", str(out), "--no-progress"]) == 0
        files.append(sorted((d["index"], d["moves"], d["winner"]) for d in lines(out)[1:]))  # written as finished
    assert files[0] == files[1] and len(files[0]) == 6
    assert "flat" in capsys.readouterr().out


def test_the_command_line_move_refuses_a_chance_node_in_one_line(toy_registered, capsys):
    assert main(["move", "diceduel", "random", "--moves", "1"]) == 2
    err = capsys.readouterr().err
    assert "chance moves after moves 1, not an agent" in err and "0 (1/2), 5 (1/2)" in err and err.count("\n") == 1
    assert main(["move", "diceduel", "random", "--moves", "1,5"]) == 0
