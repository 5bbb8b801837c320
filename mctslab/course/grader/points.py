"""Points per exercise part: the one place an instructor edits to change the marking.

``POINTS[notebook][part]`` is what a fully correct part earns; ``part`` is the column of
``grades.csv`` (named after the student's function). A part whose checks pass only in
part earns that share of its points when :data:`PARTIAL_CREDIT` is True (3 of 4 checks:
three quarters), else nothing.
"""

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
