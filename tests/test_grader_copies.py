"""Copies flagged (issue 36, item 3): the reference solution handed in, and near-identical pairs; scores untouched.

The threshold is tested on the course's own agents written in different styles (a class
whose methods are the phases, a recursive dataclass agent, notebook 04b's plain functions,
the functions "as a student writes them", and for notebook 12 the skeleton filled in, a
recursive class of its own nodes, a student's notebook): none is flagged against another,
while a copy renamed, reformatted, re-commented (docstrings, type hints, comments) is, and so
is one whose methods are also reordered with a line added. All in-process on code strings:
no kernel runs here.
"""

from __future__ import annotations

import csv
import hashlib
import inspect
import itertools
import json
from pathlib import Path

import test_exercise_blind_spots as blind
import test_exercise_chance as chance
import test_exercise_parts as parts
import test_exercise_uct_agent as agent
import test_exercises_uct as reference
from test_exercise_blame import agent_of
from test_grader import _student

from mctslab.course.grader.batch import write_csv
from mctslab.course.grader.catalogue import EXERCISES
from mctslab.course.grader.copies import (
    MIN_FINGERPRINTS,
    THRESHOLD,
    WHOLE_FILE,
    Fingerprint,
    attach_copies,
    reference_parts,
    similarity,
)
from mctslab.course.grader.html import write_report
from mctslab.course.grader.winnow import fingerprint, normalise

REF_04B = reference_parts(EXERCISES["04b"])
REF_12 = reference_parts(EXERCISES["12"])


def _source(*objects: object) -> str:
    return "\n\n".join(inspect.getsource(o) for o in objects)


def _print(code: str, base: frozenset[int] = REF_04B.base) -> Fingerprint:
    return Fingerprint(tuple(normalise(code, canonical=True)), fingerprint(normalise(code)) - base)


STYLES_04B = {  # whole agents, each with its own helpers
    "a class of phases": _source(agent.Node, agent.score, agent.Student),
    "a recursive dataclass": _source(blind.Vertex, blind.RecursiveUCT),
    "notebook functions": _source(reference.ucb1, reference.select, reference.expand, reference.simulate,
                                  reference.backpropagate, agent_of),
    "as a student writes them": _source(parts.ucb1, parts.select, parts.expand, parts.simulate, parts.backpropagate),
}  # fmt: skip
STYLES_12 = {
    "the skeleton filled in": _source(chance.ucb1, chance.expand, chance.backpropagate, chance.draw_outcome,
                                      chance.select_chance, chance.expand_chance, chance.simulate_chance,
                                      chance.ChanceUCT),
    "a recursive class": _source(chance.Leaf, chance.DiceMCTS),
    # It takes the skeleton's select_chance and draw_outcome as written: the closest honest pair here.
    "a student's notebook": _source(parts.expand, blind.expand_chance, blind.simulate_chance, blind.DiceStudent,
                                    chance.select_chance, chance.draw_outcome),
}  # fmt: skip

