"""Notebook 08's stored runs (mctslab.course.reproduction.stored): complete, and what the code plays.

The notebook reads its table, planned rows and budget curves from per-chunk counts stored in
the package. These tests prove that every chunk the notebook needs is stored (nothing would be
played), that a chunk of each kind, played again from the seed in its header, gives the stored
counts, and that from an empty folder the same functions play, store and read back the very
numbers they compute without one.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

from mctslab.course.experiments import budget_curve
from mctslab.course.experiments import stored_counts as sc
from mctslab.course.experiments.curves import CURVES_FILE
from mctslab.course.reproduction import PAPER_ROWS, PLANNED_ROWS, reproduce, stored
from mctslab.course.reproduction import experiments as rx
from mctslab.course.reproduction.experiments import ROWS_FILE, centre_first_rate

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "08_reproducing_racioppo_2020.ipynb"


def _runs(name: str) -> dict:
    data = json.loads((stored.FOLDER / name).read_text())
    assert (data["format"], data["version"]) == (sc.FORMAT, sc.VERSION)
    return data["runs"]


def _seed(header: dict) -> np.random.SeedSequence:
    return np.random.SeedSequence(header["seed"]["entropy"], spawn_key=tuple(header["seed"]["spawn_key"]))


def _nothing_played(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError(f"a chunk was missing and would be played: {args[:3]}")

    monkeypatch.setattr(sc, "match_chunk", refuse)
    monkeypatch.setattr(rx, "centre_first_rate", refuse)


def _notebook_settings() -> dict[str, object]:
    """The notebook's settings at SCALE = 1, evaluated from its cells' assignments."""
    wanted = {"GAMES", "PLANNED_GAMES", "CURVE_GAMES", "UCT_CURVE_GAMES", "SEED", "playouts"}
    found: dict[str, object] = {}
    for cell in json.loads(NOTEBOOK.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.parse("".join(cell["source"])).body:
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target = node.targets[0]
            names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
            if not {getattr(n, "id", None) for n in names} & wanted:
                continue
            value = eval(compile(ast.Expression(node.value), "<notebook>", "eval"), {"SCALE": 1})
            values = [value] if isinstance(target, ast.Name) else list(value)
            found.update({n.id: v for n, v in zip(names, values, strict=True)})
    return found


def test_the_stored_runs_have_the_notebooks_settings():
    settings = _notebook_settings()
    assert settings == {
        "GAMES": stored.GAMES,
        "PLANNED_GAMES": stored.PLANNED_GAMES,
        "CURVE_GAMES": stored.CURVE_GAMES,
        "UCT_CURVE_GAMES": stored.UCT_CURVE_GAMES,
        "SEED": stored.SEED,
        "playouts": list(stored.CURVE_PLAYOUTS),
    }


def test_every_run_of_the_notebook_is_stored_complete(monkeypatch):
    runs = {**_runs(ROWS_FILE), **_runs(CURVES_FILE)}
    assert all(run["header"]["seed"]["entropy"] == stored.SEED for run in runs.values())
    _nothing_played(monkeypatch)
    table, planned, planned_self, curves = stored.notebook_runs(workers=1, progress=False)  # headers checked too
    assert len(table.measured) == 36 and len(planned.measured) == 4 and len(planned_self.measured) == 2
    assert table.measured[("random-In8", "paper")].games == 10_000 and planned_self.measured[
        ("uct-both", "corrected")
    ].games == stored.PLANNED_GAMES // 5  # fmt: skip
    assert len(curves) == 6 and all(len(c.outcomes) == len(stored.CURVE_PLAYOUTS) for c in curves.values())
    assert {o.games for o in curves[("o", "uct")].outcomes} == {stored.UCT_CURVE_GAMES}


@pytest.mark.parametrize(
    ("file", "run", "span"),
    [
        (ROWS_FILE, "mc100-o paper", "300-400"),  # a table row: whole games, X wins / O wins / draws
        (ROWS_FILE, "centre-In150 corrected", "0-100"),  # whole games, X ends holding the centre
        (ROWS_FILE, "centre-100 paper", "9900-10000"),  # first moves on the empty board
        (ROWS_FILE, "uct-both fixed", "0-20"),  # a planned row (UCT 500 against itself)
        (CURVES_FILE, "racioppo:playouts=100,procedure=paper as x vs random, tictactoe, seed 2020", "200-300"),
        (CURVES_FILE, "uct:iterations=25 as o vs random, tictactoe, seed 2020", "0-100"),
    ],
)
def test_a_stored_chunk_of_each_kind_is_played_again_from_its_seed(file, run, span):
    stored_run = _runs(file)[run]
    header, start, stop = stored_run["header"], *map(int, span.split("-"))
    if header["kind"] == "centre":
        fresh = centre_first_rate(header["agent"], stop - start, _seed(header), start)
    else:
        games = sc.match_chunk(header["game"], *header["agents"], _seed(header), header["seats"], (start, stop))
        held = header["counted"] == "X ends holding the centre"
        fresh = rx._held_centre(games) if held else sc.outcome_counts(games)
    assert list(fresh) == stored_run["chunks"][span]


def test_from_an_empty_folder_runs_are_played_stored_and_read_back(tmp_path, monkeypatch):
    keys = ("random-1000", "mc10-o", "centre-10", "centre-In150")
    rows = [r for r in PAPER_ROWS if r.key in keys] + [r for r in PLANNED_ROWS if r.key == "minimax-o"]
    options = {"games": 30, "seed": 9, "min_cheap_games": 120, "workers": 1, "progress": False}
    fresh = reproduce(rows, **options)
    assert reproduce(rows, folder=tmp_path, **options).measured == fresh.measured  # played and stored
    chunks = json.loads((tmp_path / ROWS_FILE).read_text())["runs"]["random-1000 fixed"]["chunks"]
    assert list(chunks) == ["0-100", "100-120"]
    specs = ["racioppo:playouts=3", "uct:iterations=8"]
    curve = budget_curve("c", specs, [3, 8], seat="o", games=40, seed=9, workers=1)
    assert budget_curve("c", specs, [3, 8], seat="o", games=40, seed=9, workers=1, folder=tmp_path) == curve
    _nothing_played(monkeypatch)  # now all is stored: read back, the same numbers
    assert reproduce(rows, folder=tmp_path, **options).measured == fresh.measured
    assert budget_curve("c", specs, [3, 8], seat="o", games=40, seed=9, workers=1, folder=tmp_path) == curve
    with pytest.raises(ValueError, match="another run named 'random-1000 fixed'.*seed"):  # never counted as another run
        reproduce(rows, folder=tmp_path, **{**options, "seed": 10})


def test_a_counts_file_keeps_each_chunk_and_refuses_damage(tmp_path):
    path, header = tmp_path / "counts.json", {"kind": "test"}
    calls = []

    def compute(spans):
        for span in spans:
            calls.append(span)
            yield span, (span[1] - span[0], 1)

    assert sc.stored_counts(path, "r", header, 250, compute) == (250, 3)
    assert sc.stored_counts(path, "r", header, 250, compute) == (250, 3) and len(calls) == 3  # read, not computed
    assert sc.stored_counts(path, "r", header, 20, compute) == (20, 1) and calls[-1] == (0, 20)  # its own range
    path.write_text(path.read_text().replace('"100-200"', '"100-two hundred"'))
    with pytest.raises(ValueError, match="not a sound stored-counts file"):
        sc.stored_counts(path, "r", header, 250, compute)
