"""Games describe themselves to viz: names, boards, cells, clicks and replayed rollouts.

A toy game defined here (nowhere in the package) gets labels, drawn trees, recorded
playouts and a play board without any change outside this file; ``check_game``
checks the hooks and rejects toy games that break them.
"""

from __future__ import annotations

import random

import pytest
from conftest import registered_games

from mctslab import UCT, GameContractError, check_game, make_agent, make_game
from mctslab.games.base import Game
from mctslab.games.hooks import Drawing, drawing, register_drawing
from mctslab.games.rollouts import PlayedRollout, replay_rollout, reports_its_rollout
from mctslab.games.stones import StoneGame
from mctslab.games.tictactoe import TicTacToe
from mctslab.viz import PlaySession, SearchRecorder, draw_tree, playout_moves, tree_outline
from mctslab.viz.labels import board_cells, mark, move_text, small_board_html
from mctslab.viz.playout import move_order


class Strip(Game):
    """A toy game: a strip of five cells; players fill an empty cell in turn; two own stones side by side win."""

    spec = "strip"
    size = 5

    def initial_state(self):
        return (0,) * self.size  # 0 empty, 1 player 0's stone, 2 player 1's

    def to_move(self, state):
        return sum(1 for v in state if v) % 2

    def legal_moves(self, state):
        return () if self.is_terminal(state) else tuple(i for i, v in enumerate(state) if not v)

    def apply(self, state, move):
        cells = list(state)
        cells[move] = self.to_move(state) + 1
        return tuple(cells)

    def winner(self, state):
        for a, b in zip(state, state[1:], strict=False):
            if a and a == b:
                return a - 1
        return None

    def is_terminal(self, state):
        return self.winner(state) is not None or all(state)

    def render(self, state):
        return "".join(".XO"[v] for v in state)


@register_drawing(Strip)
class StripDrawing(Drawing):
    """The toy game's drawing adapter, registered beside it: its hooks."""

    def mark(self, player):
        return "XO"[player]

    def move_text(self, move, short=False):
        return str(move) if short else f"cell {move}"

    def board_cells(self, state):
        return [[["", "X", "O"][v] for v in state]]

    def move_cell(self, state, move):
        return (0, move)


def drawn_otherwise(**hooks) -> Strip:
    """A :class:`Strip` whose drawing adapter overrides ``hooks`` (broken for one test), registered beside it."""
    game_class = type("BrokenStrip", (Strip,), {})
    register_drawing(game_class)(type("BrokenStripDrawing", (StripDrawing,), hooks))
    return game_class()


# -- the toy game is drawn, replayed and played with no change to the package ------


def test_check_game_accepts_the_toy_game_and_its_hooks():
    check_game(Strip(), games=30, seed=2)
    assert reports_its_rollout(Strip()) and move_order(Strip()) == "ordered"


def test_the_toy_game_gets_labels_and_small_boards():
    game = Strip()
    state = game.state_from_moves([1, 3])
    assert mark(game, 0) == "X" and mark(game, 1) == "O"
    assert move_text(game, 2) == "cell 2" and move_text(game, 2, short=True) == "2"
    assert board_cells(game, state) == [["", "X", "", "O", ""]]
    html = small_board_html(game, state, 3)
    assert html.count("<TD") == 5 and "<B>O</B>" in html


def test_the_toy_game_gets_a_drawn_tree_and_an_outline():
    pytest.importorskip("graphviz")
    game = Strip()
    root = UCT(iterations=60, seed=0).search(game, game.initial_state())
    outline = tree_outline(root, game, depth=1)
    assert "cell " in outline and "60 visits" in outline
    source = draw_tree(root, game, depth=1).source
    best = max(root.children, key=lambda ch: ch.visits)
    assert f"X cell {best.move}" in source and "root (X to move)" in source
    assert 'CELLBORDER="1"' in source and "<B>X</B>" in source  # its small board, the move in bold


def test_the_toy_game_gets_recorded_playouts_that_are_the_real_ones():
    game = Strip()
    rec = SearchRecorder(game, game.initial_state(), seed=1)
    for _ in range(20):
        record = rec.step()
        assert record.playout.exact
        end = record.start.state
        for move in record.playout.moves:
            end = game.play(end, move)
        assert end == record.playout.final
        assert record.updates[0].reward == record.playout.returns[record.start.player]


