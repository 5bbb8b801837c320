"""Every verdict in notebooks 09, 10 and later sits next to a check that asserts it with an interval.

The rule (issue 26): a markdown cell whose text contains a verdict word (:data:`VERDICT`) must
have a claim check among the code cells between the markdown cell before it and the one after
it (the code right before or right after it): a code cell that starts ``# Check:``, is tagged
``check``, asserts, and asserts with an interval or an exact value (its source contains one of
:data:`EVIDENCE`). A word used in a non-verdict sense ("a better move" in a definition) is waived
by an HTML comment in the markdown cell, ``<!-- not a verdict: REASON -->``, which exempts that
cell; words in inline code (``level=2`` in backquotes) are names, not verdicts. The evidence
must be in the check's code: a token named only in a comment does not count. A count alone
("0 of 100 games lost") does not back "never", "ahead" or "better": an interval (``score_ci``,
Wilson's, corrected for the number of comparisons), the exact value, or a paired test (the exact
sign test on the same boards or trees, ``as_far_probability(k, n, 0.5)``, corrected with ``holm``)
does.

Notebooks 00-08 are checked by ``tests/test_notebooks_meta.py``'s conventions; this rule starts
with 09, the first notebook whose verdicts compare agents over many intervals.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import pytest

NOTEBOOKS = sorted(
    p for p in (Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb") if int(p.name[:2]) >= 9
)

VERDICT = re.compile(
    r"\b(beat|beats|beaten|better|worse|never|(?:draws?|drew|drawn|drawing)\s+level|level\s+with|on\s+a\s+level"
    r"|as\s+strong|ahead|at\s+most|none)\b",
    re.I,
)
"""A word that states a verdict about a result (a two-word one may break across source lines).

"level" alone names a search level (NMCS) or a trap level (Ramanujan et al. 2010): only "draw
level", "level with" and "on a level" state a verdict."""

EVIDENCE = (
    "_ci(",
    ".ci(",
    "wilson(",
    "interval",
    "bonferroni",
    "holm",
    "fraction(",
    "exact",
    "as_far_probability(",
    "sign_test(",
)
"""What a check's source contains when it asserts with an interval, an exact value or a paired test (any case).

A paired test is the exact sign test on the pairs that differ: ``as_far_probability(k, n, 0.5)``
(:mod:`mctslab.tournament.stats`) or a ``sign_test(`` method (``Race.sign_test``), with
``holm(`` for several at once; a paired count alone, like any count, is no evidence."""

WAIVER = re.compile(r"<!--\s*not a verdict:\s*\S[^>]*?-->", re.I)
"""The comment that waives the rule for a markdown cell: a word used in a non-verdict sense, and why."""

CHECK = "# Check:"
"""How a claim's check cell starts (tests/test_notebooks_meta.py)."""