# The class of phases, disguised: every name changed, comments, docstrings and type hints added, laid out anew.
DISGUISED = '''
class Vertex:
    """A node of my search tree."""

    def __init__(self, position, up, action, mover, to_try):
        self.state = position  # the position
        self.parent = up
        self.move = action
        self.player = mover
        self.untried = to_try
        self.children = []
        self.visits = 0
        self.wins = 0


def value_of(kid: Vertex, n_parent: int, explore: float) -> float:
    # UCB1
    if kid.visits == 0:
        return math.inf
    return (kid.wins / kid.visits
            + explore * math.sqrt(math.log(n_parent) / kid.visits))


class MyAgent:
    """My own UCT agent, written from scratch."""
    def __init__(self, iterations: int = 500, c: float = 1.4142135623730951, seed=None) -> None:
        self.iterations = iterations; self.c = c
        self.rng = random.Random(seed)

    def choose(self, v):
        champion, champion_value = None, -1.0
        for kid in v.children:
            val = value_of(kid, v.visits, self.c)
            if val > champion_value:
                champion, champion_value = kid, val
        return champion

    def go_down(self, v):
        while len(v.untried) == 0 and len(v.children) > 0:
            v = self.choose(v)   # follow UCB1
        return v

    def add_child(self, g, v):
        if len(v.untried) == 0:
            return v
        j = self.rng.randrange(len(v.untried))
        a = v.untried[j]
        del v.untried[j]
        s = g.apply(v.state, a)
        kid = Vertex(s, v, a, g.to_move(v.state), list(g.legal_moves(s)))
        v.children.append(kid)
        return kid

    def rollout(self, g, s):
        while not g.is_terminal(s):
            options = g.legal_moves(s)
            s = g.apply(s, options[self.rng.randrange(len(options))])
        return g.returns(s)

    def backup(self, v, outcome):
        while v is not None:
            v.visits += 1
            v.wins += outcome[v.player]
            v = v.parent

    def search(self, g, s):
        top = Vertex(s, None, None, 1 - g.to_move(s), list(g.legal_moves(s)))
        for _ in range(self.iterations):
            leaf = self.add_child(g, self.go_down(top))
            self.backup(leaf, self.rollout(g, leaf.state))
        return top

    def best(self, top):
        b = top.children[0]
        for kid in top.children:
            if kid.visits > b.visits:
                b = kid
        return b.move

    def select_move(self, g, s):
        return self.best(self.search(g, s))
'''


def _reordered(code: str) -> str:
    """The disguise with its methods in another order and a statement added to the playout."""
    head, _, methods = code.partition("    def choose")
    blocks = ("    def choose" + methods).split("\n\n")
    loop = "        while not g.is_terminal(s):"
    blocks[3] = blocks[3].replace(loop, "        steps = 0\n" + loop)
    return head + "\n\n".join(blocks[::-1])


def test_the_course_styles_are_not_flagged_against_each_other() -> None:
    agents, parts_alone = [], []
    for styles, base in ((STYLES_04B, REF_04B.base), (STYLES_12, REF_12.base)):
        prints = {name: _print(code, base) for name, code in styles.items()}
        assert all(p.comparable for p in prints.values())
        for a, b in itertools.combinations(prints, 2):
            agents.append(similarity(prints[a], prints[b]))
            assert agents[-1] < THRESHOLD, (a, b, agents[-1])
    for name in ("ucb1", "select", "expand", "simulate", "backpropagate"):  # part by part: reference vs own style
        mine, theirs = _print(_source(getattr(parts, name))), _print(_source(getattr(reference, name)))
        if mine.comparable and theirs.comparable:
            parts_alone.append(similarity(mine, theirs))
            assert parts_alone[-1] < THRESHOLD, (name, parts_alone[-1])
    # As copies.THRESHOLD and the README say: at most 0.51 (expand), 0.49 (the notebook 12 that takes two
    # functions from the skeleton), the others at most 0.35; 0.19 below the threshold.
    assert round(max(parts_alone), 2) == 0.51 and round(max(agents), 2) == 0.49, (parts_alone, agents)
    assert sorted(agents)[-2] <= 0.35 and THRESHOLD - max(agents + parts_alone) >= 0.15


def test_a_renamed_reformatted_recommented_copy_is_flagged_and_so_is_one_reordered() -> None:
    original = _print(_source(agent.Node, agent.score, agent.Student))
    disguised = _print(DISGUISED)
    assert disguised.canonical == original.canonical and similarity(original, disguised) == 1.0
    reordered = _print(_reordered(DISGUISED))
    assert reordered.canonical != original.canonical
    assert round(similarity(original, reordered), 2) == 0.99 and THRESHOLD == 0.7, similarity(original, reordered)
    assert all(similarity(reordered, _print(code)) < THRESHOLD for code in list(STYLES_04B.values())[1:])


def test_tiny_parts_are_not_compared() -> None:
    """``ucb1`` is one line of formula: honest students write it alike, so it is too short to flag."""
    assert not _print(_source(reference.ucb1)).comparable and MIN_FINGERPRINTS == 20
    too_short = {part for part, found in REF_04B.parts.items() if not found.comparable}
    assert too_short == {"ucb1", "select", "simulate", "backpropagate"} and REF_12.parts["chance_uct"].comparable


