"""The course as a static website: ``python -m mctslab course site OUT/ [--edition ...] [--cdn]``.

Every notebook becomes one page, from its stored outputs (nothing is executed), with
nbconvert's ``HTMLExporter`` (lab template): its pictures, formulas and what each widget
saved of itself (06's tree explorer a line of text, 07's play board a board, 01's playground a
line of text: the course's notebooks are saved without widget state, :mod:`mctslab.viz.stored`)
show as they do in JupyterLab. An index page lists the chapters in course order, one line each, with a link to
download each notebook and to open it in Colab or Binder; every page has the same header and
footer (previous, index, next). Every page also has what a reader of a Jupyter Book or d2l site
expects (:mod:`mctslab.course.site_reader`): a search box over all chapters (its index built here,
``OUT/search-index.js``), the page's contents beside it, a dark mode following the system's setting,
a copy button on each code cell, and (given ``issues``, or else ``repo``: its GitHub issues) a link
to report a problem.

* The **student** site (the default) is made from the student edition
  (:func:`mctslab.course.editions.student_notebook`: no reference solution, no output a
  solution made), and the input of every cell tagged ``check`` is removed too.
* The **instructor** site shows each reference solution collapsed in a ``<details>`` element
  (nbconvert ignores ``source_hidden``), and each check cell's code likewise.

On the pages of 06 and 07 the tree explorer and the play board are also **live**
(:mod:`mctslab.course.site_live`): a button loads Pyodide and graphviz's WebAssembly build, and the
page runs mctslab's own code, packed from the package into ``OUT/live/mctslab-live.zip``.

The site needs no network at view time: require.js, MathJax, the widgets' renderer (used by
a notebook saved with widget state), Pyodide and graphviz are
copied into ``OUT/assets/`` (:mod:`mctslab.course.site_assets`, fetched once with ``npm pack``
and checked by hash). With ``cdn=True`` the pages load them from public CDNs instead.

Given the package's wheel (``wheel``), the site hosts it (``OUT/wheels/``) and the index's install
line installs it from there: a line of script fills in the wheel's absolute address, from the page's
own (``new URL("wheels/NAME.whl", document.baseURI)``), wherever the site is served; without
script the line installs the downloaded file. Without a wheel, the line installs from GitHub.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from . import editions, site_assets, site_live, site_reader
from .notebook_files import write_atomic

__all__ = [
    "CHECK_TAG",
    "EDITIONS",
    "Chapter",
    "SiteReport",
    "build_site",
    "chapters",
    "check_wheel",
    "configure_course",
    "run_course",
]

EDITIONS = ("student", "instructor")
CHECK_TAG = "check"
"""Cell tag of an exercise's check cell: its input is removed from the student site."""
REPOSITORY = "mctslab/mctslab"
INSTALL_FROM = f"https://github.com/{REPOSITORY}"
"""Where the index's install line installs the package from (the package is not on the package index)."""
COLAB = "https://colab.research.google.com/github/{repo}/blob/main/notebooks/{name}"
BINDER = "https://mybinder.org/v2/gh/{repo}/HEAD?urlpath=lab/tree/notebooks/{name}"
ISSUES = "https://github.com/{repo}/issues/new"
"""Where "Report a problem" goes when no ``issues`` URL is given: a new issue of the site's repository."""
DOWNLOADS = "notebooks"
"""The site's folder of the notebooks to download (with their ``data/``)."""
WHEELS = "wheels"
"""The site's folder of the package's wheel (given ``wheel``), which the index's install line installs."""
INSTALL_SCRIPT = (
    'document.querySelectorAll("code.mctslab-install[data-wheel]").forEach(function (code) {'
    ' var url = new URL(code.getAttribute("data-wheel"), document.baseURI).href;'
    " code.textContent = 'pip install \"mctslab[course] @ ' + url + '\"'; });"
    ' document.querySelectorAll(".mctslab-install-note").forEach(function (note) { note.remove(); });'
)
"""The index's script that writes the install line with the wheel's absolute URL (pip needs one),
computed from the page's address: the same line wherever the site is served (or opened from disk)."""
_WHEEL_NAME = re.compile(r"[A-Za-z0-9_.+!-]+\.whl")

