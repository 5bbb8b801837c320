"""A real browser reads the course's website with the network cut off.

Builds the student site (``mctslab.course.site.build_site``) into a temporary folder with its
scripts copied in (``assets/``), serves it from 127.0.0.1 with Python's ``http.server``, and opens
it in Debian's Chromium driven by Playwright with every request to any other host aborted. On the
index and on notebooks 01, 06 and 07: no request fails (nothing is fetched from outside, nothing is
missing), each page loads at most 2 MB (its weight, not its time: that would measure the machine),
what 01's playground, 06's tree explorer and 07's play board saved of themselves shows (a line of
text, a picture, a board; never a broken widget), and 01's formulas are typeset by MathJax. What a
reader of a Jupyter Book expects works: a phrase found in one chapter lists that chapter and its
link opens it; the contents stand beside the page at 1280 px, their links jump to their headings,
and they close above the page at 375 px; the dark mode darkens text and code but not pictures; a
copy button puts its cell's source on the clipboard. On the same page loads, 06's explorer and 07's
board run live (Pyodide, :mod:`mctslab.course.site_live`): the slider changes the tree's SVG, a click
on a node re-centres it, a whole game of tic-tac-toe is clicked to its result, UCT answers a move of
Connect Four.
Screenshots go to ``test-artifacts/site/``: look at them.

Needs Debian's ``chromium`` and the ``playwright`` package (``./run test`` installs both when it
can), and npm to fetch the site's scripts once (``./run test`` installs it too); the test is
skipped, saying why, only when one of them cannot be had.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from chromium import launch, playwright_or_skip
from conftest import served, shared_site

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "site"
TIMEOUT_MS = 60_000
LOAD_BYTES = 2_000_000
"""What a page may load, its scripts and pictures included (the heaviest, 01, loads about 1.26 MB): a page
that weighs more is slow on a slow link, whatever this machine's speed (a load time would measure the machine)."""
WIDGET_PAGES = ("01_bandits_and_ucb1", "06_tree_explorer", "07_play_against_the_ai")

