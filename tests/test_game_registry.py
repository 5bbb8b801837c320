"""The open game registry: games register themselves, and the suite runs every registered game.

``tests/game_for_tests.py`` registers a game the package does not know ("race"); these
tests show that the registry-iterating tests ran it, with no edit to them, and that a
registered game missing what the suite needs is told what to add and where.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import pathlib
import random
import sys
from fractions import Fraction
from typing import NamedTuple

import pytest
import test_contract
import test_game_hooks
import test_playouts
import test_uct_extension
import test_viz_steps
import test_viz_tree
from conftest import registered_games
from game_for_tests import Race
from one_file import run_with_file, unimported_modules

import mctslab
from mctslab import CHANCE, check_game, make_agent, make_game, play_game, round_robin
from mctslab.agents import AGENTS
from mctslab.games import GAMES, Game, discovery, register_game
from mctslab.games.hooks import drawing
from mctslab.specs import SpecError

SMALL_BUDGETS = {"iterations": 16, "playouts": 4, "budget": 24, "depth": 2}
"""Small values for the agents' budget parameters, so every agent plays every game in a moment."""


def small_agent_spec(name: str) -> str:
    """The spec of agent ``name`` with its budget parameters (:data:`SMALL_BUDGETS`) made small."""
    parts = [f"{p.name}={SMALL_BUDGETS[p.name]}" for p in AGENTS[name].params if p.name in SMALL_BUDGETS]
    return name + (":" + ",".join(parts) if parts else "")


def late_position(game: Game, seed: int = 0, before_end: int = 4):
    """A position ``before_end`` decisions before the end of a seeded random game (small enough to solve)."""
    rng, state, seen = random.Random(seed), game.initial_state(), []
    while not game.is_terminal(state):
        if game.to_move(state) != CHANCE:
            seen.append(state)
        state = game.apply(state, rng.choice(game.legal_moves(state)))
    return seen[max(0, len(seen) - before_end)]


def where_registered(name: str) -> str:
    """The file that registered game ``name``, relative to the repository if it is inside it."""
    path = pathlib.Path(inspect.getsourcefile(GAMES[name].factory) or "?")
    root = pathlib.Path(mctslab.__file__).resolve().parent.parent
    return str(path.resolve().relative_to(root)) if path.resolve().is_relative_to(root) else str(path)


@pytest.mark.parametrize("name", list(GAMES))
def test_every_registered_game_declares_a_small_test_spec_that_builds_it(name):
    entry = GAMES[name]
    assert entry.test_spec, (
        f'game {name!r} has no small test spec: add test_spec="{name}:..." (parameters small enough to search '
        f"and play in a second) to its @register_game in {where_registered(name)}"
    )
    try:
        game = make_game(entry.test_spec)
    except SpecError as err:
        pytest.fail(f"game {name!r}: its test_spec does not build ({err}); fix it in {where_registered(name)}")
    assert game.spec.partition(":")[0] == name, (
        f"game {name!r}: test_spec {entry.test_spec!r} builds {game.spec!r}; name {name!r} in it "
        f"({where_registered(name)})"
    )
    assert make_game(game.spec) == game, f"game {name!r}: spec {game.spec!r} must rebuild the same game"


@pytest.mark.parametrize("spec", registered_games())
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_every_registered_agent_plays_every_registered_game_or_refuses_in_one_line(spec, agent):
    game = make_game(spec)
    state = late_position(game)
    player = make_agent(small_agent_spec(agent), seed=0)
    try:
        move = player.select_move(game, state)
    except ValueError as err:  # a declared refusal: the kind (CannotPlayError) or the agent's own limit
        assert "\n" not in str(err) and game.spec in str(err), f"{agent} on {spec}: {err}"
        return
    assert move in game.legal_moves(state), f"{agent} played {move} in {game.render(state)}"


