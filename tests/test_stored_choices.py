"""Notebook 02's stored decisions (choice_rates(..., out=...)) and the record files they live in."""

from __future__ import annotations

import json

import pytest

from mctslab import UCT, make_game
from mctslab.agents import FixedBudget, FlatMonteCarlo
from mctslab.course.editions import DATA_FOLDER, NOTEBOOKS
from mctslab.course.experiments import choice_rates
from mctslab.course.experiments.decisions import choices_header, stored_choices
from mctslab.course.experiments.seeded_records import RecordFile, RecordFileError
from mctslab.tournament import game_seed

DATA = NOTEBOOKS / DATA_FOLDER / "02_pure_monte_carlo"
GAME = make_game("tictactoe")
EMPTY = GAME.initial_state()
TRAP = GAME.state_from_moves([1, 3, 5])  # section 4's trap: X on 1 and 5, O on 3, O to move
SEED, PLAYOUTS, PER_DECISION = 2024, (1, 2, 5, 10, 20, 50, 100, 200, 500), (60, 150, 600, 1500, 3000, 6000)
RUNS = {  # file -> (position, agent, budgets, decisions, seed), as the notebook calls choice_rates
    "centre_flat.jsonl": (EMPTY, lambda n, s: FlatMonteCarlo(n, seed=s), PLAYOUTS, 200, SEED),
    "centre_flat_50.jsonl": (EMPTY, lambda n, s: FlatMonteCarlo(n, seed=s), (50,), 1000, SEED + 1),
    "trap_flat.jsonl": (TRAP, lambda n, s: FixedBudget("flat", n, seed=s), PER_DECISION, 100, SEED),
    "trap_uct.jsonl": (TRAP, lambda n, s: UCT(iterations=n, seed=s), PER_DECISION, 100, SEED),
}


def _stored(name: str) -> dict[tuple[int, int], int]:
    state, make, budgets, _, seed = RUNS[name]
    return stored_choices(RecordFile(DATA / name, choices_header(GAME, state, make, budgets, seed)), 9)


@pytest.mark.parametrize("name", RUNS)
def test_every_stored_run_of_notebook_02_is_complete(name):
    _, _, budgets, decisions, seed = RUNS[name]
    stored = _stored(name)  # its header names this position, these agents and budgets, and this seed
    assert json.loads((DATA / name).read_text().splitlines()[0])["seed"]["entropy"] == seed
    assert {(i, j) for i in range(len(budgets)) for j in range(decisions)} <= set(stored)


@pytest.mark.parametrize("name", RUNS)
def test_stored_decisions_are_made_again_from_their_seeds(name):
    state, make, budgets, _, seed = RUNS[name]
    stored, moves = _stored(name), GAME.legal_moves(state)
    for i, budget in enumerate(budgets):
        for j in range(3):  # the first three decisions at every budget, made again, nothing kept
            assert make(budget, game_seed(seed, (i, j))).select_move(GAME, state) == moves[stored[i, j]], (i, j)


def _flat(n, seed):
    return FlatMonteCarlo(n, seed=seed)


def test_choice_rates_from_an_empty_folder_stores_resumes_and_reads_what_it_computes(tmp_path, monkeypatch):
    out = tmp_path / "data" / "run.jsonl"
    fresh = choice_rates(GAME, EMPTY, _flat, (1, 3), 12, 7)
    monkeypatch.setattr("mctslab.course.experiments.decisions.CHOICES_PER_RECORD", 5)
    part = choice_rates(GAME, EMPTY, _flat, (1, 3), 7, 7, out=out)  # a shorter run, then the full one
    assert (part.counts == choice_rates(GAME, EMPTY, _flat, (1, 3), 7, 7).counts).all()
    with out.open("ab") as f:
        f.write(b'{"budget":0,"first":7,"pi')  # a record cut short when the run stopped
    whole = choice_rates(GAME, EMPTY, _flat, (1, 3), 12, 7, out=out)
    assert (whole.counts == fresh.counts).all()
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 4 + 2 and all(json.loads(line) for line in lines)  # the cut record is gone

    def refuse(*args):
        raise AssertionError("a stored decision was made again")

    monkeypatch.setattr(FlatMonteCarlo, "select_move", refuse)
    assert (choice_rates(GAME, EMPTY, _flat, (1, 3), 12, 7, out=out).counts == fresh.counts).all()
    with pytest.raises(RecordFileError, match="its budgets is"):
        choice_rates(GAME, EMPTY, _flat, (1, 2), 12, 7, out=out)
    with pytest.raises(RecordFileError, match="its seed is"):
        choice_rates(GAME, EMPTY, _flat, (1, 3), 12, 8, out=out)


def test_a_record_file_refuses_a_damaged_line_before_the_last(tmp_path):
    path = tmp_path / "r.jsonl"
    store = RecordFile(path, {"kind": "test"})
    store.append([{"a": 1}, {"a": 2}])
    assert RecordFile(path, {"kind": "test"}).read() == [{"a": 1}, {"a": 2}]
    path.write_text(path.read_text().replace('{"a":1}', '{"a":'))
    with pytest.raises(RecordFileError, match="line 2"):
        RecordFile(path, {"kind": "test"}).read()
    path.write_text("not json\n")
    with pytest.raises(RecordFileError, match="not a header"):
        RecordFile(path, {"kind": "test"}).read()
    path.write_text("not json")
    with pytest.raises(RecordFileError, match="not a header"):
        RecordFile(path, {"kind": "test"}).append([{"a": 3}])
    path.write_text('{"format":"mctslab-rec')  # stopped while writing the header: started again
    RecordFile(path, {"kind": "test"}).append([{"a": 3}])
    assert RecordFile(path, {"kind": "test"}).read() == [{"a": 3}]