# The lab template's own blocks, but for ``input``: the same, without ``clean_html`` (bleach) on the
# code Pygments highlighted, which escapes the source itself; that sanitizing of trusted markup took a
# quarter of the build's CPU time. Outputs are left as the lab template treats them.
_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{% block extra_css %}<link rel="icon" href="data:," />
<style type="text/css">{{ resources.mctslab.css }}</style>{% endblock extra_css %}
{%- block html_head_css -%}
<style type="text/css">{{ resources.mctslab.reader_css }}</style>
{%- endblock html_head_css -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block body_header -%}{{ super() }}{{ resources.mctslab.header }}{%- endblock body_header -%}
{% block body_footer %}{{ resources.mctslab.footer }}{{ super() }}{% endblock body_footer %}
{% block any_cell %}
{%- if resources.mctslab.collapse and 'solution' in cell.metadata.get('tags', []) -%}
<details class="mctslab-solution"><summary>Reference solution (click to show)</summary>
{{ super() }}
</details>
{%- else -%}{{ super() }}{%- endif -%}
{% endblock any_cell %}
{% block input %}
<div class="jp-CodeMirrorEditor jp-Editor jp-InputArea-editor" data-type="inline">
     <div class="cm-editor cm-s-jupyter">
{{ cell.source | highlight_code(metadata=cell.metadata) }}
     </div>
</div>
{%- endblock input %}
{% block input_group %}
{%- if resources.mctslab.collapse and 'check' in cell.metadata.get('tags', []) -%}
<details class="mctslab-check"><summary>The check's code (click to show)</summary>
{{ super() }}
</details>
{%- else -%}{{ super() }}{%- endif -%}
{% endblock input_group %}
"""

_CSS = """
.jupyter-widgets, .jupyter-widgets *, .widget-label, .widget-html, .widget-button, .widget-inline-hbox {
  font-family: var(--jp-ui-font-family, system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif);
}
/* nbconvert's lab template sets every output's <pre> in the font around it (".jp-OutputArea-output pre
   { font-family: inherit }"); JupyterLab sets one in an HTML output (09's results table, 07's board
   statistics, 12b's Kuhn board) in its code font, so that its columns line up; and a narrow screen
   scrolls it sideways rather than breaking its rows, mid-word, across lines (as Jupyter Book does) */
.jp-OutputArea-output.jp-RenderedHTMLCommon pre { font-family: var(--jp-code-font-family, monospace);
  white-space: pre; word-break: normal; overflow-wrap: normal; overflow-x: auto; }
