"""The checks of ``check_chance_uct``, on positions with known answers; their margins derived.

The positions are of :class:`~.chance_game.LoadedDice` (dice whose faces have unequal
probabilities, so that a uniform draw is told from a weighted one) and of Pig to 10 (valued
by :func:`mctslab.exact.pig.solve`). A correct agent is random; each statistical check
accepts what a correct agent produces with a stated probability:

* ``draws``: after 300 iterations from a position whose only move rolls the die
  :data:`~.chance_game.LOADED` (faces 0, 1, 2 with probabilities 6/10, 3/10, 1/10), the
  outcome children's visits are a multinomial sample of the draws; each face's count must
  lie in its exact binomial acceptance region at level :data:`ALPHA` (both tails, computed
  from the binomial distribution, not a normal approximation). Six counts (two positions,
  three faces), Bonferroni: a correct agent fails with probability at most 6e-6. A uniform
  draw gives face 0 about 1/3 of the draws, where the region is about [0.46, 0.74]: it fails
  with probability below 1e-9.
* ``playouts``: :data:`PLAYOUT_SEARCHES` searches of one iteration each from a position
  where player 0 leads by 1 and each player tosses the bent coin :data:`~.chance_game.COIN`
  once (0 with probability 9/10, 2 with 1/10): player 0 loses exactly when the coins come 0
  then 2, probability 9/100, so the losses are Binomial(400, 9/100) for a correct agent
  (acceptance region at :data:`ALPHA`: false alarm at most 1e-6). Uniform playouts make the
  loss probability 1/4 (or 0.45 when the tree draws the first coin): about 100 losses
  expected where at most 64 are accepted, a pass with probability below 1e-4.
* ``strength``: the exact best move at five positions (:data:`STRENGTH_POSITIONS`, margins
  0.25 to 0.71 in winning probability), three seeds each at 300 iterations, at most two
  misses. A correct student's agent (the solution of notebook 12, seeds 10,000-10,999 the
  check does not use) missed 0 of 1,000 searches at each position: a miss probability of
  at most p0 = 3e-3 per search (95% upper bound, 3 / 1,000), so a correct agent fails
  with probability at most C(15, 3) p0^3 = 1.2e-5. An agent that errs at one position
  every time misses three searches and fails.

With ``playout_policy`` (:mod:`.chance_depth`, at most 5e-7), a correct agent fails one of the
statistical checks with probability below 2e-5 (6e-6 + 1e-6 + 1.2e-5 + 5e-7 = 1.95e-5).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from fractions import Fraction
from math import comb
from typing import Any

from ...games import make_game
from ...games.base import Game, State
from ...games.kinds import CHANCE
from ...games.pig import PigState
from .chance_game import COIN, LOADED, STEADY, WILD, DiceState, LoadedDice, exact_value
from .provenance import is_package_agent, watching
from .student import _as_int, _Skip, _theirs
from .watches import active

Outcome = tuple  # (passed, detail) or (passed, detail, part to blame)

CHECKS: dict[str, tuple[str, tuple[str, ...] | str, str]] = {
    "factory": ("make_agent(seed) makes an agent of your own", (), "make_agent"),
    "budget": ("the root counts every iteration", ("factory",), "search"),
    "outcomes": ("a chance node's children are exactly its outcomes", ("budget",), "expand_chance"),
    "draws": ("outcomes are drawn in proportion to their probabilities", ("outcomes",), "draw_outcome"),
    "statistics": ("the visits add up through the chance node", ("outcomes",), "backpropagate"),
    "growth": ("each iteration adds one node, below the outcomes too", ("statistics",), "expand_chance"),
    "point_of_view": ("an outcome counts the results of the player who rolled", ("statistics",), "expand_chance"),
    "players": ("every node counts its mover's results, at every depth", ("growth", "point_of_view"), "expand"),
    "playouts": ("playouts draw outcomes by their probabilities too", ("draws", "point_of_view"), "simulate_chance"),
    "playout_policy": ("playouts choose moves uniformly at random", ("playouts",), "simulate_chance"),
    "determinism": ("same seed, same search", ("budget",), "search"),
    "strength": ("the exact best move where it is clear (loaded dice, Pig)", "all", "search"),
}
"""The checks of :func:`check_chance_uct`, in order: name -> (title, the checks it needs passed, the part it blames)."""

WEIGHTS: dict[str, float] = {
    "factory": 1,  # a prerequisite: the agent is the student's own
    "budget": 3,  # the root does not count every iteration
    "outcomes": 3,  # wrong outcome children
    "draws": 3,  # outcomes drawn with wrong probabilities
    "statistics": 3,  # visits that do not add up
    "growth": 3,  # no tree below the outcomes
    "point_of_view": 3,  # outcomes credited to the wrong player
    "players": 3,  # wrong players below
    "playouts": 3,  # playouts with wrong chance
    "playout_policy": 2,  # playouts not uniform over moves
    "determinism": 1,  # reproducibility
    "strength": 3,  # misses the exact best move
}
"""Each check's weight in the partial credit (:attr:`~.report.Check.weight`): 3 a wrong result, 2 a result off
in degree, 1 a prerequisite or secondary check."""

ALPHA = 1e-6
"""Two-sided level of each exact binomial acceptance region (the false-alarm probability of one count)."""
ITERATIONS = 300
"""Iterations of the searches the checks read (the per-call limit is 3 s at this budget)."""
PLAYOUT_SEARCHES = 400
DETERMINISM_ITERATIONS = 200
"""Iterations of each of the determinism check's searches (two per game, Pig and loaded dice)."""
STRENGTH_SEEDS = 3
STRENGTH_MISSES = 2
_DICE = LoadedDice((STEADY, WILD), turns=4)
STRENGTH_POSITIONS: tuple[tuple[str, State, int], ...] = (
    ("loaded dice, roll 3 of 4, 0-0", DiceState(2, (0, 0), -1), 0),
    ("loaded dice, last roll, 1-0 (player 1 to roll)", DiceState(3, (1, 0), -1), 0),
    ("loaded dice, last roll, 3-0 (player 1 to roll)", DiceState(3, (3, 0), -1), 1),
    ("Pig to 10, 0-0 with 3 in the turn", PigState((0, 0), 3, 0, False), 0),
    ("Pig to 10, 8-9 with 0 in the turn", PigState((8, 9), 0, 0, False), 0),
)
"""(what, position, the exact best move): Pig's from :func:`mctslab.exact.pig.solve` (tested), the dice's
from :func:`~.chance_game.exact_value`."""


