"""Reading a student's tree for the slips of ``expand``, so that their consequences are not blamed elsewhere.

A slip in ``expand`` shows first in other checks: a new node's ``player`` set to the
player to move there makes the point-of-view check see each node credited with the
wrong player's results, which looks like a slip in ``backpropagate``; untried moves
copied from the parent make a playout start from a finished game. Each node of the tree
says what ``expand`` did when it made it: its ``move``, its ``state``, its ``parent``, its
``untried`` moves and its ``player``, when the student's node has them. :func:`_expand_slip`
compares each with what it must be (replaying the moves from the root's position), so
that ``check_uct`` names ``expand`` when a check fails because of it.

Only what the student's node keeps is read, and only under the names of notebook 04b's
:class:`~mctslab.course.exercises.TreeNode` (``state``, ``parent``, ``untried``,
``player``), so a node of another design is never blamed for an attribute it does not
have. Methods of :class:`_ExpandProbes` are part of ``check_uct``'s checker.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ...games import make_game
from ...games.base import Game, State
from .limits import TimeLimitExceeded
from .positions import position

AUDIT_SEARCHES = ((".........", 0, 60), ("XO.X.O...", 1, 60), ("XOXXO.O..", 2, 40))
"""The searches read for the slips of ``expand`` when a check fails: (position, seed, iterations)."""


def _moves(untried: Any) -> set[int] | None:
    """The untried moves as a set of ints, or None when they are not a collection of ints (another design)."""
    if not isinstance(untried, list | tuple | set | frozenset):
        return None
    if not all(isinstance(m, int) and not isinstance(m, bool) for m in untried):
        return None
    return set(untried)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _played(game: Game, before: State, move: Any, state: Any) -> bool:
    """True when ``state`` is what the game makes of ``move`` played in ``before``, legal or not."""
    try:
        return _same(state, game.apply(before, move))
    except Exception:  # noqa: BLE001 - an illegal move the game refuses: not played
        return False


def _link_slip(game: Game, parent: Any, before: State, child: Any) -> str | None:
    """What is wrong with ``child``'s parent, position or move (``before``: the parent's position), or None."""
    move, legal = child.move, game.legal_moves(before)
    if hasattr(child, "parent") and child.parent is not parent:
        return (
            f"the new node for move {move!r} is in its parent's `children`, but its `parent` is "
            f"{'None' if child.parent is None else 'another node'}: `expand` must give the child its parent (the "
            "node it expands), so that `backpropagate` can climb from the child up to the root"
        )
    if hasattr(child, "state") and move in legal and not _same(child.state, game.apply(before, move)):
        if _same(child.state, before):
            return (
                f"the new node for move {move} keeps its parent's position: `expand` must give the child the "
                "position after its move, game.apply(node.state, move)"
            )
        leads = [m for m in legal if _same(child.state, game.apply(before, m))]
        if leads:
            return (
                f"a new node's `move` is {move}, but its position is the one after move {leads[0]}: `expand` must "
                "record on the child the move it played (not its index in the untried moves)"
            )
    if move not in legal:
        if hasattr(child, "state") and _played(game, before, move, child.state):
            return None  # played as recorded: its parent was given an illegal move to expand (see _given_slip)
        return (
            f"a new node's `move` is {move!r}, which is not a legal move of its parent's position (legal: "
            f"{list(legal)}): `expand` must record on the child the move it played (not its index, nor the "
            "parent's move)"
        )
    return None


def _given_slip(game: Game, parent: Any, before: State, child: Any) -> str | None:
    """What is wrong with the moves ``child`` was given to expand (``before``: the parent's position), or None."""
    move = child.move
    if hasattr(child, "untried") and child.untried is getattr(parent, "untried", None):
        return (
            "a new node's `untried` is its parent's own list (the same object, not a copy of the legal moves): "
            "`expand` must give the child the legal moves of the child's position, game.legal_moves(child's state)"
        )
    untried = _moves(getattr(child, "untried", None))
    if untried is None:
        return None
    given = untried | {ch.move for ch in child.children}  # the moves the child was given, some expanded since
    legal = set(game.legal_moves(game.apply(before, move)))
    if given == legal:
        return None
    if move in given or not given <= legal:
        return (
            f"the new node for move {move} was given the moves {sorted(given)}, not the legal moves of its own "
            f"position ({sorted(legal)}): `expand` must give the child game.legal_moves(child's state), the "
            "position after its move, not its parent's"
        )
    return (
        f"the new node for move {move} was given the moves {sorted(given)}, but its position has legal moves "
        f"{sorted(legal)}: `expand` must give the child the legal moves of its own position, "
        "game.legal_moves(child's state), not a copy of its parent's untried moves"
    )


def _kept_slip(node: Any) -> str | None:
    """A move that ``node`` has both expanded and still untried (``expand`` did not remove it), or None."""
    untried = _moves(getattr(node, "untried", None))
    both = untried & {ch.move for ch in node.children} if untried is not None else set()
    if not both:
        return None
    m = min(both)
    return (
        f"a node has a child for move {m} and still has {m} among its untried moves: `expand` must remove "
        "the move it expands from the node's untried moves, so that it is expanded once"
    )


def _expand_slip(game: Game, state: State, root: Any) -> str | None:
    """The first slip of ``expand`` read in the tree below ``root`` (``state`` its position), shallowest first."""
    for slip_of in (_link_slip, _given_slip):  # the moves first: a wrong move recorded upsets the moves given
        queue = deque([(root, state)])
        while queue:
            node, before = queue.popleft()
            for child in node.children:
                slip = slip_of(game, node, before, child)
                if slip is not None:
                    return slip
                if child.move in game.legal_moves(before):  # below an illegal move, nothing more to compare
                    queue.append((child, game.apply(before, child.move)))
            slip = _kept_slip(node) if slip_of is _given_slip else None
            if slip is not None:
                return slip
    return None


def _player_slip(wrong: list) -> str | None:
    """``expand`` set the new nodes' ``player`` wrongly, while ``backpropagate`` credits ``returns[node.player]``.

    ``wrong`` holds the point-of-view check's misses: ``(cells, node, state, mover, depth, returns)``.
    None unless every node missed has a ``player`` other than its mover and exactly the
    results of that ``player`` (so ``backpropagate`` is right about the wrong player). A node
    of the student's own design may keep its player under another name (``who``, ``mover``):
    any attribute that is 0 or 1 and fits every node missed so is read as that.
    """
    name = next((a for a in _player_names(wrong[0][1]) if _fits(wrong, a)), None)
    if name is None:
        return None
    cells, node, _, mover, depth, _ = min(wrong, key=lambda w: w[4])
    copied = all(getattr(getattr(w[1], "parent", None), name, None) == getattr(w[1], name) for w in wrong)
    how = f"copied from its parent's `{name}`" if copied else "the player to move in the child's position"
    return (
        f"from {cells} the node for move {node.move} at depth {depth} has `{name}` = {'XO'[getattr(node, name)]}, "
        f"but {'XO'[mover]} made that move: your `backpropagate` rightly credits each node with the results of its "
        f"`{name}`, but `expand` (where the new node is made) set its `{name}` wrongly ({how}). A child's `{name}` "
        "is the player who made its move, the player to move at its parent: game.to_move(node.state) before the move"
    )


_NOT_PLAYERS = {"move", "visits", "wins", "state", "children", "parent", "untried"}


def _player_names(node: Any) -> list[str]:
    """``player`` first, then the node's other attributes (its ``__dict__`` or ``__slots__``) that may hold one."""
    names = list(getattr(node, "__dict__", {})) + [a for k in type(node).__mro__ for a in getattr(k, "__slots__", ())]
    return ["player"] + [a for a in names if a != "player" and a not in _NOT_PLAYERS]


def _fits(wrong: list, name: str) -> bool:
    """Every node missed has ``name`` = 0 or 1, not its mover, and exactly that player's results."""
    for _, node, _, mover, _, returns in wrong:
        player = getattr(node, name, None)
        if type(player) is not int or player not in (0, 1) or player == mover:
            return False
        if abs(node.wins - node.visits * returns[player]) > 1e-9:
            return False
    return True


class _ExpandProbes:
    """Reads the student's trees for slips of ``expand`` (mixed into ``check_uct``'s checker)."""

    has_search: bool | None

    def _expand_cause(self) -> str | None:
        """The slip of ``expand`` seen in a few small searches, or None (searched once per ``check_uct``)."""
        if not hasattr(self, "_expand_found"):
            self._expand_found = None
            if self.has_search:
                game = make_game("tictactoe")
                for cells, seed, n in AUDIT_SEARCHES:
                    state = position(cells)
                    try:
                        root = self.search(self.agent(seed, n), game, state, n)
                        self._expand_found = _expand_slip(game, state, root)
                    except TimeLimitExceeded as err:
                        if err.part == "check_uct":
                            raise
                        continue
                    except Exception:  # noqa: BLE001 - a search that fails tells nothing about expand
                        continue
                    if self._expand_found is not None:
                        break
        return self._expand_found
