"""Exact values of Racioppo 2020's pure Monte Carlo rows, by enumerating every game.

Pure Monte Carlo (window 1) on 3 x 3 tic-tac-toe decides from one multinomial sample per
legal move (:mod:`.outcomes` gives its exact probabilities), so the probability of each
decision can be computed, not sampled: the score of move ``j`` (X wins minus O wins over
``playouts`` playouts) has an exact distribution, independent of the other moves', and

* with random tie-breaking (the corrected procedure), move ``i`` is chosen with probability
  ``sum_s P(S_i = s) * integral_0^1 prod_{j != i} (P(S_j < s) + P(S_j = s) t) dt`` (each of the
  ``m`` tied rivals makes the tie an ``m + 1``-way lottery, and ``1 / (m + 1)`` is that integral);
* with seed's numpy order (defect ``ties``: the first best move in the list wins), with
  ``sum_s P(S_i = s) prod_{j < i} P(S_j < s) prod_{j > i} P(S_j <= s)``.

Playing every position out with these decision probabilities (and 1/k for a random
player) gives the exact probability of each outcome of a match, of X opening in the
centre, and of X holding the centre when the game ends. The windowed rows (2 or 3
rounds) are not covered: they are measured by simulation only.

Computing every row takes about a minute (the 100-playout rows cost most), so
:func:`precompute_exact` stores the values in a small JSON file that notebook 08 loads
(:func:`load_exact`); ``tests/test_reproduction.py`` recomputes the cheap rows and compares.
Regenerate with ``nice -n 10 python -m mctslab.course.reproduction.exact_rows``.

Floating point is fine here: these are reference probabilities shown beside simulated
rates, and no decision is taken by comparing them.
"""

from __future__ import annotations

import argparse
import json
import os
from functools import cache
from pathlib import Path

import numpy as np

from ...agents import make_agent
from ..experiments.tables import PanelTable
from .agent import DEFECTS, RacioppoMonteCarlo
from .outcomes import FULL, has_line
from .rows import PAPER_ROWS, Row

CENTRE = 4


@cache
def _score_distributions(x: int, o: int, mover: int, playouts: int, turn: bool, check: bool) -> np.ndarray:
    """``P(score = s)`` for each legal move (rows) and ``s = -playouts .. playouts`` (columns), in the mover's view.

    The score is X wins minus O wins for X, O wins minus X wins for O: the quantity each
    maximises (X's ``np.argmax``, O's ``np.argmin`` of X wins minus O wins).
    """
    from .agent import _probabilities

    rows = []
    for p_x, p_o, p_d in _probabilities(x, o, mover, turn, check):
        up, down = (p_x, p_o) if mover == 0 else (p_o, p_x)
        rows.append(_power(np.array([down, p_d, up]), playouts))  # one playout scores -1, 0 or +1
    return np.array(rows)


def _power(step: np.ndarray, n: int) -> np.ndarray:
    """The distribution of the sum of ``n`` independent draws of ``step`` (values -1, 0, +1), by squaring."""
    result, base = np.ones(1), step
    while n:
        if n & 1:
            result = np.convolve(result, base)
        n >>= 1
        if n:
            base = np.convolve(base, base)
    return result


