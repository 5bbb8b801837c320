"""PUCT: the tree search of AlphaZero (Silver et al. 2018), as a subclass of UCT.

Three things change from :class:`~mctslab.agents.uct.UCT`, and nothing else:

1. **Selection** maximises ``Q + c * P * sqrt(N) / (1 + n)`` (:class:`PUCTRule`)
   instead of UCB1: ``Q`` the child's mean reward for the player choosing (0.5 before
   any visit), ``P`` its prior, ``N`` the parent's visits and ``n`` the child's. The
   prior, not a log, decides how much a child is explored.
2. **Expansion** adds every child of a leaf at once, each with its prior from the
   evaluator (:meth:`PUCT.expand`).
3. **Simulation** asks the evaluator for the leaf's value instead of always playing a
   random game (:meth:`PUCT.simulate`): with ``evaluator=rollout`` the priors are uniform
   and the value is one random playout (the bridge from UCT), with ``evaluator=net`` both
   come from a policy/value network (:mod:`mctslab.alphazero`).

Point of view: as in UCT, a node's ``wins`` and ``mean`` are the rewards of the player who
made the move into it, so a parent maximises its children's ``mean`` with no sign flip; an
evaluator's value is for the player to move at the leaf, and :meth:`PUCT.simulate` turns it
into per-player returns.
"""

from __future__ import annotations

from math import sqrt
from pathlib import Path
from typing import Any

from .. import validation
from ..games.base import Game
from ..games.network import network_or_none
from ..seeding import Seed
from .base import Param, check_optional_positive_int
from .registry import register_agent
from .rules import SelectionRule
from .uct import UCT, Node, check_c, check_final, check_seconds

EVALUATORS = ("rollout", "net")
"""The evaluators a spec can name (see :mod:`mctslab.nets.evaluators`)."""


class PUCTNode(Node):
    """A :class:`~mctslab.agents.uct.Node` with the prior of the move into it and the value of its position.

    Attributes:
        prior: the evaluator's probability for ``move`` at the parent (1.0 at the root).
        value: the evaluator's value of this position for the player to move, set when the node is
            expanded (:meth:`PUCT.expand`) and read by :meth:`PUCT.simulate` (0.5 before).
    """

    __slots__ = ("prior", "value")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.prior = 1.0
        self.value = 0.5


class PUCTRule(SelectionRule):
    """AlphaZero's PUCT score ``Q + c * P * sqrt(N) / (1 + n)`` (0.5 for ``Q`` before a visit)."""

    name = "PUCT"

    def value(self, parent: Node, child: PUCTNode) -> float:
        """AlphaZero's PUCT score ``Q + c * P * sqrt(N) / (1 + n)`` (0.5 for ``Q`` before a visit).

        ``N`` counts the parent's own evaluation too, so the priors already decide the
        first choice (with ``sqrt(N - 1)`` the first child would be taken on a tie).
        """
        return child.mean + self.c * child.prior * sqrt(parent.visits) / (1 + child.visits)


def _check_evaluator(name: str, value: Any) -> str:
    return validation.one_of(name, value, EVALUATORS)


def _check_alpha(name: str, value: Any) -> float:
    return validation.positive_number(name, value, finite=True)


def _check_weights(name: str, value: Any) -> str | None:
    """The path, once the file is checked (format, shapes from its headers, finite values)."""
    if value is None:
        return None
    if not isinstance(value, (str, Path)) or not str(value) or any(ch in str(value) for ch in ",="):
        raise ValueError(f"{name} must be the path of an .npz file (without ',' or '='), got {value!r}")
    from ..nets.files import check_weights_file

    check_weights_file(value)  # here, when the spec is made, not when the first game starts
    return str(value)


