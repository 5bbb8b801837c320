"""The compiled part of :func:`mctslab.check_game`: a game's compiled rules in lock step with its Python rules.

Registered with :func:`mctslab.games.compiled.register_compiled_check` when the engine is imported
(``check_game`` lives below the engine and calls what is registered). Each random game of the
check is replayed by the kernel :func:`mctslab.engine.kernels.replay` (compiled once per game
file and cached, as the search kernels are); at every position the compiled legal moves must be
the Python ones and the compiled position vector the game's ``compiled_state`` of the Python
position (result, player to move and the game's fields). A few compiled playouts from the
positions of the first game must end with a result (0, 1 or 2) and stop at ``max_moves``.
"""

from __future__ import annotations

import numpy as np

from ..games.base import Game
from ..games.compiled import compiled_encoding, compiled_rules, register_compiled_check
from .backend import available, kernels

__all__ = ["compiled_fault"]


def compiled_fault(game: Game, games: list[list[int]]) -> str | None:
    """The first disagreement of ``game``'s compiled rules with its Python rules on ``games`` (move lists), or None.

    ``None`` too when Numba is not installed (nothing compiled to check).
    """
    if not available():
        return None
    from .uct import _encoded, random_results

    compiled = kernels()
    rules, encode = compiled_rules(game), compiled_encoding(game).compiled_state
    scratch = np.empty(compiled.SCRATCH, dtype=np.int64)
    for moves in games:
        _, st = _encoded(game, game.initial_state())
        legal = np.zeros((len(moves) + 1, 1 + rules.max_moves), dtype=np.int64)
        states = np.zeros((len(moves) + 1, rules.fields), dtype=np.int64)
        compiled.replay(rules, rules.prm, rules.tab, st, np.array(moves, dtype=np.int64), legal, states, scratch)
        state = game.initial_state()
        for i in range(len(moves) + 1):
            theirs = tuple(int(m) for m in legal[i, 1 : 1 + legal[i, 0]])
            if theirs != game.legal_moves(state):
                return f"the compiled legal moves {theirs} are not {game.legal_moves(state)} (after {moves[:i]})"
            if tuple(int(v) for v in states[i]) != tuple(encode(state)):
                return (f"the compiled rules reach {states[i].tolist()}, compiled_state() of the position is "
                        f"{list(encode(state))} (after {moves[:i]})")  # fmt: skip
            if i < len(moves):
                state = game.apply(state, moves[i])
    state = game.initial_state()
    for move in games[0] if games else ():
        if game.is_terminal(state):
            break
        counts = random_results(game, state, playouts=4, seed=0)
        cut = random_results(game, state, playouts=4, seed=0, max_moves=1)
        if counts.sum() != 4 or cut.sum() != 4:
            return f"the compiled playouts must end with a result 0, 1 or 2 (after {games[0]})"
        state = game.apply(state, move)
    return None


register_compiled_check(compiled_fault)
