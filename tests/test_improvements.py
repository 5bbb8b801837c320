"""Notebook 09's stored results: complete, and a sample of games re-derived from their seeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mctslab import make_game
from mctslab.experiments.improvements import (
    MATCHES,
    Pairing,
    Row,
    head_to_head,
    iteration_costs,
    node_counts,
    playout_costs,
)
from mctslab.tournament import Outcomes

DATA = Path(__file__).resolve().parent.parent / "notebooks" / "data" / "09_improving_uct"


def games_in(pairing):
    lines = (DATA / pairing.filename).read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


@pytest.mark.parametrize("pairing", MATCHES, ids=lambda p: p.filename)
def test_every_match_of_the_notebook_is_stored_complete(pairing):
    header = json.loads((DATA / pairing.filename).read_text().splitlines()[0])
    assert header["agents"][1].startswith("uct:") and header["seed"]["entropy"] == 2026
    assert sorted(g["index"] for g in games_in(pairing)) == list(range(pairing.games))


@pytest.mark.parametrize("variant", ["solver", "rave"])
def test_stored_games_at_equal_iterations_are_replayed_from_their_seeds(variant):
    pairing = next(
        p for p in MATCHES if p.game == "connect4" and p.variant.startswith(variant + ":") and p.budget == "iterations"
    )
    stored = {g["index"]: g for g in games_in(pairing)}
    fresh = head_to_head(pairing, games=2)  # the first two games, played again, nothing kept
    for result in fresh.results:
        assert list(result.moves) == stored[result.index]["moves"]
        assert result.winner == stored[result.index]["winner"]


def test_rows_and_verdicts_follow_the_interval():
    assert Row("g", "v", "iterations", Outcomes(40, 0, 10)).verdict == "better"
    assert Row("g", "v", "iterations", Outcomes(10, 0, 40)).verdict == "worse"
    assert Row("g", "v", "iterations", Outcomes(27, 0, 23)).verdict == "not shown"
    assert Pairing("connect4", "rave:iterations=5,k=3", "uct:iterations=5", 2).filename.endswith(".jsonl")


def test_node_counts_and_costs_are_measured():
    game = make_game("tictactoe")
    ((n, tree, positions),) = node_counts(game, [2000])
    assert n == 2000 and tree <= 2001 and positions < tree
    costs = playout_costs(game, playouts=3, rounds=1)
    assert set(costs) == {"random", "decisive", "antidecisive"} and all(c > 0 for c in costs.values())
    per_iteration = iteration_costs(game, ["uct", "rave"], iterations=50, rounds=1)
    assert all(c > 0 for c in per_iteration.values())
