"""Probes of a student's whole UCT agent: its factory, one iteration, the point of view, the move played.

Each probe runs the student's agent on a small, known case and reads its tree, so that a
mistake is named where it is made (``backpropagate`` never counting the root) instead of
where it shows later (a ``math domain error`` in ``ucb1``, log(0) of the root's visits).

They are methods of :class:`_Probes`, a part of ``check_uct``'s checker
(:mod:`mctslab.course.exercises.uct`): ``self.agent(seed, iterations)`` makes an agent,
``self.search(agent, game, state)`` and ``self.move(agent, game, state)`` call it under a
time limit.
"""

from __future__ import annotations

import inspect
from typing import Any

from ...games import make_game
from ...games.base import Game, State
from .causes import Swallowed, swallowed_detail
from .expand_probes import _player_slip
from .limits import TimeLimitExceeded
from .positions import position
from .provenance import is_package_agent, watching

Outcome = tuple[bool, str] | tuple[bool, str, str]
"""Passed, and what was seen; a third item names the part blamed when it is not the check's own."""

FACTORY_SEED = 12345
"""The seed the factory probe passes: an agent whose ``iterations`` comes back as this number was made by a class."""

POINT_OF_VIEW = ("XOOX.....", "XXO.OX...", "XOX....O.", "XO......X", "XOXXO.O..", ".X.X.O.OX", "XOXXOOOX.", "XOXXOO.X.")
"""Positions whose trees reach finished games at depth 1 and 2, won by X, by O and drawn."""

VIEW_ITERATIONS = 200
"""Iterations of each point-of-view search: enough to reach every finished game within two moves."""


FIRST_CELLS = "XO.X.O..."
"""The position of the first search, one iteration."""


def _first_parameter(cls: type) -> str | None:
    try:
        parameters = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return None
    if not parameters or parameters[0].kind not in (parameters[0].POSITIONAL_ONLY, parameters[0].POSITIONAL_OR_KEYWORD):
        return None  # no positional parameter (or *args): the seed goes where the class says
    return parameters[0].name


def _package_class(agent: Any) -> str:
    served = getattr(type(agent), "package_class", None)  # an agent served from a kernel: the class found there
    if isinstance(served, str):
        return served
    mine = [k for k in type(agent).__mro__ if k.__module__.startswith("mctslab.agents")]
    return f"{mine[0].__module__}.{mine[0].__name__}" if mine else "mctslab's agents"


def _replay(game: Game, state: State, root: Any) -> list[tuple[Any, State, int, int]]:
    """Every node below ``root`` as ``(node, its state, the player who moved into it, its depth)``."""
    out, stack = [], [(ch, state, 1) for ch in root.children]
    while stack:
        node, before, depth = stack.pop()
        after = game.apply(before, node.move)
        out.append((node, after, game.to_move(before), depth))
        stack.extend((ch, after, depth + 1) for ch in node.children)
    return out


def _first_expansion(root: Any, below: list[int]) -> str | None:
    """What ``expand`` did wrong in the first iteration, read in the tree of one iteration (None: nothing seen).

    ``below``: the visits of the root's children that have any. Each slip here looks like
    a slip of ``backpropagate`` in the visits alone; the tree tells them apart.
    """
    if root.visits == 1 and not root.children:
        return (
            "after 1 iteration the root has 1 visit but no children: `expand` must append the new node to its "
            "parent's `children` (and return it), so that selection finds it again"
        )
    if root.visits == 1 and root.children and not below:
        return (
            "after 1 iteration the root has 1 visit and its new child 0: the playout and `backpropagate` started "
            "from the root, not from the new child. `expand` must return the new child, not the node it expanded"
        )
    if root.visits == 0 and below == [1]:
        child = next(ch for ch in root.children if ch.visits)
        if hasattr(child, "parent") and child.parent is not root:
            return (
                "after 1 iteration the root has 0 visits and its new child 1, whose `parent` is "
                f"{'None' if child.parent is None else 'not the root'}: `backpropagate` climbs `parent` links, so "
                "it never reached the root. `expand` must give the new child its parent, the node it expands"
            )
    return None


