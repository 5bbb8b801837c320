"""Position evaluators for PUCT: random rollouts, or a policy/value network in numpy (with the shipped weights).

* :mod:`mctslab.nets.network`: :class:`~mctslab.nets.network.PolicyValueNet`, a two-layer
  perceptron with a policy head and a value head, and its Adam optimiser;
* :mod:`mctslab.nets.files`: network files checked before they are read, and their digests;
* :mod:`mctslab.nets.evaluators`: what PUCT asks for priors and values
  (:class:`~mctslab.nets.evaluators.RolloutEvaluator`, :class:`~mctslab.nets.evaluators.NetEvaluator`)
  and the networks shipped in ``weights/``.

They sit below the agents (:class:`~mctslab.agents.puct.PUCT` uses them); the self-play
training that makes the weights is :mod:`mctslab.alphazero`, above the agents and tournaments.
"""

from .evaluators import NetEvaluator, RolloutEvaluator, shipped_network, weights_path
from .files import check_weights_file, load_weights, weights_digest
from .network import PolicyValueNet

__all__ = [
    "NetEvaluator",
    "PolicyValueNet",
    "RolloutEvaluator",
    "check_weights_file",
    "load_weights",
    "shipped_network",
    "weights_digest",
    "weights_path",
]
