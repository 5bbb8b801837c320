"""SameGame: its rules on hand-made boards, check_game, and the exact optimum of small seeded boards."""

from __future__ import annotations

import random

import pytest

from mctslab import check_game, make_game, play_game
from mctslab.exact import samegame_optimum
from mctslab.games.samegame import CLEAR_BONUS, SameGame, SameState


def brute_force_best(game: SameGame, state: SameState) -> int:
    """The best final score by plain recursion through the game's interface, no memo (tiny boards only)."""
    if game.is_terminal(state):
        return game.score(state)
    return max(brute_force_best(game, game.apply(state, m)) for m in game.legal_moves(state))


def test_small_boards_keep_the_contract_and_round_trip():
    for spec in ("samegame:rows=4,cols=4,colors=3,seed=1", "samegame:rows=5,cols=6,colors=4,seed=9"):
        game = make_game(spec)
        check_game(game, games=10, seed=1)
        assert make_game(game.spec) == game and game.kind().players == 1
        assert hash(game.initial_state()) == hash(make_game(spec).initial_state())


def test_groups_fall_close_up_and_score_n_minus_2_squared():
    game = SameGame(rows=3, cols=3, colors=2)
    # Columns bottom first: a group of four 1s (L shape) and 2s on top.
    state = SameGame.from_columns(((1, 1, 2), (1, 2, 2), (1, 2, 1)))
    assert game.legal_moves(state) == (0, 2)  # the 1s start at (0, 0); the 2s at (0, 2)
    after = game.play(state, 0)  # removes four 1s: (4 - 2) ** 2 = 4 points
    assert after == SameState(((2,), (2, 2), (2, 1)), 4)
    assert game.render(after).splitlines()[:3] == ["...", ".BA", "BBB"]
    done = game.play(after, game.legal_moves(after)[0])  # four 2s: 4 more
    assert done.columns == ((1,),) and game.is_terminal(done) and game.score(done) == 8
    with pytest.raises(ValueError, match="illegal"):
        game.play(state, 1)


def test_clearing_the_board_earns_the_bonus_and_returns_are_normalised():
    game = SameGame(rows=2, cols=2, colors=2)
    state = SameGame.from_columns(((1, 2), (1, 2)))
    end = game.play(game.play(state, 0), 0)
    assert end.columns == () and game.score(end) == CLEAR_BONUS
    assert game.returns(end) == ((CLEAR_BONUS - 0) / ((4 - 2) ** 2 + CLEAR_BONUS),)


def test_the_optimum_joins_groups_where_greedy_does_not():
    # One column 1 1 2 2 1 1: removing the 2s first joins four 1s (4 points) and clears the board.
    game = SameGame(rows=6, cols=2, colors=2)
    state = SameGame.from_columns(((1, 1, 2, 2, 1, 1),))
    best = samegame_optimum(game, state)
    assert best.score == 4 + CLEAR_BONUS and best.moves[0] == 2
    assert brute_force_best(game, state) == best.score


@pytest.mark.parametrize("seed", range(6))
def test_the_memoised_optimum_equals_plain_recursion_and_is_reached_by_its_moves(seed):
    game = make_game(f"samegame:rows=4,cols=4,colors=3,seed={seed}")
    best = samegame_optimum(game)
    assert best.score == brute_force_best(game, game.initial_state())
    end = game.state_from_moves(best.moves)
    assert game.is_terminal(end) and game.score(end) == best.score


def test_no_random_playout_beats_the_optimum_and_some_reach_it():
    game = make_game("samegame:rows=5,cols=5,colors=3,seed=2")
    best = samegame_optimum(game).score
    scores = [game.score(game.state_from_moves(play_game(game, ["random"], seed=s).moves)) for s in range(300)]
    assert max(scores) <= best
    # from a middle position the optimum is the best over its children's optima
    state = game.initial_state()
    children = [samegame_optimum(game, game.apply(state, m)).score for m in game.legal_moves(state)]
    assert max(children) == best


def test_a_board_too_big_to_solve_is_refused_in_one_line():
    with pytest.raises(ValueError, match="too big to solve exactly") as err:
        samegame_optimum(make_game("samegame:rows=6,cols=6,colors=4,seed=1"), max_boards=100)
    assert "\n" not in str(err.value)


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="colors must be an int from 2 to 9, got 1"):
        SameGame(colors=1)
    with pytest.raises(ValueError, match="rows must be an int from 2 to 15, got 16"):
        SameGame(rows=16)
    with pytest.raises(ValueError, match="not a state of the game"):
        SameGame().check_state(SameState(((7,),), 0))


def test_seeded_boards_differ_and_are_reproducible():
    boards = {make_game(f"samegame:rows=4,cols=4,colors=3,seed={s}").initial_state() for s in range(10)}
    assert len(boards) == 10
    rng = random.Random(3)
    assert [1 + int(rng.random() * 3) for _ in range(4)] == list(
        make_game("samegame:rows=4,cols=4,colors=3,seed=3").initial_state().columns[0]
    )
