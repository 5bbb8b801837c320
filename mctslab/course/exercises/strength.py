"""The statistical checks of ``check_uct``: wins and blocks in one, draws, perfect play; their margins derived.

A correct UCT is random, so these checks tolerate a few misses; the number of searches
and the tolerance are chosen so that a correct agent fails with probability below 1 in
10,000 while the slip each check is for fails with probability above 99.9%.

Measured on a student-style correct UCT (``tests/test_exercise_uct_agent.py``'s), with
seeds the checks do not use:

* **wins and blocks in one** (:data:`~mctslab.course.exercises.positions.ONE_MOVE`, 10
  positions) and **draw escapes** (:data:`~mctslab.course.exercises.positions.DRAW_ESCAPES`,
  6 positions), 300 iterations: 0 misses in 2,000 seeds for each of the 16 positions, so
  the miss probability of one search is at most p0 = 1.5e-3 (the 95% upper bound, 3 / 2,000).
* **the sign slips**: scoring every node for X misses 4 of the 10 one-move positions
  (and 4 of the 6 draw escapes) in 200 of 200 seeds each (p1 >= 0.985); scoring for the
  player to move misses all 16 in 200 of 200. **Draws scored as losses** misses each draw
  escape in 124 to 157 of 200 seeds (p1 >= 0.55 at 95%).
* **against perfect play**, 2,000 iterations: 7 losses in 4,000 games (both seats), a loss
  rate of 1.75e-3, at most p0 = 3.6e-3 (the 95% upper bound, :data:`PERFECT_P0`). The old
  rule, no loss in 4 games, failed a correct agent once in about 150 runs (4 x 1.75e-3).

Hence, with ``T`` searches (each position with several seeds) and at most ``m`` misses allowed,
a correct agent fails with probability at most ``C(T, m + 1) p0^(m + 1)``, and a slip passes
with probability ``P(Binomial(T_slip, p1) <= m)``:

* ``one_move``: T = 20 (two seeds per position), m = 2: false fail <= C(20, 3) 1.5e-3^3 = 3.8e-6;
  the X-only slip misses 8 searches with p1 >= 0.985: it passes with probability
  <= C(8, 6) 0.015^6 = 3.2e-10.
* ``draws``: T = 18 (three seeds per position), m = 2: false fail <= C(18, 3) 1.5e-3^3 = 2.8e-6;
  draws scored as losses (18 searches at p1 >= 0.55) passes with probability
  P(Bin(18, 0.55) <= 2) = 1.4e-4 (1.2e-5 at the measured 0.62).
* ``perfect``: G = 4 games, m = 1 loss: false fail <= C(4, 2) 3.6e-3^2 = 7.8e-5. No slip of
  the catalogue reaches this check (each is caught by a deterministic probe before it); it
  guards against a weakness that no other check names.

The three together fail a correct agent with probability at most 8.5e-5. The tests
(``tests/test_exercise_uct_agent.py``) run a correct UCT over 200 seed streams (``one_move``,
``draws``; 25 for ``perfect``): none fails; and each slip over 50: every one fails.
"""

from __future__ import annotations

from typing import Any

from ...agents.perfect import PerfectPlayer
from ...games import make_game
from .diagnoses import _one_move_diagnosis
from .positions import DRAW_ESCAPES, ONE_MOVE, PERFECT_GAMES, position

Outcome = tuple[bool, str]

ONE_MOVE_SEEDS = 2
"""Searches per one-move position (different seeds)."""

ONE_MOVE_TOLERANCE = 2
"""Misses allowed in the one-move searches."""

DRAW_SEEDS = 3
"""Searches per draw escape (different seeds)."""

DRAW_TOLERANCE = 2
"""Misses allowed in the draw-escape searches."""

PERFECT_TOLERANCE = 1
"""Games lost to perfect play allowed (of ``2 * PERFECT_GAMES``)."""

PERFECT_P0 = 3.6e-3
"""Upper 95% bound of a correct UCT's loss rate against perfect play at 2,000 iterations (7 losses in 4,000 games)."""