class _Probes:
    """The probes of ``check_uct`` (mixed into its checker)."""

    make_agent: Any
    has_search: bool | None

    def factory(self) -> Outcome:
        maker = self.make_agent
        name = getattr(maker, "__name__", "your class")
        fix = f"Pass a factory: `check_uct(lambda seed: {name}(seed=seed))`"
        if inspect.isclass(maker) and _first_parameter(maker) not in (None, "seed"):
            return False, (
                f"check_uct was given the class `{name}`, whose first argument is "
                f"`{_first_parameter(maker)}`: it calls make_agent(seed), so the seed would become "
                f"`{_first_parameter(maker)}`. {fix}"
            )
        agent = self.call("make_agent", maker, FACTORY_SEED)
        if getattr(agent, "iterations", None) == FACTORY_SEED:
            return False, (
                f"make_agent({FACTORY_SEED}) made an agent with {FACTORY_SEED} iterations: the seed went into "
                f"`iterations` (a class passed where a factory is expected?). {fix}"
            )
        if not callable(getattr(agent, "select_move", None)):
            return False, f"make_agent(seed) returned {type(agent).__name__!r}, which has no `select_move(game, state)`"
        if is_package_agent(agent):
            kind = "is" if type(agent).__module__.startswith("mctslab.") else "subclasses"
            return False, (
                f"your agent {kind} the package's UCT ({_package_class(agent)}), not yours: its search, "
                "selection and backpropagation are the package's. Write your own class, with `search` and "
                "`select_move` built from your own functions"
            )
        with watching() as seen:
            try:
                self._first_search()
            except NotImplementedError:
                raise
            except (Exception, TimeLimitExceeded) as err:  # reported by one_iteration, which needs this search
                if isinstance(err, TimeLimitExceeded) and err.part == "check_uct":
                    raise
        if seen:
            parts = ", ".join(f"`{p}`" for p in sorted(seen))
            return False, (
                f"your agent runs the package's own {parts} (from mctslab), not yours: calling or wrapping the "
                "package's UCT teaches nothing. Write those parts yourself"
            )
        return True, "make_agent(seed) makes a fresh agent, with its own code (not the package's)"

    def _first_search(self) -> Any:
        """The first search of the checks, one iteration (or the move, without ``search``), done once.

        The factory check runs it to see whose code runs; :meth:`one_iteration` reads its
        result, or raises the error it raised (an endless loop costs its time limit once).
        """
        if not hasattr(self, "_first"):
            game = make_game("tictactoe")
            state = position(FIRST_CELLS)
            try:
                agent = self.agent(4, 1)
                if not self.has_search:
                    self._first = ("move", self.move(agent, game, state, 1))
                elif not hasattr(agent, "iterations"):
                    self._first = ("no iterations", None)
                else:
                    self._first = ("root", self.search(agent, game, state, 1))
            except BaseException as err:
                self._first = ("error", (err, self.calling))
                raise
        kind, value = self._first
        if kind == "error":
            err, self.calling = value
            raise err
        return self._first

    def _swallowed(self, game: Game, state: State, iterations: int) -> tuple[str, str] | None:
        """The search again, watched for errors an ``except`` of the student's swallowed: (detail, part) or None."""
        with Swallowed() as seen:
            root = self.search(self.agent(4, iterations), game, state, iterations)
        found = seen.first()
        return None if found is None else (swallowed_detail(found, iterations, root.visits), found[2])

    def one_iteration(self) -> Outcome:
        game = make_game("tictactoe")
        kind, root = self._first_search()
        if kind == "move":
            legal = game.legal_moves(position(FIRST_CELLS))
            return root in legal, f"with 1 iteration select_move returned {root!r} (legal moves {list(legal)})"
        if kind == "no iterations":
            return False, "your agent has no `iterations` attribute: keep the number of iterations per move there"
        below = [ch.visits for ch in root.children if ch.visits]  # children never visited aside
        expand = _first_expansion(root, below)
        if expand is not None:
            return False, expand, "expand"
        if root.visits == 0 and below == [1]:
            return False, (
                "after 1 iteration the root has 0 visits and its one child 1: `backpropagate` stops before the "
                "root. The root's visits are UCB1's N for its children: with N = 0, log(N) fails "
                "(math domain error in ucb1) as soon as the root is fully expanded. Update every node up to "
                "and including the root"
            )
        if root.visits < 1 and (swallowed := self._swallowed(game, position(FIRST_CELLS), 1)) is not None:
            return False, *swallowed
        over = 1 < root.visits == sum(below) == len(below)  # more iterations than 1, each on its own path
        if root.visits != 1 and not over:
            return False, (
                f"with `iterations` = 1 the root has {root.visits} visits (expected 1): the search ignores "
                "`iterations`, or counts a visit more than once; run exactly `self.iterations` iterations"
            )
        if below != [1] and not over:
            return False, (
                f"after 1 iteration the root's children have visits {below} (expected one child with 1 visit): "
                "one iteration expands one child and adds one visit to each node on its path"
            )
        state = position(FIRST_CELLS)
        k = len(game.legal_moves(state)) + 2  # every child of the root, then two choices by UCB1
        root = self.search(self.agent(4, k), game, state, k)
        below = [ch.visits for ch in root.children]
        if root.visits < k and (swallowed := self._swallowed(game, state, k)) is not None:
            return False, *swallowed
        if sum(below) != root.visits or root.visits < k or root.visits > k and not over:
            return False, (
                f"after {k} iterations the root has {root.visits} visits and its children {below} (expected {k} "
                f"in all): each iteration adds one visit to each node on its path, the root included"
            )
        if over:  # each iteration right, only their number is not: the budget check names that, nothing else fails
            return True, (
                f"each iteration visits its path once, the root too (the root's visits are its children's sum: "
                f"{root.visits} after a budget of {k}); how many iterations run is the budget check's"
            )
        return True, (
            f"after 1 iteration: the root and one new child, each with 1 visit; after {k}: the root {k} visits, "
            f"its children {sorted(below, reverse=True)}"
        )

    def point_of_view(self) -> Outcome:
        game = make_game("tictactoe")
        wrong: list[tuple[str, Any, State, int, int, tuple[float, float]]] = []
        terminals = 0
        for seed, cells in enumerate(POINT_OF_VIEW):
            state = position(cells)
            root = self.search(self.agent(10 + seed, VIEW_ITERATIONS), game, state, VIEW_ITERATIONS)
            for node, after, mover, depth in _replay(game, state, root):
                if not game.is_terminal(after) or not node.visits:
                    continue
                terminals += 1
                returns = game.returns(after)
                if abs(node.wins - node.visits * returns[mover]) > 1e-9:
                    wrong.append((cells, node, after, mover, depth, returns))
        if not wrong:
            return True, (
                f"{terminals} finished games in the trees of {len(POINT_OF_VIEW)} positions, at depth 1 and 2: "
                "each credited to the player who moved into it (1 a win, 0.5 a draw)"
            )
        player = _player_slip(wrong)
        if player is not None:
            return False, player, "expand"
        return False, _view_diagnosis(game, wrong)


