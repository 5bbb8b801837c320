"""mctslab: learn, teach and reproduce Monte Carlo Tree Search.

Quick start::

    >>> from mctslab import make_game, make_agent
    >>> game = make_game("tictactoe")
    >>> agent = make_agent("uct:iterations=1000", seed=0)
    >>> agent.select_move(game, game.initial_state()) in game.legal_moves(game.initial_state())
    True
"""

from .agents import UCT, Agent, Analysis, MoveStat, Node, make_agent
from .games import (
    CHANCE,
    GAMES,
    Game,
    IllegalMoveError,
    InvalidStateError,
    make_game,
    register_game,
    state_from_moves,
)
from .games.check import GameContractError, check_game
from .play import GameRecord, play_game
from .specs import SpecError
from .tournament import MatchResult, Outcomes, RoundRobinResult, games_needed, play_match, round_robin, wilson
from .ucb import SQRT2, ucb1
from .viz import SearchRecorder, draw_iteration, draw_tree, play_board, tree_explorer, tree_outline

__all__ = [
    "UCT",
    "Agent",
    "Analysis",
    "MoveStat",
    "Node",
    "make_agent",
    "GameRecord",
    "play_game",
    "CHANCE",
    "GAMES",
    "SQRT2",
    "Game",
    "GameContractError",
    "check_game",
    "IllegalMoveError",
    "InvalidStateError",
    "SpecError",
    "make_game",
    "register_game",
    "state_from_moves",
    "ucb1",
    "MatchResult",
    "Outcomes",
    "RoundRobinResult",
    "games_needed",
    "play_match",
    "round_robin",
    "wilson",
    "SearchRecorder",
    "draw_iteration",
    "draw_tree",
    "play_board",
    "tree_explorer",
    "tree_outline",
]
