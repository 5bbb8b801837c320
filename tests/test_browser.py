"""A real browser: JupyterLab runs notebooks 06 and 07, and their widgets answer the mouse.

Starts JupyterLab on 127.0.0.1 (on copies of the notebooks, in a temporary folder; its kernels
import this checkout's ``mctslab``), opens the notebooks in Chromium driven by Playwright, runs
all cells, and uses the widgets as a student does: the tree explorer's picture must be in view
(every node of it inside the visible part of the page) after moving its sliders and re-centring;
the play board plays two games with "new game" between them (the board must be empty after it),
switches seats, takes a click anywhere in a Connect Four column, and outlines Ultimate
Tic-Tac-Toe's legal cells; saved after running, it keeps the boards' pictures (mctslab's pre-save
hook), and reopened shows no broken widget. Every notebook, opened as saved before anything runs,
reads well at 1280 px with the file browser open (issue 41's walk: no broken widget, no picture past
the edge or cut off, no label under 10 px, no plot shrunk below 0.65, no text table wrapping).
Screenshots go to ``test-artifacts/browser/`` (their names start with ``$MCTSLAB_SCREENSHOT_PREFIX``,
e.g. ``before_`` or ``after_``): look at them. Of each notebook opened, the first window is pictured;
``MCTSLAB_SCREENSHOTS=all`` pictures all of it, window by window.

Needs Debian's ``chromium`` (``/usr/bin/chromium``, or ``MCTSLAB_CHROMIUM``) and the
``playwright`` Python package; it never downloads a browser. ``./run test`` installs both when it
can (Chromium with apt-get, as root or with password-less sudo); where Chromium is missing the
test is skipped and says how to install it.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import launch, playwright_or_skip

from mctslab.viz.fit import MIN_LABEL_PX
from mctslab.viz.stored import WIDGET_VIEW

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
NOTEBOOKS = ("04_uct_step_by_step.ipynb", "06_tree_explorer.ipynb", "07_play_against_the_ai.ipynb")
STORED = ("04_uct_step_by_step.ipynb", "06_tree_explorer.ipynb", "07_play_against_the_ai.ipynb")
"""Opened as saved, before anything runs, also at 1100 px and untrusted (every notebook is opened trusted at 1280)."""
TIMEOUT_MS = 120_000
STEP_TIMEOUT_MS = 15_000
NARROW = {"width": 1100, "height": 900}
"""A laptop's window, with JupyterLab's file browser open: where the issue saw pictures overflow."""
EVERY = tuple(sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
"""Every notebook of the course, opened as saved (trusted, no kernel) by the walk's check."""
WALK = {"width": 1280, "height": 900}
"""The window of issue 41's walk through the notebooks (JupyterLab's file browser open, 250 px)."""
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook on show
SHOT_PREFIX = os.environ.get("MCTSLAB_SCREENSHOT_PREFIX", "")