def test_the_toy_game_is_playable_on_the_play_board():
    game = Strip()
    session = PlaySession(game, make_agent("random", seed=0), human=0)
    grid = session.grid()
    assert [[cell.move for cell in row] for row in grid] == [[0, 1, 2, 3, 4]]
    reply = session.play(2)
    grid = session.grid()
    assert grid[0][2].text == "X" and grid[0][reply].text == "O" and grid[0][reply].last
    assert grid[0][2].move is None and grid[0][reply].move is None
    assert "<table" in session._repr_html_()


# -- the texts and cells of the games that come with mctslab -------------------------


def test_move_names_of_the_games():
    ttt, c4, uttt, nim = (make_game(s) for s in ("tictactoe", "connect4", "uttt", "nim"))
    assert (ttt.move_text(4), ttt.move_text(4, short=True)) == ("4", "4")
    assert (c4.move_text(3), c4.move_text(3, short=True)) == ("col 3", "3")
    assert (uttt.move_text(40), uttt.move_text(40, short=True)) == ("40 (b4 c4)", "40")
    assert (nim.move_text(nim.encode(1, 2)), nim.move_text(nim.encode(1, 2), short=True)) == ("heap 1 take 2", "1:2")
    assert [g.mark(0) + g.mark(1) for g in (ttt, c4, uttt, nim)] == ["XO", "XO", "XO", "P0P1"]
    assert move_text(None, 7) == "7" and move_text(ttt, None) == "root" and mark(None, 1) == "P1"


def test_boards_and_cells_of_the_stone_games():
    ttt = make_game("tictactoe")
    state = ttt.state_from_moves([4, 0])
    assert ttt.board_cells(state) == [["O", "", ""], ["", "X", ""], ["", "", ""]]
    assert ttt.move_cell(state, 5) == (1, 2) and ttt.played_cell(state, 0) == (0, 0)
    c4 = make_game("connect4:rows=3,cols=4,k=3")
    state = c4.state_from_moves([1, 1])
    assert c4.board_cells(state) == [["", "", "", ""], ["", "O", "", ""], ["", "X", "", ""]]
    assert c4.move_cell(state, 1) == (0, 1) and c4.move_cell(state, 0) == (2, 0)
    assert c4.played_cell(state, 1) == (1, 1)  # the top stone of the column
    # A click anywhere in a column plays it (the stone falls); the columns are numbered by their moves.
    assert [c4.click_move(state, r, 1) for r in range(3)] == [1, 1, 1] and c4.click_move(state, 0, 3) == 3
    assert c4.column_labels() == ["0", "1", "2", "3"] and ttt.column_labels() is None
    full = c4.state_from_moves([1, 1, 1])
    assert c4.move_cell(full, 1) is None and c4.click_move(full, 0, 1) is None
    uttt = make_game("uttt")
    cells = uttt.board_cells(uttt.state_from_moves([40]))
    assert len(cells) == 9 and all(len(row) == 9 for row in cells) and cells[4][4] == "X"
    assert uttt.move_cell(uttt.initial_state(), 9 * 2 + 3) == (1, 6)  # board 2 (top right), cell 3 (middle left)
    assert make_game("nim").board_cells(make_game("nim").initial_state()) is None


def test_stone_games_share_one_base():
    for spec in ("tictactoe", "connect4", "uttt", "fractio"):
        game = make_game(spec)
        assert isinstance(game, StoneGame)
        for name in ("to_move", "is_terminal", "winner", "returns"):
            assert getattr(type(game), name) is getattr(StoneGame, name)


def test_a_game_without_a_board_is_played_on_the_play_board_by_its_moves_names():
    # Since issue 28 (Pig and Kuhn poker have no board) a game without board_cells plays by buttons named by move_text.
    game = make_game("nim")
    session = PlaySession(game, make_agent("random", seed=0))
    assert session.grid() == []
    assert session.choices() == [(game.move_text(m), m) for m in game.legal_moves(session.state)]


