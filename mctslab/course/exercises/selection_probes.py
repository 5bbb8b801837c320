"""Probes of a student's selection and final move, read off the trees of growing budgets.

A deterministic agent's search of ``k + 1`` iterations is its search of ``k`` plus one
more iteration (the same seed, the same draws in the same order). Comparing the two trees
shows the path of that iteration, so every choice it made at a fully expanded node, at
any depth, can be compared with UCB1 computed from the tree before it: this catches a
selection that is right at the root and wrong below it (the root's visits used as N at
every depth). The same trees give, budget after budget, cases where the child with the
most visits is not the one with the most wins or the best mean, for the final move.

Methods of :class:`_SelectionProbes`, part of ``check_uct``'s checker.
"""

from __future__ import annotations

import math
from typing import Any

from ...games import make_game
from ...games.base import Game, State
from ...ucb import SQRT2
from .diagnoses import _SLIPS, _fingerprint, _ucb1
from .positions import ARMS, SMALL_C, position
from .student import _mean, _Skip
from .tree import ArmsGame, CannedSearch, TreeNode

Outcome = tuple[bool, str]
Tree = dict[tuple[int, ...], tuple[int, float, int]]
"""A tree read as ``{moves from the root: (visits, wins, number of children)}``."""

DEPTH_POSITIONS = (("XO..X.O..", 3), ("X.O...OX.", 4))
"""Positions (and seeds) whose trees are fully expanded two levels down within :data:`DEPTH_BUDGET` iterations."""

DEPTH_BUDGET = 60
"""The selection probe reads the trees of 1, 2, ... this many iterations."""

FINAL_POSITIONS = ((".........", 0), ("X........", 1), ("XO.X.O...", 2))
"""Positions (and seeds) of the final-move probe."""

FINAL_BUDGETS = range(6, 30)
"""The budgets of the final-move probe, in each position."""

CRAFTED_CELLS = "XO.X.O..."
CRAFTED_CHILDREN = ((4, 4, 4.0), (6, 6, 5.5), (2, 10, 3.0), (7, 3, 1.0), (8, 2, 0.0))
"""A hand-built root for :data:`CRAFTED_CELLS`: (move, visits, wins) of each child, in this order. The most
visited (2) has neither the most wins (6) nor the best mean (4): a correct UCT's own trees practically never
show this, as UCB1 keeps the most visited child the one with the most wins."""


def _read(root: Any) -> Tree:
    out: Tree = {}
    stack: list[tuple[tuple[int, ...], Any]] = [((), root)]
    while stack:
        path, node = stack.pop()
        out[path] = (node.visits, node.wins, len(node.children))
        stack.extend(((*path, ch.move), ch) for ch in node.children)
    return out


def _children(tree: Tree, path: tuple[int, ...]) -> dict[int, tuple[int, float, int]]:
    return {p[-1]: v for p, v in tree.items() if len(p) == len(path) + 1 and p[: len(path)] == path}


def _values(children: dict[int, tuple[int, float, int]], n: int, c: float) -> dict[int, float]:
    return {m: _ucb1(w / v, n, v, c) if v else math.inf for m, (v, w, _) in children.items()}


def _decisions(game: Game, state: State, before: Tree, after: Tree) -> list[tuple] | None:
    """The choices made at fully expanded nodes by the iteration from ``before`` to ``after`` (None: not one path).

    When the path ends at a node that was already fully expanded before the iteration and is
    not a finished game, selection stopped early there: the last item is then ``(path,
    None, ...)``, a choice not made.
    """
    grown = sorted((p for p in after if after[p][0] != before.get(p, (0,))[0]), key=len)
    if [len(p) for p in grown] != list(range(len(grown))) or any(
        grown[i + 1][:i] != grown[i] or after[grown[i]][0] != before.get(grown[i], (0,))[0] + 1
        for i in range(len(grown) - 1)
    ):
        return None
    out = []
    for i, path in enumerate(grown):
        s = state
        for move in path:
            s = game.apply(s, move)
        if path not in before or before[path][2] < len(game.legal_moves(s)):
            break  # a node with untried moves: expansion, not selection
        if i + 1 == len(grown):  # the iteration ended at a fully expanded node
            if not game.is_terminal(s):
                out.append((path, None, _children(before, path), before[path][0], before[()][0]))
            break
        out.append((path, grown[i + 1][-1], _children(before, path), before[path][0], before[()][0]))
    return out