@cache
def decision_probabilities(
    x: int, o: int, mover: int, playouts: int, defects: frozenset[str] = frozenset()
) -> tuple[float, ...]:
    """Exact probability that window-1 Racioppo Monte Carlo plays each legal move (ascending cells).

    Args:
        x: X's stones (bit ``i``: cell ``i``).
        o: O's stones.
        mover: 0 for X, 1 for O.
        playouts: random games per move (Racioppo's ``it``), >= 1.
        defects: the defects switched on (only ``turn``, ``check`` and ``ties`` act in window 1).

    Returns:
        One probability per empty cell, in ascending cell order, summing to 1.
    """
    dist = _score_distributions(x, o, mover, playouts, "turn" in defects, "check" in defects)
    below = np.cumsum(dist, axis=1) - dist  # P(S_j < s)
    k, width = dist.shape
    if "ties" in defects:
        # the first best move wins: rivals before i must be below, rivals after at most equal
        at_most = below + dist
        ones = np.ones((1, width))
        before = np.cumprod(np.vstack([ones, below[:-1]]), axis=0)  # prod_{j < i} P(S_j < s)
        after = np.cumprod(np.vstack([ones, at_most[:0:-1]]), axis=0)[::-1]  # prod_{j > i} P(S_j <= s)
        factor = before * after
    else:
        # poly[i, d, s]: coefficient of t**d in prod_{j != i} (P(S_j < s) + P(S_j = s) t)
        poly = np.zeros((k, k, width))
        poly[:, 0] = 1.0
        for j in range(k):
            shifted = np.concatenate([np.zeros((k, 1, width)), poly[:, :-1]], axis=1)
            updated = below[j] * poly + dist[j] * shifted
            updated[j] = poly[j]
            poly = updated
        factor = (poly / np.arange(1, k + 1)[None, :, None]).sum(axis=1)  # integral over t in [0, 1]
    out = (dist * factor).sum(axis=1)
    return tuple(float(v) for v in out / out.sum())


def _player(spec: str) -> tuple[int, frozenset[str]] | str | None:
    """``"random"``, ``(playouts, defects)`` for window-1 Racioppo Monte Carlo, or ``None`` (not covered)."""
    if spec == "random":
        return "random"
    agent = make_agent(spec)
    if isinstance(agent, RacioppoMonteCarlo) and agent.window == 1:
        return (agent.playouts, frozenset(agent.defects))
    return None


def _moves_and_probabilities(player, x: int, o: int, mover: int) -> tuple[list[int], tuple[float, ...]]:
    moves = [c for c in range(9) if not (x | o) >> c & 1]
    if player == "random":
        return moves, tuple(1 / len(moves) for _ in moves)
    playouts, defects = player
    return moves, decision_probabilities(x, o, mover, playouts, defects)


@cache
def match_probabilities(x_spec: str, o_spec: str) -> tuple[float, float, float, float] | None:
    """Exact ``(X wins, O wins, draw, X holds the centre at the end)`` of a game, or ``None`` if not covered.

    Args:
        x_spec: X's agent: ``"random"`` or a window-1 ``racioppo:...`` spec.
        o_spec: O's agent, likewise.
    """
    players = (_player(x_spec), _player(o_spec))
    if None in players:
        return None

    @cache
    def value(x: int, o: int) -> np.ndarray:
        if has_line(x):
            return np.array([1.0, 0.0, 0.0, x >> CENTRE & 1])
        if has_line(o):
            return np.array([0.0, 1.0, 0.0, x >> CENTRE & 1])
        if x | o == FULL:
            return np.array([0.0, 0.0, 1.0, x >> CENTRE & 1])
        mover = 0 if bin(x).count("1") == bin(o).count("1") else 1
        moves, probs = _moves_and_probabilities(players[mover], x, o, mover)
        total = np.zeros(4)
        for move, p in zip(moves, probs, strict=True):
            if p > 0:
                total += p * (value(x | 1 << move, o) if mover == 0 else value(x, o | 1 << move))
        return total

    return tuple(float(v) for v in value(0, 0))


def centre_opening_probability(spec: str) -> float | None:
    """Exact probability that ``spec``, as X on the empty board, opens in the centre (``None``: not covered)."""
    player = _player(spec)
    if player is None:
        return None
    moves, probs = _moves_and_probabilities(player, 0, 0, 0)
    return probs[moves.index(CENTRE)]


