"""A policy/value network in numpy: a two-layer perceptron with two heads, and Adam.

The whole network, read in one screen. Input ``x`` (a batch of positions encoded by
:meth:`mctslab.games.Game.features`, from the point of view of the player to move)::

    h1 = relu(x @ W1 + b1)                       hidden layer 1
    h2 = relu(h1 @ W2 + b2)                      hidden layer 2
    policy = softmax(h2 @ Wp + bp) over legal moves (illegal moves get probability 0)
    value  = sigmoid(h2 @ wv + bv)               expected reward of the player to move

The value is on the course's reward scale: 1 win, 0.5 draw, 0 loss, **for the player to
move** in the position. The loss is AlphaZero's (Silver et al. 2018), with the value's
squared error replaced by the cross-entropy that suits a sigmoid:
``cross_entropy(pi, policy) + binary_cross_entropy(z, value) + l2 / 2 * |W|^2``, where
``pi`` is the search's visit distribution and ``z`` the game's result for the player to move.
:meth:`PolicyValueNet.gradients` writes the backward pass by hand; the tests compare it
with finite differences.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .files import WEIGHTS, load_weights

__all__ = ["WEIGHTS", "Adam", "Batch", "PolicyValueNet"]


@dataclass
class Batch:
    """Training examples, one row each.

    Attributes:
        x: features, shape (B, inputs).
        legal: 1.0 where a move is legal, else 0.0, shape (B, moves).
        pi: target move probabilities (the search's visit shares), shape (B, moves).
        z: the result for the player to move (1, 0.5 or 0), shape (B,).
    """

    x: np.ndarray
    legal: np.ndarray
    pi: np.ndarray
    z: np.ndarray


class PolicyValueNet:
    """The two-headed perceptron of the module docstring.

    Args:
        inputs: length of a feature vector (``len(network_encoding(game).features(state))``).
        moves: number of move ids (``network_encoding(game).policy_size``).
        hidden: width of both hidden layers.
        seed: initialisation (He-normal weights, zero biases).

    Attributes:
        params: the parameters by name (:data:`WEIGHTS`), numpy arrays.
    """

    def __init__(self, inputs: int, moves: int, hidden: int = 64, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)

        def he(fan_in: int, fan_out: int) -> np.ndarray:
            return rng.normal(0.0, np.sqrt(2.0 / fan_in), (fan_in, fan_out))

        self.params = {
            "W1": he(inputs, hidden),
            "b1": np.zeros(hidden),
            "W2": he(hidden, hidden),
            "b2": np.zeros(hidden),
            "Wp": he(hidden, moves) * 0.1,
            "bp": np.zeros(moves),
            "wv": he(hidden, 1) * 0.1,
            "bv": np.zeros(1),
        }

    @property
    def shape(self) -> tuple[int, int, int]:
        """(inputs, hidden, moves)."""
        inputs, hidden = self.params["W1"].shape
        return inputs, hidden, self.params["Wp"].shape[1]

    def size(self) -> int:
        """Number of parameters."""
        return sum(p.size for p in self.params.values())

    # -- forward -----------------------------------------------------------------------
    def _forward(self, x: np.ndarray, legal: np.ndarray) -> tuple:
        p = self.params
        a1 = x @ p["W1"] + p["b1"]
        h1 = np.maximum(a1, 0.0)
        a2 = h1 @ p["W2"] + p["b2"]
        h2 = np.maximum(a2, 0.0)
        logits = h2 @ p["Wp"] + p["bp"]
        logits = np.where(legal > 0, logits, -np.inf)
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        policy = e / e.sum(axis=1, keepdims=True)
        v_logit = (h2 @ p["wv"] + p["bv"])[:, 0]
        value = 1.0 / (1.0 + np.exp(-v_logit))
        return policy, value, (x, a1, h1, a2, h2)

    def predict(self, x: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Move probabilities (0 on illegal moves) and values for a batch.

        Args:
            x: features, shape (B, inputs) (or one position, shape (inputs,)).
            legal: legal-move mask, shape (B, moves) (or (moves,)).

        Returns:
            ``(policy, value)``: shapes (B, moves) and (B,), or (moves,) and a float
            array of shape () for a single position.
        """
        single = x.ndim == 1
        x2, legal2 = np.atleast_2d(x), np.atleast_2d(legal)
        policy, value, _ = self._forward(x2, legal2)
        return (policy[0], value[0]) if single else (policy, value)

    # -- loss and backward -------------------------------------------------------------
    def loss(self, batch: Batch, l2: float = 1e-4) -> float:
        """The training loss of the module docstring, averaged over the batch."""
        policy, value, _ = self._forward(batch.x, batch.legal)
        return self._loss(policy, value, batch, l2)

    def _loss(self, policy: np.ndarray, value: np.ndarray, batch: Batch, l2: float) -> float:
        eps = 1e-12
        policy_loss = -np.sum(batch.pi * np.log(np.where(batch.legal > 0, policy, 1.0) + eps), axis=1)
        value_loss = -(batch.z * np.log(value + eps) + (1 - batch.z) * np.log(1 - value + eps))
        decay = 0.5 * l2 * sum(np.sum(self.params[k] ** 2) for k in ("W1", "W2", "Wp", "wv"))
        return float(np.mean(policy_loss + value_loss) + decay)

    def gradients(self, batch: Batch, l2: float = 1e-4) -> tuple[float, dict[str, np.ndarray]]:
        """The loss and its gradient with respect to every parameter (backpropagation by hand)."""
        p = self.params
        policy, value, (x, a1, h1, a2, h2) = self._forward(batch.x, batch.legal)
        n = len(x)
        d_logits = (policy - batch.pi) / n  # softmax + cross-entropy (pi sums to 1 over legal moves)
        d_vlogit = ((value - batch.z) / n)[:, None]  # sigmoid + binary cross-entropy
        grads = {
            "Wp": h2.T @ d_logits + l2 * p["Wp"],
            "bp": d_logits.sum(axis=0),
            "wv": h2.T @ d_vlogit + l2 * p["wv"],
            "bv": d_vlogit.sum(axis=0),
        }
        d_h2 = d_logits @ p["Wp"].T + d_vlogit @ p["wv"].T
        d_a2 = d_h2 * (a2 > 0)
        grads["W2"] = h1.T @ d_a2 + l2 * p["W2"]
        grads["b2"] = d_a2.sum(axis=0)
        d_a1 = (d_a2 @ p["W2"].T) * (a1 > 0)
        grads["W1"] = x.T @ d_a1 + l2 * p["W1"]
        grads["b1"] = d_a1.sum(axis=0)
        return self._loss(policy, value, batch, l2), grads

    # -- saving ------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the parameters to an ``.npz`` file (float32: a few KB for tic-tac-toe).

        The file is written whole or not at all (a temporary file beside it, then renamed
        over it), so an interrupted save or a full disk leaves the previous file, and a link
        at ``path`` is replaced, never written through.
        """
        path = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, 0o644)  # what a plain open() would give (mkstemp's file is private)
            with os.fdopen(fd, "wb") as f:
                np.savez_compressed(f, **{k: v.astype(np.float32) for k, v in self.params.items()})
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | Path) -> PolicyValueNet:
        """Read a network written by :meth:`save`.

        Raises:
            ValueError: if the file is missing or not a network file: missing parameters,
                inconsistent or oversized shapes (read before decompressing), values that are
                not finite real numbers (:func:`mctslab.nets.files.load_weights`).
        """
        params = load_weights(path)
        inputs, hidden = params["W1"].shape
        net = cls(inputs, params["Wp"].shape[1], hidden)
        net.params = params
        return net


class Adam:
    """The Adam optimiser (Kingma and Ba 2015) for a :class:`PolicyValueNet`.

    Args:
        net: the network whose ``params`` are updated in place.
        lr: step size.
        betas: decay rates of the first and second moment estimates.
    """

    def __init__(self, net: PolicyValueNet, lr: float = 3e-3, betas: tuple[float, float] = (0.9, 0.999)) -> None:
        self.net, self.lr, self.betas = net, lr, betas
        self.m = {k: np.zeros_like(v) for k, v in net.params.items()}
        self.v = {k: np.zeros_like(v) for k, v in net.params.items()}
        self.t = 0

    def step(self, grads: dict[str, np.ndarray]) -> None:
        """One update of every parameter from its gradient."""
        b1, b2 = self.betas
        self.t += 1
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            m_hat = self.m[k] / (1 - b1**self.t)
            v_hat = self.v[k] / (1 - b2**self.t)
            self.net.params[k] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)

    def state(self) -> dict[str, np.ndarray]:
        """The optimiser's moments and step count, as arrays (for checkpoints)."""
        out = {f"m_{k}": v for k, v in self.m.items()} | {f"v_{k}": v for k, v in self.v.items()}
        out["t"] = np.array(self.t)
        return out

    def restore(self, state: dict[str, np.ndarray]) -> None:
        """Set the state written by :meth:`state`."""
        self.m = {k: np.array(state[f"m_{k}"]) for k in self.m}
        self.v = {k: np.array(state[f"v_{k}"]) for k in self.v}
        self.t = int(state["t"])
