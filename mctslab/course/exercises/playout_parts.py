"""Checks of the last two phases of UCT, on tic-tac-toe and small hand-built trees of :class:`TreeNode` (notebook 04b).

* ``simulate(game, node, rng)``: a uniformly random playout from ``node``; the per-player returns;
* ``backpropagate(node, returns)``: add the playout to every node from ``node`` up to the root.

The first three (UCB1, selection, expansion) are in :mod:`.parts` and :mod:`.expansion`;
all report as they do, through :func:`.runner.run_checks`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ...games import make_game
from .limits import progress
from .parts import _node
from .parts_diagnoses import say
from .positions import position
from .report import Report
from .runner import Outcome, Student, none_returned, run_checks
from .tree import TreeNode
from .uniformity import PLAYOUTS, _pair, uniformity
from .watches import global_draws

__all__ = ["check_backpropagate", "check_simulate"]

SIMULATE_PLAYOUTS = PLAYOUTS
"""Playouts from the empty board that :func:`check_simulate` tests for uniformity (:mod:`.uniformity`)."""

SEEDED_PLAYOUTS = 20
"""Playouts :func:`check_simulate` plays twice with the same seeds (the same rng seed, the same playout)."""


# -- simulation ---------------------------------------------------------------------
_FIELDS = ("state", "player", "visits", "wins", "untried", "children", "parent")


def _look(node: TreeNode) -> tuple:
    return (node.state, node.player, node.visits, node.wins, tuple(node.untried), len(node.children), node.parent)


def check_simulate(simulate_function: Callable[[Any, TreeNode, random.Random], Any]) -> Report:
    """Check a student's ``simulate(game, node, rng)``: a uniformly random playout's per-player returns.

    From positions X and O have won, it must return ``(1.0, 0.0)`` and ``(0.0, 1.0)``
    (not the winner, not one number); from a position that can only be drawn,
    ``(0.5, 0.5)``. The same rng seed must give the same playout (the moves drawn with
    the ``rng`` given, the module ``random`` untouched), and the node must be left as it
    was. From the empty board, :data:`SIMULATE_PLAYOUTS` playouts must look uniformly
    random: :func:`.uniformity.uniformity` derives its acceptance ranges so that a
    right answer fails with probability below 1e-4, and the slips of its docstring fail
    with probability above 99.9%.

    Returns:
        A :class:`Report` with the checks ``finished``, ``draw``, ``seeded`` and ``random``.
    """
    game = make_game("tictactoe")
    student = Student(simulate_function, "simulate")

    def finished() -> Outcome:
        x_won = student(game, TreeNode(position("XXXOO...."), 0), random.Random(0))
        o_won = student(game, TreeNode(position("OOOXX.X.."), 1), random.Random(0))
        got = (x_won, o_won)
        none_returned("simulate", x_won if x_won is None else o_won, "from a finished game")
        if (_pair(x_won), _pair(o_won)) == ((1.0, 0.0), (0.0, 1.0)):
            return True, "from positions X and O have won: (1.0, 0.0) and (0.0, 1.0), one return per player"
        seen = f" ({x_won!r} from a position X has won, {o_won!r} from one O has won)"
        want = ": return the per-player returns (X's, O's), game.returns(state): (1.0, 0.0) and (0.0, 1.0) here"
        if got == (0, 1) and not any(isinstance(v, float) for v in got):
            return False, say("simulate", "winner", seen + want)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in got):
            return False, say("simulate", "one_number", seen + want)
        return False, f"from finished games simulate returned{seen}{want}"

    def draw() -> Outcome:
        got = student(game, TreeNode(position("XOXXOOOX."), 1), random.Random(0))
        none_returned("simulate", got, "from a position that can only end in a draw")
        if _pair(got) == (0.5, 0.5):
            return True, "a drawn playout returns (0.5, 0.5): a draw is half a win for each player"
        return False, say("simulate", "draw_as_loss", f" {got!r}: a draw is worth 0.5 to each player, (0.5, 0.5)")

    def seeded() -> Outcome:
        node = TreeNode(game.initial_state(), 1)
        look = _look(node)
        with global_draws() as draws:
            runs = []
            for _ in range(2):
                rng = random.Random(7)
                runs.append([_pair(student(game, node, rng)) for _ in range(SEEDED_PLAYOUTS)])
                if _look(node) != look:
                    changed = [f for f, a, b in zip(_FIELDS, look, _look(node), strict=True) if a != b]
                    return False, say("simulate", "moves_node", (
                        f": its {' and '.join(changed)} changed; play the playout on a local variable, "
                        "state = node.state, and leave the node as it was"))  # fmt: skip
        if draws.drew:
            return False, say("simulate", "global_random", (
                " (its state changed), not from the rng given: every random choice must use `rng`"))  # fmt: skip
        if runs[0] != runs[1]:
            k = next(k for k in range(SEEDED_PLAYOUTS) if runs[0][k] != runs[1][k])
            return False, say("simulate", "unseeded", (
                f": with two rngs seeded 7, playout {k + 1} returned {runs[0][k]!r}, then {runs[1][k]!r}: every "
                "random choice must use `rng`"))  # fmt: skip
        return True, f"two rngs with the same seed: the same {SEEDED_PLAYOUTS} playouts; the node left as it was"

    def uniform() -> Outcome:
        with progress(SIMULATE_PLAYOUTS, "check_simulate") as bar:
            ok, detail, _ = uniformity(student, game, TreeNode(game.initial_state(), 1), random.Random(0), bar.update)
        if ok:
            return True, detail
        return False, say("simulate", "not_uniform", detail + ". Choose each move uniformly among the legal moves, "
                          "with the rng given")  # fmt: skip

    stops = "does the playout stop when `game.is_terminal(state)`?"
    return run_checks("check_simulate", simulate_function, [
        ("finished", "a finished game returns its result", finished, stops),
        ("draw", "a draw is half a win each", draw, stops),
        ("seeded", "the same seed, the same playout", seeded),
        ("random", "playouts are uniformly random", uniform),
    ], "simulate")  # fmt: skip


# -- backpropagation ----------------------------------------------------------------
def _path() -> tuple[TreeNode, TreeNode, TreeNode, TreeNode]:
    """root (X to move) -> a (X moved) -> b (O moved), and a sibling of ``a``; visits 3, 2, 1, 1."""
    root = _node(3, 1.0)
    root.player = 1
    a = _node(2, 1.0, 0, root)
    sibling = _node(1, 1.0, 1, root)
    b = _node(1, 0.0, 4, a)
    return root, a, b, sibling


_PLAYERS = (1, 0, 1)  # the players of root, a, b: O, X, O
_CASES = ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5))
_NAMES = ("an X win", "an O win", "a draw")
_BACKUP_SLIPS: tuple[tuple[str, Callable[[int, tuple[float, float]], float], str], ...] = (
    ("sign_slip", lambda player, r: r[1 - player], " at each node, not for the player who moved into it"),
    ("fixed_player", lambda player, r: r[0], ", whoever moved into it"),
    ("draw_as_loss", lambda player, r: 1.0 if r[player] == 1.0 else 0.0, ": it is worth half a win, 0.5"),
)


def _credit(rule: Callable[[int, tuple[float, float]], float]) -> list[list[float]]:
    return [[round(rule(p, r), 9) for p in _PLAYERS] for r in _CASES]


def check_backpropagate(backpropagate_function: Callable[[TreeNode, tuple[float, float]], None]) -> Report:
    """Check a student's ``backpropagate(node, returns)`` on a three-level path.

    Every node from ``node`` up to the root gains one visit and ``returns[node.player]``
    (the result of the player who moved into it); other nodes, and ``returns``, are
    left alone. Checked with an X win, an O win and a draw.

    Returns:
        A :class:`Report` with the checks ``path``, ``point_of_view`` and ``returns``;
        names the root not counted, the sign slip (the player to move), a fixed player
        and draws scored as losses, with the numbers expected and seen.
    """
    student = Student(backpropagate_function, "backpropagate")

    def run(returns: Any) -> list[tuple[int, float]]:
        nodes = _path()
        before = [(n.visits, n.wins) for n in nodes]
        student(nodes[2], list(returns))  # a list: a function that changes it is seen doing so
        return [(n.visits - v, round(n.wins - w, 9)) for n, (v, w) in zip(nodes, before, strict=True)]

    def path() -> Outcome:
        visits = [d[0] for d in run((1.0, 0.0))]
        seen = f" (visits added, root to leaf: {visits[:3]}; expected [1, 1, 1])"
        if visits == [1, 1, 1, 0]:
            return True, "one visit added to each node from the leaf up to the root, and to no other"
        if visits[3]:
            return False, say("backpropagate", "off_path", ": only the nodes from the leaf up to the root take part")
        if visits[2] and visits[1] and not visits[0]:
            return False, say("backpropagate", "root_not_counted", seen + (
                ": climb through `parent` until there is none, the root included; ucb1 takes the log of the "
                "root's visits"))  # fmt: skip
        if visits[2] and not visits[1]:
            return False, say("backpropagate", "leaf_only", seen + ": walk up through `parent` to the root")
        if not visits[2]:
            return False, f"the node given was not updated{seen}: start from it, then climb to the root"
        return False, f"the visits added are not one per node{seen}"

    def point_of_view() -> Outcome:
        got = [[d[1] for d in run(r)][:3] for r in _CASES]
        want = _credit(lambda player, r: r[player])
        if got == want:
            return True, "X wins, O wins and a draw: each node gained the result of the player who moved into it"
        i = next(k for k in range(3) if got[k] != want[k])
        seen = (
            f" (for {_NAMES[i]}, wins added to root, child, leaf: {got[i]}; expected {want[i]}, the result of the "
            "player who moved into each: O, X, O)"
        )
        for name, rule, words in _BACKUP_SLIPS:
            if got == _credit(rule):
                return False, say("backpropagate", name, words + seen)
        return False, f"wins added are not returns[node.player]{seen}"

    def returns() -> Outcome:
        given = [0.0, 1.0]
        nodes = _path()
        student(nodes[2], given)
        if given == [0.0, 1.0]:
            return True, "the returns given are left as they were (a tree shares them with the playout)"
        return False, say("backpropagate", "changes_returns", (
            f": [0.0, 1.0] became {given}; read returns[node.player] at each node and change nothing"))  # fmt: skip

    return run_checks("check_backpropagate", backpropagate_function, [
        ("path", "one visit on each node of the path", path),
        ("point_of_view", "results credited to the player who moved", point_of_view),
        ("returns", "the returns are left as they were", returns),
    ], "backpropagate")  # fmt: skip