BUDGETS = {"one_move": 300, "draws": 300, "perfect": 2000}
"""Iterations per move of the statistical checks."""


class _Strength:
    """The statistical checks of ``check_uct`` (mixed into its checker)."""

    def one_move(self) -> Outcome:
        game = make_game("tictactoe")
        n = BUDGETS["one_move"]
        missed: dict[str, list[str]] = {}
        seed = total = 0
        for case, positions in ONE_MOVE.items():
            for cells, want in positions:
                for _ in range(ONE_MOVE_SEEDS):
                    move = self.move(self.agent(seed, n), game, position(cells), n)
                    seed += 1
                    total += 1
                    if move != want:
                        missed.setdefault(case, []).append(f"{cells} (played {move}, not {want})")
        misses = sum(len(m) for m in missed.values())
        if misses <= ONE_MOVE_TOLERANCE:
            return True, (
                f"{total} searches of {n} iterations ({ONE_MOVE_SEEDS} seeds per position): {total - misses} wins "
                f"and blocks found, as X and as O (a correct UCT misses fewer than 1 in 600)"
            )
        return False, (
            f"{misses} of {total} searches missed (a correct UCT misses at most {ONE_MOVE_TOLERANCE}). "
            + _one_move_diagnosis(missed)
            + " Missed: "
            + "; ".join(f"{case}: {', '.join(where)}" for case, where in missed.items())
        )

    def draws(self) -> Outcome:
        game = make_game("tictactoe")
        n = BUDGETS["draws"]
        missed, seed = [], 100
        for cells, want in DRAW_ESCAPES:
            for _ in range(DRAW_SEEDS):
                move = self.move(self.agent(seed, n), game, position(cells), n)
                seed += 1
                if move != want:
                    missed.append(f"{cells} (played {move}, not {want})")
        total = DRAW_SEEDS * len(DRAW_ESCAPES)
        if len(missed) <= DRAW_TOLERANCE:
            return True, (
                f"{total} searches in {len(DRAW_ESCAPES)} positions where only a draw avoids defeat: the draw "
                f"chosen {total - len(missed)} times"
            )
        return False, (
            f"in {len(missed)} of {total} searches where one move draws and every other loses, your agent played "
            f"a losing move (a correct UCT does so at most {DRAW_TOLERANCE} times): is a draw worth half a win "
            "(0.5) in `wins`? Scored as a loss, the draw looks no better than losing. Missed: " + "; ".join(missed)
        )

    def perfect(self) -> Outcome:
        game = make_game("tictactoe")
        n = BUDGETS["perfect"]
        losses, draws, played = [], 0, 0
        for i in range(PERFECT_GAMES):
            for seat in (0, 1):
                agents: list[Any] = [None, None]
                agents[seat] = self.agent(100 + 2 * i + seat, n)
                agents[1 - seat] = PerfectPlayer(seed=200 + 2 * i + seat)
                state, moves = game.initial_state(), []
                while not game.is_terminal(state):
                    mover = game.to_move(state)
                    if mover == seat:
                        move = self.move(agents[mover], game, state, n)
                    else:
                        move = agents[mover].select_move(game, state)
                    state = game.play(state, move)
                    moves.append(move)
                played += 1
                result = game.returns(state)[seat]
                draws += result == 0.5
                if result == 0:
                    losses.append(f"as {'XO'[seat]}: moves {moves}")
        if len(losses) <= PERFECT_TOLERANCE:
            lost = f", {len(losses)} lost (allowed: {PERFECT_TOLERANCE})" if losses else ""
            return True, f"{played} games against perfect play at {n} iterations, both seats: {draws} drawn{lost}"
        return False, (
            f"lost {len(losses)} of {played} games against perfect play at {n} iterations ({'; '.join(losses)}); "
            f"a correct UCT lost 7 of 4,000 such games when measured, so look again at the checks above with "
            "more positions of your own"
        )
