"""Drawing the tree: labels and counts in the DOT source, pruning limits, phases, and the text fallback."""

from __future__ import annotations

import base64
import re
import shutil

import pytest
from conftest import registered_games

from mctslab import UCT, make_game
from mctslab.ucb import exploration
from mctslab.viz import (
    PHASES,
    SearchRecorder,
    draw_iteration,
    draw_tree,
    graph_html,
    most_visited_path,
    prune,
    side_by_side,
    tree_outline,
)
from mctslab.viz import tree as tree_module
from mctslab.viz.explorer import fitted
from mctslab.viz.fit import MIN_LABEL_PX, min_width_px
from mctslab.viz.labels import mark, move_text
from mctslab.viz.prune import ranked
from mctslab.viz.tree import BEST, LAST, NO_DOT_MESSAGE

GAMES = registered_games(handled_by="uct")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot program is not installed")


def search(spec, iterations=150, seed=0, moves=()):
    game = make_game(spec)
    return game, UCT(iterations=iterations, seed=seed).search(game, game.state_from_moves(moves))


def drawn_nodes(graph):
    """Names of the tree nodes in a drawing's DOT source (not the summary or playout boxes)."""
    return re.findall(r"^\s*(n\d+) \[label=", graph.source, flags=re.M)


@pytest.mark.parametrize("spec", GAMES)
def test_drawing_shows_moves_and_wins_over_visits_on_every_game(spec):
    game, root = search(spec)
    graph = draw_tree(root, game, depth=2, top_k=3, max_nodes=12)
    source = graph.source
    assert "150 visits" in source and "to move" in source
    best = most_visited_path(root)[1]
    assert f"{best.wins:g}/{best.visits}" in source
    assert move_text(game, best.move) in source and mark(game, best.player) in source
    assert 1 < len(drawn_nodes(graph)) <= 12


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize(("depth", "top_k", "max_nodes"), [(1, 2, None), (3, 2, 10), (None, None, 25), (2, 5, 8)])
def test_pruning_respects_every_limit(spec, depth, top_k, max_nodes):
    game, root = search(spec, iterations=200)
    view = prune(root, depth=depth, top_k=top_k, max_nodes=max_nodes)
    if max_nodes is not None:
        assert len(view.nodes) <= max_nodes
    for node in view.nodes:
        assert depth is None or view.depth[id(node)] <= depth
        kids = view.children[id(node)]
        assert top_k is None or len(kids) <= top_k
        count, visits = view.hidden[id(node)]
        assert count + len(kids) == len(node.children)
        assert visits + sum(ch.visits for ch in kids) == sum(ch.visits for ch in node.children)
    # nodes are taken most visited first: no node left out while eligible (within depth and
    # top_k, parent drawn) has more visits than a node drawn
    eligible = [
        ch
        for node in view.nodes
        if depth is None or view.depth[id(node)] < depth
        for ch in ranked(node)[:top_k]
        if ch not in view
    ]
    if eligible and len(view.nodes) > 1:
        assert min(n.visits for n in view.nodes[1:]) >= max(ch.visits for ch in eligible)
    assert view.boxes() <= 2 * len(view.nodes)
    graph = draw_tree(root, game, depth=depth, top_k=top_k, max_nodes=max_nodes)
    assert len(drawn_nodes(graph)) == len(view.nodes)


def test_without_limits_the_whole_tree_is_drawn_and_depth_zero_is_the_root_alone():
    game, root = search("tictactoe", iterations=60)
    assert len(prune(root, depth=None, top_k=None, max_nodes=None).nodes) == root.size()
    assert [n for n in prune(root, depth=0).nodes] == [root]
    with pytest.raises(ValueError, match="top_k"):
        prune(root, top_k=0)


def test_a_root_with_81_children_keeps_the_top_k_and_summarises_the_rest():
    game, root = search("uttt", iterations=400)
    assert len(root.children) == 81
    graph = draw_tree(root, game, depth=1, top_k=5)
    top5 = sorted(root.children, key=lambda ch: (-ch.visits, ch.move))[:5]
    rest = sum(ch.visits for ch in root.children) - sum(ch.visits for ch in top5)
    assert len(drawn_nodes(graph)) == 6
    assert f"+ 76 more\n({rest} visits)" in graph.source
    for ch in top5:
        assert f"{ch.wins:g}/{ch.visits}" in graph.source


def test_small_boards_are_drawn_for_tic_tac_toe_and_move_labels_for_bigger_games():
    game, root = search("tictactoe", moves=[4])
    assert 'CELLBORDER="1"' in draw_tree(root, game, depth=1).source
    assert 'CELLBORDER="1"' not in draw_tree(root, game, depth=1, boards=False).source
    c4, c4_root = search("connect4")
    assert 'CELLBORDER="1"' not in draw_tree(c4_root, c4, depth=1).source
    assert "col " in draw_tree(c4_root, c4, depth=1).source


