"""``check_game`` on every registered game, and proof that ``check_game`` itself can fail."""

from __future__ import annotations

import pytest
from conftest import registered_games

from mctslab import GameContractError, check_game, make_game, play_game
from mctslab.games.compiled import NoCompiledEncoding, register_compiled
from mctslab.games.tictactoe import TicTacToe

VARIANTS = ["tictactoe:n=4,k=3", "tictactoe:n=5,k=4", "connect4:rows=4,cols=5", "nim:heaps=1-2-3-4"]


@pytest.mark.parametrize("spec", registered_games() + VARIANTS)
def test_every_game_keeps_the_contract(spec):
    game = make_game(spec)
    check_game(game, games=10, seed=1)
    assert make_game(game.spec) == game  # the canonical spec rebuilds the same game


@pytest.mark.parametrize("spec", registered_games())
def test_random_agents_finish_every_game(spec):
    players = make_game(spec).num_players
    for seed in range(5):
        record = play_game(spec, ["random"] * players, seed=seed)
        assert record.plies >= 1 and len(record.returns) == players
        assert sum(record.returns) == 1.0 or players == 1


class _MutatingTicTacToe(TicTacToe):
    """A broken game: it keeps a list in the state and changes it in place."""

    def initial_state(self):
        return ([],)

    def to_move(self, state):
        return len(state[0]) % 2

    def legal_moves(self, state):
        return tuple(c for c in range(9) if c not in state[0]) if len(state[0]) < 9 else ()

    def apply(self, state, move):
        state[0].append(move)
        return state

    def is_terminal(self, state):
        return len(state[0]) == 9

    def winner(self, state):
        return None

    def returns(self, state):
        if not self.is_terminal(state):
            raise ValueError("in progress")
        return (0.5, 0.5)

    def rollout(self, state, rng, max_moves=None):
        return (0.5, 0.5)

    def render(self, state):
        return str(state)


class _WrongWinner(TicTacToe):
    """A broken game: winner() names the loser, and returns() believes it, but playouts do not."""

    def winner(self, state):
        w = super().winner(state)
        return None if w is None else 1 - w


class _ReturnsDisagree(TicTacToe):
    """A broken game: returns() scores a win as a draw."""

    def returns(self, state):
        super().returns(state)
        return (0.5, 0.5)


class _CountsForTheWrongPlayer(TicTacToe):
    """A broken game: its batched playouts swap the two players' wins."""

    def playout_counts(self, states, playouts, rng, max_moves=None):
        return super().playout_counts(states, playouts, rng, max_moves)[:, [1, 0, 2]]


class _CountsTooFew(TicTacToe):
    """A broken game: its batched playouts lose one playout per state."""

    def playout_counts(self, states, playouts, rng, max_moves=None):
        counts = super().playout_counts(states, playouts, rng, max_moves)
        counts[:, 2] -= 1
        return counts


class _NeverEnds(TicTacToe):
    def is_terminal(self, state):
        return False

    def legal_moves(self, state):
        return (0,)

    def apply(self, state, move):
        return state

    def rollout(self, state, rng, max_moves=None):
        return (0.5, 0.5)


# no compiled rules: they are not tic-tac-toe's (with them, the 10th ply passes their declared max_plies=9)
register_compiled(_NeverEnds)(NoCompiledEncoding)


class _RulesDisagree(TicTacToe):
    """A broken game: check_state() refuses positions its own apply() reaches (three X stones)."""

    def check_state(self, state):
        super().check_state(state)
        if state.x.bit_count() >= 3:
            self.refuse_state(state, "X never has three stones")


@pytest.mark.parametrize(
    "game,message",
    [
        (_MutatingTicTacToe(), "immutable and hashable"),
        (_RulesDisagree(), r"check_state\(\) refuses a position play\(\) reached: .*three stones"),
        (_WrongWinner(), r"rollout\(\) of a finished game"),
        (_ReturnsDisagree(), r"rollout\(\) of a finished game|winner\(\) is"),
        (_NeverEnds(), "did not end"),
        (_CountsForTheWrongPlayer(), r"playout_counts\(\) of a finished game"),
        (_CountsTooFew(), r"playout_counts\(\) must give one row"),
    ],
)
def test_check_game_catches_broken_games(game, message):
    with pytest.raises(GameContractError, match=message):
        check_game(game, games=5, max_plies=50)


class _SpecLies(TicTacToe):
    """A registered game whose spec leaves out a parameter: make_game(spec) builds another game."""

    def __init__(self, k: int = 3) -> None:
        super().__init__(n=4, k=k)
        self.spec = f"speclies:k={k}"  # n=4 is not in the spec: it rebuilds with n=4 only by luck of the default


def test_check_game_refuses_a_spec_that_does_not_rebuild_the_game():
    # before: check_game never asked make_game(game.spec) == game
    from mctslab.games import GAMES, register_game

    register_game("speclies", lambda k=3, n=3: TicTacToe(n=n, k=k), {"k": int, "n": int})
    try:
        with pytest.raises(GameContractError, match=r"make_game\('speclies:k=3'\) must rebuild the same game"):
            check_game(_SpecLies(), games=1)
    finally:
        GAMES.pop("speclies")


class _HandFromTheEnd(TicTacToe):
    """A game that answers for any player, as Kuhn poker did for player -1 (a hand read from the end)."""

    def information_state(self, state, player):
        return (state, player)


@pytest.mark.parametrize("spec", registered_games())
@pytest.mark.parametrize("method", ["information_state", "sample_state", "evaluate"])
def test_every_game_refuses_a_player_it_does_not_have_in_one_line(spec, method):
    # before: kuhn.information_state(state, -1) answered with player 1's card, and player 5 got an answer
    import random

    game = make_game(spec)
    state = game.initial_state()
    extra = (random.Random(0),) if method == "sample_state" else ()
    for player in (-1, game.num_players, 5, True, 0.0):
        if isinstance(player, int) and not isinstance(player, bool) and 0 <= player < game.num_players:
            continue
        with pytest.raises(ValueError, match=rf"^player {player!r}: .* has players 0 to {game.num_players - 1}$"):
            getattr(game, method)(state, player, *extra)


def test_a_game_that_overrides_a_players_method_refuses_a_foreign_player_too():
    game = _HandFromTheEnd()
    state = game.initial_state()
    assert game.information_state(state, 1) == (state, 1)
    for player in (-1, 2):
        with pytest.raises(ValueError, match=f"player {player}: tictactoe:n=3,k=3 has players 0 to 1"):
            game.information_state(state, player)


def test_replaying_a_game_checks_its_first_position_only():
    """play() takes the position it returns as checked: a replay does not check each position again."""
    checked = []

    class Counting(TicTacToe):
        def check_state(self, state):
            checked.append(state)
            super().check_state(state)

    game = Counting()
    final = game.state_from_moves([0, 3, 1, 4, 2])
    assert checked == [game.initial_state()] and game.is_terminal(final)
    rebuilt = type(final)(*game.state_from_moves([0, 3]))  # an equal position, but not the object play() made
    game.play(rebuilt, 1)
    assert checked[-1] is rebuilt and len(checked) == 3
