"""Notebook 01's stored bandit runs (course.experiments.bandit_runs): complete, and played again from their seeds."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from mctslab.bandits import (
    UCB1,
    BanditResult,
    BernoulliArms,
    EpsilonGreedy,
    ExploreThenCommit,
    Greedy,
    RoundRobin,
    ThompsonSampling,
    UCB1Tuned,
    compare,
    log_grid,
    run,
)
from mctslab.course.editions import DATA_FOLDER, NOTEBOOKS
from mctslab.course.experiments import bandit_runs
from mctslab.course.experiments.bandit_runs import load_run, run_file, run_header, stored_compare, stored_run
from mctslab.ucb import SQRT2

DATA = NOTEBOOKS / DATA_FOLDER / "01_bandits_and_ucb1"
SOLUTION_DATA = NOTEBOOKS / "solution_data" / "01_bandits_and_ucb1"
"""Exercise 3's reference sweep: beside data/, not in it (the student edition ships data/; it is the answer)."""
MACHINES = BernoulliArms([0.1, 0.3, 0.5, 0.7, 0.9])
MOVES = BernoulliArms([0.3, 0.4, 0.45, 0.5, 0.5, 0.55, 0.6, 0.65])
GRID = (0.2, 0.3, 0.4, 0.5, 0.7, 1.0, SQRT2)
EXPERIMENTS = {  # name -> (policies, bandit, runs, steps, record, seed, folder), as the notebook calls stored_compare
    "race": (
        lambda: [Greedy(), EpsilonGreedy(0.1), ExploreThenCommit(20), UCB1(), UCB1Tuned(), ThompsonSampling()],
        MACHINES,
        400,
        10_000,
        None,
        2024,
        DATA,
    ),
    "anytime": (
        lambda: [UCB1(0.3), UCB1(), EpsilonGreedy(0.1), ThompsonSampling(), RoundRobin()],
        MOVES,
        400,
        3000,
        [50, 100, 200, 500, 1000, 2000, 3000],
        2024,
        DATA,
    ),
    "sweep": (lambda: [UCB1(c) for c in GRID], MACHINES, 200, 10_000, [10_000], 0, SOLUTION_DATA),
}


def same(a: BanditResult, b: BanditResult) -> bool:
    """Field for field, and for arrays dtype, shape and every bit."""
    for field in dataclasses.fields(BanditResult):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray):
            if not (x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()):
                return False
        elif x != y:
            return False
    return True


def refuse(*args, **kwargs):
    raise AssertionError("a stored run was played again")


def _stored(name: str, monkeypatch) -> dict[str, BanditResult]:
    policies, arms, runs, steps, record, seed, folder = EXPERIMENTS[name]
    monkeypatch.setattr(bandit_runs, "run", refuse)  # read, nothing played
    return stored_compare(
        policies(), arms, runs=runs, steps=steps, seed=seed, record=record, progress=False, folder=folder
    )


@pytest.mark.parametrize("folder", [DATA, SOLUTION_DATA], ids=["data", "solution_data"])
def test_the_folders_hold_every_run_of_notebook_01_and_nothing_else(folder, monkeypatch):
    files = set()
    for name, (policies, arms, runs, steps, record, seed, where) in EXPERIMENTS.items():
        if where != folder:
            continue
        stored = _stored(name, monkeypatch)  # each file's header is checked as it is read
        assert list(stored) == [p.name for p in policies()]
        times = log_grid(steps) if record is None else np.array(record)
        for policy in policies():
            header = run_header(policy, arms, runs=runs, steps=steps, seed=seed, times=times)
            path = run_file(folder, header)
            assert _header_of(path) == header and header["seed"] == {"entropy": seed, "spawn_key": []}
            assert stored[policy.name].regret.shape == (runs, times.size)
            files.add(path.name)
    assert sorted(p.name for p in folder.iterdir()) == sorted(files)
    # The student edition copies data/ and nothing else beside the notebooks (test_course_export).
    assert (folder == DATA) == folder.is_relative_to(NOTEBOOKS / DATA_FOLDER)


@pytest.mark.parametrize("name", ["race", "anytime"])  # the sweep records only its last pull
def test_the_first_pulls_of_every_stored_run_are_played_again_from_its_seed(name, monkeypatch):
    policies, arms, runs, _, _, seed, _ = EXPERIMENTS[name]
    stored = _stored(name, monkeypatch)
    for policy in policies():  # none plans with its horizon: a run's first 100 pulls are a 100-pull run's
        result = stored[policy.name]
        early = result.times[result.times <= 100]
        fresh = run(policy, arms, runs=runs, steps=100, seed=seed, record=early, progress=False)
        for measure in ("regret", "simple_regret", "optimal_fraction"):
            assert fresh.metric(measure).tobytes() == result.metric(measure)[:, : early.size].tobytes(), measure


