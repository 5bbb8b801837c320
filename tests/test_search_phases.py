"""A search's phases hand their results to each other as values, never through the agent's fields (issue 39).

Selection, expansion, simulation and backpropagation of every agent of the UCT family pass what one
makes and the next uses (the walked path, the leaf's value, the playout's moves) as return values and
arguments: an agent's fields hold its parameters and its documented caches only, so a search writes
nothing else on it.
"""

from __future__ import annotations

import pytest

from mctslab import make_game
from mctslab.agents import AGENTS
from mctslab.agents.uct import UCT

CACHES = {
    "_search_thread": "base.Agent: the thread searching with it (ConcurrentSearchError), entered and left",
    "_game_played": "base.Agent: the game it plays (its kind checked once)",
    "_rule": "rules.Ruled: the rule object built from rule_class and c, kept while they stay the same",
    "_engines": "uct.UCT: the engines it searched with (each keeps the tree that reuse continues from)",
    "table": "transpositions: the positions searched and their nodes (public, documented on the class)",
}
"""The fields a search may write on an agent of the UCT family: its documented caches."""

FAMILY = sorted(name for name, cls in AGENTS.items() if issubclass(cls, UCT))


@pytest.mark.parametrize("name", FAMILY)
def test_a_search_writes_no_field_but_the_agent_s_caches(name):
    written: list[str] = []

    class Watched(AGENTS[name]):
        def __setattr__(self, key, value):
            if searching:
                written.append(key)
            super().__setattr__(key, value)

    searching = False
    agent = Watched(iterations=30, seed=0)
    game = make_game("tictactoe")
    searching = True
    for moves in ([0, 4], [0, 4, 8]):
        agent.analyse(game, game.state_from_moves(moves))
    assert set(written) <= set(CACHES), sorted(set(written) - set(CACHES))