@pytest.mark.parametrize("spec", registered_games())
def test_every_registered_game_plays_a_tournament(spec):
    traits = make_game(spec).kind().traits
    agents = [
        a
        for a in ("random", "flat:playouts=2", "uct:iterations=8", "ismcts:iterations=8")
        if traits <= make_agent(a).handles
    ]
    if make_game(spec).num_players == 1:  # a puzzle has no opponent: each agent that plays it solves it once
        for agent in agents:
            record = play_game(spec, [agent], seed=0)
            assert make_game(spec).is_terminal(make_game(spec).state_from_moves(record.moves))
        return
    result = round_robin(spec, agents, games=2, seed=0, progress=False)
    assert result.game == make_game(spec).spec
    assert [m.games for m in result.matches.values()] == [2] * (len(agents) * (len(agents) - 1) // 2)


def _parametrized_specs(test) -> list[str]:
    """The values a test function is parametrized with under the name ``spec``."""
    return [
        v for mark in test.pytestmark if mark.name == "parametrize" and mark.args[0] == "spec" for v in mark.args[1]
    ]


def test_the_test_only_game_is_in_every_test_that_iterates_the_registry():
    race = GAMES["race"].test_spec
    for test in (
        test_contract.test_every_game_keeps_the_contract,  # check_game
        test_contract.test_random_agents_finish_every_game,
        test_viz_tree.test_drawing_shows_moves_and_wins_over_visits_on_every_game,  # draw_tree, tree_outline
        test_viz_steps.test_every_iteration_record_obeys_the_four_phases,
        test_playouts.test_uct_with_each_playout_plays_every_game,
        test_uct_extension.test_a_variant_is_drawn_in_every_phase_and_as_a_tree,
        test_every_registered_agent_plays_every_registered_game_or_refuses_in_one_line,
        test_every_registered_game_plays_a_tournament,
    ):
        assert race in _parametrized_specs(test), test.__name__


def test_the_decorator_and_the_function_register_a_game_and_the_name_is_checked():
    try:
        assert register_game("race2", params={"goal": int}, test_spec="race2:goal=4")(Race) is Race
        assert make_game("race2:goal=5") == Race(goal=5)
        register_game("race3", lambda goal=3: Race(goal), {"goal": int}, "a function as the factory")
        assert make_game("race3").spec == "race:goal=3"
        assert GAMES["race3"].summary == "a function as the factory" and GAMES["race3"].test_spec is None
    finally:
        GAMES.pop("race2", None)
        GAMES.pop("race3", None)
    for bad in ("", "a:b", "two words"):
        with pytest.raises(ValueError, match="a game's name must be a word"):
            register_game(bad, Race)
    # every registered game, sorted, whatever games the folder holds (a list written here turned red
    # for any new game named before the last one shown)
    assert names_registered_by_the_folder() <= set(GAMES)
    with pytest.raises(SpecError) as err:
        make_game("nothere")
    assert str(err.value).startswith(f"unknown game 'nothere'; known games: {', '.join(sorted(GAMES))}")


def names_registered_by(path: pathlib.Path) -> list[str]:
    """The game names a file registers (``register_game("name", ...)`` calls and decorators), in file order."""
    calls = [
        node
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register_game" and node.args
    ]
    return [c.args[0].value for c in sorted(calls, key=lambda c: c.lineno) if isinstance(c.args[0], ast.Constant)]


def names_registered_by_the_folder() -> set[str]:
    """Every game name a file of ``mctslab/games/`` registers."""
    games = pathlib.Path(mctslab.__file__).parent / "games"
    return {name for path in games.glob("*.py") for name in names_registered_by(path)}


def test_the_built_in_games_register_themselves_in_order_and_the_package_only_imports_them():
    # the order is the package's import lines' (games/__init__.py), each module's games in file order
    games = pathlib.Path(mctslab.__file__).parent / "games"
    init = games / "__init__.py"
    first = [
        name
        for node in ast.parse(init.read_text()).body
        if isinstance(node, ast.ImportFrom) and node.level == 1 and (games / f"{node.module}.py").exists()
        for name in names_registered_by(games / f"{node.module}.py")
    ]
    assert first and list(GAMES)[: len(first)] == first
    for name in first:
        assert where_registered(name).startswith("mctslab/games/"), name
    for node in ast.parse(init.read_text()).body:
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        exports = isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]  # type: ignore[attr-defined]
        assert docstring or exports or isinstance(node, (ast.Import, ast.ImportFrom)), ast.dump(node)[:80]


