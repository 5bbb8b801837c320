"""A game or an agent is one file in its folder: the helpers of the tests that say so (games and agents alike)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import mctslab

PACKAGE = pathlib.Path(mctslab.__file__).parent


def unimported_modules(folder: str, listed: list[str]) -> list[str]:
    """The modules of ``mctslab/<folder>/`` missing from ``listed`` (what its ``discovery`` lists) or from
    those the package imported (private ``_name`` modules left out), and those listed that are not there."""
    modules = {f"mctslab.{folder}.{p.stem}" for p in (PACKAGE / folder).glob("*.py") if not p.stem.startswith("_")}
    return sorted((modules ^ set(listed)) | {m for m in modules if m not in sys.modules})


def run_with_file(folder: str, text: str, code: str, cwd: pathlib.Path) -> str:
    """Drop a module holding ``text`` (``{name}`` filled in) into ``mctslab/<folder>/``, run ``code`` (same) in a
    fresh interpreter, remove the module; return what ``code`` printed (the run must succeed)."""
    name = f"zz_one_file_{os.getpid()}"
    path = PACKAGE / folder / f"{name}.py"
    path.write_text(text.format(name=name))
    try:
        env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
        done = subprocess.run(
            [sys.executable, "-c", code.format(name=name)], capture_output=True, text=True, env=env, cwd=cwd
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout
    finally:
        path.unlink()
