"""Evaluators: what PUCT asks at a new leaf, the move priors and the value of the position.

An evaluator is called as ``evaluator(game, state, rng)`` on a position that is not over
and returns ``(priors, value)``: ``priors`` a dict from each legal move to its prior
probability (summing to 1), ``value`` the expected reward (1 win, 0.5 draw, 0 loss) **of
the player to move** in ``state``.

* :class:`RolloutEvaluator`: uniform priors and the result of one random playout, the
  bridge from UCT: PUCT with it is UCT with another exploration term.
* :class:`NetEvaluator`: a :class:`~mctslab.nets.network.PolicyValueNet`'s policy and
  value, AlphaZero's evaluator (Silver et al. 2018).

:func:`shipped_network` loads the network trained for a game and shipped in the package.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from ..games.base import Game, State
from ..games.network import network_encoding
from .network import PolicyValueNet

WEIGHTS_DIR = Path(__file__).with_name("weights")
"""Where the shipped networks live, one ``.npz`` per game spec (see :func:`weights_path`)."""


def weights_path(game: Game) -> Path:
    """The file of ``game``'s shipped network, e.g. ``weights/tictactoe_n3_k3.npz``."""
    name = game.spec.replace(":", "_").replace(",", "_").replace("=", "")
    return WEIGHTS_DIR / f"{name}.npz"


def shipped_network(game: Game) -> PolicyValueNet:
    """The network shipped for ``game``.

    Raises:
        ValueError: if none is shipped for this game (the message lists the games that have one).
    """
    path = weights_path(game)
    if not path.exists():
        have = sorted(p.stem for p in WEIGHTS_DIR.glob("*.npz"))
        raise ValueError(
            f"no network is shipped for {game.spec} (shipped: {', '.join(have) or 'none'}); "
            "use puct:evaluator=rollout, weights=PATH, or train one: python -m mctslab train"
        )
    return PolicyValueNet.load(path)


def legal_mask(game: Game, state: State) -> np.ndarray:
    """1.0 on the legal moves of ``state``, 0.0 elsewhere (length ``policy_size`` of the game's network encoding)."""
    mask = np.zeros(network_encoding(game).policy_size)
    mask[list(game.legal_moves(state))] = 1.0
    return mask


class RolloutEvaluator:
    """Uniform priors over the legal moves, and one random playout's result as the value."""

    name = "rollout"

    def __call__(self, game: Game, state: State, rng: random.Random) -> tuple[dict[int, float], float]:
        moves = game.legal_moves(state)
        player = game.to_move(state)
        return dict.fromkeys(moves, 1.0 / len(moves)), game.rollout(state, rng)[player]


class NetEvaluator:
    """A policy/value network's priors (restricted to the legal moves) and value.

    Args:
        net: the network; its input and output sizes must match the game's network encoding
            (:func:`~mctslab.games.network.network_encoding`: ``features`` and ``policy_size``).
    """

    name = "net"

    def __init__(self, net: PolicyValueNet) -> None:
        self.net = net

    def __call__(self, game: Game, state: State, rng: random.Random) -> tuple[dict[int, float], float]:
        moves = game.legal_moves(state)
        policy, value = self.net.predict(network_encoding(game).features(state), legal_mask(game, state))
        return {m: float(policy[m]) for m in moves}, float(value)
