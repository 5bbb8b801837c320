"""One agent registry: every parameter of every registered agent round-trips through its generated spec."""

from __future__ import annotations

import pytest
from one_file import run_with_file, unimported_modules

from mctslab import UCT, make_agent, play_game, play_match
from mctslab.agents import AGENTS, Agent, Param, describe_agents, discovery, register_agent
from mctslab.agents.base import check_positive_int
from mctslab.agents.rules import SelectionRule
from mctslab.agents.uct import VARIANT_PARAMS
from mctslab.engine import available as engine_available
from mctslab.games import GAMES, make_game
from mctslab.games.kinds import TWO_PLAYERS
from mctslab.nets.evaluators import weights_path
from mctslab.specs import SpecError, to_bool
from mctslab.ucb import ucb1

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
    # Root parallelism (threads > 1) starts fresh trees every move: no reuse.
    "uct": (
        UCT_VALUES,
        {**UCT_VALUES, "playout": "random", "engine": "compiled"},
        {**UCT_VALUES, "playout": "random", "engine": "compiled", "reuse": False, "threads": 2},
        {
            **UCT_VALUES,
            "playout": "random",
            "engine": "compiled",
            "reuse": False,
            "threads": 2,
            "parallel": "tree",
            "virtual_loss": 2,
        },
    ),
    "solver": (UCT_VALUES, {**UCT_VALUES, "playout": "random", "engine": "compiled"}),
    "rave": ({**UCT_VALUES, "k": 40.0}, {**UCT_VALUES, "k": 40.0, "playout": "random", "engine": "compiled"}),
    "simparallel": (
        {**UCT_VALUES, "workers": 3, "mode": "root", "virtual_loss": 2},
        {**UCT_VALUES, "reuse": False, "threads": 2},
    ),
    "transpositions": (UCT_VALUES, {**UCT_VALUES, "reuse": False, "threads": 2}),
    "minimax": {"depth": 3, "max_nodes": 5000},
    "fixedbudget": {"kind": "halving", "budget": 123, "engine": "compiled"},
    "perfect": {},
    "expectimax": {"max_states": 20000},
    "nmcs": {"level": 2, "memorise": False},
    "nrpa": {"level": 2, "iterations": 5, "alpha": 0.5},
    "ismcts": {"iterations": 31, "c": 0.7, "final": "mean"},
    "moismcts": {"iterations": 31, "c": 0.7, "final": "mean"},
    "determinized": {"worlds": 3, "iterations": 17, "c": 0.7},
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


def found_value(param: Param) -> object | None:
    """A value other than ``param``'s default that its check accepts, found without help (``None``: none found).

    Booleans are flipped; numbers are tried from a short list; text cannot be guessed.
    """
    if isinstance(param.default, bool) or param.parse is to_bool:
        candidates = [not param.default]
    elif param.parse is int:
        candidates = [3, 7, 2]
    elif param.parse is float:
        candidates = [0.5, 2.5, 0.25]
    else:
        candidates = []
    for value in candidates:
        try:
            if value != param.default and param.validate(value) == value:
                return value
        except (TypeError, ValueError):
            continue
    return None


def value_sets(name: str) -> tuple[dict, ...]:
    """The sets of non-default values for agent ``name``.

    ``NON_DEFAULT[name]`` if given; else those of its nearest registered ancestor that has
    some (only the parameters the agent declares), with values found by :func:`found_value`
    for the others. So a UCT variant with UCT's parameters needs no entry here.
    """
    cls = AGENTS[name]
    declared = {p.name: p for p in cls.params}
    given = NON_DEFAULT.get(name)
    if given is None:
        ancestors = [c for c in cls.__mro__[1:] if AGENTS.get(getattr(c, "name", None)) is c]
        given = next((NON_DEFAULT[c.name] for c in ancestors if c.name in NON_DEFAULT), {})
    sets = given if isinstance(given, tuple) else (given,)
    sets = tuple({k: v for k, v in values.items() if k in declared} for values in sets)
    found = {k: found_value(p) for k, p in declared.items() if not any(k in values for values in sets)}
    found = {k: v for k, v in found.items() if v is not None}
    unique = []
    for values in sets:
        values = {**found, **values}
        if values not in unique:
            unique.append(values)
    return tuple(unique)


def missing_values(name: str) -> list[str]:
    """The parameters of agent ``name`` that no set of :func:`value_sets` changes from the default."""
    sets = value_sets(name)
    return [
        p.name
        for p in AGENTS[name].params
        # racioppo's procedure only names all defects or none; with a subset, the defects say it all
        if (name, p.name) != ("racioppo", "procedure")
        and not any(p.name in values and values[p.name] != p.default for values in sets)
    ]


