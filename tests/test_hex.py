"""Hex (mctslab/games/hex.py) against OpenSpiel's ``hex``: a transcription of hex.cc, OpenSpiel itself when installed,
and its compiled rules against exact random-playout probabilities."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from functools import cache

import pytest

from mctslab import check_game, make_game
from mctslab.engine import available
from mctslab.games.hex import Hex

needs_numba = pytest.mark.skipif(not available(), reason="the compiled engine needs Numba")

EMPTY, BLACK, BLACK_NORTH, BLACK_SOUTH, BLACK_WIN, WHITE, WHITE_WEST, WHITE_EAST, WHITE_WIN = range(9)


class OpenSpielHex:
    """OpenSpiel's HexState (open_spiel/games/hex/hex.cc, commit aae2c1e), transcribed line by line: cell states that
    remember which edge a chain touches, a flood fill when a stone joins an edge, the game over when a stone is
    marked a win. Nothing of mctslab's Hex is used."""

    def __init__(self, n: int) -> None:
        self.n, self.board, self.player, self.result = n, [EMPTY] * (n * n), 0, 0

    def adjacent(self, cell: int) -> list[int]:  # HexState::AdjacentCells
        n, size = self.n, len(self.board)
        north, south = cell < n, cell >= size - n
        west, east = cell % n == 0, cell % n == n - 1
        out = []
        if not north:
            out.append(cell - n)
        if not north and not east:
            out.append(cell - n + 1)
        if not east:
            out.append(cell + 1)
        if not south:
            out.append(cell + n)
        if not south and not west:
            out.append(cell + n - 1)
        if not west:
            out.append(cell - 1)
        return out

    def state_of(self, move: int) -> int:  # HexState::PlayerAndActionToState
        n = self.n
        if self.player == 0:
            a, b = move < n, move >= len(self.board) - n
            for j in self.adjacent(move):
                a |= self.board[j] == BLACK_NORTH
                b |= self.board[j] == BLACK_SOUTH
            return BLACK_WIN if a and b else BLACK_NORTH if a else BLACK_SOUTH if b else BLACK
        a, b = move % n == 0, move % n == n - 1
        for j in self.adjacent(move):
            a |= self.board[j] == WHITE_WEST
            b |= self.board[j] == WHITE_EAST
        return WHITE_WIN if a and b else WHITE_WEST if a else WHITE_EAST if b else WHITE

    def apply(self, move: int) -> None:  # HexState::DoApplyAction
        assert self.board[move] == EMPTY
        new = self.state_of(move)
        self.board[move] = new
        if new == BLACK_WIN:
            self.result = 1
        elif new == WHITE_WIN:
            self.result = -1
        elif new not in (BLACK, WHITE):
            old = BLACK if self.player == 0 else WHITE
            stack = [move]
            while stack:
                for j in self.adjacent(stack.pop()):
                    if self.board[j] == old:
                        self.board[j] = new
                        stack.append(j)
        self.player = 1 - self.player

    def legal(self) -> list[int]:  # HexState::LegalActions
        return [] if self.result else [c for c, s in enumerate(self.board) if s == EMPTY]


def lock_step(n: int, games: int, seed: int, other: type) -> int:
    """Random games of Hex and of ``other`` (an OpenSpiel-like state maker) move by move; the moves compared."""
    game, rng, compared = Hex(n), random.Random(seed), 0
    for _ in range(games):
        state, theirs = game.initial_state(), other(n)
        while True:
            legal = list(game.legal_moves(state))
            assert legal == theirs.legal(), (n, game.render(state))
            assert game.is_terminal(state) == (not legal)
            if not legal:
                assert game.returns(state) == ((1.0, 0.0) if theirs.returns()[0] > 0 else (0.0, 1.0))
                break
            assert game.to_move(state) == theirs.current()
            move = rng.choice(legal)
            state = game.apply(state, move)
            theirs.apply(move)
            compared += 1
    return compared


