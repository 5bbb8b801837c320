"""The live widgets of the course's website: 06's tree explorer and 07's play board, run in the page.

On the pages of notebooks 06 and 07, above the line each widget saved of itself, the site puts
a live copy of the widget that needs no kernel, no server beyond the site's static files and no
network: a "Run it here" button loads Pyodide (CPython compiled to WebAssembly, from its npm
package) and graphviz's WebAssembly build (``@viz-js/viz``), both copied into ``OUT/assets/``
like the site's other scripts (:mod:`mctslab.course.site_assets`: fetched once with ``npm pack``,
pinned by SHA-256), and ``OUT/live/mctslab-live.zip``: mctslab's own source, packed from the
installed package at build time (:func:`pack`), with the ``graphviz`` and ``tqdm`` Python
packages it imports and :mod:`mctslab.course.site_live_app`, the widgets' Python half. So the
page runs the course's own code: the same :class:`~mctslab.viz.explorer.TreeExplorer` and
:class:`~mctslab.viz.session.PlaySession` as the notebooks.

Nothing is loaded until the reader asks (Pyodide weighs about 13 MB); the widget says what it is
loading, and in one line what failed if something did (opened from disk, ``file://``, the
browser refuses to load WebAssembly that way: the line says to serve the folder). With
``cdn=True`` Pyodide and graphviz come from a public CDN instead; the zip is the site's own.

Test hooks (``tests/test_site_browser.py``): the explorer is the element
``[data-mctslab="explorer"]`` (an ``input[type=range]`` over iterations, the tree's ``svg``), the
board ``[data-mctslab="board"]`` (``button[data-move]`` cells, a ``[data-mctslab="status"]`` line).
"""

from __future__ import annotations

import html
import importlib.util
import io
import json
import zipfile
from pathlib import Path

__all__ = ["BUNDLE", "CDN", "LOCAL", "PAGES", "WIDGETS", "add_live", "pack"]

BUNDLE = "live/mctslab-live.zip"
"""Where the Python the page runs is written in the site (not under ``assets/``: it is the site's own)."""

LOCAL = {"pyodide": "assets/pyodide/", "viz": "assets/viz/dist/viz.js"}
"""Pyodide's folder and graphviz's module, as copied into the site's ``assets/``."""
CDN = {
    "pyodide": "https://cdn.jsdelivr.net/npm/pyodide@314.0.7/",
    "viz": "https://cdn.jsdelivr.net/npm/@viz-js/viz@3.31.0/dist/viz.js",
}
"""The same files on a public CDN (for ``--cdn``)."""

EXPLORER = {"game": "tictactoe", "iteration": 30, "max": 2000, "seed": 0, "depth": 3, "top_k": 4}
"""06's first explorer, as the notebook makes it (``tree_explorer(ttt, iteration=30, max_iterations=2000, seed=0)``)."""
BOARD = {"game": "tictactoe", "iterations": 100, "seed": 0}
"""07's first board: tic-tac-toe against ``uct:iterations=100`` (the notebook's ``MEDIUM``), seed 0."""

WIDGETS = {
    "explorer": ("<p><i>tree explorer (needs a running kernel):</i>", EXPLORER),
    "board": ("<p><i>play board (needs a running kernel)</i>", BOARD),
}
"""Each live widget: the saved line it is put above (its first occurrence on the page), and its settings."""
PAGES = {"06_tree_explorer.html": "explorer", "07_play_against_the_ai.html": "board"}
"""The pages that get a live widget."""

PACKAGES = ("graphviz", "tqdm")
"""Pure-Python packages mctslab imports that Pyodide does not hold: packed from where they are installed."""

_WHEN = (2020, 1, 1, 0, 0, 0)
"""Every file's date in the zip: the same source gives the same bytes."""


def _files(package: str) -> list[tuple[Path, str]]:
    """``(path, name in the zip)`` of each ``.py`` file of an installed package, course material left out."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"the site's live widgets need the {package} package: pip install {package}")
    root = Path(next(iter(spec.submodule_search_locations)))
    files = []
    for path in sorted(root.rglob("*.py")):
        inside = path.relative_to(root)
        if package == "mctslab" and inside.parts[0] == "course":
            continue  # the course's material, editions and grader: the widgets need none of it
        files.append((path, f"{package}/{inside.as_posix()}"))
    return files


def pack(out: str | Path) -> Path:
    """Write :data:`BUNDLE` into the site's folder ``out``: mctslab, graphviz, tqdm and the widgets' Python.

    Returns:
        The zip's path.

    Raises:
        ModuleNotFoundError: if graphviz is not installed (``pip install "mctslab[course]"``).
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for package in ("mctslab", *PACKAGES):
            for path, name in _files(package):
                archive.writestr(zipfile.ZipInfo(name, _WHEN), path.read_bytes(), zipfile.ZIP_DEFLATED)
        source = Path(__file__).with_name("site_live_app.py").read_bytes()
        archive.writestr(zipfile.ZipInfo("mctslab_live.py", _WHEN), source, zipfile.ZIP_DEFLATED)
    target = Path(out) / BUNDLE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(buffer.getvalue())
    return target


