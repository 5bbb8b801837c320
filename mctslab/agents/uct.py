"""UCT: Monte Carlo Tree Search with UCB1 at every node (Kocsis and Szepesvari 2006).

Each iteration is the four steps of Bradberry 2015, in four named methods:

1. :meth:`UCT.select`: from the root, follow the child with the highest UCB1 value
   (the agent's :attr:`UCT.rule`, maximised by :meth:`UCT.select_child`) while the node
   is fully expanded;
2. :meth:`UCT.expand`: add one new child for an untried move, chosen at random;
3. :meth:`UCT.simulate`: play random moves from the new node to the end of the game;
4. :meth:`UCT.backpropagate`: add the result to every node on the path (:meth:`Node.add`).

The UCB1 formula is :func:`mctslab.ucb.ucb1`, the same function the bandit notebook
teaches. Rewards are 1 for a win, 0.5 for a draw and 0 for a loss.

Variants (UCB1-Tuned, PUCT, MCTS-Solver, RAVE, a student's own rule) subclass
:class:`UCT` and override named parts, never the loop: the node class
(:attr:`UCT.node_class`), the selection rule (:attr:`UCT.rule_class`, a
:class:`~mctslab.agents.rules.SelectionRule`, or the whole choice
:meth:`UCT.select_child`) and the steps themselves. The recorder and the
pictures of :mod:`mctslab.viz` read the agent's own rule, so a variant is drawn as is.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from math import floor, inf, log, sqrt
from typing import Any

from ..engine import check_engine, check_parallel, check_threads
from ..engine.backend import check_virtual_loss
from ..engine.tree import MAX_VISITS, check_tree_fits
from ..games.base import Game, State
from ..games.kinds import CHANCE, CLASSIC, TWO_PLAYERS, WITH_CHANCE
from ..seeding import Seed
from ..specs import to_bool
from ..ucb import SQRT2
from .base import Agent, Analysis, MoveStat, Param, check_bool, check_optional_positive_int, legal_or_raise
from .checks import check_c, check_final, check_seconds, overridden
from .compiled import analyse as analyse_compiled
from .compiled import search_root
from .node import Node
from .playouts import check_playout, policy_rollout
from .registry import register_agent
from .rules import UCB1, SelectionRule, best_child_by, descend, pair_node_with_rule

__all__ = ["UCT", "VARIANT_PARAMS", "Node", "check_c", "check_final", "check_seconds"]


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


ENGINE_PARAMS = ("engine", "threads", "parallel", "virtual_loss")
"""How :class:`UCT` searches (which engine, how many threads, how they share): a subclass that does
not declare one of them in its ``params`` refuses a value other than UCT's default (its spec could not say it)."""


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
            faster, on the games that declare a kernel
            (:meth:`~mctslab.games.base.Game.compiled`); then :meth:`search`
            returns a read-only view of the arrays that reads like :class:`Node`
            (:class:`~mctslab.agents.compiled.CompiledNode`).
        threads: search with K threads at once (default 1: one search, today's
            results), K seeds drawn from the agent's generator; Chaslot, Winands and van
            den Herik 2008's parallelizations, chosen by ``parallel``. Not with ``reuse``.
        parallel: how the K threads search:
            ``"root"``: K separate trees of the position, their root children's visits
            and wins summed, the move chosen by the summed visits; the budget is per
            tree (``iterations`` in each, K times the playouts; ``seconds`` the wall time
            of the move); seeded results repeat exactly. With ``engine="python"`` the K
            searches run in K processes (the same sums as K separate seeded searches).
            ``"tree"`` (compiled): one tree searched by K threads at once, with
            ``virtual_loss``; ``iterations`` is the total of the shared tree, ``seconds``
            the wall time. Not reproducible run to run (the threads' timing decides
            which thread reaches a node first); see :mod:`mctslab.engine.shared_tree`.
            ``"leaf"`` (compiled): one tree, each new leaf simulated K times at once by
            K threads, the K results backed up together; ``iterations`` counts leaves
            (K playouts each); seeded results repeat exactly.
        virtual_loss: ``parallel="tree"`` only: virtual visits (counted as losses) a
            thread adds to every node of its path below the root until its backup, so
            the other threads search elsewhere; >= 0 (default 1; 0: none).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).

    Raises:
        ValueError, TypeError: for a budget < 1, ``c < 0``, ``seconds <= 0`` or an
            unknown ``final``.

    Extending (OpenSpiel's ``child_selection_fn``, Ludii's selection strategies): a
    variant is a subclass that overrides named parts, and everything else (the budget,
    tree reuse, :class:`~mctslab.viz.SearchRecorder`, :func:`~mctslab.viz.draw_tree`,
    :meth:`Analysis.table <mctslab.agents.base.Analysis.table>`, the tree explorer)
    works with it unchanged and shows it under its own rule's name:

    * :attr:`rule_class`: the selection rule, a :class:`~mctslab.agents.rules.SelectionRule`
      (``name``, ``value(parent, child)``, ``exploration(parent, child)``); the agent
      holds one as :attr:`rule` (built with its ``c``);
    * :attr:`node_class`: the class of every node created (a subclass of :class:`Node`
      with extra ``__slots__``, whose :meth:`Node.add` keeps the statistics the rule needs);
    * :meth:`select_child`: the whole choice of one child, for rules that are not an
      argmax of a per-child score;
    * :meth:`expand`, :meth:`simulate`, :meth:`backpropagate`: the other steps.

    Example: UCB1-Tuned (Auer et al. 2002), with a node that keeps the sum of squared
    rewards:

    >>> class TunedNode(Node):
    ...     __slots__ = ("squares",)
    ...     def __init__(self, *args, **kwargs):
    ...         super().__init__(*args, **kwargs)
    ...         self.squares = 0.0
    ...     def add(self, reward):
    ...         super().add(reward)
    ...         self.squares += reward**2
    >>> class TunedRule(SelectionRule):
    ...     name = "UCB1-Tuned"
    ...     def value(self, parent, child):
    ...         if child.visits == 0:
    ...             return inf
    ...         log_n = log(parent.visits) if parent.visits > 1 else 0.0
    ...         var = child.squares / child.visits - child.mean**2 + sqrt(2 * log_n / child.visits)
    ...         return child.mean + sqrt(log_n / child.visits * min(0.25, var))
    >>> class UCB1Tuned(UCT):
    ...     node_class = TunedNode
    ...     rule_class = TunedRule
    >>> from mctslab import make_game
    >>> game = make_game("tictactoe")
    >>> UCB1Tuned(iterations=200, seed=0).select_move(game, game.initial_state()) in range(9)
    True
    """

    name = "uct"
    handles = frozenset({TWO_PLAYERS, WITH_CHANCE})  # chance nodes: outcomes sampled (python engine)
    params = (
        Param("iterations", int, None, check_optional_positive_int, "playouts per move", show="always"),
        Param("seconds", float, None, check_seconds, "time per move, in seconds"),
        Param("c", float, SQRT2, check_c, "exploration constant of UCB1"),
        Param("max_moves", int, None, check_optional_positive_int, "cap on playout length (cut short: a draw)"),
        Param("final", str, "visits", check_final, "the move played: most visits, or best mean"),
        Param("reuse", to_bool, False, check_bool, "keep the subtree between moves"),
        Param("playout", str, "random", check_playout, "playout policy: random, decisive, antidecisive"),
        Param("engine", str, "python", check_engine, "python, or compiled (Numba: pip install mctslab[fast])"),
        Param(
            "threads", int, 1, check_threads,
            "threads searching at once (iterations: per tree for root, in all for tree, leaves for leaf)",
        ),
        Param(
            "parallel", str, "root", check_parallel,
            "how threads search: root (K trees, visits summed), tree (one shared tree), leaf (K playouts per leaf)",
            show=lambda agent: agent.threads > 1,
        ),
        Param(
            "virtual_loss", int, 1, check_virtual_loss,
            "parallel=tree: virtual losses a thread adds to each node of its path",
        ),
    )  # fmt: skip

    node_class: type[Node] = Node
    """The class of the tree's nodes: :meth:`new_root` and :meth:`expand` create every
    node with ``node_class(state, player, move, parent)``. A subclass of :class:`Node`
    adds ``__slots__`` for what its rule needs and initialises them in ``__init__``."""

    rule_class: type[SelectionRule] = UCB1
    """The selection rule's class: :attr:`rule` is ``rule_class(c)``. A variant names its
    own :class:`~mctslab.agents.rules.SelectionRule` subclass here."""

    # Methods a variant once overrode, now parts of the rule: a subclass that still
    # defines one is told at once where its code goes (rather than silently ignored).
    _MOVED_TO_RULE = {
        "child_value": "value(parent, child)",
        "child_exploration": "exploration(parent, child)",
        "rule_name": "name",
    }

    _chance_game: Game | None = None
    """The game searched, if it has chance nodes (set by :meth:`new_root`); ``None`` otherwise."""
    _drawn: int | None = None
    """The outcome selection drew at a chance node without its child, for :meth:`expand`."""

    _plain_ucb1 = True
    """Whether :meth:`select` may run its inlined UCB1 (set for each class when it is made)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for old, new in UCT._MOVED_TO_RULE.items():
            if old in vars(cls):
                raise TypeError(
                    f"{cls.__name__}.{old}: the selection rule is an object now; write a "
                    f"mctslab.agents.rules.SelectionRule subclass with {new} and set rule_class on {cls.__name__}"
                )
        pair_node_with_rule(cls.node_class, cls.rule_class)  # a tree drawn alone still names its rule
        changed = [name for name in UCT.CHANCE_PARTS if getattr(cls, name) is not getattr(UCT, name)]
        if changed and "handles" not in vars(cls):  # its own steps may not know chance nodes: it says if they do
            cls.handles = CLASSIC
        # Decided once per class, so that selection, run every iteration, asks one question.
        cls._plain_ucb1 = cls.rule_class is UCB1 and cls.rule is UCT.rule and cls.select_child is UCT.select_child

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
        threads: int = 1,
        parallel: str = "root",
        virtual_loss: int = 1,
    ) -> None:
        super().__init__(seed)
        if iterations is None and seconds is None:
            iterations = 1000
        self.set_params(
            iterations=iterations, c=c, seconds=seconds, max_moves=max_moves, final=final, reuse=reuse, playout=playout
        )
        self.set_params(UCT, engine=engine, threads=threads, parallel=parallel, virtual_loss=virtual_loss)
        declared = {p.name for p in type(self).params}
        for name in ENGINE_PARAMS:  # what the agent plays with is in its spec, or refused here
            value = getattr(self, name)
            if name not in declared and value != UCT.param(name).default:
                raise ValueError(
                    f"{name}={value}: agent {self.name!r} does not declare {name}, so its spec could not say it"
                    f" plays with it; leave {name} out, or declare it (params = (*VARIANT_PARAMS, UCT.param({name!r})))"
                )
        if self.threads > 1 and engine != "compiled" and self.parallel != "root":
            raise ValueError(
                f"parallel={self.parallel} with engine={engine}: threads share a tree in the compiled engine only;"
                " use engine=compiled, or parallel=root (K searches in K processes)"
            )
        if self.virtual_loss != 1 and (self.threads == 1 or self.parallel != "tree"):
            raise ValueError(
                f"virtual_loss={self.virtual_loss} is used only by tree parallelism; add threads=K (K > 1) and"
                " parallel=tree, or leave virtual_loss out"
            )
        if self.threads > 1 and self.reuse:
            raise ValueError(
                f"reuse=True with threads={self.threads}: a parallel search starts a fresh tree every move;"
                " use reuse=False, or threads=1"
            )
        if engine == "compiled" and self.playout != "random":
            raise ValueError(
                f"playout={self.playout}: the compiled engine plays random playouts only; use engine=python"
            )
        if engine == "compiled":
            self._check_compiled_budget()
        self._previous: tuple[Game, Node] | None = None

    @property
    def rule(self) -> SelectionRule:
        """The selection rule this agent searches by: ``rule_class(c)`` (UCB1 for UCT).

        Built from the agent's ``c`` when asked, so it follows a change of ``c``. The
        recorder, :func:`~mctslab.viz.draw_tree` (``rule=agent.rule``) and
        :meth:`Analysis.table <mctslab.agents.base.Analysis.table>` show its name.
        """
        return self.rule_class(self.c)

    # -- the four steps ------------------------------------------------------------
    def select_child(self, node: Node) -> Node:
        """One step of selection: the child of ``node`` with the highest ``rule.value``.

        Ties go to the first such child in ``node.children`` (creation order). Override
        it for a choice that is not an argmax of a per-child score.

        Args:
            node: a fully expanded node with at least one child.
        """
        return best_child_by(self.rule, node)

    def select(self, node: Node) -> tuple[Node, int]:
        """Step 1: descend to the child with the highest :attr:`rule` value while the node is fully expanded.

        Plain UCT runs an inlined copy of UCB1 (the same choices, a faster loop); an
        agent with another :attr:`rule_class` (or its own :meth:`select_child`) asks
        its rule at every step, so a new rule is used without overriding this method.

        Returns:
            The node where selection stops (not fully expanded, or terminal) and its
            depth below ``node``.
        """
        if self._chance_game is not None:  # searching a game with chance (set by new_root)
            return self.select_through_chance(self._chance_game, node)
        if not self._plain_ucb1:
            if type(self).select_child is not UCT.select_child:  # a variant's own choice of one child
                return descend(node, self.select_child)
            rule = self.rule  # a variant's own rule, built once per descent
            return descend(node, lambda parent: best_child_by(rule, parent))
        c, depth = self.c, 0
        while not node.untried and node.children:
            # UCB1(mean, N, n, c) = mean + c * sqrt(ln N / n), written out as
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
        """Step 2: add one child (a :attr:`node_class`) for a random untried move; a terminal node is returned as is.

        At a chance node, the child of the outcome that selection drew (an outcome's node
        keeps the statistics of the player who rolled: its ``player`` is the chance node's).
        """
        if game.has_chance and game.to_move(node.state) == CHANCE:
            move, self._drawn = self._drawn, None
            child = self.node_class(game.apply(node.state, move), node.player, move, node)
            node.children = [*node.children, child]
            return child
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
        """Step 4: every node from ``node`` up to the root adds its player's reward (:meth:`Node.add`)."""
        while node is not None:
            node.add(returns[node.player])
            node = node.parent

    def iterate(self, game: Game, root: Node) -> int:
        """One iteration of the four steps; returns the depth of the node simulated from.

        In a game with chance (:attr:`Game.has_chance`) selection goes through chance nodes
        (:meth:`select_through_chance`) and expansion may add an outcome (:meth:`expand`).
        """
        leaf, depth = self.select(root)
        node = self.expand(game, leaf)
        if node is not leaf:
            depth += 1
        self.backpropagate(node, self.simulate(game, node))
        return depth

    def select_through_chance(self, game: Game, node: Node) -> tuple[Node, int]:
        """Step 1 in a game with chance: descend by the :attr:`rule`, drawing an outcome at each chance node.

        At a chance node (``to_move`` is :data:`CHANCE`) the children are the outcomes: one is
        drawn with its probability (:meth:`Game.chance_move`) and followed if it has a node;
        if not, selection stops there and :meth:`expand` adds the drawn outcome's node. A
        player's node is left as in :meth:`select`: by the rule while fully expanded.

        Returns:
            The node where selection stops and its depth below ``node``.
        """
        if type(self).select_child is not UCT.select_child:
            pick = self.select_child
        else:
            rule = self.rule
            pick = lambda parent: best_child_by(rule, parent)  # noqa: E731
        depth = 0
        while True:
            if game.to_move(node.state) == CHANCE:
                move = game.chance_move(node.state, self.rng)
                child = next((ch for ch in node.children if ch.move == move), None)
                if child is None:
                    self._drawn = move
                    return node, depth
            elif not node.untried and node.children:
                child = pick(node)
            else:
                return node, depth
            node = child
            depth += 1

    # -- searching -----------------------------------------------------------------
    def new_root(self, game: Game, state: State) -> Node:
        """A fresh root (a :attr:`node_class`) for ``state``; ``player`` is the opponent of the player to move.

        Also tells :meth:`select` whether this search goes through chance nodes.
        """
        self._search_game(game)
        return self.node_class(state, 1 - game.to_move(state))

    def _search_game(self, game: Game) -> None:
        """Remember ``game`` for :meth:`select` if it has chance (``None`` otherwise)."""
        self._chance_game = game if game.has_chance else None

    def search(self, game: Game, state: State) -> Node:
        """Run the search from ``state`` within the budget and return the root of the tree.

        With ``engine="compiled"`` the root is a :class:`~mctslab.agents.compiled.CompiledNode`,
        a view of the engine's arrays with the attributes of :class:`Node` (with ``threads``
        above 1 and ``parallel="root"``, on either engine, a :class:`Node` of one level
        holding the trees' summed root statistics).
        """
        threads = getattr(self, "threads", 1)  # a variant has no threads
        if self.engine == "compiled" and threads == 1 and type(self).analyse is UCT.analyse and not game.has_chance:
            return search_root(self, game, state)  # analyse's root, without its final move and statistics
        if self.engine == "compiled" or threads > 1:
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
        self._search_game(game)
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
            if game.has_chance:
                raise ValueError(f"engine=compiled cannot play {game.spec}: it has chance nodes; use engine=python")
            return analyse_compiled(self, game, state)
        if getattr(self, "threads", 1) > 1:  # root parallelism on the python engine: K searches in K processes
            from .processes import analyse_in_processes

            return analyse_in_processes(self, game, state)
        # With a time budget the collector stays paused until the decision is made, so a
        # full collection deferred by the search is not paid inside this move's clock.
        with _collector_paused() if self.seconds is not None else contextlib.nullcontext():
            root, max_depth, done = self._run(game, state)
            best = self.best_child(root)
            return Analysis(
                best.move, self.move_stats(root), iterations=done, max_depth=max_depth, root=root, rule=self.rule.name
            )

    def move_stats(self, root: Node) -> tuple[MoveStat, ...]:
        """Per-child statistics of ``root``, in move order: visits, mean and the rule's exploration term.

        For plain UCT this is ``root.move_stats(c)`` (UCB1's exploration term).
        """
        rule = self.rule
        return tuple(
            MoveStat(ch.move, ch.visits, ch.mean, exploration=rule.exploration(root, ch))
            for ch in sorted(root.children, key=lambda ch: ch.move)
        )

    CHANCE_PARTS = ("select", "expand", "simulate", "backpropagate", "iterate", "new_root", "select_through_chance")
    """The steps a search through chance nodes runs: a variant that changes one plays games without chance
    only (its :attr:`handles` is :data:`~mctslab.games.kinds.CLASSIC`) unless it declares ``handles`` itself."""

    COMPILED_PARTS = (
        "node_class", "rule_class", "rule", "select_child", "select", "pop_untried", "expand", "simulate",
        "backpropagate", "iterate",
    )  # fmt: skip
    """The parts of UCT the compiled engine runs as UCT's own: a class that changes one searches with engine=python."""

    def check_compiled(self) -> None:
        """Raise a one-line ValueError if this agent asks the compiled engine for what it cannot run.

        The compiled engine (:mod:`mctslab.engine`) runs plain UCT with random playouts:
        no part named in :attr:`COMPILED_PARTS` may differ from UCT's.
        """
        changed = overridden(type(self), UCT, self.COMPILED_PARTS)
        if changed:
            raise ValueError(
                f"{type(self).__name__} overrides {', '.join(changed)}: the compiled engine runs plain UCT only;"
                " use engine=python"
            )
        if self.playout != "random":
            raise ValueError(
                f"playout={self.playout}: the compiled engine plays random playouts only; use engine=python"
            )
        self._check_compiled_budget()

    def _check_compiled_budget(self) -> None:
        if self.iterations is not None and self.iterations > MAX_VISITS:
            raise ValueError(
                f"iterations={self.iterations}: the compiled engine counts in 32 bits, up to {MAX_VISITS}"
                " iterations per search; use fewer, or engine=python"
            )
        if self.iterations is not None and self.seconds is None:  # a clock bounds the tree too: not refused
            root = getattr(self, "threads", 1) > 1 and getattr(self, "parallel", "root") == "root"
            check_tree_fits(self.iterations, trees=self.threads if root else 1)

    def reset(self) -> None:
        """Forget the kept tree (call between games when ``reuse`` is on)."""
        self._previous = None
        self._compiled_previous = None


VARIANT_PARAMS = tuple(p for p in UCT.params if p.name not in ("engine", "parallel", "virtual_loss"))
"""The parameters a variant of UCT inherits (``params = VARIANT_PARAMS`` or an extension of it):
all of UCT's but ``engine``, ``parallel`` and ``virtual_loss``. ``threads`` is one of them: a
variant searches ``threads=K`` trees in K processes (root parallelism), and its spec says so. The
compiled engine runs plain UCT and the variants that declare ``engine`` themselves
(:class:`~mctslab.agents.solver.Solver`, :class:`~mctslab.agents.rave.Rave`), and a shared tree
(``parallel``, ``virtual_loss``) is plain UCT's: a variant that does not declare one of them is
refused a value other than UCT's default, in one line, when it is made (its spec could not name it)."""
