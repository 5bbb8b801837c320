"""The README's examples run and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_example_prints_what_it_says():
    first, second = _blocks("python")[:2]
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        exec(first, namespace)
    assert out.getvalue() == _blocks("text")[0]
    assert len(first.strip().splitlines()) == 5
    with contextlib.redirect_stdout(io.StringIO()) as table:
        exec(second, namespace)
    assert "maximum depth searched" in table.getvalue()
    assert namespace["analysis"].move == 2


def test_readme_commands_are_the_ci_commands():
    ci = (README.parent / ".ci" / "run").read_text()
    assert "./run test" in README.read_text() and "exec ./run test" in ci