def _widget(kind: str) -> str:
    settings = WIDGETS[kind][1]
    what = (
        "grow UCT's tree iteration by iteration, step through the four phases, click a node to re-centre"
        if kind == "explorer"
        else "play tic-tac-toe or Connect Four against UCT, its visits shown as a heat map"
    )
    return (
        f'<div class="mctslab-live" data-mctslab="{kind}" data-settings="{html.escape(json.dumps(settings))}">'
        f'<p class="mctslab-live-intro"><b>Live {"tree explorer" if kind == "explorer" else "play board"}</b>: '
        f"{what}, here in the page (mctslab itself, run by Pyodide: about 15 MB, loaded once). "
        '<button type="button" class="mctslab-live-start">Run it here</button></p>'
        '<p class="mctslab-live-message" role="status"></p><div class="mctslab-live-body"></div></div>'
    )


def add_live(page: str, kind: str, urls: dict[str, str]) -> str:
    """``page`` with the live ``kind`` widget above the first line its notebook widget saved, and its script.

    Args:
        page: a page of the site.
        kind: ``"explorer"`` or ``"board"``.
        urls: :data:`LOCAL` or :data:`CDN`.

    Returns:
        The page as it was if it holds no such saved line (a notebook of one's own, run without the widget;
        ``tests/test_site_live.py`` holds the course's 06 and 07 to having theirs).
    """
    marker = WIDGETS[kind][0]
    at = page.find(marker)
    if at < 0:
        return page
    config = json.dumps({**urls, "zip": BUNDLE})
    script = f'<script type="application/json" id="mctslab-live-config">{config}</script><script>{SCRIPT}</script>'
    page = page[:at] + _widget(kind) + page[at:]
    body = page.rindex("</body>")
    return page[:body] + f"<style>{CSS}</style>{script}\n" + page[body:]


CSS = """
.mctslab-live { border: 1px solid #d0d7de; border-left: 3px solid #1f6feb; border-radius: 4px; padding: 0.5em 0.8em;
  margin: 0.6em 0 1em; font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 14px; }
.mctslab-live p { margin: 0.3em 0; }
.mctslab-live button, .mctslab-live select, .mctslab-live input { font: inherit; font-size: 13px; }
.mctslab-live-message:empty { display: none; }
.mctslab-live-message.mctslab-failed { color: #c62828; font-weight: 600; }
.mctslab-live-controls { display: flex; flex-wrap: wrap; gap: 0.4em 1em; align-items: center; margin: 0.3em 0; }
.mctslab-live-controls input[type=range] { width: min(420px, 60vw); vertical-align: middle; }
.mctslab-live-controls input[type=number] { width: 3.5em; }
.mctslab-live-summary { font-family: var(--jp-code-font-family, monospace); font-size: 12px; overflow-wrap: anywhere; }
.mctslab-live-tree { background: #fff; overflow: auto; max-width: 100%; }
.mctslab-live-tree svg { max-width: 100%; height: auto; display: block; margin: 0 auto; }
.mctslab-live-tree g.node.mctslab-clickable { cursor: pointer; }
.mctslab-live-tree g.node.mctslab-clickable:hover path, .mctslab-live-tree g.node.mctslab-clickable:hover polygon
  { stroke-width: 2.5; }
.mctslab-live-play { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; }
.mctslab-live-grid { display: grid; gap: 2px; --cell: 44px; width: max-content; }
.mctslab-live-grid.mctslab-wide { --cell: 34px; }
.mctslab-live-label { text-align: center; color: #555; font-size: 12px; }
.mctslab-live-cell { width: var(--cell); height: var(--cell); padding: 0; border: 1px solid #999; border-radius: 3px;
  font-size: 11px; color: #444; cursor: pointer; }
.mctslab-live-cell:disabled { cursor: default; color: #444; opacity: 1; }
.mctslab-live-cell.mctslab-stone { font-size: 20px; font-weight: bold; }
.mctslab-live-cell.mctslab-last { outline: 2px solid #c62828; outline-offset: -2px; }
.mctslab-live-cell.mctslab-target { box-shadow: inset 0 0 0 2px #2e7d32; }
.mctslab-live-stats { margin: 0; font-size: 12px; white-space: pre; overflow-x: auto; max-width: 100%; }
[data-mctslab="status"] { font-weight: 600; }
"""
"""The live widgets' look (the tree on white, as the site's pictures, in dark mode too)."""

