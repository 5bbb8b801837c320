"""One agent registry: every parameter of every registered agent round-trips through its generated spec."""

from __future__ import annotations

import pytest

from mctslab import make_agent, play_match
from mctslab.agents import AGENTS, Agent, Param, describe_agents, register_agent
from mctslab.agents.base import check_positive_int
from mctslab.specs import SpecError

# A value other than the default for every declared parameter of every registered agent.
NON_DEFAULT = {
    "random": {},
    "flat": {"playouts": 7, "max_moves": 3, "batched": True},
    "windowed": {"playouts": 9, "window": 2, "keep": (3,), "reuse": True, "max_moves": 5, "batched": True},
    "uct": {"iterations": 77, "seconds": 0.25, "c": 0.3, "max_moves": 4, "final": "mean", "reuse": True},
    "minimax": {"depth": 3, "max_nodes": 5000},
    "fixedbudget": {"kind": "halving", "budget": 123},
    "perfect": {},
    "racioppo": {"playouts": 12, "window": 3, "procedure": "paper", "defects": frozenset({"turn", "ties"})},
}


def test_every_registered_agent_has_non_default_values_here():
    assert set(NON_DEFAULT) == set(AGENTS)
    for name, values in NON_DEFAULT.items():
        declared = {p.name: p for p in AGENTS[name].params}
        assert set(values) == set(declared), name
        # racioppo's procedure only names all defects or none; with a subset, the defects say it all
        assert all(v != declared[k].default for k, v in values.items() if (name, k) != ("racioppo", "procedure"))


@pytest.mark.parametrize("name", sorted(NON_DEFAULT))
def test_every_parameter_round_trips_through_the_spec(name):
    cls = AGENTS[name]
    values = NON_DEFAULT[name]
    agent = cls(**values, seed=0)
    rebuilt = make_agent(agent.spec, seed=0)
    assert type(rebuilt) is cls
    assert rebuilt.parameters() == agent.parameters()
    assert rebuilt.spec == agent.spec
    for key, value in values.items():
        if (name, key) == ("racioppo", "procedure"):
            continue  # normalised: a subset of defects is not the paper's procedure
        assert agent.parameters()[key] == value, (name, key)
    # the defaults round-trip too, and stay out of the spec unless declared "always"
    default = cls(seed=0)
    assert make_agent(default.spec, seed=0).parameters() == default.parameters()


@pytest.mark.parametrize("name", sorted(NON_DEFAULT))
def test_play_match_plays_and_reports_exactly_the_spec(name):
    values = {k: v for k, v in NON_DEFAULT[name].items() if k not in ("seconds", "reuse")}
    if name == "uct":
        values["iterations"] = 20
    cls = AGENTS[name]
    spec = cls(**values, seed=0).spec
    game = "tictactoe" if name in ("perfect", "racioppo") else "connect4:rows=4,cols=4,k=3"
    if name == "minimax":
        values["depth"] = 2
        spec = cls(**values, seed=0).spec
    result = play_match(game, spec, "random", games=2, seed=1, workers=1, progress=False)
    assert result.a == spec
    assert make_agent(result.a, seed=0).parameters() == cls(**values, seed=0).parameters()


def test_max_moves_is_no_longer_dropped_from_flat_specs():
    result = play_match("connect4", "flat:playouts=2,max_moves=1", "random", games=2, seed=0, progress=False)
    assert result.a == "flat:playouts=2,max_moves=1"
    assert make_agent(result.a).max_moves == 1


def test_a_new_agent_registers_with_declared_parameters_and_round_trips():
    class Greedy(Agent):
        """Plays the first legal move; a test agent."""

        name = "test-greedy"
        params = (Param("lookahead", int, 1, check_positive_int, "plies", show="changed"),)

        def __init__(self, lookahead: int = 1, seed=None) -> None:
            super().__init__(seed)
            self.set_params(lookahead=lookahead)

        def analyse(self, game, state):  # pragma: no cover - not played here
            raise NotImplementedError

    register_agent(Greedy)
    try:
        assert make_agent("test-greedy").spec == "test-greedy"
        assert make_agent("test-greedy:lookahead=3").spec == "test-greedy:lookahead=3"
        with pytest.raises(SpecError, match="lookahead must be an integer >= 1"):
            make_agent("test-greedy:lookahead=0")
        with pytest.raises(SpecError, match="known parameters: lookahead"):
            make_agent("test-greedy:depth=3")
        with pytest.raises(ValueError, match="already registered"):
            register_agent(type("Other", (Greedy,), {}))
    finally:
        del AGENTS["test-greedy"]


def test_registering_bad_agents_is_refused():
    with pytest.raises(TypeError):
        register_agent(int)
    bad = type("Bad", (Agent,), {"name": "Bad Name", "analyse": lambda self, g, s: None})
    with pytest.raises(ValueError, match="lower case"):
        register_agent(bad)


def test_experiment_agents_are_listed_apart():
    general, experiments = describe_agents(experiments=False), describe_agents(experiments=True)
    assert "uct:" in general and "perfect" not in general
    assert {line.split(":")[0].split()[0] for line in experiments.splitlines()} == {
        "fixedbudget",
        "perfect",
        "racioppo",
    }


def test_display_labels_are_not_specs():
    agent = make_agent("fixedbudget:kind=window,budget=450")
    assert agent.label == "window@450"
    assert agent.spec == "fixedbudget:kind=window,budget=450"
    with pytest.raises(SpecError):
        make_agent(agent.label)


def test_an_unregistered_subclass_cannot_pass_for_its_parent_in_a_tournament():
    from mctslab import UCT
    from mctslab.agents import canonical_spec

    class Variant(UCT):
        """A UCT variant nobody registered."""

    with pytest.raises(SpecError, match="Variant is not registered"):
        canonical_spec(Variant(iterations=10))
    with pytest.raises(SpecError, match="not registered"):
        play_match("tictactoe", Variant(iterations=10), "random", games=2, progress=False)
