"""The bad-input catalogue: one row per kind of bad input, through the API and the command line.

Each row names the input, the exception it must raise (type and words of the message) or,
for the command line, exit status 2 with exactly one line on stderr. Rows over agents and
games are generated from the registries, so every agent and game added later is run through
the same rows without editing this file.
"""

from __future__ import annotations

import errno
import functools
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mctslab import make_agent, make_game, play_game, play_match, round_robin
from mctslab.agents import AGENTS
from mctslab.cli import main
from mctslab.engine import available as engine_available
from mctslab.games import GAMES, IllegalMoveError, InvalidStateError
from mctslab.games.check import foreign_states
from mctslab.specs import SpecError
from mctslab.tournament import ResultsFileError, ResultsFileWarning
from mctslab.tournament.results_file import ResultsFile

DATA = Path(__file__).parent / "data"
GAME_NAMES = sorted(GAMES)
AGENT_NAMES = sorted(AGENTS)
GENERAL_AGENTS = [n for n in AGENT_NAMES if not AGENTS[n].experiment]  # they play every game


def cheap(name: str) -> str:
    """A spec of agent ``name`` that decides fast (the rows fail before any search anyway)."""
    return "uct:iterations=10" if name == "uct" else name


def plays(agent: str, game: str) -> bool:
    """Whether agent ``agent`` plays the kind of game ``game`` is (else it refuses it first, by kind)."""
    return make_game(GAMES[game].test_spec if game in GAMES else game).kind().traits <= AGENTS[agent].handles


def finished(agent: str):
    """A game agent ``agent`` plays (tic-tac-toe, or the first registered puzzle for a puzzle solver), finished."""
    if plays(agent, "tictactoe"):
        game = make_game("tictactoe")
        return game, game.state_from_moves([0, 3, 1, 4, 2])
    game = next(make_game(e.test_spec) for e in GAMES.values() if plays(agent, e.test_spec.partition(":")[0]))
    return game, game.state_from_moves(play_game(game, ["random"], seed=0).moves)


# -- agents: states that are not the game's ------------------------------------------------
# Every agent refuses a foreign state at one place: its analyse starts with legal_or_raise, which
# asks the game's check_state. So the rows are one per code path: each agent's own way to
# legal_or_raise (with another game's position), each game's check_state with each kind of
# foreign value (through one agent), and each agent with a state of the same type from another
# board (4 x 4 tic-tac-toe). The property test below draws from the whole cross product.
def _games_of(agent: str) -> list[str]:
    """The registered games an agent is run on here: every game of a kind it plays (experiments: tic-tac-toe)."""
    games = GAME_NAMES if agent in GENERAL_AGENTS else ["tictactoe"]  # the others play tic-tac-toe only
    return [g for g in games if plays(agent, g)]  # a kind it refuses is refused before the state


@functools.cache
def _foreign(game: str) -> tuple:
    """Values that are not states of ``game``: junk, and positions of the other registered games."""
    return tuple(foreign_states(make_game(game)))


def _kinds(values) -> list:
    """One value of each kind: each junk type, and one position of another game (one path through check_state)."""
    out, seen = [], set()
    for value in values:
        kind = "position" if hasattr(value, "_fields") else type(value).__name__
        if kind not in seen:
            seen.add(kind)
            out.append(value)
    return out


FOUR_BY_FOUR = make_game("tictactoe:n=4").state_from_moves([15, 14])
"""A tic-tac-toe state of the right type for another board size."""
AGENTS_ON_ANY_GAME = [a for a in AGENT_NAMES if _games_of(a)]


def _foreign_cases():
    for agent in AGENTS_ON_ANY_GAME:  # each agent's path: another game's position
        game = _games_of(agent)[0]
        value = next(v for v in reversed(_foreign(game)) if hasattr(v, "_fields"))
        yield pytest.param(agent, game, value, id=f"{agent}-{game}-{type(value).__name__}")
    for game in GAME_NAMES:  # each game's check_state, each kind of foreign value, through one agent
        agent = next((a for a in GENERAL_AGENTS if plays(a, game)), None)
        for value in _kinds(_foreign(game)) if agent else ():
            yield pytest.param(agent, game, value, id=f"{agent}-{game}-{type(value).__name__}")
    for agent in [a for a in AGENT_NAMES if plays(a, "tictactoe")]:  # the same type, another board size
        yield pytest.param(agent, "tictactoe", FOUR_BY_FOUR, id=f"{agent}-4x4")


