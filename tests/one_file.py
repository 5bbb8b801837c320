"""A game or an agent is one file in its folder: the helpers of the tests that say so (games and agents alike)."""

from __future__ import annotations

import os
import pathlib
import shutil
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
    """Add a module holding ``text`` (``{name}`` filled in) to ``mctslab/<folder>/`` and run ``code`` (same) in a
    fresh interpreter; return what ``code`` printed (the run must succeed).

    The module goes into a copy of the package in ``cwd`` (its modules copied, its other files linked): never into
    the package itself, where every other process of the suite importing ``mctslab`` at that moment (the other workers,
    notebook kernels, graders) would list it and then fail to import it once it is gone.
    """
    name = f"zz_one_file_{os.getpid()}"
    copy = cwd / "linked" / "mctslab"
    for source in PACKAGE.rglob("*"):
        if "__pycache__" in source.parts or source.is_dir():
            continue
        target = copy / source.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".py":  # copied: a module finds its folder from its own path, links resolved
            shutil.copyfile(source, target)
        else:
            target.symlink_to(source)
    (copy / folder / f"{name}.py").write_text(text.format(name=name))
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}
    done = subprocess.run(
        [sys.executable, "-c", code.format(name=name)], capture_output=True, text=True, env=env, cwd=cwd
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
