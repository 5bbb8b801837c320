"""What an exercise check returns: a table of checks, each passed, failed, skipped or not written yet.

A :class:`Report` shows itself as an HTML table in a notebook (``_repr_html_``) and as
plain text elsewhere (``str``). Its :attr:`Report.ok` is True only when every check
passed, so a notebook cell can ``assert report.ok``; the checks themselves never raise
for a student's mistake.
"""

from __future__ import annotations

import html
import json
import textwrap
from dataclasses import dataclass, field, replace

from .limits import CPU, TimeLimitExceeded

__all__ = ["PASSED", "FAILED", "SKIPPED", "NOT_WRITTEN", "Check", "Report", "fail_the_next_check", "weighed"]

PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"
NOT_WRITTEN = "not written yet"

_COLOURS = {PASSED: "#1a7f37", FAILED: "#cf222e", SKIPPED: "#6e7781", NOT_WRITTEN: "#9a6700"}
_SIGNS = {PASSED: "✓", FAILED: "✗", SKIPPED: "–", NOT_WRITTEN: "…"}


@dataclass(frozen=True)
class Check:
    """One graded check.

    Attributes:
        name: a short identifier (``"one_move"``), for tests and code.
        title: what is checked, in words (``"wins and blocks in one, as X and as O"``).
        status: :data:`PASSED`, :data:`FAILED`, :data:`SKIPPED` (it needs another
            check to pass first) or :data:`NOT_WRITTEN` (a stub still raises
            ``NotImplementedError``).
        detail: what was found: the evidence when passed, a diagnosis in plain words
            when failed, the reason when skipped.
        part: the student's function the check blames when it fails (``"backpropagate"``),
            or ``None`` when it blames no one part.
        seconds: wall-clock time the check took.
        weight: its share of the part's partial credit (:func:`~mctslab.course.grader.points.share`):
            3 for a wrong result (statistics, point of view, strength), 2 for a result off in
            degree (the factor of a formula, a draw's worth), 1 for a secondary or style check
            (the budget, determinism, a tree left as it was). Each check's weight is in the
            table beside its check list (``WEIGHTS``).
    """

    name: str
    title: str
    status: str
    detail: str = ""
    part: str | None = None
    seconds: float = 0.0
    weight: float = 1.0

    def to_dict(self) -> dict:
        """The check as plain data: its fields, ``passed``, and ``detail`` as :meth:`told` (naming the function)."""
        return {
            "name": self.name,
            "title": self.title,
            "status": self.status,
            "passed": self.passed,
            "detail": self.told(),
            "part": self.part,
            "seconds": round(self.seconds, 3),
            "weight": self.weight,
        }

    @property
    def passed(self) -> bool:
        """True when the check passed."""
        return self.status == PASSED

    def told(self) -> str:
        """The detail as shown: a failure that does not name its function in backticks ends "(look at `part`)"."""
        if self.status == FAILED and self.part and f"`{self.part}`" not in self.detail:
            return f"{self.detail.rstrip('.')} (look at `{self.part}`)"
        return self.detail


@dataclass
class Report:
    """The checks of one exercise, in the order they ran.

    Attributes:
        title: what was checked (``"check_uct: your UCT agent"``).
        checks: the :class:`Check` results.
        seconds: wall-clock time the checks took.
    """

    title: str
    checks: list[Check] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when there is at least one check and every check passed."""
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def failed(self) -> list[str]:
        """Names of the checks that failed (not those skipped or not written yet)."""
        return [c.name for c in self.checks if c.status == FAILED]

    @property
    def not_written(self) -> bool:
        """True when some check found a stub that is not written yet."""
        return any(c.status == NOT_WRITTEN for c in self.checks)

    def status(self, name: str) -> str:
        """The status of the check called ``name``.

        Raises:
            KeyError: naming the checks, for an unknown name.
        """
        for c in self.checks:
            if c.name == name:
                return c.status
        raise KeyError(f"no check called {name!r}; checks: {', '.join(c.name for c in self.checks)}")

    def __getitem__(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(f"no check called {name!r}; checks: {', '.join(c.name for c in self.checks)}")

    def to_dict(self) -> dict:
        """The report as plain data (for a grader): ``title``, ``ok``, ``summary``, ``seconds`` and ``checks``.

        Each check is :meth:`Check.to_dict`; :meth:`to_json` is the same as JSON text.
        """
        return {
            "title": self.title,
            "ok": self.ok,
            "summary": self.summary(),
            "seconds": round(self.seconds, 3),
            "checks": [c.to_dict() for c in self.checks],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as one line of JSON."""
        return json.dumps(self.to_dict())

    def summary(self) -> str:
        """One line: how many checks passed, and what to do next."""
        done = sum(c.passed for c in self.checks)
        if self.ok:
            return f"all {done} checks passed"
        if self.not_written:
            return f"{done} of {len(self.checks)} checks passed: some code is not written yet"
        return f"{done} of {len(self.checks)} checks passed"

    def __str__(self) -> str:
        lines = [f"{self.title}: {self.summary()}"]
        for c in self.checks:
            lines.append(f"{_SIGNS[c.status]} {c.title}: {c.status}")
            if c.detail:
                lines.extend(textwrap.wrap(c.told(), width=96, initial_indent="    ", subsequent_indent="    "))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        rows = []
        for c in self.checks:
            colour = _COLOURS[c.status]
            rows.append(
                "<tr>"
                f"<td style='text-align:left'>{html.escape(c.title)}</td>"
                f"<td style='text-align:left;color:{colour};font-weight:bold;white-space:nowrap'>"
                f"{_SIGNS[c.status]} {html.escape(c.status)}</td>"
                f"<td style='text-align:left'>{html.escape(c.told())}</td>"
                "</tr>"
            )
        return (
            f"<p><b>{html.escape(self.title)}</b>: {html.escape(self.summary())}</p>"
            "<table><thead><tr><th style='text-align:left'>check</th><th style='text-align:left'>result</th>"
            "<th style='text-align:left'>what was found</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        )


def weighed(report: Report, weights: dict[str, float]) -> Report:
    """``report`` with each check's weight from ``weights`` (check name -> weight; 1 for a name not there)."""
    report.checks = [replace(c, weight=weights.get(c.name, 1.0)) for c in report.checks]
    return report


def fail_the_next_check(report: Report, checks: dict, what: str, err: TimeLimitExceeded, spent: float) -> list[str]:
    """After ``what``'s whole-run limit fired between two checks: the next check fails, saying so.

    Args:
        report: the report so far.
        checks: the check's table, ``name -> (title, needs, part)``, in running order.
        what: the check function's name (``"check_uct"``).
        err: its limit that ran out (what it measured: CPU time, or the wall-clock backstop).
        spent: CPU seconds the earlier checks took.

    Returns:
        The names of the checks after the failed one (reported by the caller as not run).
    """
    left = list(checks)[len(report.checks) :]
    if not left:
        return []
    title, _, part = checks[left[0]]
    detail = f"{what} stopped after {err.within}, its limit, before this check finished"
    if err.clock == CPU:
        detail += (
            f": your agent's searches are too slow for the checks (the earlier checks took {spent:.1f} s of CPU "
            "time); is `iterations` respected?"
        )
    report.checks.append(Check(left[0], title, FAILED, detail, part, 0.0))
    return left[1:]
