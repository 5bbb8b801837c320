"""What a reader of the course's website finds on every page, as on a Jupyter Book or d2l site.

* **Search** across chapters, offline: :func:`search_sections` cuts each page into its sections
  (one per heading, with the text a reader sees there) and :func:`search_index` writes them as
  ``OUT/search-index.js``, which a page loads only when the reader first uses its search box; a
  small script (:data:`SCRIPT`) finds the sections holding every word typed. A script rather
  than a JSON file, because a page opened from disk (``file://``) may not fetch a JSON file.
* **Contents beside the page**: :func:`contents` lists a page's headings (levels 2 and 3); beside
  the page on a wide screen, collapsed above it on a narrow one (at most 1100 px).
* **Dark mode** when the reader's system asks for it (``prefers-color-scheme: dark``): JupyterLab's
  own dark theme variables (nbconvert's ``theme-dark.css``) for text, code and tables; pictures
  and plots keep a white background, so that dark lines stay readable.
* **A copy button** on each code cell, copying the cell's source.
* **Report a problem**: a link to a URL given at build time (:mod:`mctslab.course.site` puts it
  in each page's footer), left out when none is given.

Everything is written into the pages at build time (:func:`decorate`); no other host is ever
contacted.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CSS",
    "SCRIPT",
    "SEARCH_FORM",
    "SEARCH_INDEX",
    "Heading",
    "contents",
    "dark_theme",
    "decorate",
    "headings",
    "search_index",
    "search_sections",
]

SEARCH_INDEX = "search-index.js"
"""The search index's file name in the site's folder."""
WIDE = 1100
"""From this width (CSS pixels) on, the contents stand beside the page; below it, above."""

_HEADING = re.compile(r'<h([1-6])\s+id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
_ANCHOR = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.S)
_UNSEEN = re.compile(r"<(script|style|svg|textarea)\b.*?</\1>|<div class=\"jp-(?:In|Out)putPrompt[^>]*>.*?</div>", re.S)
_INLINE = re.compile(r"</?(?:span|a|em|strong|code|b|i|sub|sup|mark|kbd)\b[^>]*>")
_TAG = re.compile(r"<[^>]+>")
_SITE_NAME = re.compile(r'<header class="mctslab-nav[^"]*">\s*<span class="mctslab-site">.*?</span>', re.S)


@dataclass(frozen=True)
class Heading:
    """One heading of a page that has an ``id`` (nbconvert gives one to every markdown heading).

    Attributes:
        level: 1 to 6 (``<h2>`` is 2).
        id: its ``id`` attribute as written in the page (so, as a link's fragment, ``href="#{id}"``).
        text: its text as a reader sees it.
    """

    level: int
    id: str
    text: str


def _text(fragment: str) -> str:
    """HTML as the text a reader sees: no scripts, styles, drawings or prompts; whitespace collapsed."""
    fragment = _INLINE.sub("", _UNSEEN.sub(" ", _ANCHOR.sub("", fragment)))  # "x</span>.<span>y": "x.y"
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def _main(page: str) -> tuple[int, int]:
    """Where the page's notebook content starts and ends (after the site's header, before its footer)."""
    start = page.find("</header>")
    start = page.find("<main>") if start < 0 else start + len("</header>")
    end = page.find('<footer class="mctslab-nav')
    return max(start, 0), (end if end >= 0 else len(page))


def headings(page: str) -> list[Heading]:
    """The headings of a page's content that have an ``id``, in order."""
    start, end = _main(page)
    return [Heading(int(level), ident, _text(inner)) for level, ident, inner in _HEADING.findall(page, start, end)]


def search_sections(page: str) -> list[tuple[str, str, str]]:
    """The page's sections as ``(id, heading, text)``: one per heading, from it to the next one.

    The text before the first heading (if any) is a section with an empty id and heading.
    """
    start, end = _main(page)
    sections = []
    ident, heading, at = "", "", start
    for match in _HEADING.finditer(page, start, end):
        text = _text(page[at : match.start()])
        if text or ident:
            sections.append((ident, heading, text))
        ident, heading, at = match.group(2), _text(match.group(3)), match.end()
    text = _text(page[at:end])
    if text or ident:
        sections.append((ident, heading, text))
    return sections


def search_index(pages: Iterable[tuple[str, str, Sequence[tuple[str, str, str]]]]) -> str:
    """The site's search index as a script: ``pages`` holds ``(file name, title, sections)`` per page.

    It sets ``window.MCTSLAB_SEARCH = {"pages": [[file, title], ...], "sections": [[page number,
    id, heading, text], ...]}`` (ASCII only, so it reads the same whatever charset it is served with).
    """
    listed, sections = [], []
    for number, (name, title, parts) in enumerate(pages):
        listed.append([name, title])
        sections.extend([number, ident, heading, text] for ident, heading, text in parts)
    data = json.dumps({"pages": listed, "sections": sections}, separators=(",", ":"))
    return "window.MCTSLAB_SEARCH = " + data.replace("</", "<\\/") + ";\n"