/* html-manager 1.0 stretches a grid beside a taller box (07's board beside its table): keep its rows square */
.widget-hbox > .widget-gridbox { align-self: flex-start; }
.mctslab-nav { display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; align-items: center; padding: 0.6em 1em;
  margin: 0 0 1em; border-bottom: 1px solid #ccc; font-family: var(--jp-ui-font-family, sans-serif); font-size: 14px; }
.mctslab-nav.mctslab-footer { border-top: 1px solid #ccc; border-bottom: none; margin: 2em 0 0; }
.mctslab-nav .mctslab-site { font-weight: 600; margin-right: auto; }
.mctslab-badge { display: inline-block; padding: 0.1em 0.55em; border-radius: 3px; background: #555; color: #fff;
  font: 12px/1.6 var(--jp-ui-font-family, sans-serif); text-decoration: none; white-space: nowrap; }
a .mctslab-badge, a.mctslab-badge { background: #1f6feb; }
details.mctslab-solution, details.mctslab-check { margin: 0.4em 0; padding: 0.2em 0.6em;
  border-left: 3px solid #d29922; background: #fffbf0; }
details.mctslab-check { border-left-color: #8b949e; background: #f6f8fa; }
details > summary { cursor: pointer; font-family: var(--jp-ui-font-family, sans-serif); font-size: 13px; color: #555; }
.mctslab-index { max-width: 60em; margin: 0 auto; padding: 0 1em 2em;
  font-family: var(--jp-ui-font-family, sans-serif); }
.mctslab-index li { margin: 0.6em 0; line-height: 1.5; }
.mctslab-index .mctslab-links { margin-left: 0.5em; }
"""

_IMAGE = re.compile(r'<img\b[^>]*?\bsrc="(?:https?:)?//[^"]*"[^>]*>')
_ALT = re.compile(r'\balt="([^"]*)"')
_NEXT_SOLUTION = re.compile(r'</details>\s*<details class="mctslab-solution"><summary>[^<]*</summary>')


@dataclass(frozen=True)
class Chapter:
    """One notebook of the course, as the site shows it.

    Attributes:
        name: its file name (``01_bandits_and_ucb1.ipynb``).
        title: its first heading.
        summary: the first sentence after the heading (one line of the index).
    """

    name: str
    title: str
    summary: str

    @property
    def page(self) -> str:
        """The file name of its page."""
        return Path(self.name).stem + ".html"


@dataclass
class SiteReport:
    """What :func:`build_site` wrote.

    Attributes:
        out: the site's folder (open ``out/index.html``).
        edition: ``"student"`` or ``"instructor"``.
        chapters: the pages, in course order.
        cdn: whether the pages load their scripts from public CDNs.
        issues: where each page's "Report a problem" link goes (``None``: no such link).
        seconds: the time the build took (wall clock).
        cpu_seconds: the CPU time the build used (this process and the programs it ran): its cost,
            whatever the machine's load.
        repo: the GitHub repository the Colab and Binder links open (``None``: no such links).
        wheel: the wheel the site hosts, its path in the site (``wheels/NAME.whl``), which the
            index's install line installs (``None``: no wheel; the line installs from GitHub).
        fetched: the npm packages fetched during the build (``npm pack``, its CPU time counted in
            ``cpu_seconds``); empty when the assets were cached.
    """

    out: Path
    edition: str
    chapters: list[Chapter]
    cdn: bool
    issues: str | None
    seconds: float
    cpu_seconds: float
    repo: str | None = None
    wheel: str | None = None
    fetched: tuple[str, ...] = ()


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _plain(markdown: str) -> str:
    """Markdown of one line as plain text: links to their text, emphasis and code marks dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"[*_`]+", "", text).strip()


def chapter(name: str, notebook: dict) -> Chapter:
    """The :class:`Chapter` of one notebook: its first ``#`` heading and the sentence after it."""
    title, summary = Path(name).stem, ""
    for cell in notebook["cells"]:
        if cell.get("cell_type") != "markdown":
            continue
        text = _source(cell)
        heading = re.search(r"^#\s+(.+)$", text, re.M)
        if heading is None:
            continue
        title = _plain(heading.group(1))
        rest = re.sub(r"<!--.*?-->", "", text[heading.end() :], flags=re.S)  # an author's note is no summary
        rest = rest.strip().split("\n\n")[0]
        paragraph = " ".join(rest.split())
        sentence = re.match(r"(.+?(?<!\bal)(?<!\be\.g)(?<!\bi\.e)[.!?])(\s|$)", paragraph)  # not at "et al."
        summary = _plain(sentence.group(1) if sentence else paragraph)
        summary = summary[:-1] + "." if summary.endswith(":") else summary  # "...this observation:" leads to a quote
        break
    return Chapter(name, title, summary)


def chapters(notebooks: str | Path | None = None) -> list[Chapter]:
    """The course's chapters in course order (the notebooks' file names sort in that order)."""
    import nbformat

    source = _source_folder(notebooks)
    return [chapter(path.name, nbformat.read(path, as_version=4)) for path in _files(source)]


def _source_folder(notebooks: str | Path | None) -> Path:
    source = Path(notebooks) if notebooks is not None else editions.NOTEBOOKS
    if not source.is_dir():
        raise FileNotFoundError(
            f"no notebooks folder at {source}: run this from a copy of the course repository, "
            "or pass the folder with --notebooks"
        )
    return source


def _files(source: Path) -> list[Path]:
    files = sorted(source.glob("*.ipynb"))
    if not files:
        raise FileNotFoundError(f"no .ipynb files in {source}")
    return files


def _links(chapter: Chapter, repo: str | None) -> str:
    """Download, Colab and Binder links of one chapter, as badges (Colab and Binder only with ``repo``)."""
    download = f'<a class="mctslab-badge" href="{DOWNLOADS}/{chapter.name}" download>Download notebook</a>'
    if repo is None:
        return download
    colab = COLAB.format(repo=repo, name=chapter.name)
    binder = BINDER.format(repo=repo, name=chapter.name)
    return (
        f'{download} <a class="mctslab-badge" href="{colab}">Open in Colab</a> '
        f'<a class="mctslab-badge" href="{binder}">Launch Binder</a>'
    )


def _report(issues: str | None) -> str:
    """The link to report a problem, or ``""`` when the build was given no URL for it."""
    if not issues:
        return ""
    return f'<a class="mctslab-report" href="{html.escape(issues)}">Report a problem</a>'


def _nav(
    chapters: list[Chapter],
    index: int,
    edition: str,
    footer: bool = False,
    issues: str | None = None,
    repo: str | None = None,
) -> str:
    """The header (or footer) of page ``index``: site name, previous, index, next, links.

    The footer ends with the link to report a problem (given ``issues``, its URL).
    """
    previous = chapters[index - 1] if index > 0 else None
    following = chapters[index + 1] if index + 1 < len(chapters) else None
    parts = [f'<span class="mctslab-site">mctslab course ({edition} edition)</span>']
    if previous is not None:
        parts.append(f'<a rel="prev" href="{previous.page}">&larr; {html.escape(previous.title)}</a>')
    parts.append('<a href="index.html">Index</a>')
    if following is not None:
        parts.append(f'<a rel="next" href="{following.page}">{html.escape(following.title)} &rarr;</a>')
    if not footer:
        parts.append(_links(chapters[index], repo))
    elif issues:
        parts.append(_report(issues))
    kind = "mctslab-nav mctslab-footer" if footer else "mctslab-nav mctslab-header"
    tag = "footer" if footer else "header"
    return f'<{tag} class="{kind}">' + "\n".join(parts) + f"</{tag}>"


_FOCUSABLE = re.compile(
    r'<div\b(?![^>]*\btabindex=)[^>]*\bclass="(?:jp-Cell-inputWrapper|[^"]*\bjp-OutputArea-output\b[^"]*)"[^>]*'
)
_NO_ALT = re.compile(r"<img\b(?![^>]*\balt=)")
_SCRIPT = re.compile(r"(<script\b.*?</script>)", re.S)
NO_ALT = "No description has been provided for this image"
"""The alternative text nbconvert gives a picture that has none."""


def _accessible(page: str) -> str:
    """What nbconvert's ``HTMLExporter`` adds to a page once written: each cell's input and each
    output can take the keyboard's focus (``tabindex="0"``), each picture has an alternative text.

    nbconvert parses the whole page with BeautifulSoup to add them and writes it out again: a third of
    the site's build time (2.1 s of 6.1 s of CPU for 18 pages), for two attributes; here they are added to the
    tags as written, outside scripts (as an HTML parser reads them).
    """
    parts = _SCRIPT.split(page)
    for i in range(0, len(parts), 2):  # the parts between scripts
        part = _FOCUSABLE.sub(r'\g<0> tabindex="0"', parts[i])
        parts[i] = _NO_ALT.sub(f'<img alt="{NO_ALT}"', part)
    return "".join(parts)


def _exporter(urls: dict[str, str], edition: str):
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
    from nbconvert.preprocessors import TagRemovePreprocessor

    class SiteExporter(HTMLExporter):
        """nbconvert's ``HTMLExporter`` (lab template), without parsing each page it wrote (:func:`_accessible`)."""

        def from_notebook_node(self, nb, resources=None, **kw):
            # HTMLExporter.from_notebook_node (nbconvert 7) up to its BeautifulSoup pass.
            info = nb.metadata.get("language_info", {})
            lexer = info.get("pygments_lexer", info.get("name", None))
            highlight = self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
            resources = self._init_resources(resources)
            widgets = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
            self.register_filter("highlight_code", highlight)
            self.register_filter("filter_data_type", widgets)
            page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            return _accessible(page), resources

    exporter = SiteExporter(
        template_name="lab",
        extra_loaders=[DictLoader({"mctslab_site.html.j2": _TEMPLATE})],
        template_file="mctslab_site.html.j2",
        **urls,
    )
    if edition == "student":
        remove = TagRemovePreprocessor(
            remove_input_tags={CHECK_TAG}, remove_cell_tags={editions.SOLUTION_TAG}, enabled=True
        )
        exporter.register_preprocessor(remove, enabled=True)
    return exporter


def _local_links(page: str, names: set[str]) -> str:
    """The page with external images as badges of their alt text, links to notebooks as links to pages.

    Consecutive solution cells are merged into one ``<details>`` element.
    """

    def badge(match: re.Match) -> str:
        alt = _ALT.search(match.group(0))
        return f'<span class="mctslab-badge">{alt.group(1) if alt else "image"}</span>'

    page = _IMAGE.sub(badge, page)
    page = _NEXT_SOLUTION.sub("", page)  # consecutive solution cells (heading, code) share one <details>
    for name in names:
        page = re.sub(rf'href="(?:\./)?{re.escape(name)}(#[^"]*)?"', rf'href="{Path(name).stem}.html\1"', page)
    return page


def check_wheel(path: str | Path) -> Path:
    """``path`` if it is a readable wheel of mctslab (a ``.whl`` file, a zip archive, named as one).

    Raises:
        ValueError: (one line) saying what ``path`` is instead.
    """
    path = Path(path)
    what = f"--wheel {path}"
    if not path.name.endswith(".whl"):
        raise ValueError(f"{what}: not a wheel (its name does not end in .whl); build one with: pip wheel . -w dist")
    if not path.is_file():
        raise ValueError(f"{what}: {'a folder' if path.is_dir() else 'no such file'}, not a wheel")
    name = _wheel_project(path.name)
    if name != "mctslab":
        raise ValueError(f"{what}: not a wheel of mctslab ({'of ' + name if name else 'not a wheel file name'})")
    if not os.access(path, os.R_OK):
        raise ValueError(f"{what}: cannot be read")
    try:
        archive = zipfile.is_zipfile(path)
    except OSError as err:
        raise ValueError(f"{what}: cannot be read ({err.strerror or err})") from None
    if not archive:
        raise ValueError(f"{what}: not a wheel (not a zip archive)")
    return path


def _wheel_project(filename: str) -> str | None:
    """The normalized project name of a wheel's file name, or ``None`` if it is not a wheel's name."""
    if not _WHEEL_NAME.fullmatch(filename):  # characters that need no quoting in a URL or on a line
        return None
    try:
        from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
    except ImportError:  # packaging comes with pip; without it, the name's shape
        parts = filename[: -len(".whl")].split("-")
        return re.sub(r"[-_.]+", "-", parts[0]).lower() if len(parts) in (5, 6) else None
    try:
        return canonicalize_name(parse_wheel_filename(filename)[0])
    except InvalidWheelFilename:
        return None


def _install(wheel: str | None) -> str:
    """The index's install line: from the wheel the site hosts (given its path in the site), else from GitHub."""
    if wheel is None:
        return f'<code>pip install "mctslab[course] @ git+{INSTALL_FROM}"</code>'
    href = html.escape(wheel)
    name = html.escape(Path(wheel).name)
    # Without script (and until it runs): the line that installs the downloaded file.
    return (
        f'<code class="mctslab-install" data-wheel="{href}">pip install "{name}[course]"</code>'
        '<span class="mctslab-install-note"> in the folder you downloaded the wheel to</span>; '
        f'this site hosts the package: <a class="mctslab-badge" href="{href}" download>Download the wheel</a>'
    )


def _index(
    chapters: list[Chapter],
    edition: str,
    issues: str | None = None,
    repo: str | None = None,
    wheel: str | None = None,
) -> str:
    items = "\n".join(
        f'<li><a href="{c.page}">{html.escape(c.title)}</a>: {html.escape(c.summary)}'
        f'<span class="mctslab-links"> {_links(c, repo)}</span></li>'
        for c in chapters
    )
    elsewhere = ", or in Colab or Binder" if repo else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>mctslab: Monte Carlo Tree Search, the course</title>
<link rel="icon" href="data:," />
<style type="text/css">{_CSS}{site_reader.CSS}</style></head>
<body><main class="mctslab-index">
<header class="mctslab-nav mctslab-header"><span class="mctslab-site">mctslab course ({edition} edition)</span>
<a href="{chapters[0].page}">Start: {html.escape(chapters[0].title)} &rarr;</a></header>
<h1>Monte Carlo Tree Search: the course</h1>
<p>The chapters in the order of the course, each a Jupyter notebook shown with its stored outputs.
Download a notebook to run it (with {_install(wheel)}{elsewhere}).</p>
{f"<script>{INSTALL_SCRIPT}</script>" if wheel else ""}
<ol>
{items}
</ol>
{f"<p>{_report(issues)}</p>" if issues else ""}
</main></body></html>
"""


def build_site(
    out_dir: str | Path,
    edition: str = "student",
    notebooks: str | Path | None = None,
    cdn: bool = False,
    cache: str | Path | None = None,
    issues: str | None = None,
    repo: str | None = None,
    wheel: str | Path | None = None,
) -> SiteReport:
    """Write the course's website into ``out_dir`` (created; same-named files replaced).

    Args:
        out_dir: the site's folder; open ``out_dir/index.html``.
        edition: ``"student"`` (no solution, no check code) or ``"instructor"`` (solutions
            collapsed).
        notebooks: the instructor edition's folder (default: the repository's ``notebooks/``).
        cdn: load require.js, MathJax and the widgets' renderer from public CDNs at view time
            instead of copying them into ``out_dir/assets/``.
        cache: where the assets' tarballs are kept (default :func:`site_assets.default_cache`).
        issues: the URL of "Report a problem" links (say, ``https://github.com/OWNER/REPO/issues``);
            ``None`` (the default): a new issue of ``repo`` (:data:`ISSUES`), and no such links
            without a repository (a student site built without ``repo``).
        repo: the GitHub repository (``OWNER/NAME``, notebooks in ``notebooks/``) that the
            "Open in Colab" and "Launch Binder" links open. The student site has none without
            it (the course's own repository, :data:`REPOSITORY`, holds the reference
            solutions); the instructor site opens :data:`REPOSITORY` by default.
        wheel: the package's wheel (``pip wheel . -w dist``), copied into ``out_dir/wheels/``; the
            index's install line then installs it from the site (``None``, the default: from GitHub).

    Returns:
        A :class:`SiteReport`.

    Raises:
        ValueError: for an unknown edition, a ``repo`` not ``OWNER/NAME``, or a ``wheel`` that is not
            a readable wheel of mctslab (one line, before anything is written).
        FileNotFoundError: if the notebooks' folder does not exist or holds no notebook.
        site_assets.AssetError: if the assets can neither be found in the cache nor fetched.
        NotebookError: (one line) if a page cannot be written; each page is written whole or
            not at all (an interrupted build leaves no half-written page).
    """
    import nbformat

    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}: use one of {', '.join(EDITIONS)}")
    repo = editions.check_repo(repo) or (REPOSITORY if edition == "instructor" else None)
    issues = issues or (ISSUES.format(repo=repo) if repo else None)
    wheel_file = check_wheel(wheel) if wheel is not None else None
    start, start_cpu = time.perf_counter(), _cpu_seconds()
    source = _source_folder(notebooks)
    files = _files(source)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fetched = () if cdn else tuple(site_assets.missing(cache))
    urls = dict(site_assets.CDN_URLS) if cdn else site_assets.install(out / "assets", cache)
    books = []
    for path in files:
        notebook = nbformat.read(path, as_version=4)
        if edition == "student":
            notebook = nbformat.from_dict(editions.student_notebook(notebook, repo)[0])
        books.append(notebook)
    course = [chapter(path.name, book) for path, book in zip(files, books, strict=True)]
    downloads = out / DOWNLOADS
    downloads.mkdir(exist_ok=True)
    editions.copy_data(source, downloads)
    exporter = _exporter(urls, edition)
    names = {path.name for path in files}
    reader_css = site_reader.dark_theme(tuple(exporter.template_paths)) + site_reader.CSS
    searched, live = [], False
    for index, (path, book) in enumerate(zip(files, books, strict=True)):
        write_atomic(downloads / path.name, nbformat.writes(book).encode())  # whole or not at all
        book.metadata["title"] = course[index].title
        resources = {
            "mctslab": {
                "css": _CSS,
                "collapse": edition == "instructor",
                "header": _nav(course, index, edition, repo=repo),
                "footer": _nav(course, index, edition, footer=True, issues=issues),
                "reader_css": reader_css,
            }
        }
        page, _ = exporter.from_notebook_node(book, resources=resources)
        page = _local_links(page, names)
        if course[index].page in site_live.PAGES:  # 06's explorer and 07's board, live in the page
            plain = page
            page = site_live.add_live(
                page, site_live.PAGES[course[index].page], site_live.CDN if cdn else site_live.LOCAL
            )
            live = live or page != plain
        searched.append((course[index].page, course[index].title, site_reader.search_sections(page)))
        write_atomic(out / course[index].page, site_reader.decorate(page).encode())
    write_atomic(out / site_reader.SEARCH_INDEX, site_reader.search_index(searched).encode())
    if live:
        site_live.pack(out)  # the Python the live widgets run: mctslab's own source
    hosted = None
    if wheel_file is not None:
        (out / WHEELS).mkdir(exist_ok=True)
        hosted = f"{WHEELS}/{wheel_file.name}"
        write_atomic(out / hosted, wheel_file.read_bytes())
    index = _index(course, edition, issues, repo, hosted)
    write_atomic(out / "index.html", site_reader.decorate(index).encode())
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - start_cpu
    return SiteReport(out, edition, course, cdn, issues, seconds, cpu, repo, hosted, fetched)


def _cpu_seconds() -> float:
    """CPU seconds used so far by this process and the children it waited for."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


# -- the command line: python -m mctslab course site OUT/ ----------------------------------
SUMMARY = "write the course as a static website (from the stored outputs; works offline)"


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m mctslab course site``."""
    parser.add_argument("out", metavar="OUT", help="folder to write the site to (open OUT/index.html)")
    parser.add_argument(
        "--edition",
        dest="site_edition",
        choices=EDITIONS,
        default="student",
        help="student (default: no solutions) or instructor",
    )
    parser.add_argument(
        "--cdn", action="store_true", help="load the pages' scripts from public CDNs instead of copying them"
    )
    parser.add_argument(
        "--notebooks", metavar="DIR", default=None, help="the instructor edition (default: the repository's notebooks/)"
    )
    parser.add_argument(
        "--assets-cache",
        metavar="DIR",
        default=None,
        help="where the scripts fetched with npm are kept (default: ~/.cache/mctslab/site-assets)",
    )
    parser.add_argument(
        "--issues",
        metavar="URL",
        default=None,
        help="where each page's 'Report a problem' link goes (default: a new issue of --repo's "
        "repository on GitHub; without --repo, no such link on the student site)",
    )
    parser.add_argument("--repo", metavar="OWNER/NAME", default=None, help=editions.REPO_HELP)
    parser.add_argument(
        "--wheel",
        metavar="PATH",
        default=None,
        help="the package's wheel (pip wheel . -w dist): the site hosts it and its install line installs it "
        "(default: the line installs from GitHub)",
    )


COURSE_SUMMARY = "the course's editions: the student notebooks (student) and the website (site)"


def configure_course(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m mctslab course``: ``student`` (:mod:`.editions`) and ``site``."""
    configure(editions.configure(parser).add_parser("site", help=SUMMARY, description=SUMMARY))


def run_course(args: argparse.Namespace) -> int:
    """Run ``python -m mctslab course student|site ...``."""
    return run(args) if args.edition == "site" else editions.run(args)


def run(args: argparse.Namespace) -> int:
    """Run ``python -m mctslab course site OUT``; print one line per page."""
    try:
        report = build_site(
            args.out,
            args.site_edition,
            args.notebooks,
            args.cdn,
            args.assets_cache,
            issues=args.issues,
            repo=args.repo,
            wheel=args.wheel,
        )
    except (FileNotFoundError, site_assets.AssetError) as err:
        raise ValueError(str(err)) from None  # reported by the command line as one line
    for c in report.chapters:
        print(f"{c.page}: {c.title}")
    scripts = "from public CDNs" if report.cdn else "from assets/ (works offline)"
    if report.repo is None:
        print("no Open in Colab / Launch Binder links: give --repo OWNER/NAME, where you publish the student edition")
    if report.fetched:
        print(f"fetched once with npm into the assets' cache: {', '.join(report.fetched)}")
    if report.wheel is not None:
        print(f"the index's install line installs the wheel the site hosts: {report.wheel}")
    print(
        f"the {report.edition} site is in {report.out} ({len(report.chapters)} pages + index.html, "
        f"scripts {scripts}; {report.seconds:.1f} s, {report.cpu_seconds:.1f} s of CPU): "
        f"open {report.out / 'index.html'}"
    )
    return 0
