"""UCT: Monte Carlo Tree Search with UCB1 at every node (Kocsis and Szepesvari 2006).

Each iteration is the four steps of Bradberry 2015, in four named methods:

1. :meth:`UCT.select`: from the root, follow the child with the highest UCB1 value
   (:meth:`UCT.child_value`, maximised by :meth:`UCT.select_child`) while the node is
   fully expanded;
2. :meth:`UCT.expand`: add one new child for an untried move, chosen at random;
3. :meth:`UCT.simulate`: play random moves from the new node to the end of the game;
4. :meth:`UCT.backpropagate`: add the result to every node on the path.

The UCB1 formula is :func:`mctslab.ucb.ucb1`, the same function the bandit notebook
teaches. Rewards are 1 for a win, 0.5 for a draw and 0 for a loss.

Variants (UCB1-Tuned, PUCT, MCTS-Solver, RAVE, a student's own rule) subclass
:class:`UCT` and override named parts, never the loop: the node class
(:attr:`UCT.node_class`), the selection rule (:meth:`UCT.child_value`, or the whole
choice :meth:`UCT.select_child`) and the steps themselves. The recorder and the
pictures of :mod:`mctslab.viz` read the agent's own rule, so a variant is drawn as is.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from math import floor, inf, log, sqrt

from ..engine import check_engine
from ..games.base import Game, State
from ..seeding import Seed
from ..specs import to_bool
from ..ucb import SQRT2, exploration, ucb1
from ..validation import non_negative_number, optional, positive_number
from .base import Agent, Analysis, MoveStat, Param, check_bool, check_optional_positive_int, legal_or_raise
from .playouts import check_playout, policy_rollout
from .registry import register_agent


def check_c(name: str, c: float) -> float:
    """The exploration constant as a finite float >= 0 (TypeError for a non-number, ValueError otherwise)."""
    return non_negative_number(name, c, finite=True, hint=" (the exploration constant)")


def check_seconds(name: str, seconds: float | None) -> float | None:
    """``None``, or a finite time budget > 0 in seconds (TypeError for a non-number, ValueError otherwise)."""
    return optional(positive_number, name, seconds, finite=True, hint=" (seconds per move)")


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a timed search (restored after, even on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def check_final(name: str, final: str) -> str:
    """``"visits"`` or ``"mean"`` (ValueError otherwise)."""
    if final not in ("visits", "mean"):
        raise ValueError(f"{name} must be 'visits' or 'mean', got {final!r}")
    return final


class Node:
    """One node of the UCT tree: the position reached by ``move`` from ``parent``.

    Point of view: ``wins`` is the total reward (1 win, 0.5 draw, 0 loss) of the
    playouts through this node **for** ``player``, **the player who made** ``move``,
    that is, the player to move at the parent. So when the parent chooses among its
    children, ``child.wins / child.visits`` is the chooser's own mean reward, and no
    sign is ever flipped. At the root (no move), ``player`` is the opponent of the
    player to move, so the root's mean is the opponent's.

    Attributes:
        move: the move from the parent (``None`` at the root).
        parent: the parent node (``None`` at the root).
        state: the position at this node.
        player: the player who made ``move`` (0 or 1).
        children: the expanded children, in the order they were added (an empty
            tuple until the first one, so that the many leaves carry no list).
        untried: legal moves not yet expanded; ``None`` until the node is first
            reached as a leaf (children are created lazily, one per iteration).
        visits: number of playouts through this node.
        wins: total reward of those playouts for ``player``.
        mean: ``wins / visits``, the mean reward for ``player`` (0.5 before any
            visit); kept up to date by backpropagation so selection need not divide.
        inv_sqrt: ``1 / sqrt(visits)`` (infinite before any visit), also kept by
            backpropagation: selection scores every child of a node, so the square
            root is taken once per visit instead of once per child per iteration.
    """

    __slots__ = ("move", "parent", "state", "player", "children", "untried", "visits", "wins", "mean", "inv_sqrt")

    def __init__(self, state: State, player: int, move: int | None = None, parent: Node | None = None) -> None:
        self.state = state
        self.player = player
        self.move = move
        self.parent = parent
        self.children: list[Node] | tuple[()] = ()
        self.untried: list[int] | None = None
        self.visits = 0
        self.wins = 0.0
        self.mean = 0.5
        self.inv_sqrt = inf

    def child(self, move: int) -> Node:
        """The child reached by ``move``.

        Raises:
            KeyError: if that move has not been expanded.
        """
        for ch in self.children:
            if ch.move == move:
                return ch
        raise KeyError(f"move {move} has no node here; expanded moves: {[ch.move for ch in self.children]}")

    def iter_nodes(self) -> Iterator[Node]:
        """This node and all its descendants, depth first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def size(self) -> int:
        """Number of nodes in this subtree, this node included."""
        return sum(1 for _ in self.iter_nodes())

    def height(self) -> int:
        """Depth of the deepest descendant, in plies below this node (0 for a leaf)."""
        best, stack = 0, [(self, 0)]
        while stack:
            node, depth = stack.pop()
            best = max(best, depth)
            stack.extend((ch, depth + 1) for ch in node.children)
        return best

    def move_stats(self, c: float = SQRT2) -> tuple[MoveStat, ...]:
        """Per-child statistics, in move order: visits, mean and the UCB1 exploration term."""
        return tuple(
            MoveStat(ch.move, ch.visits, ch.mean, exploration=exploration(self.visits, ch.visits, c))
            for ch in sorted(self.children, key=lambda ch: ch.move)
        )

    def __repr__(self) -> str:
        return f"Node(move={self.move}, player={self.player}, wins={self.wins:g}, visits={self.visits})"