class _Failed(Exception):
    """A failure found while reading what the agent returned; ``part`` is the function to blame (None: the check's)."""

    def __init__(self, message: str, part: str | None = None) -> None:
        super().__init__(message)
        self.part = part


def acceptance(n: int, p: Fraction | float, alpha: float = ALPHA) -> tuple[int, int]:
    """The smallest ``lo`` and largest ``hi`` with P(X < lo) <= alpha/2 and P(X > hi) <= alpha/2, X ~ Binomial(n, p)."""
    p = float(p)
    return region([comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)], alpha)


def region(pmf: list[float], alpha: float = ALPHA) -> tuple[int, int]:
    """The acceptance region ``(lo, hi)`` of a count whose distribution is ``pmf``: each tail at most ``alpha / 2``."""
    n = len(pmf) - 1
    lo, tail = 0, 0.0
    while lo < n and tail + pmf[lo] <= alpha / 2:
        tail += pmf[lo]
        lo += 1
    hi, tail = n, 0.0
    while hi > 0 and tail + pmf[hi] <= alpha / 2:
        tail += pmf[hi]
        hi -= 1
    return lo, hi


def _roll_position(roller: int) -> tuple[LoadedDice, DiceState]:
    """The last roll of a game of the loaded die, ``roller`` to roll, one point behind: 0 loses, 1 draws, 2 wins."""
    if roller == 1:
        return LoadedDice((LOADED,), turns=2), DiceState(1, (1, 0), -1)
    return LoadedDice((LOADED,), turns=3), DiceState(2, (0, 1), -1)


PIG_ENDGAME = PigState((8, 9), 0, 0, False)
"""Pig to 10, 8-9, player 0 to move with nothing in the turn: after a roll of 2 to 6 player 0 moves again (a
forced hold that wins, at depth 3), after a 1 player 1 does (and holds to win at depth 6 after a roll of 2 to 6)."""

_NAMES = {
    "roll0": "loaded dice, player 0 rolls",
    "roll1": "loaded dice, player 1 rolls",
    "pig": "Pig to 10",
    "pig_end": "Pig to 10, 8-9",
}


def _nodes(root: Any) -> Iterator[Any]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def _chance_nodes(game: Game, root: Any) -> Iterator[Any]:
    return (node for node in _nodes(root) if game.to_move(node.state) == CHANCE)


def _shape(node: Any) -> tuple:
    """The tree below ``node`` as plain data, children in a canonical order (to compare two searches)."""
    children = sorted((_shape(ch) for ch in node.children), key=repr)
    return (getattr(node, "move", None), node.visits, round(float(node.wins), 9), tuple(children))