@pytest.mark.parametrize("spec", [*registered_games(), "tictactoe:n=4,k=3"])
def test_rollout_moves_plays_the_draws_of_rollout(spec):
    game = make_game(spec)
    positions = random.Random(3)
    for s in range(40):
        state = game.initial_state()
        for _ in range(positions.randrange(8)):
            if game.is_terminal(state):
                break
            state = game.apply(state, positions.choice(game.legal_moves(state)))
        cap = None if s % 2 else positions.randrange(1, 6)
        real, twin = random.Random(s), random.Random(s)
        played = game.rollout_moves(state, twin, cap)
        assert isinstance(played, PlayedRollout)
        assert played.returns == game.rollout(state, real, cap) and twin.getstate() == real.getstate()
        assert playout_moves(game, state, random.Random(s), cap).moves == played.moves


def test_replay_rollout_refuses_an_unknown_order():
    with pytest.raises(ValueError, match="'ordered' or 'pool'"):
        replay_rollout(Strip(), Strip().initial_state(), random.Random(0), order="shuffled")


# -- check_game rejects games whose hooks are broken ----------------------------------


class _WrongOrder(TicTacToe):
    """Says its rollout picks from the ordered legal moves; tic-tac-toe's uses a pool."""

    rollout_order = "ordered"


class _WrongFinal(Strip):
    def rollout_moves(self, state, rng, max_moves=None):
        return super().rollout_moves(state, rng, max_moves)._replace(final=state)


class _NeverCut(Strip):
    def rollout_moves(self, state, rng, max_moves=None):
        return super().rollout_moves(state, rng, max_moves)._replace(cut=False)


@pytest.mark.parametrize(
    "game,message",
    [
        (drawn_otherwise(mark=lambda self, player: "X"), r"mark\(0\) and mark\(1\)"),
        (drawn_otherwise(move_text=lambda self, move, short=False: "a move"), r"move_text\(move\) must name"),
        (
            drawn_otherwise(move_text=lambda self, move, short=False: "" if short else f"cell {move}"),
            r"move_text\(move, short=True\)",
        ),
        (
            drawn_otherwise(board_cells=lambda self, state: [[""] * (5 + sum(1 for v in state if v))]),
            r"board_cells\(\) must give 1 rows of 5",
        ),
        (drawn_otherwise(move_cell=lambda self, state, move: (1, move)), r"move_cell\(\) of move"),
        (drawn_otherwise(played_cell=lambda self, state, move: (0, move + 5)), r"played_cell\(\) of move"),
        (drawn_otherwise(click_move=lambda self, state, row, col: 0), r"click_move\(\) at"),
        (drawn_otherwise(column_labels=lambda self: ["0"]), r"column_labels\(\) must be None or 5 strings"),
        (drawn_otherwise(board_cells=lambda self, state: None), r"move_cell\(\) must be None"),
        (_WrongOrder(), r"rollout_moves\(state, rng, max_moves=.*set rollout_order \('ordered' now\)"),
        (_WrongFinal(), r"rollout_moves\(\) must give the position"),
        (_NeverCut(), r"rollout_moves\(\) says cut=False"),
    ],
)
def test_check_game_catches_broken_hooks(game, message):
    with pytest.raises(GameContractError, match=message):
        check_game(game, games=10, seed=1)


class _OwnRollout(TicTacToe):
    """Overrides rollout alone (the same draws as tic-tac-toe's): its replay is not trusted, only compared."""

    def rollout(self, state, rng, max_moves=None):
        return super().rollout(state, rng, max_moves)


def test_a_rollout_overridden_alone_is_unknown_and_replayed_in_order():
    game = _OwnRollout()
    assert not reports_its_rollout(game) and move_order(game) is None
    check_game(game, games=3)  # not compared: the drawings flag the replay instead
    rec = SearchRecorder(game, game.initial_state(), seed=2)
    assert any(not rec.step().playout.exact for _ in range(40))


LINES_3X3 = (
    [{(i, j) for j in range(3)} for i in range(3)]
    + [{(j, i) for j in range(3)} for i in range(3)]
    + [{(i, i) for i in range(3)}, {(i, 2 - i) for i in range(3)}]
)
"""The 8 lines of a 3 x 3 board as sets of (row, column), written out here, not taken from the games."""


