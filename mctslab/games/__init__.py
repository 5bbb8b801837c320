"""The games, one interface (:class:`Game`), and :func:`make_game` to build them from a spec.

Each game module registers its games in :data:`GAMES` (:func:`register_game`) when it
is imported; this package imports the built-in ones in order, then every other module of
the folder (:mod:`mctslab.games.discovery`), so a new game is one file here and nothing
else. It re-exports the public names.
"""

from __future__ import annotations

from ..specs import to_int_list
from .base import CHANCE, Game, IllegalMoveError, InvalidStateError, State, state_from_moves
from .registry import GAMES, GameEntry, make_game, register_game
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
    "ConnectFour",
    "Fractio",
    "Game",
    "GameEntry",
    "IllegalMoveError",
    "InvalidStateError",
    "Nim",
    "PlayedRollout",
    "State",
    "StoneGame",
    "TicTacToe",
    "UltimateTicTacToe",
    "make_game",
    "register_game",
    "state_from_moves",
    "to_int_list",
]
