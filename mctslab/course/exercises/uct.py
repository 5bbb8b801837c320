"""``check_uct``: graded checks of a student's whole UCT agent, with diagnoses in plain words.

The agent is any object with ``select_move(game, state)``; most checks also need
``search(game, state)`` returning the root of its tree (nodes with ``children``,
``visits``, ``wins`` and ``move``, as :class:`~mctslab.course.exercises.TreeNode`), and an
``iterations`` attribute, the budget, which the checks set to keep themselves fast.
Each check says passed, failed (with what is wrong, without giving the code away),
skipped (another check must pass first, so that a report names the cause rather than
its consequences) or not written yet (a stub still raises ``NotImplementedError``).

Every call into the agent (its factory, ``search``, ``select_move``) runs under a time
limit (:func:`call_limit`, and :data:`TOTAL_SECONDS` for the whole of ``check_uct``): an
endless loop or a budget of its own fails the check, naming the function that was
running and the limit. The checks are in :mod:`.agent_probes` (the factory, one
iteration, the point of view), :mod:`.selection_probes` (UCB1 at every depth, the most
visited child), :mod:`.strength` (the statistical checks and their margins) and here.
A slip of ``expand`` shows first in other checks; :mod:`.expand_probes` reads the tree so
that those checks name ``expand`` (the first says what is wrong, those after it that they
fail as its consequence), never ``backpropagate``.

The positions are tic-tac-toe positions with a known answer (:mod:`mctslab.exact`
confirms each one in ``tests/test_exercises_uct.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ...games import GAMES, make_game
from ...games.base import Game, State
from ...games.kinds import CLASSIC
from .agent_probes import _Probes
from .expand_probes import _ExpandProbes
from .growth import growth_slip, read_growth
from .isolation import unchanged_globals
from .limits import PROGRESS_AFTER, TimeLimitExceeded, cpu_seconds, progress, time_limit
from .playout_probes import _PlayoutProbes
from .positions import DRAW_ESCAPES, ONE_MOVE, _cells, _sample_positions, position
from .report import FAILED, NOT_WRITTEN, PASSED, SKIPPED, Check, Report, fail_the_next_check, weighed
from .selection_probes import _SelectionProbes
from .strength import _Strength
from .student import (
    _as_int,
    _budget,
    _depth,
    _function,
    _hang_hint,
    _nodes,
    _NoneReturns,
    _Playouts,
    _recursion,
    _Skip,
    _where,
)

__all__ = ["CHECKS", "DRAW_ESCAPES", "ONE_MOVE", "TOTAL_SECONDS", "WEIGHTS", "call_limit", "check_uct", "position"]

TOTAL_SECONDS = 120.0
"""The limit of a whole ``check_uct``, in CPU seconds (:mod:`.limits`; a correct student's agent takes 1-3 s)."""

_ALL_BUT_BUDGET = ("factory", "one_iteration", "legal", "tree", "statistics", "determinism", "point_of_view",
                   "playouts", "most_visited", "selection", "one_move", "draws")  # fmt: skip
"""What the games against perfect play wait for: every other check but the budget's (a budget off by one
still plays, and its cost is the budget check's)."""

CHECKS: dict[str, tuple[str, tuple[str, ...] | str, str]] = {
    "factory": ("make_agent(seed) makes an agent of your own", (), "make_agent"),
    "one_iteration": ("the first iterations visit their path once, the root too", ("factory",), "backpropagate"),
    "legal": ("legal moves only, in every game", ("one_iteration",), "select_move"),
    "tree": ("the tree grows below the root", ("one_iteration",), "expand"),
    "statistics": ("the statistics add up", ("one_iteration",), "backpropagate"),
    "budget": ("the budget is respected", ("one_iteration",), "search"),
    "determinism": ("same seed, same search", ("one_iteration",), "search"),
    "point_of_view": ("each node counts its mover's results", ("statistics",), "backpropagate"),
    "playouts": ("the playouts are random", ("statistics",), "simulate"),
    "most_visited": ("the most visited child is played", ("legal", "determinism"), "select_move"),
    "selection": ("selection follows UCB1 at every depth", ("determinism", "statistics", "tree"), "select"),
    "one_move": ("wins and blocks in one, as X and as O", ("legal", "tree", "selection", "point_of_view"), "search"),
    "draws": ("a draw is worth half a win", ("one_move",), "backpropagate"),
    "perfect": ("at most one loss in four games against perfect play", _ALL_BUT_BUDGET, "search"),
}
"""The checks of :func:`check_uct`, in order: name -> (title, the checks it needs passed, the part it is about)."""

WEIGHTS: dict[str, float] = {
    "factory": 1,  # a prerequisite: the agent is the student's own
    "one_iteration": 3,  # wrong counts on the path (the root never counted...)
    "legal": 3,  # an illegal move
    "tree": 3,  # no tree, or a descent that stops early (a shallow search)
    "statistics": 3,  # visits and wins that do not add up
    "budget": 1,  # a budget off (one extra iteration): results right, the cost wrong
    "determinism": 1,  # reproducibility
    "point_of_view": 3,  # wins for the wrong player: the search plays for the opponent
    "playouts": 3,  # playouts that always play the same moves: every estimate is wrong
    "most_visited": 2,  # the final choice by another rule
    "selection": 3,  # not UCB1
    "one_move": 3,  # misses a win or a block in one
    "draws": 2,  # a draw's worth
    "perfect": 3,  # loses to perfect play
}
"""Each check's weight in the part's partial credit (:attr:`~.report.Check.weight`): 3 a wrong result, 2 a
result off in degree, 1 a prerequisite or secondary check."""


def call_limit(iterations: int | None) -> float:
    """CPU seconds one call into the agent may take at ``iterations`` iterations (None: a call that does not search).

    A student's tic-tac-toe iteration takes about 10 microseconds on a laptop; the limit
    allows 3 ms per iteration on top of 3 s (whole seconds: 3 s up to 333 iterations, 9 s at
    2,000), a margin of a hundred times and more for a slow machine or slow code.
    """
    return float(3 + 3 * (iterations or 0) // 1000)


class _Failed(Exception):
    """A check's failure found while calling the student's code (a root without `children`...)."""


class _Checker(_Probes, _SelectionProbes, _Strength, _ExpandProbes, _PlayoutProbes):
    """Runs the checks of one agent factory and collects a :class:`Report`."""

    def __init__(self, make_agent: Callable[[int], Any]) -> None:
        self.make_agent = make_agent
        self.report = Report("check_uct: your UCT agent")
        self.stub: str | None = None
        self.has_search: bool | None = None
        self.out_of_time = False
        self.calling: tuple[str, int | None] = ("make_agent", None)
        self.began, self.began_cpu = time.perf_counter(), cpu_seconds()
        self.progress = True
        self.bar: Any = None
        self.overran = False
        self.expand_named: str | None = None  # the title of the check that named a slip of `expand`

    # -- calling the student's code, each call under its limit --------------------------
    def call(self, part: str, function: Callable[..., Any], *args: Any, iterations: int | None = None) -> Any:
        self.calling = (part, iterations)
        self.show_progress()
        served = getattr(function, "served_call", None)
        if served is not None:  # the agent lives in a submission's kernel (the grader's judge): limits, count there
            return served(part, call_limit(iterations), *args)
        game = args[0] if args and isinstance(args[0], Game) else None
        if game is None:
            with time_limit(call_limit(iterations), part):
                return function(*args)
        with _Playouts(game) as counted:
            try:
                with time_limit(call_limit(iterations), part):
                    return function(*args)
            except TimeLimitExceeded as err:
                err.playouts = counted.n  # what the agent did, for the diagnosis (not how far it got in N s)
                err.stalled = cpu_seconds() - counted.last if counted.n else None  # still going, or stuck?
                raise

    def show_progress(self) -> None:
        """Start the progress bar once the checks have run :data:`PROGRESS_AFTER` seconds (a quick run shows none).

        Made late rather than with tqdm's ``delay``, which a notebook's widget bar does not
        honour (it would appear, and be stored, in every notebook that runs the checks).
        """
        if self.bar is None and self.progress and time.perf_counter() - self.began > PROGRESS_AFTER:
            self.bar = progress(len(CHECKS), "check_uct")
            self.bar.update(len(self.report.checks))
        if self.bar is not None and self.report.checks:
            self.bar.set_postfix_str(self.report.checks[-1].name, refresh=False)

    def agent(self, seed: int, iterations: int | None = None) -> Any:
        agent = self.call("make_agent", self.make_agent, seed)
        if self.has_search is None:
            self.has_search = callable(getattr(agent, "search", None))
        if iterations is not None and hasattr(agent, "iterations"):
            agent.iterations = iterations
        return agent

    def search(self, agent: Any, game: Game, state: State, iterations: int | None = None) -> Any:
        if not self.has_search:
            raise _Skip("needs a `search(game, state)` method that returns the root of the tree")
        root = self.call("search", agent.search, game, state, iterations=iterations)
        for attribute in ("children", "visits", "wins"):
            if not hasattr(root, attribute):
                raise _Failed(f"the root returned by search() is {type(root).__name__!r}, without `{attribute}`")
        seen, stack = {id(root)}, list(root.children)
        while stack:  # a tree: no node reached twice (else the checks that walk it would never end)
            node = stack.pop()
            if id(node) in seen:
                raise _Failed(
                    f"the tree returned by search() reaches a node twice (move {getattr(node, 'move', '?')!r}): "
                    "a node is in two `children` lists, or is its own descendant; each new node is appended "
                    "once, to its parent's `children`"
                )
            seen.add(id(node))
            stack.extend(node.children)
        return root

    def move(self, agent: Any, game: Game, state: State, iterations: int | None = None) -> Any:
        return _as_int(self.call("select_move", agent.select_move, game, state, iterations=iterations))

    # -- running the checks ------------------------------------------------------------
    def run(self, name: str) -> None:
        title, needs, part = CHECKS[name]
        if needs == "all":
            needs = tuple(other for other in CHECKS if other != name)
        began = time.perf_counter()
        self.overran = False
        status, detail, part = self._outcome(name, needs, part)
        if status == FAILED and name != "factory":
            detail, part = self._blame_expand(title, detail, part)
        self.report.checks.append(Check(name, title, status, detail, part, time.perf_counter() - began))
        if self.bar is not None:
            self.bar.update()

    def _outcome(self, name: str, needs: tuple[str, ...], part: str) -> tuple[str, str, str]:
        if self.stub is not None:
            return NOT_WRITTEN, f"waiting for `{self.stub}`", self.stub
        if self.out_of_time:
            return SKIPPED, f"check_uct ran out of its {TOTAL_SECONDS:g} s of CPU time before this check", part
        blocked = [n for n in needs if self.report.status(n) != PASSED]
        if blocked:
            titles = [f"'{self.report[n].title}'" for n in blocked]
            if len(titles) == 1:
                return SKIPPED, f"runs once {titles[0]} passes: fix that first", part
            return SKIPPED, f"runs once {', '.join(titles[:-1])} and {titles[-1]} pass: fix those first", part
        check = getattr(self, name)
        try:
            ok, detail, *blamed = check()  # a check may name another part than its own (`expand`)
        except NotImplementedError as err:
            self.stub = _where(err).strip(" in`") or "your code"
            return NOT_WRITTEN, f"not written yet: fill in `{self.stub}` above, then run this check again", self.stub
        except _Skip as skip:
            return SKIPPED, str(skip), part
        except _Failed as failed:
            return FAILED, str(failed), part
        except TimeLimitExceeded as err:
            return FAILED, *self._overran(err)
        except Exception as err:  # a student's bug: report it, never raise
            return FAILED, *self._raised(check, err)
        return (PASSED if ok else FAILED), detail, blamed[0] if blamed and not ok else part

    def _blame_expand(self, title: str, detail: str, part: str) -> tuple[str, str]:
        """The detail and part of a failed check, naming ``expand`` when a slip of it is the cause.

        A slip of ``expand`` shows first in other checks (:mod:`.expand_probes`): when the
        student's tree shows one, the first check that fails names it, and those after it
        say they fail as its consequence, each keeping what it saw. An overrun is left as it
        is (reading the tree would mean searching again).
        """
        if part == "expand":
            self.expand_named = self.expand_named or title
            return detail, part
        if self.overran:
            return detail, part
        slip = self._expand_cause()
        if slip is None and self.expand_named is None:
            return detail, part
        if slip is not None and self.expand_named is None:
            self.expand_named = title
            return f"{slip}. (This check saw, as a consequence: {detail})", "expand"
        return (
            f"a consequence of the slip in `expand` named by '{self.expand_named}': fix that first "
            f"(this check saw: {detail})",
            "expand",
        )

    def _overran(self, err: TimeLimitExceeded) -> tuple[str, str]:
        self.overran = True
        function = _function(err, named=True)
        if err.part == "check_uct":
            self.out_of_time = True
            return (
                f"check_uct stopped after {err.within}, its limit: {_hang_hint(function, None, err)}",
                function or self.calling[0],
            )
        part, iterations = self.calling
        at = f" at {iterations} iteration{'s' * (iterations != 1)}" if iterations is not None else ""
        return (
            f"your agent's `{part}` did not return within {err.within}{at}: "
            + _hang_hint(function, iterations, err, getattr(err, "playouts", None)),
            function or part,
        )

    def _raised(self, check: Callable[[], Any], err: Exception) -> tuple[str, str]:
        recursion = _recursion(err)
        if recursion is not None:  # the student's recursion, never the check's: name the function that recursed
            return recursion[1], recursion[0]
        function = _function(err)
        detail = f"your agent raised {type(err).__name__}{_where(err)}: {err}"
        if function is None:  # raised in the check's own code, on something the agent gave it
            detail = (
                f"the check could not use what your agent returned ({type(err).__name__}: {err}; raised in the "
                "check, not in your code): look at what `search` and `select_move` return"
            )
        if "NoneType" not in str(err):
            return detail, function or "search"
        self.__dict__.pop("_first", None)  # the first search is kept: do it again
        again = None
        with _NoneReturns() as nones:  # the same check again, to see which function returned None
            try:
                with time_limit(call_limit(None) + 10, "check_uct"):
                    check()
            except (Exception, TimeLimitExceeded) as raised:
                again = raised
        culprit = nones.culprit(again)
        if culprit is None:
            return detail, function or "search"
        then = f"{type(err).__name__}{_where(err)}: {err}"
        return f"your `{culprit}` returned None (is its `return` missing?); then your agent raised {then}", culprit

    # -- the basic checks ----------------------------------------------------------------
    def legal(self) -> tuple[bool, str]:
        tried = 0
        games = _classic_games()
        for spec in games:
            game = make_game(spec)
            for state in _sample_positions(game):
                agent = self.agent(tried, BUDGETS["legal"])
                move = self.move(agent, game, state, BUDGETS["legal"])
                tried += 1
                legal = game.legal_moves(state)
                if not isinstance(move, int) or move not in legal:
                    what = f"{type(move).__name__} {move!r}" if not isinstance(move, int) else f"move {move}"
                    hint = ""
                    if not isinstance(move, int):
                        hint = " select_move must return a move (an int), such as a child's `move`."
                    elif 0 <= move < len(legal):
                        hint = (
                            " Is it a position in a list (the index of a child) rather than the child's `move`? "
                            "Moves are not numbered 0, 1, 2... in every position."
                        )
                    return False, (
                        f"in {spec} (position {_cells(game, state)!r}, legal moves {list(legal)}) your agent "
                        f"played {what}, which is not legal.{hint}"
                    )
        return True, f"{tried} positions of {len(games)} games ({', '.join(games)}): every move legal"

    def tree(self) -> tuple[bool, str] | tuple[bool, str, str]:
        game = make_game("tictactoe")
        state = game.initial_state()
        n = BUDGETS["tree"]
        root = self.search(self.agent(0, n), game, state, n)
        if not root.children:
            return False, (
                f"after {n} iterations the root has no children: expansion must add each new node to its "
                "parent's `children`, so that selection can find it again"
            )
        for node in _nodes(root):
            moves = [ch.move for ch in node.children]
            if len(set(moves)) != len(moves):
                return False, (
                    "a node has two children for the same move: once a move is expanded, remove it from the "
                    "node's untried moves"
                )
            if not set(moves) <= set(game.legal_moves(node.state)):
                return False, "a node has a child for a move that is not legal in its position"
        depth = _depth(root)
        if depth < 2:
            return False, (
                f"after {n} iterations the tree is {depth} level deep: the root's children are never expanded, "
                "so the search is flat Monte Carlo, not a tree. A new node needs its own untried moves (the legal "
                "moves of its position)"
            )
        growth = read_growth(game, state, root)
        ran = root.visits if root.visits == sum(ch.visits for ch in root.children) else n  # the budget check's
        slip = growth_slip(growth, ran, {"select": "select", "expand": "expand", "expand_outcome": "expand"})
        if slip is not None:
            return False, *slip
        return True, (
            f"after {n} iterations from the empty board: {growth.nodes} nodes, one per iteration (by depth: "
            f"{growth.shown()}), every node with untried moves a leaf of the descent"
        )

    def statistics(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        n = BUDGETS["tree"]
        checked = 0
        for cells in (".........", "XO.X.O..."):
            root = self.search(self.agent(1, n), game, position(cells), n)
            below = sum(ch.visits for ch in root.children)
            if root.visits != below:
                return False, (
                    f"from {cells!r} the root has {root.visits} visits but its children {below} in all: every "
                    "iteration goes through one child of the root, and must add one visit to each node on its path, "
                    "the root included"
                )
            for node in _nodes(root):
                checked += 1
                if not 0 <= node.wins <= node.visits:
                    return False, (
                        f"a node has {node.wins:g} wins in {node.visits} visits: a playout adds 1, 0.5 or 0 to "
                        "`wins` and exactly 1 to `visits`"
                    )
                if sum(ch.visits for ch in node.children) > node.visits:
                    return False, "a node's children have more visits than the node itself: each playout visits a path"
        return True, f"{checked} nodes in two trees: the root's visits are its children's sum, 0 <= wins <= visits"

    def budget(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        state = position("XO.......")
        agent = self.agent(2)
        if not hasattr(agent, "iterations"):
            return False, "your agent has no `iterations` attribute: keep the number of iterations per move there"
        seen = {}
        for n in (17, 40):
            with _budget(agent, n):
                seen[n] = self.search(agent, game, state, n).visits
        if all(v == n for n, v in seen.items()):
            return True, "budgets of 17 and 40 iterations: the root has exactly 17 and 40 visits"
        if all(v == n + 1 for n, v in seen.items()):
            return False, (
                f"with budgets of 17 and 40 iterations the root has {seen[17]} and {seen[40]} visits: one iteration "
                "too many each time (`range(self.iterations + 1)`, or `<=` where `<` belongs?); run exactly "
                "`self.iterations` iterations"
            )
        if len(set(seen.values())) == 1:
            return False, (
                f"with budgets of 17 and 40 iterations the root has {seen[17]} visits both times: the search "
                "ignores `iterations`; run exactly that many iterations per move"
            )
        return False, (
            f"with budgets of 17 and 40 iterations the root has {seen[17]} and {seen[40]} visits: each iteration "
            "must add exactly one visit to the root, and the search must stop after `iterations` of them"
        )

    def determinism(self) -> tuple[bool, str]:
        cases = [("tictactoe", ".........", 0), ("tictactoe", "XO.X.O...", 1), ("connect4", None, 2)]
        for spec, cells, seed in cases:
            game = make_game(spec)
            state = game.initial_state() if cells is None else position(cells)
            runs = []
            for _ in range(2):
                agent = self.agent(seed, BUDGETS["determinism"])
                if self.has_search:
                    root = self.search(agent, game, state, BUDGETS["determinism"])
                    runs.append(_shape(root))
                move = self.move(self.agent(seed, BUDGETS["determinism"]), game, state, BUDGETS["determinism"])
                runs.append(move if isinstance(move, int) else type(move).__name__)  # a node: 'legal' names it
            if runs[: len(runs) // 2] != runs[len(runs) // 2 :]:
                return False, (
                    f"two agents made with the same seed ({seed}) searched {spec} differently: take every random "
                    "draw from one generator made from the seed (random.Random(seed)), never from the random "
                    "module's own functions or an unseeded generator"
                )
        return True, "three positions, two agents per seed: the same trees and the same moves"


BUDGETS = {"legal": 25, "tree": 200, "determinism": 60}
"""Iterations per move of the checks above (the others' are in their modules)."""


def check_uct(make_agent: Callable[[int], Any], show_progress: bool = True) -> Report:
    """Grade a student's UCT agent: its own code, its tree, its statistics, UCB1, tactics, draws, perfect play.

    The checks, in order (each names its mistake when it fails, with what was expected and
    what was seen; a check runs only once those it builds on have passed, so the report
    points at the cause, not at its consequences):

    * ``factory``: ``make_agent(seed)`` makes an agent (not the class itself given where a
      factory is expected), and the agent is the student's (not the package's UCT, a
      subclass or a wrapper of it: :mod:`.provenance`);
    * ``one_iteration``: after one iteration the root and one child have one visit each
      (names a root never counted, which later fails as log(0) in ``ucb1``, a budget of
      the agent's own, and an error an ``except`` swallowed, by the function that raised it:
      :mod:`.causes`); a search that runs more iterations than its budget, each counted
      right, is left to ``budget``;
    * ``legal``: legal moves only, in positions of every game of the package;
    * ``tree``: the tree grows below the root's children, one node per iteration (except the
      iterations that end at a finished game), and no node with untried moves is gone through
      (:mod:`.growth`: names ``select`` for a descent that stops at a fully expanded node or
      goes below an untried move);
    * ``statistics``: the root's visits are its children's sum; ``0 <= wins <= visits``;
    * ``budget``: the root has exactly ``iterations`` visits (17, then 40);
    * ``determinism``: two agents with the same seed build the same trees (compared by value,
      never as node objects), play the same moves;
    * ``point_of_view``: every finished game in the tree (depth 1 and 2) is credited to
      the player who moved into it, a draw as 0.5 (names the sign slips);
    * ``playouts``: from the empty board, one iteration at a time with many seeds, each
      child's playouts end in more than one result, as random playouts do (names playouts
      that always play the same moves, e.g. the first legal one: :mod:`.playout_probes`);
    * ``most_visited``: the move played is the most visited child, in searches where
      the most wins or the best mean are elsewhere;
    * ``selection``: on a row of arms, exactly UCB1's visits (names the classic slips);
      below the root, every choice at depth 2 and more is UCB1's with the parent's visits
      (names the root's visits used at every depth), no iteration stops at a fully expanded
      node, and choices below depth 1 exist (never a pass with none to compare);
    * ``one_move``, ``draws``, ``perfect``: wins and blocks in one, draw escapes, games
      against perfect play, each with a tolerance derived in :mod:`.strength` (a correct
      agent fails with probability below 1e-4).

    Every call into the agent has a time limit (:func:`call_limit`), and the whole run
    :data:`TOTAL_SECONDS`, both in CPU seconds, so a busy machine does not fail a correct agent (a
    wall-clock backstop, :func:`~.limits.backstop`, stops an agent that waits in ``sleep`` or ``input``):
    an overrun fails the check, naming the function, the limit and what it measured.

    Args:
        make_agent: ``make_agent(seed)`` returns a fresh agent seeded with the int
            ``seed``: an object with ``select_move(game, state)``, and for most checks
            ``search(game, state)`` (the root of its tree) and ``iterations``.
        show_progress: show a progress bar when the checks run more than 2 s.

    Returns:
        A :class:`~mctslab.course.exercises.Report`; ``report.ok`` is True when every check
        passed. Nothing is raised for a mistake in the agent (its exceptions and overruns
        are reported), nor for a stub that raises ``NotImplementedError`` ("not written
        yet"); an interrupt (``KeyboardInterrupt``) still stops it.
    """
    checker = _Checker(make_agent)
    checker.progress = show_progress
    try:
        with unchanged_globals(), time_limit(TOTAL_SECONDS, "check_uct"):
            for name in CHECKS:
                checker.run(name)
    except TimeLimitExceeded as err:  # between two checks: the next one fails, those after it were not run
        checker.out_of_time = True
        before = len(checker.report.checks)
        left = fail_the_next_check(checker.report, CHECKS, "check_uct", err, cpu_seconds() - checker.began_cpu)
        if checker.bar is not None and len(checker.report.checks) > before:
            checker.bar.update()
        with unchanged_globals():
            for name in left:
                checker.run(name)
    finally:
        if checker.bar is not None:
            checker.bar.close()
    checker.report.seconds = time.perf_counter() - checker.began
    return weighed(checker.report, WEIGHTS)


def _shape(node: Any) -> tuple:
    """The tree below ``node`` as plain values, children in a canonical order: two searches compare by value.

    Two student nodes compare unequal unless their class says otherwise, so the trees are
    compared by what they hold (moves, visits, wins), never as objects.
    """
    children = sorted((_shape(ch) for ch in getattr(node, "children", ())), key=repr)
    move = getattr(node, "move", None)
    return (move if isinstance(move, int) else repr(move), node.visits, round(float(node.wins), 9), tuple(children))


def _classic_games() -> tuple[str, ...]:
    """The package's games the course's UCT is written for: two players, no chance, nothing hidden.

    Only the package's own (``mctslab.games``): a game registered elsewhere (a notebook's, a
    test's) would make the check differ from one process to another, the grader's and the
    kernel it judges (:mod:`mctslab.course.grader.proxy`) among them.
    """
    return tuple(
        spec
        for spec, entry in GAMES.items()
        if getattr(entry.factory, "__module__", "").startswith("mctslab.games.")
        and make_game(spec).kind().traits == CLASSIC
    )
