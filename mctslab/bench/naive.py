"""The "before" picture: tutorial-style UCT, the way the Fractio tutorial writes it.

Node objects holding a copy of a list-of-lists board, ``copy.deepcopy`` on every move,
legal moves and the winner recomputed from scratch by scanning the board, and UCB1
computed with NumPy over a Python list. It plays correct tic-tac-toe (its statistics are
kept for the player who moved into each node), so the benchmark compares like with like;
it is slow on purpose and kept only as the benchmark's baseline row.
"""

from __future__ import annotations

import copy
import random

import numpy as np

LINES = [[(r, 0), (r, 1), (r, 2)] for r in range(3)] + [[(0, c), (1, c), (2, c)] for c in range(3)]
LINES += [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]


class NaiveBoard:
    """A tic-tac-toe position as a 3 x 3 list of lists: 1 for X, -1 for O, 0 empty."""

    def __init__(self) -> None:
        self.board = [[0, 0, 0] for _ in range(3)]
        self.player = 1

    def get_legal_actions(self) -> list[tuple[int, int]]:
        """Empty cells, or none once the game is over."""
        if self.is_game_over():
            return []
        return [(r, c) for r in range(3) for c in range(3) if self.board[r][c] == 0]

    def move(self, action: tuple[int, int]) -> NaiveBoard:
        """A deep copy with the move played."""
        new = copy.deepcopy(self)
        new.board[action[0]][action[1]] = self.player
        new.player = -self.player
        return new

    def winner(self) -> int:
        """1 or -1 for a completed line, else 0."""
        for line in LINES:
            total = sum(self.board[r][c] for r, c in line)
            if abs(total) == 3:
                return total // 3
        return 0

    def is_game_over(self) -> bool:
        """A line is complete or the board is full."""
        return self.winner() != 0 or all(v != 0 for row in self.board for v in row)


class NaiveNode:
    """A tutorial MCTS node (the Fractio tutorial's ``MonteCarloTreeSearchNode``, with the point of view fixed)."""

    def __init__(self, state: NaiveBoard, rng: random.Random, parent: NaiveNode | None = None) -> None:
        self.state = state
        self.parent = parent
        self.rng = rng
        self.children: list[NaiveNode] = []
        self.visits = 0
        self.wins = 0.0  # for the player who moved into this node
        self.untried = state.get_legal_actions()

    def expand(self) -> NaiveNode:
        """Add a child for the last untried action."""
        child = NaiveNode(self.state.move(self.untried.pop()), self.rng, self)
        self.children.append(child)
        return child

    def rollout(self) -> int:
        """Random moves to the end; returns the winner (1, -1) or 0."""
        state = self.state
        while not state.is_game_over():
            state = state.move(self.rng.choice(state.get_legal_actions()))
        return state.winner()

    def backpropagate(self, winner: int) -> None:
        """Visits and wins up to the root."""
        self.visits += 1
        mover = -self.state.player
        self.wins += 1.0 if winner == mover else 0.5 if winner == 0 else 0.0
        if self.parent is not None:
            self.parent.backpropagate(winner)

    def best_child(self, c: float = 1.4) -> NaiveNode:
        """UCB1 over the children, with NumPy."""
        weights = [ch.wins / ch.visits + c * np.sqrt(np.log(self.visits) / ch.visits) for ch in self.children]
        return self.children[int(np.argmax(weights))]

    def tree_policy(self) -> NaiveNode:
        """Select and expand."""
        node = self
        while not node.state.is_game_over():
            if node.untried:
                return node.expand()
            node = node.best_child()
        return node


def naive_uct(iterations: int, seed: int = 0) -> NaiveNode:
    """Run the tutorial UCT from the empty board; returns the root."""
    root = NaiveNode(NaiveBoard(), random.Random(seed))
    for _ in range(iterations):
        leaf = root.tree_policy()
        leaf.backpropagate(leaf.rollout())
    return root
