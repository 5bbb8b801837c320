"""Notebooks 03 and 05's stored runs: complete, a sample re-derived from its seeds, and made from nothing.

The notebooks read their matches, round robins and decisions from ``notebooks/data/<notebook>/``
and play only what is missing (:func:`~mctslab.course.experiments.strength.kept_match`,
``round_robin(out=...)``, :mod:`mctslab.course.experiments.decisions_store`). These tests hold
the stored files to what the notebooks need and to what the code plays from the same seeds.
The constants below are the notebooks' configuration cells' (``SCALE = 1``).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from mctslab import engine, make_game, round_robin
from mctslab.agents import UCT, canonical_spec
from mctslab.course.experiments import PERFECT, budget_agent, decision_quality, strength_curves, uct_grid
from mctslab.course.experiments.decisions import monte_carlo_makers, sample_positions
from mctslab.course.experiments.decisions_store import decide, decisions_file, read_chunks, run_header
from mctslab.course.experiments.strength import kept_match, match_file, round_robin_file
from mctslab.tournament import game_seed, play_match
from mctslab.tournament.match import a_moves_first
from mctslab.tournament.records import GameTask
from mctslab.tournament.schedule import play_schedule

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
DATA_05 = NOTEBOOKS / "data" / "05_tournaments_and_win_rates"
DATA_03 = NOTEBOOKS / "data" / "03_windowed_monte_carlo"
COMPILED = "compiled" if engine.available() else "python"  # the notebooks' ENGINE
needs_compiled = pytest.mark.skipif(not engine.available(), reason="the stored runs were played on the compiled engine")

# notebook 05
SEED_05 = 1927
RR_AGENTS = ["random", budget_agent("flat", 450), budget_agent("window", 450), "uct:iterations=450", "minimax"]
RR_GAMES = 100
CURVE_KINDS = ("flat", "window", "halving", "uct")
CURVE_BUDGETS, CURVE_GAMES = (25, 50, 100, 200, 400, 800, 1600), 100
GRID_CS, GRID_BUDGETS, GRID_GAMES = (0.1, 0.25, 0.5, 1.0, 1.414, 2.0, 4.0), (25, 100, 400, 1600), 160
REPLAYS, REPLAY_GAMES = 20, 50
SELF_PLAY = UCT(iterations=200, engine="compiled").spec
C4_AGENTS = ["random", budget_agent("flat", 300), budget_agent("halving", 300), "uct:iterations=300", "minimax:depth=4"]
C4_GAMES = 12
# notebook 03
SEED_03 = 2013
POSITIONS, REPEATS, BUDGETS = 50, 12, (30, 60, 120, 240, 480, 960)
GAME_KINDS, GAME_BUDGETS, GAMES_03 = ("flat", "window", "halving"), (25, 50, 100, 200, 400, 800, 1600), 200


def matches_05() -> list[tuple[str, str, object, int]]:
    """Every stored match of notebook 05: (A, B, seed, games)."""
    curves = [
        (budget_agent(kind, b), PERFECT, game_seed(SEED_05, (k, i)), CURVE_GAMES)
        for k, kind in enumerate(CURVE_KINDS)
        for i, b in enumerate(CURVE_BUDGETS)
    ]
    grid = [
        (UCT(iterations=b, c=c, engine="compiled").spec, PERFECT, game_seed(SEED_05, (i, j)), GRID_GAMES)
        for i, c in enumerate(GRID_CS)
        for j, b in enumerate(GRID_BUDGETS)
    ]
    replays = [(SELF_PLAY, SELF_PLAY, SEED_05 + r, REPLAY_GAMES) for r in range(REPLAYS)]
    return curves + grid + replays


def matches_03() -> list[tuple[str, str, object, int]]:
    """Every stored match of notebook 03: (A, B, seed, games)."""
    return [
        (budget_agent(kind, b, "compiled"), PERFECT, game_seed(SEED_03, (k, i)), GAMES_03)
        for k, kind in enumerate(GAME_KINDS)
        for i, b in enumerate(GAME_BUDGETS)
    ]


def lines(path: Path) -> tuple[dict, list[dict]]:
    header, *games = (json.loads(line) for line in path.read_text().splitlines())
    return header, games


def stored_games(path: Path) -> dict[tuple[int, int], dict]:
    """A results file's games by ``(pair, index)`` (lines are in the order games finished)."""
    return {(g["pair"], g["index"]): g for g in lines(path)[1]}


def seed_of(seed) -> dict:
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return {"entropy": ss.entropy, "spawn_key": list(ss.spawn_key)}


def replayed(game: str, pairs: list[tuple[str, str]], seed, pair: int, index: int, round_robin_run: bool):
    """Game ``index`` of pairing ``pair`` played again from its seed, nothing kept."""
    key = (pair, index) if round_robin_run else (index,)
    pairs = [(canonical_spec(a), canonical_spec(b)) for a, b in pairs]
    task = GameTask(pair, index, a_moves_first("alternate", index), key)
    return play_schedule(make_game(game), pairs, seed, [task], header={}, workers=1, progress=False).results[0]


