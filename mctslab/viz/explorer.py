"""The tree explorer: watch the tree grow, step through the four phases, walk down the tree.

:class:`TreeExplorer` holds all the logic and is tested without a browser; the widget
of :func:`tree_explorer` only wires controls to it:

* a slider over iterations (the tree after 1, 2, ... iterations);
* buttons stepping through the four phases of each iteration, one at a time;
* controls for the drawing's depth and top-k, and for ``c`` (which re-runs the search);
* a menu of the children of the node at the top, to re-centre the drawing on one, and
  buttons back up and to the root.

Moving backwards re-runs the search from the start with the same seed (it is
deterministic), so every view shows the real tree after exactly that many iterations.

The search is plain UCT by default; pass ``agent=`` to explore any agent of the UCT
family (a subclass of :class:`~mctslab.agents.uct.UCT` with its own node class or
selection rule): its own steps build the tree and its own rule scores the children.

An agent with ``engine="compiled"`` is explored on the Python engine, and the explorer
says so (:attr:`TreeExplorer.note`): the compiled engine runs whole searches in machine
code and cannot stop between phases. It is the same algorithm with other random
numbers, so the tree is not the one the compiled search builds.
"""

from __future__ import annotations

import copy
from html import escape
from typing import Any

from ..agents.uct import UCT, Node
from ..games.base import Game, State
from ..seeding import Seed
from ..ucb import SQRT2
from .fit import fitted
from .outline import node_title
from .phases import PHASES, draw_iteration
from .steps import IterationRecord, SearchRecorder
from .tree import draw_tree, graph_html

__all__ = ["ExplorerWidget", "TreeExplorer", "fitted", "tree_explorer"]