SCRIPT = r"""
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("mctslab-live-config").textContent);
  var loading = null, attempts = 0;
  function address(path) { return new URL(path, document.baseURI).href; }
  function frame() { return new Promise(function (done) { setTimeout(done, 0); }); }
  function firstLine(err) { return String((err && err.message) || err).trim().split("\n").filter(Boolean).pop(); }
  function runtime(say) {
    if (!loading) {
      loading = (async function () {
        if (location.protocol === "file:") {
          throw new Error("the browser loads no WebAssembly from a file opened from disk: serve the site's folder " +
            "(python -m http.server, then open http://localhost:8000/)");
        }
        say("loading Python in the page (Pyodide)...");
        // A module that failed to load stays failed for the page: a new try asks for it under another name.
        var again = attempts++ ? "?attempt=" + attempts : "";
        var pyodide = await import(address(config.pyodide + "pyodide.mjs") + again);
        var py = await pyodide.loadPyodide({ indexURL: address(config.pyodide) });
        say("loading mctslab...");
        var zip = await fetch(address(config.zip));
        if (!zip.ok) { throw new Error(config.zip + ": HTTP " + zip.status); }
        py.unpackArchive(await zip.arrayBuffer(), "zip");
        var live = py.pyimport("mctslab_live");
        live.stand_in_for_numpy();
        py.runPython("import mctslab");
        say("loading graphviz...");
        var Viz = await import(address(config.viz));
        return { py: py, live: live, viz: await Viz.instance() };
      })();
    }
    return loading;
  }
  function element(html) {
    var t = document.createElement("template");
    t.innerHTML = html.trim();
    return t.content.firstChild;
  }

  function explorer(root, rt, settings) {
    var body = root.querySelector(".mctslab-live-body");
    body.innerHTML =
      '<div class="mctslab-live-controls"><label>iteration <input type="range" min="1" max="' + settings.max +
      '" value="' + settings.iteration + '"> <output>' + settings.iteration + '</output></label>' +
      '<button type="button" data-act="back" title="previous phase">&lt; phase</button>' +
      '<button type="button" data-act="forward" title="next phase">phase &gt;</button></div>' +
      '<div class="mctslab-live-controls"><label>depth <input type="number" data-act="depth" min="1" max="8" value="' +
      settings.depth + '"></label><label>top k <input type="number" data-act="top_k" min="1" max="12" value="' +
      settings.top_k + '"></label><label>c <input type="number" data-act="c" min="0" max="4" step="0.1">' +
      '</label><button type="button" data-act="up">up</button>' +
      '<button type="button" data-act="home">root</button>' +
      '<span>click a node to re-centre the drawing on it</span></div>' +
      '<p class="mctslab-live-summary"></p><div class="mctslab-live-tree"></div>';
    var model = rt.live.LiveExplorer(settings.game, settings.iteration, settings.seed, settings.depth, settings.top_k);
    var slider = body.querySelector("input[type=range]"), shown = body.querySelector("output");
    var depth = body.querySelector("[data-act=depth]"), topK = body.querySelector("[data-act=top_k]");
    var c = body.querySelector("[data-act=c]");
    var summary = body.querySelector(".mctslab-live-summary"), tree = body.querySelector(".mctslab-live-tree");
    var busy = Promise.resolve();
    function show(json) {
      var view = JSON.parse(json);
      slider.value = view.iteration; shown.textContent = view.iteration;
      depth.disabled = view.phase !== null;
      c.value = Number(view.c.toFixed(2));  // sqrt(2) by default
      summary.textContent = view.summary + (view.note ? " (" + view.note + ")" : "");
      var svg = rt.viz.renderSVGElement(view.dot);
      svg.querySelectorAll("g.node").forEach(function (node) {
        var name = node.querySelector("title").textContent;
        if (view.clickable.indexOf(name) >= 0) { node.classList.add("mctslab-clickable"); node.dataset.node = name; }
      });
      tree.replaceChildren(svg);
    }
    function act(call) {
      busy = busy.then(async function () {
        summary.textContent = "searching...";
        await frame();
        try { show(call()); } catch (err) { summary.textContent = "failed: " + firstLine(err); }
      });
    }
    slider.addEventListener("input", function () { shown.textContent = slider.value; });
    slider.addEventListener("change", function () {
      var i = Number(slider.value);
      act(function () { return model.go_to(i); });
    });
    body.querySelector("[data-act=back]").onclick = function () { act(function () { return model.step(false); }); };
    body.querySelector("[data-act=forward]").onclick = function () { act(function () { return model.step(true); }); };
    body.querySelector("[data-act=up]").onclick = function () { act(function () { return model.up(); }); };
    body.querySelector("[data-act=home]").onclick = function () { act(function () { return model.home(); }); };
    [depth, topK].forEach(function (input) {
      input.addEventListener("change", function () {
        var d = Number(depth.value) || 1, k = Number(topK.value) || 1;
        act(function () { return model.limits(d, k); });
      });
    });
    c.addEventListener("change", function () {
      var value = Math.max(0, Number(c.value) || 0);
      act(function () { return model.set_c(value); });
    });
    tree.addEventListener("click", function (event) {
      var node = event.target.closest("g.node.mctslab-clickable");
      if (node) { var name = node.dataset.node; act(function () { return model.enter(name); }); }
    });
    show(model.view());
  }

  function board(root, rt, settings) {
    var body = root.querySelector(".mctslab-live-body");
    var budgets = [10, 100, 1000].map(function (n) {
      return '<option value="' + n + '"' + (n === settings.iterations ? " selected" : "") + ">" + n + "</option>";
    }).join("");
    body.innerHTML =
      '<div class="mctslab-live-controls"><label>game <select data-act="game">' +
      '<option value="tictactoe">tic-tac-toe</option><option value="connect4">Connect Four</option></select></label>' +
      '<label>you play <select data-act="seat"><option value="0">X (first)</option><option value="1">O</option>' +
      '</select></label><label>UCT iterations per move <select data-act="budget">' + budgets + '</select></label>' +
      '<button type="button" data-act="new">new game</button></div><div class="mctslab-live-play">' +
      '<div class="mctslab-live-board"></div><pre class="mctslab-live-stats"></pre></div>' +
      '<p data-mctslab="status"></p>';
    var model = rt.live.LiveBoard(settings.game, settings.iterations, 0, settings.seed);
    var game = body.querySelector("[data-act=game]"), seat = body.querySelector("[data-act=seat]");
    var budget = body.querySelector("[data-act=budget]"), status = body.querySelector("[data-mctslab=status]");
    var place = body.querySelector(".mctslab-live-board"), stats = body.querySelector(".mctslab-live-stats");
    var busy = Promise.resolve();
    function show(json) {
      var view = JSON.parse(json);
      place.replaceChildren(element(view.board));
      if (game.value !== "tictactoe") { place.firstChild.classList.add("mctslab-wide"); }
      status.textContent = view.status;
      stats.textContent = view.stats;
      root.dataset.shown = String(Number(root.dataset.shown || 0) + 1);  // for a test waiting for an answer
    }
    function act(call) {
      busy = busy.then(async function () {
        status.textContent = "UCT is thinking...";
        place.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
        await frame();
        try { show(call()); } catch (err) { status.textContent = "failed: " + firstLine(err); }
      });
    }
    function restart() {
      var g = game.value, n = Number(budget.value), s = Number(seat.value);
      act(function () { return model.new_game(g, n, s); });
    }
    [game, seat, budget].forEach(function (menu) { menu.addEventListener("change", restart); });
    body.querySelector("[data-act=new]").onclick = restart;
    place.addEventListener("click", function (event) {
      var cell = event.target.closest("button[data-move]");
      if (cell && !cell.disabled) {
        var r = Number(cell.dataset.row), c = Number(cell.dataset.col);
        act(function () { return model.click(r, c); });
      }
    });
    show(model.view());
  }

  var kinds = { explorer: explorer, board: board };
  document.querySelectorAll(".mctslab-live[data-mctslab]").forEach(function (root) {
    var button = root.querySelector(".mctslab-live-start"), message = root.querySelector(".mctslab-live-message");
    button.addEventListener("click", async function () {
      button.disabled = true;
      delete root.dataset.failed;
      var started = performance.now();
      function say(text) { message.classList.remove("mctslab-failed"); message.textContent = text; }
      try {
        var rt = await runtime(say);
        kinds[root.dataset.mctslab](root, rt, JSON.parse(root.dataset.settings));
        say("");
        root.dataset.ready = String(Math.round(performance.now() - started));
        button.remove();
      } catch (err) {
        message.classList.add("mctslab-failed");
        message.textContent = "The live widget could not start: " + firstLine(err);
        root.dataset.failed = "true";
        button.disabled = false;
        loading = null;
      }
    });
  });
})();
"""
"""The pages' script: loads Pyodide, the zip and graphviz once, on the first click; wires each widget to Python."""