def test_every_game_module_is_imported_by_the_package():
    missing = unimported_modules("games", discovery.game_modules())
    assert not missing, f"mctslab.games.discovery did not import {missing}"


def test_a_new_game_is_one_file_in_the_folder_and_nothing_else(tmp_path):
    """A game file dropped into mctslab/games/ is registered by a fresh interpreter, with no other edit."""
    text = (
        "from .nim import Nim\n"
        "from .registry import register_game\n\n\n"
        "@register_game({name!r}, summary='Nim with one heap of 5', test_spec={name!r})\n"
        "class OneHeap(Nim):\n"
        "    def __init__(self):\n"
        "        super().__init__(heaps=(5,))\n"
    )
    code = (
        "from mctslab import GAMES, check_game, make_game\n"
        "game = make_game({name!r})\n"
        "check_game(game)\n"
        "print(sorted(GAMES).count({name!r}), len(game.legal_moves(game.initial_state())))\n"
    )
    printed = run_with_file("games", text, code, tmp_path)
    assert printed.strip() == "1 5"  # registered once; take 1 to 5 from the heap of 5


def test_the_readme_game_is_one_file_that_check_game_accepts(monkeypatch):
    readme = (pathlib.Path(mctslab.__file__).parents[1] / "README.md").read_text()
    section = readme[readme.index("### Add a game") :]
    code = section[section.index("```py\n") + 6 : section.index("```", section.index("```py\n") + 6)]
    rest = section[section.index("```", section.index("```py\n") + 6) + 3 :]
    drawn = rest[rest.index("```py\n") + 6 : rest.index("```", rest.index("```py\n") + 6)]  # its drawing adapter
    path = pathlib.Path(mctslab.__file__).parent / "games" / "subtraction.py"
    spec = importlib.util.spec_from_loader("mctslab.games.subtraction", loader=None, origin=str(path))
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    try:
        exec(compile(code + drawn, str(path), "exec"), module.__dict__)  # as if the file were in mctslab/games/
        game = make_game(GAMES["subtraction"].test_spec)
        check_game(game)
        assert game.spec == "subtraction:n=7" and "self.spec" not in code  # generated from its Param, never written
        assert drawing(game).move_text(2) == "take 2" and drawing(game).mark(0) == "P0"  # the adapter, the default
        assert make_agent("uct:iterations=200", seed=0).select_move(game, game.state_from_moves([1])) == 2  # leave 4
    finally:
        GAMES.pop("subtraction", None)


class DiceRaceState(NamedTuple):
    """``at``: each player's square; ``player``: who moves (or whose dice are rolled); ``dice``: 0 at a
    decision, else the number of dice being rolled (a chance node)."""

    at: tuple[int, int]
    player: int
    dice: int