def _assert_refused(agent: str, game_name: str, value) -> None:
    game = make_game(game_name)
    with pytest.raises(InvalidStateError, match=f"not a state of the game {game.spec}"):
        make_agent(cheap(agent), seed=0).select_move(game, value)
    with pytest.raises(InvalidStateError, match="not a state of the game"):
        make_agent(cheap(agent), seed=0).analyse(game, value)


@pytest.mark.parametrize("agent,game_name,value", list(_foreign_cases()))
def test_an_agent_refuses_a_state_of_another_game(agent, game_name, value):
    _assert_refused(agent, game_name, value)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_agent_refuses_any_foreign_state_of_any_game_it_plays(data):
    """The cross product (agent x game x foreign value): 200 seeded draws from its 3,963 cases.

    (The rows were once that product with every third value: 1,616 cases through one code path.)
    """
    agent = data.draw(st.sampled_from(AGENTS_ON_ANY_GAME), label="agent")
    game = data.draw(st.sampled_from(_games_of(agent)), label="game")
    extra = (FOUR_BY_FOUR,) if game == "tictactoe" else ()
    _assert_refused(agent, game, data.draw(st.sampled_from(_foreign(game) + extra), label="value"))


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_an_agent_refuses_a_finished_game(agent):
    game, over = finished(agent)
    with pytest.raises(IllegalMoveError, match="game is over"):
        make_agent(cheap(agent), seed=0).select_move(game, over)


# -- agents: parameters of the wrong type or out of range -----------------------------------
ZERO_ALLOWED = {("uct", "virtual_loss")}
"""Integer parameters for which 0 is a value (tree parallelism without virtual loss), not a bad one."""


def _param_cases():
    """For every declared int or float parameter: wrong types, and non-finite numbers."""
    for name in AGENT_NAMES:
        for p in AGENTS[name].params:
            if p.parse is int:
                rows = [(True, TypeError), ("2", TypeError), (2.5, TypeError), (-3, ValueError)]
                rows += [] if (name, p.name) in ZERO_ALLOWED else [(0, ValueError)]
            elif p.parse is float:
                rows = [("1", TypeError), (True, TypeError), (math.inf, ValueError), (math.nan, ValueError)]
                rows += [(-math.inf, ValueError)]
            else:
                continue
            for value, error in rows:
                yield pytest.param(name, p.name, value, error, id=f"{name}-{p.name}={value!r}")


@pytest.mark.parametrize("agent,param,value,error", list(_param_cases()))
def test_a_bad_parameter_value_names_the_parameter(agent, param, value, error):
    with pytest.raises(error, match=f"{param} must be"):
        AGENTS[agent](**{param: value}, seed=0)


def _numpy_cases():
    for name in AGENT_NAMES:
        for p in AGENTS[name].params:
            if p.parse is int:
                yield pytest.param(name, p.name, np.int64(2), id=f"{name}-{p.name}-int64")
                yield pytest.param(name, p.name, np.int32(2), id=f"{name}-{p.name}-int32")
            elif p.parse is float:
                yield pytest.param(name, p.name, np.float32(0.5), id=f"{name}-{p.name}-float32")


PARTNERS = {
    ("uct", "threads"): {"engine": "compiled"},  # threads > 1: the compiled engine's threads
    ("uct", "virtual_loss"): {"engine": "compiled", "threads": 2, "parallel": "tree"},  # tree parallelism's only
}
"""The parameters a value of these needs beside it to be accepted."""


@pytest.mark.parametrize("agent,param,value", list(_numpy_cases()))
def test_numpy_scalars_are_accepted_and_stored_as_python_numbers(agent, param, value):
    partner = PARTNERS.get((agent, param), {})
    if partner and not engine_available():
        pytest.skip(f"uct's {param} needs the compiled engine (Numba)")
    built = AGENTS[agent](**{param: value}, **partner, seed=0)
    stored = getattr(built, param)
    assert stored == value and type(stored) in (int, float)
    assert make_agent(built.spec, seed=0).parameters() == built.parameters()


