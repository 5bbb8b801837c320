"""The reproduction table: measured rates, their intervals, and how well the published counts fit.

:class:`ReproductionTable` shows, row by row, Racioppo 2020's published percentage, ours under
the paper's procedure and ours corrected, each with a Wilson 95% interval and the exact
value where it is known, and
:func:`fit_p_value`: how likely the paper's own counts are under each procedure.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...display import Table
from ...tournament import wilson
from .agent import PROCEDURES
from .rows import Row

OUTCOMES = ("X wins", "O wins", "draws")


@dataclass(frozen=True)
class Measurement:
    """One row measured under one procedure.

    Attributes:
        procedure: ``"paper"`` or ``"corrected"``.
        counts: ``(X wins, O wins, draws)`` for an outcomes row, ``(hits, misses)`` for a
            centre row.
        statistic: what was counted (for centre rows: ``"first move"`` or ``"held at the end"``).
    """

    procedure: str
    counts: tuple[int, ...]
    statistic: str = "outcomes"

    @property
    def games(self) -> int:
        """Games (or trials) measured."""
        return sum(self.counts)

    @property
    def percentages(self) -> tuple[float, ...]:
        """The rates in percent: ``(X wins, O wins, draws)`` or ``(centre rate,)``."""
        shown = self.counts if len(self.counts) == 3 else self.counts[:1]
        return tuple(100 * k / self.games for k in shown)

    def intervals(self) -> tuple[tuple[float, float], ...]:
        """Wilson 95% intervals, in percent, one per entry of :attr:`percentages`."""
        shown = self.counts if len(self.counts) == 3 else self.counts[:1]
        return tuple(tuple(100 * v for v in wilson(k, self.games)) for k in shown)


def fit_p_value(paper_percent: Sequence[float], paper_games: int, reference: Measurement | Sequence[float]) -> float:
    """How well the paper's counts fit a procedure: the p-value of an exact multinomial test.

    The null hypothesis is that the paper's ``paper_games`` games were played with the
    outcome probabilities of ``reference``: exact probabilities where they are known
    (:mod:`mctslab.course.reproduction.exact_rows`), or else those a :class:`Measurement`
    estimates, with half a game added to each count (the Krichevsky-Trofimov estimate) so
    that an outcome we never saw is rare rather than impossible (the estimate's own noise
    is otherwise ignored, which is fair when it has many more games than the paper). The
    p-value is the probability, under the null, of counts no more likely than the paper's
    (exact for up to 1,000 games; above, the chi-squared approximation). A small value
    says the paper's numbers did not come from that procedure.

    Args:
        paper_percent: the published percentages (summing to 100 with their complement
            for a single rate).
        paper_games: games behind them, >= 1.
        reference: our measurement of the same row, or its exact probabilities (``(X wins,
            O wins, draws)``, or ``(rate,)`` for a single rate).

    Returns:
        A p-value in [0, 1].
    """
    if len(paper_percent) == 3:
        observed = [round(p * paper_games / 100) for p in paper_percent]
    else:
        hits = round(paper_percent[0] * paper_games / 100)
        observed = [hits, paper_games - hits]
    if isinstance(reference, Measurement):
        probs = (np.array(reference.counts, dtype=float) + 0.5) / (reference.games + 0.5 * len(reference.counts))
    else:
        probs = np.array(reference, dtype=float)
        probs = np.append(probs, 1 - probs[0]) if len(probs) == 1 else probs
    n = sum(observed)
    if n > 1000:
        expected = n * probs
        chi2 = float(np.sum((np.array(observed) - expected) ** 2 / expected))
        dof = len(observed) - 1
        return math.exp(-chi2 / 2) if dof == 2 else math.erfc(math.sqrt(chi2 / 2))
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])
    with np.errstate(divide="ignore"):
        log_p = np.log(probs)

    def term(k: np.ndarray | int, lp: float) -> np.ndarray | float:
        with np.errstate(invalid="ignore"):  # 0 * log 0 is nan here; it counts 0
            return np.where(np.asarray(k) == 0, 0.0, np.asarray(k) * lp)

    if len(observed) == 2:
        k = np.arange(n + 1)
        logs = log_fact[n] - log_fact[k] - log_fact[n - k] + term(k, log_p[0]) + term(n - k, log_p[1])
        mine = logs[observed[0]]
    else:
        a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
        c = n - a - b
        ok = c >= 0
        c = np.where(ok, c, 0)
        logs = log_fact[n] - log_fact[a] - log_fact[b] - log_fact[c] + term(a, log_p[0]) + term(b, log_p[1])
        logs = np.where(ok, logs + term(c, log_p[2]), -np.inf)
        mine = (
            log_fact[n]
            - sum(log_fact[k] for k in observed)
            + sum(float(term(k, lp)) for k, lp in zip(observed, log_p, strict=True))
        )
    if mine == -np.inf:
        return 0.0  # the paper's counts are impossible under the reference
    return float(min(1.0, np.exp(logs[logs <= mine + 1e-9]).sum()))


@dataclass(repr=False)
class ReproductionTable:
    """Racioppo 2020's rows: published, re-run with its procedure, and corrected, beside exact values.

    Attributes:
        rows: the rows, in order.
        measured: ``(row key, procedure) -> Measurement``.
        seed: the seed everything was played with.
        exact: ``(row key, procedure) -> exact probabilities`` where they are known
            (window-1 rows, :mod:`mctslab.course.reproduction.exact_rows`).
    """

    rows: tuple[Row, ...]
    measured: dict[tuple[str, str], Measurement] = field(default_factory=dict)
    seed: int = 0
    exact: dict[tuple[str, str], tuple[float, ...]] = field(default_factory=dict)

    def p_value(self, key: str, procedure: str) -> float:
        """:func:`fit_p_value` of the paper's counts for row ``key`` under ``procedure`` (NaN if unpublished).

        The reference is the exact probabilities where they are known, else our measurement.
        """
        row = next(r for r in self.rows if r.key == key)
        if row.paper is None or (key, procedure) not in self.measured:
            return math.nan
        reference = self.exact.get((key, procedure), self.measured[(key, procedure)])
        return fit_p_value(row.paper, row.paper_games, reference)

    def records(self) -> list[dict[str, object]]:
        """One flat dict per row and rate: the paper's %, ours (%, 95% interval) and exact % per procedure, p-values."""
        out = []
        for row in self.rows:
            names = OUTCOMES if row.kind == "outcomes" else ("centre",)
            for i, name in enumerate(names):
                rec: dict[str, object] = {"key": row.key, "label": row.label, "source": row.source, "rate": name}
                rec["published"] = None if row.paper is None else row.paper[i]
                rec["published_games"] = row.paper_games if row.paper is not None else None
                for procedure in PROCEDURES:
                    m = self.measured.get((row.key, procedure))
                    rec[procedure] = None if m is None else round(m.percentages[i], 2)
                    rec[f"{procedure}_ci95"] = None if m is None else tuple(round(v, 2) for v in m.intervals()[i])
                    rec[f"{procedure}_games"] = None if m is None else m.games
                    exact = self.exact.get((row.key, procedure))
                    rec[f"{procedure}_exact"] = None if exact is None else 100 * exact[i]
                    rec[f"{procedure}_p"] = self.p_value(row.key, procedure)
                out.append(rec)
        return out

    NOTE = (
        "published: Racioppo 2020's percentage; paper's procedure: its code, defects included; "
        "exact: by enumeration (window 1 only); fit p: how well the published counts fit each "
        "procedure (paper's / corrected), against the exact rates where known"
    )

    def as_table(self) -> Table:
        """The text form as a :class:`~mctslab.display.Table`: a title line per experiment, a line per rate.

        Laid out in fixed widths, no wider than 80 characters (the notes wrapped there too).
        """
        headers = ["", "rate", "published", "paper [95%]", "exact", "corrected [95%]", "exact"]
        rows = []
        for rec in self.records():
            if rec["rate"] in ("X wins", "centre"):  # the experiment's title: one cell running across the line
                rows.append([f"{rec['label']} ({rec['source']}); fit p {_p_pair(rec)}", *[""] * 6])
            rows.append(
                ["", str(rec["rate"]), _num(rec["published"]), _with_ci(rec, "paper"), _exact(rec, "paper")]
                + [_with_ci(rec, "corrected"), _exact(rec, "corrected")]
            )
        return Table(headers, rows, notes=self.NOTE, align="llrrrrr", widths=(2, 8, 10, 20, 7, 20, 7), text_width=80)

    def table(self) -> str:
        """The table as text no wider than 80 characters: a title line per experiment, a line per rate."""
        return str(self.as_table())

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return self.table()

    def _repr_pretty_(self, p, cycle: bool) -> None:  # IPython's plain-text view
        p.text(self.table())

    def _repr_html_(self) -> str:
        """A notebook's view: one HTML table of nine columns (the experiment and its fit on each rate's row)."""
        head = (
            "<tr><th>experiment</th><th>cell</th><th>rate</th><th>published %</th><th>paper's procedure %"
            " [95%]</th><th>exact %</th><th>corrected % [95%]</th><th>exact %</th>"
            "<th>fit p (paper's / corrected)</th></tr>"
        )
        body = []
        for rec in self.records():
            first = rec["rate"] in ("X wins", "centre")
            body.append(
                "<tr>"
                + f'<td style="text-align:left">{html.escape(str(rec["label"])) if first else ""}</td>'
                + f'<td style="text-align:left">{html.escape(str(rec["source"])) if first else ""}</td>'
                + f"<td>{rec['rate']}</td><td>{_num(rec['published'])}</td>"
                + f"<td>{_with_ci(rec, 'paper')}</td><td>{_exact(rec, 'paper')}</td>"
                + f"<td>{_with_ci(rec, 'corrected')}</td><td>{_exact(rec, 'corrected')}</td>"
                + f"<td>{_p_pair(rec) if first else ''}</td></tr>"
            )
        return f"<table>{head}{''.join(body)}</table><p><small>{html.escape(self.NOTE)}</small></p>"


def _num(x: object) -> str:
    return "-" if x is None else f"{x:g}"


def _exact(rec: dict, procedure: str) -> str:
    value = rec[f"{procedure}_exact"]
    return "-" if value is None else f"{value:.1f}"


def _with_ci(rec: dict, procedure: str) -> str:
    if rec[procedure] is None:
        return "-"
    low, high = rec[f"{procedure}_ci95"]
    return f"{rec[procedure]:.1f} [{low:.1f}, {high:.1f}]"


def _p_pair(rec: dict) -> str:
    if rec["rate"] not in ("X wins", "centre"):
        return ""
    return " / ".join("-" if math.isnan(rec[f"{p}_p"]) else f"{rec[f'{p}_p']:.2g}" for p in PROCEDURES)
