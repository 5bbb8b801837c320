"""The ``playouts`` check of :func:`~mctslab.course.exercises.check_uct`: a whole agent's playouts are random.

A student who writes the agent as one class writes its playout inside it, where
``check_simulate`` never sees it. A playout that always plays the same moves (the first
legal one, say) passes every other check of ``check_uct`` on tic-tac-toe: the tree, the
statistics, UCB1, even the games against perfect play. It is seen in the results.

From the empty board the agent searches one iteration, with each of :data:`SEEDS` seeds:
one child of the root is expanded and played out, and its ``wins`` (1, 0.5 or 0 for X)
is that playout's result. A random playout from a child ends in a win, a draw or a loss
with the exact probabilities of random play (:func:`~mctslab.exact.exact_move_odds`),
so a child sampled ``n`` times shows a single result with probability
``sum(p ** n)``, small but not zero; a playout that plays the same moves every time
shows a single result always. The check counts the children sampled at least
:data:`AT_LEAST` times that show one result only, and fails when random playouts would
show that many or more with probability below :data:`ALPHA` (the exact tail of a sum of
independent Bernoulli variables, in fractions): a correct agent fails it less than once
in a million runs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

from ...exact import exact_move_odds
from ...games import make_game

SEEDS = 270
"""Searches of one iteration from the empty board (about 30 per child)."""

AT_LEAST = 12
"""Children sampled fewer times than this are not judged (a single result is too likely)."""

ALPHA = Fraction(1, 10**6)
"""The check fails when random playouts show as many single-result children with probability below this."""


def tail(chances: list[Fraction], at_least: int) -> Fraction:
    """The probability that ``at_least`` or more of independent events with these ``chances`` happen (exact)."""
    counts = [Fraction(1)]  # counts[k]: the probability that k of the events so far happened
    for q in chances:
        counts = [(counts[k] if k < len(counts) else 0) * (1 - q) + (counts[k - 1] * q if k else 0)
                  for k in range(len(counts) + 1)]  # fmt: skip
    return sum(counts[at_least:], Fraction(0))


class _PlayoutProbes:
    """The ``playouts`` check, mixed into the checker (which brings ``agent`` and ``search``)."""

    def playouts(self) -> tuple[bool, str]:
        game = make_game("tictactoe")
        state = game.initial_state()
        odds = exact_move_odds(game, state)  # move -> (X wins, O wins, draw) of random play after it
        seen: dict[Any, Counter] = defaultdict(Counter)
        for seed in range(SEEDS):
            root: Any = self.search(self.agent(100 + seed, 1), game, state, 1)  # type: ignore[attr-defined]
            played = [ch for ch in root.children if ch.visits]
            if len(played) == 1:  # 'one_iteration' has checked this; a stray tree is not judged here
                seen[played[0].move][round(float(played[0].wins), 9)] += 1
        judged = {m: results for m, results in seen.items() if sum(results.values()) >= AT_LEAST and m in odds}
        if not judged:
            return True, f"{SEEDS} searches of one iteration: too few playouts per child to judge"
        single = [m for m, results in judged.items() if len(results) == 1]
        chances = []
        for m, results in judged.items():
            n = sum(results.values())
            chances.append(sum((p**n for p in odds[m]), Fraction(0)))
        p = tail(chances, len(single))
        if p >= ALPHA:
            return True, (
                f"{SEEDS} searches of one iteration from the empty board: {len(judged) - len(single)} of the "
                f"{len(judged)} children sampled {AT_LEAST} times or more ended in different results, as random "
                "playouts do"
            )
        m = single[0]
        x, o, draw = (float(v) for v in odds[m])
        result = {1.0: "an X win", 0.5: "a draw", 0.0: "an O win"}.get(next(iter(judged[m])), "the same result")
        return False, (
            f"{SEEDS} searches of one iteration from the empty board: the playouts after {len(single)} of the "
            f"{len(judged)} children ended in one result only (after X's move {m}, {result} all "
            f"{sum(judged[m].values())} times, where random playouts end in an X win {x:.0%}, a draw {draw:.0%}, "
            f"an O win {o:.0%} of the time; random playouts would do this with probability {float(p):.1g}): the "
            "playouts play the same moves every time. Draw each playout move at random from the legal moves, "
            "with your agent's generator (self.rng.choice(moves))"
        )
