"""The tournament-statistics exercise: a student's Wilson interval, and a match scored with one.

:func:`check_wilson` grades a student's ``wilson(successes, n, z)`` against
:func:`mctslab.tournament.stats.wilson` and names the usual slips (the textbook Wald
interval, a centre left at the observed rate, a missing denominator).
:func:`play_student_match` plays a student's agent (any object with ``select_move``)
against a package agent, seats alternating, and returns the student's
:class:`~mctslab.tournament.stats.Outcomes` (score and Wilson interval included); each
move of the student's agent has a time limit, and an overrun or an illegal move stops the
match with a :class:`StudentAgentError` that says which game, which move, and what went wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist
from typing import Any

import numpy as np

from ...agents import Agent, make_agent
from ...games import Game, make_game
from ...tournament.stats import Outcomes, wilson
from ...validation import non_negative_int, positive_int
from .limits import TimeLimitExceeded, time_limit
from .report import Report
from .runner import Outcome, run_checks
from .student import _as_int, _function

__all__ = ["MOVE_SECONDS", "StudentAgentError", "check_wilson", "play_student_match"]

_Z95 = NormalDist().inv_cdf(0.975)
_Z99 = NormalDist().inv_cdf(0.995)
_GRID = [(s, n, z) for (s, n) in ((3, 10), (7.5, 10), (45, 100), (91, 100), (1, 20), (250, 400)) for z in (_Z95, _Z99)]


def _wald(s: float, n: int, z: float) -> tuple[float, float]:
    p = s / n
    half = z * math.sqrt(p * (1 - p) / n)
    return (p - half, p + half)


def _centred_at_p(s: float, n: int, z: float) -> tuple[float, float]:
    p, z2n = s / n, z * z / n
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    return (p - half, p + half)


def _no_denominator(s: float, n: int, z: float) -> tuple[float, float]:
    p, z2n = s / n, z * z / n
    centre = p + z2n / 2
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    return (centre - half, centre + half)


_SLIPS = (
    (_wald, "this is the textbook (Wald) interval p +- z sqrt(p (1 - p) / n); Wilson's is centred between p "
     "and 1/2 and does not collapse to a point at 0 or n successes"),
    (_centred_at_p, "the interval is centred at the observed rate p; Wilson's centre is "
     "(p + z^2 / 2n) / (1 + z^2 / n), pulled towards 1/2"),
    (_no_denominator, "the centre and the half-width are not divided by 1 + z^2 / n"),
)  # fmt: skip


def _close(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(a, b, strict=True))


def check_wilson(wilson_function: Callable[[float, int, float], tuple[float, float]]) -> Report:
    """Check a student's ``wilson(successes, n, z)``, the Wilson score interval of a rate.

    Args:
        wilson_function: returns ``(low, high)`` for ``successes`` out of ``n`` (successes
            may be fractional: a score counts a draw as half a win) with the normal
            quantile ``z`` (1.96 for 95%).

    Returns:
        A :class:`Report` with the checks ``formula`` (against
        :func:`mctslab.tournament.stats.wilson`, at 95% and 99%) and ``edges`` (0 and
        ``n`` successes give ``[0, high]`` and ``[low, 1]``, not a point).
    """

    def formula() -> Outcome:
        got = [tuple(map(float, wilson_function(s, n, z))) for s, n, z in _GRID]
        want = [wilson(s, n, 0.95 if z == _Z95 else 0.99) for s, n, z in _GRID]
        if all(_close(a, b) for a, b in zip(got, want, strict=True)):
            return True, f"{len(_GRID)} rates (fractional successes included), at 95% and 99%: the same intervals"
        for slip, words in _SLIPS:
            if all(_close(a, slip(s, n, z)) for a, (s, n, z) in zip(got, _GRID, strict=True)):
                return False, f"not Wilson's interval: {words}"
        i = next(k for k in range(len(_GRID)) if not _close(got[k], want[k]))
        s, n, z = _GRID[i]
        return False, (
            f"for {s:g} successes in {n} (z = {z:.4f}) your interval is ({got[i][0]:.5f}, {got[i][1]:.5f}); "
            f"Wilson's is ({want[i][0]:.5f}, {want[i][1]:.5f})"
        )

    def edges() -> Outcome:
        low0, high0 = map(float, wilson_function(0, 10, _Z95))
        lown, highn = map(float, wilson_function(10, 10, _Z95))
        w0, wn = wilson(0, 10), wilson(10, 10)
        if abs(low0) < 1e-12 and abs(highn - 1) < 1e-12 and math.isclose(high0, w0[1]) and math.isclose(lown, wn[0]):
            return True, f"0 of 10 gives [0, {high0:.3f}], 10 of 10 gives [{lown:.3f}, 1]: never a single point"
        return False, (
            f"0 of 10 gives ({low0:.4f}, {high0:.4f}) and 10 of 10 gives ({lown:.4f}, {highn:.4f}); Wilson's "
            f"are [0, {w0[1]:.4f}] and [{wn[0]:.4f}, 1]: ten losses do not prove a win rate of exactly 0"
        )

    return run_checks("check_wilson", wilson_function, [
        ("formula", "Wilson's interval", formula),
        ("edges", "no collapse at 0 or n successes", edges),
    ], "wilson")  # fmt: skip


class StudentAgentError(RuntimeError):
    """The student's agent failed during a match: it overran its time per move or played an illegal move."""


