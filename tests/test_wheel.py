"""The course travels with the package: a wheel, installed in a fresh venv, carries the notebooks and their data.

The wheel is built from a copy of the sources (so no stale ``build/`` folder of the checkout
leaks into it), installed without dependencies into a new virtual environment that sees this
environment's packages (numpy, nbformat, ...) through a ``.pth`` file, and the course's commands
run there from an empty folder, with no ``PYTHONPATH``: what they find, they found in the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from mctslab.course import editions
from mctslab.course.experiments import improvements

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
DATA = sorted(p.relative_to(ROOT / "notebooks").as_posix() for p in (ROOT / "notebooks/data").rglob("*") if p.is_file())
SOURCES = ("pyproject.toml", "setup.py", "README.md", "mctslab", "notebooks")
"""What a build reads: the packaging files, the package and the course."""

COMMANDS = (("course", "student", "student"), ("course", "site", "site"))
"""``python -m mctslab`` commands the installed wheel runs, one a line: the last word is the folder
each writes into (under the test's output folder)."""


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


def _build_isolation() -> list[str]:
    # This environment's setuptools builds offline when it is recent enough for pyproject.toml.
    try:
        import setuptools

        recent = int(setuptools.__version__.split(".")[0]) >= 77
    except ImportError:
        recent = False
    return ["--no-build-isolation"] if recent else []


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """(the fresh venv's python, its environment, an empty folder to run in), with the wheel installed."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "*.egg-info")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=ignore)
        else:
            shutil.copy2(path, src / name)
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q", *_build_isolation(), "-w", str(tmp)], tmp)
    (wheel,) = tmp.glob("mctslab-*.whl")

    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    install = ["install", "--no-deps", "--no-index", "-q", str(wheel)]
    _run([sys.executable, "-m", "pip", "--python", str(python), *install], tmp)
    # This environment's packages, after the venv's own (its plain paths: their .pth files, such
    # as an editable install of mctslab, are not read).
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp).stdout
    purelib = Path(purelib.strip())
    (purelib / "outer_environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    # The venv borrows this environment's packages (a .pth file), not their data files: nbconvert's
    # templates live under this environment's share/jupyter, where an ordinary install would put them.
    env["JUPYTER_PATH"] = str(Path(sys.prefix) / "share" / "jupyter")
    work = tmp / "work"
    work.mkdir()
    return python, env, work


def test_the_installed_wheel_runs_the_course(installed):
    python, env, work = installed
    where = _run([str(python), "-c", "import mctslab; print(mctslab.__file__)"], work, env).stdout.strip()
    assert Path(where).is_relative_to(python.parents[1]), f"mctslab imported from {where}, not from the wheel"

    for *command, folder in COMMANDS:
        _run([str(python), "-m", "mctslab", *command, str(work / folder)], work, env)

    student = work / "student"
    assert sorted(p.name for p in student.glob("*.ipynb")) == NOTEBOOKS
    assert sorted(p.relative_to(student).as_posix() for p in (student / "data").rglob("*") if p.is_file()) == DATA
    for name in NOTEBOOKS:
        assert json.loads((student / name).read_text())["metadata"]["mctslab"]["edition"] == "student"
    site = work / "site"  # the course's website, from the notebooks the wheel carries
    pages = sorted(p.name for p in site.glob("*.html"))
    assert "index.html" in pages and len(pages) == len(NOTEBOOKS) + 1, pages
    assert (site / "assets").is_dir()


def test_notebook_09_finds_the_stored_games_in_the_installed_wheel(installed):
    python, env, work = installed
    code = "from mctslab.course.experiments import improvements as i; print(i.stored_games('data/09_improving_uct'))"
    found = Path(_run([str(python), "-c", code], work, env).stdout.strip())
    assert found.is_relative_to(python.parents[1]) and found.name == improvements.STORED_GAMES


def test_missing_stored_games_say_how_to_make_them(tmp_path, monkeypatch):
    monkeypatch.setattr(editions, "NOTEBOOKS", tmp_path / "no-course")
    partial = tmp_path / "data" / improvements.STORED_GAMES
    partial.mkdir(parents=True)
    (partial / improvements.MATCHES[0].filename).write_text("")
    with pytest.raises(FileNotFoundError) as err:
        improvements.stored_games(partial)
    message = str(err.value)
    assert f"stored results not found at {partial}" in message
    assert "python -m mctslab.course.experiments.improvements" in message and "(hours)" in message
    assert improvements.stored_games(ROOT / "notebooks" / "data" / improvements.STORED_GAMES).is_dir()