def test_mean_and_ucb_terms_are_those_of_the_ucb1_formula():
    game, root = search("tictactoe", iterations=100)
    child = most_visited_path(root)[1]
    source = draw_tree(root, game, depth=1, top_k=9, mean=True, ucb=True, c=0.7).source
    assert f"mean {child.mean:.2f}" in source
    assert f"ucb {child.mean:.2f}+{exploration(root.visits, child.visits, 0.7):.2f}" in source


def test_most_visited_and_last_iteration_paths_are_highlighted_and_the_last_one_always_shown():
    game = make_game("tictactoe")
    rec = SearchRecorder(game, game.initial_state(), seed=4)
    rec.run(100)
    record = rec.step()
    while record.path[1] is most_visited_path(rec.root)[1]:  # want a path off the main line
        record = rec.step()
    graph = draw_tree(rec.root, game, depth=1, top_k=1, max_nodes=None, last_path=record.path)
    assert BEST in graph.source and LAST in graph.source
    names = drawn_nodes(graph)
    assert len(names) == len(record.path) + 1  # the kept path, plus the top child
    text = tree_outline(rec.root, game, depth=1, top_k=1, max_nodes=None, last_path=record.path)
    assert text.count("[last]") == len(record.path) and "[most visited]" in text


@pytest.mark.parametrize("spec", ["tictactoe", "connect4", "uttt", "nim"])
def test_each_phase_of_an_iteration_is_drawn_like_seed_000(spec):
    game = make_game(spec)
    rec = SearchRecorder(game, game.initial_state(), seed=5)
    rec.run(100)  # past the 81 children of Ultimate Tic-Tac-Toe's root
    r = rec.step()
    assert r.expanded is not None and r.selection
    drawings = {phase: draw_iteration(r, phase, game).source for phase in PHASES}
    new_label = f"<TD>{mark(game, r.expanded.player)} {move_text(game, r.expanded.move)}</TD>"
    # the new node does not exist yet in the selection phase, and is there from expansion on
    assert drawings["expansion"].count(new_label) == drawings["selection"].count(new_label) + 1
    for step in r.selection:  # the UCB1 value of the 9 most visited children and of the chosen one
        drawn = set(map(id, ranked(step.node)[:9])) | {id(step.chosen)}
        for s in step.scores:
            if id(s.node) in drawn:
                assert f"={s.ucb:.2f}" in drawings["selection"]
    assert "0/0 new" in drawings["expansion"]
    assert "playout" in drawings["simulation"] and "dashed" in drawings["simulation"]
    assert "playout" not in drawings["expansion"]
    for u in r.updates[:-1]:
        assert f"<B>{u.wins + u.reward:g}/{u.visits + 1}</B>" in drawings["backpropagation"]
        assert f"{u.wins:g}/{u.visits}" in drawings["selection"] or u.node is r.expanded
    assert f"<B>{rec.root.visits} visits</B>" in drawings["backpropagation"]
    assert f"{rec.root.visits - 1} visits" in drawings["selection"]


def test_draw_iteration_refuses_a_tree_that_has_grown_and_unknown_phases():
    game = make_game("tictactoe")
    rec = SearchRecorder(game, game.initial_state(), seed=0)
    r = rec.run(5).step()
    with pytest.raises(ValueError, match="phases are"):
        draw_iteration(r, "rollout", game)
    rec.run(1)
    with pytest.raises(ValueError, match="has grown"):
        draw_iteration(r, "selection", game)


def test_without_dot_a_drawing_shows_the_message_and_the_same_tree_as_text(monkeypatch):
    game, root = search("tictactoe", iterations=80)
    graph = draw_tree(root, game, depth=2, top_k=3)
    monkeypatch.setattr(tree_module, "dot_available", lambda: False)
    bundle = graph._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    text = bundle["text/plain"]
    assert text.startswith(NO_DOT_MESSAGE)
    assert text.endswith(tree_outline(root, game, depth=2, top_k=3))
    best = most_visited_path(root)[1]
    assert f"X {best.move}  {best.wins:g}/{best.visits}" in text
    assert graph_html(graph).startswith("<pre>") and "80 visits" in graph_html(graph)
    assert "<pre>" in side_by_side([graph, graph], ["a", "b"])._repr_html_()


