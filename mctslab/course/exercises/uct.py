"""``check_uct``: graded checks of a student's whole UCT agent, with diagnoses in plain words.

The agent is any object with ``select_move(game, state)``; most checks also need
``search(game, state)`` returning the root of its tree (nodes with ``children``,
``visits``, ``wins`` and ``move``, as :class:`~mctslab.course.exercises.TreeNode`), and an
``iterations`` attribute, the budget, which the checks set to keep themselves fast.
Each check says passed, failed (with what is wrong, without giving the code away),
skipped (another check must pass first, so that a report names the cause rather than
its consequences) or not written yet (a stub still raises ``NotImplementedError``).

The positions are tic-tac-toe positions with a known answer (:mod:`mctslab.exact`
confirms each one in ``tests/test_exercises_uct.py``); the selection check uses
:class:`~mctslab.course.exercises.ArmsGame`, where UCB1's visit counts are exact.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ...agents.perfect import PerfectPlayer
from ...games import GAMES, make_game
from ...games.base import Game, State
from ...ucb import SQRT2
from .diagnoses import _SLIPS, _fingerprint, _one_move_diagnosis, _ucb1
from .positions import ARMS, DRAW_ESCAPES, ONE_MOVE, PERFECT_GAMES, SMALL_C, _cells, _sample_positions, position
from .report import FAILED, NOT_WRITTEN, PASSED, SKIPPED, Check, Report
from .student import _as_int, _budget, _depth, _mean, _nodes, _Skip, _where
from .tree import ArmsGame

__all__ = [
    "BUDGETS",
    "CHECKS",
    "DRAW_ESCAPES",
    "ONE_MOVE",
    "check_uct",
    "position",
]

BUDGETS = {"legal": 25, "tree": 200, "determinism": 60, "most_visited": 20, "selection": 60, "one_move": 300,
           "draws": 300, "perfect": 2000}  # fmt: skip
"""Iterations per move the checks give the agent (through its ``iterations`` attribute)."""

CHECKS: dict[str, tuple[str, tuple[str, ...] | str]] = {
    "legal": ("legal moves only, in every game", ()),
    "tree": ("the tree grows below the root", ()),
    "statistics": ("the statistics add up", ()),
    "budget": ("the budget is respected", ()),
    "determinism": ("same seed, same search", ()),
    "most_visited": ("the most visited child is played", ("legal", "determinism")),
    "selection": ("selection follows UCB1", ()),
    "one_move": ("wins and blocks in one, as X and as O", ("legal", "tree", "selection")),
    "draws": ("a draw is worth half a win", ("one_move",)),
    "perfect": ("never loses to perfect play", "all"),
}
"""The checks of :func:`check_uct`, in order: name -> (title, the checks it needs to have passed)."""


class _Checker:
    """Runs the checks of one agent factory and collects a :class:`Report`."""

    def __init__(self, make_agent: Callable[[int], Any]) -> None:
        self.make_agent = make_agent
        self.report = Report("check_uct: your UCT agent")
        self.stub: str | None = None
        self.has_search: bool | None = None

    # -- running -------------------------------------------------------------------
    def agent(self, seed: int, iterations: int | None = None) -> Any:
        agent = self.make_agent(seed)
        if self.has_search is None:
            self.has_search = callable(getattr(agent, "search", None))
        if iterations is not None and hasattr(agent, "iterations"):
            agent.iterations = iterations
        return agent

    def run(self, name: str, title: str, check: Callable[[], tuple[bool, str]], needs: tuple[str, ...] = ()) -> None:
        if self.stub is not None:
            self.report.checks.append(Check(name, title, NOT_WRITTEN, f"waiting for `{self.stub}`"))
            return
        blocked = [n for n in needs if self.report.status(n) != PASSED]
        if blocked:
            titles = [f"'{self.report[n].title}'" for n in blocked]
            if len(titles) == 1:
                waits = f"runs once {titles[0]} passes: fix that first"
            else:
                waits = f"runs once {', '.join(titles[:-1])} and {titles[-1]} pass: fix those first"
            self.report.checks.append(Check(name, title, SKIPPED, waits))
            return
        try:
            ok, detail = check()
        except NotImplementedError as err:
            self.stub = _where(err).strip(" in`") or "your code"
            detail = f"not written yet: fill in `{self.stub}` above, then run this check again"
            self.report.checks.append(Check(name, title, NOT_WRITTEN, detail))
            return
        except _Skip as skip:
            self.report.checks.append(Check(name, title, SKIPPED, str(skip)))
            return
        except Exception as err:  # a student's bug: report it, never raise
            detail = f"your agent raised {type(err).__name__}{_where(err)}: {err}"
            self.report.checks.append(Check(name, title, FAILED, detail))
            return
        self.report.checks.append(Check(name, title, PASSED if ok else FAILED, detail))

    def search(self, agent: Any, game: Game, state: State) -> Any:
        if not self.has_search:
            raise _Skip("needs a `search(game, state)` method that returns the root of the tree")
        root = agent.search(game, state)
        for attribute in ("children", "visits", "wins"):
            if not hasattr(root, attribute):
                raise AttributeError(f"the root returned by search() has no `{attribute}`")
        return root

    # -- the checks ----------------------------------------------------------------
    def legal(self) -> tuple[bool, str]:
        tried = 0
        for spec in GAMES:
            game = make_game(spec)
            for state in _sample_positions(game):
                agent = self.agent(tried, BUDGETS["legal"])
                move = _as_int(agent.select_move(game, state))
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
        return True, f"{tried} positions of {len(GAMES)} games ({', '.join(GAMES)}): every move legal"

    def tree(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        state = game.initial_state()
        n = BUDGETS["tree"]
        root = self.search(self.agent(0, n), game, state)
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
        return True, f"after {n} iterations from the empty board: {sum(1 for _ in _nodes(root))} nodes, {depth} levels"

    def statistics(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        n = BUDGETS["tree"]
        checked = 0
        for cells in (".........", "XO.X.O..."):
            root = self.search(self.agent(1, n), game, position(cells))
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
                seen[n] = self.search(agent, game, state).visits
        if all(v == n for n, v in seen.items()):
            return True, "budgets of 17 and 40 iterations: the root has exactly 17 and 40 visits"
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
                    root = agent.search(game, state)
                    runs.append(sorted((ch.move, ch.visits, ch.wins) for ch in root.children))
                runs.append(self.agent(seed, BUDGETS["determinism"]).select_move(game, state))
            if runs[: len(runs) // 2] != runs[len(runs) // 2 :]:
                return False, (
                    f"two agents made with the same seed ({seed}) searched {spec} differently: take every random "
                    "draw from one generator made from the seed (random.Random(seed)), never from the random "
                    "module's own functions or an unseeded generator"
                )
        return True, "three positions, two agents per seed: the same trees and the same moves"

    def most_visited(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        n = BUDGETS["most_visited"]
        by_mean = wrong = 0
        cases = [(cells, seed) for cells in (".........", "X........", "XO.X.O...") for seed in range(3)]
        for cells, seed in cases:
            state = position(cells)
            root = self.search(self.agent(seed, n), game, state)
            move = self.agent(seed, n).select_move(game, state)
            top = max(ch.visits for ch in root.children)
            if move in {ch.move for ch in root.children if ch.visits == top}:
                continue
            wrong += 1
            best_mean = max(_mean(ch) for ch in root.children)
            by_mean += move in {ch.move for ch in root.children if _mean(ch) == best_mean}
        if not wrong:
            return True, f"{len(cases)} searches of {n} iterations: the most visited child was played each time"
        if by_mean == wrong:
            return False, (
                f"in {wrong} of {len(cases)} searches of {n} iterations your agent played the child with the best "
                "mean (wins / visits), not the most visited one: with few visits a mean is luck (one playout, one "
                "win: mean 1), while visits are where UCB1 kept coming back"
            )
        return False, (
            f"in {wrong} of {len(cases)} searches of {n} iterations your agent played a move that is not the "
            "most visited child of the tree the same seed builds"
        )

    def selection(self) -> tuple[bool, str]:
        game = ArmsGame(ARMS)
        n = BUDGETS["selection"]
        default = getattr(self.agent(3), "c", None)
        cs = [SQRT2] if default is None else [default] + ([SMALL_C] if default != SMALL_C else [])
        runs = []  # (c, recorded means, visits done, the student's fingerprint)
        for c in cs:
            agent = self.agent(3, n)
            if default is not None:
                agent.c = c
            root = self.search(agent, game, game.initial_state())
            moves = sorted(ch.move for ch in root.children)
            if moves != list(range(len(ARMS))):
                return False, f"on a one-move game with {len(ARMS)} moves the root has children for moves {moves}"
            means = {ch.move: _mean(ch) for ch in root.children}
            runs.append((c, means, root.visits, sorted((means[ch.move], ch.visits) for ch in root.children)))
        wrong = [(c, got, _fingerprint(means, done, c, _ucb1)) for c, means, done, got in runs]
        wrong = [(c, got, want) for c, got, want in wrong if got != want]
        if not wrong:
            shown = " and ".join(f"c = {c:.3g}" for c in cs)
            return True, (
                f"a row of {len(ARMS)} arms paying {list(ARMS)}, {n} iterations with {shown}: "
                "exactly UCB1's visits to each arm"
            )
        c, got, want = wrong[0]
        shown = f"with c = {c:.3g}, visits {[v for _, v in got]} (by mean) where UCB1 gives {[v for _, v in want]}"
        for rule, words in _SLIPS:
            if all(got == _fingerprint(means, done, c, rule) for c, means, done, got in runs):
                return False, f"on a row of arms with fixed payouts, {shown}. {words}"
        return False, (
            f"on a row of arms with fixed payouts, {shown}: selection does not follow UCB1, "
            "mean + c sqrt(ln N / n) with N the parent's visits and n the child's"
        )

    def one_move(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        n = BUDGETS["one_move"]
        missed: dict[str, list[str]] = {}
        seed = 0
        for case, positions in ONE_MOVE.items():
            for cells, want in positions:
                move = self.agent(seed, n).select_move(game, position(cells))
                seed += 1
                if move != want:
                    missed.setdefault(case, []).append(f"{cells} (played {move}, not {want})")
        total = sum(len(p) for p in ONE_MOVE.values())
        if not missed:
            return True, f"{total} positions at {n} iterations: every win and every block found, as X and as O"
        return False, _one_move_diagnosis(missed) + " Missed: " + "; ".join(
            f"{case}: {', '.join(where)}" for case, where in missed.items()
        )

    def draws(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        n = BUDGETS["draws"]
        missed = []
        for seed, (cells, want) in enumerate(DRAW_ESCAPES):
            move = self.agent(seed, n).select_move(game, position(cells))
            if move != want:
                missed.append(f"{cells} (played {move}, not {want})")
        if not missed:
            return True, f"{len(DRAW_ESCAPES)} positions where only a draw avoids defeat: the draw chosen each time"
        return False, (
            f"in {len(missed)} of {len(DRAW_ESCAPES)} positions where one move draws and every other loses, your "
            "agent played a losing move: is a draw worth half a win (0.5) in `wins`? Scored as a loss, the draw "
            "looks no better than losing. Missed: " + "; ".join(missed)
        )

    def perfect(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        n = BUDGETS["perfect"]
        losses, draws, played = [], 0, 0
        for i in range(PERFECT_GAMES):
            for seat in (0, 1):
                agents = [None, None]
                agents[seat] = self.agent(100 + 2 * i + seat, n)
                agents[1 - seat] = PerfectPlayer(seed=200 + 2 * i + seat)
                state, moves = game.initial_state(), []
                while not game.is_terminal(state):
                    move = agents[game.to_move(state)].select_move(game, state)
                    state = game.play(state, move)
                    moves.append(move)
                played += 1
                result = game.returns(state)[seat]
                draws += result == 0.5
                if result == 0:
                    losses.append(f"as {'XO'[seat]}: moves {moves}")
        if not losses:
            return True, f"{played} games against perfect play at {n} iterations, both seats: {draws} drawn, none lost"
        return False, (
            f"lost {len(losses)} of {played} games against perfect play at {n} iterations ({'; '.join(losses)}); "
            "a correct UCT practically never loses to perfect play at this budget (notebook 07 measures it), so "
            "look again at the checks above with more positions of your own"
        )


def check_uct(make_agent: Callable[[int], Any]) -> Report:
    """Grade a student's UCT agent: legal moves, statistics, budget, seeds, UCB1, tactics, draws, perfect play.

    The checks, in order (each names its mistake when it fails; the later ones run
    only once those they build on have passed, so the report points at the cause):

    * ``legal``: legal moves only, in positions of every game of the package;
    * ``tree``: the tree grows below the root's children;
    * ``statistics``: the root's visits are its children's sum; ``0 <= wins <= visits``;
    * ``budget``: the root has exactly ``iterations`` visits (17, then 40);
    * ``determinism``: two agents with the same seed build the same trees, play the same moves;
    * ``most_visited``: the move played is the most visited child (needs ``legal``, ``determinism``);
    * ``selection``: on a row of arms with fixed payouts, the root's visits are exactly
      UCB1's, with the agent's ``c`` (sqrt(2) if it has none) and with ``c = 0.5``;
      names the log of the child's count, the factor 2 inside or outside the root, a
      ``c`` ignored;
    * ``one_move``: wins in one and blocks in one, as X and as O (needs ``legal``,
      ``tree``, ``selection``); names a point-of-view bug by the seat it fails;
    * ``draws``: in positions where only a draw avoids defeat, the draw (needs ``one_move``);
    * ``perfect``: no loss in :data:`PERFECT_GAMES` games per seat against perfect play
      at 2,000 iterations (needs every other check).

    Args:
        make_agent: ``make_agent(seed)`` returns a fresh agent seeded with the int
            ``seed``: an object with ``select_move(game, state)``, and for most checks
            ``search(game, state)`` (the root of its tree) and ``iterations``.

    Returns:
        A :class:`~mctslab.course.exercises.Report`; ``report.ok`` is True when every check
        passed. Nothing is raised for a mistake in the agent (its exceptions are
        reported), nor for a stub that raises ``NotImplementedError`` ("not written yet").
    """
    began = time.perf_counter()
    checker = _Checker(make_agent)
    for name, (title, needs) in CHECKS.items():
        if needs == "all":
            needs = tuple(other for other in CHECKS if other != name)
        checker.run(name, title, getattr(checker, name), needs)
    checker.report.seconds = time.perf_counter() - began
    return checker.report