sync_api = playwright_or_skip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(folder: Path) -> None:
    """JupyterLab user settings: every cell in the page (no windowing), no news or update checks."""
    files = {
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
    }
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content))


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[str]:
    """A JupyterLab server on copies of the notebooks; yields its base URL with the token."""
    work = tmp_path_factory.mktemp("lab")
    for name in NOTEBOOKS:  # without their saved outputs, so that every prompt shown was run here
        notebook = json.loads((ROOT / "notebooks" / name).read_text())
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
            # Collapsed check cells show no prompt, which the wait for "every cell has run" counts.
            cell["metadata"].pop("jupyter", None)
        (work / name).write_text(json.dumps(notebook))
    for mode in ("trusted", "untrusted"):  # as saved, with their outputs (every notebook for the walk's check)
        (work / mode).mkdir()
        for name in EVERY if mode == "trusted" else STORED:
            notebook = json.loads((ROOT / "notebooks" / name).read_text())
            # `jupyter trust` signs a notebook's content, wherever it is: the untrusted copy must differ.
            notebook["metadata"]["copy"] = mode
            (work / mode / name).write_text(json.dumps(notebook))
    _settings(work / "settings")
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        JUPYTER_CONFIG_DIR=str(work / "config"),
        JUPYTER_DATA_DIR=str(work / "data"),  # where `jupyter trust` keeps its signatures
        # The kernels import this checkout's mctslab, whatever is installed in the environment.
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={work}",
        # A notebook saved after running keeps its widgets' pictures, not views whose state is not saved.
        "--ContentsManager.pre_save_hook=mctslab.viz.stored.pre_save_hook",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: open a notebook without starting a kernel
    ]
    if os.getuid() == 0:
        command.append("--allow-root")
    trust = [sys.executable, "-m", "jupyter", "trust", *(str(work / "trusted" / n) for n in EVERY)]
    subprocess.run(trust, env=env, check=True, capture_output=True)
    log = (work / "lab.log").open("w")
    server = subprocess.Popen(command, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(work / 'lab.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield f"{url}|{token}|{work}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Chromium from Debian, with a fresh profile."""
    with sync_api.sync_playwright() as p:
        context = launch(p, tmp_path_factory.mktemp("chromium-profile"), {"width": 1400, "height": 1000})
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


def _open_and_run_all(browser, lab: str, name: str, viewport: dict | None = None):
    url, token, _ = lab.split("|")
    page = browser.new_page()
    if viewport:
        page.set_viewport_size(viewport)
    # A workspace of its own, reset: JupyterLab would otherwise reopen the previous notebook too.
    page.goto(f"{url}/lab/workspaces/{Path(name).stem}/tree/{name}?reset&token={token}")
    page.wait_for_selector(f"{PANEL} .jp-Cell", state="attached")
    _wait_idle(page)  # then Run > Run All Cells
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator('.lm-Menu-item[data-command="runmenu:run-all"]').click()
    code_cells = page.locator(f"{PANEL} .jp-CodeCell").count()
    # Every code cell shows an execution count and none is still queued or running.
    page.wait_for_function(
        """([n, panel]) => {
            const prompts = [...document.querySelectorAll(panel + ' .jp-CodeCell .jp-InputPrompt')];
            return prompts.length === n && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""",
        arg=[code_cells, PANEL],
    )
    errors = page.locator(f"{PANEL} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
    assert not tracebacks, f"{name} raised in the browser:\n" + "\n".join(tracebacks)[:2000]
    _shots(page, f"run_{Path(name).stem[:2]}")
    found = _look(page)
    assert not found, f"{name}, after running:\n" + "\n".join(found)
    page.set_default_timeout(STEP_TIMEOUT_MS)  # from now on, each click answers in well under a second
    return page


def _wait_idle(page) -> None:
    """Wait until the notebook has a kernel (its name in the toolbar) and the kernel is idle."""
    page.wait_for_function(
        """() => {
            const name = document.querySelector('.jp-Toolbar-kernelName');
            const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
            return name && /python/i.test(name.textContent)
                && (!indicator || indicator.getAttribute('data-status') === 'idle');
        }"""
    )


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{SHOT_PREFIX}{name}"), full_page=False)


# JS: the part of an element's box that is not clipped by the scrolling or overflow-hidden boxes around it.
VISIBLE_BOX = """(el) => {
    const r = el.getBoundingClientRect();
    let box = {left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight};
    for (let a = el.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        const b = a.getBoundingClientRect();
        // A box of no area clips nothing on screen (what it holds is laid out elsewhere).
        if ((s.overflowX !== 'visible' || s.overflowY !== 'visible') && b.width > 0 && b.height > 0) {
            box = {left: Math.max(box.left, b.left), top: Math.max(box.top, b.top),
                   right: Math.min(box.right, b.right), bottom: Math.min(box.bottom, b.bottom)};
        }
    }
    return {node: {left: r.left, top: r.top, right: r.right, bottom: r.bottom}, box: box};
}"""


def _inside(rects: dict, slack: float = 1.0) -> bool:
    node, box = rects["node"], rects["box"]
    return (
        node["left"] >= box["left"] - slack
        and node["right"] <= box["right"] + slack
        and node["top"] >= box["top"] - slack
        and node["bottom"] <= box["bottom"] + slack
    )


def _wait_for(check, seconds: float = 30.0):
    """Poll ``check()`` until it gives something true (returned), or give its last value after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


def _explorer(page, index: int):
    """The ``index``-th tree explorer of the page: its own box, status line and picture."""
    slider = page.locator(f"{PANEL} .widget-slider", has=page.locator(".widget-label", has_text="iteration")).nth(index)
    slider.scroll_into_view_if_needed()
    box = slider.locator("xpath=ancestor::div[contains(@class, 'widget-vbox')][1]")
    return box, box.locator("code").first


def _set_slider(box, label: str, value: float) -> None:
    """Type ``value`` into the readout of the slider called ``label`` (as a student can)."""
    slider = box.locator(".widget-slider", has=box.page.locator(".widget-label", has_text=label)).first
    readout = slider.locator(".widget-readout").first
    readout.click()
    readout.press("Control+a")
    readout.type(str(value))
    readout.press("Enter")


def _nodes_out_of_view(box) -> list[str]:
    """The drawn nodes (graphviz titles n0, n1, ...) out of the reader's reach: the root anywhere outside the
    visible box; the others off its left or right edge, unless the picture's own box scrolls sideways to them
    (a tree that cannot shrink further without labels below 10 px scrolls; a tall tree goes on below the
    window, as the page scrolls)."""
    status = box.locator("code").first
    status.evaluate("el => el.scrollIntoView({block: 'start', inline: 'nearest'})")  # the picture at the top
    time.sleep(0.5)  # let the scroll settle
    rects = box.locator("svg g.node").evaluate_all(
        f"""nodes => nodes.map(n => {{
            const frame = n.ownerSVGElement.parentElement;  // the picture's box, which may scroll sideways
            const f = frame.getBoundingClientRect();
            const reach = frame.scrollWidth > frame.clientWidth
                ? {{left: f.left - frame.scrollLeft, right: f.left - frame.scrollLeft + frame.scrollWidth}} : null;
            return [n.querySelector('title').textContent, ({VISIBLE_BOX})(n), reach];
        }})"""
    )
    out = []
    for title, rect, reach in rects:
        box = rect["box"] if reach is None else {**rect["box"], **reach}
        sideways = {"box": box, "node": {**rect["node"], "top": box["top"], "bottom": box["bottom"]}}
        if not _inside(rect if title == "n0" else sideways):
            out.append(f"{title} at {rect['node']} outside {rect['box']}" if title == "n0" else title)
    return out


def test_tree_explorer_picture_stays_in_view_and_its_controls_work(browser, lab):
    page = _open_and_run_all(browser, lab, NOTEBOOKS[1])
    box, status = _explorer(page, 0)  # tic-tac-toe
    box.locator("svg g.node").first.wait_for()
    # The notebook's "try it": c = 3 at 300 iterations, watch the red path.
    before = status.inner_text()
    _set_slider(box, "iteration", 300)
    _wait_for(lambda: status.inner_text().startswith("iteration 300 "))
    _set_slider(box, "c", 3)
    _wait_for(lambda: "c = 3;" in status.inner_text())
    hidden = _nodes_out_of_view(box)
    _shot(page, "06_explorer_300_iterations.png")
    found = _look(page)  # labels of 10 px or more, no picture past the edge
    assert not found, "after c = 3 at 300 iterations:\n" + "\n".join(found)
    assert status.inner_text() != before and status.inner_text().startswith("iteration 300 ")
    assert not [h for h in hidden if h.startswith("n0 ")], f"the root is drawn outside the visible box: {hidden}"
    assert not hidden, f"nodes {hidden} of the explorer's picture are outside the visible box"
    caption = box.locator("svg").first.text_content()
    shown = status.inner_text().split("; ")[2]  # "301 nodes"
    assert f"of {shown.split()[0]} nodes" in caption, (shown, caption[-200:])
    # Phase views: one step to the next iteration's selection; the depth slider says it does not apply.
    box.get_by_role("button", name="phase >").click()
    _wait_for(lambda: "phase 1, selection" in status.inner_text())
    depth = box.locator(".widget-slider", has=page.locator(".widget-label", has_text="depth")).first
    assert "phase 1, selection" in status.inner_text()
    assert depth.locator(".noUi-target[disabled]").count() or "mod-disabled" in (depth.get_attribute("class") or ""), (
        "the depth slider is active in a phase view, where it changes nothing"
    )
    shown = status.inner_text().split("; ")[2]
    assert f"of {shown.split()[0]} nodes" in box.locator("svg").first.text_content()
    assert not _nodes_out_of_view(box)
    _shot(page, "06_explorer_phase.png")

    # Connect Four, re-centred on its most visited child: still in view; the menu is not blank.
    box, status = _explorer(page, 1)
    box.locator("svg g.node").first.wait_for()
    menu = box.locator("select").first
    assert menu.evaluate("el => el.selectedIndex") >= 0 and menu.evaluate("el => el.value") != "", "blank child menu"
    box.get_by_role("button", name="re-centre").click()
    _wait_for(lambda: status.inner_text().count(">") >= 2)
    hidden = _nodes_out_of_view(box)
    _shot(page, "06_explorer_connect4_recentred.png")
    assert status.inner_text().count(">") >= 2, "re-centre did not walk down the tree"
    assert not hidden, f"nodes {hidden} of the re-centred Connect Four tree are outside the visible box"

    # The two trees of section 4 (c = 0.2 and c = 3): their 10 pt labels are drawn at least 9 px high.
    cell = page.locator(f"{PANEL} .jp-CodeCell", has=page.locator(".jp-InputArea", has_text="narrow and deep")).first
    cell.scroll_into_view_if_needed()
    pictures = cell.locator(".jp-OutputArea-output img, .jp-OutputArea-output svg")
    pictures.first.wait_for()
    # JupyterLab shows an SVG output as an image: its labels' size is 10 pt (13.3 px) times its scale.
    label_px = pictures.evaluate_all(
        """els => els.map(e => e.tagName === 'IMG'
            ? 13.33 * e.getBoundingClientRect().width / e.naturalWidth
            : Math.min(...[...e.querySelectorAll('text')].map(t => t.getBoundingClientRect().height)))"""
    )
    _shot(page, "06_c_trees.png")
    assert len(label_px) == 2 and min(label_px) >= 9, f"labels of the two trees are {label_px} px high"
    page.close()


def _board(page, cells: int):
    """The first play board with ``cells`` cells: its buttons, its status line and its whole box."""
    grid = next(g for g in page.locator(f"{PANEL} .widget-gridbox").all() if g.locator("button").count() == cells)
    grid.scroll_into_view_if_needed()
    box = grid.locator("xpath=ancestor::div[contains(@class, 'widget-vbox')][1]")
    return grid.locator("button"), box.locator(".widget-html").last, box


def _texts(buttons) -> list[str]:
    return [t.strip() for t in buttons.all_inner_texts()]


def test_play_board_plays_two_games_with_new_game_between_them(browser, lab):
    page = _open_and_run_all(browser, lab, NOTEBOOKS[2])
    # Section 2's won game (X completes the top row against 10 iterations): the picture marks the winning line.
    assert page.locator(f"{PANEL} .jp-OutputArea-output td.mctslab-win").count() == 3
    buttons, status, box = _board(page, 9)
    assert buttons.count() == 9
    # Game 1: X (you) takes the first free cell until the game ends.
    for _ in range(5):
        if any(word in status.inner_text() for word in ("won", "draw")):
            break
        texts = _texts(buttons)
        free = next(i for i, t in enumerate(texts) if t not in ("X", "O"))
        buttons.nth(free).click()
        _wait_for(
            lambda free=free: (
                _texts(buttons)[free] == "X"
                and "to move" in status.inner_text()
                or any(w in status.inner_text() for w in ("won", "draw"))
            )
        )
    ended = status.inner_text()
    assert any(word in ended for word in ("won", "draw")), ended
    # The winning line is green (WIN_FILL) on the live board (with this seed the agent wins: O's bottom row).
    line = buttons.evaluate_all(
        "bs => bs.filter(b => b.classList.contains('mctslab-win')).map(b => getComputedStyle(b).backgroundColor)"
    )
    assert len(line) >= 3 and set(line) == {"rgb(158, 216, 154)"} if "won" in ended else not line, (ended, line)
    marks = _texts(buttons)
    taken = next(i for i, t in enumerate(marks) if t in ("X", "O"))
    buttons.nth(taken).click()  # a click after the end points at "new game"
    _wait_for(lambda: "new game" in status.inner_text(), 5)
    _shot(page, "07_game_over.png")
    after_end = status.inner_text()
    box.get_by_role("button", name="new game").click()
    _wait_for(lambda: not any(_texts(buttons)), 5)
    empty = _texts(buttons)
    _shot(page, "07_after_new_game.png")
    assert "new game" in after_end, f"a click after the end says {after_end!r}"
    assert empty == [""] * 9, f"after new game the board shows {empty}"
    # Game 2: the first click plays on the empty board, and the agent answers.
    buttons.nth(0).click()
    _wait_for(lambda: _texts(buttons).count("O") == 1)
    second = _texts(buttons)
    assert second[0] == "X" and second.count("X") == 1 and second.count("O") == 1, second
    # Switching seats starts a game in the other seat at once: the agent (X) moves first.
    box.get_by_role("button", name="you play O").click()
    _wait_for(lambda: _texts(buttons).count("X") == 1 and not _texts(buttons).count("O"), 5)
    seat = _texts(buttons)
    _shot(page, "07_you_play_O.png")
    assert seat.count("X") == 1 and seat.count("O") == 0 and "you (O) to move" in status.inner_text(), (seat,)

    # Connect Four: a click on the top cell of column 0 drops a stone to its bottom; columns are numbered.
    buttons, status, box = _board(page, 42)
    before = _texts(buttons)
    buttons.nth(0).click()
    _wait_for(lambda: _texts(buttons).count("X") > before.count("X"), 10)
    after = _texts(buttons)
    _shot(page, "07_connect4.png")
    assert after[35] == "X" and after.count("X") == before.count("X") + 1, "the top of column 0 is not clickable"
    labels = [t.strip() for t in box.locator(".widget-gridbox .widget-html").all_inner_texts()]
    assert [t for t in labels if t] == [str(c) for c in range(7)], labels

    # Ultimate Tic-Tac-Toe: after the agent's reply, only the small board you are sent to is outlined.
    buttons, status, box = _board(page, 81)
    outlined = buttons.evaluate_all(
        "bs => bs.filter(b => b.classList.contains('mctslab-target'))"
        ".filter(b => getComputedStyle(b).borderRightStyle === 'solid').length"
    )
    # Thick lines between the small boards: the cells of columns 3 and 6 draw them on their left.
    thick = buttons.evaluate_all("bs => bs.map(b => parseFloat(getComputedStyle(b).borderLeftWidth) >= 3)")
    assert [i % 9 for i, t in enumerate(thick) if t] == [3, 6] * 9, "no thick lines between the small boards"
    _shot(page, "07_ultimate.png")
    assert 0 < outlined <= 9, f"{outlined} cells outlined as legal"
    assert "click an outlined cell" in status.inner_text(), status.inner_text()

    # Saved after running, the notebook keeps each board's picture, not views whose state is not saved (which,
    # reopened, read "Error displaying widget: model not found"): JupyterLab started with mctslab's pre-save hook.
    saved = Path(lab.split("|")[2]) / NOTEBOOKS[2]
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    notebook = _wait_for(lambda: _saved_with_outputs(saved))
    assert notebook, "the notebook was not saved"
    boards, views = _boards_and_views(notebook)
    committed, _ = _boards_and_views(json.loads((ROOT / "notebooks" / NOTEBOOKS[2]).read_text()))
    assert boards == committed and not views, f"saved: {boards} boards' pictures of {committed}, {views} widget views"
    (saved.parent / "reopened").mkdir(exist_ok=True)
    (saved.parent / "reopened" / saved.name).write_text(saved.read_text())
    page.evaluate(OPEN_WITHOUT_KERNEL, f"reopened/{saved.name}")  # as a student reopens it: no kernel yet
    _shots(page, "07_reopened")
    found = _look(page)
    assert not found, "saved after running, reopened:\n" + "\n".join(found)
    page.close()


def _saved_with_outputs(path: Path) -> dict | None:
    """The notebook at ``path``, once it has been saved with outputs (else None)."""
    notebook = json.loads(path.read_text())
    return notebook if any(cell.get("outputs") for cell in notebook["cells"]) else None


def _boards_and_views(notebook: dict) -> tuple[int, int]:
    """How many outputs of ``notebook`` are a play board's saved picture, and how many a widget's view."""
    data = [o.get("data", {}) for cell in notebook["cells"] for o in cell.get("outputs", [])]
    boards = sum("play board (needs a running kernel)" in "".join(d.get("text/html", "")) for d in data)
    return boards, sum(WIDGET_VIEW in d for d in data)


# JS: what the reader of the notebook on show would see broken, one line each (see _look).
PAGE_PROBLEMS = """([panel, minPx, walk]) => {
    const out = [];
    const root = document.querySelector(panel);
    const edge = root.querySelector('.jp-Notebook').getBoundingClientRect().right;
    const cells = [...root.querySelectorAll('.jp-Cell')];
    const where = el => 'cell ' + cells.indexOf(el.closest('.jp-Cell'));
    // The smallest label of a graphviz SVG drawn `width` px wide (its user unit is the point), in px.
    const smallest = (svg, width) => {
        const box = svg.viewBox && svg.viewBox.baseVal;
        if (!box || !box.width || !width) return Infinity;
        const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size') || '14'));
        return sizes.length ? Math.min(...sizes) * width / box.width : Infinity;
    };
    const labelPx = el => {
        const width = el.getBoundingClientRect().width;
        if (el.tagName.toLowerCase() === 'svg') return smallest(el, width);
        const src = el.getAttribute('src') || '';
        if (!src.startsWith('data:image/svg+xml')) return Infinity;
        const body = src.slice(src.indexOf(',') + 1);
        const text = src.includes(';base64,') ? atob(body) : decodeURIComponent(body);
        return smallest(new DOMParser().parseFromString(text, 'image/svg+xml').documentElement, width);
    };
    for (const el of root.querySelectorAll('.jp-OutputArea-output')) {
        // Broken widgets: ipywidgets' red "disconnected" icon, or a widget that cannot be drawn.
        const n = el.querySelectorAll('.jupyter-widgets-disconnected').length;
        if (n) out.push(where(el) + ': ' + n + ' disconnected widgets (red broken-link icons)');
        const text = el.textContent;
        if (/Error displaying widget|Loading widget/.test(text)) out.push(where(el) + ': ' + text.slice(0, 60));
    }
    const pictures = root.querySelectorAll('.jp-OutputArea-output :is(img, svg, table, .widget-gridbox)');
    for (const el of pictures) {
        if (el.tagName.toLowerCase() === 'svg' && el.parentElement.closest('svg')) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0) continue;
        const px = ['img', 'svg'].includes(el.tagName.toLowerCase()) ? labelPx(el) : Infinity;
        if (px < minPx - 0.5) out.push(where(el) + ': labels drawn ' + px.toFixed(1) + ' px high');
        // Past the right edge of the notebook, or of a box that scrolls it sideways.
        let scroller = null;
        for (let a = el.parentElement; a && !a.classList.contains('jp-Cell'); a = a.parentElement) {
            if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) { scroller = a; break; }
        }
        const room = scroller ? Math.min(edge, scroller.getBoundingClientRect().right) : edge;
        const past = Math.round(Math.max(r.right - edge, r.right - room));
        if (past <= 1) continue;
        const named = el.className && el.className.baseVal === undefined;  // an SVG's className is not a string
        const kind = el.tagName.toLowerCase() + (named ? '.' + el.className : '');
        if (!scroller || scroller.getBoundingClientRect().right > edge + 1) {
            out.push(where(el) + ': ' + kind + ' ends ' + past + ' px past the notebook');
        } else if (px === Infinity || px * (r.width - past) / r.width >= minPx + 0.05) {
            // Scrolling is for pictures that cannot shrink without labels below minPx.
            out.push(where(el) + ': ' + kind + ' scrolls ' + past + ' px where it could shrink to fit');
        }
    }
    // The statistics beside a board: on their own lines, never wrapped (mid-number), and inside the notebook.
    for (const pre of root.querySelectorAll('.jp-OutputArea-output :is(.jp-RenderedHTMLCommon, .widget-html) pre')) {
        const style = getComputedStyle(pre);
        if (!['pre', 'nowrap'].includes(style.whiteSpace)) out.push(where(pre) + ': statistics that wrap');
        if (pre.getBoundingClientRect().right > edge + 1) out.push(where(pre) + ': statistics past the notebook');
    }
    // Zebra striping on boards: every row of a board has the same background.
    for (const table of root.querySelectorAll('.jp-OutputArea-output table.mctslab-board')) {
        const colours = new Set([...table.querySelectorAll('tr')].map(tr => getComputedStyle(tr).backgroundColor));
        if (colours.size > 1) out.push(where(table) + ': a board with striped rows ' + [...colours].join(' / '));
    }
    if (!walk) return out;
    // What issue 41's walk saw at 1280 px. A table laid out in text (words apart by runs of spaces) that is wider
    // than its box: JupyterLab wraps it anywhere, mid-word, and its columns no longer line up.
    for (const pre of root.querySelectorAll('.jp-OutputArea-output pre')) {
        if (['pre', 'nowrap'].includes(getComputedStyle(pre).whiteSpace)) continue;
        const lines = pre.textContent.split('\\n');
        const longest = Math.max(...lines.map(l => l.length));
        const saved = pre.style.whiteSpace;
        pre.style.whiteSpace = 'pre';  // one line each: the widest line's width, in a monospace font
        const perChar = pre.scrollWidth / Math.max(longest, 1), room = pre.clientWidth;
        pre.style.whiteSpace = saved;
        const row = lines.find(l => /\\S {2,}\\S/.test(l.trim()) && l.length * perChar > room + 1);
        if (row) out.push(where(pre) + ': a text table wraps at "' + row.trim().slice(0, 12) + '" ('
            + row.length + ' characters, ' + Math.floor(room / perChar) + ' fit)');
    }
    for (const img of root.querySelectorAll('.jp-OutputArea-output img')) {
        const r = img.getBoundingClientRect();
        if (!r.width) continue;
        // A plot (PNG, matplotlib's 100 dpi) shrunk below 0.65 of its size: its 10 pt labels under 9 px.
        const src = img.getAttribute('src') || '';
        if (src.startsWith('data:image/png') && img.naturalWidth && r.width < 0.65 * img.naturalWidth) {
            out.push(where(img) + ': a plot shrunk to ' + (r.width / img.naturalWidth).toFixed(2) + ' of its size');
        }
        // A picture at its smallest (labels of minPx) whose right part is out of sight, in a box that scrolls.
        for (let a = img.parentElement; a && !a.classList.contains('jp-Cell'); a = a.parentElement) {
            if (!['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) continue;
            const hidden = a.scrollWidth - a.clientWidth;
            if (hidden > 1) out.push(where(img) + ': a picture cut off, ' + hidden + ' px of it to the right');
            break;
        }
    }
    return out;
}"""


def _look(page, walk: bool = False) -> list[str]:
    """What looks broken in the notebook on show, one line each (see PAGE_PROBLEMS); ``walk``: the walk's checks too."""
    return page.evaluate(PAGE_PROBLEMS, [PANEL, MIN_LABEL_PX, walk])


def _shots(page, stem: str) -> None:
    """Screenshots of the notebook, one window high each (the panel scrolls, not the page).

    The first window only, unless ``MCTSLAB_SCREENSHOTS=all``: then the whole notebook, about 120
    pictures in all, which take Chromium about half a minute (what the test asserts is read from
    the page, never from a picture; the pictures are for a person to look at).
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    scroller = f"{PANEL} .jp-WindowedPanel-outer"
    height = page.evaluate("s => document.querySelector(s).scrollHeight", scroller)
    view = page.evaluate("s => document.querySelector(s).clientHeight", scroller)
    if os.environ.get("MCTSLAB_SCREENSHOTS") != "all":
        height = 1
    for i, top in enumerate(range(0, max(height, 1), max(view - 50, 100))):
        page.evaluate("([s, y]) => document.querySelector(s).scrollTo(0, y)", [scroller, top])
        time.sleep(0.1)
        page.screenshot(path=str(ARTIFACTS / f"{SHOT_PREFIX}{stem}_{i:02d}.png"))


def test_pictures_fit_after_running(browser, lab):
    page = _open_and_run_all(browser, lab, NOTEBOOKS[0], NARROW)  # _open_and_run_all looks at every output
    page.close()


OPEN_WITHOUT_KERNEL = """async path => {
    const app = window.jupyterapp;
    await app.restored;
    for (const old of [...app.shell.widgets('main')]) old.dispose();  // the notebook looked at before
    const panel = await app.commands.execute('docmanager:open', {path, kernel: {shouldStart: false}});
    await panel.context.ready;
    await panel.revealed;
    const cells = panel.content.model.cells.length;
    for (let i = 0; i < 100 && panel.node.querySelectorAll('.jp-Cell').length < cells; i++) {
        await new Promise(done => setTimeout(done, 50));
    }
    await Promise.all([...panel.node.querySelectorAll('img')].map(img => img.decode().catch(() => null)));
    return cells;
}"""
"""JS: open the notebook at ``path`` in the JupyterLab on show with no kernel, once its cells and pictures are drawn."""


def _lab_page(browser, lab: str, viewport: dict):
    """One JupyterLab page (its default layout: the file browser open), with no notebook open."""
    url, token, _ = lab.split("|")
    page = browser.new_page()
    page.set_viewport_size(viewport)
    page.goto(f"{url}/lab/workspaces/walk?reset&token={token}")
    page.wait_for_function("() => window.jupyterapp && document.querySelector('.jp-FileBrowser')")
    page.evaluate("() => window.jupyterapp.restored")
    return page


def test_saved_notebooks_read_well_before_anything_runs(browser, lab):
    """Every notebook as saved (trusted, as ``./run course`` opens them), before anything runs: issue 41's walk.

    One JupyterLab page, no kernel (the saved outputs are what a reader sees until a cell runs; a widget
    without its kernel reads "Loading widget" or "Error displaying widget", which the checks catch). Each
    notebook at 1280 px, the walk's width, with the checks of the notebooks that run here (widgets, labels,
    pictures past the edge, statistics, boards) and the walk's (no text table wraps, no plot shrunk below
    0.65, no picture cut off); 04, 06 and 07 also at 1100 px, trusted and untrusted.
    """
    page = _lab_page(browser, lab, WALK)
    found = []
    for name in EVERY:
        page.evaluate(OPEN_WITHOUT_KERNEL, f"trusted/{name}")
        if name in STORED or os.environ.get("MCTSLAB_SCREENSHOTS") == "all":  # 0.1-0.2 s of CPU a picture
            _shots(page, f"stored_trusted_{name.split('_')[0]}")
        found += [f"{name} at 1280 px: {p}" for p in _look(page, walk=True)]
        if name in STORED:
            page.set_viewport_size(NARROW)
            found += [f"{name} at 1100 px: {p}" for p in _look(page)]
            page.set_viewport_size(WALK)
    page.set_viewport_size(NARROW)
    for name in STORED:
        page.evaluate(OPEN_WITHOUT_KERNEL, f"untrusted/{name}")
        _shots(page, f"stored_untrusted_{Path(name).stem[:2]}")
        found += [f"{name} untrusted: {p}" for p in _look(page)]
    page.close()
    assert not found, "as saved, JupyterLab's file browser open:\n" + "\n".join(found)
