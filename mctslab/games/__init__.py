"""The games, one interface (:class:`Game`), and :func:`make_game` to build them from a spec."""

from __future__ import annotations

from ..specs import Entry, build, to_int_list
from .base import Game, IllegalMoveError, InvalidStateError, State, state_from_moves
from .connect4 import ConnectFour
from .nim import Nim
from .rollouts import PlayedRollout
from .stones import StoneGame
from .tictactoe import TicTacToe
from .ultimate import Fractio, UltimateTicTacToe

GAMES: dict[str, Entry] = {
    "tictactoe": Entry(TicTacToe, {"n": int, "k": int}, "n x n tic-tac-toe, k in a row (default 3 x 3, k=3)"),
    "connect4": Entry(
        ConnectFour, {"rows": int, "cols": int, "k": int}, "Connect Four, k in a row (default 6 rows x 7 cols, k=4)"
    ),
    "uttt": Entry(UltimateTicTacToe, {}, "ultimate tic-tac-toe: win three local boards in a row"),
    "fractio": Entry(Fractio, {}, "Fractio (mode 1): ultimate tic-tac-toe where one local board wins"),
    "nim": Entry(Nim, {"heaps": to_int_list}, "Nim, normal play: take the last object to win (default heaps=3-4-5)"),
}
"""The registered games: spec name -> :class:`mctslab.specs.Entry`."""


def make_game(spec: str | Game) -> Game:
    """Build a game from its spec, e.g. ``"tictactoe"``, ``"tictactoe:n=4,k=3"``, ``"connect4"``.

    Args:
        spec: a registered name with optional ``key=value`` parameters, or a
            :class:`Game` (returned as it is).

    Raises:
        mctslab.specs.SpecError: (a ``ValueError``) for an unknown game or parameter;
            the message lists what is known.
    """
    if isinstance(spec, Game):
        return spec
    return build(spec, GAMES, "game")


def register_game(name: str, factory, params=None, summary: str = "") -> None:
    """Make your own game buildable by :func:`make_game` (and so by the command line).

    Args:
        name: the spec name, lower case.
        factory: a callable returning a :class:`Game`, taking the parameters as keywords.
        params: parameter name -> converter from text (e.g. ``{"size": int}``).
        summary: one line of description.
    """
    GAMES[name.lower()] = Entry(factory, dict(params or {}), summary)


__all__ = [
    "GAMES",
    "ConnectFour",
    "Fractio",
    "Game",
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
