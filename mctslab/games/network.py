"""What a learned evaluator sees of a game (:mod:`mctslab.nets`, :mod:`mctslab.alphazero`): its network adapter.

A game that a policy-value network can play registers a subclass of :class:`NetworkEncoding`
beside it, in its own file::

    @register_network(TicTacToe)
    class TicTacToeNetwork(NetworkEncoding):
        @property
        def policy_size(self) -> int:
            return self.game.cells

        def features(self, state):
            ...

The networks ask :func:`network_encoding`, which names what is missing for a game without one.
:func:`mctslab.check_game` checks the encoding of a game that has one (:func:`encoding_fault`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .adapters import Adapter, concern_base, find_adapter, register_adapter, required_adapter

Symmetry = tuple[tuple[int, ...], tuple[int, ...]]
"""``(feature_perm, move_perm)``: see :meth:`NetworkEncoding.symmetries`."""


@concern_base
class NetworkEncoding(Adapter):
    """A game's positions and moves as a network's inputs and outputs.

    Subclasses give :attr:`policy_size` and :meth:`features`; :meth:`symmetries` defaults to the identity.
    """

    concern = "network"
    names = ("policy_size", "features", "symmetries")

    @property
    def policy_size(self) -> int:
        """Number of move ids for a policy network: every move is an int in ``range(policy_size)``."""
        raise NotImplementedError(f"{type(self).__name__} must give policy_size")

    def features(self, state: Hashable) -> np.ndarray:
        """The position as a flat float vector for a network, from the point of view of the player to move."""
        raise NotImplementedError(f"{type(self).__name__} must give features()")

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The board's symmetries for a network's training data, identity included.

        Each is ``(feature_perm, move_perm)``: the symmetric position's features are
        ``features[feature_perm]`` and its move ``i`` is the original's ``move_perm[i]``
        (index arrays, so a policy target ``pi`` becomes ``pi[move_perm]``). The default
        is the identity alone.
        """
        n = len(self.features(self.game.initial_state()))
        return ((tuple(range(n)), tuple(range(self.policy_size))),)


class NoNetworkEncoding(NetworkEncoding):
    """A game without a network encoding: ``policy_size`` is ``None`` (what PUCT asks first), the rest refuses."""

    @property
    def policy_size(self) -> None:  # type: ignore[override]
        """``None``: no network encoding (``puct:evaluator=net`` refuses the game)."""
        return None

    def features(self, state: Hashable) -> np.ndarray:
        """Refuses: there is no encoding.

        Raises:
            NotImplementedError: naming the game and what to register.
        """
        raise NotImplementedError(_missing(self.game))

    def symmetries(self) -> tuple[Symmetry, ...]:
        """Refuses, as :meth:`features`."""
        raise NotImplementedError(_missing(self.game))


EncodingClass = type[NetworkEncoding]


def register_network(game_class: type) -> Callable[[EncodingClass], EncodingClass]:
    """A class decorator registering a :class:`NetworkEncoding` for ``game_class`` (and its subclasses)."""
    return register_adapter("network", game_class)


def _missing(game: Any) -> str:
    return (
        f"{game.spec} has no network encoding: register a NetworkEncoding for {type(game).__name__} beside it "
        "(mctslab.games.network.register_network); PUCT can use evaluator=rollout"
    )


def network_encoding(game: Any) -> NetworkEncoding:
    """The network encoding registered for ``game``'s class (or a base).

    Raises:
        MissingAdapterError: (a ``ValueError``, one line) for a game without one, naming it and what to register.
    """
    return required_adapter("network", game, _missing)  # type: ignore[return-value]


def network_or_none(game: Any) -> NetworkEncoding:
    """:func:`network_encoding`, or :class:`NoNetworkEncoding` (``policy_size`` ``None``) for a game without one."""
    return find_adapter("network", game) or NoNetworkEncoding(game)  # type: ignore[return-value]


def encoding_fault(game: Any, states: Sequence[Hashable]) -> str | None:
    """What is wrong with ``game``'s network encoding on ``states``, in one line, or ``None``.

    ``features`` has one length everywhere, moves fit ``policy_size``, ``symmetries`` are permutations,
    the identity first.
    """
    encoding = network_encoding(game)
    size = encoding.policy_size
    width = len(encoding.features(game.initial_state()))
    for state in states:
        x = np.asarray(encoding.features(state))
        if x.shape != (width,):
            return f"features() must have one length ({width}) at every position, got {x.shape}"
        if any(not 0 <= m < size for m in game.legal_moves(state)):
            return f"every move must be an int in range(policy_size={size})"
    syms = encoding.symmetries()
    for feature_perm, move_perm in syms:
        if sorted(feature_perm) != list(range(width)) or sorted(move_perm) != list(range(size)):
            return "symmetries() must give permutations of the features and of the moves"
    if not syms or list(syms[0][0]) != list(range(width)):
        return "symmetries() must start with the identity"
    return None
