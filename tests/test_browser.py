"""A real browser: JupyterLab runs notebooks 06 and 07, and their widgets answer the mouse.

Starts JupyterLab on 127.0.0.1 (on copies of the notebooks, in a temporary folder), opens the
tree explorer and the play board in Chromium driven by Playwright, runs all cells, drags the
explorer's iteration slider and clicks a cell of the play board, and checks that the tree and the
board shown in the page changed. Screenshots go to ``test-artifacts/browser/``.

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

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = Path(os.environ.get("MCTSLAB_CHROMIUM", "/usr/bin/chromium"))
# Without the background-networking flags Chromium's own connections are refused on a closed network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
NOTEBOOKS = ("06_tree_explorer.ipynb", "07_play_against_the_ai.ipynb")
TIMEOUT_MS = 120_000
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook on show

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the playwright package is not installed (pip install playwright; ./run test does)"
)
if not CHROMIUM.exists():
    pytest.skip(
        f"Chromium not found at {CHROMIUM}: install Debian's chromium (sudo apt-get install chromium; ./run test "
        "does this when run as root or with password-less sudo) or set MCTSLAB_CHROMIUM",
        allow_module_level=True,
    )


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
        (work / name).write_text(json.dumps(notebook))
    _settings(work / "settings")
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        JUPYTER_CONFIG_DIR=str(work / "config"),
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
    ]
    if os.getuid() == 0:
        command.append("--allow-root")
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
        yield f"{url}|{token}"
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
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1400, "height": 1000},
        )
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


def _open_and_run_all(browser, lab: str, name: str):
    url, token = lab.split("|")
    page = browser.new_page()
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
    page.screenshot(path=str(ARTIFACTS / name), full_page=False)


def _until_changed(read, before: str, seconds: float = 60.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = read()
        if now != before:
            return now
        time.sleep(0.25)
    return read()


def test_tree_explorer_slider_redraws_the_tree(browser, lab):
    page = _open_and_run_all(browser, lab, NOTEBOOKS[0])
    slider = page.locator(f"{PANEL} .widget-slider", has=page.locator(".widget-label", has_text="iteration")).first
    slider.scroll_into_view_if_needed()
    explorer = slider.locator("xpath=ancestor::div[contains(@class, 'widget-vbox')][1]")  # the explorer's own box
    status = explorer.locator("code").first
    picture = explorer.locator("svg").first
    status.wait_for()
    picture.wait_for()
    before_status, before_tree = status.inner_text(), picture.inner_html()
    _shot(page, "06_explorer_before.png")
    handle = slider.locator(".noUi-handle").first
    box = handle.bounding_box()
    track = slider.locator(".noUi-target").first.bounding_box()
    assert box and track, "the slider is not on screen"
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(track["x"] + track["width"] * 0.5, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()
    after_status = _until_changed(status.inner_text, before_status)
    _shot(page, "06_explorer_after.png")
    assert after_status != before_status, "moving the slider did not change the explorer's summary"
    assert int(after_status.split()[1]) > int(before_status.split()[1])  # "iteration N ...": further on
    assert picture.inner_html() != before_tree, "moving the slider did not redraw the tree"
    page.close()


def test_play_board_click_plays_a_move_and_the_agent_answers(browser, lab):
    page = _open_and_run_all(browser, lab, NOTEBOOKS[1])
    board = page.locator(f"{PANEL} .widget-gridbox").first
    board.scroll_into_view_if_needed()
    buttons = board.locator("button")
    assert buttons.count() == 9

    def texts() -> list[str]:
        return [t.strip() for t in buttons.all_inner_texts()]

    before = texts()
    _shot(page, "07_board_before.png")
    free = next(i for i, t in enumerate(before) if t not in ("X", "O"))
    buttons.nth(free).click()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and texts().count("O") <= before.count("O"):
        time.sleep(0.25)
    after = texts()
    _shot(page, "07_board_after.png")
    assert after[free] == "X", f"the clicked cell shows {after[free]!r}, not X"
    assert after.count("X") == before.count("X") + 1 and after.count("O") == before.count("O") + 1, (before, after)
    page.close()