@pytest.mark.parametrize("agent", AGENT_NAMES)
@pytest.mark.parametrize(
    "seed,error,words",
    [
        (-1, ValueError, "seed must be an integer >= 0"),
        (True, TypeError, "seed must be"),
        ("1", TypeError, "seed must be"),
    ]
    + [(1.5, TypeError, "seed must be")],
)
def test_a_bad_seed_is_refused_not_folded(agent, seed, error, words):
    with pytest.raises(error, match=words):
        make_agent(cheap(agent), seed=seed)


def test_uct_with_c_inf_is_refused_before_it_can_meet_a_single_legal_move():
    # c = inf used to be accepted, then inf * 0 gave NaN and UnboundLocalError on a forced move
    from mctslab import UCT

    with pytest.raises(ValueError, match="c must be a finite number"):
        UCT(c=math.inf)
    with pytest.raises(ValueError, match="seconds must be a finite number"):
        UCT(seconds=math.inf)


def test_minimax_without_depth_ends_on_a_game_too_big_to_solve():
    agent = make_agent("minimax:max_nodes=2000", seed=0)  # the default budget is 20,000: the same path, slower
    game = make_game("connect4")
    assert agent.select_move(game, game.initial_state()) in range(7)
    assert agent.nodes <= 2 * (agent.max_nodes + 1) and agent.depth_searched >= 1
    small = make_agent("minimax:max_nodes=50", seed=0)
    small.select_move(game, game.initial_state())
    assert small.nodes <= 2 * (50 + 1)
    solved = make_agent("minimax", seed=0)  # 3 x 3 tic-tac-toe is still solved exactly
    solved.select_move(make_game("tictactoe"), make_game("tictactoe").initial_state())
    assert solved.depth_searched is None


# -- games --------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_game_refuses_what_is_not_its_state(game_name):
    game = make_game(game_name)
    move = game.legal_moves(game.initial_state())[0]
    for value in foreign_states(game):
        with pytest.raises(InvalidStateError, match=f"not a state of the game {game.spec}"):
            game.play(value, move)


@pytest.mark.parametrize("game_name", GAME_NAMES)
@pytest.mark.parametrize(
    "move,error,words",
    [
        (True, TypeError, "a move is an int"),
        ("3", TypeError, "a move is an int"),
        (2.0, TypeError, "a move is an int"),
        (None, TypeError, "a move is an int"),
        (-1, IllegalMoveError, "illegal here; legal moves"),
        (10**30, IllegalMoveError, "illegal here; legal moves"),
    ],
)
def test_a_game_refuses_a_bad_move(game_name, move, error, words):
    game = make_game(game_name)
    with pytest.raises(error, match=words):
        game.play(game.initial_state(), move)


@pytest.mark.parametrize(
    "spec,words",
    [
        ("chess", "unknown game 'chess'"),
        ("tictactoe:n=0", "n must be"),
        ("tictactoe:n=three", "bad value"),
        ("connect4:rows=1000000", "rows"),
        ("nim:heaps=", "heaps"),
        ("nim:heaps=1-99", "heap"),
        ("", "empty"),
    ],
)
def test_a_bad_game_spec_says_what_is_known(spec, words):
    with pytest.raises(SpecError, match=words):
        make_game(spec)


# -- tournaments ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options,error,words",
    [
        ({"games": 0}, ValueError, "games must be an integer >= 1"),
        ({"games": 10**9}, ValueError, "games must be at most 1,000,000"),
        ({"games": 2.5}, TypeError, "games must be an integer"),
        ({"games": True}, TypeError, "games must be an integer"),
        ({"seed": -1}, ValueError, "seed must be an integer >= 0"),
        ({"seed": None}, TypeError, "seed"),
        ({"workers": 0}, ValueError, "workers must be an integer in \\[1, 256\\]"),
        ({"workers": 10**6}, ValueError, "workers must be an integer in \\[1, 256\\]"),
        ({"batch_size": 0}, ValueError, "batch_size must be an integer >= 1"),
        ({"seats": "random"}, ValueError, "seats must be one of"),
        ({"out": ""}, ValueError, "out must be a file name"),
        ({"out": 3}, TypeError, "out must be a file name"),
    ],
)
def test_a_bad_match_option_is_refused_before_anything_runs(options, error, words):
    with pytest.raises(error, match=words):
        play_match("tictactoe", "random", "random", **{"games": 2, "workers": 1, "progress": False, **options})