def contents(page: str) -> str:
    """The page's contents (its level-2 and level-3 headings) as a ``<details>`` element, or ``""``."""
    items = [h for h in headings(page) if h.level in (2, 3)]
    if not items:
        return ""
    links = "\n".join(
        f'<li class="mctslab-toc-{h.level}"><a href="#{h.id}">{html.escape(h.text)}</a></li>' for h in items
    )
    return (
        '<details class="mctslab-toc"><summary>Contents</summary>\n'
        f'<nav aria-label="Contents of this page"><ul>\n{links}\n</ul></nav></details>'
    )


SEARCH_FORM = (
    '<form class="mctslab-search" role="search" onsubmit="return false">'
    '<input type="search" name="q" placeholder="Search the course (press /)" aria-label="Search the course" '
    'autocomplete="off"><div class="mctslab-results" hidden></div></form>'
)
"""The search box and the list its results go into (filled by :data:`SCRIPT`)."""


def decorate(page: str) -> str:
    """A page of the site with the reader's tools: search box, contents, script, light and dark.

    The search box (:data:`SEARCH_FORM`) goes after the site's name in the page's header
    (``<header class="mctslab-nav ...">``), the header's links on the line below, the contents
    (:func:`contents`) after the header, a ``color-scheme`` meta element (light and dark: the
    browser's own controls follow the system) before ``</head>``, and the script (:data:`SCRIPT`: copy
    buttons, contents, search) before ``</body>``. Including :data:`CSS` and :func:`dark_theme` in the
    page's styles is the caller's.
    """
    name = _SITE_NAME.search(page)
    if name is not None:
        close = page.find("</header>", name.end())
        page = (
            page[: name.end()]
            + SEARCH_FORM
            + '<span class="mctslab-break"></span>'  # the links on a line of their own, on every page alike
            + page[name.end() : close]
            + "</header>"
            + contents(page)
            + page[close + len("</header>") :]
        )
    head = page.find("</head>")
    if head >= 0:
        page = page[:head] + '<meta name="color-scheme" content="light dark">\n' + page[head:]
    body = page.rfind("</body>")
    return page[:body] + f"<script>{SCRIPT}</script>\n" + page[body:]


@functools.cache
def dark_theme(template_paths: tuple[str, ...]) -> str:
    """JupyterLab's dark theme variables (nbconvert's ``lab/static/theme-dark.css``), applied only
    when the reader's system asks for a dark scheme; ``""`` if no template folder holds the file."""
    for folder in template_paths:
        path = Path(folder) / "static" / "theme-dark.css"
        if path.is_file():
            css = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
            css = re.sub(r"\s*\n\s*", "\n", css).strip()
            return f"@media (prefers-color-scheme: dark) {{\n{css}\n}}\n"
    return ""