def _source(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def _label(cells: list[dict], i: int) -> str:
    return f"cell {i} ({cells[i].get('id', 'no id')})"


def _code_only(source: str) -> str:
    """``source`` without its comments: evidence named in a comment is no evidence."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
        return tokenize.untokenize(tokens)
    except (tokenize.TokenError, SyntaxError, IndentationError):  # not Python (a %magic): drop # to line end
        return re.sub(r"#.*", "", source)


def _backs_a_verdict(cell: dict) -> bool:
    """A claim check that asserts with an interval or an exact value (in its code, not its comments)."""
    source = _source(cell)
    code = _code_only(source)
    return (
        cell["cell_type"] == "code"
        and source.startswith(CHECK)
        and "check" in cell.get("metadata", {}).get("tags", [])
        and re.search(r"^\s*assert\b", code, re.M) is not None
        and any(token in code.lower() for token in EVIDENCE)
    )


def _neighbouring_code(cells: list[dict], i: int) -> list[dict]:
    """The code cells between the markdown cell before cell ``i`` and the one after it."""
    before = []
    for cell in reversed(cells[:i]):
        if cell["cell_type"] == "markdown":
            break
        before.append(cell)
    after = []
    for cell in cells[i + 1 :]:
        if cell["cell_type"] == "markdown":
            break
        after.append(cell)
    return [c for c in before + after if c["cell_type"] == "code"]


def unbacked_verdicts(cells: list[dict]) -> list[str]:
    """The markdown cells of a notebook that state a verdict with no interval-backed check beside them.

    Args:
        cells: the notebook's cells (nbformat 4 dicts).

    Returns:
        One line per offending cell: its index, id and the verdict words it uses.
    """
    problems = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        text = _source(cell)
        prose = re.sub(r"`[^`]*`", "", text)  # `nmcs:level=2` names a parameter: code spans are no verdict
        words = sorted({" ".join(m.group(0).lower().split()) for m in VERDICT.finditer(prose)})
        if not words or WAIVER.search(text):
            continue
        if not any(_backs_a_verdict(c) for c in _neighbouring_code(cells, i)):
            problems.append(f"{_label(cells, i)} says {', '.join(repr(w) for w in words)}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_verdict_is_asserted_with_an_interval(path):
    problems = unbacked_verdicts(json.loads(path.read_text())["cells"])
    assert not problems, (
        f"{path.name}: verdicts without a '# Check:' cell (tagged 'check') beside them that asserts with an "
        "interval, exact value or paired test (_ci(, wilson(, interval, bonferroni, holm, Fraction(, exact, "
        "as_far_probability(, sign_test(); waive a "
        "non-verdict use with <!-- not a verdict: REASON -->:\n  " + "\n  ".join(problems)
    )


def test_the_rule_covers_09_10_and_later():
    names = {p.name[:2] for p in NOTEBOOKS}
    assert {"09", "10"} <= names and all(int(n) >= 9 for n in names)


# The rule on small synthetic notebooks: it passes what it should and fails what it should.


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "id": "md", "metadata": {}, "source": text}


def _code(source: str, tags: tuple[str, ...] = ()) -> dict:
    return {"cell_type": "code", "id": "code", "metadata": {"tags": list(tags)}, "source": source, "outputs": []}


RESULT = _code("match = play_match(game, 'uct', 'flat', 400, seed=1)")
INTERVAL_CHECK = _code("# Check: UCT beats flat.\nlow, high = match.outcomes.score_ci()\nassert low > 0.5", ("check",))
COUNT_CHECK = _code("# Check: UCT never loses.\nassert match.outcomes.losses == 0", ("check",))


def test_a_verdict_beside_an_interval_check_passes():
    cells = [_markdown("## UCT against flat"), RESULT, _markdown("UCT **beats** flat Monte Carlo."), INTERVAL_CHECK]
    assert unbacked_verdicts(cells) == []
    # The check may also come right before the markdown cell that states the verdict.
    assert unbacked_verdicts([RESULT, INTERVAL_CHECK, _markdown("So UCT is better.")]) == []


def test_a_verdict_without_an_interval_check_fails():
    assert unbacked_verdicts([RESULT, _markdown("UCT never loses.")]) == ["cell 1 (md) says 'never'"]
    # A count is not an interval.
    assert unbacked_verdicts([RESULT, _markdown("UCT never loses."), COUNT_CHECK]) == ["cell 1 (md) says 'never'"]
    # The same source, not tagged 'check', or not starting '# Check:', backs nothing.
    untagged = _code(_source(INTERVAL_CHECK))
    assert unbacked_verdicts([_markdown("UCT is AHEAD."), untagged]) == ["cell 0 (md) says 'ahead'"]
    comment_first = _code("# UCT beats flat.\nassert match.outcomes.score_ci()[0] > 0.5", ("check",))
    # Evidence named only in a comment is no evidence: the assert itself must use the interval.
    said = _code("# Check: UCT beats flat (Wilson interval).\nassert match.outcomes.wins > 200  # interval", ("check",))
    assert unbacked_verdicts([_markdown("UCT beats flat."), said]) == ["cell 0 (md) says 'beats'"]
    assert unbacked_verdicts([_markdown("UCT beats flat."), comment_first]) == ["cell 0 (md) says 'beats'"]
    # A check beyond the next markdown cell is not beside the verdict.
    far = [_markdown("They play as\nstrong as each other."), _markdown("Next section."), INTERVAL_CHECK]
    assert unbacked_verdicts(far) == ["cell 0 (md) says 'as strong'"]  # a verdict broken across lines too


def test_a_waived_word_passes_and_words_are_whole():
    waived = _markdown("A better move is one with a higher value. <!-- not a verdict: a definition -->")
    assert unbacked_verdicts([waived, RESULT]) == []
    # A waiver must give its reason.
    assert unbacked_verdicts([_markdown("A better move. <!-- not a verdict: -->")]) == ["cell 0 (md) says 'better'"]
    # Words inside other words are no verdict: "levels", "betterment", "nonetheless".
    assert unbacked_verdicts([_markdown("Two levels of search; nonetheless, no betterment.")]) == []
    # A parameter in inline code is no verdict; the same word in prose is.
    assert unbacked_verdicts([_markdown("The agent `nmcs:level=2` plays.")]) == []
    assert unbacked_verdicts([_markdown("Now UCT draws\nlevel.")]) == ["cell 0 (md) says 'draws level'"]
    assert unbacked_verdicts([_markdown("UCT is level with PUCT.")]) == ["cell 0 (md) says 'level with'"]
    assert unbacked_verdicts([_markdown("A level-2 search; traps of level 3.")]) == []


def test_a_verdict_beside_a_paired_test_passes_and_a_paired_count_alone_fails():
    """Levels or agents that play the same boards are compared paired: the exact sign test backs a verdict."""
    result = _code("more, less = 25, 1  # boards where level 2 scores more, less than level 1")
    sign = _code(
        "# Check: level 2 beats level 1 on the same boards (sign test).\n"
        "assert as_far_probability(more, more + less, 0.5) < 0.05 / 3",
        ("check",),
    )
    assert unbacked_verdicts([result, _markdown("Level 2 beats level 1."), sign]) == []
    race = _code("# Check: RAVE wins sooner.\nassert race.sign_test(1, 0) < 0.05", ("check",))
    assert unbacked_verdicts([_markdown("RAVE is better."), race]) == []
    counted = _code("# Check: level 2 beats level 1 (paired).\nassert more > less", ("check",))
    assert unbacked_verdicts([result, _markdown("Level 2 beats level 1."), counted]) == ["cell 1 (md) says 'beats'"]
