"""The compiled engine's budget is one value (``mctslab.engine.Budget``), checked once and handed down unchanged.

Issue 39: ``c, iterations, seconds, max_moves`` were passed as four keywords through every layer
(agent, entry point, check, tree), each re-spelling and re-checking them. Now the agent's engine
makes one :class:`~mctslab.engine.Budget` and every layer passes that object on.
"""

from __future__ import annotations

import math

import pytest

from mctslab import engine, make_agent, make_game
from mctslab.engine import Budget

needs_numba = pytest.mark.skipif(not engine.available(), reason="the compiled engine needs Numba")

TTT = make_game("tictactoe")

BAD = [
    {"c": -1.0},
    {"c": math.nan},
    {"iterations": 0},
    {"iterations": 2**40},
    {"iterations": 1.5},
    {"iterations": True},
    {"iterations": None, "seconds": math.inf},
    {"iterations": None, "seconds": 0.0},
    {"max_moves": 0},
    {"iterations": None},
]


@pytest.mark.parametrize("bad", BAD, ids=[str(b) for b in BAD])
def test_a_bad_budget_is_refused_when_made_in_one_line(bad):
    args = {"c": 1.4, "iterations": 100, "seconds": None, "max_moves": None, **bad}
    with pytest.raises((TypeError, ValueError)) as err:
        Budget(**args)
    assert "\n" not in str(err.value)
    if engine.available():  # the keyword front says the same, word for word
        with pytest.raises(type(err.value)) as same:
            engine.search(TTT, TTT.initial_state(), **args, seed=0)
        assert str(same.value) == str(err.value)


def test_a_budget_is_a_frozen_value():
    budget = Budget(1.4, 100)
    assert budget == Budget(c=1.4, iterations=100, seconds=None, max_moves=None) and hash(budget) == hash(
        Budget(1.4, 100)
    )
    assert budget.limit == engine.NO_LIMIT and Budget(1.4, 100, max_moves=7).limit == 7
    with pytest.raises(AttributeError):
        budget.c = 2.0  # type: ignore[misc]


@needs_numba
@pytest.mark.parametrize(
    "spec", ["uct", "solver", "rave", "uct:threads=2,parallel=root", "uct:threads=2,parallel=leaf"]
)
def test_the_agents_budget_is_made_once_and_reaches_the_tree_unchanged(monkeypatch, spec):
    """Every tree's run gets the very object the agent's engine made; a changed parameter makes a new one."""
    from mctslab.engine.tree import CompiledTree

    name, _, extra = spec.partition(":")
    agent = make_agent(f"{name}:iterations=20,engine=compiled" + (f",{extra}" if extra else ""), seed=1)
    state = TTT.initial_state()
    agent.analyse(TTT, state)  # the kernel compiled (or loaded): its warm-up run is not the agent's
    seen: list[Budget] = []
    run = CompiledTree.run

    def spy(self, budget, stop=None):
        seen.append(budget)
        return run(self, budget, stop)

    monkeypatch.setattr(CompiledTree, "run", spy)
    agent.analyse(TTT, state)
    agent.analyse(TTT, TTT.apply(state, 4))
    made = agent.search_engine.budget(agent)
    assert made == Budget(agent.c, 20) and seen and all(b is made for b in seen)
    agent.c = 0.5
    assert agent.search_engine.budget(agent) == Budget(0.5, 20)
    assert agent.search_engine.budget(agent) is agent.search_engine.budget(agent)
