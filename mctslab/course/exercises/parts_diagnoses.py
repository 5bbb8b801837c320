"""The catalogue of slips the part checks of notebook 04b name, one :class:`Diagnosis` each.

Every failed part check says what was expected and what was seen; when the answer
matches a known slip, its message starts with that slip's :attr:`Diagnosis.says`, so
a reader (and ``tests/test_exercise_parts.py``, which runs a student-style answer with
each slip) can tell which slip was found. :data:`TIMEOUT_HINTS` are the questions a
check asks when a part does not return within its limit.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DIAGNOSES", "PACKAGE_CODE", "PARTS", "TIMEOUT_HINTS", "Diagnosis", "diagnosis", "say"]


@dataclass(frozen=True)
class Diagnosis:
    """One named slip of one part.

    Attributes:
        part: the student's function it blames (``"backpropagate"``).
        name: a short identifier (``"sign_slip"``).
        check: the check of that part's report that fails with it.
        says: the words every message of this diagnosis starts with.
    """

    part: str
    name: str
    check: str
    says: str


_TABLE: tuple[tuple[str, str, str, str], ...] = (
    # part, name, the check that fails, what its message starts with
    ("ucb1", "no_return", "formula", "`ucb1` returned None"),
    ("ucb1", "not_a_number", "formula", "`ucb1` returned something that is not a number"),
    ("ucb1", "unvisited_finite", "unvisited", "a child never visited is worth"),
    ("ucb1", "divides_by_zero", "unvisited", "`ucb1` divided by the visits of a child never visited"),
    ("ucb1", "wins_for_mean", "formula", "not UCB1: the first term is the child's total wins"),
    ("ucb1", "log_of_child", "formula", "not UCB1: the logarithm is of the child's own visits"),
    ("ucb1", "two_inside", "formula", "not UCB1: the exploration term is sqrt(2) times too large"),
    ("ucb1", "two_outside", "formula", "not UCB1: a factor 2 outside the square root"),
    ("ucb1", "c_ignored", "formula", "not UCB1: the value does not change with c"),
    ("ucb1", "no_square_root", "formula", "not UCB1: the square root is missing"),
    ("ucb1", "divides_by_parent", "formula", "not UCB1: the division is by the parent's visits"),
    ("ucb1", "no_exploration", "formula", "not UCB1: there is no exploration term"),
    ("select", "no_return", "untried", "`select` returned None"),
    ("select", "past_untried", "untried", "selection went past a node that still has untried moves"),
    ("select", "stays_at_root", "choice", "selection stopped at the root"),
    ("select", "best_mean", "choice", "selection followed the best mean"),
    ("select", "most_visits", "choice", "selection chose the child with the most visits"),
    ("select", "one_level", "descent", "selection stopped after"),
    ("select", "root_visits", "descent", "selection used the root's visits as N below the root"),
    ("select", "changes_tree", "read_only", "`select` changed the tree"),
    ("select", "no_stop_without_children", "terminal", "`select` raised"),
    ("expand", "no_return", "child", "`expand` returned None"),
    ("expand", "not_attached", "child", "the new child is not in its parent's `children`"),
    ("expand", "no_parent", "child", "the new child's `parent` is not the node expanded"),
    ("expand", "move_stays_untried", "child", "the move expanded is still in the node's `untried`"),
    ("expand", "wrong_player", "point_of_view", "the child's `player` is the player to move at the child"),
    ("expand", "no_untried", "untried", "the new child has no untried moves"),
    ("expand", "not_random", "random", "expand always takes the same untried move"),
    ("expand", "global_random", "random", "expand draws from the module `random`"),
    ("expand", "unseeded", "random", "the same rng seed gave different expansions"),
    ("expand", "shared_moves", "shared", "expand changed a list of moves the game returned"),
    ("expand", "terminal_not_returned", "terminal", "at a node without untried moves"),
    ("simulate", "no_return", "finished", "`simulate` returned None"),
    ("simulate", "winner", "finished", "`simulate` returned the winner"),
    ("simulate", "one_number", "finished", "`simulate` returned one number"),
    ("simulate", "draw_as_loss", "draw", "a drawn playout returned"),
    ("simulate", "global_random", "seeded", "simulate draws from the module `random`"),
    ("simulate", "unseeded", "seeded", "the same rng seed gave different playouts"),
    ("simulate", "moves_node", "seeded", "simulate changed the node"),
    ("simulate", "not_uniform", "random", "playouts from the empty board do not look uniformly random"),
    ("backpropagate", "leaf_only", "path", "only the leaf was updated"),
    ("backpropagate", "root_not_counted", "path", "the root was not updated"),
    ("backpropagate", "off_path", "path", "a node off the path changed"),
    ("backpropagate", "sign_slip", "point_of_view", "wins counted for the player to move"),
    ("backpropagate", "fixed_player", "point_of_view", "wins counted for X at every node"),
    ("backpropagate", "draw_as_loss", "point_of_view", "a draw added nothing"),
    ("backpropagate", "changes_returns", "returns", "`backpropagate` changed the `returns` it was given"),
)

PARTS = ("ucb1", "select", "expand", "simulate", "backpropagate")
"""The student's functions of notebook 04b, in the order the notebook asks for them."""

DIAGNOSES: tuple[Diagnosis, ...] = tuple(Diagnosis(*row) for row in _TABLE) + tuple(
    Diagnosis(part, name, "*", says.format(part=part))
    for part in PARTS
    for name, says in (
        ("endless_loop", "`{part}` did not return within"),
        ("package_code", "`{part}` runs the package's own"),
    )
)
"""Every named slip of the five parts; ``endless_loop`` and ``package_code`` (check ``"*"``) fail
whichever check runs first into them, and the checks after it are skipped."""

TIMEOUT_HINTS: dict[str, str] = {
    "ucb1": "does it loop? UCB1 is one formula, no loop needed",
    "select": "does the loop move down to the chosen child (node = child), and stop at a node with untried moves "
    "or without children?",
    "expand": "does it loop? expand adds one child and returns it",
    "simulate": "does the playout stop when `game.is_terminal(state)`, and does `state` change at every move?",
    "backpropagate": "does the loop move up to `node.parent`, and stop after the root (whose parent is None)?",
}
"""Part -> the question a check asks when that part does not return within its limit."""

PACKAGE_CODE: dict[str, str] = {
    "ucb1": "mctslab.ucb.ucb1",
    "select": "UCT.select",
    "expand": "UCT.expand",
    "simulate": "game.rollout (or UCT.simulate)",
    "backpropagate": "Node.add (or UCT.backpropagate)",
}
"""Part -> the package's implementation an answer must not call."""


def diagnosis(part: str, name: str) -> Diagnosis:
    """The :class:`Diagnosis` called ``name`` of ``part``.

    Raises:
        KeyError: naming the diagnoses of ``part``, for an unknown name.
    """
    for d in DIAGNOSES:
        if d.part == part and d.name == name:
            return d
    known = ", ".join(d.name for d in DIAGNOSES if d.part == part)
    raise KeyError(f"no diagnosis {name!r} for {part!r}; known: {known}")


def say(part: str, name: str, rest: str) -> str:
    """The message of diagnosis ``name`` of ``part``: its :attr:`Diagnosis.says`, then ``rest``."""
    return f"{diagnosis(part, name).says}{rest}"