class DiceRace(Game):
    """A two-player dice race written for this test alone: a correct chance game nobody here wrote before.

    The player to move rolls one or two three-sided dice (move 1 or 2), then moves on by
    their sum (a chance move: the sum, 1 to 6); whoever reaches ``goal`` first wins. No
    decision wins at once (dice decide), so a test assuming a win in one exists must skip.
    """

    has_chance = True

    def __init__(self, goal: int = 8) -> None:
        if isinstance(goal, bool) or not isinstance(goal, int) or not 1 <= goal <= 30:
            raise ValueError(f"goal must be an int from 1 to 30, got {goal!r}")
        self.goal = goal
        self.spec = f"dicerace:goal={goal}"

    def initial_state(self) -> DiceRaceState:
        return DiceRaceState((0, 0), 0, 0)

    def to_move(self, state: DiceRaceState) -> int:
        return CHANCE if state.dice else state.player

    def chance_outcomes(self, state: DiceRaceState) -> tuple[tuple[int, Fraction], ...]:
        if not state.dice:
            raise ValueError(f"{self.spec}: chance_outcomes() needs a chance node")
        ways = {1: (0, 1, 1, 1), 2: (0, 0, 1, 2, 3, 2, 1)}[state.dice]  # ways to throw each sum
        total = 3**state.dice
        return tuple((s, Fraction(w, total)) for s, w in enumerate(ways) if w)

    def legal_moves(self, state: DiceRaceState) -> tuple[int, ...]:
        if self.is_terminal(state):
            return ()
        return tuple(m for m, _ in self.chance_outcomes(state)) if state.dice else (1, 2)

    def apply(self, state: DiceRaceState, move: int) -> DiceRaceState:
        if not state.dice:
            return DiceRaceState(state.at, state.player, move)
        at = list(state.at)
        at[state.player] = min(self.goal, at[state.player] + move)
        return DiceRaceState(tuple(at), 1 - state.player, 0)

    def is_terminal(self, state: DiceRaceState) -> bool:
        return self.goal in state.at

    def winner(self, state: DiceRaceState) -> int | None:
        return state.at.index(self.goal) if self.is_terminal(state) else None

    def check_state(self, state: object) -> None:
        super().check_state(state)
        if not isinstance(state, DiceRaceState) or not all(0 <= a <= self.goal for a in state.at):
            self.refuse_state(state, f"its squares are 0 to {self.goal}")
        if state.player not in (0, 1) or state.dice not in (0, 1, 2) or state.at.count(self.goal) > 1:
            self.refuse_state(state, "its player is 0 or 1, its dice 0 to 2, and one player at most has won")

    def render(self, state: DiceRaceState) -> str:
        return f"squares {state.at[0]} and {state.at[1]} of {self.goal}, player {state.player}, dice {state.dice}"


@pytest.fixture
def dice_race():
    """The dice race registered for one test (and taken out again): its test spec."""
    register_game("dicerace", DiceRace, {"goal": int}, "a dice race written in a test", test_spec="dicerace:goal=5")
    try:
        yield GAMES["dicerace"].test_spec
    finally:
        GAMES.pop("dicerace", None)


def generic_checks(spec: str, name: str) -> list:
    """Every test that iterates the registry, as ``(test, arguments)`` for one game (and agent)."""
    checks = [
        (test_every_registered_game_declares_a_small_test_spec_that_builds_it, (name,)),
        (test_contract.test_every_game_keeps_the_contract, (spec,)),
        (test_contract.test_random_agents_finish_every_game, (spec,)),
        (test_viz_tree.test_drawing_shows_moves_and_wins_over_visits_on_every_game, (spec,)),
        (test_viz_steps.test_every_iteration_record_obeys_the_four_phases, (spec,)),
        (test_playouts.test_decisive_playouts_never_miss_a_win_in_one, (spec,)),
        (test_playouts.test_uct_with_each_playout_plays_every_game, (spec,)),
        (test_uct_extension.test_a_variant_is_drawn_in_every_phase_and_as_a_tree, (spec,)),
        (test_game_hooks.test_rollout_moves_plays_the_draws_of_rollout, (spec,)),
        (test_every_registered_game_plays_a_tournament, (spec,)),
        (test_the_decorator_and_the_function_register_a_game_and_the_name_is_checked, ()),
        (test_the_built_in_games_register_themselves_in_order_and_the_package_only_imports_them, ()),
    ]
    return checks + [
        (test_every_registered_agent_plays_every_registered_game_or_refuses_in_one_line, (spec, agent))
        for agent in sorted(AGENTS)
    ]


def test_a_new_chance_game_nobody_wrote_passes_every_generic_test_or_is_skipped_with_a_reason(dice_race):
    # before: this correct game failed test_playouts with a bare `assert 0 > 0` (no win in one exists in a
    # dice race) and, named before "race", the hard-coded list of known games
    game = make_game(dice_race)
    check_game(game)
    skipped = {}
    for test, args in generic_checks(dice_race, "dicerace"):
        try:
            test(*args)
        except pytest.skip.Exception as why:
            skipped[test.__name__] = str(why)
    assert list(skipped) == ["test_decisive_playouts_never_miss_a_win_in_one"], skipped
    assert "dicerace:goal=5: no position" in skipped["test_decisive_playouts_never_miss_a_win_in_one"]