MOVE_SECONDS = 30.0
"""The default time limit of one move of the student's agent in :func:`play_student_match`."""


def play_student_match(
    make_student: Callable[[int], Any],
    opponent: str | Agent,
    games: int,
    seed: int = 0,
    game: str | Game = "tictactoe",
    move_seconds: float = MOVE_SECONDS,
) -> Outcomes:
    """Play a student's agent against a package agent, seats alternating, and count the student's results.

    Game ``i`` gives the student ``make_student(s)`` and the opponent ``make_agent(opponent, seed=t)``,
    with ``s`` and ``t`` drawn from ``numpy.random.SeedSequence(seed).spawn(games)[i]``;
    the student moves first in the even games. Each call into the student's agent (the
    factory, each ``select_move``) runs under a time limit of ``move_seconds``.

    Args:
        make_student: ``make_student(seed)`` returns a fresh agent with ``select_move(game, state)``.
        opponent: an agent spec such as ``"uct:iterations=300"`` (or a spec-built agent).
        games: number of games, >= 1.
        seed: an int >= 0.
        game: the game or its spec.
        move_seconds: the time limit of one move of the student's agent, > 0.

    Returns:
        The student's :class:`~mctslab.tournament.stats.Outcomes` (``score``, ``score_ci()``).

    Raises:
        TypeError, ValueError: for a bad ``games``, ``seed`` or ``move_seconds``.
        StudentAgentError: when the student's agent does not return a move within
            ``move_seconds`` or returns an illegal one (the message says which game, which
            move, and what was wrong).
    """
    games = positive_int("games", games)
    seed = non_negative_int("seed", seed)
    if isinstance(move_seconds, bool) or not isinstance(move_seconds, (int, float)) or not move_seconds > 0:
        raise ValueError(f"move_seconds must be a number of seconds > 0, got {move_seconds!r}")
    game = make_game(game)
    spec = opponent.spec if isinstance(opponent, Agent) else opponent
    wins = draws = losses = 0
    for i, child in enumerate(np.random.SeedSequence(seed).spawn(games)):
        s, t = (int(x) for x in child.generate_state(2, np.uint32))
        seat = i % 2
        agents: list[Any] = [None, None]
        where = f"game {i + 1} of {games} (your agent plays seat {seat})"
        agents[seat] = _student_call(make_student, (s,), move_seconds, f"{where}: make_student({s})")
        agents[1 - seat] = make_agent(spec, seed=t)
        state, ply = game.initial_state(), 0
        while not game.is_terminal(state):
            mover = game.to_move(state)
            if mover == seat:
                at = f"{where}, move {ply + 1}: your agent's select_move"
                move = _as_int(_student_call(agents[seat].select_move, (game, state), move_seconds, at))
                legal = game.legal_moves(state)
                if not isinstance(move, int) or isinstance(move, bool) or move not in legal:
                    raise StudentAgentError(
                        f"{at} returned {move!r}, not a legal move; legal moves: {list(legal)} (position: "
                        f"{game.render(state)!r})"
                    )
            else:
                move = agents[mover].select_move(game, state)
            state = game.play(state, move)
            ply += 1
        result = game.returns(state)[seat]
        wins += result == 1.0
        draws += result == 0.5
        losses += result == 0.0
    return Outcomes(wins, draws, losses)


def _student_call(function: Callable[..., Any], args: tuple, seconds: float, what: str) -> Any:
    """``function(*args)`` under a time limit; an overrun is a :class:`StudentAgentError` naming ``what``."""
    try:
        with time_limit(seconds, what):
            return function(*args)
    except TimeLimitExceeded as err:
        running = _function(err)
        hint = f" (it was running `{running}`)" if running else ""
        raise StudentAgentError(
            f"{what} did not return within {err.within}{hint}: does it run `self.iterations` iterations, and "
            "does every loop end?"
        ) from None
