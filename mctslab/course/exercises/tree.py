"""The node a student's UCT is built from, and a tiny game whose tree is known in advance.

:class:`TreeNode` is deliberately plain (no cached means, no slots): the exercise of
notebook 04b is to write the four phases on it. :class:`ArmsGame` is a one-move game,
a row of slot machines with fixed payouts, on which UCB1's choices are deterministic,
so that the checks can compare a student's visit counts with the exact ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ...games.base import DRAW, WIN0, WIN1, Game, State

__all__ = ["ArmsGame", "CannedSearch", "TreeNode"]


class TreeNode:
    """One node of a student's UCT tree: the position reached by ``move`` from ``parent``.

    Point of view (the convention of :class:`mctslab.agents.uct.Node`): ``wins`` is the
    total reward (1 win, 0.5 draw, 0 loss) of the playouts through this node **for**
    ``player``, **the player who made** ``move``, that is, the player to move at the
    parent. So when a parent chooses among its children, ``child.wins / child.visits``
    is the chooser's own mean reward. At the root (no move), ``player`` is the opponent
    of the player to move.

    Args:
        state: the position at this node.
        player: the player who made ``move`` (0 or 1).
        move: the move from the parent (``None`` at the root).
        parent: the parent node (``None`` at the root).
        untried: the legal moves of ``state`` not yet expanded (all of them for a new
            node: ``game.legal_moves(state)``; empty for a finished game).

    Attributes:
        children: the expanded children, in the order they were added.
        visits: number of playouts through this node.
        wins: total reward of those playouts for ``player``.
    """

    def __init__(
        self,
        state: State,
        player: int,
        move: int | None = None,
        parent: TreeNode | None = None,
        untried: Iterable[int] = (),
    ) -> None:
        self.state = state
        self.player = player
        self.move = move
        self.parent = parent
        self.untried: list[int] = list(untried)
        self.children: list[TreeNode] = []
        self.visits = 0
        self.wins = 0.0

    @classmethod
    def root(cls, game: Game, state: State) -> TreeNode:
        """A fresh root for ``state``: ``player`` is the opponent of the player to move, every move untried."""
        return cls(state, 1 - game.to_move(state), untried=game.legal_moves(state))

    def iter_nodes(self) -> Iterator[TreeNode]:
        """This node and all its descendants, depth first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def __repr__(self) -> str:
        return f"TreeNode(move={self.move}, player={self.player}, wins={self.wins:g}, visits={self.visits})"


class CannedSearch:
    """A ``search(game, state)`` that returns a tree made in advance and records the states it was asked about.

    ``check_uct`` puts one in place of an agent's ``search`` to see what ``select_move`` plays
    from a given tree. Plain data, so that the grader can hand it to an agent in a submission's
    kernel and read back what it recorded (:mod:`mctslab.course.grader.wire`).

    Args:
        root: the tree every call returns.

    Attributes:
        calls: the states it was called with, in order.
    """

    def __init__(self, root: TreeNode) -> None:
        self.root = root
        self.calls: list[State] = []

    def __call__(self, game: Game, state: State) -> TreeNode:
        self.calls.append(state)
        return self.root


class ArmsGame(Game):
    """A one-move game: player 0 picks one of the ``payouts`` and the game ends with that result.

    A row of slot machines with fixed payouts (1 a win for player 0, 0 a loss, 0.5 a
    draw): every child of the root is terminal, so every playout's result is known and
    UCB1's choices, hence the visit counts after ``N`` iterations, are deterministic.

    Args:
        payouts: player 0's return for each move, each 0, 0.5 or 1.

    States are ``-1`` (nothing chosen) or the chosen move.
    """

    def __init__(self, payouts: tuple[float, ...] = (1.0, 0.0, 0.0)) -> None:
        if not payouts or any(p not in (0.0, 0.5, 1.0) for p in payouts):
            raise ValueError(f"payouts must be a non-empty tuple of 0, 0.5 and 1, got {payouts!r}")
        self.payouts = tuple(float(p) for p in payouts)
        self.spec = "arms:" + "-".join(f"{p:g}" for p in self.payouts)

    def initial_state(self) -> int:
        """Nothing chosen yet."""
        return -1

    def to_move(self, state: int) -> int:
        """Player 0 chooses; after the choice it would be player 1's turn."""
        return 0 if state < 0 else 1

    def legal_moves(self, state: int) -> tuple[int, ...]:
        """Every arm before the choice, nothing after."""
        return tuple(range(len(self.payouts))) if state < 0 else ()

    def apply(self, state: int, move: int) -> int:
        """The chosen arm."""
        return move

    def is_terminal(self, state: int) -> bool:
        """Over once an arm is chosen."""
        return state >= 0

    def winner(self, state: int) -> int | None:
        """Player 0 if the arm pays 1, player 1 if it pays 0, else ``None``."""
        if state < 0:
            return None
        p = self.payouts[state]
        return 0 if p == 1.0 else 1 if p == 0.0 else None

    def returns(self, state: int) -> tuple[float, float]:
        """Per-player returns of the chosen arm."""
        if state < 0:
            raise ValueError("returns() needs a finished game; this one is still in progress")
        p = self.payouts[state]
        return WIN0 if p == 1.0 else WIN1 if p == 0.0 else DRAW

    def render(self, state: int) -> str:
        """The payouts, and the chosen arm if any."""
        chosen = "nothing chosen" if state < 0 else f"arm {state} chosen"
        return f"arms {list(self.payouts)}, {chosen}"
