"""Property-based fuzzing (hypothesis) of what users type: specs, moves, command-line numbers and
results-file lines. Every input either works or raises the one documented error; nothing else
(no IndexError, OverflowError, RecursionError... from deep inside). Runs in a few seconds."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mctslab import make_agent, make_game, play_match
from mctslab.agents import AGENTS, Agent
from mctslab.cli import move_list, positive_int, seed_int
from mctslab.games import GAMES, Game, IllegalMoveError, InvalidStateError
from mctslab.specs import SpecError
from mctslab.tournament import ResultsFileError
from mctslab.tournament.results_file import ResultsFile

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

# spec-like text: names, separators and values, mixed with anything
SPEC_PIECES = [*AGENTS, *GAMES, ":", ",", "=", "-", "iterations", "c", "seconds", "depth", "playouts", "n", "k"]
SPEC_PIECES += ["rows", "cols", "heaps", "inf", "nan", "1e400", "0", "-1", "true", "2", "3.5", " ", "half", "🙂"]
spec_text = st.one_of(st.lists(st.sampled_from(SPEC_PIECES), max_size=8).map("".join), st.text(max_size=30))


@FAST
@given(spec_text)
def test_an_agent_spec_builds_an_agent_that_round_trips_or_is_a_spec_error(spec):
    try:
        agent = make_agent(spec, seed=0)
    except SpecError:
        return
    assert isinstance(agent, Agent)
    assert make_agent(agent.spec, seed=0).parameters() == agent.parameters()


@FAST
@given(spec_text)
def test_a_game_spec_builds_a_game_that_round_trips_or_is_a_spec_error(spec):
    try:
        game = make_game(spec)
    except SpecError:
        return
    assert isinstance(game, Game) and make_game(game.spec) == game


any_value = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=-2, max_value=90),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_moves_either_play_or_raise_the_documented_error(name):
    game = make_game(name)

    @FAST
    @given(st.lists(any_value, max_size=12))
    def check(moves):
        try:
            state = game.state_from_moves(moves)
        except (IllegalMoveError, TypeError) as err:
            assert str(err)
            return
        game.check_state(state)  # what play() returns is a state of the game

    check()


@FAST
@given(
    st.sampled_from(sorted(GAMES)), st.sampled_from(sorted(GAMES)), st.lists(st.integers(0, 80), max_size=6), any_value
)
def test_play_on_any_state_of_any_game_plays_or_raises_the_documented_error(name, other, moves, move):
    game, source = make_game(name), make_game(other)
    state = source.initial_state()
    for m in moves:  # a position of the other game, reached by its own legal moves
        legal = source.legal_moves(state)
        if not legal:
            break
        state = source.apply(state, legal[m % len(legal)])
    try:
        game.play(state, move)
    except (InvalidStateError, IllegalMoveError, TypeError) as err:
        assert str(err)


@FAST
@given(st.text(max_size=25))
def test_command_line_numbers_are_parsed_strictly(text):
    for parse, low in ((positive_int, 1), (seed_int, 0)):
        try:
            value = parse(text)
        except argparse.ArgumentTypeError:
            continue
        assert type(value) is int and value >= low and text == str(value).rjust(len(text), "0")
    try:
        moves = move_list(text)
    except argparse.ArgumentTypeError:
        return
    assert all(type(m) is int for m in moves)


# -- results-file lines ----------------------------------------------------------------
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
RECORD_KEYS = ["pair", "index", "a_first", "winner", "returns", "seconds", "moves", "plies"]
record_like = st.fixed_dictionaries({}, optional={k: json_values for k in RECORD_KEYS})


def _lines(raw: str | bytes) -> bytes:
    return raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")


fuzz_line = st.one_of(
    json_values.map(json.dumps),
    record_like.map(json.dumps),
    st.binary(max_size=40),
    st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth),
    st.text(max_size=40).filter(lambda t: "\n" not in t),
)


@pytest.fixture(scope="module")
def recorded():
    """A results file of 4 games (header and lines), made once."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "m.jsonl"
        play_match("tictactoe", "random", "random", games=4, seed=1, workers=1, progress=False, out=out)
        yield out.read_bytes().splitlines()


def _reader(path: Path, header: bytes) -> ResultsFile:
    run = {k: v for k, v in json.loads(header).items() if k not in ("format", "version")}
    return ResultsFile(path, run, make_game("tictactoe"), {(0, i): i % 2 == 0 for i in range(4)})


def test_any_middle_line_that_is_not_a_game_record_is_the_damaged_file_error(recorded):
    @FAST
    @given(fuzz_line)
    def check(line):
        line = _lines(line).replace(b"\n", b" ")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "m.jsonl"
            path.write_bytes(b"\n".join([recorded[0], recorded[1], line, recorded[2]]) + b"\n")
            try:
                contents = _reader(path, recorded[0]).read()
            except ResultsFileError as err:
                assert "line 3" in str(err) and "damaged before its last line" in str(err)
                return
            # only a line that is itself a game record of this run may pass
            assert len(contents.games) == 3 and contents.damage is None

    check()


def test_any_last_line_that_is_not_a_game_record_is_reported_not_counted(recorded):
    @FAST
    @given(fuzz_line)
    def check(line):
        line = _lines(line).replace(b"\n", b" ")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "m.jsonl"
            path.write_bytes(b"\n".join([recorded[0], recorded[1], line]) + b"\n")
            contents = _reader(path, recorded[0]).read()
            assert contents.damage is not None or len(contents.games) == 2
            assert contents.end >= len(recorded[0]) + len(recorded[1]) + 2

    check()