class Transcribed(OpenSpielHex):
    def current(self) -> int:
        return self.player

    def returns(self) -> tuple[float, float]:  # HexState::Returns
        return (self.result, -self.result)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 11])
def test_hex_plays_as_openspiels_hex_cc_transcribed(n):
    assert lock_step(n, games=40, seed=n, other=Transcribed) >= 40 * n * n // 2


class PySpiel:
    """OpenSpiel's own ``hex`` (pyspiel), when installed."""

    def __init__(self, n: int) -> None:
        import pyspiel

        self.state = pyspiel.load_game(f"hex(board_size={n})").new_initial_state()

    def legal(self) -> list[int]:
        return [] if self.state.is_terminal() else list(self.state.legal_actions())

    def current(self) -> int:
        return self.state.current_player()

    def returns(self) -> list[float]:
        return self.state.returns()

    def apply(self, move: int) -> None:
        self.state.apply_action(move)


@pytest.mark.parametrize("n", [3, 5, 7, 11])
def test_hex_plays_as_openspiel_itself(n):
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install open_spiel)")
    assert lock_step(n, games=100, seed=100 + n, other=PySpiel) > 0


def test_hex_spec_and_contract():
    game = make_game("hex:size=5")
    assert game == Hex(5) and game.spec == "hex:size=5" and make_game(game.spec) == game
    check_game(Hex(4), games=30, seed=0)
    with pytest.raises(ValueError, match="size must be an int from 1 to 26"):
        Hex(0)


@cache
def exact(game: Hex, state, cut: int) -> tuple[Fraction, Fraction, Fraction]:
    """Exact probabilities that a uniformly random playout from ``state`` ends X, O, or cut after ``cut`` moves."""
    if game.is_terminal(state):
        return (Fraction(1), Fraction(0), Fraction(0)) if game.winner(state) == 0 else (0, Fraction(1), Fraction(0))
    if cut == 0:
        return (Fraction(0), Fraction(0), Fraction(1))
    moves = game.legal_moves(state)
    parts = [exact(game, game.apply(state, m), cut - 1) for m in moves]
    return tuple(sum(p[i] for p in parts) / len(moves) for i in range(3))


@needs_numba
@pytest.mark.parametrize("moves,max_moves", [([], None), ([4], None), ([], 5), ([0, 8], 4)])
def test_compiled_playouts_of_hex_have_the_exact_probabilities(moves, max_moves):
    """Both of the compiled rollout's ways (the board filled then one test; move by move under a cut) against exact
    enumeration, within 5 standard deviations of 20,000 playouts (a false alarm once in 1.7 million per count)."""
    from mctslab.engine import random_results

    game = Hex(3)
    state = game.state_from_moves(moves)
    playouts = 20_000
    counts = random_results(game, state, playouts, seed=3, max_moves=max_moves)
    for count, p in zip(counts, exact(game, state, 99 if max_moves is None else max_moves), strict=True):
        sd = math.sqrt(playouts * p * (1 - p))
        assert abs(count - playouts * p) <= 5 * sd + 1e-9, (counts, p)


@cache
def wins_for_mover(game: Hex, state) -> bool:
    """Exact negamax: whether the player to move wins with best play (Hex has no draw)."""
    return any(
        game.winner(after) is not None or not wins_for_mover(game, after)
        for after in (game.apply(state, m) for m in game.legal_moves(state))
    )


@needs_numba
def test_compiled_uct_on_hex_plays_a_winning_move_where_some_moves_lose():
    """4 x 4 after a1 d1 b2 c2: exact negamax finds 2 winning moves of 12 for X; compiled UCT picks one of them."""
    from mctslab import make_agent

    game = Hex(4)
    state = game.state_from_moves([0, 3, 5, 6])
    winning = [m for m in game.legal_moves(state) if (after := game.apply(state, m)).result == 0
               or not wins_for_mover(game, after)]  # fmt: skip
    assert 0 < len(winning) < len(game.legal_moves(state))
    for seed in range(3):
        assert make_agent("uct:iterations=20000,engine=compiled", seed=seed).select_move(game, state) in winning