def _notebook(*sources: str) -> dict:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s}
             for s in sources]  # fmt: skip
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _class(folder: Path) -> list[dict]:
    """A small class: the reference handed in, a class of phases and its disguised copy, two identical files."""
    as_myuct = _source(agent.Node, agent.score, agent.Student).replace("class Student", "class MyUCT")
    recursive = _source(blind.Vertex, blind.RecursiveUCT).replace("RecursiveUCT", "MyUCT")
    handed = {
        "ada/04b.ipynb": _student(),
        "bob smith/04b.ipynb": _notebook("import math, random", as_myuct),
        "cy/04b.ipynb": _notebook("import math, random\n" + DISGUISED.replace("MyAgent", "MyUCT")),
        "di/04b.ipynb": _notebook("from dataclasses import dataclass, field\nfrom typing import Any", recursive),
        "ann/04b.ipynb": {**_student(), "metadata": {"ann": 1}},  # the reference too, not the same bytes
        "ed/04b.ipynb": _notebook("x = 1"),
        "flo/04b.ipynb": _notebook("x = 1"),
    }
    rows = []
    for name, notebook in handed.items():
        path = folder / name
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(notebook))
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        rows.append({"submission": name, "exercise": "04b", "sha256": digest, "score": 7.0, "max_score": 100.0,
                     "flags": "", "points": {"uct": 7.0}, "reports": {}})  # fmt: skip
    return rows


def test_a_class_gets_its_copy_flags_in_the_csv_and_the_report_and_keeps_its_scores(tmp_path: Path) -> None:
    rows = attach_copies(_class(tmp_path / "in"), tmp_path / "in")
    by = {row["submission"].split("/")[0]: row for row in rows}
    for name in ("ada", "ann"):
        assert set(by[name]["copies"]["reference"]) == {"expand", "uct", "wilson"}  # the others: too short
        assert by[name]["copies"]["similar"] == []
    for a, b in (("bob smith", "cy"), ("cy", "bob smith")):
        assert by[a]["copies"]["similar"] == [{"other": f"{b}/04b.ipynb", "part": "uct", "similarity": 1.0}]
    assert by["ed"]["copies"]["similar"] == [{"other": "flo/04b.ipynb", "part": WHOLE_FILE, "similarity": 1.0}]
    assert by["di"]["copies"] == {"reference": {}, "similar": []}
    assert all(row["score"] == 7.0 and row["flags"] == "" for row in rows)  # flags inform: no score changes

    write_csv(rows, tmp_path / "grades.csv")
    with (tmp_path / "grades.csv").open(encoding="utf-8") as handle:
        flags = {r["submission"].split("/")[0]: r["flags"] for r in csv.DictReader(handle)}
    assert flags == {
        "ada": "matches-reference",
        "ann": "matches-reference",
        "bob smith": "similar:cy/04b.ipynb",
        "cy": "similar:bob%20smith/04b.ipynb",  # one flag: the flags column is split on spaces
        "di": "",
        "ed": "similar:flo/04b.ipynb",
        "flo": "similar:ed/04b.ipynb",
    }
    index = write_report(rows, tmp_path / "report")
    page = (index.parent / "copies.html").read_text(encoding="utf-8")
    assert 'href="copies.html"' in index.read_text(encoding="utf-8")
    assert page.count("<tr>") == 1 + 2 + 2 * 3  # header, two pairs, the reference's three parts twice
    assert "copies</a>: 2 pairs of similar submissions, 2 like the reference solution" in index.read_text()
    assert "bob smith/04b.ipynb</a></td><td>cy/04b.ipynb" in page and WHOLE_FILE in page
    ada = next((index.parent / "students").glob("ada_*.html")).read_text(encoding="utf-8")
    assert "matches-reference" in ada and "expand, uct, wilson" in ada