def _view_diagnosis(game: Game, wrong: list) -> str:
    def credited(k: int) -> bool:
        return all(abs(n.wins - n.visits * r[k(mover)]) < 1e-9 for _, n, _, mover, _, r in wrong)

    cells, node, after, mover, depth, returns = min(wrong, key=lambda w: w[4])
    result = "a draw" if returns == (0.5, 0.5) else f"won by {'XO'[returns.index(1.0)]}"
    seen = (
        f"from {cells} the node for move {node.move} at depth {depth} ends the game, {result}; {'XO'[mover]} made "
        f"that move, so its `wins` should be {node.visits * returns[mover]:g} of {node.visits} visits, but it "
        f"has {node.wins:g}."
    )
    if all(r == (0.5, 0.5) and n.wins == 0 for _, n, _, _, _, r in wrong):
        return f"{seen} A draw counts 0 in your `wins`: it is worth half a win, 0.5, to both players"
    for fixed in (0, 1):
        if credited(lambda mover, fixed=fixed: fixed):
            return (
                f"{seen} Every node counts {'XO'[fixed]}'s results: in a two-player game each node counts the "
                "results of the player who made the move into it, which alternates down the tree"
            )
    if credited(lambda mover: 1 - mover):
        return (
            f"{seen} Your `backpropagate` credits each node with the result of the player to move there; each "
            "node counts the results of the player who made the move into it (node.player), so that a parent "
            "choosing among its children maximises its own results"
        )
    return f"{seen} Each node's `wins` adds, per playout, the result (1, 0.5 or 0) of the player who moved into it"
