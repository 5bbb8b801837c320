"""The game model's kinds: chance, hidden information, one player (toy games in tests/toy_games.py)."""

from __future__ import annotations

import pydoc
import random
from fractions import Fraction

import pytest
from conftest import sample_margin
from toy_games import BROKEN, KINDS, CountingPuzzle, DiceDuel, HighCard, ThreeWayRace

import mctslab
from mctslab import CHANCE, GameContractError, check_game, make_agent, make_game
from mctslab.agents import AGENTS
from mctslab.agents.base import CannotPlayError
from mctslab.games import Game
from mctslab.games.kinds import TRAITS


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_check_game_accepts_each_toy_kind(kind):
    check_game(KINDS[kind](), games=30, seed=2)


@pytest.mark.parametrize(("broken", "fault"), BROKEN, ids=[cls.__name__ for cls, _ in BROKEN])
def test_check_game_rejects_each_broken_variant_naming_the_fault(broken, fault):
    with pytest.raises(GameContractError) as caught:
        check_game(broken(), games=30, seed=2)
    message = str(caught.value)
    assert fault in message and message.startswith(broken.spec + ": ") and "\n" not in message


def test_each_game_declares_its_kind():
    assert make_game("tictactoe").kind().traits == {"two players"}
    assert DiceDuel().kind().describe() == "a two-player game with chance"
    assert HighCard().kind().describe() == "a two-player game with chance and hidden information"
    assert CountingPuzzle().kind().describe() == "a one-player game"
    assert ThreeWayRace().kind().describe() == "a 3-player game"
    assert ThreeWayRace().returns((7, 1)) == (1.0, 0.0, 0.0)  # the default returns: 1 to the winner, 0 to the others
    assert {t for cls in KINDS.values() for t in cls().kind().traits} == TRAITS


def test_chance_is_exported_and_chance_outcomes_are_exact():
    assert mctslab.CHANCE is mctslab.games.CHANCE == CHANCE == -1
    game = DiceDuel()
    state = game.apply(game.initial_state(), 0)  # the steady die, not yet rolled
    assert game.to_move(state) == CHANCE
    assert game.chance_outcomes(state) == ((1, Fraction(1, 3)), (2, Fraction(1, 3)), (3, Fraction(1, 3)))
    assert sum(p for _, p in game.chance_outcomes(state)) == 1
    with pytest.raises(ValueError, match="has no chance nodes"):
        make_game("nim").chance_outcomes(make_game("nim").initial_state())


def test_rollouts_draw_chance_outcomes_with_their_probabilities():
    game, rng, n = DiceDuel(), random.Random(0), 6000
    state = game.apply(game.initial_state(), 1)  # the wild die: 0 or 5, half each
    fives = sum(game.chance_move(state, rng) == 5 for _ in range(n)) / n
    assert abs(fives - 0.5) <= sample_margin(0.5, n)
    played = game.rollout_moves(state, random.Random(1))
    assert played.moves[0] in (0, 5) and tuple(played.returns) == game.rollout(state, random.Random(1))


def test_perfect_information_defaults_and_a_determinization_keeps_what_the_player_knows():
    nim = make_game("nim")
    s = nim.initial_state()
    assert nim.information_state(s, 1) == s and nim.sample_state(s, 0, random.Random(0)) is s
    game = HighCard()
    dealt = game.apply(game.apply(game.initial_state(), 3), 1)  # player 0 holds 3, player 1 holds 1
    rng = random.Random(0)
    samples = {game.sample_state(dealt, 0, rng).cards for _ in range(50)}
    assert samples == {(3, 1), (3, 2)}  # player 0's card kept, player 1's drawn from the cards left
    assert all(game.information_state(game.sample_state(dealt, 1, rng), 1) == (1, 2, ()) for _ in range(10))


def test_a_one_player_game_normalises_its_raw_score():
    game = CountingPuzzle()
    end = game.state_from_moves([3, 3, 2, 1])  # total 9: the best score
    assert game.returns(end) == (1.0,) and game.returns(game.state_from_moves([3, 3, 3, 3])) == (0.0,)
    with pytest.raises(ValueError, match="outside counting's score_range"):
        game.normalise(10)


def test_help_of_game_documents_the_model():
    text = pydoc.render_doc(Game, renderer=pydoc.plaintext)
    for name in ("CHANCE", "chance_outcomes", "information_state", "sample_state", "num_players", "has_chance"):
        assert name in text, name
    assert "perfect_information" in text and "determinization" in text


def _decision(game):
    """The first position where a player (not chance) chooses."""
    state = game.initial_state()
    while game.to_move(state) == CHANCE:
        state = game.apply(state, game.legal_moves(state)[-1])
    return state


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_every_agent_plays_a_toy_kind_or_refuses_it_in_one_line(kind, agent):
    game = KINDS[kind]()
    state = _decision(game)
    player = make_agent(agent, seed=0)
    traits = game.kind().traits
    if traits <= player.handles:
        assert player.select_move(game, state) in game.legal_moves(state)
        return
    with pytest.raises(CannotPlayError) as caught:
        player.select_move(game, state)
    message = str(caught.value)
    able = sorted(name for name, cls in AGENTS.items() if traits <= cls.handles)
    assert "\n" not in message and game.kind().describe() in message, message
    assert message.endswith("agents that can: " + ", ".join(able)) and "random" in able, message
    if hasattr(player, "search"):  # the tree search refuses too, before searching
        with pytest.raises(CannotPlayError):
            player.search(game, state)


def test_no_agent_is_asked_to_move_at_a_chance_node():
    game = DiceDuel()
    state = game.apply(game.initial_state(), 0)
    with pytest.raises(mctslab.IllegalMoveError, match="no player moves at a chance node"):
        make_agent("random", seed=0).select_move(game, state)
