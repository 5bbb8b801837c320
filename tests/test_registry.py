"""One agent registry: every parameter of every registered agent round-trips through its generated spec."""

from __future__ import annotations

import pytest

from mctslab import make_agent, play_match
from mctslab.agents import AGENTS, Agent, Param, describe_agents, register_agent
from mctslab.agents.base import check_positive_int
from mctslab.engine import available as engine_available
from mctslab.games import make_game
from mctslab.nets.evaluators import weights_path
from mctslab.specs import SpecError

# A value other than the default for every declared parameter of every registered agent: one
# set of values, or several (a tuple) where two non-default values cannot go together.
UCT_VALUES = {"iterations": 77, "seconds": 0.25, "c": 0.3, "max_moves": 4, "final": "mean", "reuse": True}
UCT_VALUES["playout"] = "decisive"
NON_DEFAULT = {
    "random": {},
    "flat": {"playouts": 7, "max_moves": 3, "batched": True, "engine": "compiled"},
    "windowed": {
        "playouts": 9,
        "window": 2,
        "keep": (3,),
        "reuse": True,
        "max_moves": 5,
        "batched": True,
        "engine": "compiled",
    },
    # The compiled engine plays random playouts only: playout and engine are changed in two sets.
    "uct": (UCT_VALUES, {**UCT_VALUES, "playout": "random", "engine": "compiled"}),
    "solver": UCT_VALUES,
    "rave": {**UCT_VALUES, "k": 40.0},
    "transpositions": UCT_VALUES,
    "minimax": {"depth": 3, "max_nodes": 5000},
    "fixedbudget": {"kind": "halving", "budget": 123},
    "perfect": {},
    "racioppo": {"playouts": 12, "window": 3, "procedure": "paper", "defects": frozenset({"turn", "ties"})},
    "puct": {
        "iterations": 21,
        "seconds": 0.25,
        "c": 2.5,
        "evaluator": "net",
        "noise": 0.25,
        "alpha": 0.6,
        "final": "mean",
        "weights": str(weights_path(make_game("tictactoe"))),
    },  # fmt: skip
}


def skip_without_numba(name: str, values: dict) -> None:
    """Non-default values with ``engine="compiled"`` need Numba (mctslab[fast])."""
    if values.get("engine") == "compiled" and not engine_available():
        pytest.skip("Numba is not installed (pip install 'mctslab[fast]'): engine=compiled not tested")


def value_sets(name: str) -> tuple[dict, ...]:
    """The sets of non-default values given for agent ``name``."""
    values = NON_DEFAULT[name]
    return values if isinstance(values, tuple) else (values,)


CASES = [(name, i) for name in sorted(NON_DEFAULT) for i in range(len(value_sets(name)))]


def test_every_registered_agent_has_non_default_values_here():
    assert set(NON_DEFAULT) == set(AGENTS)
    for name in NON_DEFAULT:
        declared = {p.name: p for p in AGENTS[name].params}
        sets = value_sets(name)
        assert set().union(*sets) == set(declared), name
        for key, param in declared.items():
            # racioppo's procedure only names all defects or none; with a subset, the defects say it all
            if (name, key) != ("racioppo", "procedure"):
                assert any(key in values and values[key] != param.default for values in sets), (name, key)


@pytest.mark.parametrize(("name", "index"), CASES)
def test_every_parameter_round_trips_through_the_spec(name, index):
    values = value_sets(name)[index]
    skip_without_numba(name, values)
    cls = AGENTS[name]
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


@pytest.mark.parametrize(("name", "index"), CASES)
def test_play_match_plays_and_reports_exactly_the_spec(name, index):
    values = {k: v for k, v in value_sets(name)[index].items() if k not in ("seconds", "reuse")}
    skip_without_numba(name, values)
    if "iterations" in values:  # uct and its variants
        values["iterations"] = 20
    cls = AGENTS[name]
    spec = cls(**values, seed=0).spec
    game = "tictactoe" if name in ("perfect", "racioppo", "puct") else "connect4:rows=4,cols=4,k=3"
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