def exact_rates(row: Row, procedure: str, defects: frozenset[str] | None = None) -> tuple[float, ...] | None:
    """The exact rates of ``row`` under ``procedure``, in the order of its measurement, or ``None``.

    Args:
        row: a row of :data:`~mctslab.course.reproduction.rows.PAPER_ROWS` (or planned rows: ``None``).
        procedure: ``"paper"`` or ``"corrected"``.
        defects: instead of the procedure, exactly these defects (for the ablation).

    Returns:
        ``(X wins, O wins, draws)`` for an outcomes row, ``(rate,)`` for a centre row
        (first move for ``"centre"``, held at the end for ``"centre-held"``); ``None``
        where no exact value is computed (windows 2 and 3, UCT, minimax).
    """
    x, o = row.specs(procedure)
    if defects is not None:
        text = "defects=" + ("-".join(d for d in DEFECTS if d in defects) or "none")
        x, o = (s.replace(f"procedure={procedure}", text) for s in (x, o))
    if row.kind == "centre":
        p = centre_opening_probability(x)
        return None if p is None else (p,)
    values = match_probabilities(x, o)
    if values is None:
        return None
    return (values[3],) if row.kind == "centre-held" else values[:3]


EXACT_FILE = Path(__file__).with_name("data") / "exact_rows.json"
"""The stored exact values of :data:`PAPER_ROWS` (and of the window-1 ablation)."""

WINDOW1_ABLATION = ("mc100-x", "mc100-o", "mc10-both", "centre-100")
"""Window-1 rows whose defect ablation is computed exactly (``index`` and ``threshold`` do not act there)."""

WINDOW1_DEFECTS = ("turn", "check", "ties")
"""The defects that act in window 1."""


def window1_variants() -> dict[str, frozenset[str]]:
    """``paper``, ``without d``, ``corrected`` and ``only d`` for the defects that act in window 1."""
    variants = {"paper": frozenset(DEFECTS)}
    variants.update({f"without {d}": frozenset(DEFECTS) - {d} for d in WINDOW1_DEFECTS})
    variants["corrected"] = frozenset()
    variants.update({f"only {d}": frozenset({d}) for d in WINDOW1_DEFECTS})
    return variants


def precompute_exact(path: str | os.PathLike = EXACT_FILE) -> dict:
    """Compute the exact value of every row under both procedures, and the window-1 ablation; store and return them."""
    rows = {row.key: {p: exact_rates(row, p) for p in ("paper", "corrected")} for row in PAPER_ROWS}
    by_key = {row.key: row for row in PAPER_ROWS}
    ablation = {
        key: {name: exact_rates(by_key[key], "paper", defects) for name, defects in window1_variants().items()}
        for key in WINDOW1_ABLATION
    }
    data = {"rows": rows, "ablation": ablation}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return data


def load_exact(path: str | os.PathLike = EXACT_FILE) -> dict:
    """The stored exact values: ``{"rows": {key: {procedure: rates or None}}, "ablation": {key: {variant: rates}}}``.

    Rates are probabilities (0 to 1), in the order of the row's measurement.
    """
    data = json.loads(Path(path).read_text())
    for part in data.values():
        for values in part.values():
            for name, rates in values.items():
                values[name] = None if rates is None else tuple(rates)
    return data


def main(argv: list[str] | None = None) -> int:
    """``python -m mctslab.course.reproduction.exact_rows``: recompute and store the exact values."""
    parser = argparse.ArgumentParser(description="Exact values of Racioppo 2020's pure Monte Carlo rows.")
    parser.add_argument("--out", default=str(EXACT_FILE), help="the JSON file to write")
    args = parser.parse_args(argv)
    data = precompute_exact(args.out)
    for key, values in data["rows"].items():
        print(key, {p: None if v is None else [round(100 * r, 2) for r in v] for p, v in values.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def window1_ablation_table(ablation: dict[str, dict[str, tuple[float, ...]]]) -> PanelTable:
    """The exact window-1 ablation (from :func:`load_exact`) as a table: one line per variant, one column per row.

    Outcome rows show X wins / O wins / draws, the centre row the centre rate, all in percent.
    """
    keys = list(ablation)
    rows = []
    for name in window1_variants():
        cells = ["/".join(f"{100 * p:.1f}" for p in ablation[key][name]) for key in keys]
        rows.append([name, *cells])
    note = (
        "exact, in %: X wins/O wins/draws (centre-100: X's first move is the centre); "
        "index and threshold act only in windows 2 and 3"
    )
    return PanelTable(["variant", *keys], rows, note=note)