@register_agent
class PUCT(UCT):
    """Monte Carlo Tree Search with AlphaZero's PUCT rule and an evaluator (module docstring).

    Args:
        iterations: simulations per move, >= 1 (default 100; unlimited when ``seconds``
            is given and ``iterations`` is not). Each evaluates one new leaf.
        c: the exploration constant ``c_puct``, >= 0 (default 1.5).
        seconds: wall-clock budget per move, > 0.
        evaluator: ``"rollout"`` (uniform priors, value of a random playout) or ``"net"``
            (the policy/value network: ``weights`` if given, else the network shipped for
            the game being played; a clear error where none is shipped).
        weights: path of an ``.npz`` network file for ``evaluator=net`` (checked here, when
            the agent is made: :func:`mctslab.nets.files.load_weights`; refused with
            ``evaluator=rollout``, which would ignore it).
        noise: weight of Dirichlet noise mixed into the root's priors (self-play only;
            0, the default, turns it off).
        alpha: the Dirichlet concentration of that noise.
        final: ``"visits"`` (default) plays the most visited child, ``"mean"`` the best mean.
        seed: randomness (see :func:`mctslab.seeding.make_rng`).
        network: a :class:`~mctslab.nets.network.PolicyValueNet` to use with
            ``evaluator=net`` instead of a file (training passes its network here; such an
            agent's spec names no weights, so save the network to name it).

    Example:

    >>> from mctslab import make_game
    >>> game = make_game("tictactoe")
    >>> state = game.state_from_moves([0, 3, 1, 4])  # X to move wins at 2
    >>> PUCT(iterations=50, evaluator="net", seed=0).select_move(game, state)
    2
    """

    name = "puct"
    rule_class = PUCTRule
    node_class = PUCTNode
    params = (
        Param("iterations", int, None, check_optional_positive_int, "simulations per move", show="always"),
        Param("seconds", float, None, check_seconds, "time per move, in seconds"),
        Param("c", float, 1.5, check_c, "exploration constant c_puct"),
        Param("evaluator", str, "rollout", _check_evaluator, "priors and values: rollout or net", show="always"),
        Param("weights", str, None, _check_weights, "network file for evaluator=net (default: the shipped one)"),
        Param("noise", float, 0.0, validation.probability, "weight of Dirichlet noise on the root's priors"),
        Param("alpha", float, 0.3, _check_alpha, "Dirichlet concentration of the root noise"),
        Param("final", str, "visits", check_final, "the move played: most visits, or best mean"),
    )

    def __init__(
        self,
        iterations: int | None = None,
        c: float = 1.5,
        seconds: float | None = None,
        evaluator: str = "rollout",
        weights: str | None = None,
        noise: float = 0.0,
        alpha: float = 0.3,
        final: str = "visits",
        seed: Seed = None,
        network: Any = None,
    ) -> None:
        super(UCT, self).__init__(seed)
        if iterations is None and seconds is None:
            iterations = 100
        self.set_params(
            iterations=iterations, c=c, seconds=seconds, evaluator=evaluator, weights=weights,
            noise=noise, alpha=alpha, final=final,
        )  # fmt: skip
        if network is not None and evaluator != "net":
            raise ValueError("a network is only used with evaluator='net'")
        if weights is not None and evaluator != "net":
            raise ValueError(f"weights={weights} is only read with evaluator=net, got evaluator={evaluator}")
        # What UCT's inherited methods read (PUCT declares none of them: no playout policy,
        # no tree reuse, no compiled engine).
        self.max_moves, self.reuse, self.playout, self.engine = None, False, "random", "python"
        self._network = network
        self._evaluators: dict[Game, Any] = {}

    def evaluator_for(self, game: Game) -> Any:
        """The evaluator this agent uses on ``game`` (built once per game).

        Raises:
            ValueError: for ``evaluator=net`` on a game with no network encoding or none shipped.
        """
        ev = self._evaluators.get(game)
        if ev is None:
            from ..nets.evaluators import NetEvaluator, RolloutEvaluator, shipped_network
            from ..nets.network import PolicyValueNet

            if self.evaluator == "rollout":
                ev = RolloutEvaluator()
            else:
                encoding = network_or_none(game)
                if encoding.policy_size is None:
                    raise ValueError(f"evaluator=net needs a network encoding, which {game.spec} does not have")
                net = self._network
                if net is None:
                    net = PolicyValueNet.load(self.weights) if self.weights else shipped_network(game)
                inputs, _, moves = net.shape
                if moves != encoding.policy_size or inputs != len(encoding.features(game.initial_state())):
                    raise ValueError(f"the network ({inputs} inputs, {moves} moves) does not fit {game.spec}")
                ev = NetEvaluator(net)
            self._evaluators[game] = ev
        return ev

    # -- the three steps that change -------------------------------------------------
    def expand(self, game: Game, node: PUCTNode) -> PUCTNode:
        """Evaluate a new leaf and create all its children with their priors; returns the leaf itself.

        The leaf keeps the evaluator's value (``node.value``), which :meth:`simulate` reads from
        the node it is given. A finished position gets no children. At the root, ``noise`` mixes
        Dirichlet noise into the priors (AlphaZero's self-play exploration).
        """
        if node.untried is not None:  # evaluated before: a finished position
            return node
        node.untried = []
        if game.is_terminal(node.state):
            return node
        priors, node.value = self.evaluator_for(game)(game, node.state, self.rng)
        if node.parent is None and self.noise > 0:
            gammas = {m: self.rng.gammavariate(self.alpha, 1.0) for m in priors}
            total = sum(gammas.values()) or 1.0
            priors = {m: (1 - self.noise) * p + self.noise * gammas[m] / total for m, p in priors.items()}
        player = game.to_move(node.state)
        children = []
        for move, p in priors.items():
            child = self.node_class(game.apply(node.state, move), player, move, node)
            child.prior = p
            children.append(child)
        node.children = children
        return node

    def simulate(self, game: Game, node: PUCTNode) -> tuple[float, float]:
        """The leaf's value as per-player returns: the evaluator's (kept on the node by :meth:`expand`), or the result
        of a finished game."""
        if game.is_terminal(node.state):
            return game.returns(node.state)
        v = node.value
        return (v, 1.0 - v) if game.to_move(node.state) == 0 else (1.0 - v, v)

    def iterate(self, game: Game, root: Node) -> int:
        """One simulation: select a leaf, evaluate and expand it, back its value up."""
        leaf, depth = self.select(root)
        node = self.expand(game, leaf)
        self.backpropagate(node, self.simulate(game, node))
        return depth
