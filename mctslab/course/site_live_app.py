"""The Python half of the site's live widgets: what 06's explorer and 07's board run in the page.

The course's website (:mod:`mctslab.course.site_live`) packs this module with mctslab's own
source into a zip that Pyodide unpacks in the reader's browser; the page's script calls
:class:`LiveExplorer` and :class:`LiveBoard`, which drive the same
:class:`~mctslab.viz.explorer.TreeExplorer` and :class:`~mctslab.viz.session.PlaySession`
as the notebooks' widgets, and return what to show as JSON (the DOT source of the tree, which
the page draws with graphviz's WebAssembly build; the board as HTML buttons). It runs in
CPython too, where the tests drive it.

Pyodide has no NumPy here (its wheels are not on the registries the site's assets come
from), and ``import mctslab`` imports NumPy at the top of 26 modules, for code the widgets never
run (the compiled engine, tournaments, batched playouts, seeding).
:func:`stand_in_for_numpy` lets those imports succeed without it: every name of the stand-in
is a class that works in a type annotation, a ``Union`` and ``isinstance`` (never true), and
raises as soon as it is called, so code that really needs NumPy fails in one line instead of
computing something else. The tests run both widgets on the stand-in in CPython.
"""

from __future__ import annotations

import json
import sys
import types
from html import escape
from typing import Any

__all__ = ["GAMES", "LiveBoard", "LiveExplorer", "stand_in_for_numpy"]

GAMES = {"tictactoe": "tic-tac-toe", "connect4": "Connect Four"}
"""The games of the live board: spec -> name on its menu."""


class _Absent(type):
    """A NumPy name the page does not have: a class usable in annotations and ``isinstance``, never called."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _absent(f"{cls.__qualname__}.{name}")

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise ModuleNotFoundError(f"{cls.__qualname__} needs NumPy, which the course's website does not load")


def _absent(name: str) -> type:
    return _Absent(name, (), {"__qualname__": name, "__module__": "numpy"})


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = _absent(f"numpy.{name}")
        setattr(self, name, value)
        return value


def stand_in_for_numpy() -> bool:
    """Put the stand-in in ``sys.modules["numpy"]`` if NumPy cannot be imported; True if it did."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        module = _StandIn("numpy", "A stand-in: the live widgets of the course's website run without NumPy.")
        module.__path__ = []  # a package, so that `import numpy.random` finds the stand-in too
        sys.modules["numpy"] = module
        return True
    return False


class LiveExplorer:
    """06's tree explorer for the page: a :class:`~mctslab.viz.explorer.TreeExplorer` and what it shows.

    Args:
        game: the game's spec (``"tictactoe"``).
        iteration, seed, depth, top_k: as :func:`~mctslab.viz.explorer.tree_explorer`.
    """

    def __init__(self, game: str = "tictactoe", iteration: int = 30, seed: int = 0, depth: int = 3, top_k: int = 4):
        from mctslab.games import make_game
        from mctslab.viz.explorer import TreeExplorer

        self.model = TreeExplorer(make_game(game), iteration=iteration, seed=seed, depth=depth, top_k=top_k)
        self._paths: dict[str, tuple[int, ...]] = {}

    def go_to(self, iteration: int) -> str:
        """The tree after ``iteration`` (>= 1); returns :meth:`view`."""
        self.model.go_to(int(iteration))
        return self.view()

    def step(self, forward: bool = True) -> str:
        """One phase forwards or backwards; returns :meth:`view`."""
        self.model.step(bool(forward))
        return self.view()

    def limits(self, depth: int, top_k: int) -> str:
        """The drawing's depth and top-k (each >= 1); returns :meth:`view`."""
        self.model.depth, self.model.top_k = max(1, int(depth)), max(1, int(top_k))
        return self.view()

    def set_c(self, c: float) -> str:
        """Search again with the exploration constant ``c`` (>= 0), up to the same iteration; returns :meth:`view`."""
        self.model.set_c(max(0.0, float(c)))
        return self.view()

    def enter(self, name: str) -> str:
        """Re-centre on the node drawn as ``name`` (``"n3"``, the DOT name the page read off the SVG)."""
        path = self._paths.get(str(name))
        if path is not None:
            self.model.focus = (*self.model.focus, *path)
            self.model._trim_focus()
        return self.view()

    def up(self) -> str:
        """Re-centre on the parent of the node at the top; returns :meth:`view`."""
        self.model.up()
        return self.view()

    def home(self) -> str:
        """Re-centre on the root; returns :meth:`view`."""
        self.model.home()
        return self.view()

    def _drawn(self) -> list[Any]:
        """The nodes of the drawing in the order of their DOT names (``n0``, ``n1``...): the same pruning."""
        from mctslab.viz.phases import PHASES
        from mctslab.viz.prune import prune

        model = self.model
        record = model.record
        if model.phase is None:
            view = prune(model.top, depth=model.depth, top_k=model.top_k, max_nodes=model.max_nodes, keep=record.path)
        else:  # as draw_iteration prunes (depth at most 1 away from the path)
            stage, new = PHASES.index(model.phase), record.expanded
            view = prune(
                model.top,
                depth=min(model.depth, 1) if model.depth is not None else 1,
                top_k=model.top_k,
                max_nodes=model.max_nodes,
                keep=record.path if stage > 0 or new is None else record.path[:-1],
                open_=[step.node for step in record.selection],
                exclude=[new] if stage == 0 and new is not None else [],
            )
        return list(view.nodes)

    def view(self) -> str:
        """What the page shows, as JSON: the DOT source, the summary line, the iteration, the phase, the limits."""
        model = self.model
        figure = model.figure()
        top = model.top
        self._paths = {}
        for i, node in enumerate(self._drawn()):
            moves = []
            while node is not None and node is not top:
                moves.append(node.move)
                node = node.parent
            if node is top and moves:
                self._paths[f"n{i}"] = tuple(reversed(moves))
        return json.dumps(
            {
                "dot": figure.source,
                "summary": model.summary(),
                "note": model.note,
                "iteration": model.iteration,
                "phase": model.phase,
                "depth": model.depth,
                "top_k": model.top_k,
                "c": model.c,
                "focus": len(model.focus),
                "clickable": sorted(self._paths),
            }
        )


