"""The README's examples run and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
# A python block followed by "prints" and a text block: the text is the block's exact output.
EXAMPLE = re.compile(r"```python\n((?:(?!```).)*)```\s*\nprints\s*\n\s*```text\n(.*?)```", re.S)


def test_readme_examples_print_what_they_say():
    examples = EXAMPLE.findall(README.read_text())
    assert len(examples) >= 2
    for code, expected in examples:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code, {})
        assert out.getvalue() == expected


def test_the_first_example_is_five_lines():
    first_code = EXAMPLE.findall(README.read_text())[0][0]
    assert len(first_code.strip().splitlines()) == 5


def test_readme_search_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as table:
        exec(blocks[0] + blocks[1], namespace)
    assert "maximum depth searched" in table.getvalue()
    assert namespace["analysis"].move == 2


def test_readme_commands_are_the_ci_commands():
    ci = (README.parent / ".ci" / "run").read_text()
    assert "./run test" in README.read_text() and "exec ./run test" in ci


def test_readme_indexes_every_notebook():
    text = README.read_text()
    for notebook in sorted((README.parent / "notebooks").glob("*.ipynb")):
        assert f"`{notebook.name}`" in text, f"README does not index {notebook.name}"
