"""How a student's tree grew: one node per iteration, and where iterations stopped without adding one.

UCT as notebook 04b writes it adds exactly one node per iteration: selection goes down
through fully expanded nodes (and, in notebook 12, through the outcome drawn at each chance
node) to a node with an untried move, and expansion adds its child. The only iterations that
add no node are those that end at a finished game already in the tree. So after ``N``
iterations a correct tree has

    (visited nodes) + (visits of finished games beyond their first) = N + 1,

and every node other than the root and the finished games keeps exactly one visit of its
own (the playout from it when it was added) beyond its children's; a node with untried
moves has never been gone through, so its children have one visit each. :func:`read_growth`
reads a tree against these rules, replaying the moves from the root's position (so that a
node is read by its ``move``, ``children`` and ``visits`` alone), and lists what breaks them:

* a node where iterations *stopped* without adding a node (more visits of its own than one):
  with no children, it was never given moves to expand (an outcome's node made with no
  untried moves); with every move expanded, selection stopped there instead of going on down
  (``if`` for ``while``, or a descent that ends at the outcome's node it reaches);
* a node *gone through* while it still had untried moves (a child visited more than once):
  selection does not stop where expansion is due (the tree becomes a thin chain).

Issue 40: a tree of 9 nodes in 8 levels after 200 iterations, and chance trees of 30-74 nodes
after 300 iterations, passed every check before these rules were read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...games.base import Game, State
from ...games.kinds import CHANCE


@dataclass
class Stop:
    """A node of the student's tree that breaks one of the rules (see :func:`read_growth`)."""

    node: Any  # the student's node
    state: State  # its position, replayed from the root's
    depth: int  # moves (outcomes included) from the root
    after_outcome: bool  # its parent is a chance node: it is an outcome's node
    own: int  # its visits beyond its children's
    expanded: int  # its children
    legal: int  # the legal moves of its position


@dataclass
class Growth:
    """A tree read against the rules of one node per iteration."""

    nodes: int = 0  # nodes with at least one visit
    ends: int = 0  # visits of finished games beyond their first: iterations that added no node, rightly
    stopped: list[Stop] = field(default_factory=list)  # nodes where iterations stopped without adding a node
    gone_through: list[Stop] = field(default_factory=list)  # nodes gone through with untried moves left
    levels: dict[int, int] = field(default_factory=dict)  # depth -> visited nodes

    def grown(self, iterations: int) -> bool:
        """True when the tree follows the rules after ``iterations`` iterations."""
        return self.nodes + self.ends == iterations + 1 and not self.stopped and not self.gone_through

    def shown(self) -> str:
        """The nodes per level, as ``1, 9, 72, 119`` (depth 0 first)."""
        return ", ".join(str(self.levels.get(d, 0)) for d in range(max(self.levels, default=0) + 1))


def read_growth(game: Game, state: State, root: Any) -> Growth:
    """Read the tree below ``root`` (whose position is ``state``) against the rules of the module's docstring."""
    out = Growth()
    stack = [(root, state, 0, False)]
    while stack:
        node, here, depth, after_outcome = stack.pop()
        if node.visits <= 0:
            continue  # a child made but never visited (a design that adds every child at once)
        out.nodes += 1
        out.levels[depth] = out.levels.get(depth, 0) + 1
        if game.is_terminal(here):
            out.ends += node.visits - 1
            continue
        chance = game.to_move(here) == CHANCE
        children = list(node.children)
        own = node.visits - sum(ch.visits for ch in children)
        if not chance:
            legal = game.legal_moves(here)
            stop = Stop(node, here, depth, after_outcome, own, len({ch.move for ch in children}), len(legal))
            if own > (0 if depth == 0 else 1):
                out.stopped.append(stop)
            if stop.expanded < stop.legal and any(ch.visits > 1 for ch in children):
                out.gone_through.append(stop)
        for child in children:
            stack.append((child, game.apply(here, child.move), depth + 1, chance))
    out.stopped.sort(key=lambda s: s.depth)
    out.gone_through.sort(key=lambda s: s.depth)
    return out


