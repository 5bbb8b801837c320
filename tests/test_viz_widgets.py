"""The explorer and the play board: their logic, and widgets that update when used (no browser)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from mctslab import IllegalMoveError, make_agent, make_game
from mctslab.games import drawing
from mctslab.viz import PHASES, PlaySession, TreeExplorer, play_board, tree_explorer
from mctslab.viz import tree as tree_module
from mctslab.viz.explorer import fitted
from mctslab.viz.playboard import BLANK
from mctslab.viz.session import BLOCK_FILL, BLOCK_LINE, MARK_COLOUR, WIN_FILL
from mctslab.viz.steps import SearchRecorder
from mctslab.viz.stored import WIDGET_STATE, WIDGET_VIEW, static_widgets

pytest.importorskip("ipywidgets")


@pytest.fixture(autouse=True)
def _text_drawings(monkeypatch):
    # The widgets show graph_html(); the text form keeps these tests independent of `dot`
    # (and fast). tests/test_viz_tree.py checks the SVG form.
    monkeypatch.setattr(tree_module, "dot_available", lambda: False)


def test_explorer_shows_the_tree_after_each_iteration_and_steps_through_the_phases():
    game = make_game("tictactoe")
    ex = TreeExplorer(game, iteration=10, seed=3)
    assert (ex.iteration, ex.phase, ex.root.visits) == (10, None, 10)
    ex.step()
    assert (ex.iteration, ex.phase, ex.root.visits) == (11, "selection", 11)
    for phase in PHASES[1:]:
        ex.step()
        assert (ex.iteration, ex.phase) == (11, phase)
    ex.step()
    assert (ex.iteration, ex.phase) == (12, "selection")
    ex.step(forward=False)
    assert (ex.iteration, ex.phase) == (11, "backpropagation")
    ex.go_to(5)  # backwards: the search is run again from the start, same seed
    expected = SearchRecorder(game, game.initial_state(), seed=3).run(5)
    assert ex.root.visits == 5 and ex.root.size() == expected.root.size()
    assert [ch.move for ch in ex.root.children] == [ch.move for ch in expected.root.children]
    with pytest.raises(ValueError):
        ex.go_to(0)


def test_explorer_re_centres_on_a_child_and_keeps_what_still_exists():
    game = make_game("tictactoe")
    ex = TreeExplorer(game, iteration=200, seed=0)
    label, move = ex.children()[0]
    assert label.startswith(f"X {move}: ")
    ex.enter(move)
    assert ex.top is ex.root.child(move)
    assert f"X {move}" in ex.figure().source.split("->")[0]
    grand = ex.children()[0][1]
    ex.enter(grand)
    ex.up()
    assert ex.focus == (move,)
    ex.enter(grand)
    ex.go_to(3)  # that deep node does not exist yet after 3 iterations
    assert len(ex.focus) < 2
    ex.home()
    assert ex.top is ex.root
    with pytest.raises(KeyError, match="expanded moves"):
        ex.enter(99)


def test_changing_c_re_runs_the_search_to_the_same_iteration():
    game = make_game("tictactoe")
    ex = TreeExplorer(game, iteration=300, seed=1)
    deep = ex.root.height()
    ex.set_c(0.1)
    assert ex.iteration == 300 and ex.root.visits == 300 and ex.c == 0.1
    assert ex.root.height() > deep  # little exploration: a deeper, narrower tree
    with pytest.raises(ValueError):
        ex.set_c(-1)


def test_explorer_phase_views_draw_the_recorded_iteration():
    game = make_game("connect4")
    ex = TreeExplorer(game, iteration=30, seed=0)
    ex.go_to(30, "simulation")
    assert "playout" in ex.figure().source
    assert "phase 3, simulation" in ex.summary()
    ex.enter(ex.record.path[1].move)  # phases can be drawn from a node below the root
    assert "3. Simulation" in ex.figure().source


def test_explorer_widget_updates_on_slider_buttons_and_menu():
    game = make_game("tictactoe")
    w = tree_explorer(game, iteration=20, max_iterations=200, seed=2)
    assert "iteration 20 " in w.status.value and "20 visits" in w.picture.value
    w.iteration.value = 50
    assert w.model.iteration == 50 and "50 visits" in w.picture.value
    w.forward.click()
    assert w.model.phase == "selection" and w.iteration.value == 51  # the slider follows
    assert "1. Selection" in w.picture.value
    w.back.click()
    assert w.model.phase == "backpropagation" and w.iteration.value == 50
    before = w.picture.value
    w.children.value = w.children.options[0][1]
    w.enter.click()
    assert w.model.focus == (w.model.root.children[0].move,) or len(w.model.focus) == 1
    assert w.picture.value != before
    w.home.click()
    assert w.model.focus == ()
    w.c.value = 0.5
    assert w.model.c == 0.5 and "c = 0.5" in w.status.value
    w.top_k.value = 2
    assert w.model.top_k == 2
    assert "application/vnd.jupyter.widget-view+json" in w._repr_mimebundle_()


def test_play_session_plays_your_move_and_the_agents_reply_with_its_statistics():
    game = make_game("tictactoe")
    session = PlaySession(game, make_agent("uct:iterations=200", seed=0), human=0)
    assert session.moves == [] and session.status() == "you (X) to move"
    reply = session.play(4)
    assert session.moves == [4, reply] and session.analysis.move == reply
    heat = session.heat()
    assert abs(sum(heat.values()) - 1) < 1e-9 and set(heat) == set(range(9)) - {4}
    grid = session.grid()
    assert {c.move for row in grid for c in row if c.move is not None} == set(game.legal_moves(session.state))
    assert sum(c.last for row in grid for c in row) == 1 and grid[reply // 3][reply % 3].last
    assert grid[1][1].text == "X" and grid[1][1].heat is None  # X's cell: the agent did not search it
    with pytest.raises(IllegalMoveError, match="legal moves"):
        session.play(4)
    session.new_game(human=1)
    assert len(session.moves) == 1 and session.status() == "you (O) to move"


def test_play_session_ends_the_game_and_refuses_moves_after():
    game = make_game("tictactoe")
    session = PlaySession(game, make_agent("random", seed=0), human=0)
    while not session.over:
        session.play(min(game.legal_moves(session.state)))
    assert session.status() in ("draw", "you (X) won", "the agent (O) won")
    with pytest.raises(IllegalMoveError, match="over"):
        session.play(0)


def test_connect_four_cells_play_their_column_anywhere_and_the_landing_cells_are_outlined():
    game = make_game("connect4")
    session = PlaySession(game, make_agent("uct:iterations=100", seed=1), human=0)
    reply = session.play(3)
    grid = session.grid()
    bottom = len(grid) - 1
    assert grid[bottom][3].text == "X"
    # Every cell of a column plays that column, the top one too; the stone falls.
    assert all(cell.move == c for row in grid for c, cell in enumerate(row))
    landing = {(r, c) for r, row in enumerate(grid) for c, cell in enumerate(row) if cell.target}
    lowest_empty = {c: max(r for r in range(len(grid)) if grid[r][c].text == "") for c in range(7)}
    assert landing == {(r, c) for c, r in lowest_empty.items()} and lowest_empty[3] < bottom
    row = bottom - 1 if reply == 3 else bottom
    assert grid[row][reply].last and grid[row][reply].text == "O" and grid[row][reply].heat is not None
    assert "col " in session.stats_table() and session.hint() == "click an outlined cell"


def test_ultimate_cells_map_to_board_and_cell():
    game = make_game("uttt")
    session = PlaySession(game, make_agent("uct:iterations=100", seed=0), human=0)
    grid = session.grid()
    assert len(grid) == 9 and all(len(row) == 9 for row in grid)
    assert grid[4][4].move == 40 and grid[0][3].move == 9 and grid[3][0].move == 27 and grid[8][8].move == 80
    reply = session.play(40)  # centre of the centre board: O must answer in the centre board
    assert 36 <= reply < 45
    # You are sent to board reply % 9: its empty cells, and only they, are outlined.
    sent = reply % 9
    outlined = {(r, c) for r, row in enumerate(session.grid()) for c, cell in enumerate(row) if cell.target}
    expected = {drawing(game).move_cell(session.state, m) for m in game.legal_moves(session.state)}
    assert outlined == expected and all(m // 9 == sent for m in game.legal_moves(session.state))
    assert len(outlined) == 9 - (sent == 4) * 2 - (sent != 4 and reply // 9 == sent)
    # The agent's statistics name moves by board and cell.
    assert f"{reply} (b4 c{reply - 36})" in session.stats_table()
    # Tic-tac-toe: every empty cell is legal, so nothing is outlined.
    ttt = PlaySession(make_game("tictactoe"), make_agent("random", seed=0))
    assert not ttt.targets() and ttt.hint() == "click an empty cell"


def test_a_game_without_a_board_is_played_by_choosing_among_its_moves():
    game = make_game("nim")
    session = PlaySession(game, make_agent("random", seed=0))
    assert session.grid() == [] and session.hint() == "click one of your moves"
    assert [m for _, m in session.choices()] == list(game.legal_moves(session.state))
    assert session.view() == game.render(session.state)  # perfect information: the whole position
    board = play_board(game, make_agent("random", seed=0))
    first = board.choices.children[0]
    first.click()
    assert board.session.moves[0] == game.legal_moves(game.initial_state())[0] and len(board.session.moves) == 2


def test_play_board_widget_click_plays_and_shows_the_heat_map():
    game = make_game("tictactoe")
    board = play_board(game, make_agent("uct:iterations=100", seed=0))
    assert [b.description for row in board.buttons for b in row] == [BLANK] * 9
    board.click(1, 1)
    session = board.session
    assert session.moves[0] == 4 and len(session.moves) == 2
    assert board.buttons[1][1].description == "X"
    reply = session.moves[1]
    assert board.buttons[reply // 3][reply % 3].description == "O"
    assert any(b.description.endswith("%") for row in board.buttons for b in row)
    assert "uct:" in board.stats.value and "visits" in board.stats.value
    board.click(1, 1)  # occupied: a message, not an error
    assert "not a legal move" in board.status.value and len(session.moves) == 2
    assert "<table" in session._repr_html_()


def test_new_game_empties_every_button_and_a_seat_change_starts_at_once():
    game = make_game("tictactoe")
    board = play_board(game, make_agent("uct:iterations=50", seed=0))
    while not board.session.over:
        row, col = next(
            (r, c)
            for r, line in enumerate(board.session.grid())
            for c, cell in enumerate(line)
            if cell.move is not None
        )
        board.click(row, col)
    assert "click new game" in board.status.value
    board.click(0, 0)  # after the end: points at new game, plays nothing
    assert "the game is over: click new game" in board.status.value
    board.new.click()
    # An empty description would leave the old X and O on the buttons in the browser: a blank is set instead.
    assert [b.description for row in board.buttons for b in row] == [BLANK] * 9
    assert all(b.style.button_color is None and b.layout.border is None for row in board.buttons for b in row)
    board.click(0, 0)
    assert board.buttons[0][0].description == "X" and len(board.session.moves) == 2
    board.seat.value = 1  # at once: a new game, the agent (X) has moved
    assert board.session.human == 1 and len(board.session.moves) == 1
    assert "you (O) to move" in board.status.value and "new game: you play O" in board.status.value
    assert [b.description for row in board.buttons for b in row].count("X") == 1


def test_connect_four_board_numbers_its_columns_and_takes_a_click_at_the_top():
    board = play_board(make_game("connect4"), make_agent("uct:iterations=50", seed=0))
    heads = [child for child in board.box.children[1].children[0].children[:7]]
    assert [h.value for h in heads] == [f"<center>{c}</center>" for c in range(7)]
    board.click(0, 0)  # the top cell of column 0
    assert board.session.moves[0] == 0 and board.buttons[5][0].description == "X"
    assert sum(b.layout.border is not None for row in board.buttons for b in row) == 7  # where each stone lands


def test_a_session_can_start_from_an_opening_and_keeps_it_for_new_games():
    game = make_game("tictactoe")
    session = PlaySession(game, make_agent("uct:iterations=300", seed=0), human=0, opening=[0, 4, 1])
    assert session.moves[:3] == [0, 4, 1] and len(session.moves) == 4  # O (the agent) replied at once
    assert session.searched == game.state_from_moves([0, 4, 1])
    session.new_game()
    assert session.moves[:3] == [0, 4, 1]
    with pytest.raises(IllegalMoveError):
        PlaySession(game, make_agent("random", seed=0), opening=[0, 0])


def test_a_saved_notebook_shows_what_the_widgets_showed_as_text():
    game = make_game("tictactoe")
    explorer = tree_explorer(game, iteration=5)
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"].startswith("tree explorer (needs a running kernel):\niteration 5")
    assert max(len(line) for line in bundle["text/plain"].splitlines()) <= 60  # no viewer wraps it mid-word
    assert "VBox" not in bundle["text/plain"] and "iteration 5 (the tree after it); c = " in bundle["text/html"]
    board = play_board(game, make_agent("random", seed=0), human=1)
    bundle = board._repr_mimebundle_()
    text = bundle["text/plain"]
    assert "you (O) to move" in text and text.endswith(game.render(board.session.state))
    assert "needs a running kernel" in bundle["text/html"] and "<table" in bundle["text/html"]
    assert repr(board.session) == f"random against you: you (O) to move\n{game.render(board.session.state)}"


def test_the_explorer_picture_fits_the_width_and_the_controls_explain_themselves():
    # 10 pt labels may shrink to 10 px: 1600 pt (2133 px) wide shrinks to 1600 px at the least.
    box = '<div style="overflow:auto;max-width:100%;contain:inline-size">'
    assert fitted('<svg width="1600pt" height="300pt" viewBox="0 0 1600 300"><text font-size="10.00">').startswith(
        box + '<svg style="max-width:100%;height:auto;min-width:1600px" width="1600pt"'
    )
    assert "max-width:100%;height" not in fitted("<svg width='9pt'>", fit=False)
    w = tree_explorer(make_game("tictactoe"), iteration=300, max_iterations=2000, seed=0)
    assert "overflow:auto" in w.picture.value and w.iteration.layout.width == "560px"
    # The child menu starts on the most visited child, and re-centre works at once.
    assert w.children.index == 0 and w.children.value == w.model.children()[0][1]
    w.enter.click()
    assert len(w.model.focus) == 1 and "nodes below and with it" in w.status.value
    w.home.click()
    w.up.click()
    assert "already at the root" in w.status.value
    # Phase views: the depth slider is disabled and the status says why.
    w.forward.click()
    assert w.model.phase == "selection" and w.depth.disabled and "depth: for the whole tree" in w.status.value
    w.home.click()
    w.iteration.value = 300
    assert not w.depth.disabled
    # A leaf: nothing to re-centre on, and the status says so.
    leafy = tree_explorer(make_game("tictactoe"), iteration=1, seed=0)
    while leafy.model.children():
        leafy.children.index = 0
        leafy.enter.click()
    leafy.enter.click()
    assert "nothing to re-centre on" in leafy.status.value


@pytest.mark.parametrize("phase", [None, *PHASES])
def test_the_status_counts_the_nodes_the_caption_counts(phase, monkeypatch):
    monkeypatch.setattr(tree_module, "dot_available", lambda: True)  # the caption is in the DOT source
    ex = TreeExplorer(make_game("tictactoe"), iteration=300, seed=0)
    ex.go_to(301 if phase else 300, phase)
    for focus in ((), (ex.children()[0][1],)):
        ex.focus = focus
        total = re.search(r"of (\d+) nodes shown", ex.figure().source).group(1)
        assert f"; {ex.size()} nodes," in ex.summary() and int(total) == ex.size(ex.top), (phase, focus)


def test_the_boards_mark_the_winning_line_without_stripes_and_keep_their_shape():
    game = make_game("tictactoe")
    board = play_board(game, make_agent("random", seed=0), opening=[0, 3, 1, 4])
    board.click(0, 2)  # X completes the top row
    assert board.session.status() == "you (X) won"
    html = board.session._repr_html_()
    assert html.count('class="mctslab-win"') == 3 and 'class="mctslab-board"' in html
    assert html.count("<tr") == html.count('<tr style="background:transparent">')  # no zebra stripes
    assert '<pre style="white-space:pre' in html and "flex-wrap:wrap" in html  # never wrapped mid-number
    won = [
        (r, c) for r, line in enumerate(board.buttons) for c, b in enumerate(line) if "mctslab-win" in b._dom_classes
    ]
    assert won == [(0, 0), (0, 1), (0, 2)]
    assert {board.buttons[0][c].style.button_color for c in range(3)} == {WIN_FILL}
    x, o = board.buttons[0][0].style, board.buttons[1][0].style  # X and O in their colours, not monospace
    assert (x.text_color, o.text_color) == (MARK_COLOUR["X"], MARK_COLOUR["O"])
    grid = board.box.children[1].children[0].layout  # rows and columns of fixed size
    assert grid.grid_template_rows == "repeat(3, 40px)" and grid.grid_template_columns == "repeat(3, 40px)"
    assert board.box.children[1].layout.align_items == "flex-start"
    board.restart()
    assert not any("mctslab-win" in b._dom_classes for line in board.buttons for b in line)


def test_ultimate_boards_have_thick_lines_and_tint_the_small_boards_won():
    game = make_game("uttt")
    rng, moves, state = random.Random(0), [], game.initial_state()
    while not any(any(row) for row in drawing(game).block_winners(state)):  # play until a small board is won
        move = rng.choice(game.legal_moves(state))
        moves.append(move)
        state = game.play(state, move)
    human = game.to_move(state)
    board = play_board(game, make_agent("random", seed=0), human=human, opening=moves)
    owners = drawing(game).block_winners(board.session.state)
    tinted = {
        (r // 3, c // 3): b.style.button_color
        for r, line in enumerate(board.buttons)
        for c, b in enumerate(line)
        if owners[r // 3][c // 3]
    }
    assert tinted and all(colour == BLOCK_FILL[owners[br][bc]] for (br, bc), colour in tinted.items())
    lines = [
        (r, c) for r, line in enumerate(board.buttons) for c, b in enumerate(line) if b.layout.border_left == BLOCK_LINE
    ]
    assert lines == [(r, c) for r in range(9) for c in (3, 6)]
    assert [r for r in range(9) if board.buttons[r][0].layout.border_top == BLOCK_LINE] == [3, 6]
    html = board.session._repr_html_()
    assert html.count("border-left:" + BLOCK_LINE) == 18 and html.count("border-top:" + BLOCK_LINE) == 18
    assert html.count("background:" + BLOCK_FILL[owners[0][0] or owners[1][1] or "X"]) >= 1


def test_saved_notebooks_keep_pictures_of_their_widgets_not_the_widgets():
    notebook = {
        "metadata": {"widgets": {WIDGET_STATE: {}}},
        "cells": [
            {
                "cell_type": "code",
                "outputs": [{"output_type": "display_data", "data": {WIDGET_VIEW: {}, "text/html": "<b>"}}],
            },
            {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {WIDGET_VIEW: {}}}]},
            {"cell_type": "markdown", "source": "x"},
        ],
    }
    static_widgets(notebook)
    assert "widgets" not in notebook["metadata"]
    assert notebook["cells"][0]["outputs"][0]["data"] == {"text/html": "<b>"} and notebook["cells"][1]["outputs"] == []
    for path in sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb")):
        saved = json.loads(path.read_text())
        assert saved == static_widgets(json.loads(path.read_text())), (
            f"{path.name} stores widgets, which JupyterLab shows broken before the cell runs: "
            f"run python -m mctslab.viz.stored {path.relative_to(path.parents[1])} after executing it"
        )


def test_a_saved_progress_bar_shows_where_it_ended():
    def model(name, **state):
        return {"model_name": name, "state": state}

    state = {
        "box": model("HBoxModel", children=["IPY_MODEL_l", "IPY_MODEL_b", "IPY_MODEL_r"]),
        "l": model("HTMLModel", value="rows:\u2007100%"),
        "b": model("FloatProgressModel", value=36.0, max=36.0),
        "r": model("HTMLModel", value="\u200736/36\u2007[01:01&lt;00:00]"),
        "half": model("HBoxModel", children=["IPY_MODEL_l", "IPY_MODEL_h", "IPY_MODEL_r"]),
        "h": model("IntProgressModel", value=5, max=10),
    }
    view = {"model_id": "box", "version_major": 2, "version_minor": 0}
    first = "rows:   0%|          | 0/36 [00:00<?, ?it/s]"
    notebook = {
        "metadata": {"widgets": {WIDGET_STATE: {"state": state}}},
        "cells": [
            {
                "cell_type": "code",
                "outputs": [{"output_type": "display_data", "data": {WIDGET_VIEW: view, "text/plain": first}}],
            },
            {
                "cell_type": "code",
                "outputs": [{"output_type": "display_data", "data": {WIDGET_VIEW: {**view, "model_id": "half"}}}],
            },
        ],
    }
    static_widgets(notebook)
    assert notebook["cells"][0]["outputs"][0]["data"] == {"text/plain": "rows: 100%|██████████| 36/36 [01:01<00:00]"}
    assert notebook["cells"][1]["outputs"][0]["data"]["text/plain"].startswith("rows: 100%|█████     |")
