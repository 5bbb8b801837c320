"""The UCT agent's ``engine="compiled"`` path: search with :mod:`mctslab.engine`, answer as UCT does."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..agents.base import Analysis, MoveStat, legal_or_raise
from ..games.base import Game, State
from ..ucb import exploration
from . import CompiledTree, search

if TYPE_CHECKING:
    from ..agents.uct import UCT

OVERRIDABLE = (
    "node_class", "child_value", "select_child", "select", "pop_untried", "expand", "simulate",
    "backpropagate", "iterate",
)  # fmt: skip
"""What a UCT variant overrides; the compiled engine runs plain UCT only."""


def check_plain(agent: UCT) -> None:
    """Raise ValueError if ``agent``'s class changes a part of UCT the compiled engine cannot run."""
    from ..agents.uct import UCT

    changed = [name for name in OVERRIDABLE if getattr(type(agent), name) is not getattr(UCT, name)]
    if changed:
        raise ValueError(
            f"{type(agent).__name__} overrides {', '.join(changed)}: the compiled engine runs plain UCT only;"
            " use engine=python"
        )
    if getattr(agent, "playout", "random") != "random":
        raise ValueError(f"playout={agent.playout}: the compiled engine plays random playouts only; use engine=python")


def _reusable(agent: UCT, game: Game, state: State) -> CompiledTree | None:
    """The previous tree re-rooted at ``state`` (found within two plies), or None."""
    previous = getattr(agent, "_compiled_previous", None)
    if not agent.reuse or previous is None or previous[0] != game:
        return None
    _, tree, root_state = previous
    frontier = [(tree.root, root_state)]
    for _ in range(3):
        for slot, node_state in frontier:
            if node_state == state:
                tree.root = slot
                tree.root_state = np.array(game.compiled_state(state), dtype=np.int64)
                tree.info[1] = 0
                return tree
        frontier = [(s, game.apply(st, int(tree.move[s]))) for slot, st in frontier for s in tree.children(slot)]
    return None


def analyse(agent: UCT, game: Game, state: State) -> Analysis:
    """:meth:`mctslab.agents.uct.UCT.analyse` on the compiled engine (see :mod:`mctslab.engine`).

    The agent's generator gives the search's seed (32 bits per search), so a seeded agent
    plays the same moves every time. ``Analysis.root`` is the
    :class:`~mctslab.engine.CompiledTree` (arrays, not :class:`~mctslab.agents.uct.Node`).
    """
    check_plain(agent)
    legal_or_raise(game, state)
    tree = _reusable(agent, game, state)
    result = search(
        game,
        state,
        c=agent.c,
        iterations=agent.iterations,
        seconds=agent.seconds,
        max_moves=agent.max_moves,
        seed=agent.rng.getrandbits(32),
        tree=tree,
    )
    if agent.reuse:
        agent._compiled_previous = (game, result.tree, state)
    children = list(zip(result.moves, result.visits, result.means, strict=True))
    if agent.final == "visits":
        best = max(children, key=lambda ch: (ch[1], ch[2]))
    else:
        best = max(children, key=lambda ch: (ch[2], ch[1]))
    total = int(result.tree.visits[result.tree.root])
    stats = tuple(
        MoveStat(move, visits, mean, exploration=exploration(total, visits, agent.c))
        for move, visits, mean in sorted(children)
    )
    return Analysis(best[0], stats, iterations=result.done, max_depth=result.tree.max_depth, root=result.tree)