class _SelectionProbes:
    """The selection and final-move checks of ``check_uct`` (mixed into its checker)."""

    def _trees(self, cells: str, seed: int, budgets: range) -> dict[int, Tree]:
        game, state, cache = make_game("tictactoe"), position(cells), self.__dict__.setdefault("_tree_cache", {})
        for k in budgets:
            if (cells, seed, k) not in cache:
                cache[cells, seed, k] = _read(self.search(self.agent(seed, k), game, state, k))
        return {k: cache[cells, seed, k] for k in budgets}

    def selection(self) -> Outcome:
        ok, detail = self._arms()
        if not ok:
            return ok, detail
        c = getattr(self.agent(3), "c", SQRT2)
        game, checked, wrong, stopped = make_game("tictactoe"), 0, [], []
        for cells, seed in DEPTH_POSITIONS:
            trees = self._trees(cells, seed, range(1, DEPTH_BUDGET + 1))
            if any(trees[k + 1][()][0] != trees[k][()][0] + 1 for k in range(1, DEPTH_BUDGET)):
                raise _Skip(  # the decisions are read between searches one iteration apart
                    "runs once each budget runs as many iterations as the one before plus one (see 'the budget is "
                    "respected')"
                )
            for k in range(1, DEPTH_BUDGET):
                decisions = _decisions(game, position(cells), trees[k], trees[k + 1]) or []
                for path, chosen, children, n, root_n in decisions:
                    if chosen is None:
                        stopped.append((cells, k, path, n))
                        continue
                    checked += len(path) > 0
                    values = _values(children, n, c)
                    if values[chosen] < max(values.values()) - 1e-9:
                        wrong.append((cells, k, path, chosen, children, n, root_n))
        if stopped:
            cells, k, path, n = min(stopped, key=lambda s: len(s[2]))
            node = f"below moves {list(path)}" if path else "of the root"
            return False, (
                f"from {cells}, iteration {k + 1} stopped at the node {node} "
                f"(depth {len(path)}, {n} visits, every move expanded) without choosing a child ({len(stopped)} "
                "iterations stopped so): selection goes down through every fully expanded node, choosing by UCB1 "
                "at each (a `while` loop, not an `if`), until a node with an untried move or a finished game"
            )
        if not checked:
            iterations = len(DEPTH_POSITIONS) * (DEPTH_BUDGET - 1)
            return False, (
                f"{detail}; but in {iterations} iterations from {len(DEPTH_POSITIONS)} positions whose trees are "
                "fully expanded two levels down, selection never chose at depth 2 or more (0 choices): it must go "
                "on down by UCB1 below the root's children (a `while` loop, not an `if`)"
            )
        if not wrong:
            return True, f"{detail}; below the root, {checked} choices at depth 2 and more follow UCB1 too"
        return False, _depth_diagnosis(wrong, c)

    def _arms(self) -> Outcome:
        game = ArmsGame(ARMS)
        n = 60
        default = getattr(self.agent(3), "c", None)
        cs = [SQRT2] if default is None else [default] + ([SMALL_C] if default != SMALL_C else [])
        runs = []  # (c, recorded means, visits done, the student's fingerprint)
        for c in cs:
            agent = self.agent(3, n)
            if default is not None:
                agent.c = c
            root = self.search(agent, game, game.initial_state(), n)
            moves = sorted(ch.move for ch in root.children)
            if moves != list(range(len(ARMS))):
                return False, f"on a one-move game with {len(ARMS)} moves the root has children for moves {moves}"
            means = {ch.move: _mean(ch) for ch in root.children}
            runs.append((c, means, root.visits, sorted((means[ch.move], ch.visits) for ch in root.children)))
        wrong = [(c, got, _fingerprint(means, done, c, _ucb1)) for c, means, done, got in runs]
        wrong = [(c, got, want) for c, got, want in wrong if got != want]
        if not wrong:
            shown = " and ".join(f"c = {c:.3g}" for c in cs)
            return True, f"a row of {len(ARMS)} arms paying {list(ARMS)}, {n} iterations with {shown}: UCB1's visits"
        c, got, want = wrong[0]
        shown = f"with c = {c:.3g}, visits {[v for _, v in got]} (by mean) where UCB1 gives {[v for _, v in want]}"
        for rule, words in _SLIPS:
            if all(got == _fingerprint(means, done, c, rule) for c, means, done, got in runs):
                return False, f"on a row of arms with fixed payouts, {shown}. {words}"
        return False, (
            f"on a row of arms with fixed payouts, {shown}: selection does not follow UCB1, "
            "mean + c sqrt(ln N / n) with N the parent's visits and n the child's"
        )

    def most_visited(self) -> Outcome:
        game = make_game("tictactoe")
        crafted = self._crafted_final(game)
        if crafted is not None and not crafted[0]:
            return crafted
        wrong, total = [], 0
        for cells, seed in FINAL_POSITIONS:
            trees = self._trees(cells, seed, FINAL_BUDGETS)
            for k in FINAL_BUDGETS:
                children = _children(trees[k], ())
                move = self.move(self.agent(seed, k), game, position(cells), k)
                total += 1
                top = {m for m, (v, _, _) in children.items() if v == max(v for v, _, _ in children.values())}
                if move not in top:
                    wrong.append((cells, k, move, children, top))
        if wrong:
            return False, _final_diagnosis(wrong, total)
        shown = f"{total} searches of {FINAL_BUDGETS.start}-{FINAL_BUDGETS.stop - 1} iterations: the most visited child"
        if crafted is None:
            return True, f"{shown} was played each time"
        return True, f"{crafted[1]}; {shown} each time"

    def _crafted_final(self, game: Game) -> Outcome | None:
        """``select_move`` given a tree whose most visited child has neither the most wins nor the best mean.

        The agent's ``search`` is replaced (on this agent only) by one returning a hand-built
        root; ``None`` when ``select_move`` does not call ``self.search``.
        """
        state = position(CRAFTED_CELLS)
        root = TreeNode.root(game, state)
        root.untried = []
        for move, visits, wins in CRAFTED_CHILDREN:
            child = TreeNode(game.apply(state, move), game.to_move(state), move, root, game.legal_moves(state))
            child.visits, child.wins = visits, wins
            root.children.append(child)
        root.visits = sum(v for _, v, _ in CRAFTED_CHILDREN)
        agent = self.agent(5, 10)
        search = CannedSearch(root)
        try:
            agent.search = search
        except AttributeError:
            return None
        move = self.move(agent, game, state, 10)
        if not search.calls:
            return None
        stats = {m: (v, w) for m, v, w in CRAFTED_CHILDREN}
        want = max(stats, key=lambda m: stats[m][0])
        if move == want:
            return True, (
                f"given a root whose children have (visits, wins) {[stats[m] for m in stats]}, it played the most "
                f"visited, {want}"
            )
        shown = (
            f"given a root whose children are moves {list(stats)} with (visits, wins) {list(stats.values())}, your "
            f"select_move played {move}; the most visited child is {want} ({stats[want][0]} visits)"
        )
        if move == max(stats, key=lambda m: stats[m][1]):
            return False, (
                f"{shown}. You played the child with the most wins: play the most visited one. Wins grow with "
                "visits; the most visited is where UCB1 kept coming back"
            )
        if move == max(stats, key=lambda m: stats[m][1] / stats[m][0]):
            return False, (
                f"{shown}. You played the child with the best mean (wins / visits): play the most visited one. "
                "With few visits a mean is luck (one playout, one win: mean 1)"
            )
        return False, f"{shown}: select_move must play the move of the root's most visited child"


