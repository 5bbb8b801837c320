"""OpenSpiel's MCTS (``MCTSBot`` with a random-rollout evaluator), for comparison.

Optional: ``pip install -e .[compare]`` installs ``open_spiel``. OpenSpiel's games are
C++; its Python MCTS loop (:func:`uct_search`) is Python, as ours is, which makes it the
fair reference for the pure-Python engine; its C++ ``pyspiel.MCTSBot``
(:func:`cpp_uct_search`) is the reference for the compiled engine (:mod:`mctslab.engine`).
"""

from __future__ import annotations

from collections.abc import Callable

OPENSPIEL_GAMES = {"tictactoe": "tic_tac_toe", "connect4": "connect_four", "uttt": "ultimate_tic_tac_toe"}
"""mctslab game spec -> OpenSpiel game name."""


def available() -> bool:
    """True when ``open_spiel`` can be imported."""
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.algorithms import mcts  # noqa: F401
    except ImportError:
        return False
    return True


def uct_search(game: str, iterations: int, seed: int = 0, c: float = 1.414) -> Callable[[], object]:
    """A function that runs one OpenSpiel MCTS search of ``iterations`` from the initial position.

    ``solve=False`` so that OpenSpiel does the same work per iteration as mctslab's UCT.

    Raises:
        KeyError: if OpenSpiel has no such game.
        ImportError: if open_spiel is not installed.
    """
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    spiel_game = pyspiel.load_game(OPENSPIEL_GAMES[game])
    if OPENSPIEL_GAMES[game] not in pyspiel.registered_names():
        raise KeyError(game)

    def run() -> object:
        rs = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        bot = mcts.MCTSBot(spiel_game, c, iterations, evaluator, solve=False, random_state=rs)
        return bot.mcts_search(spiel_game.new_initial_state())

    return run


def cpp_uct_search(game: str, iterations: int, seed: int = 0, c: float = 1.414) -> Callable[[], object]:
    """A function that runs one search of OpenSpiel's C++ ``pyspiel.MCTSBot`` from the initial position.

    Random rollouts (one per leaf), ``solve=False``, as :func:`uct_search`.

    Raises:
        KeyError: if OpenSpiel has no such game.
        ImportError: if open_spiel is not installed.
    """
    import pyspiel

    spiel_game = pyspiel.load_game(OPENSPIEL_GAMES[game])

    def run() -> object:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(spiel_game, evaluator, c, iterations, 10_000, False, seed, False)
        return bot.mcts_search(spiel_game.new_initial_state())

    return run