def assert_same_game(stored: dict, fresh) -> None:
    assert (stored["moves"], stored["winner"], stored["a_first"]) == (list(fresh.moves), fresh.winner, fresh.a_first)


# -- complete ------------------------------------------------------------------------------
@needs_compiled
def test_every_stored_run_of_notebook_05_is_complete_and_nothing_else_is_there():
    expected = {}
    for a, b, seed, games in matches_05():
        expected[match_file(DATA_05, "tictactoe", a, b, seed)] = ("match", [a, b], seed, [(0, g) for g in range(games)])
    for game, agents, games in (("tictactoe", RR_AGENTS, RR_GAMES), ("connect4", C4_AGENTS, C4_GAMES)):
        pairs = list(itertools.combinations(range(len(agents)), 2))
        keys = [(p, g) for p in range(len(pairs)) for g in range(games)]
        specs = [canonical_spec(a) for a in agents]
        expected[round_robin_file(DATA_05, game, agents, SEED_05)] = ("round-robin", specs, SEED_05, keys)
    assert set(DATA_05.iterdir()) == set(expected)
    for path, (kind, agents, seed, keys) in expected.items():
        header, games = lines(path)
        assert (header["kind"], header["agents"], header["seed"]) == (kind, agents, seed_of(seed)), path.name
        assert sorted((g["pair"], g["index"]) for g in games) == keys, path.name


@needs_compiled
def test_every_stored_run_of_notebook_03_is_complete_and_nothing_else_is_there():
    expected = {match_file(DATA_03, "tictactoe", a, b, seed): (a, seed, games) for a, b, seed, games in matches_03()}
    decisions = {p for p in DATA_03.iterdir() if p.name.startswith("decisions_")}
    assert set(DATA_03.iterdir()) - decisions == set(expected)
    for path, (a, seed, games) in expected.items():
        header, stored = lines(path)
        assert (header["agents"], header["seed"]) == ([a, PERFECT], seed_of(seed)), path.name
        assert sorted(g["index"] for g in stored) == list(range(games)), path.name
    labels = set()
    for path in decisions:
        header = json.loads(path.read_text().splitlines()[0])
        assert (header["budgets"], header["repeats"], header["seed"]) == (list(BUDGETS), REPEATS, SEED_03)
        assert header["positions"]["count"] == POSITIONS and decisions_file(DATA_03, header) == path
        chunks, _ = read_chunks(path, header)
        assert sorted(chunks) == list(range(len(BUDGETS))), path.name  # every budget, every decision (checked)
        labels.add(header["label"])
    assert labels == set(monte_carlo_makers())


# -- re-derived from the seeds -------------------------------------------------------------
def test_stored_games_of_notebook_05_are_replayed_from_their_seeds():
    curve = budget_agent("uct", 100), PERFECT, game_seed(SEED_05, (3, 2))  # UCT at 100 against perfect play
    games = stored_games(match_file(DATA_05, "tictactoe", *curve))
    for g in (0, 1):  # the first two games, played again, nothing kept
        assert_same_game(games[0, g], replayed("tictactoe", [curve[:2]], curve[2], 0, g, False))
    pairs = list(itertools.combinations(RR_AGENTS, 2))
    stored = stored_games(round_robin_file(DATA_05, "tictactoe", RR_AGENTS, SEED_05))
    for p, g in ((7, 0), (6, 1)):  # window against UCT, flat against minimax
        assert_same_game(stored[p, g], replayed("tictactoe", pairs, SEED_05, p, g, True))
    pairs = list(itertools.combinations(C4_AGENTS, 2))
    stored = stored_games(round_robin_file(DATA_05, "connect4", C4_AGENTS, SEED_05))
    assert_same_game(stored[3, 0], replayed("connect4", pairs, SEED_05, 3, 0, True))  # random against minimax


@needs_compiled
def test_stored_compiled_games_of_notebooks_03_and_05_are_replayed_from_their_seeds():
    cell = UCT(iterations=25, c=0.1, engine="compiled").spec, PERFECT, game_seed(SEED_05, (0, 0))
    replay = SELF_PLAY, SELF_PLAY, SEED_05 + 3
    point = budget_agent("halving", 1600, "compiled"), PERFECT, game_seed(SEED_03, (2, 6))
    for folder, (a, b, seed) in ((DATA_05, cell), (DATA_05, replay), (DATA_03, point)):
        games = stored_games(match_file(folder, "tictactoe", a, b, seed))
        assert_same_game(games[0, 1], replayed("tictactoe", [(a, b)], seed, 0, 1, False))


