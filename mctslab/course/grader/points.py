"""Points per exercise part: the one place an instructor edits to change the marking.

``POINTS[notebook][part]`` is what a fully correct part earns; ``part`` is the column of
``grades.csv`` (named after the student's function). A part whose checks pass only in
part earns the weighted share of its checks that passed when :data:`PARTIAL_CREDIT` is True
(:func:`share`), else nothing. The weights are the checks' own (``Check.weight``, in the
tables ``WEIGHTS`` beside each check list: 3 for a wrong result, 2 for a result off in
degree, 1 for a secondary or style check), so a slip that gives wrong results costs more
than one that does not. A check not reached (skipped: it waits for another to pass) earns
nothing, like a failed one, but it is shown as "not reached", never as failed.
"""

from collections.abc import Iterable

POINTS: dict[str, dict[str, float]] = {
    "04b": {
        "ucb1": 10,
        "select": 15,
        "expand": 15,
        "simulate": 10,
        "backpropagate": 15,
        "uct": 25,
        "wilson": 10,
    },
    "12": {
        "chance_uct": 100,
    },
}

PARTIAL_CREDIT = True
"""Whether a part with some checks failed earns the share of its checks that passed."""


def share(checks: Iterable[dict]) -> float:
    """The weighted share of ``checks`` (``Report.to_dict()["checks"]``) that passed, in [0, 1].

    Each check counts its ``weight`` (1 when a report carries none, as before weights existed).
    """
    checks = list(checks)
    total = sum(float(c.get("weight", 1.0)) for c in checks)
    passed = sum(float(c.get("weight", 1.0)) for c in checks if c.get("status") == "passed")
    return passed / total if total else 0.0
