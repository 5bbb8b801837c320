"""The public API reads well in ``help()``: every public name and method has a docstring."""

from __future__ import annotations

import inspect

import pytest

import mctslab
from mctslab import GAMES, UCT, make_agent, make_game
from mctslab.agents import AGENTS


def _public_members(obj):
    for name, member in inspect.getmembers(obj):
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property)):
            yield name, member


@pytest.mark.parametrize("name", mctslab.__all__)
def test_every_public_name_has_a_docstring(name):
    obj = getattr(mctslab, name)
    if callable(obj) or inspect.ismodule(obj):
        assert inspect.getdoc(obj), f"mctslab.{name} has no docstring"
    if inspect.isclass(obj):
        for member_name, member in _public_members(obj):
            assert inspect.getdoc(member), f"mctslab.{name}.{member_name} has no docstring"


@pytest.mark.parametrize("spec", sorted(GAMES))
def test_every_game_class_documents_itself(spec):
    game = make_game(spec)
    assert inspect.getdoc(type(game))
    for member_name, member in _public_members(type(game)):
        assert inspect.getdoc(member), f"{type(game).__name__}.{member_name} has no docstring"


@pytest.mark.parametrize("spec", sorted(AGENTS))
def test_every_agent_spec_round_trips(spec):
    agent = make_agent(spec, seed=0)
    assert inspect.getdoc(type(agent))
    assert type(make_agent(agent.spec, seed=0)) is type(agent)
    assert repr(agent) == f"make_agent({agent.spec!r})"


def test_uct_playout_cap_scores_unfinished_games_as_draws():
    game = make_game("connect4")
    root = UCT(iterations=300, max_moves=1, seed=0).search(game, game.initial_state())
    # one random move can never end Connect Four: every playout is cut short and scored 0.5
    assert root.height() >= 2
    assert all(node.wins == 0.5 * node.visits for node in root.iter_nodes())