class _GlobalRandom:
    """Names the student's functions that draw from the ``random`` module's own generator (``random.choices``...)."""

    def __enter__(self) -> _GlobalRandom:
        self.names: list[str] = []
        self.shared = getattr(random, "_inst", None)
        self.previous = sys.getprofile()
        self.listed = active("global_random", self._served)
        self.listed.__enter__()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self.previous)
        self.listed.__exit__(None, None, None)

    def _served(self, names: Any) -> None:
        """The functions a call served from the kernel saw draw from ``random`` (:mod:`.watches`)."""
        for name in list(names)[:100]:
            if str(name) not in self.names:
                self.names.append(str(name)[:200])

    def _hook(self, frame: Any, event: str, arg: Any) -> None:
        caller = None
        if event == "c_call" and getattr(arg, "__self__", None) is self.shared:
            caller = frame
        elif event == "call" and frame.f_locals.get("self") is self.shared and frame.f_back is not None:
            caller = frame.f_back
        if caller is not None and _theirs(caller.f_code.co_filename) and caller.f_code.co_name not in self.names:
            self.names.append(caller.f_code.co_name)


class _Probes:
    """The checks; the runner (:class:`~.chance._Runner`) provides ``agent`` and ``call``."""

    def __init__(self) -> None:
        self.trees: dict[str, tuple[Game, Any]] = {}

    def agent(self, seed: int, iterations: int | None = None) -> Any:  # the runner's
        raise NotImplementedError

    def call(self, part: str, function: Any, *args: Any, iterations: int | None = None) -> Any:  # the runner's
        raise NotImplementedError

    def search(self, agent: Any, game: Game, state: State) -> Any:
        if not callable(getattr(agent, "search", None)):
            raise _Skip("needs a `search(game, state)` method that returns the root of the tree")
        root = self.call("search", agent.search, game, state, iterations=agent.iterations)
        for attribute in ("children", "visits", "wins", "state"):
            if not hasattr(root, attribute):
                raise _Failed(f"the root returned by search() is {type(root).__name__!r}, without `{attribute}`")
        seen, stack = {id(root)}, list(root.children)
        while stack:
            node = stack.pop()
            if id(node) in seen:
                raise _Failed("the tree returned by search() reaches a node twice: each node has one parent")
            seen.add(id(node))
            stack.extend(node.children)
        return root

    def tree(self, name: str) -> tuple[Game, Any]:
        """The searches several checks read, made once: the loaded die rolled by player 0 or 1, and Pig to 10."""
        if name not in self.trees:
            if name == "pig":
                game, state, seed = make_game("pig:target=10"), make_game("pig:target=10").initial_state(), 13
            elif name == "pig_end":
                game, state, seed = make_game("pig:target=10"), PIG_ENDGAME, 14
            else:
                roller = int(name[-1])
                (game, state), seed = _roll_position(roller), 11 + roller
            self.trees[name] = (game, self.search(self.agent(seed, ITERATIONS), game, state))
        return self.trees[name]

    # -- the checks ------------------------------------------------------------------------
    def factory(self) -> Outcome:
        agent = self.agent(0)
        if not callable(getattr(agent, "select_move", None)) or not hasattr(agent, "iterations"):
            return False, f"make_agent(seed) returned {type(agent).__name__!r}: it needs `iterations` and `select_move`"
        if is_package_agent(agent):
            return False, (
                f"your agent is the package's {type(agent).__name__} (or a subclass of it), not yours: write your "
                "own class, with `search` and `select_move` built from your own functions"
            )
        with watching() as seen:
            self.tree("pig")
        if seen:
            parts = ", ".join(f"`{p}`" for p in sorted(seen))
            return False, f"your agent runs the package's own {parts} (from mctslab), not yours: write them yourself"
        return True, "make_agent(seed) makes a fresh agent, with its own code (not the package's)"

    def budget(self) -> Outcome:
        for name in ("roll0", "roll1", "pig"):
            game, root = self.tree(name)
            if root.visits != ITERATIONS:
                return False, (
                    f"after a search of {ITERATIONS} iterations ({_NAMES[name]}) the root has {root.visits} visits: "
                    "every iteration adds one visit to each node on its path, the root too"
                )
        return True, f"three searches of {ITERATIONS} iterations (Pig, loaded dice): the root has {ITERATIONS} visits"

    def outcomes(self) -> Outcome:
        checked = 0
        for name in ("roll0", "roll1", "pig"):
            game, root = self.tree(name)
            for node in _chance_nodes(game, root):
                checked += 1
                faces = [face for face, _ in game.chance_outcomes(node.state)]
                moves = [getattr(ch, "move", None) for ch in node.children]
                if len(node.children) == 1 and len(faces) > 1 and node.visits >= 50:
                    return (
                        False,
                        (
                            f"a chance node with {node.visits} visits has one child for its {len(faces)} outcomes: "
                            "each outcome needs its own child. At a chance node, follow the child of the outcome just "
                            "drawn, and stop to add it when it has none"
                        ),
                        "select_chance",
                    )
                strays = [m for m in moves if m not in faces]
                if strays or len(set(moves)) != len(moves):
                    what = f"moves {strays}, which are not outcomes" if strays else "two children for one outcome"
                    return (
                        False,
                        f"a chance node (outcomes {faces}) has {what}: its children are its outcomes",
                        "expand_chance",
                    )
                for child in node.children:
                    if child.state != game.apply(node.state, child.move):
                        return (
                            False,
                            (
                                f"the child of outcome {child.move} holds the position after another outcome: an "
                                "outcome's child holds game.apply(chance position, outcome)"
                            ),
                            "expand_chance",
                        )
                if name != "pig" and node.visits >= 200 and set(moves) != set(faces):
                    return self._missing_outcomes(game, node, sorted(moves), faces)
        if not checked:
            return False, "no chance node in three trees of games with dice: after a roll, add a node for it", None
        return True, f"{checked} chance nodes in three trees: one child per outcome drawn, each with its position"

    def _missing_outcomes(self, game: Game, node: Any, moves: list, faces: list) -> Outcome:
        """A chance node without a child for some outcome: never drawn (``draw_outcome``), or drawn and not added.

        When the outcomes' children hold all the chance node's visits (but its own first
        playout), every iteration through it went on into a child: the missing outcome was
        never drawn. An outcome of probability 1/10 or more is drawn in 200 draws but with
        probability below 1e-9.
        """
        drawn = sum(ch.visits for ch in node.children)
        never = [face for face in faces if face not in moves]
        if drawn >= node.visits - 1:
            probability = dict(game.chance_outcomes(node.state))
            shown = ", ".join(f"face {f} (probability {probability[f]})" for f in never)
            return (
                False,
                (
                    f"in {drawn} draws at a chance node, each followed into its outcome's child, {shown} never came: "
                    "`draw_outcome` must draw every outcome of game.chance_outcomes with its probability"
                ),
                "draw_outcome",
            )
        return (
            False,
            (
                f"after {node.visits} visits a chance node has children for {moves} of its outcomes {faces}: every "
                "outcome drawn gets its child"
            ),
            "expand_chance",
        )

    def draws(self) -> Outcome:
        seen = []
        for name in ("roll0", "roll1"):
            game, root = self.tree(name)
            node = next(_chance_nodes(game, root))
            counts = {ch.move: ch.visits for ch in node.children}
            n = sum(counts.values())
            for face, p in LOADED:
                lo, hi = acceptance(n, p)
                if not lo <= counts.get(face, 0) <= hi:
                    uniform = all(abs(counts.get(f, 0) - n / 3) <= 4 * (n * 2 / 9) ** 0.5 for f, _ in LOADED)
                    why = (
                        "about equally often: draw each outcome with its probability (the second item of each "
                        "pair in game.chance_outcomes), not uniformly"
                        if uniform
                        else "in other proportions: draw each outcome with its probability, at every chance node"
                    )
                    shown = ", ".join(str(counts.get(f, 0)) for f, _ in LOADED)
                    return False, (
                        f"a loaded die (faces 0, 1, 2 with probabilities 6/10, 3/10, 1/10) was drawn {n} times: "
                        f"the faces came {shown} times, where face {face} should come {lo} to {hi} times. They "
                        f"came {why}"
                    )
            seen.append(f"{n} draws: " + ", ".join(str(counts.get(f, 0)) for f, _ in LOADED))
        return True, f"faces 0, 1, 2 (probabilities 6/10, 3/10, 1/10): {'; '.join(seen)}, within exact bounds"

    def statistics(self) -> Outcome:
        for name in ("roll0", "roll1", "pig"):
            game, root = self.tree(name)
            for node in _nodes(root):
                below = sum(ch.visits for ch in node.children)
                if node.visits < below:
                    where = "a chance node" if game.to_move(node.state) == CHANCE else "a node"
                    return False, (
                        f"{where} has {node.visits} visits but its children {below}: backpropagate adds a visit "
                        "to every node on the path, the chance nodes too"
                    )
                if game.to_move(node.state) == CHANCE and node.visits > below + 1:
                    return (
                        False,
                        (
                            f"a chance node has {node.visits} visits but its outcomes {below}: every iteration that "
                            "reaches a chance node draws an outcome and goes on to its child (adding it if new)"
                        ),
                        "select_chance",
                    )
        return True, "in three trees every chance node's visits are its outcomes' (plus its own first playout)"

    def point_of_view(self) -> Outcome:
        for roller in (0, 1):
            game, root = self.tree(f"roll{roller}")
            chance = next(_chance_nodes(game, root))
            for child in chance.children:
                credit = game.returns(child.state)[roller]
                if abs(child.wins - credit * child.visits) > 1e-9:
                    part = "expand_chance" if getattr(child, "player", roller) != roller else "backpropagate"
                    return (
                        False,
                        (
                            f"player {roller} rolled face {child.move}, a {('loss', 'draw', 'win')[int(2 * credit)]} "
                            f"for them, and its node has {child.wins:g} wins in {child.visits} visits: an outcome's "
                            f"node counts the results of the player who rolled (its `player` is the chance node's)"
                        ),
                        part,
                    )
            extra = chance.wins - sum(ch.wins for ch in chance.children)
            if not -1e-9 <= extra <= chance.visits - sum(ch.visits for ch in chance.children) + 1e-9:
                return False, (
                    f"a chance node has {chance.wins:g} wins but its outcomes {chance.wins - extra:g}: both count "
                    "the results of the player who rolled"
                )
        return True, "outcomes that end the game are credited to the roller, players 0 and 1: win 1, draw 0.5, loss 0"

    def playouts(self) -> Outcome:
        game, state = LoadedDice((COIN,), turns=2), DiceState(0, (1, 0), -1)
        lost = 0
        for seed in range(PLAYOUT_SEARCHES):
            root = self.search(self.agent(1000 + seed, 1), game, state)
            lost += sum(ch.visits - ch.wins for ch in root.children)
        p = 1 - exact_value(game, state, 0)
        lo, hi = acceptance(PLAYOUT_SEARCHES, p)
        told = (
            f"{PLAYOUT_SEARCHES} searches of one iteration from a position where player 0 leads by 1 and each "
            f"player tosses a bent coin (0 with probability 9/10, 2 with 1/10): player 0 lost {lost:g}"
        )
        if not lo <= lost <= hi:
            return False, (
                f"{told}; he loses with probability {p} ({lo} to {hi} losses expected). Does the playout draw "
                "chance outcomes with their probabilities, as selection does?"
            )
        return True, f"{told}, within {lo} to {hi} (probability {p})"

    def determinism(self) -> Outcome:
        for what, game, state, seed in (
            ("Pig to 10 from the start", make_game("pig:target=10"), PigState((0, 0), 0, 0, False), 3),
            ("loaded dice from the start", _DICE, _DICE.initial_state(), 4),
        ):
            runs = [_shape(self.search(self.agent(seed, DETERMINISM_ITERATIONS), game, state)) for _ in range(2)]
            if runs[0] != runs[1]:
                with _GlobalRandom() as shared:
                    self.search(self.agent(seed, DETERMINISM_ITERATIONS), game, state)
                fix = "take every random draw, the chance draws too, from `self.rng`"
                told = f"two agents made with seed {seed} searched {what} differently"
                if shared.names:
                    name = shared.names[0]
                    return (
                        False,
                        (
                            f"{told}: `{name}` draws from the random module's own generator; {fix} (passed to it "
                            "as `rng`)"
                        ),
                        name,
                    )
                return False, f"{told}: {fix} (random.Random(seed))"
        return True, "two agents per seed, Pig and loaded dice: the same trees"

    def strength(self) -> Outcome:
        misses = []
        for what, state, best in STRENGTH_POSITIONS:
            game = _DICE if isinstance(state, DiceState) else make_game("pig:target=10")
            for seed in range(STRENGTH_SEEDS):
                agent = self.agent(100 + seed, ITERATIONS)
                move = _as_int(self.call("select_move", agent.select_move, game, state, iterations=ITERATIONS))
                if move != best:
                    misses.append(f"{what}: played {move!r}, best {best}")
        searches = len(STRENGTH_POSITIONS) * STRENGTH_SEEDS
        if len(misses) > STRENGTH_MISSES:
            return False, (
                f"{len(misses)} of {searches} searches missed the exact best move ({'; '.join(misses[:3])}); a "
                f"correct agent misses more than {STRENGTH_MISSES} with probability below 2e-5"
            )
        return True, f"{searches - len(misses)} of {searches} searches played the exact best move (5 positions)"
