"""SameGame's rules cross-checked against an implementation nobody here wrote.

The reference is the CodinGame port of SameGame in the repository
github.com/acatai/SameGame, whose statement (``config/statement_en.html``) says its rules
"are the same as used for benchmarks in AI publications", and whose referee is
``src/main/java/com/codingame/game/engine/GameState.java``. Its rules, as read there:

* the board is a fixed grid ``board[x][y]`` (column ``x``, row ``y`` from the bottom), ``-1`` empty;
* a move names a cell; it is legal if the cell's region (orthogonally connected cells of
  its colour) has at least two cells, and it removes the whole region;
* the move scores ``(n - 2) ** 2`` for a region of ``n`` cells;
* then in every column the blocks fall down to close the gaps (``normalizeVertically``), and
  then every empty column is closed up by moving the columns on its right to the left
  (``normalizeHorizontaly``);
* when the board is cleared (cell ``0 0`` empty) the score gains a bonus of 1000;
* the game ends when no region of two or more cells is left.

:class:`Grid` below re-implements those rules in that style (a mutable fixed-size grid with
``-1`` for empty cells, a breadth-first region search, gravity then column shift), written
from the rules above, not from :mod:`mctslab.games.samegame` (which keeps tuples of
non-empty columns and never stores an empty cell). The test plays seeded random games on a
few hundred seeded boards of several sizes and colour counts with both and asserts the same
legal moves (the same regions), the same boards, the same scores and the same end.
"""

from __future__ import annotations

import random
from collections import deque

import pytest

from mctslab import make_game
from mctslab.games.samegame import SameGame

EMPTY = -1


class Grid:
    """SameGame on a fixed ``cols x rows`` grid, ``-1`` for an empty cell, after acatai/SameGame's referee."""

    def __init__(self, columns: tuple[tuple[int, ...], ...], rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.board = [[EMPTY] * rows for _ in range(cols)]
        for x, column in enumerate(columns):
            for y, colour in enumerate(column):
                self.board[x][y] = colour
        self.score = 0

    def region(self, x: int, y: int) -> frozenset[tuple[int, int]]:
        """The cells connected to ``(x, y)`` through cells of its colour (breadth first)."""
        colour = self.board[x][y]
        seen, queue = {(x, y)}, deque([(x, y)])
        while queue:
            cx, cy = queue.popleft()
            for nx, ny in ((cx - 1, cy), (cx + 1, cy), (cx, cy - 1), (cx, cy + 1)):
                if 0 <= nx < self.cols and 0 <= ny < self.rows and (nx, ny) not in seen:
                    if self.board[nx][ny] == colour:
                        seen.add((nx, ny))
                        queue.append((nx, ny))
        return frozenset(seen)

    def legal_regions(self) -> list[frozenset[tuple[int, int]]]:
        """Every region of two or more cells, scanning columns left to right, each bottom up."""
        found, closed = [], set()
        for x in range(self.cols):
            for y in range(self.rows):
                if self.board[x][y] == EMPTY or (x, y) in closed:
                    continue
                region = self.region(x, y)
                closed |= region
                if len(region) >= 2:
                    found.append(region)
        return found

    def click(self, x: int, y: int) -> None:
        """Remove the region of cell ``(x, y)``, score it, let blocks fall, close empty columns, add the bonus."""
        region = self.region(x, y)
        assert self.board[x][y] != EMPTY and len(region) >= 2, "an illegal click"
        for cx, cy in region:
            self.board[cx][cy] = EMPTY
        self.score += (len(region) - 2) ** 2
        for cx in range(self.cols):  # gravity: the column's blocks, bottom up, then empties
            blocks = [c for c in self.board[cx] if c != EMPTY]
            self.board[cx] = blocks + [EMPTY] * (self.rows - len(blocks))
        standing = [column for column in self.board if column[0] != EMPTY]  # then empty columns close up
        self.board = standing + [[EMPTY] * self.rows for _ in range(self.cols - len(standing))]
        if self.board[0][0] == EMPTY:
            self.score += 1000

    def columns(self) -> tuple[tuple[int, ...], ...]:
        """The non-empty columns, bottom first, for comparison with :class:`SameState`."""
        return tuple(tuple(c for c in column if c != EMPTY) for column in self.board if column[0] != EMPTY)


SIZES = [(3, 3, 2), (4, 5, 3), (5, 5, 3), (6, 6, 4), (8, 5, 5), (7, 8, 4), (5, 7, 2)]


@pytest.mark.parametrize("rows, cols, colors", SIZES)
def test_seeded_random_games_match_the_reference_rules(rows, cols, colors):
    rng = random.Random(rows * 100 + cols * 10 + colors)
    for seed in range(40):
        game: SameGame = make_game(f"samegame:rows={rows},cols={cols},colors={colors},seed={seed}")
        state = game.initial_state()
        grid = Grid(state.columns, rows, cols)
        while True:
            regions = grid.legal_regions()
            ours = {move: frozenset(game.group(state, move)) for move in game.legal_moves(state)}
            assert sorted(ours.values(), key=min) == sorted(regions, key=min), (game.spec, state)
            assert all(divmod(move, rows) == min(cells) for move, cells in ours.items())
            assert game.is_terminal(state) == (not regions)
            assert game.score(state) == grid.score and state.columns == grid.columns()
            if not regions:
                break
            region = regions[rng.randrange(len(regions))]
            x, y = min(region)
            state = game.play(state, x * rows + y)
            grid.click(*sorted(region)[rng.randrange(len(region))])  # any cell of the region removes it


def test_clearing_the_board_earns_the_bonus_in_both():
    game = make_game("samegame:rows=2,cols=2,colors=2,seed=0")
    columns = ((1, 1), (1, 1))
    state = game.from_columns(columns)
    grid = Grid(columns, 2, 2)
    grid.click(1, 1)
    state = game.play(state, 0)
    assert grid.score == game.score(state) == (4 - 2) ** 2 + 1000 and game.is_terminal(state)