def what_to_add(name: str) -> str:
    """What a newly registered agent needs here, in one message (empty when nothing is missing)."""
    missing = missing_values(name)
    if not missing:
        return ""
    cls = AGENTS[name]
    example = ", ".join(f"{k!r}: <not {AGENTS[name].param(k).default!r}>" for k in missing)
    return (
        f"agent {name!r} ({cls.__module__}.{cls.__qualname__}) has parameters with no test value other than the"
        f" default: {', '.join(missing)}; add NON_DEFAULT[{name!r}] = {{{example}}} (with its other parameters)"
        " to tests/test_registry.py"
    )


def cases() -> list[tuple[str, int]]:
    """(agent name, index of a set of values) for every registered agent."""
    return [(name, i) for name in sorted(AGENTS) for i in range(len(value_sets(name)))]


def test_every_registered_agent_has_a_non_default_value_for_every_parameter():
    problems = [what_to_add(name) for name in sorted(AGENTS)]
    assert not any(problems), "\n".join(p for p in problems if p)
    stale = set(NON_DEFAULT) - set(AGENTS)
    assert not stale, f"NON_DEFAULT in tests/test_registry.py names agents no longer registered: {sorted(stale)}"


def check_round_trip(name: str, values: dict) -> None:
    """Every value set on the agent is read back from its spec; the defaults too."""
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


def check_play_match(name: str, values: dict) -> None:
    """A match reports exactly the agent's spec, which rebuilds the agent played."""
    values = {k: v for k, v in values.items() if k not in ("seconds", "reuse")}
    if "iterations" in values:  # uct and its variants
        values["iterations"] = 20
    cls = AGENTS[name]
    spec = cls(**values, seed=0).spec
    if TWO_PLAYERS not in cls.handles:  # a puzzle solver: a match needs two players, so it plays one puzzle
        puzzle = next(e.test_spec for e in GAMES.values() if make_game(e.test_spec).kind().traits <= cls.handles)
        record = play_game(puzzle, [spec], seed=1)
        assert record.agents == (spec,) and make_agent(spec, seed=0).parameters() == cls(**values, seed=0).parameters()
        return
    game = "tictactoe" if name in ("perfect", "racioppo", "puct", "expectimax") else "connect4:rows=4,cols=4,k=3"
    if name == "minimax":
        values["depth"] = 2
        spec = cls(**values, seed=0).spec
    result = play_match(game, spec, "random", games=2, seed=1, workers=1, progress=False)
    assert result.a == spec
    assert make_agent(result.a, seed=0).parameters() == cls(**values, seed=0).parameters()


@pytest.mark.parametrize(("name", "index"), cases())
def test_every_parameter_round_trips_through_the_spec(name, index):
    values = value_sets(name)[index]
    skip_without_numba(name, values)
    check_round_trip(name, values)


@pytest.mark.parametrize(("name", "index"), cases())
def test_play_match_plays_and_reports_exactly_the_spec(name, index):
    values = value_sets(name)[index]
    skip_without_numba(name, values)
    check_play_match(name, values)


class TunedRule(SelectionRule):
    """UCB1 with a smaller exploration term: enough to be a rule of its own."""

    name = "UCB1-half"

    def value(self, parent, child):
        return ucb1(child.mean, parent.visits, child.visits, self.c / 2)


class Tuned(UCT):
    """A test-only UCT variant: one class and its rule, registered as every agent is."""

    name = "test-tuned"
    params = VARIANT_PARAMS
    rule_class = TunedRule


@pytest.fixture
def registered():
    """Register agent classes for one test, and take them out again."""
    added = []

    def register(cls):
        added.append(register_agent(cls).name)
        return cls

    yield register
    for name in added:
        del AGENTS[name]


def test_a_newly_registered_uct_variant_is_covered_with_no_edit_here(registered):
    registered(Tuned)
    assert "test-tuned" not in NON_DEFAULT
    assert what_to_add("test-tuned") == ""
    sets = value_sets("test-tuned")
    assert sets and all("engine" not in values for values in sets)
    assert {k for values in sets for k in values} == {p.name for p in VARIANT_PARAMS}
    for values in sets:
        check_round_trip("test-tuned", values)
        check_play_match("test-tuned", values)
    assert ("test-tuned", 0) in cases()