CSS = f"""
.mctslab-nav.mctslab-header {{ position: relative; }}
.mctslab-nav .mctslab-site {{ margin-right: 0; }}
.mctslab-search {{ flex: 0 1 16em; min-width: 10em; margin: 0 auto 0 0; }}
.mctslab-break {{ flex-basis: 100%; height: 0; }}
.mctslab-search input {{ width: 100%; box-sizing: border-box; padding: 0.25em 0.5em; font: inherit;
  border: 1px solid #999; border-radius: 4px; background: Canvas; color: CanvasText; }}
.mctslab-results {{ position: absolute; left: 0.5em; top: 100%; z-index: 20; width: min(40em, calc(100% - 1em));
  max-height: 70vh; overflow-y: auto; padding: 0.3em 0; border: 1px solid #999; border-radius: 4px;
  background: Canvas; color: CanvasText; box-shadow: 0 4px 16px rgb(0 0 0 / 25%); font-size: 14px; }}
.mctslab-results > p {{ margin: 0.3em 0.8em; color: GrayText; }}
.mctslab-results a {{ display: block; padding: 0.35em 0.8em; color: inherit; text-decoration: none; }}
.mctslab-results a:hover, .mctslab-results a:focus {{ background: rgb(127 127 127 / 18%); outline: none; }}
.mctslab-results b {{ color: LinkText; font-weight: 600; }}
.mctslab-results small {{ display: block; color: GrayText; line-height: 1.4; }}
.mctslab-results mark {{ background: #ffe58a; color: #000; }}
.mctslab-toc {{ margin: 0 1em 1em; font: 14px/1.45 var(--jp-ui-font-family, sans-serif); }}
.mctslab-toc summary {{ font-weight: 600; }}
.mctslab-toc ul {{ list-style: none; margin: 0.4em 0 0; padding: 0; }}
.mctslab-toc li {{ margin: 0.25em 0; }}
.mctslab-toc .mctslab-toc-3 {{ padding-left: 1em; font-size: 13px; }}
.mctslab-toc a {{ color: var(--jp-content-link-color, #0d47a1); text-decoration: none; }}
.mctslab-toc a:hover {{ text-decoration: underline; }}
.mctslab-toc a.mctslab-here {{ font-weight: 600; }}
@media (min-width: {WIDE}px) {{
  body.jp-Notebook > main {{ padding-right: 17rem; }}
  .mctslab-toc {{ position: fixed; top: 0; right: 0; bottom: 0; width: 15rem; margin: 0; padding: 1em 1em 2em;
    overflow-y: auto; border-left: 1px solid var(--jp-border-color2, #ddd); box-sizing: border-box; }}
  .mctslab-toc summary {{ list-style: none; pointer-events: none; }}
  .mctslab-toc summary::-webkit-details-marker {{ display: none; }}
}}
.jp-InputArea-editor {{ position: relative; }}
.mctslab-copy {{ position: absolute; top: 3px; right: 3px; padding: 0.1em 0.6em; opacity: 0.35; cursor: pointer;
  font: 12px/1.6 var(--jp-ui-font-family, sans-serif); color: inherit; background: var(--jp-layout-color1, #fff);
  border: 1px solid var(--jp-border-color1, #bbb); border-radius: 3px; }}
.jp-InputArea-editor:hover .mctslab-copy, .mctslab-copy:focus {{ opacity: 1; }}
@media only screen and (max-width: 760px) {{  /* the prompt stands above the code: the button beside it, off the code */
  .mctslab-copy {{ top: auto; bottom: 100%; padding: 0 0.5em; font-size: 11px; line-height: 1.3; opacity: 0.8; }}
}}
@media print {{ .mctslab-toc, .mctslab-search, .mctslab-copy {{ display: none; }} }}
@media (prefers-color-scheme: dark) {{
  body {{ background: var(--jp-layout-color0, #111); color: var(--jp-content-font-color1, #ddd); }}
  a {{ color: #8ab4f8; }}
  .mctslab-nav {{ border-color: #444 !important; }}
  details.mctslab-solution {{ background: #2b2514; }}
  details.mctslab-check {{ background: #1c2128; }}
  details > summary {{ color: #aaa; }}
  /* pictures and plots are drawn for a white page: keep them on one */
  .jp-RenderedImage img, .jp-RenderedSVG, .jp-RenderedHTMLCommon img, .jp-OutputArea-output svg {{
    background: #fff; }}
  .mctslab-results mark {{ background: #806600; color: #fff; }}
}}
"""
"""The styles of the search box, the contents, the copy buttons and the dark mode."""