def _depth_diagnosis(wrong: list[tuple], c: float) -> str:
    cells, k, path, chosen, children, n, root_n = min(wrong, key=lambda w: len(w[2]))
    as_root = all((v := _values(ch, r, c))[m] >= max(v.values()) - 1e-9 for _, _, _, m, ch, _, r in wrong)
    values = _values(children, n, c)
    best = max(values, key=values.get)
    shown = (
        f"from {cells}, iteration {k + 1}, at depth {len(path) + 1} (below moves {list(path)}): the parent has "
        f"N = {n} visits, and your agent chose move {chosen} (UCB1 {values[chosen]:.3f}) over move {best} "
        f"(UCB1 {values[best]:.3f})"
    )
    if as_root:
        return (
            f"{shown}. These are the choices of UCB1 with the root's {root_n} visits as N at every depth: N is the "
            "visits of the node being chosen from (the parent of the children compared), which changes as the "
            "descent goes down"
        )
    return f"{shown}: selection must follow UCB1 at every depth, mean + c sqrt(ln N / n), N the parent's visits"


def _final_diagnosis(wrong: list[tuple], total: int) -> str:
    def played_by(key: Any) -> bool:
        for _, _, move, children, _ in wrong:
            best = max(key(v, w) for v, w, _ in children.values())
            if move not in children or key(*children[move][:2]) != best:
                return False
        return True

    cells, k, move, children, top = wrong[0]
    shown = (
        f"in {len(wrong)} of {total} searches your agent played another move than the most visited child; e.g. "
        f"from {cells} at {k} iterations it played {move}, where the most visited is {sorted(top)} "
        f"(visits {children[next(iter(top))][0]})"
    )
    if played_by(lambda v, w: w):
        return (
            f"{shown}: it played the child with the most wins. Play the most visited child: wins grow with "
            "visits, and a child visited less can have as many wins by luck"
        )
    if played_by(lambda v, w: w / v if v else -1):
        return (
            f"{shown}: it played the child with the best mean (wins / visits). Play the most visited child: "
            "with few visits a mean is luck (one playout, one win: mean 1), while visits are where UCB1 kept "
            "coming back"
        )
    return f"{shown}: select_move must play the most visited child of the tree the same seed builds"