class TreeExplorer:
    """What the explorer shows: an iteration, maybe one of its phases, a node at the top.

    Args:
        game: the game.
        state: the position searched (default: the initial position).
        iteration: the iteration shown first, >= 1.
        c: exploration constant, >= 0 (default sqrt(2)).
        seed: the search's seed (default 0).
        depth, top_k, max_nodes: the drawing's limits (see :func:`~mctslab.viz.draw_tree`).
        max_moves: playout cap (see :class:`~mctslab.agents.uct.UCT`).
        agent: the agent to explore, a :class:`~mctslab.agents.uct.UCT` or an instance
            of a subclass; it carries its own ``c``, generator and playout cap, so
            ``c``, ``seed`` and ``max_moves`` are not given with it. The explorer
            searches with copies of it as it is now (replaying from the start gives the
            same tree); the agent itself is not used up. Default:
            ``UCT(c=c, seed=seed, max_moves=max_moves)``.

    Raises:
        TypeError: for an ``agent`` not of the UCT family, or given with ``c``,
            ``seed`` or ``max_moves``.
        CannotPlayError: (a ``ValueError``) for a game whose kind the agent does not
            play (:attr:`Agent.handles <mctslab.agents.base.Agent.handles>`: plain UCT and
            chance or hidden cards), in one line naming the agents that can.
        ValueError: for an iteration < 1 or ``c < 0``.

    Attributes:
        iteration: the iteration shown (the tree right after it).
        phase: one of :data:`~mctslab.viz.phases.PHASES`, or ``None`` for the whole tree.
        focus: the moves from the root to the node drawn at the top.
        note: why the search shown is not quite the agent's (``engine="compiled"``), or ``""``.
    """

    def __init__(
        self,
        game: Game,
        state: State | None = None,
        *,
        iteration: int = 1,
        c: float | None = None,
        seed: Seed | None = None,
        depth: int | None = 3,
        top_k: int | None = 4,
        max_nodes: int | None = 20,
        max_moves: int | None = None,
        agent: UCT | None = None,
    ) -> None:
        self.game = game
        self.state = game.initial_state() if state is None else state
        if agent is None:
            seed = 0 if seed is None else seed
            agent = UCT(c=SQRT2 if c is None else c, seed=seed, max_moves=max_moves)
        elif not isinstance(agent, UCT):
            raise TypeError(f"the tree explorer explores a UCT agent (UCT or a subclass of it); got {agent!r}")
        elif c is not None or seed is not None or max_moves is not None:
            raise TypeError(
                "give either agent= or c, seed and max_moves, not both: the agent carries its own "
                f"(c={agent.c:g}, max_moves={agent.max_moves}, its generator as it is now)"
            )
        agent.check_can_play(game)  # a kind of game it cannot search (hidden cards, say): one line saying so
        self.note = (
            "engine=compiled: explored on the Python engine, the same UCT with other random numbers"
            " (the compiled engine runs whole searches and cannot stop between phases)"
            if agent.engine == "compiled"
            else ""
        )
        # A private copy as it is now: each replay from the start searches with a copy of it.
        self._agent = copy.deepcopy(agent)
        self.c, self.seed, self.max_moves = agent.c, seed, agent.max_moves
        self.depth, self.top_k, self.max_nodes = depth, top_k, max_nodes
        self.phase: str | None = None
        self.focus: tuple[int, ...] = ()
        self._recorder: SearchRecorder | None = None
        self.iteration = 0
        self.go_to(iteration)

    # -- the search ---------------------------------------------------------------
    @property
    def agent(self) -> UCT:
        """The agent explored, as it was before searching (a copy; each replay searches with a copy of it)."""
        return self._agent

    def _new_recorder(self) -> SearchRecorder:
        agent = copy.deepcopy(self._agent)
        agent.c = self.c
        return SearchRecorder(self.game, self.state, agent)

    def go_to(self, iteration: int, phase: str | None = None) -> None:
        """Show the tree right after ``iteration`` (>= 1), or one ``phase`` of that iteration.

        Raises:
            ValueError: for an iteration < 1 or an unknown phase.
        """
        if isinstance(iteration, bool) or not isinstance(iteration, int) or iteration < 1:
            raise ValueError(f"iteration must be an int >= 1, got {iteration!r}")
        if phase is not None and phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}; the phases are {', '.join(PHASES)}")
        rec = self._recorder
        if rec is None or rec.iterations > iteration:  # going back: replay from the start, same seed
            rec = self._recorder = self._new_recorder()
        if rec.iterations < iteration:  # the last iteration is recorded, those before just run
            rec.run(iteration - 1 - rec.iterations)
            rec.step()
        self.iteration, self.phase = iteration, phase
        self._trim_focus()

    def step(self, forward: bool = True) -> None:
        """One phase forwards (after backpropagation: the next iteration's selection) or backwards."""
        position = 4 * (self.iteration - 1) + (3 if self.phase is None else PHASES.index(self.phase))
        position = position + 1 if forward else max(0, position - 1)
        self.go_to(position // 4 + 1, PHASES[position % 4])

    def set_c(self, c: float) -> None:
        """Re-run the search with exploration constant ``c`` (>= 0), up to the same iteration.

        The agent's ``c`` is set on a fresh copy; a variant whose rule does not use
        ``c`` builds the same tree.
        """
        if not c >= 0:
            raise ValueError(f"the exploration constant c must be >= 0, got {c}")
        self.c, self._recorder = float(c), None
        self.go_to(self.iteration, self.phase)

    @property
    def record(self) -> IterationRecord:
        """The record of the iteration shown."""
        assert self._recorder is not None and self._recorder.last is not None
        return self._recorder.last

    @property
    def root(self) -> Node:
        """The root of the tree shown."""
        return self.record.root

    # -- the node at the top ------------------------------------------------------
    @property
    def top(self) -> Node:
        """The node drawn at the top (the root, or the child chosen with :meth:`enter`...)."""
        node = self.root
        for move in self.focus:
            node = node.child(move)
        return node

    def _trim_focus(self) -> None:
        node, kept = self.root, []
        for move in self.focus:
            try:
                node = node.child(move)
            except KeyError:
                break
            kept.append(move)
        self.focus = tuple(kept)

    def children(self) -> list[tuple[str, int]]:
        """``(label, move)`` for each child of the top node, most visited first."""
        kids = sorted(self.top.children, key=lambda ch: (-ch.visits, ch.move))
        return [(f"{node_title(self.game, ch)}: {ch.wins:g}/{ch.visits}", ch.move) for ch in kids]

    def enter(self, move: int) -> None:
        """Re-centre the drawing on the top node's child reached by ``move``.

        Raises:
            KeyError: if that child is not in the tree (the message lists those that are).
        """
        self.top.child(move)
        self.focus = (*self.focus, move)

    def up(self) -> None:
        """Re-centre on the parent of the top node (nothing happens at the root)."""
        self.focus = self.focus[:-1]

    def home(self) -> None:
        """Re-centre on the root."""
        self.focus = ()

    # -- what is shown ------------------------------------------------------------
    def figure(self) -> Any:
        """The drawing of the current view (a :class:`graphviz.Digraph`)."""
        limits = {"depth": self.depth, "top_k": self.top_k, "max_nodes": self.max_nodes}
        if self.phase is None:
            rule = self._recorder.agent.rule if self._recorder is not None else None
            return draw_tree(self.top, self.game, c=self.c, last_path=self.record.path, rule=rule, **limits)
        # A phase picture shows the path and the choices along it; away from the path, one level.
        limits["depth"] = min(self.depth, 1) if self.depth is not None else 1
        return draw_iteration(self.record, self.phase, self.game, top=self.top, **limits)

    def size(self, node: Node | None = None) -> int:
        """Nodes in the tree shown (or in ``node``'s subtree), as the picture's caption counts them.

        In the selection phase the node that expansion is about to add is not there yet.
        """
        node = self.root if node is None else node
        size = node.size()
        new = self.record.expanded
        if self.phase == PHASES[0] and new is not None:
            above = new.parent
            while above is not None and above is not node:
                above = above.parent
            size -= above is node  # the new node is in this subtree
        return size

    def summary(self) -> str:
        """One line about the view: iteration, phase, tree size, maximum depth, the node at the top."""
        rec = self._recorder
        assert rec is not None
        what = "the tree after it" if self.phase is None else f"phase {PHASES.index(self.phase) + 1}, {self.phase}"
        where = " > ".join(node_title(self.game, n) for n in self._focus_nodes())
        if self.focus:
            where += f" ({_nodes(self.size(self.top))} below and with it)"
        return (
            f"iteration {self.iteration} ({what}); c = {self.c:g}; {_nodes(self.size())}, "
            f"maximum depth {rec.max_depth}; top: {where}"
        )

    def _focus_nodes(self) -> list[Node]:
        nodes = [self.root]
        for move in self.focus:
            nodes.append(nodes[-1].child(move))
        return nodes

    def html(self) -> str:
        """The current drawing as HTML (SVG, or the text outline without ``dot``)."""
        return graph_html(self.figure())


class ExplorerWidget:
    """The widget of :func:`tree_explorer`; its controls are attributes, so code (and tests) can drive it.

    The picture is scaled down to the width of the notebook (``fit``, on by default), so
    the root and the red path of the last iteration are always in view; unticked, it is
    drawn at full size in a box that scrolls.

    Attributes:
        model: the :class:`TreeExplorer` behind it.
        box: the ``ipywidgets.VBox`` displayed.
        iteration, back, forward, depth, top_k, c, fit, children, enter, up, home: the controls.
        picture, status: the ``HTML`` widgets showing the drawing and the summary line.
    """

    def __init__(self, model: TreeExplorer, max_iterations: int) -> None:
        import ipywidgets as w

        self.model = model
        self.iteration = w.IntSlider(
            value=model.iteration,
            min=1,
            max=max_iterations,
            description="iteration",
            continuous_update=False,
            layout=w.Layout(width="560px"),  # about 4 iterations per pixel at 2,000
        )
        self.back = w.Button(description="< phase", tooltip="previous phase")
        self.forward = w.Button(description="phase >", tooltip="next phase")
        self.depth = w.IntSlider(value=model.depth or 3, min=1, max=8, description="depth")
        self.top_k = w.IntSlider(value=model.top_k or 4, min=1, max=12, description="top k")
        self.c = w.FloatSlider(value=model.c, min=0.0, max=4.0, step=0.1, description="c", continuous_update=False)
        self.fit = w.Checkbox(value=True, description="fit to width", indent=False, layout=w.Layout(width="110px"))
        self.children = w.Dropdown(description="child")
        self.enter = w.Button(description="re-centre", tooltip="draw the subtree of the child chosen in the menu")
        self.up = w.Button(description="up")
        self.home = w.Button(description="root")
        self.status = w.HTML()
        self.picture = w.HTML(layout=w.Layout(width="100%"))
        self._syncing = False
        self.iteration.observe(lambda _: self._do(model.go_to, self.iteration.value), names="value")
        self.depth.observe(lambda _: self._do(setattr, model, "depth", self.depth.value), names="value")
        self.top_k.observe(lambda _: self._do(setattr, model, "top_k", self.top_k.value), names="value")
        self.c.observe(lambda _: self._do(model.set_c, self.c.value), names="value")
        self.fit.observe(lambda _: self._do(lambda: None), names="value")
        self.back.on_click(lambda _: self._do(model.step, False))
        self.forward.on_click(lambda _: self._do(model.step, True))
        self.enter.on_click(lambda _: self._enter())
        self.up.on_click(lambda _: self._do(model.up) if model.focus else self.refresh("already at the root"))
        self.home.on_click(lambda _: self._do(model.home))
        self.box = w.VBox(
            [
                w.HBox([self.iteration, self.back, self.forward]),
                w.HBox([self.depth, self.top_k, self.c]),
                w.HBox([self.children, self.enter, self.up, self.home, self.fit]),
                self.status,
                self.picture,
            ],
            layout=w.Layout(width="100%"),
        )
        self.refresh()

    def _do(self, action: Any, *args: Any) -> None:
        if self._syncing:  # a control being set by refresh(), not by the user
            return
        action(*args)
        self.refresh()

    def _enter(self) -> None:
        if not self.children.options:
            self.refresh("nothing to re-centre on: this node has no children in the tree yet")
        elif self.children.value is None:
            self.refresh("choose a child in the menu first, then re-centre")
        else:
            self._do(self.model.enter, self.children.value)

    def refresh(self, note: str = "") -> None:
        """Redraw from the model; the controls follow it (the slider after a phase step, the child menu).

        Args:
            note: a message shown after the summary line (what a click could not do, and why).
        """
        model = self.model
        self._syncing = True
        try:
            self.iteration.value = model.iteration
            options = model.children()
            self.children.options = options
            if options:  # the most visited child, chosen: re-centre works at once
                self.children.index = 0
            # A phase picture draws the path and one level around it: the depth applies to the whole tree only.
            self.depth.disabled = model.phase is not None
        finally:
            self._syncing = False
        notes = [n for n in (note, model.note) if n]
        if model.phase is not None:
            notes.append("depth: for the whole tree; a phase shows the path and one level around it")
        extra = "".join(f"<br><i>{escape(n)}</i>" for n in notes)
        self.status.value = f"<code>{escape(model.summary())}</code>{extra}"
        self.picture.value = fitted(model.html(), self.fit.value)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.box._repr_mimebundle_(**kwargs)
        # What a saved notebook shows where there is no kernel to draw the widget (an untrusted
        # notebook, GitHub): the summary line. The notebooks follow each explorer with a picture
        # of what it shows (a PNG would double the notebook's size for the same picture).
        # One short line per part, so that no viewer wraps it in the middle of a word; as HTML it wraps at spaces.
        summary = self.model.summary()
        bundle["text/plain"] = "tree explorer (needs a running kernel):\n" + summary.replace("; ", ";\n")
        bundle["text/html"] = f"<p><i>tree explorer (needs a running kernel):</i> {escape(summary)}</p>"
        return bundle


def _nodes(count: int) -> str:
    """``"1 node"``, ``"301 nodes"``."""
    return f"{count} node" if count == 1 else f"{count} nodes"


def tree_explorer(
    game: Game,
    state: State | None = None,
    *,
    iteration: int = 20,
    max_iterations: int = 1000,
    c: float | None = None,
    seed: Seed | None = None,
    depth: int = 3,
    top_k: int = 4,
    max_nodes: int | None = 20,
    agent: UCT | None = None,
) -> ExplorerWidget:
    """An interactive tree explorer for a notebook (needs ipywidgets; see the module docstring).

    Args:
        game: the game.
        state: the position searched (default: the initial position).
        iteration: the iteration shown first, in [1, max_iterations].
        max_iterations: the end of the iteration slider.
        c: the initial exploration constant (default sqrt(2)).
        seed: the search's seed (default 0).
        depth, top_k, max_nodes: the drawing's initial limits.
        agent: the agent to explore, UCT or a subclass (then without ``c`` and
            ``seed``: see :class:`TreeExplorer`).

    Returns:
        An :class:`ExplorerWidget`; display it (the last expression of a cell).

    Raises:
        TypeError, ValueError: as :class:`TreeExplorer`.
    """
    model = TreeExplorer(
        game,
        state,
        iteration=iteration,
        c=c,
        seed=seed,
        depth=depth,
        top_k=top_k,
        max_nodes=max_nodes,
        agent=agent,
    )
    return ExplorerWidget(model, max_iterations)