SCRIPT = r"""
(function () {
  "use strict";
  // Copy buttons: one on each code cell, copying its source.
  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }
  function copy(text, button) {
    function done(ok) {
      button.textContent = ok ? "Copied" : "Select and press Ctrl+C";
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallbackCopy(text)); });
    } else {
      done(fallbackCopy(text));
    }
  }
  document.querySelectorAll(".jp-CodeCell .jp-InputArea-editor").forEach(function (editor) {
    var pre = editor.querySelector("pre");
    if (!pre) { return; }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "mctslab-copy";
    button.textContent = "Copy";
    button.title = "Copy this cell's code";
    button.addEventListener("click", function () { copy(pre.textContent.replace(/\n$/, ""), button); });
    editor.appendChild(button);
  });

  // Contents: open beside the page on a wide screen; the section in view is marked.
  var toc = document.querySelector("details.mctslab-toc");
  if (toc) {
    var wide = window.matchMedia("(min-width: WIDEpx)");
    toc.open = wide.matches;  // closed above a narrow page (a phone's), open beside a wide one
    wide.addEventListener("change", function () { toc.open = wide.matches; });
    var links = Array.prototype.slice.call(toc.querySelectorAll("a"));
    var targets = links.map(function (a) {
      var id = a.getAttribute("href").slice(1);
      return document.getElementById(id) || document.getElementById(decodeURIComponent(id));
    });
    var mark = function () {
      var here = -1;
      targets.forEach(function (t, i) { if (t && t.getBoundingClientRect().top < 120) { here = i; } });
      links.forEach(function (a, i) { a.classList.toggle("mctslab-here", i === here); });
    };
    window.addEventListener("scroll", mark, { passive: true });
    mark();
  }

  // Search: the index (search-index.js) is loaded when the box is first used.
  var form = document.querySelector(".mctslab-search");
  if (!form) { return; }
  var input = form.querySelector("input");
  var box = form.querySelector(".mctslab-results");
  var sections = null;
  var loading = false;
  function load() {
    if (sections || loading) { return; }
    loading = true;
    var script = document.createElement("script");
    script.src = "SEARCH_INDEX";
    script.onload = function () {
      var raw = window.MCTSLAB_SEARCH;
      sections = raw.sections.map(function (s) {
        var page = raw.pages[s[0]];
        return { file: page[0], title: page[1], id: s[1], heading: s[2], text: s[3],
                 low: (s[2] + " " + s[3]).toLowerCase(), lowHeading: s[2].toLowerCase() };
      });
      show();
    };
    script.onerror = function () {
      box.hidden = false;
      box.textContent = "The search index (search-index.js) could not be loaded.";
    };
    document.head.appendChild(script);
  }
  function count(text, word) {
    var n = 0, at = text.indexOf(word);
    while (at >= 0 && n < 10) { n += 1; at = text.indexOf(word, at + word.length); }
    return n;
  }
  function find(words) {
    var hits = [];
    sections.forEach(function (s) {
      var score = 0;
      for (var i = 0; i < words.length; i++) {
        var n = count(s.low, words[i]);
        if (!n) { return; }
        score += n + (s.lowHeading.indexOf(words[i]) >= 0 ? 20 : 0);
      }
      hits.push({ section: s, score: score });
    });
    hits.sort(function (a, b) { return b.score - a.score; });
    return hits;
  }
  function snippet(text, words) {
    var low = text.toLowerCase(), at = low.indexOf(words[0]);
    var start = Math.max(0, at - 60), end = Math.min(text.length, Math.max(at, 0) + 120);
    if (start > 0) { start = text.indexOf(" ", start) + 1 || start; }  // from a word's start
    var part = (start > 0 ? "\u2026" : "") + text.slice(start, end) + (end < text.length ? "\u2026" : "");
    var small = document.createElement("small");
    var escaped = words.map(function (w) { return w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); });
    var pattern = new RegExp("(" + escaped.join("|") + ")", "ig");
    part.split(pattern).forEach(function (piece, i) {
      if (i % 2) { var m = document.createElement("mark"); m.textContent = piece; small.appendChild(m); }
      else { small.appendChild(document.createTextNode(piece)); }
    });
    return small;
  }
  function show() {
    var words = input.value.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
    box.textContent = "";
    if (!words.length) { box.hidden = true; return; }
    box.hidden = false;
    if (!sections) { box.textContent = "Loading the search index\u2026"; load(); return; }
    var hits = find(words);
    var chapters = {};
    hits.forEach(function (h) { chapters[h.section.file] = true; });
    var summary = document.createElement("p");
    var found = Object.keys(chapters).length;
    summary.textContent = hits.length ? hits.length + " section" + (hits.length > 1 ? "s" : "") + " in " +
      found + " chapter" + (found > 1 ? "s" : "") : "No section holds every word.";
    box.appendChild(summary);
    hits.slice(0, 30).forEach(function (h) {
      var s = h.section, a = document.createElement("a");
      a.href = s.file + (s.id ? "#" + s.id : "");
      a.className = "mctslab-hit";
      a.dataset.page = s.file;
      var title = document.createElement("b");
      title.textContent = s.title;
      a.appendChild(title);
      if (s.heading && s.heading !== s.title) { a.appendChild(document.createTextNode(" \u203a " + s.heading)); }
      a.appendChild(snippet(s.text, words));
      a.addEventListener("click", function () { box.hidden = true; });
      box.appendChild(a);
    });
  }
  input.addEventListener("focus", load);
  input.addEventListener("input", show);
  input.addEventListener("keydown", function (event) {
    var first = box.querySelector("a");
    if (event.key === "Escape") { box.hidden = true; }
    if (event.key === "Enter" && first) { box.hidden = true; window.location.href = first.href; }
    if (event.key === "ArrowDown" && first) { event.preventDefault(); first.focus(); }
  });
  box.addEventListener("keydown", function (event) {
    var here = document.activeElement, before = here.previousElementSibling, after = here.nextElementSibling;
    if (event.key === "ArrowDown" && after) { event.preventDefault(); after.focus(); }
    if (event.key === "ArrowUp") {
      event.preventDefault();
      (before && before.tagName === "A" ? before : input).focus();
    }
    if (event.key === "Escape") { box.hidden = true; input.focus(); }
  });
  document.addEventListener("click", function (event) { if (!form.contains(event.target)) { box.hidden = true; } });
  document.addEventListener("keydown", function (event) {  // "/" goes to the search box, as on d2l and GitHub
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName) || event.target.isContentEditable;
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      input.focus();
    }
  });
})();
""".replace("WIDE", str(WIDE)).replace("SEARCH_INDEX", SEARCH_INDEX)
"""The pages' script: copy buttons, the contents' layout and marks, the search box."""