@register_agent
class UCT(Agent):
    """Monte Carlo Tree Search with the UCB1 tree policy (UCT).

    Args:
        iterations: playouts per move, >= 1 (default 1000; unlimited when ``seconds``
            is given and ``iterations`` is not).
        c: exploration constant of :func:`mctslab.ucb.ucb1`, >= 0 (default sqrt(2)).
        seconds: wall-clock budget per move, > 0 (for play; tests use iterations).
        max_moves: cap on playout length (Bradberry 2015's ``max_moves``); a playout cut
            short counts as a draw. ``None`` plays to the end.
        final: ``"visits"`` plays the most visited child (ties: higher mean),
            ``"mean"`` the child with the highest mean (ties: more visits).
        reuse: keep the subtree of the position reached between this agent's moves
            in one game, instead of starting each search from scratch.
        playout: ``"random"`` (the game's rollout), ``"decisive"`` or ``"antidecisive"``
            (:mod:`mctslab.agents.playouts`: play a win in one; also avoid a loss in one).
        engine: ``"python"`` (this module) or ``"compiled"``: the same algorithm on
            :mod:`mctslab.engine` (Numba, ``pip install "mctslab[fast]"``), many times
            faster; then :meth:`search` returns a :class:`~mctslab.engine.CompiledTree`.
        seed: randomness (see :func:`mctslab.seeding.make_rng`).

    Raises:
        ValueError, TypeError: for a budget < 1, ``c < 0``, ``seconds <= 0`` or an
            unknown ``final``.

    Extending (OpenSpiel's ``child_selection_fn``, Ludii's selection strategies): a
    variant is a subclass that overrides named parts, and everything else (the budget,
    tree reuse, :class:`~mctslab.viz.SearchRecorder`, :func:`~mctslab.viz.draw_iteration`,
    the tree explorer) works with it unchanged:

    * :attr:`node_class`: the class of every node created (a subclass of :class:`Node`
      with extra ``__slots__``), for statistics the rule needs;
    * :meth:`child_value`: the score a parent maximises over its children (UCB1 here);
      overriding it alone changes the choice (see :meth:`select`);
    * :meth:`select_child`: the whole choice of one child, for rules that are not an
      argmax of a per-child score;
    * :meth:`expand`, :meth:`simulate`, :meth:`backpropagate`: the other three steps
      (a new node statistic is kept up to date by extending :meth:`backpropagate`);
    * :attr:`rule_name`: the rule's name in pictures and descriptions.

    Example: UCB1-Tuned (Auer et al. 2002), with a node that keeps the sum of squared
    rewards:

    >>> class TunedNode(Node):
    ...     __slots__ = ("squares",)
    ...     def __init__(self, *args, **kwargs):
    ...         super().__init__(*args, **kwargs)
    ...         self.squares = 0.0
    >>> class UCB1Tuned(UCT):
    ...     node_class = TunedNode
    ...     rule_name = "UCB1-Tuned"
    ...     def child_value(self, parent, child):
    ...         log_n = log(parent.visits) if parent.visits > 1 else 0.0
    ...         var = child.squares / child.visits - child.mean**2 + sqrt(2 * log_n / child.visits)
    ...         return child.mean + sqrt(log_n / child.visits * min(0.25, var))
    ...     def backpropagate(self, node, returns):
    ...         super().backpropagate(node, returns)
    ...         while node is not None:
    ...             node.squares += returns[node.player] ** 2
    ...             node = node.parent
    >>> from mctslab import make_game
    >>> game = make_game("tictactoe")
    >>> UCB1Tuned(iterations=200, seed=0).select_move(game, game.initial_state()) in range(9)
    True
    """

    name = "uct"
    params = (
        Param("iterations", int, None, check_optional_positive_int, "playouts per move", show="always"),
        Param("seconds", float, None, check_seconds, "time per move, in seconds"),
        Param("c", float, SQRT2, check_c, "exploration constant of UCB1"),
        Param("max_moves", int, None, check_optional_positive_int, "cap on playout length (cut short: a draw)"),
        Param("final", str, "visits", check_final, "the move played: most visits, or best mean"),
        Param("reuse", to_bool, False, check_bool, "keep the subtree between moves"),
        Param("playout", str, "random", check_playout, "playout policy: random, decisive, antidecisive"),
        Param("engine", str, "python", check_engine, "python, or compiled (Numba: pip install mctslab[fast])"),
    )

    node_class: type[Node] = Node
    """The class of the tree's nodes: :meth:`new_root` and :meth:`expand` create every
    node with ``node_class(state, player, move, parent)``. A subclass of :class:`Node`
    adds ``__slots__`` for what its rule needs and initialises them in ``__init__``."""

    rule_name: str = "UCB1"
    """The name of the selection rule :meth:`child_value`, as pictures and the
    recorder's descriptions show it (a subclass with its own rule names it)."""

    def __init__(
        self,
        iterations: int | None = None,
        c: float = SQRT2,
        seconds: float | None = None,
        max_moves: int | None = None,
        final: str = "visits",
        reuse: bool = False,
        playout: str = "random",
        seed: Seed = None,
        engine: str = "python",
    ) -> None:
        super().__init__(seed)
        if iterations is None and seconds is None:
            iterations = 1000
        self.set_params(
            iterations=iterations, c=c, seconds=seconds, max_moves=max_moves, final=final, reuse=reuse, playout=playout
        )
        self.set_params(UCT, engine=engine)
        if engine == "compiled" and self.playout != "random":
            raise ValueError(
                f"playout={self.playout}: the compiled engine plays random playouts only; use engine=python"
            )
        self._previous: tuple[Game, Node] | None = None

    # -- the four steps ------------------------------------------------------------
    def child_value(self, parent: Node, child: Node) -> float:
        """The selection rule: the score of ``child`` that ``parent`` maximises.

        UCT's rule is UCB1, :func:`mctslab.ucb.ucb1` ``mean + c * sqrt(ln N / n)`` with
        ``mean`` the child's mean reward for the player choosing at ``parent``, ``N`` the
        parent's visits and ``n`` the child's (``inf`` for an unvisited child). Override
        it in a subclass to search by another rule: :meth:`select` then calls it.

        Args:
            parent: the node choosing (fully expanded, visited).
            child: one of its children; ``child.mean`` and ``child.visits`` are kept up
                to date by :meth:`backpropagate`.

        Returns:
            The score; the child with the highest is chosen (the first one on a tie).
        """
        return ucb1(child.mean, parent.visits, child.visits, self.c)

    def child_exploration(self, parent: Node, child: Node) -> float:
        """The part of :meth:`child_value` that is not the child's mean, as pictures show it.

        For UCB1 it is the exploration term ``c * sqrt(ln N / n)``
        (:func:`mctslab.ucb.exploration`); for a rule a subclass defines, it is
        ``child_value(parent, child) - child.mean`` unless the subclass overrides this too.
        """
        if type(self).child_value is UCT.child_value:
            return exploration(parent.visits, child.visits, self.c)
        return self.child_value(parent, child) - child.mean

    def select_child(self, node: Node) -> Node:
        """One step of selection: the child of ``node`` with the highest :meth:`child_value`.

        Ties go to the first such child in ``node.children`` (creation order). Override
        it for a choice that is not an argmax of a per-child score.

        Args:
            node: a fully expanded node with at least one child.
        """
        return max(node.children, key=lambda child: self.child_value(node, child))

    def select(self, node: Node) -> tuple[Node, int]:
        """Step 1: descend by :meth:`select_child` while the node is fully expanded.

        Plain UCT runs an inlined copy of UCB1 (the same choices, a faster loop); an
        agent whose class overrides :meth:`child_value` or :meth:`select_child` calls
        them at every step, so a new rule is used without overriding this method.

        Returns:
            The node where selection stops (not fully expanded, or terminal) and its
            depth below ``node``.
        """
        cls = type(self)
        if cls.child_value is not UCT.child_value or cls.select_child is not UCT.select_child:
            depth = 0
            while not node.untried and node.children:
                node = self.select_child(node)
                depth += 1
            return node, depth
        c, depth = self.c, 0
        while not node.untried and node.children:
            # mctslab.ucb1(mean, N, n, c) = mean + c * sqrt(ln N / n), written out as
            # mean + (c * sqrt(ln N)) * (1 / sqrt(n)): the first factor once per node, the
            # second kept on each child (Node.inv_sqrt). Ties go to the first best child.
            scale = c * sqrt(log(node.visits))
            best_value = -inf
            for child in node.children:
                value = child.mean + scale * child.inv_sqrt
                if value > best_value:
                    best, best_value = child, value
            node = best
            depth += 1
        return node, depth

    def pop_untried(self, game: Game, node: Node) -> int | None:
        """Remove one of ``node``'s untried moves, chosen at random, and return it (``None`` if none is left).

        The untried moves are listed the first time (:attr:`Node.untried`); the chosen one is
        swapped with the last and popped, so each call costs one random number.
        """
        if node.untried is None:
            node.untried = list(game.legal_moves(node.state))
        untried = node.untried
        if not untried:
            return None
        i = floor(self.rng.random() * len(untried))
        move = untried[i]
        untried[i] = untried[-1]
        untried.pop()
        return move

    def expand(self, game: Game, node: Node) -> Node:
        """Step 2: add one child (a :attr:`node_class`) for a random untried move; a terminal node is returned as is."""
        move = self.pop_untried(game, node)
        if move is None:
            return node
        child = self.node_class(game.apply(node.state, move), game.to_move(node.state), move, node)
        if node.children:
            node.children.append(child)
        else:
            node.children = [child]
        return child

    def simulate(self, game: Game, node: Node) -> tuple[float, float]:
        """Step 3: a random playout from ``node`` (or the ``playout`` policy's); returns per player."""
        if self.playout != "random":
            return policy_rollout(game, node.state, self.rng, self.max_moves, self.playout).returns
        return game.rollout(node.state, self.rng, self.max_moves)

    def backpropagate(self, node: Node, returns: tuple[float, float]) -> None:
        """Step 4: every node from ``node`` up to the root gets a visit and its player's reward."""
        while node is not None:
            node.visits += 1
            node.wins += returns[node.player]
            node.mean = node.wins / node.visits
            node.inv_sqrt = 1 / sqrt(node.visits)
            node = node.parent

    def iterate(self, game: Game, root: Node) -> int:
        """One iteration of the four steps; returns the depth of the node simulated from."""
        leaf, depth = self.select(root)
        node = self.expand(game, leaf)
        if node is not leaf:
            depth += 1
        self.backpropagate(node, self.simulate(game, node))
        return depth

    # -- searching -----------------------------------------------------------------
    def new_root(self, game: Game, state: State) -> Node:
        """A fresh root (a :attr:`node_class`) for ``state``; ``player`` is the opponent of the player to move."""
        return self.node_class(state, 1 - game.to_move(state))

    def search(self, game: Game, state: State) -> Node:
        """Run the search from ``state`` within the budget and return the root of the tree."""
        if self.engine == "compiled":
            return self.analyse(game, state).root
        return self._run(game, state)[0]

    def _reusable(self, game: Game, state: State) -> Node | None:
        """The node for ``state`` in the previous tree (within two plies), detached, or None."""
        if not self.reuse or self._previous is None or self._previous[0] != game:
            return None
        frontier = [self._previous[1]]
        for _ in range(3):
            for node in frontier:
                if node.state == state:
                    node.parent = None
                    node.move = None
                    return node
            frontier = [ch for node in frontier for ch in node.children]
        return None

    def _run(self, game: Game, state: State) -> tuple[Node, int, int]:
        legal_or_raise(game, state)
        root = self._reusable(game, state) or self.new_root(game, state)
        max_depth = done = 0
        if self.seconds is None:
            for _ in range(self.iterations):
                max_depth = max(max_depth, self.iterate(game, root))
            done = self.iterations
        else:
            limit = self.iterations
            # The cyclic garbage collector is paused while the clock runs: a full collection
            # walks the whole (reused) tree, 0.1-0.25 s in one piece, which overshot a 1 s
            # budget by up to 43%. Nothing searched here is garbage; it is collected after.
            with _collector_paused():
                deadline = time.perf_counter() + self.seconds
                # At least one iteration, so there is always a move to return.
                while done == 0 or (time.perf_counter() < deadline and (limit is None or done < limit)):
                    max_depth = max(max_depth, self.iterate(game, root))
                    done += 1
        if self.reuse:
            self._previous = (game, root)
        return root, max_depth, done

    def best_child(self, root: Node) -> Node:
        """The child to play: most visited (``final="visits"``) or highest mean (``"mean"``)."""
        if self.final == "visits":
            return max(root.children, key=lambda ch: (ch.visits, ch.mean))
        return max(root.children, key=lambda ch: (ch.mean, ch.visits))

    def analyse(self, game: Game, state: State) -> Analysis:
        """Search, then return the final move with per-move statistics, depth and the tree."""
        if self.engine == "compiled":
            from ..engine.agent import analyse

            return analyse(self, game, state)
        # With a time budget the collector stays paused until the decision is made, so a
        # full collection deferred by the search is not paid inside this move's clock.
        with _collector_paused() if self.seconds is not None else contextlib.nullcontext():
            root, max_depth, done = self._run(game, state)
            best = self.best_child(root)
            return Analysis(best.move, self.move_stats(root), iterations=done, max_depth=max_depth, root=root)

    def move_stats(self, root: Node) -> tuple[MoveStat, ...]:
        """Per-child statistics of ``root``, in move order: visits, mean and :meth:`child_exploration`.

        For plain UCT this is ``root.move_stats(c)`` (UCB1's exploration term).
        """
        return tuple(
            MoveStat(ch.move, ch.visits, ch.mean, exploration=self.child_exploration(root, ch))
            for ch in sorted(root.children, key=lambda ch: ch.move)
        )

    def reset(self) -> None:
        """Forget the kept tree (call between games when ``reuse`` is on)."""
        self._previous = None
        self._compiled_previous = None


VARIANT_PARAMS = tuple(p for p in UCT.params if p.name != "engine")
"""The parameters a variant of UCT inherits (``params = VARIANT_PARAMS`` or an extension of it):
all of UCT's but ``engine``, since the compiled engine runs plain UCT only."""
