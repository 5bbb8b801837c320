"""Racioppo 2020's published results, one :class:`Row` each, with the notebook cell they come from.

:data:`PAPER_ROWS` lists every number Racioppo 2020 publishes for 3 x 3
tic-tac-toe; :data:`PLANNED_ROWS` adds what the paper planned but did not do (UCT and
minimax, its section 6). Seats are fixed, as in the paper: agent X always moves first.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...agents import canonical_spec


@dataclass(frozen=True)
class Row:
    """One experiment of Racioppo 2020's tables.

    Attributes:
        key: a short stable name (it also seeds the row).
        label: what is played, in words.
        source: where the number is published (a notebook cell such as ``In [802]``).
        kind: ``"outcomes"`` (X wins, O wins, draws over whole games), ``"centre"`` (how
            often X's first move is the centre), or ``"centre-held"`` (Racioppo's In [150]
            statistic: how often X ends the game holding the centre).
        x: X's agent: a spec, with ``{procedure}`` where the procedure goes.
        o: O's agent, likewise (unused for ``"centre"``).
        paper: the published percentages (``(X, O, draws)`` or ``(rate,)``); ``None``
            for rows the paper planned but did not run.
        paper_games: how many games or trials the published numbers come from.
        note: anything the reader needs about the published number.
    """

    key: str
    label: str
    source: str
    kind: str
    x: str
    o: str = "random"
    paper: tuple[float, ...] | None = None
    paper_games: int = 100
    note: str = ""

    @property
    def uses_procedure(self) -> bool:
        """Whether the row's agents depend on the procedure (random, UCT and minimax do not)."""
        return "{procedure}" in self.x or "{procedure}" in self.o

    def specs(self, procedure: str) -> tuple[str, str]:
        """X's and O's specs under ``procedure`` (``"paper"`` or ``"corrected"``)."""
        return self.x.format(procedure=procedure), self.o.format(procedure=procedure)

    def agents(self, procedure: str) -> tuple[str, str]:
        """X's and O's canonical specs under ``procedure``, checked, ready for :func:`mctslab.tournament.play_match`."""
        x, o = self.specs(procedure)
        return canonical_spec(x), canonical_spec(o)


def _mc(playouts: int, window: int = 1) -> str:
    return f"racioppo:playouts={playouts},window={window},procedure={{procedure}}"


PAPER_ROWS: tuple[Row, ...] = (
    Row(
        "random-1000",
        "random X vs random O",
        "section 5 text",
        "outcomes",
        "random",
        "random",
        (58.49, 28.55, 12.96),
        1000,
    ),
    Row("random-In8", "random X vs random O", "In [8]", "outcomes", "random", "random", (58.34, 28.85, 12.81), 10000),
    Row(
        "random-In801", "random X vs random O", "In [801]", "outcomes", "random", "random", (58.15, 29.04, 12.81), 10000
    ),
    Row("mc100-x", "MC 100 as X vs random O", "In [802]", "outcomes", _mc(100), "random", (91.0, 7.0, 2.0)),
    Row("mc10-x", "MC 10 as X vs random O", "In [804]", "outcomes", _mc(10), "random", (88.0, 12.0, 0.0)),
    Row("mc100-o", "random X vs MC 100 as O", "In [13]", "outcomes", "random", _mc(100), (2.0, 74.0, 24.0)),
    Row("mc10-o", "random X vs MC 10 as O", "In [809]", "outcomes", "random", _mc(10), (12.0, 71.0, 17.0)),
    Row("mc10-both", "MC 10 as X vs MC 10 as O", "In [787]", "outcomes", _mc(10), _mc(10), (49.0, 40.0, 11.0)),
    Row("w1-x", "window 1 (MC 100) as X vs random O", "In [176]", "outcomes", _mc(100, 1), "random", (95.0, 5.0, 0.0)),
    Row("w2-x", "window 2 (MC 100) as X vs random O", "In [158]", "outcomes", _mc(100, 2), "random", (95.0, 4.0, 1.0)),
    Row("w3-x", "window 3 (MC 100) as X vs random O", "In [153]", "outcomes", _mc(100, 3), "random", (90.0, 10.0, 0.0)),
    Row("w1-o", "random X vs window 1 (MC 100) as O", "In [177]", "outcomes", "random", _mc(100, 1), (1.0, 76.0, 23.0)),
    Row("w2-o", "random X vs window 2 (MC 100) as O", "In [160]", "outcomes", "random", _mc(100, 2), (3.0, 65.0, 32.0)),
    Row(
        "w3-o", "random X vs window 3 (MC 100) as O", "In [154]", "outcomes", "random", _mc(100, 3), (18.0, 63.0, 19.0)
    ),
    Row("centre-100", "MC 100 as X opens in the centre", "In [21]", "centre", _mc(100), paper=(89.0,)),
    Row(
        "centre-10",
        "MC 10 as X opens in the centre",
        "section 5 text",
        "centre",
        _mc(10),
        paper=(64.0,),
        note="no code shown; read as X's first move, as the text says",
    ),
    Row(
        "centre-10-held",
        "MC 10 as X ends holding the centre",
        "section 5 text",
        "centre-held",
        _mc(10),
        _mc(10),
        (64.0,),
        note="the same 64%, read as In [150]'s code measures it",
    ),
    Row(
        "centre-In150",
        "MC 10 as X ends holding the centre",
        "In [150]",
        "centre-held",
        _mc(10),
        _mc(10),
        (57.0,),
        note="meant to measure X's opening, its code counts the end of the game; printed as 57.0: "
        "count of 100 games, not count/iterz",
    ),
)
"""Every number Racioppo 2020 publishes for 3 x 3 tic-tac-toe (percentages), with its cell."""

PLANNED_ROWS: tuple[Row, ...] = (
    Row("uct-x", "UCT 500 as X vs random O", "planned (section 6)", "outcomes", "uct:iterations=500", "random"),
    Row("uct-o", "random X vs UCT 500 as O", "planned (section 6)", "outcomes", "random", "uct:iterations=500"),
    Row(
        "uct-both",
        "UCT 500 as X vs UCT 500 as O",
        "planned (section 6)",
        "outcomes",
        "uct:iterations=500",
        "uct:iterations=500",
    ),
    Row("minimax-x", "minimax as X vs random O", "planned (section 6)", "outcomes", "minimax", "random"),
    Row("minimax-o", "random X vs minimax as O", "planned (section 6)", "outcomes", "random", "minimax"),
    Row("minimax-both", "minimax as X vs minimax as O", "planned (section 6)", "outcomes", "minimax", "minimax"),
)
"""What Racioppo 2020 planned (UCT and minimax, section 6) in the same tables; run corrected only.

UCT gets 500 iterations per decision: the average number of playouts per decision of
pure Monte Carlo with 100 playouts per move (900, 700, 500, 300 and 100 as X; 800, 600,
400 and 200 as O).
"""