def _random_finished_game(game, seed: int, want_winner: bool = True):
    """A seeded random game played to the end (one with a winner, when ``want_winner``)."""
    rng = random.Random(seed)
    while True:
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.play(state, rng.choice(game.legal_moves(state)))
        if game.winner(state) is not None or not want_winner:
            return state


def test_winning_cells_mark_the_line_that_won():
    ttt = make_game("tictactoe")
    assert ttt.winning_cells(ttt.state_from_moves([0, 3, 1, 4, 2])) == {(0, 0), (0, 1), (0, 2)}  # X's top row
    assert ttt.winning_cells(ttt.state_from_moves([0, 2, 1, 4, 3, 6])) == {(0, 2), (1, 1), (2, 0)}  # O's diagonal
    assert ttt.winning_cells(ttt.state_from_moves([0, 3, 1])) == set()
    drawn = ttt.state_from_moves([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert ttt.is_terminal(drawn) and ttt.winner(drawn) is None and ttt.winning_cells(drawn) == set()
    c4 = make_game("connect4")
    assert c4.winning_cells(c4.state_from_moves([0, 1, 0, 1, 0, 1, 0])) == {(2, 0), (3, 0), (4, 0), (5, 0)}
    assert c4.winning_cells(c4.state_from_moves([0, 1, 0, 1, 0, 1, 2, 1])) == {(2, 1), (3, 1), (4, 1), (5, 1)}
    assert ttt.board_blocks() is None and ttt.block_winners(drawn) is None and c4.board_blocks() is None
    strip = Strip()  # the defaults: nothing to mark
    assert strip.winning_cells(strip.initial_state()) == set() and strip.board_blocks() is None


@pytest.mark.parametrize("spec", ["uttt", "fractio"])
def test_ultimate_marks_its_won_local_boards_and_the_lines_that_won(spec):
    game = make_game(spec)
    assert game.board_blocks() == 3
    state = _random_finished_game(game, seed=3)
    mark = game.mark(game.winner(state))
    owners = game.block_winners(state)
    # The same boards as the text rendering's "boards won" (X, O; - or . or * for the others).
    rendered = game.render(state).split("boards won:\n")[1].splitlines()[:3]
    assert [[m if m in "XO" else "" for m in line.split()] for line in rendered] == owners
    cells = game.winning_cells(state)
    board = game.board_cells(state)
    assert cells and all(board[r][c] == mark for r, c in cells)
    boards = {(r // 3, c // 3) for r, c in cells}
    assert all(owners[br][bc] == mark for br, bc in boards)
    if spec == "fractio":
        assert len(boards) == 1  # the one small board that won
    else:  # three boards in a row, column or diagonal of the macro board
        assert len(boards) >= 3
        assert any(line <= boards for line in LINES_3X3)
    for br, bc in boards:  # in each, a whole local line of the winner's stones
        local = {(r % 3, c % 3) for r, c in cells if (r // 3, c // 3) == (br, bc)}
        assert any(line <= local for line in LINES_3X3)
    assert game.winning_cells(game.state_from_moves([40])) == set()


def test_the_drawing_is_an_adapter_beside_the_rules_and_a_hook_on_the_game_itself_is_refused():
    # the rules object has no drawing hooks of its own; the adapter registered for its class (or a base) has them
    assert "board_cells" not in vars(Game) and "board_cells" not in vars(TicTacToe)
    assert type(drawing(make_game("fractio"))).__name__ == "UltimateTicTacToeDrawing"  # Fractio: its base's
    assert type(drawing(make_game("nim"))).__name__ == "NimDrawing" and drawing(Strip()).game == Strip()
    plain = type("Plain", (Strip,), {})()  # no adapter of its own: Strip's
    assert isinstance(drawing(plain), StripDrawing) and plain.board_cells(plain.initial_state()) == [[""] * 5]
    with pytest.raises(TypeError, match=r"Hooked.board_cells belongs to the game's drawing adapter.*hooks.Drawing"):
        type("Hooked", (Strip,), {"board_cells": lambda self, state: None})
    with pytest.raises(TypeError, match="subclasses Drawing"):
        register_drawing(Strip)(object)
