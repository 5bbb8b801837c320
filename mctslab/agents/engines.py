"""The engines a UCT agent searches with: one protocol (:class:`~mctslab.agents.protocols.SearchEngine`), three engines.

:class:`~mctslab.agents.uct.UCT` (and every variant) has one search, :meth:`UCT.analyse
<mctslab.agents.uct.UCT.analyse>` and :meth:`UCT.search <mctslab.agents.uct.UCT.search>`,
which ask the agent's engine (:attr:`UCT.search_engine <mctslab.agents.uct.UCT.search_engine>`),
chosen by its ``engine`` and ``threads``:

* :class:`PythonEngine`: the four steps of the agent, in this process (``engine="python"``);
* :class:`CompiledEngine`: the same algorithm on :mod:`mctslab.engine`'s arrays
  (``engine="compiled"``; the variant's own compiled analysis, :attr:`UCT.compiled_analysis
  <mctslab.agents.uct.UCT.compiled_analysis>`, for MCTS-Solver and RAVE);
* :class:`ProcessesEngine`: ``threads=K`` on the python engine, K searches in K processes,
  their roots summed (:mod:`mctslab.agents.processes`).

An engine reads the agent's declared parameters (``iterations``, ``seconds``, ``c``, ``reuse``...),
its generator and its public steps (``iterate``, ``new_root``, ``best_child``, ``final_move``,
``move_stats``, ``rule``), never its private fields; what it keeps between moves (the tree that
``reuse`` continues from) it keeps itself, and :meth:`SearchEngine.reset` forgets it.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from typing import Any

from ..engine import Budget
from ..games.base import Game, State
from .base import Analysis, legal_or_raise
from .compiled import analyse, search_root
from .node import Node
from .protocols import SearchEngine, Searcher

__all__ = ["CompiledEngine", "ProcessesEngine", "PythonEngine", "SearchEngine", "collector_paused"]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a timed search (restored after, even on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class PythonEngine:
    """The agent's own four steps (:meth:`UCT.iterate <mctslab.agents.uct.UCT.iterate>`) in this process.

    Attributes:
        previous: the game and root of the last search when the agent's ``reuse`` is on
            (the next search starts from the node of its position, if found), else ``None``.
    """

    def __init__(self) -> None:
        self.previous: tuple[Game, Node] | None = None

    def reset(self) -> None:
        """Forget the kept tree."""
        self.previous = None

    def _reusable(self, agent: Searcher, game: Game, state: State) -> Node | None:
        """The node for ``state`` in the previous tree (within two plies), detached, or None."""
        if not agent.reuse or self.previous is None or self.previous[0] != game:
            return None
        frontier = [self.previous[1]]
        for _ in range(3):
            for node in frontier:
                if node.state == state:
                    node.parent = None
                    node.move = None
                    return node
            frontier = [ch for node in frontier for ch in node.children]
        return None

    def run(self, agent: Searcher, game: Game, state: State) -> tuple[Node, int, int]:
        """Iterate within ``agent``'s budget from ``state``: the root, the deepest depth simulated from, iterations."""
        legal_or_raise(game, state)
        root = self._reusable(agent, game, state) or agent.new_root(game, state)
        max_depth = done = 0
        if agent.seconds is None:
            for _ in range(agent.iterations):
                max_depth = max(max_depth, agent.iterate(game, root))
            done = agent.iterations
        else:
            limit = agent.iterations
            # The cyclic garbage collector is paused while the clock runs: a full collection
            # walks the whole (reused) tree, 0.1-0.25 s in one piece, which overshot a 1 s
            # budget by up to 43%. Nothing searched here is garbage; it is collected after.
            with collector_paused():
                deadline = time.perf_counter() + agent.seconds
                # At least one iteration, so there is always a move to return.
                while done == 0 or (time.perf_counter() < deadline and (limit is None or done < limit)):
                    max_depth = max(max_depth, agent.iterate(game, root))
                    done += 1
        if agent.reuse:
            self.previous = (game, root)
        return root, max_depth, done

    def search(self, agent: Searcher, game: Game, state: State) -> Node:
        """:meth:`run`'s root."""
        return self.run(agent, game, state)[0]

    def analyse(self, agent: Searcher, game: Game, state: State) -> Analysis:
        """:meth:`run`, then the agent's final move (:meth:`UCT.final_move <mctslab.agents.uct.UCT.final_move>`)."""
        # With a time budget the collector stays paused until the decision is made, so a
        # full collection deferred by the search is not paid inside this move's clock.
        with collector_paused() if agent.seconds is not None else contextlib.nullcontext():
            root, max_depth, done = self.run(agent, game, state)
            return Analysis(
                agent.final_move(root),
                agent.move_stats(root),
                iterations=done,
                max_depth=max_depth,
                root=root,
                rule=agent.rule.name,
            )


class CompiledEngine:
    """:mod:`mctslab.engine`'s kernels: the agent's class's :attr:`UCT.compiled_analysis
    <mctslab.agents.uct.UCT.compiled_analysis>` (plain UCT's :func:`mctslab.agents.compiled.analyse`).

    Attributes:
        previous: ``(game, tree, root state)`` of the last search when ``reuse`` is on, else ``None``.
    """

    def __init__(self) -> None:
        self.previous: tuple[Game, Any, State] | None = None
        self._budget: tuple[tuple, Budget] | None = None

    def reset(self) -> None:
        """Forget the kept tree."""
        self.previous = None

    def budget(self, agent: Searcher) -> Budget:
        """The agent's budget as the kernels take it (:class:`mctslab.engine.Budget`), handed down unchanged.

        Made (and checked) at the agent's first compiled search, and again only when one of its
        parameters ``c``, ``iterations``, ``seconds``, ``max_moves`` has changed since.
        """
        asked = (agent.c, agent.iterations, agent.seconds, agent.max_moves)
        if self._budget is None or self._budget[0] != asked:
            self._budget = (asked, Budget(*asked))
        return self._budget[1]

    @staticmethod
    def _check_game(game: Game) -> None:
        if game.has_chance:
            raise ValueError(f"engine=compiled cannot play {game.spec}: it has chance nodes; use engine=python")

    def analyse(self, agent: Searcher, game: Game, state: State) -> Analysis:
        """The agent's compiled analysis (refused in one line for a game with chance nodes)."""
        self._check_game(game)
        return type(agent).compiled_analysis(agent, game, state, self)

    def search(self, agent: Searcher, game: Game, state: State) -> Any:
        """The root of the compiled tree (:class:`~mctslab.agents.compiled.CompiledNode`), or the summed root."""
        self._check_game(game)
        if type(agent).compiled_analysis is analyse and agent.threads == 1:
            return search_root(agent, game, state, self)  # analyse's root, without its final move and statistics
        return self.analyse(agent, game, state).root


class ProcessesEngine:
    """``threads=K`` on the python engine: K seeded searches in K processes, their roots summed."""

    def reset(self) -> None:
        """Nothing is kept between moves (a parallel search starts fresh trees)."""

    def analyse(self, agent: Searcher, game: Game, state: State) -> Analysis:
        """:func:`mctslab.agents.processes.analyse_in_processes`."""
        from .processes import analyse_in_processes  # process pools imported by the first parallel search only

        return analyse_in_processes(agent, game, state)

    def search(self, agent: Searcher, game: Game, state: State) -> Node:
        """The summed root (a :class:`Node` of one level)."""
        return self.analyse(agent, game, state).root