def test_a_new_agent_whose_values_cannot_be_found_is_told_what_to_add_and_where(registered):
    class Styled(Agent):
        """An agent with a text parameter: no test value can be guessed for it."""

        name = "test-styled"
        params = (
            Param("style", str, "plain", None, "how it plays"),
            Param("depth", int, 1, check_positive_int, "plies"),
        )

        def __init__(self, style: str = "plain", depth: int = 1, seed=None) -> None:
            super().__init__(seed)
            self.set_params(style=style, depth=depth)

        def analyse(self, game, state):  # pragma: no cover - not played here
            raise NotImplementedError

    registered(Styled)
    assert missing_values("test-styled") == ["style"]  # depth: 3 was found
    message = what_to_add("test-styled")
    assert "agent 'test-styled'" in message and "style" in message and "depth" not in message.split(";")[0]
    assert "add NON_DEFAULT['test-styled'] = {'style': <not 'plain'>}" in message
    assert message.endswith("to tests/test_registry.py")
    with pytest.raises(AssertionError, match="add NON_DEFAULT\\['test-styled'\\]"):
        test_every_registered_agent_has_a_non_default_value_for_every_parameter()


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
        name for name, cls in AGENTS.items() if cls.experiment
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


def test_a_variant_plays_with_threads_only_if_its_spec_says_so(registered):
    # before: a variant (params = VARIANT_PARAMS) took threads=2 and searched in two processes while its spec
    # left threads out, so make_agent(agent.spec) rebuilt a one-thread agent
    registered(Tuned)
    agent = Tuned(iterations=100, threads=2)
    assert agent.spec == "test-tuned:iterations=100,threads=2"
    assert make_agent(agent.spec).threads == 2
    for refused in ({"engine": "compiled"}, {"threads": 2, "parallel": "tree"}, {"virtual_loss": 2}):
        with pytest.raises(ValueError, match="does not declare") as err:
            Tuned(iterations=100, **refused)
        assert "\n" not in str(err.value)


ENGINE_VALUES = ({"threads": 2}, {"engine": "compiled"}, {"threads": 2, "engine": "compiled"})


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_agent_made_with_threads_or_an_engine_is_rebuilt_from_its_spec_or_refuses(name):
    from mctslab.agents.uct import ENGINE_PARAMS

    cls = AGENTS[name]
    for extra in ENGINE_VALUES:
        try:
            agent = cls(**extra, seed=0)
        except (TypeError, ValueError, ImportError) as err:  # refused when made, in one line
            assert "\n" not in str(err), f"{name} {extra}: {err}"
            continue
        rebuilt = make_agent(agent.spec, seed=0)
        for param in (*ENGINE_PARAMS, *(p.name for p in cls.params)):
            assert getattr(rebuilt, param, None) == getattr(agent, param, None), f"{name} {extra}: {param}"


@pytest.mark.parametrize("name", sorted(n for n, cls in AGENTS.items() if "iterations" in {p.name for p in cls.params}))
def test_every_agent_whose_spec_says_threads_k_plays_k_searches(name):
    # before: transpositions:iterations=20,threads=2 took threads=2, wrote it in its spec and searched one
    # DAG of 20 iterations (its own analyse never looked at threads)
    cls, game = AGENTS[name], make_game("tictactoe")
    try:
        agent = cls(iterations=12, threads=2, seed=0)
    except (TypeError, ValueError) as err:  # refused when made, in one line: then its spec never says threads=2
        assert "\n" not in str(err)
        return
    one = cls(iterations=12, seed=0).analyse(game, game.initial_state())
    assert "threads=2" in agent.spec
    two = agent.analyse(game, game.initial_state())
    assert two.iterations == 2 * one.iterations, f"{agent.spec}: {two.iterations} iterations"
    assert sum(s.visits for s in two.stats) == 2 * sum(s.visits for s in one.stats)


def test_every_agent_module_is_imported_by_the_package():
    missing = unimported_modules("agents", discovery.agent_modules())
    assert not missing, f"mctslab.agents.discovery did not import {missing}"


def test_a_new_agent_is_one_file_in_the_folder_and_nothing_else(tmp_path):
    """An agent file dropped into mctslab/agents/ is registered by a fresh interpreter, with no other edit."""
    text = (
        "from .random_agent import RandomAgent\n"
        "from .registry import register_agent\n\n\n"
        "@register_agent\n"
        "class FirstMove(RandomAgent):\n"
        "    name = {name!r}\n"
        "    summary = 'always the first legal move'\n\n"
        "    def select_move(self, game, state):\n"
        "        return game.legal_moves(state)[0]\n"
    )
    code = (
        "from mctslab import make_agent, make_game\n"
        "from mctslab.agents import AGENTS\n"
        "agent = make_agent({name!r})\n"
        "game = make_game('tictactoe')\n"
        "print(sorted(AGENTS).count({name!r}), agent.spec, agent.select_move(game, game.initial_state()))\n"
    )
    printed = run_with_file("agents", text, code, tmp_path).split()
    assert printed[0] == "1" and printed[1].startswith("zz_one_file_") and printed[2] == "0"  # once; its name; first