def test_when_dot_disappears_at_render_time_the_text_is_shown_not_an_error(monkeypatch):
    game, root = search("tictactoe", iterations=30)
    graph = draw_tree(root, game)
    monkeypatch.setattr(tree_module, "dot_available", lambda: True)
    monkeypatch.setenv("PATH", "")  # graphviz raises ExecutableNotFound
    assert graph._repr_mimebundle_() == {"text/plain": graph.text}
    assert graph_html(graph).startswith("<pre>")


@needs_dot
def test_with_dot_a_drawing_is_an_svg_and_can_be_saved(tmp_path):
    game, root = search("tictactoe", iterations=50)
    graph = draw_tree(root, game)
    svg = graph._repr_mimebundle_(include=["image/svg+xml"])["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and "50 visits" in svg
    saved = graph.render(tmp_path / "tree", format="svg")
    assert saved.endswith(".svg")
    html = side_by_side([graph, graph], ["c = 0.5", "c = 2"])._repr_html_()
    assert html.count("<svg") == 2 and "c = 0.5" in html and "max-width:100%" in html and "overflow:auto" in html
    with pytest.raises(ValueError, match="titles"):
        side_by_side([graph], ["a", "b"])


@needs_dot
def test_a_drawing_also_stores_a_png_and_its_outline_for_untrusted_views():
    game, root = search("tictactoe", iterations=50)
    graph = draw_tree(root, game, depth=2)
    bundle = graph._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    assert bundle["image/png"].startswith(b"\x89PNG")
    assert bundle["text/plain"] == graph.describe() and NO_DOT_MESSAGE not in bundle["text/plain"]
    assert bundle["text/plain"].startswith("root") and "50 visits" in bundle["text/plain"]
    assert set(graph._repr_mimebundle_(include=["image/png"])) == {"image/png"}
    assert set(graph._repr_mimebundle_(exclude=["image/png"])) == {"text/html", "text/plain"}


@needs_dot
def test_when_dot_cannot_make_a_png_the_svg_and_text_remain(monkeypatch):
    game, root = search("tictactoe", iterations=30)
    graph = draw_tree(root, game)
    real_pipe = type(graph).pipe

    def pipe(self, format=None, **kwargs):
        if format == "png":
            raise OSError("no PNG renderer")
        return real_pipe(self, format=format, **kwargs)

    monkeypatch.setattr(type(graph), "pipe", pipe)
    assert set(graph._repr_mimebundle_()) == {"text/html", "text/plain"}


def test_the_outline_lists_the_same_nodes_and_summaries_as_the_drawing():
    game, root = search("connect4", iterations=200)
    view = prune(root, depth=3, top_k=3, max_nodes=15)
    text = tree_outline(root, game, depth=3, top_k=3, max_nodes=15)
    lines = text.splitlines()
    assert len(lines) == view.boxes() + 1  # one line per box, plus the count at the end
    assert lines[-1] == f"({len(view.nodes)} of {root.size()} nodes shown)"
    assert lines[0] == "root (X to move)  200 visits"


def test_move_names_and_marks():
    assert move_text(make_game("uttt"), 40) == "40 (b4 c4)"
    assert move_text(make_game("connect4"), 3) == "col 3"
    assert move_text(make_game("nim"), 7) == "heap 1 take 3"
    assert move_text(make_game("nim"), 7, short=True) == "1:3"
    assert (mark(make_game("tictactoe"), 1), mark(make_game("nim"), 1)) == ("O", "P1")


@needs_dot
def test_a_wide_drawing_shrinks_to_the_page_but_its_labels_stay_readable():
    game, root = search("tictactoe", iterations=300)
    graph = draw_tree(root, game, depth=2, top_k=8, max_nodes=60)
    svg = graph._repr_mimebundle_(include=["image/svg+xml"])["image/svg+xml"]
    width_pt = float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1))
    smallest_pt = min(float(f) for f in re.findall(r'font-size="([\d.]+)"', svg))
    assert smallest_pt >= 10  # no 8 pt "+k below": at 75% its labels are still 10 px
    html = graph._repr_mimebundle_()["text/html"]
    image = re.search(r'<img src="data:image/svg\+xml;base64,([^"]+)" style="([^"]+)"', html)
    assert base64.b64decode(image.group(1)).decode().startswith("<svg") and "overflow-x:auto" in html
    style = dict(part.split(":") for part in image.group(2).split(";"))
    natural, narrowest = float(style["width"][:-2]), float(style["min-width"][:-2])
    assert style["max-width"] == "100%" and abs(natural - width_pt * 4 / 3) < 1
    # At the narrowest, the smallest label is 10 px high: smallest_pt * 4/3 px at natural size, scaled.
    assert abs(smallest_pt * 4 / 3 * narrowest / natural - MIN_LABEL_PX) < 0.1
    assert min_width_px("<svg/>") is None and "min-width" not in fitted("<svg width='9'>")
