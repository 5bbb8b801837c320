"""The live widgets of the course's website, without a browser (``mctslab.course.site_live``).

The pages of 06 and 07 carry a live explorer and a live board that run mctslab in the page
(Pyodide); ``tests/test_site_browser.py`` clicks them in Chromium. Here: what the site writes
(the widgets beside the saved lines, their settings, the zip of mctslab's own source), the click
on a drawn node re-centring on that very node, and both widgets running with NumPy absent, as in
the page, on the stand-in :func:`~mctslab.course.site_live_app.stand_in_for_numpy` installs.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import shared_site

from mctslab.course import site_live
from mctslab.course.site_live_app import LiveExplorer

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    return shared_site(tmp_path_factory, "student")  # built once per run, for the other site tests too


def test_the_pages_of_06_and_07_hold_their_live_widget_beside_the_saved_line_and_no_other_page_does(student):
    for page in sorted(student.out.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        kinds = re.findall(r'<div class="mctslab-live" data-mctslab="(\w+)"', text)
        assert kinds == ([site_live.PAGES[page.name]] if page.name in site_live.PAGES else []), page.name
        if kinds:
            marker, settings = site_live.WIDGETS[kinds[0]]
            assert text.index('class="mctslab-live"') < text.index(marker), f"{page.name}: not above the saved line"
            config = json.loads(re.search(r'id="mctslab-live-config">([^<]*)<', text).group(1))
            assert config == {**site_live.LOCAL, "zip": site_live.BUNDLE}
            for path in (config["pyodide"] + "pyodide.mjs", config["pyodide"] + "pyodide.asm.wasm", config["viz"]):
                assert (student.out / path).is_file(), f"{path} is not in the site"


def test_the_zip_holds_mctslabs_own_source_graphviz_tqdm_and_the_widgets_python_but_no_course(student):
    with zipfile.ZipFile(student.out / site_live.BUNDLE) as archive:
        names = set(archive.namelist())
        app = archive.read("mctslab_live.py")
        explorer = archive.read("mctslab/viz/explorer.py")
    assert app == (ROOT / "mctslab" / "course" / "site_live_app.py").read_bytes()
    assert explorer == (ROOT / "mctslab" / "viz" / "explorer.py").read_bytes()  # packed from the package, as it is
    assert {"mctslab/__init__.py", "graphviz/__init__.py", "tqdm/__init__.py"} <= names
    assert not [n for n in names if n.startswith("mctslab/course/")], "course material in the page's zip"


def test_a_click_on_a_drawn_node_recentres_the_drawing_on_that_node():
    from mctslab.viz.outline import node_title

    live = LiveExplorer(iteration=60)
    for step in (None, True, True):  # the tree after 60 iterations, then the selection and expansion of 61
        view = json.loads(live.view() if step is None else live.step(step))
        assert view["clickable"], "no node to click"
        for name in view["clickable"]:
            label = re.search(rf"^\s*{name} \[label=(.*)$", view["dot"], re.M).group(1)  # its line of DOT
            live.enter(name)
            title = node_title(live.model.game, live.model.top)
            assert title in label, f"{name} drawn as {label[:60]!r}, re-centred on {title!r}"
            live.home()


def test_both_widgets_run_without_numpy_on_the_stand_in_as_in_the_page():
    script = """
import builtins, importlib.util, json, sys
real = builtins.__import__
def without_numpy(name, *args, **kwargs):
    if name.split(".")[0] == "numpy" and type(sys.modules.get("numpy")).__name__ != "_StandIn":
        raise ImportError("no numpy here")
    return real(name, *args, **kwargs)
builtins.__import__ = without_numpy
spec = importlib.util.spec_from_file_location("mctslab_live", sys.argv[1])
live = importlib.util.module_from_spec(spec)
spec.loader.exec_module(live)
assert live.stand_in_for_numpy()
explorer = live.LiveExplorer()
view = json.loads(explorer.go_to(200))
assert view["summary"].startswith("iteration 200 "), view["summary"]
board = live.LiveBoard(iterations=50)
for cell in (4, 0, 8, 2, 6, 1, 3, 5, 7):  # the first free of these cells, until the game ends
    view = json.loads(board.view())
    if view["over"]:
        break
    if f'data-move="{cell}"' in view["board"]:
        board.click(*divmod(cell, 3))
print(json.loads(board.view())["status"])
from mctslab.seeding import make_rng
try:
    make_rng(live.sys.modules["numpy"].random.SeedSequence())
except ModuleNotFoundError as err:
    print(err)
"""
    app = ROOT / "mctslab" / "course" / "site_live_app.py"
    done = subprocess.run(
        [sys.executable, "-c", script, str(app)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    status, error = done.stdout.splitlines()
    assert re.search(r"\b(won|draw)\b", status), status
    assert error == "numpy.random.SeedSequence needs NumPy, which the course's website does not load", error


def test_a_new_c_searches_again_up_to_the_same_iteration():
    live = LiveExplorer(iteration=100)
    before = json.loads(live.view())
    after = json.loads(live.set_c(0))
    assert after["iteration"] == 100 and after["c"] == 0 and "; c = 0;" in after["summary"], after["summary"]
    assert after["dot"] != before["dot"], "c = 0 grew the same tree as sqrt(2)"
