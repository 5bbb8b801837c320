"""No agent that plays hidden information may look at what its player cannot know.

For every registered agent whose ``handles`` include hidden information, and every
registered game with hidden information: two positions with the same information state
for the player to move (different hidden cards or marks) must give the same seeded move
and the same analysis (move statistics).
"""

from __future__ import annotations

import random

import pytest
from test_game_registry import small_agent_spec

from mctslab import make_agent, make_game
from mctslab.agents import AGENTS
from mctslab.agents.determinized import WorldView
from mctslab.games import CHANCE, GAMES
from mctslab.games.kinds import HIDDEN_INFORMATION

HIDDEN_AGENTS = sorted(name for name, cls in AGENTS.items() if HIDDEN_INFORMATION in cls.handles)
HIDDEN_GAMES = sorted(
    GAMES[name].test_spec for name in GAMES if not make_game(GAMES[name].test_spec).perfect_information
)


def twin_positions(game, seed: int, count: int = 4):
    """Pairs of positions, the player to move unable to tell them apart, whose hidden parts differ."""
    rng, pairs = random.Random(seed), []
    for _ in range(200):
        state = game.initial_state()
        for _ in range(rng.randrange(8)):
            if game.is_terminal(state):
                break
            state = game.apply(
                state,
                game.chance_move(state, rng) if game.to_move(state) == CHANCE else rng.choice(game.legal_moves(state)),
            )
        while not game.is_terminal(state) and game.to_move(state) == CHANCE:
            state = game.apply(state, game.chance_move(state, rng))
        if game.is_terminal(state):
            continue
        player = game.to_move(state)
        for _ in range(20):
            twin = game.sample_state(state, player, rng)
            if twin != state:
                pairs.append((state, twin))
                break
        if len(pairs) == count:
            return pairs
    return pairs


def test_there_are_hidden_information_agents_and_games():
    assert {"ismcts", "moismcts", "determinized"} <= set(HIDDEN_AGENTS)
    assert {"kuhn", "phantom_ttt"} <= {spec.partition(":")[0] for spec in HIDDEN_GAMES}


@pytest.mark.parametrize("spec", HIDDEN_GAMES)
@pytest.mark.parametrize("agent", HIDDEN_AGENTS)
def test_same_information_state_same_seeded_move_and_analysis(agent, spec):
    game = make_game(spec)
    pairs = twin_positions(game, seed=0)
    assert pairs, f"no two positions of {spec} with one information state and different hidden parts"
    for state, twin in pairs:
        player = game.to_move(state)
        assert game.information_state(state, player) == game.information_state(twin, player)
        assert state != twin
        one = make_agent(small_agent_spec(agent), seed=7).analyse(game, state)
        two = make_agent(small_agent_spec(agent), seed=7).analyse(game, twin)
        assert one.move == two.move, f"{agent} on {spec}: the move depends on hidden information"
        assert one.stats == two.stats, f"{agent} on {spec}: the analysis depends on hidden information"


def test_the_test_would_catch_a_peeking_agent():
    """An agent that reads the opponent's card would fail the assertion above (the check is not empty)."""
    game = make_game("kuhn")
    state, twin = game.state_from_moves([1, 0]), game.state_from_moves([1, 2])
    assert game.information_state(state, 0) == game.information_state(twin, 0)
    peek = make_agent("uct:iterations=200", seed=7)  # plain UCT on the true position sees the card
    moves = {peek.analyse(WorldView(game, random.Random(0)), s).move for s in (state, twin)}
    assert moves == {0, 1}  # it bets against the Jack and checks against the King
