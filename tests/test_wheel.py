"""The course travels with the package: a wheel, installed in a fresh venv, carries the notebooks and their data.

The wheel is built from a copy of the sources (so no stale ``build/`` folder of the checkout
leaks into it), installed without dependencies into a new virtual environment that sees this
environment's packages (numpy, nbformat, ...) through a ``.pth`` file, and the course's commands
run there from an empty folder, with no ``PYTHONPATH``: what they find, they found in the wheel.
The site it makes hosts that wheel; served from 127.0.0.1, its index's install line (as the page's
script writes it) installs the package into a second fresh venv.
"""

from __future__ import annotations

import html
import json
import os
import re
import shlex
import shutil
import site
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin
from urllib.request import urlopen

import pytest
from conftest import served

from mctslab.course import editions
from mctslab.course.experiments import improvements

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
DATA = sorted(p.relative_to(ROOT / "notebooks").as_posix() for p in (ROOT / "notebooks/data").rglob("*") if p.is_file())
SOURCES = ("pyproject.toml", "setup.py", "README.md", "mctslab", "notebooks")
"""What a build reads: the packaging files, the package and the course."""

COMMANDS = (("course", "student", "student"), ("course", "site", "--wheel", "{wheel}", "site"))
"""``python -m mctslab`` commands the installed wheel runs, one a line: the last word is the folder
each writes into (under the test's output folder); ``{wheel}`` is the wheel's path."""


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
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's wheel, built once from a copy of the sources."""
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
    (built,) = tmp.glob("mctslab-*.whl")
    return built


def _venv(env_dir: Path, cwd: Path) -> tuple[Path, Path]:
    """(the python, the site-packages folder) of a new virtual environment without pip."""
    venv.create(env_dir, with_pip=False)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd).stdout
    return python, Path(purelib.strip())


def _borrow_packages(purelib: Path) -> None:
    """Let the venv see this environment's packages, after its own (their plain paths: their .pth
    files, such as an editable install of mctslab, are not read)."""
    (purelib / "outer_environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    # The venv borrows this environment's packages (a .pth file), not their data files: nbconvert's
    # templates live under this environment's share/jupyter, where an ordinary install would put them.
    env["JUPYTER_PATH"] = str(Path(sys.prefix) / "share" / "jupyter")
    return env


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """(the fresh venv's python, its environment, an empty folder to run in), with the wheel installed."""
    tmp = tmp_path_factory.mktemp("installed")
    python, purelib = _venv(tmp / "venv", tmp)
    install = ["install", "--no-deps", "--no-index", "-q", str(wheel)]
    _run([sys.executable, "-m", "pip", "--python", str(python), *install], tmp)
    _borrow_packages(purelib)  # after the install: pip saw no other mctslab
    work = tmp / "work"
    work.mkdir()
    return python, _environment(), work


@pytest.fixture(scope="module")
def made(installed: tuple[Path, dict[str, str], Path], wheel: Path) -> Path:
    """The folder where the installed wheel ran :data:`COMMANDS` (one sub-folder each)."""
    python, env, work = installed
    for *command, folder in COMMANDS:
        _run([str(python), "-m", "mctslab", *(a.format(wheel=wheel) for a in command), str(work / folder)], work, env)
    return work


@pytest.fixture
def site_url(made: Path) -> Iterator[str]:
    """The site the installed wheel made, served from 127.0.0.1: its index page's URL."""
    with served(made / "site") as url:
        yield f"{url}/index.html"


def _install_line(page: str, url: str) -> str:
    """The index's install line as its reader sees it once the page's script ran, the page served at ``url``.

    The page's own script runs in Node, on the two elements it reads (``document.querySelectorAll``,
    ``getAttribute``, ``textContent``, ``remove``, ``document.baseURI``: what a browser gives it); the
    line must be the one computed here from the page's URL and the wheel's path in the site.
    """
    from mctslab.course.site import INSTALL_SCRIPT

    (code,) = re.findall(r'<code class="mctslab-install" data-wheel="([^"]*)">([^<]*)</code>', page)
    wheel, fallback = html.unescape(code[0]), html.unescape(code[1])
    assert f"<script>{INSTALL_SCRIPT}</script>" in page, "the index has no script writing the install line"
    assert f'href="{html.escape(wheel)}" download>Download the wheel</a>' in page
    expected = f'pip install "mctslab[course] @ {urljoin(url, wheel)}"'
    node = shutil.which("node")
    if node is None:  # the script's line is the computed one; no Node to run it here
        return expected
    stub = f"""
    const code = {{ textContent: {json.dumps(fallback)},
        getAttribute: (n) => n === "data-wheel" ? {json.dumps(wheel)} : null }};
    const note = {{ removed: false, remove() {{ this.removed = true; }} }};
    globalThis.document = {{ baseURI: {json.dumps(url)}, querySelectorAll: (s) =>
        s === "code.mctslab-install[data-wheel]" ? [code] : s === ".mctslab-install-note" ? [note] : [] }};
    {INSTALL_SCRIPT}
    console.log(JSON.stringify([code.textContent, note.removed]));
    """
    line, removed = json.loads(subprocess.run([node, "-e", stub], capture_output=True, text=True, check=True).stdout)
    assert line == expected and removed, (line, removed)
    return line


def test_the_installed_wheel_runs_the_course(installed, made):
    python, env, work = installed
    where = _run([str(python), "-c", "import mctslab; print(mctslab.__file__)"], work, env).stdout.strip()
    assert Path(where).is_relative_to(python.parents[1]), f"mctslab imported from {where}, not from the wheel"

    student = work / "student"
    assert sorted(p.name for p in student.glob("*.ipynb")) == NOTEBOOKS
    assert sorted(p.relative_to(student).as_posix() for p in (student / "data").rglob("*") if p.is_file()) == DATA
    for name in NOTEBOOKS:
        assert json.loads((student / name).read_text())["metadata"]["mctslab"]["edition"] == "student"
    site = work / "site"  # the course's website, from the notebooks the wheel carries
    pages = sorted(p.name for p in site.glob("*.html"))
    assert "index.html" in pages and len(pages) == len(NOTEBOOKS) + 1, pages
    assert (site / "assets").is_dir()


def test_the_site_hosts_the_wheel_and_its_install_line_installs_it(wheel, made, site_url, tmp_path):
    site = made / "site"
    assert (site / "wheels" / wheel.name).read_bytes() == wheel.read_bytes()
    page = urlopen(site_url, timeout=30).read().decode("utf-8")
    line = _install_line(page, site_url)
    pip, install, requirement = shlex.split(line)  # what the student pastes
    assert (pip, install) == ("pip", "install") and requirement.startswith("mctslab[course] @ http://127.0.0.1:")

    # A second fresh venv, seeing this environment's packages (so every dependency is already
    # there and pip needs no index), installs the package from the served site (an editable
    # mctslab among those packages is outside the venv: pip leaves it alone).
    python, purelib = _venv(tmp_path / "venv", tmp_path)
    _borrow_packages(purelib)
    env = _environment() | {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    _run([str(python), "-m", "pip", "install", "-q", requirement], tmp_path, env)
    where = _run([str(python), "-c", "import mctslab; print(mctslab.__file__)"], tmp_path, env).stdout.strip()
    assert Path(where).is_relative_to(purelib), f"mctslab imported from {where}, not from the site's wheel"
    assert "course" in _run([str(python), "-m", "mctslab", "--help"], tmp_path, env).stdout


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
