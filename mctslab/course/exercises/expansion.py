"""The check of a student's ``expand(game, node, rng)`` (notebook 04b), on tic-tac-toe.

The new child must hang under ``node``, be reached by one of ``node``'s untried moves
(then removed from them), hold the position after that move, belong to the player who
made it and start with its own list of untried moves; the move is drawn with the
``rng`` given; a finished position is returned as it is.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ...games import make_game
from ...games.base import Game, State
from .parts_diagnoses import say
from .positions import position
from .report import Report
from .runner import Outcome, Student, Unusable, none_returned, run_checks
from .tree import TreeNode
from .watches import global_draws

__all__ = ["check_expand"]

_START = "XO.X....."
"""The position expanded: O to move, six empty cells."""

RANDOM_SEEDS = 20
"""Seeds :func:`check_expand` expands the same node with: a move drawn with the rng
takes the same move for all 20 with probability 6 ** -19 (six untried moves)."""


class _CachingGame:
    """A game whose ``legal_moves`` returns the same list for a position every time (as a caching game may)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.lists: dict[Any, list[int]] = {}

    def legal_moves(self, state: State) -> list[int]:
        return self.lists.setdefault(state, list(self.game.legal_moves(state)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)


def _child(new: Any, node: TreeNode, doing: str) -> TreeNode:
    none_returned("expand", new, doing)
    if not all(hasattr(new, a) for a in ("parent", "children", "untried", "player", "move", "state")):
        raise Unusable(f"expand returned {new!r} {doing}: return the new child (a TreeNode)")
    return new


def check_expand(expand_function: Callable[[Any, TreeNode, random.Random], TreeNode]) -> Report:
    """Check a student's ``expand(game, node, rng)`` on tic-tac-toe.

    The new child must hang under ``node`` (in its ``children``, with ``parent``), be
    reached by one of ``node``'s untried moves (then removed from them), hold the
    position after that move, belong to the player who made it, start with zero visits
    and wins and with every legal move of its position untried, in a list of its own
    (or it would never be expanded in turn, or would change the game's list). The move
    is drawn with the ``rng`` given (the same seed, the same move; the module
    ``random`` untouched; not always the same move over :data:`RANDOM_SEEDS` seeds). A
    finished position is returned as it is.

    Returns:
        A :class:`Report` with the checks ``child``, ``point_of_view``, ``untried``,
        ``every_move``, ``random``, ``shared`` and ``terminal``.
    """
    game = make_game("tictactoe")
    start = position(_START)
    student = Student(expand_function, "expand")
    doing = f"for a node with {len(game.legal_moves(start))} untried moves"

    def fresh(seed: int = 0) -> tuple[TreeNode, TreeNode, list[int]]:
        root = TreeNode.root(game, start)
        before = list(root.untried)
        return root, _child(student(game, root, random.Random(seed)), root, doing), before

    def child() -> Outcome:
        root, new, before = fresh()
        if new is root:
            return False, f"expand returned the node itself {doing}: return the new child"
        if new not in root.children:
            return False, say("expand", "not_attached", ": selection could never find it again")
        if new.parent is not root:
            return False, say("expand", "no_parent", ": backpropagation could not climb up")
        if new.move in root.untried:
            return False, say("expand", "move_stays_untried", (
                f" (move {new.move}; untried now {root.untried}): remove it, or it is expanded again"))  # fmt: skip
        if new.move not in before or len(root.untried) != len(before) - 1:
            return False, (
                f"the child's move must be one of the node's untried moves {before}, and only it removed: the move "
                f"was {new.move!r}, untried now {root.untried}"
            )
        if new.state != game.apply(start, new.move):
            return False, "the child's `state` is not the position after its move"
        if new.visits or new.wins:
            return False, "a new node starts with 0 visits and 0 wins: backpropagation counts its first playout"
        return True, "one new child under the node, for an untried move, with the position after it"

    def point_of_view() -> Outcome:
        _, new, _ = fresh()
        mover = game.to_move(start)
        if new.player == mover:
            return True, "the child belongs to the player who made its move (the player to move at the parent)"
        return False, say("expand", "wrong_player", (
            f" ({new.player!r}), not the player who made the move into it ({mover}, the player to move at the "
            "parent, game.to_move(node.state)): its wins are counted for that player"))  # fmt: skip

    def untried() -> Outcome:
        _, new, _ = fresh()
        legal = set(game.legal_moves(new.state))
        if set(new.untried) == legal and len(new.untried) == len(legal):
            return True, "the child starts with every legal move of its position untried"
        if not new.untried:
            return False, say("expand", "no_untried", (
                f" (its position has {len(legal)} legal moves), so it looks fully expanded and will never get "
                "children: the tree stays one level deep. Give it the legal moves of its own position"))  # fmt: skip
        return False, (
            f"the new child's untried moves are {list(new.untried)}, not the legal moves of its own position "
            f"{sorted(legal)}"
        )

    def every_move() -> Outcome:
        root = TreeNode.root(game, start)
        rng = random.Random(1)
        for _ in range(len(root.untried)):
            student(game, root, rng)
        moves = sorted(ch.move for ch in root.children)
        if moves == sorted(game.legal_moves(start)) and not root.untried:
            return True, f"{len(moves)} expansions: every legal move once"
        n = len(game.legal_moves(start))
        return False, f"after {n} expansions the children's moves are {moves}: expand each legal move once"

    def drawn() -> Outcome:
        first, again = [], []
        with global_draws() as draws:
            for seed in range(RANDOM_SEEDS):
                first.append(fresh(seed)[1].move)
                again.append(fresh(seed)[1].move)
        if draws.drew:
            return False, say("expand", "global_random", (
                " (its state changed), not from the rng given: the same seed must give the same tree"))  # fmt: skip
        if first != again:
            i = next(k for k in range(RANDOM_SEEDS) if first[k] != again[k])
            return False, say(
                "expand",
                "unseeded",
                (f": with seed {i}, move {first[i]} then move {again[i]}: draw the move with the rng given"),
            )
        if len(set(first)) == 1:
            return False, say("expand", "not_random", (
                f" (move {first[0]} with {RANDOM_SEEDS} seeds): draw it at random among the untried moves, "
                "with the rng given"))  # fmt: skip
        return True, f"{RANDOM_SEEDS} seeds: the same seed gives the same move, {len(set(first))} different moves"

    def shared() -> Outcome:
        caching = _CachingGame(game)
        node = TreeNode.root(caching, start)
        for seed in range(3):  # three levels down: each node's untried list loses a move
            node = _child(student(caching, node, random.Random(seed)), node, doing)
        for state, moves in caching.lists.items():
            if moves != list(game.legal_moves(state)):
                return False, say(
                    "expand",
                    "shared_moves",
                    (
                        f": game.legal_moves gave {list(game.legal_moves(state))} and that list is now {moves}; a game "
                        "may keep and reuse the list it returns: give each node a copy, list(game.legal_moves(state))"
                    ),
                )
        node = TreeNode.root(game, start)
        for seed in range(3):  # the same on the game itself, whose moves are tuples
            node = _child(student(game, node, random.Random(seed)), node, doing)
        return True, "three levels of expansion: each node has its own untried moves; the game's lists are intact"

    def terminal() -> Outcome:
        done = TreeNode(position("XXXOO...."), 0, untried=())
        got = student(game, done, random.Random(2))
        if got is done and not done.children:
            return True, "a finished position is returned as it is (nothing to expand)"
        return False, say("expand", "terminal_not_returned", (
            f" (a finished game), expand must return the node itself; it returned {got!r}"))  # fmt: skip

    own = "a node's `untried` must be a list of its own, list(game.legal_moves(state)), that expand can remove from"
    return run_checks("check_expand", expand_function, [
        ("child", "one new child for an untried move", child),
        ("point_of_view", "the child belongs to the player who moved", point_of_view),
        ("untried", "the child can be expanded in turn", untried),
        ("every_move", "each move expanded once", every_move),
        ("random", "the move is drawn with the rng given", drawn),
        ("shared", "each node has its own untried moves", shared, own),
        ("terminal", "a finished position is left as it is", terminal,
         "at a node without untried moves (a finished game), return the node itself"),
    ], "expand")  # fmt: skip