sync_api = playwright_or_skip()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    """The student site, served from 127.0.0.1; yields its base URL."""
    with served(shared_site(tmp_path_factory, "student").out) as url:  # built once, for test_site.py too
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Chromium from Debian, with a fresh profile, that reaches no host but 127.0.0.1."""
    with sync_api.sync_playwright() as p:
        context = launch(p, tmp_path_factory.mktemp("chromium-profile"), {"width": 1280, "height": 900})
        context.set_default_timeout(TIMEOUT_MS)
        context.blocked = []

        def route(r) -> None:
            if urlparse(r.request.url).hostname in ("127.0.0.1", "localhost"):
                r.continue_()
            else:
                context.blocked.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        try:
            yield context
        finally:
            context.close()


def _open(browser, url: str):
    """Open ``url``; return the page, its load time and the list its failed requests go into."""
    page = browser.new_page()
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(f"{request.url} ({request.failure})"))
    page.on(
        "response", lambda response: response.status >= 400 and failed.append(f"{response.url} ({response.status})")
    )
    page.goto(url, wait_until="load")
    return page, _weight(page), failed


def _weight(page) -> int:
    """Bytes the page loaded: its HTML and every resource it fetched (bodies, as the local server sent them)."""
    return page.evaluate(
        """() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
            .reduce((total, entry) => total + entry.encodedBodySize, 0)"""
    )


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def _finish(browser, page, weight: int, failed: list[str], name: str) -> None:
    page.wait_for_load_state("networkidle")
    assert not failed, f"{name}: failed requests: {failed}"
    assert not browser.blocked, f"{name}: requests to other hosts: {browser.blocked}"
    assert weight <= LOAD_BYTES, f"{name} loads {weight:,} bytes (at most {LOAD_BYTES:,})"
    page.close()


def test_index_lists_every_chapter_and_loads_offline(browser, site):
    page, weight, failed = _open(browser, f"{site}/index.html")
    links = page.locator(".mctslab-index ol > li > a").evaluate_all("(as) => as.map(a => a.getAttribute('href'))")
    assert links[:2] == ["00_start_here.html", "01_bandits_and_ucb1.html"] and len(links) >= 12
    _shot(page, "index.png")
    print(f"index: {weight:,} bytes")
    _finish(browser, page, weight, failed, "index.html")


# -- 06's explorer and 07's board, live in the page (mctslab.course.site_live) ---------------------
LIVE_BYTES = 20_000_000
"""What a page may load once its live widget runs (Pyodide's 13 MB, graphviz's 1.2 MB, mctslab's zip): once."""
LIVE_MS = 180_000
"""How long Pyodide may take to start (about 5 s on this machine with the suite beside it; the rest is margin)."""


def _start_live(page, kind: str):
    """Click the page's live ``kind`` widget's button and wait for it: the widget, and the ms it took to be ready."""
    root = page.locator(f'[data-mctslab="{kind}"]')
    root.scroll_into_view_if_needed()
    root.locator(".mctslab-live-start").click()
    page.wait_for_function("(r) => r.dataset.ready || r.dataset.failed", arg=root.element_handle(), timeout=LIVE_MS)
    assert root.get_attribute("data-failed") is None, root.locator(".mctslab-live-message").inner_text()
    return root, int(root.get_attribute("data-ready"))


def _fail_to_start(page, failed: list[str], kind: str) -> None:
    """With Pyodide's script missing, the widget says in one line what failed (then a new click can start it)."""
    root = page.locator(f'[data-mctslab="{kind}"]')
    page.route("**/pyodide.mjs", lambda route: route.fulfill(status=404, body="missing"))
    root.locator(".mctslab-live-start").click()
    page.wait_for_function("(r) => r.dataset.failed", arg=root.element_handle())
    message = root.locator(".mctslab-live-message").inner_text()
    page.unroute("**/pyodide.mjs")
    failed[:] = [f for f in failed if "pyodide.mjs" not in f]  # the request made to fail
    assert message.startswith("The live widget could not start: ") and "pyodide.mjs" in message, message
    assert "\n" not in message.strip(), f"more than one line: {message!r}"
    assert root.locator(".mctslab-live-start").is_enabled()
    print(f"{kind}, Pyodide missing: {message}")


def _live_weight(page, name: str) -> None:
    weight = _weight(page)
    print(f"{name}: {weight:,} bytes with its live widget running")
    assert weight <= LIVE_BYTES, f"{name} loads {weight:,} bytes with its live widget (at most {LIVE_BYTES:,})"


def _live_explorer(page, failed: list[str]) -> None:
    """A failure said in one line; then the slider grows the tree (the SVG changes), a click re-centres, a phase."""
    _fail_to_start(page, failed, "explorer")
    root, ready = _start_live(page, "explorer")
    summary = root.locator(".mctslab-live-summary")
    svg = root.locator(".mctslab-live-tree svg")
    assert summary.inner_text().startswith("iteration 30 (the tree after it)"), summary.inner_text()
    assert root.locator("[data-act=c]").input_value() == "1.41"  # sqrt(2), as the notebook's explorer
    before = svg.inner_html()
    root.locator("input[type=range]").fill("400")  # the slider moved: the tree after 400 iterations
    page.wait_for_function("(s) => s.textContent.startsWith('iteration 400 ')", arg=summary.element_handle())
    assert svg.inner_html() != before and "400 visits" in svg.inner_html()
    node = root.locator("g.node.mctslab-clickable").first  # a child of the root: the drawing re-centres on it
    node.click()
    page.wait_for_function("(s) => s.textContent.includes(' > ')", arg=summary.element_handle())
    root.locator("[data-act=forward]").click()  # the next iteration's first phase
    phase = "(s) => s.textContent.startsWith('iteration 401 (phase 1, selection)')"
    page.wait_for_function(phase, arg=summary.element_handle())
    assert svg.count() == 1
    _shot(page, "live_explorer.png")
    print(f"06: live explorer ready {ready} ms after the click; then: {summary.inner_text()}")
    _live_weight(page, "06 (live explorer)")


def _play(page, root, cell) -> str:
    """Click ``cell`` and wait for UCT's answer; return the status line."""
    shown = root.get_attribute("data-shown")  # how many times the board was drawn: once more after the answer
    cell.click()
    page.wait_for_function("([r, n]) => r.dataset.shown !== n", arg=[root.element_handle(), shown], timeout=60_000)
    return root.locator('[data-mctslab="status"]').inner_text()


def _live_board(page, failed: list[str]) -> None:
    """A whole game of tic-tac-toe clicked to its end (the result in the status line), a Connect Four move answered."""
    root, ready = _start_live(page, "board")
    assert root.locator("button[data-move]").count() == 9
    assert root.locator('[data-mctslab="status"]').inner_text().startswith("you (X) to move")
    line = ""
    for _ in range(5):  # X moves at most five times: each time in the first free cell
        line = _play(page, root, root.locator("button[data-move]:not([disabled])").first)
        if "won" in line or "draw" in line:
            break
    assert re.search(r"\b(won|draw)\b", line), f"after five moves the game is not over: {line}"
    assert 5 <= root.locator("button.mctslab-stone").count() <= 9
    if "won" in line:
        assert root.locator("button.mctslab-win").count() >= 3, "the winning line is not shown"
    _shot(page, "live_board_tictactoe.png")
    print(f"07: live board ready {ready} ms after the click; tic-tac-toe: {line}")
    root.locator("[data-act=game]").select_option("connect4")  # a new game of Connect Four at once
    page.wait_for_function("() => document.querySelectorAll('[data-mctslab=board] button[data-move]').length === 42")
    line = _play(page, root, root.locator('button[data-move][data-row="5"][data-col="3"]'))
    assert line.startswith("you (X) to move"), line
    assert root.locator("button.mctslab-stone").count() == 2, "UCT did not answer the first move"
    assert root.locator("button.mctslab-last").count() == 1
    _shot(page, "live_board_connect4.png")
    print(f"07: Connect Four, after the first move: {line}")
    _live_weight(page, "07 (live board)")


LIVE = {"06_tree_explorer": _live_explorer, "07_play_against_the_ai": _live_board}
"""The pages whose widget also runs live, and what is done with it."""


# What each widget saved of itself (the course's notebooks keep no widget state: mctslab.viz.stored):
# a picture of the tree explorer, a picture of the board, a line of text for the bandit playground.
SAVED_PICTURES = {
    "01_bandits_and_ucb1": "pre:has-text('UCB1 playground')",
    "06_tree_explorer": "img[src^='data:image/svg+xml']",
    "07_play_against_the_ai": "table.mctslab-board",
}


@pytest.mark.parametrize("name", WIDGET_PAGES)
def test_saved_widgets_show_their_pictures_and_06_and_07_run_live_with_the_network_cut_off(browser, site, name):
    page, weight, failed = _open(browser, f"{site}/{name}.html")
    picture = page.locator(SAVED_PICTURES[name]).first
    picture.wait_for()
    box, width = picture.bounding_box(), page.locator("main").first.bounding_box()["width"]
    assert box and box["width"] > 0 and box["height"] > 0, f"{name}: the widget's saved picture is not shown"
    assert page.locator(".jupyter-widgets-disconnected, .widget-error").count() == 0, f"{name}: a broken widget"
    _shot(page, f"{name}.png")
    picture.scroll_into_view_if_needed()
    _shot(page, f"{name}_widget.png")
    if name.startswith("01"):
        page.wait_for_function("() => document.querySelectorAll('.MathJax_CHTML').length > 10")
        print(f"{name}: {page.locator('.MathJax_CHTML').count()} formulas typeset")
        assert page.locator(".MathJax_Error, .mjx-noError").count() == 0, f"{name}: MathJax reports an error"
        page.locator(".MathJax_CHTML").nth(3).scroll_into_view_if_needed()
        _shot(page, f"{name}_math.png")
    print(f"{name}: {weight:,} bytes, saved picture {box['width']:.0f} px wide (page {width:.0f} px)")
    if name in LIVE:  # on the same page (Pyodide costs seconds of CPU to start: one page load per widget)
        LIVE[name](page, failed)
    _finish(browser, page, weight, failed, name)


def test_in_page_links_scroll_to_their_heading(browser, site):
    page, weight, failed = _open(browser, f"{site}/00_start_here.html")
    # A fragment names an id as written or, failing that, percent-decoded (as the browser looks it up).
    missing = page.evaluate(
        """() => [...document.querySelectorAll("a[href^='#']")].map(a => a.getAttribute('href'))
            .filter(h => !document.getElementById(h.slice(1))
                && !document.getElementById(decodeURIComponent(h.slice(1))))"""
    )
    assert not missing, f"00: in-page links without a target: {missing}"
    for target in ("Cheat-sheet", "References"):
        page.evaluate("() => window.scrollTo(0, 0)")
        page.locator(f"main a[href='#{target}']:not(.anchor-link)").first.click()
        page.wait_for_function(  # the heading is now in view (near the top, or the page's end is reached)
            # (to within a pixel: scrolled to the top, a heading may sit a fraction of a pixel above it)
            "(id) => { const r = document.getElementById(id).getBoundingClientRect();"
            " return r.top >= -1 && r.bottom <= innerHeight + 1 && scrollY > 0; }",
            arg=target,
            timeout=10_000,
        )
    _finish(browser, page, weight, failed, "00_start_here.html")


# -- what a reader of a Jupyter Book or d2l site expects (mctslab.course.site_reader) -------------
NARROW = {"width": 375, "height": 800}


def test_search_finds_the_one_chapter_holding_a_phrase_and_its_link_opens_it(browser, site):
    import json
    from urllib.request import urlopen

    phrase = "virtual loss"
    with urlopen(f"{site}/search-index.js") as response:  # the same index the page reads
        script = response.read().decode("ascii")
    index = json.loads(script[script.index("{") : script.rindex("}") + 1])
    holding = {index["pages"][s[0]][0] for s in index["sections"] if phrase in f"{s[2]} {s[3]}".lower()}
    assert holding == {"13_parallel_search.html"}, f"the phrase is in {holding}: choose one in a single chapter"
    page, weight, failed = _open(browser, f"{site}/index.html")
    page.locator(".mctslab-search input").fill(phrase)
    hits = page.locator(".mctslab-results a")
    hits.first.wait_for()
    files = hits.evaluate_all("(as) => as.map(a => a.getAttribute('href').split('#')[0])")
    assert set(files) == {"13_parallel_search.html"}, files
    assert page.locator(".mctslab-results mark").first.inner_text().lower() in phrase.split()
    _shot(page, "search.png")
    weight = _weight(page)  # with the index, loaded when the box was first used
    print(f"index with the search index: {weight:,} bytes")
    href = hits.first.get_attribute("href")
    hits.first.click()
    page.wait_for_url(f"**/{href}")
    target = href.partition("#")[2]
    if target:  # the section's heading is in view
        page.wait_for_function(
            "(id) => { const r = document.getElementById(id).getBoundingClientRect();"
            " return r.top >= -1 && r.top < innerHeight; }",  # (within a pixel, as above)
            arg=target,
            timeout=10_000,
        )
    _finish(browser, page, weight, failed, "index.html and its search")


def test_contents_stand_beside_the_page_at_1280_px_and_above_it_at_375_px(browser, site):
    page, weight, failed = _open(browser, f"{site}/07_play_against_the_ai.html")  # few formulas to typeset
    toc, content = page.locator("details.mctslab-toc"), page.locator(".jp-Cell").first
    assert toc.evaluate("(d) => d.open"), "the contents are closed beside a wide page"
    side, cell = toc.bounding_box(), content.bounding_box()
    assert side["x"] >= cell["x"] + cell["width"], f"the contents {side} overlap the page {cell}"
    _shot(page, "contents_1280.png")
    # Every output's preformatted text is in the code font, the board's statistics (an HTML output) too,
    # as in JupyterLab, so that its columns line up (nbconvert's template gives them the page's font).
    fonts = page.evaluate(
        "() => [...document.querySelectorAll('.jp-OutputArea-output pre')].map(e => [e.closest("
        "'.jp-OutputArea-output').dataset.mimeType, getComputedStyle(e).fontFamily])"
    )
    assert {mime for mime, _ in fonts} >= {"text/html", "text/plain"}, fonts
    assert len({font for _, font in fonts}) == 1, f"preformatted outputs in several fonts: {fonts}"
    link = toc.locator("a").nth(3)
    target = link.get_attribute("href")[1:]
    link.click()
    page.wait_for_function(
        "(id) => { const r = document.getElementById(id).getBoundingClientRect(); return Math.abs(r.top) < 5; }",
        arg=target,
        timeout=10_000,
    )
    page.set_viewport_size(NARROW)  # as a phone: the contents close, above the page
    page.wait_for_function("() => !document.querySelector('details.mctslab-toc').open", timeout=10_000)
    above = toc.evaluate(
        "(d) => d.getBoundingClientRect().bottom <= document.querySelector('.jp-Cell').getBoundingClientRect().top"
    )
    assert above, "the contents are not above the page at 375 px"
    page.evaluate("() => window.scrollTo(0, 0)")
    toc.locator("summary").click()
    assert toc.locator("a").first.is_visible()
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= NARROW["width"], f"at 375 px the page is {wide} px wide"
    _shot(page, "contents_375.png")
    print(f"07 (contents): {weight:,} bytes")
    _finish(browser, page, weight, failed, "07 (contents)")


def _luminance(css_color: str) -> float:
    """The relative luminance (0 black, 1 white) of a computed ``rgb(...)`` colour."""
    red, green, blue = (int(x) / 255 for x in re.findall(r"\d+", css_color)[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_dark_mode_follows_the_system_and_a_copy_button_copies_the_cells_source(browser, site):
    import nbformat

    from mctslab.course import editions

    browser.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page = browser.new_page()
    page.emulate_media(color_scheme="dark")
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(f"{request.url} ({request.failure})"))
    page.goto(f"{site}/06_tree_explorer.html", wait_until="load")
    weight = _weight(page)
    colours = page.evaluate(
        """() => { const style = (s, p) => getComputedStyle(document.querySelector(s))[p];
            return {page: style('body', 'backgroundColor'), text: style('.jp-RenderedMarkdown p', 'color'),
                    code: style('.jp-InputArea-editor .highlight', 'backgroundColor'),
                    picture: style('.jp-OutputArea-output img', 'backgroundColor')}; }"""
    )
    assert _luminance(colours["page"]) < 0.15 and _luminance(colours["text"]) > 0.6, colours
    assert _luminance(colours["code"]) < 0.25, colours
    assert _luminance(colours["picture"]) > 0.95, f"a picture is not on white: {colours}"
    _shot(page, "dark_1280.png")
    page.locator(".jp-OutputArea-output img").first.scroll_into_view_if_needed()
    _shot(page, "dark_picture_1280.png")
    # The first code cell's copy button puts that cell's source on the clipboard.
    notebook = nbformat.read(editions.NOTEBOOKS / "06_tree_explorer.ipynb", as_version=4)
    source = next(c.source for c in notebook.cells if c.cell_type == "code")
    button = page.locator(".jp-CodeCell .mctslab-copy").first
    button.scroll_into_view_if_needed()
    button.click()
    page.wait_for_function("(b) => b.textContent === 'Copied'", arg=button.element_handle(), timeout=10_000)
    assert page.evaluate("() => navigator.clipboard.readText()") == source.rstrip("\n")
    page.set_viewport_size(NARROW)
    page.evaluate("() => window.scrollTo(0, 0)")
    _shot(page, "dark_375.png")
    print(f"06 (dark mode, copy): {weight:,} bytes")
    _finish(browser, page, weight, failed, "06 (dark mode, copy)")