def test_numpy_games_and_seed_are_accepted():
    result = play_match("tictactoe", "random", "random", games=np.int64(4), seed=np.int32(1), workers=1, progress=False)
    assert result.games == 4


def test_a_round_robin_too_big_for_one_run_is_refused():
    with pytest.raises(ValueError, match="at most 1,000,000 in one run, got 400,000 x 3 pairings"):
        round_robin("tictactoe", ["random", "flat:playouts=2", "flat:playouts=3"], games=400_000, progress=False)


def _out_cases(tmp_path: Path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    return {
        "directory": (tmp_path, "is a directory"),
        "name too long": (tmp_path / ("x" * 300), "File name too long"),
        "parent is a file": (a_file / "games.jsonl", "Not a directory"),
        "under /proc": (Path("/proc/mctslab-test/games.jsonl"), "cannot"),
        "/dev/null": (Path("/dev/null"), "not a regular file"),
        "/dev/full": (Path("/dev/full"), "not a regular file"),
    }


OUT_KINDS = ["directory", "name too long", "parent is a file", "under /proc", "/dev/null", "/dev/full"]


@pytest.mark.parametrize("kind", OUT_KINDS)
def test_an_unusable_out_gives_one_results_file_error(tmp_path, kind):
    path, words = _out_cases(tmp_path)[kind]
    if kind in ("under /proc", "/dev/null", "/dev/full") and not Path("/", path.parts[1]).exists():
        pytest.skip(f"no /{path.parts[1]} here")
    with pytest.raises(ResultsFileError, match=words):
        play_match("tictactoe", "random", "random", games=2, workers=1, progress=False, out=path)


def test_a_read_only_directory_gives_one_results_file_error(tmp_path, monkeypatch):
    # simulated (the tests may run as root, who may write anywhere): os.open says EACCES
    real_open = os.open

    def refuse(path, *args, **kwargs):
        if str(path).startswith(str(tmp_path)):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(ResultsFileError, match="Permission denied .use a file in a directory you can write to"):
        play_match("tictactoe", "random", "random", games=2, workers=1, progress=False, out=tmp_path / "g.jsonl")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_full_disk_stops_the_run_with_a_message_and_keeps_the_games_written(tmp_path, monkeypatch, workers):
    out = tmp_path / "g.jsonl"
    real_append = ResultsFile.append
    calls = []

    def append_until_full(self, results):
        calls.append(len(results))
        if len(calls) > 2:  # the third batch meets a full disk
            raise ResultsFileError(f"cannot write to results file {str(out)!r}: {os.strerror(errno.ENOSPC)}")
        real_append(self, results)

    monkeypatch.setattr(ResultsFile, "append", append_until_full)
    with pytest.raises(ResultsFileError, match="No space left on device"):
        play_match(
            "tictactoe", "random", "random", games=40, seed=2, batch_size=4, workers=workers, progress=False, out=out
        )
    monkeypatch.undo()
    kept = out.read_text().splitlines()[1:]
    assert len(kept) == sum(calls[:2]) == 8
    resumed = play_match(
        "tictactoe", "random", "random", games=40, seed=2, batch_size=4, workers=1, progress=False, out=out
    )
    clean = play_match("tictactoe", "random", "random", games=40, seed=2, workers=1, progress=False)
    assert resumed.resumed == 8 and [r.moves for r in resumed.results] == [r.moves for r in clean.results]


def test_enospc_from_the_file_system_is_one_line(tmp_path, monkeypatch):
    """The real OSError path of append: an ENOSPC from the write becomes a ResultsFileError."""
    out = tmp_path / "g.jsonl"
    play_match("tictactoe", "random", "random", games=2, seed=0, workers=1, progress=False, out=out)
    rf = ResultsFile(out, {}, make_game("tictactoe"), {})

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(ResultsFileError, match="the disk is full: free some space, then run the same command"):
        rf.append([])


# -- results-file lines that are valid JSON but not game records -------------------------
def _match_file(tmp_path: Path) -> Path:
    out = tmp_path / "m.jsonl"
    play_match("tictactoe", "random", "random", games=4, seed=1, workers=1, progress=False, out=out)
    return out


def _good_line(out: Path) -> dict:
    return json.loads(out.read_text().splitlines()[1])


BAD_LINES = {
    "1e400 index": lambda d: json.dumps(d).replace(f'"index": {d["index"]}', '"index": 1e400'),
    "1e400 move": lambda d: json.dumps({**d, "moves": d["moves"][:-1]})[:-2] + ", 1e400]}",
    "nested 100,000 deep": lambda d: "[" * 100_000 + "]" * 100_000,
    "nested object": lambda d: '{"pair":' * 50_000 + "0" + "}" * 50_000,
    "a list": lambda d: "[1, 2, 3]",
    "a string": lambda d: '"game"',
    "a number": lambda d: "1e400",
    "null": lambda d: "null",
    "float index": lambda d: json.dumps({**d, "index": float(d["index"])}),
    "bool pair": lambda d: json.dumps({**d, "pair": False}),
    "float moves": lambda d: json.dumps({**d, "moves": [float(m) for m in d["moves"]]}),
    "negative index": lambda d: json.dumps({**d, "index": -1}),
    "NaN seconds": lambda d: json.dumps({**d, "seconds": [float("nan"), 0.0]}),
    "Infinity returns": lambda d: json.dumps({**d, "returns": [float("inf"), 0.0]}),
    "huge int move": lambda d: json.dumps({**d, "moves": [10**400, *d["moves"][1:]]}),
    "missing key": lambda d: json.dumps({k: v for k, v in d.items() if k != "moves"}),
    "not utf-8": lambda d: "\udcff",
}


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_a_damaged_middle_line_is_the_damaged_file_error(tmp_path, kind):
    out = _match_file(tmp_path)
    lines = out.read_text().splitlines()
    lines[2] = BAD_LINES[kind](_good_line(out))
    out.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape") + b"\n")
    with pytest.raises(ResultsFileError, match="line 3: .*damaged before its last line"):
        play_match("tictactoe", "random", "random", games=4, seed=1, workers=1, progress=False, out=out)


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_a_damaged_last_line_is_removed_and_its_game_replayed(tmp_path, kind):
    out = _match_file(tmp_path)
    clean = play_match("tictactoe", "random", "random", games=4, seed=1, workers=1, progress=False)
    lines = out.read_text().splitlines()
    lines[-1] = BAD_LINES[kind](_good_line(out))
    out.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape") + b"\n")
    with pytest.warns(ResultsFileWarning, match="line 5"):
        resumed = play_match("tictactoe", "random", "random", games=4, seed=1, workers=1, progress=False, out=out)
    assert resumed.resumed == 3 and [r.moves for r in resumed.results] == [r.moves for r in clean.results]


@pytest.mark.parametrize("header", ["[" * 100_000, "1e400", '"mctslab-results"', "{}"])
def test_a_header_that_is_not_one_is_a_one_line_error(tmp_path, header):
    out = tmp_path / "m.jsonl"
    out.write_text(header + "\n")
    with pytest.raises(ResultsFileError, match="not a results file this run can resume"):
        play_match("tictactoe", "random", "random", games=2, workers=1, progress=False, out=out)


# -- the command line: status 2 and one line, never a traceback -----------------------------
CLI_ROWS = {
    "no command": ([], "give a command"),
    "unknown command": (["play"], "invalid choice"),
    "unknown game": (["match", "chess", "random", "random"], "unknown game 'chess'"),
    "unknown agent": (["match", "tictactoe", "alphazero", "random"], "unknown agent 'alphazero'"),
    "bad agent value": (["match", "tictactoe", "uct:iterations=0", "random"], "iterations must be an integer >= 1"),
    "c=inf": (["move", "tictactoe", "uct:c=inf"], "c must be a finite number"),
    "c=nan": (["move", "tictactoe", "uct:c=nan"], "c must be a finite number"),
    "seconds=inf": (["move", "tictactoe", "uct:seconds=inf"], "seconds must be a finite number"),
    "games 0": (["match", "tictactoe", "random", "random", "--games", "0"], "--games: must be a whole number >= 1"),
    "games 1e9": (["match", "tictactoe", "random", "random", "--games", "1e9"], "--games: expected a whole number"),
    "games 10^9": (["match", "tictactoe", "random", "random", "--games", "1000000000"], "at most 1,000,000"),
    "games with _": (["match", "tictactoe", "random", "random", "--games", "1_0"], "expected a whole number"),
    "games with space": (["match", "tictactoe", "random", "random", "--games", " 10"], "expected a whole number"),
    "games 10^40": (["match", "tictactoe", "random", "random", "--games", "1" + "0" * 40], "expected a whole number"),
    "seed -1": (["match", "tictactoe", "random", "random", "--seed", "-1"], "--seed: expected a whole number >= 0"),
    "workers 10^5": (["match", "tictactoe", "random", "random", "--workers", "100000"], "from 1 to 256"),
    "batch 0": (["match", "tictactoe", "random", "random", "--batch-size", "0"], "--batch-size: must be"),
    "bad seats": (["match", "tictactoe", "random", "random", "--seats", "x"], "invalid choice"),
    "bad moves": (["move", "tictactoe", "random", "--moves", "4,,0"], "comma-separated move numbers"),
    "illegal move": (["move", "tictactoe", "random", "--moves", "4,4"], "move #2 of the list"),
    "game over": (["move", "tictactoe", "random", "--moves", "0,3,1,4,2"], "the game is over"),
    "one agent": (["tournament", "tictactoe", "random"], "at least two agents"),
    "repeated agent": (["tournament", "tictactoe", "random", "random"], "repeated"),
    "bench scale inf": (["bench", "--scale", "inf"], "--scale must be > 0 and at most 1000"),
    "bench scale nan": (["bench", "--scale", "nan"], "--scale must be > 0 and at most 1000"),
    "bench scale 0": (["bench", "--scale", "0"], "--scale must be > 0"),
    "bench rounds 0": (["bench", "--rounds", "0"], "--rounds must be from 1"),
    "out empty": (["match", "tictactoe", "random", "random", "--out", ""], "out must be a file name"),
    "out /dev/null": (["match", "tictactoe", "random", "random", "--out", "/dev/null"], "not a regular file"),
    "out /dev/full": (["match", "tictactoe", "random", "random", "--out", "/dev/full"], "not a regular file"),
    "out under /proc": (["match", "tictactoe", "random", "random", "--out", "/proc/nope/x.jsonl"], "cannot"),
    "out too long": (["match", "tictactoe", "random", "random", "--out", "x" * 300], "File name too long"),
}


@pytest.mark.parametrize("kind", sorted(CLI_ROWS))
def test_the_command_line_gives_status_2_and_one_line(kind, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv, words = CLI_ROWS[kind]
    code = main([*argv, "--no-progress"] if argv and argv[0] in ("match", "tournament") else argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err, err


@pytest.mark.parametrize("kind", ["directory", "parent is a file"])
def test_the_command_line_out_problems_in_a_directory(kind, capsys, tmp_path):
    path, words = _out_cases(tmp_path)[kind]
    code = main(["match", "tictactoe", "random", "random", "--games", "2", "--no-progress", "--out", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and words in err, err


def test_a_state_equal_to_the_one_checked_last_but_another_object_is_still_checked():
    """``play`` and the agents skip the check for the very state object checked last (the game loop's second
    check of each position), never for an equal one: a float field or a plain tuple is refused all the same."""
    game = make_game("tictactoe")
    state = game.play(game.initial_state(), 4)
    make_agent("random", seed=0).select_move(game, state)  # checked here; play() then skips it
    game.play(state, 0)
    for look_alike in (type(state)(float(state.x), state.o, state.result), tuple(state)):
        assert look_alike == state and look_alike is not state
        with pytest.raises(InvalidStateError):
            game.play(look_alike, 0)
        with pytest.raises(InvalidStateError):
            make_agent("random", seed=0).select_move(game, look_alike)