def growth_slip(growth: Growth, iterations: int, names: dict[str, str]) -> tuple[str, str] | None:
    """What breaks the rules, in words, and the function to blame; None when the tree grew as it should.

    ``names`` maps ``"select"``, ``"expand"`` and ``"expand_outcome"`` to the student's
    functions of those roles (``select_chance``... in notebook 12).
    """
    if growth.grown(iterations):
        return None
    total = growth.nodes + growth.ends
    seen = f"after {iterations} iterations the tree has {growth.nodes} nodes (by depth: {growth.shown()})"
    if growth.ends:
        seen += f" and its finished games {growth.ends} visits beyond their first"
    if total != iterations + 1:
        seen += (
            f": {total} where each iteration adds one node, unless it ends at a finished game already in the tree, "
            f"would make {iterations + 1}"
        )
    if growth.stopped:
        s = growth.stopped[0]
        where = f"{'an outcome' if s.after_outcome else 'a'} node at depth {s.depth}"
        if s.expanded == 0:
            untried = getattr(s.node, "untried", None)
            given = len(untried) if isinstance(untried, list | tuple | set) else None  # notebook 04b's nodes
            reached = f"{where[0].upper()}{where[1:]} was reached {s.own} times and never grew a child, though its "
            if given:  # it has moves to expand: the iterations stopped there without expanding it
                kind = "the outcome's node it reaches" if s.after_outcome else "a node"
                return (
                    f"{seen}. {reached}position has {s.legal} legal moves, {given} of them still untried: selection "
                    f"stops at {kind} instead of going on to it, so expansion never adds its children",
                    names["select"],
                )
            fix = "untried moves, game.legal_moves(its state), so that the next iteration expands it"
            if given is None and s.after_outcome:  # another design: made without moves, or never gone into
                return (
                    f"{seen}. {reached}position has {s.legal} legal moves: the node of an outcome needs them as its "
                    f"{fix}; and selection must go on into an outcome's node once it exists (`{names['select']}`)",
                    names["expand_outcome"],
                )
            if s.after_outcome:
                return (
                    f"{seen}. {reached}position has {s.legal} legal moves: the node of an outcome needs them as "
                    f"its {fix}",
                    names["expand_outcome"],
                )
            return f"{seen}. {reached}position has {s.legal} legal moves: a new node needs them as its {fix}", names[
                "expand"
            ]
        if s.expanded >= s.legal:
            kind = "the outcome's node it reaches" if s.after_outcome else "a fully expanded node"
            return (
                f"{seen}. Selection stops at {kind}: {where}, all {s.legal} of its moves expanded, ended "
                f"{s.own - (s.depth > 0)} iterations without going on down. At a fully expanded node selection "
                "goes on to a child by UCB1, again and again (a `while` loop, not an `if`), until it reaches a "
                "node with untried moves or a finished game",
                names["select"],
            )
        return (
            f"{seen}. {where[0].upper()}{where[1:]} ({s.expanded} of its {s.legal} moves expanded) ended "
            f"{s.own - (s.depth > 0)} iterations without adding a child: expansion must add one child for an "
            "untried move each time it is reached",
            names["expand"],
        )
    if growth.gone_through:
        s = growth.gone_through[0]
        return (
            f"{seen}. Selection went below a node at depth {s.depth} that still has untried moves ({s.expanded} "
            f"of its {s.legal} moves expanded): it must stop at the first node with an untried move, so that "
            "expansion adds that move's child (UCT tries every move of a node before choosing among them by UCB1)",
            names["select"],
        )
    if total > iterations + 1:
        return f"{seen}: an iteration adds one node, not several", names["expand"]
    return f"{seen}: every iteration that does not end at a finished game must add one node", names["expand"]