def test_stored_decisions_of_notebook_03_are_decided_again_from_their_seeds():
    game = make_game("tictactoe")
    positions = sample_positions(game, POSITIONS, SEED_03, min_moves=5)
    for k, (label, make) in enumerate(monte_carlo_makers().items()):
        header = run_header(game, positions, label, make, BUDGETS, REPEATS, SEED_03)
        chunks, _ = read_chunks(decisions_file(DATA_03, header), header)  # the header names these positions
        for i in (0, len(BUDGETS) - 1):  # a decision at the smallest budget and one at the largest, each agent
            p, r = (7 * k + 13 * i) % POSITIONS, (k + i) % REPEATS
            move, spent = decide(game, positions[p], make, BUDGETS[i], SEED_03, (i, p, r))
            assert (chunks[i].moves[p * REPEATS + r], chunks[i].iterations[p * REPEATS + r]) == (move, spent)


# -- made from nothing, resumed, read back -------------------------------------------------
def test_the_experiments_store_what_they_play_and_read_it_back_unchanged(tmp_path, monkeypatch):
    game = make_game("tictactoe")
    kinds = {"flat": "flat", "UCT": "uct"}
    fresh = strength_curves(game, kinds, (4, 8), games=2, seed=3, workers=1)
    stored = strength_curves(game, kinds, (4, 8), games=2, seed=3, workers=1, folder=tmp_path / "runs")
    assert {c.outcomes for c in stored.values()} == {c.outcomes for c in fresh.values()}
    assert len(list((tmp_path / "runs").iterdir())) == 4
    grid = uct_grid(game, [0.5], [4], games=2, seed=3, workers=1, folder=tmp_path / "runs")
    assert grid.outcomes == uct_grid(game, [0.5], [4], games=2, seed=3, workers=1).outcomes
    positions = sample_positions(game, 2, seed=1, min_moves=5)
    make = monte_carlo_makers()["halving"]
    quality = decision_quality(game, positions, "halving", make, (6, 12), 2, 5)
    kept = decision_quality(game, positions, "halving", make, (6, 12), 2, 5, folder=tmp_path / "runs")
    assert all(np.array_equal(getattr(quality, f), getattr(kept, f)) for f in ("spent", "regret", "perfect"))

    def nothing_is_played(*args, **kwargs):
        raise AssertionError("a stored run was played again")

    monkeypatch.setattr("mctslab.course.experiments.strength.play_match", nothing_is_played)
    monkeypatch.setattr("mctslab.course.experiments.decisions.play_chunk", nothing_is_played)
    again = strength_curves(game, kinds, (4, 8), games=2, seed=3, workers=1, folder=tmp_path / "runs")
    assert [c.outcomes for c in again.values()] == [c.outcomes for c in stored.values()]
    read = decision_quality(game, positions, "halving", make, (6, 12), 2, 5, folder=tmp_path / "runs")
    assert np.array_equal(read.regret, quality.regret) and np.array_equal(read.perfect, quality.perfect)


def test_an_interrupted_decisions_file_is_resumed_and_another_runs_refused(tmp_path):
    game = make_game("tictactoe")
    positions = sample_positions(game, 2, seed=1, min_moves=5)
    make = monte_carlo_makers()["flat"]
    whole = decision_quality(game, positions, "flat", make, (5, 10), 2, 1)
    decision_quality(game, positions, "flat", make, (5, 10), 2, 1, folder=tmp_path)
    (path,) = tmp_path.iterdir()
    text = path.read_text()
    path.write_text(text[: text.rindex("\n", 0, -1) + 1] + '{"chunk": 1, "bud')  # stopped while writing budget 10
    resumed = decision_quality(game, positions, "flat", make, (5, 10), 2, 1, folder=tmp_path)
    assert path.read_text() == text and np.array_equal(resumed.regret, whole.regret)
    header = json.loads(text.splitlines()[0])
    path.write_text(text.replace('"seed": 1', '"seed": 2', 1))
    with pytest.raises(ValueError, match="another run"):
        read_chunks(path, header)
    path.write_text(text + text.splitlines()[1] + "\n")
    with pytest.raises(ValueError, match="line 4: budget index 0"):
        read_chunks(path, header)


def test_a_stored_match_is_the_match_played_and_a_round_robin_file_is_named_by_its_agents(tmp_path):
    match = "tictactoe", "random", "flat:playouts=2", 3, 9
    fresh = play_match(*match, workers=1, progress=False)
    played, read = kept_match(*match, tmp_path), kept_match(*match, tmp_path)
    assert [r.moves for r in played.results] == [r.moves for r in read.results] == [r.moves for r in fresh.results]
    assert read.resumed == 3 and read.outcomes == fresh.outcomes  # read back, nothing played
    pair, other = ["random", "minimax"], ["random", "uct"]
    out = round_robin_file(tmp_path, "tictactoe", pair, 1)
    assert out.name.startswith("round-robin_tictactoe_seed-1_")
    assert out != round_robin_file(tmp_path, "tictactoe", other, 1)
    played = round_robin("tictactoe", pair, 2, 1, workers=1, out=out, progress=False)
    read = round_robin("tictactoe", pair, 2, 1, workers=1, out=out, progress=False)
    assert read.matches[0, 1].resumed == 2 and read.matches[0, 1].outcomes == played.matches[0, 1].outcomes