class LiveBoard:
    """07's play board for the page: a :class:`~mctslab.viz.session.PlaySession` against UCT, as HTML buttons.

    Args:
        game: a spec of :data:`GAMES`.
        iterations: UCT's budget per move.
        human: your seat, 0 (X, first) or 1 (O).
        seed: the agent's seed.
    """

    def __init__(self, game: str = "tictactoe", iterations: int = 100, human: int = 0, seed: int = 0) -> None:
        self.seed = seed
        self.new_game(game, iterations, human)

    def new_game(self, game: str, iterations: int, human: int) -> str:
        """A new game (the agent moves first when you play O); returns :meth:`view`."""
        from mctslab.agents import make_agent
        from mctslab.games import make_game
        from mctslab.viz.session import PlaySession

        if game not in GAMES:
            raise ValueError(f"the live board plays {', '.join(GAMES)}, not {game!r}")
        self.game, self.iterations = game, int(iterations)
        agent = make_agent(f"uct:iterations={self.iterations}", seed=self.seed)
        self.session = PlaySession(make_game(game), agent, int(human))
        self._note = ""
        return self.view()

    def click(self, row: int, col: int) -> str:
        """Your move at the cell ``(row, col)``, then the agent's reply; returns :meth:`view`."""
        session = self.session
        self._note = ""
        if session.over:
            self._note = "the game is over: click new game to play again"
        else:
            move = session.grid()[int(row)][int(col)].move
            if move is None:
                self._note = "not a legal move for you there: click an empty cell"
            else:
                session.play(move)
        return self.view()

    def board_html(self) -> str:
        """The board as a grid of ``<button data-move>`` cells: stones, heat, the agent's last move, the won line."""
        from mctslab.games import drawing
        from mctslab.viz.boardhtml import MARK_COLOUR, WIN_FILL, heat_colour

        session = self.session
        grid = session.grid()
        columns = len(grid[0])
        labels = drawing(session.game).column_labels() or []
        parts = [f'<div class="mctslab-live-label">{escape(t)}</div>' for t in labels]
        for r, row in enumerate(grid):
            for c, cell in enumerate(row):
                heat = f"{cell.heat:.0%}" if cell.heat else ""
                fill = WIN_FILL if cell.won else (heat_colour(cell.heat) if cell.heat else "#ffffff")
                style = f"background:{fill}"
                if cell.text:
                    style += f";color:{MARK_COLOUR.get(cell.text, '#000')}"
                kinds = ["mctslab-live-cell"]
                kinds += ["mctslab-stone"] if cell.text else []
                kinds += ["mctslab-win"] if cell.won else []
                kinds += ["mctslab-last"] if cell.last else []
                kinds += ["mctslab-target"] if cell.target else []
                move = "" if cell.move is None else str(cell.move)
                title = f"move {drawing(session.game).move_text(cell.move)}" if cell.move is not None else ""
                off = " disabled" if cell.move is None or not session.your_turn() else ""
                parts.append(
                    f'<button type="button" class="{" ".join(kinds)}" data-move="{move}" data-row="{r}" '
                    f'data-col="{c}" title="{escape(title)}" style="{style}"{off}>{escape(cell.text or heat)}</button>'
                )
        return (
            f'<div class="mctslab-live-grid" style="grid-template-columns:repeat({columns}, var(--cell))">'
            + "".join(parts)
            + "</div>"
        )

    def view(self) -> str:
        """What the page shows, as JSON: the board's HTML, the status line, the agent's statistics."""
        session = self.session
        hint = self._note or session.hint()
        return json.dumps(
            {
                "board": self.board_html(),
                "status": session.status() + (f" ({hint})" if hint else ""),
                "over": session.over,
                "stats": f"{session.agent.spec}\n{session.stats_table()}",
            }
        )
