"""ISMCTS and determinized UCT: one tree over information sets, worlds sampled, the obvious decisions found."""

from __future__ import annotations

import pytest

from mctslab import make_agent, make_game
from mctslab.agents.base import CannotPlayError
from mctslab.tournament import play_match
from mctslab.tournament.stats import wilson


@pytest.fixture(scope="module")
def kuhn():
    return make_game("kuhn")


def test_one_tree_over_information_sets(kuhn):
    agent = make_agent("ismcts:iterations=300", seed=0)
    state = kuhn.state_from_moves([1, 0])  # player 0 holds the Queen
    tree = agent.search(kuhn, state)
    root = tree[(0, kuhn.information_state(state, 0))]
    assert sum(root.visits.values()) == 299  # the first iteration only adds the root
    # player 1's nodes are keyed by their own card: both the Jack and the King were dealt to them
    cards_seen = {key[0] for player, key in tree if player == 1}
    assert cards_seen == {0, 2}
    # legal moves depend on the information state only: availability is the node's visits
    for node in tree.values():
        total = sum(node.visits.values())
        assert all(node.available[m] == total for m in node.visits)


@pytest.mark.parametrize("agent", ["ismcts:iterations=2000", "determinized:worlds=10,iterations=200"])
def test_dominant_decisions_in_kuhn(kuhn, agent):
    """Facing a bet, the King calls (it cannot lose) and the Jack folds (it cannot win)."""
    king = kuhn.state_from_moves([0, 2, 1])  # player 0 bet, player 1 holds the King
    jack = kuhn.state_from_moves([2, 0, 1])  # player 1 holds the Jack
    assert make_agent(agent, seed=0).select_move(kuhn, king) == 1
    assert make_agent(agent, seed=0).select_move(kuhn, jack) == 0


def test_determinized_refuses_more_than_two_players():
    agent = make_agent("determinized:worlds=2,iterations=4")
    assert "two players" in " ".join(agent.handles)
    with pytest.raises(CannotPlayError, match="determinized"):
        from tests.toy_games import ThreeWayRace  # noqa: PLC0415

        agent.analyse(ThreeWayRace(), ThreeWayRace().initial_state())


def test_ismcts_beats_random_at_phantom_tictactoe():
    """60 games; ISMCTS with 200 iterations should win far more than half (Wilson lower bound > 0.5)."""
    result = play_match("phantom_ttt", "ismcts:iterations=200", "random", games=60, seed=0, workers=1, progress=False)
    outcomes = result.outcomes
    low, _ = wilson(outcomes.wins, outcomes.games)  # wins alone: draws count against
    assert low > 0.5, outcomes