@pytest.mark.parametrize(
    ("name", "policy"), [("race", ExploreThenCommit(20)), ("anytime", RoundRobin()), ("sweep", UCB1(0.4))]
)
def test_a_whole_stored_run_of_each_experiment_is_played_again_from_its_seed(name, policy, monkeypatch):
    _, arms, runs, steps, record, seed, _ = EXPERIMENTS[name]  # a cheap run of each, played again, nothing kept
    stored = _stored(name, monkeypatch)[policy.name]
    assert same(run(policy, arms, runs=runs, steps=steps, seed=seed, record=record, progress=False), stored)


def test_from_an_empty_folder_runs_are_played_stored_and_read_back_bit_for_bit(tmp_path, monkeypatch):
    folder = tmp_path / "data" / "01"
    policies = [Greedy(), ExploreThenCommit(2), UCB1(0.5), ThompsonSampling()]
    fresh = compare(policies, MACHINES, runs=7, steps=60, seed=3, progress=False)
    first = stored_compare(policies[:2], MACHINES, runs=7, steps=60, seed=3, progress=False, folder=folder)
    played = []
    monkeypatch.setattr(bandit_runs, "run", lambda policy, *a, **k: played.append(policy.name) or run(policy, *a, **k))
    whole = stored_compare(policies, MACHINES, runs=7, steps=60, seed=3, progress=False, folder=folder)
    assert played == ["UCB1(c=0.5)", "Thompson"]  # the two stored were read, the two missing played
    monkeypatch.setattr(bandit_runs, "run", refuse)
    again = stored_compare(policies, MACHINES, runs=7, steps=60, seed=3, progress=False, folder=folder)
    assert all(same(r[n], fresh[n]) for r in (first, whole, again) for n in r) and list(again) == list(fresh)
    assert len(list(folder.iterdir())) == 4 and not list(folder.glob("*.tmp"))
    read = stored_run(UCB1(0.5), MACHINES, runs=7, steps=60, seed=3, progress=False, folder=folder)
    assert same(read, fresh["UCB1(c=0.5)"])
    monkeypatch.undo()
    other = stored_run(UCB1(0.5), MACHINES, runs=7, steps=60, seed=4, progress=False, folder=folder)  # another seed
    assert not same(other, fresh["UCB1(c=0.5)"]) and len(list(folder.iterdir())) == 5


def test_a_damaged_or_misplaced_file_is_refused_and_unstorable_runs_say_why(tmp_path):
    ucb, greedy = (
        stored_run(p, MACHINES, runs=3, steps=20, seed=1, progress=False, folder=tmp_path) for p in (UCB1(), Greedy())
    )
    path = {_header_of(p)["policy"]["name"]: p for p in tmp_path.iterdir()}
    path[ucb.policy].write_bytes(path[greedy.policy].read_bytes())  # another run's file under this run's name
    with pytest.raises(ValueError, match=r"holds another run \(policy differ\)"):
        stored_run(UCB1(), MACHINES, runs=3, steps=20, seed=1, progress=False, folder=tmp_path)
    path[ucb.policy].write_bytes(path[greedy.policy].read_bytes()[:100])
    with pytest.raises(ValueError, match="not a sound stored bandit run"):
        stored_run(UCB1(), MACHINES, runs=3, steps=20, seed=1, progress=False, folder=tmp_path)
    header = run_header(Greedy(), MACHINES, runs=3, steps=20, seed=1, times=greedy.times)
    changed = dataclasses.replace(greedy, regret=greedy.regret[:, :-1])
    with pytest.raises(ValueError, match="regret has shape"):  # never written with the wrong shape
        bandit_runs.save_run(tmp_path / "x.npz", header, changed)
    with pytest.raises(TypeError, match="seed"):  # fresh entropy: another run every time, nothing to store
        stored_run(Greedy(), MACHINES, runs=3, steps=20, seed=None, progress=False, folder=tmp_path)

    class Mine(Greedy):
        def __init__(self):
            self.table = {"a": 1}

    with pytest.raises(ValueError, match="attribute 'table'"):
        stored_run(Mine(), MACHINES, runs=3, steps=20, seed=1, progress=False, folder=tmp_path)
    assert load_run(tmp_path / "none.npz", header, MACHINES) is None
    assert isinstance(stored_run(Mine(), MACHINES, runs=3, steps=20, seed=1, progress=False), BanditResult)


def _header_of(path) -> dict:
    with np.load(path) as data:
        return json.loads(str(data["header"]))
