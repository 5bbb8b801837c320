"""UCT one iteration at a time, with a record of its four phases (Bradberry 2015's figures as data).

:class:`SearchRecorder` drives a :class:`~mctslab.agents.uct.UCT` agent through its own
public steps, in the order :meth:`UCT.iterate <mctslab.agents.uct.UCT.iterate>` calls
them (``select``, ``expand``, ``simulate``, ``backpropagate``), and writes down what
each step did. It adds no randomness and changes nothing, so the recorded search
builds exactly the tree ``UCT.search`` builds with the same seed and budget (checked
in ``tests/test_viz_steps.py``): what the pictures show is the real search.

What is recorded for one iteration (an :class:`IterationRecord`):

1. selection: at every node on the way down, each child's wins, visits and score
   under the agent's own selection rule (:attr:`UCT.rule <mctslab.agents.uct.UCT.rule>`:
   for plain UCT, UCB1, :func:`mctslab.ucb.ucb1`, the bandit notebook's formula) and the
   child the agent chose;
2. expansion: the new node (``None`` when selection ended on a finished game);
3. simulation: the random playout's moves and result (:mod:`mctslab.viz.playout`
   replays ``game.rollout`` move by move with a copy of the agent's generator; the
   agent's own rollout is what counts and is untouched);
4. backpropagation: every node from the new one up to the root, with its counts
   before and the reward added.

Any agent of the UCT family (an instance of a subclass of
:class:`~mctslab.agents.uct.UCT`) is recorded the same way: the recorder calls its own
steps and reads its own rule, so a variant with its own node class or selection rule is
recorded and drawn with no change here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..agents.base import Analysis, legal_or_raise, score_label
from ..agents.uct import UCT, Node
from ..games.base import Game, State
from ..seeding import Seed
from ..ucb import SQRT2
from .labels import is_chance, is_outcome, mark, move_text, outcome_title, result_text
from .playout import Playout, copy_rng, playout_moves

__all__ = ["ChildScore", "IterationRecord", "SearchRecorder", "SelectionStep", "Update"]


@dataclass(frozen=True)
class ChildScore:
    """One child as the selection step saw it.

    Attributes:
        node: the child.
        wins: its wins at that moment (for the player who made its move).
        visits: its visits at that moment (>= 1 for plain UCT, which only compares
            visited children; a variant's rule may also score unvisited ones).
        ucb: its score under the agent's selection rule (``agent.rule.value``, a
            :class:`~mctslab.agents.rules.SelectionRule`): for plain UCT the UCB1 value
            ``wins / visits + exploration``.
        exploration: ``agent.rule.exploration``: for UCB1 the exploration term
            ``c * sqrt(ln N / visits)``; for another rule, what it adds to the mean
            (``ucb - mean``) unless the rule says otherwise.
    """

    node: Node
    wins: float
    visits: int
    ucb: float
    exploration: float

    @property
    def mean(self) -> float:
        """``wins / visits`` (0.5 for an unvisited child, as :class:`~mctslab.agents.uct.Node` has it)."""
        return self.wins / self.visits if self.visits else 0.5


@dataclass(frozen=True)
class SelectionStep:
    """One step down the tree: the node, its children's scores, the child chosen.

    Attributes:
        node: the node where the choice was made.
        visits: its visits then (the ``N`` of UCB1).
        scores: every child's :class:`ChildScore`, in the node's child order; none at a
            chance node (see :mod:`mctslab.viz.labels`), where the outcome is drawn, not chosen.
        chosen: the child the agent's :meth:`UCT.select <mctslab.agents.uct.UCT.select>`
            went to (read off its path, not recomputed): for an argmax rule, the child
            with the highest score, the first one on a tie.
    """

    node: Node
    visits: int
    scores: tuple[ChildScore, ...]
    chosen: Node


@dataclass(frozen=True)
class Update:
    """What backpropagation did to one node.

    Attributes:
        node: the node.
        visits: its visits before the update (after: ``visits + 1``).
        wins: its wins before the update (after: ``wins + reward``).
        reward: the playout's return for ``node.player`` (1 win, 0.5 draw, 0 loss).
    """

    node: Node
    visits: int
    wins: float
    reward: float


@dataclass(frozen=True)
class IterationRecord:
    """Everything one UCT iteration did, phase by phase.

    Attributes:
        number: which iteration this was (1 for the first).
        root: the root of the tree.
        selection: the steps down the tree, root first (empty if the root was not
            fully expanded yet).
        leaf: where selection stopped.
        expanded: the node added by expansion, or ``None`` if ``leaf`` is a finished game.
        playout: the simulation, from ``expanded`` (or ``leaf``).
        updates: backpropagation, from the simulated node up to the root.
        c: the exploration constant used (the agent's ``c``).
        rule: the name of the agent's selection rule
            (:attr:`SelectionRule.name <mctslab.agents.rules.SelectionRule.name>` of
            :attr:`UCT.rule <mctslab.agents.uct.UCT.rule>`, ``"UCB1"`` for UCT).
    """

    number: int
    root: Node
    selection: tuple[SelectionStep, ...]
    leaf: Node
    expanded: Node | None
    playout: Playout
    updates: tuple[Update, ...]
    c: float
    rule: str = "UCB1"

    @property
    def score_label(self) -> str:
        """How the scores are labelled in words and pictures: ``"ucb"`` for UCB1, else the rule's name."""
        return score_label(self.rule)

    @property
    def start(self) -> Node:
        """The node the simulation started from (``expanded``, or ``leaf`` when nothing was added)."""
        return self.expanded if self.expanded is not None else self.leaf

    @property
    def path(self) -> tuple[Node, ...]:
        """The nodes of this iteration, root first, down to the simulated node."""
        return tuple(reversed([u.node for u in self.updates]))

    @property
    def depth(self) -> int:
        """Plies from the root to the simulated node (what :meth:`UCT.iterate` returns)."""
        return len(self.updates) - 1

    def describe(self, game: Game | None = None) -> str:
        """The four phases in words, one paragraph each (the text beside Bradberry 2015's figures)."""

        def name(node: Node) -> str:
            if node.move is None:
                return "the root"
            if is_outcome(node, game):
                return outcome_title(game, node)
            return f"{mark(game, node.player)} {move_text(game, node.move)}"

        lines = ["1. selection:"]
        if not self.selection:
            lines.append("   the root still has untried moves: selection stops at once")
        for step in self.selection:
            if not step.scores and is_chance(step.node, game):
                lines.append(f"   at {name(step.node)}, a chance node, N = {step.visits}: drawn, {name(step.chosen)}")
                continue
            lines.append(f"   at {name(step.node)}, N = {step.visits}:")
            for s in step.scores:
                chosen = "  <- highest, chosen" if s.node is step.chosen else ""
                lines.append(
                    f"     {name(s.node):>8s} {s.wins:5g}/{s.visits:<4d}"
                    f" {self.score_label} {s.mean:.3f} + {s.exploration:.3f} = {s.ucb:.3f}{chosen}"
                )
        if self.expanded is not None:
            lines.append(f"2. expansion: new node {name(self.expanded)} (0/0), a random untried move")
        else:
            lines.append(f"2. expansion: none, {name(self.leaf)} is a finished game")
        result = result_text(game, self.playout)
        if self.playout.moves:
            moves = " ".join(move_text(game, m, short=True) for m in self.playout.moves)
            lines.append(f"3. simulation: {len(self.playout.moves)} random moves ({moves}): {result}")
        else:
            lines.append(f"3. simulation: none, the game is over here: {result}")
        changes = ", ".join(
            f"{name(u.node)} {u.wins:g}/{u.visits} -> {u.wins + u.reward:g}/{u.visits + 1}"
            if u.node is not self.root
            else f"the root {u.visits} -> {u.visits + 1} visits"
            for u in self.updates
        )
        lines.append(f"4. backpropagation: {changes}")
        return "\n".join(lines)


class SearchRecorder:
    """Run a UCT agent on one position an iteration at a time, recording the iterations you ask for.

    Args:
        game: the game.
        state: the position searched (it must not be finished).
        agent: the agent whose steps are called: a :class:`~mctslab.agents.uct.UCT` or
            any subclass (its own node class, selection rule and steps are used, and its
            generator, as in a normal search); by default
            ``UCT(c=c, seed=seed, max_moves=max_moves)``.
        c: exploration constant of the default agent, >= 0.
        seed: seed of the default agent.
        max_moves: playout cap of the default agent (``None``: play to the end).

    Attributes:
        root: the root of the tree (a fresh one: a ``reuse`` agent's kept tree is not used).
        iterations: iterations done so far.
        max_depth: deepest simulated node so far, in plies (Bradberry 2015's "maximum depth searched").
        last: the record of the last iteration run by :meth:`step`, or ``None``.

    Raises:
        TypeError: if ``agent`` is not of the UCT family.
        IllegalMoveError: if ``state`` is a finished game.

    Example:
        >>> from mctslab import make_game
        >>> game = make_game("tictactoe")
        >>> rec = SearchRecorder(game, game.initial_state(), seed=0)
        >>> rec.run(20).step().number
        21
    """

    def __init__(
        self,
        game: Game,
        state: State,
        agent: UCT | None = None,
        *,
        c: float = SQRT2,
        seed: Seed = 0,
        max_moves: int | None = None,
    ) -> None:
        if agent is None:
            agent = UCT(c=c, seed=seed, max_moves=max_moves)
        if not isinstance(agent, UCT):
            raise TypeError(f"SearchRecorder records the steps of a UCT agent (UCT or a subclass of it); got {agent!r}")
        legal_or_raise(game, state)
        self.game, self.state, self.agent = game, state, agent
        self.root = agent.new_root(game, state)
        self.iterations = 0
        self.max_depth = 0
        self.last: IterationRecord | None = None

    def run(self, n: int) -> SearchRecorder:
        """Run ``n`` >= 0 iterations without recording them (``UCT.iterate`` itself); returns self."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"the number of iterations must be an int >= 0, got {n!r}")
        for _ in range(n):
            self.max_depth = max(self.max_depth, self.agent.iterate(self.game, self.root))
        self.iterations += n
        return self

    def step(self) -> IterationRecord:
        """Run one iteration, recording its four phases; returns the record (also kept as :attr:`last`)."""
        agent, game, root = self.agent, self.game, self.root
        # 1. selection: the agent's own select; the scores are read off the path it
        # took (nothing changes before backpropagation, so they are the ones it saw).
        leaf, depth, drawn = agent.selection(game, root)
        path = [leaf]
        while path[-1].parent is not None and path[-1] is not root:
            path.append(path[-1].parent)
        path.reverse()
        selection = tuple(self._scores(node, chosen) for node, chosen in zip(path, path[1:], strict=False))
        # 2. expansion
        node = agent.expand(game, leaf) if drawn is None else agent.expand(game, leaf, drawn)
        expanded = node if node is not leaf else None
        if expanded is not None:
            depth += 1
        # 3. simulation: the agent's rollout, and its replay with a copy of the generator.
        twin = copy_rng(agent.rng)
        returns = agent.simulate(game, node)
        playout = playout_moves(game, node.state, twin, agent.max_moves)
        exact = playout.returns == returns and twin.getstate() == agent.rng.getstate()
        if not exact:
            playout = Playout(playout.moves, returns, playout.final, playout.cut, exact=False)
        # 4. backpropagation
        before = []
        walk: Node | None = node
        while walk is not None:
            before.append((walk, walk.visits, walk.wins))
            walk = walk.parent
        agent.backpropagate(node, returns)
        updates = tuple(Update(n, v, w, n.wins - w) for n, v, w in before)
        self.iterations += 1
        self.max_depth = max(self.max_depth, depth)
        self.last = IterationRecord(
            self.iterations, root, selection, leaf, expanded, playout, updates, agent.c, agent.rule.name
        )
        return self.last

    def _scores(self, node: Node, chosen: Node) -> SelectionStep:
        if is_chance(node, self.game):  # chance drew the outcome: there is no score to show
            return SelectionStep(node, node.visits, (), chosen)
        # The agent's own rule, so a variant's scores are its own (plain UCT: UCB1).
        rule = self.agent.rule
        scores = tuple(
            ChildScore(ch, ch.wins, ch.visits, rule.value(node, ch), rule.exploration(node, ch)) for ch in node.children
        )
        return SelectionStep(node, node.visits, scores, chosen)

    def analysis(self) -> Analysis:
        """The decision so far, as :meth:`UCT.analyse` reports it: move, per-move statistics, depth, tree.

        Raises:
            ValueError: before the first iteration (no move has statistics yet).
        """
        if not self.root.children:
            raise ValueError("no iteration has run yet: call run() or step() first")
        best = self.agent.best_child(self.root)
        return Analysis(
            best.move,
            self.agent.move_stats(self.root),
            iterations=self.iterations,
            max_depth=self.max_depth,
            root=self.root,
            rule=self.agent.rule.name,
        )

    def __repr__(self) -> str:
        return f"SearchRecorder({self.game!r}, iterations={self.iterations}, nodes={self.root.size()})"
