"""The games, one interface (:class:`Game`), and :func:`make_game` to build them from a spec.

Each game module registers its games in :data:`GAMES` (:func:`register_game`) when it
is imported; this package imports the built-in ones in order, then every other module of
the folder (:mod:`mctslab.games.discovery`), so a new game is one file here and nothing
else. A game's parts for other consumers are adapters registered beside it
(:mod:`mctslab.games.adapters`: :func:`drawing`, :func:`network_encoding`, :func:`compiled_rules`).
It re-exports the public names.
"""

from __future__ import annotations

from ..specs import to_int_list
from .adapters import MissingAdapterError
from .base import CHANCE, Game, IllegalMoveError, InvalidStateError, State, state_from_moves
from .compiled import CompiledEncoding, compiled_encoding, compiled_rules, register_compiled
from .hooks import Drawing, drawing, register_drawing
from .network import NetworkEncoding, network_encoding, register_network
from .registry import GAMES, GameEntry, describe_games, make_game, register_game
from .rollouts import PlayedRollout
from .stones import StoneGame

# Importing a game module registers its games, in this order (the order of GAMES).
# isort: off
from .tictactoe import TicTacToe
from .connect4 import ConnectFour
from .ultimate import Fractio, UltimateTicTacToe
from .nim import Nim

# isort: on
from . import discovery  # noqa: F401, E402  (last: every other game file of the folder registers itself)

__all__ = [
    "CHANCE",
    "GAMES",
    "CompiledEncoding",
    "ConnectFour",
    "Drawing",
    "Fractio",
    "Game",
    "GameEntry",
    "IllegalMoveError",
    "InvalidStateError",
    "MissingAdapterError",
    "NetworkEncoding",
    "Nim",
    "PlayedRollout",
    "State",
    "StoneGame",
    "TicTacToe",
    "UltimateTicTacToe",
    "compiled_encoding",
    "compiled_rules",
    "describe_games",
    "drawing",
    "make_game",
    "network_encoding",
    "register_compiled",
    "register_drawing",
    "register_game",
    "register_network",
    "state_from_moves",
    "to_int_list",
]
