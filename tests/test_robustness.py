"""Edges that are not bad input: a `dot` that exists but fails, and garbage collection inside a
timed search."""

from __future__ import annotations

import gc
import os
import stat
import sys

import pytest

from mctslab import UCT, make_agent, make_game
from mctslab.viz import tree as tree_module
from mctslab.viz.tree import graph_html

pytest.importorskip("graphviz")


@pytest.fixture
def broken_dot(tmp_path, monkeypatch):
    """A `dot` on the PATH that exists but fails, as a broken install does (exit status 1)."""
    fake = tmp_path / "dot"
    # it reads its input first (as dot does), so the failure is its exit status, not a broken pipe
    fake.write_text(
        "#!/bin/sh\ncat > /dev/null\necho 'Error: renderer for svg not found (broken install)' >&2\nexit 1\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    return fake


@pytest.mark.skipif(sys.platform.startswith("win"), reason="a shell script stands in for dot")
def test_a_dot_that_fails_falls_back_to_the_outline_with_the_reason(broken_dot):
    game = make_game("tictactoe")
    graph = make_agent("uct:iterations=60", seed=0).analyse(game, game.initial_state()).root
    drawing = tree_module.draw_tree(graph, game)
    assert tree_module.dot_available()  # dot is there...
    bundle = drawing._repr_mimebundle_()  # ...but fails: the notebook still shows the tree
    text = bundle["text/plain"]
    assert set(bundle) == {"text/plain"}
    assert "dot` program failed" in text and "renderer for svg not found" in text and "60 visits" in text
    html = graph_html(drawing)
    assert html.startswith("<pre>") and "renderer for svg not found" in html


def test_a_timed_search_runs_no_garbage_collection_inside_its_clock():
    """A full collection walks the whole kept tree in one pause (0.1-0.6 s measured): inside a timed
    move it overshot the budget. With the collector made eager, any collection in the move shows."""
    inside = {"now": False, "count": 0, "after": 0}

    def watch(phase, info):
        if phase == "start":
            inside["count" if inside["now"] else "after"] += 1

    game = make_game("connect4")
    timed = UCT(seconds=0.05, reuse=True, seed=0)
    old = gc.get_threshold()
    gc.callbacks.append(watch)
    gc.set_threshold(5, 1, 1)  # collect after every few allocations: the search would trigger hundreds
    try:
        state = game.initial_state()
        for _ in range(3):
            inside["now"] = True
            move = timed.select_move(game, state)
            inside["now"] = False
            state = game.play(game.play(state, move), 0 if move else 1)
        assert gc.isenabled()
        [[] for _ in range(100)]  # after the move, collection runs again (lists are tracked; object() is not)
    finally:
        gc.callbacks.remove(watch)
        gc.set_threshold(*old)
    # a collection or two may start at the edges of a move (entering or leaving the pause) with
    # a threshold this small; without the pause there were hundreds per move
    assert inside["count"] <= 2 * 3 and inside["after"] > 0, inside
    # an iteration budget is left alone (no clock to protect)
    counted = {"n": 0}

    def count(phase, info):
        counted["n"] += phase == "start"

    gc.callbacks.append(count)
    gc.set_threshold(5, 1, 1)
    try:
        UCT(iterations=200, seed=0).select_move(game, game.initial_state())
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*old)
    assert counted["n"] > 0
