"""The JavaScript assets the course's website needs at view time, fetched once and checked.

A page of the site typesets formulas (MathJax 2.7) and renders the saved state of its widgets
(``@jupyter-widgets/html-manager`` 1.0's ``embed-amd.js``, loaded by ``require.js``), and the live
explorer and board of 06 and 07 run mctslab in the page (Pyodide 314.0.7 and graphviz's WebAssembly
build, ``@viz-js/viz`` 3.31.0: :mod:`mctslab.course.site_live`). So that the
site works with no network at view time, :func:`install` copies them into the site's
``assets/`` folder. They come from npm, with its ordinary client (``npm pack NAME@VERSION``
downloads one package's tarball, nothing else), into a cache folder
(``~/.cache/mctslab/site-assets``, or ``$MCTSLAB_SITE_ASSETS``), and each tarball's SHA-256
must be the one pinned here. :data:`CDN_URLS` are the public copies ``--cdn`` uses instead.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ASSETS",
    "CDN_URLS",
    "Asset",
    "AssetError",
    "default_cache",
    "fetch",
    "install",
    "local_urls",
    "missing",
    "unpacked",
]


@dataclass(frozen=True)
class Asset:
    """One npm package the site copies files from.

    Attributes:
        package: its npm name.
        version: the exact version.
        sha256: the SHA-256 of its ``npm pack`` tarball.
        folder: where its files go under the site's ``assets/``.
        keep: path prefixes, inside the tarball's ``package/``, of the files copied.
    """

    package: str
    version: str
    sha256: str
    folder: str
    keep: tuple[str, ...]

    @property
    def tarball(self) -> str:
        """The file name ``npm pack`` gives the tarball."""
        return f"{self.package.lstrip('@').replace('/', '-')}-{self.version}.tgz"


ASSETS = (
    Asset(
        "@jupyter-widgets/html-manager",
        "1.0.15",
        "2b9d65cb7913e1c7d671757a10008b32c9c2448d4429513371e55c07d6107638",
        "html-manager",
        ("dist/embed-amd.js", "dist/embed.js.LICENSE.txt", "LICENSE")
        + tuple(f"dist/{kind}" for kind in ("*.eot", "*.svg", "*.ttf", "*.woff", "*.woff2")),
    ),
    Asset(
        "requirejs",
        "2.3.8",
        "777158e89275e16bd51aec3ef714fbcb5dc45789e7078659933bc814916d7dec",
        "requirejs",
        ("require.js", "LICENSE"),
    ),
    Asset(
        "mathjax",
        "2.7.9",
        "7131e739848edc14aa661a5516995866b81a477fab8b039d7cc324930e71f786",
        "mathjax",
        (
            "MathJax.js",
            "LICENSE",
            "config/",
            "extensions/",
            "jax/input/TeX/",
            "jax/output/CommonHTML/",
            "jax/output/PreviewHTML/",
            "jax/element/",
            "fonts/HTML-CSS/TeX/woff/",
            "localization/en/",
        ),
    ),
    # The live widgets of 06 and 07 (mctslab.course.site_live): CPython in WebAssembly, and graphviz's.
    Asset(
        "pyodide",
        "314.0.7",
        "66b7949e5a0cba2250b586d7e368bf12fb482800748d182c4618254b685ffaa0",
        "pyodide",
        ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "README.md"),
    ),
    Asset(
        "@viz-js/viz",
        "3.31.0",
        "7dc0189874849cca2fed7cbe88bf334cd0e6e012db16657794a812ad6f2b8c70",
        "viz",
        ("dist/viz.js", "README.md"),
    ),
)
"""The packages, pinned by version and tarball hash, and the files the site needs from each."""

MATHJAX_CONFIG = "?config=TeX-AMS_CHTML-full,Safe"
"""MathJax's configuration, as nbconvert's own default URL asks for it."""

CDN_URLS = {
    "require_js_url": "https://cdn.jsdelivr.net/npm/requirejs@2.3.8/require.js",
    "mathjax_url": "https://cdn.jsdelivr.net/npm/mathjax@2.7.9/MathJax.js" + MATHJAX_CONFIG,
    "widget_renderer_url": "https://cdn.jsdelivr.net/npm/@jupyter-widgets/html-manager@1.0.15/dist/embed-amd.js",
}
"""The same files on a public CDN (for ``--cdn``): nothing is fetched at build time."""


class AssetError(RuntimeError):
    """The assets could not be fetched or failed their hash check (the message says what to do)."""


def default_cache() -> Path:
    """The cache folder: ``$MCTSLAB_SITE_ASSETS``, else ``~/.cache/mctslab/site-assets``."""
    if os.environ.get("MCTSLAB_SITE_ASSETS"):
        return Path(os.environ["MCTSLAB_SITE_ASSETS"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "mctslab" / "site-assets"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_ADVICE = (
    "connect to the network and install npm (Debian: apt-get install npm), "
    "or build with --cdn to load them from public CDNs at view time"
)


def fetch(cache: str | Path | None = None) -> dict[str, Path]:
    """The checked tarball of every asset, fetched with ``npm pack`` into ``cache`` when missing.

    Returns:
        ``{package: path of its tarball}``.

    Raises:
        AssetError: if npm is missing, ``npm pack`` fails (no network), or a tarball's hash is
            not the pinned one.
    """
    folder = Path(cache) if cache is not None else default_cache()
    folder.mkdir(parents=True, exist_ok=True)
    tarballs = {}
    for asset in ASSETS:
        path = folder / asset.tarball
        if not (path.is_file() and _sha256(path) == asset.sha256):
            _npm_pack(asset, folder)
            if not path.is_file():
                raise AssetError(f"npm pack {asset.package}@{asset.version} wrote no {asset.tarball} in {folder}")
            if _sha256(path) != asset.sha256:
                path.unlink()
                raise AssetError(
                    f"{asset.tarball} from npm does not have the pinned SHA-256 {asset.sha256}: refusing to use it "
                    "(build with --cdn, or check what your npm registry serves)"
                )
        tarballs[asset.package] = path
    return tarballs


def missing(cache: str | Path | None = None) -> list[str]:
    """The packages whose tarball is not in ``cache`` yet (so :func:`fetch` will run ``npm pack``)."""
    folder = Path(cache) if cache is not None else default_cache()
    return [asset.package for asset in ASSETS if not (folder / asset.tarball).is_file()]


def _npm_pack(asset: Asset, folder: Path) -> None:
    npm = shutil.which("npm")
    spec = f"{asset.package}@{asset.version}"
    if npm is None:
        raise AssetError(f"the site's assets are not in {folder} and npm is not installed to fetch {spec}: {_ADVICE}")
    try:
        done = subprocess.run([npm, "pack", spec], cwd=folder, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        raise AssetError(f"npm pack {spec} took over 5 minutes: {_ADVICE}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise AssetError(f"npm pack {spec} failed ({last}): {_ADVICE}")


def _wanted(name: str, keep: tuple[str, ...]) -> bool:
    from fnmatch import fnmatch

    return any(
        fnmatch(name, prefix)
        if "*" in prefix
        else (name.startswith(prefix) if prefix.endswith("/") else name == prefix)
        for prefix in keep
    )


def install(assets_dir: str | Path, cache: str | Path | None = None) -> dict[str, str]:
    """Copy the assets' files into ``assets_dir`` (fetching them first if needed).

    The files kept from each tarball are unpacked once into the cache (:func:`unpacked`), then
    copied from there: unpacking MathJax's 21 MB tarball at every build cost 0.9 s of CPU, copying
    its files 0.05 s.

    Returns:
        The exporter's URL traits (``require_js_url``, ``mathjax_url``,
        ``widget_renderer_url``) as paths relative to the folder holding ``assets_dir``.

    Raises:
        AssetError: as :func:`fetch`.
    """
    target = Path(assets_dir)
    tarballs = fetch(cache)
    for asset in ASSETS:
        folder = target / asset.folder
        if folder.exists():
            shutil.rmtree(folder)
        try:
            source = unpacked(asset, tarballs[asset.package])
        except OSError:  # a cache this user may read but not write: from the tarball, as before
            _extract(asset, tarballs[asset.package], folder)
            continue
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns(UNPACKED_MARK), copy_function=shutil.copyfile)
    return local_urls(target.name)


def _extract(asset: Asset, tarball: Path, folder: Path) -> None:
    """Write the files ``asset`` keeps from ``tarball`` into ``folder``."""
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            name = member.name.removeprefix("package/")
            if member.isfile() and ".." not in Path(name).parts and _wanted(name, asset.keep):
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(member) as source, path.open("wb") as out:  # type: ignore[union-attr]
                    shutil.copyfileobj(source, out)


UNPACKED_MARK = ".mctslab-unpacked"
"""The file written last in an unpacked asset's folder: what it was unpacked from (absent: unpacking
was interrupted, the folder is unpacked again)."""


def unpacked(asset: Asset, tarball: Path) -> Path:
    """The folder, beside ``tarball`` (checked by :func:`fetch`), holding the files ``asset`` keeps from it.

    Unpacked on first use, into a fresh folder renamed into place when complete; its mark
    (:data:`UNPACKED_MARK`) names the tarball's hash and the files kept, so a change of either
    unpacks it again.

    Raises:
        OSError: if the folder cannot be written (:func:`install` then unpacks into the site).
    """
    folder = tarball.parent / "unpacked" / f"{asset.folder}-{asset.version}"
    mark = f"{asset.sha256}\n" + "\n".join(asset.keep) + "\n"
    if _complete(folder, mark):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        _extract(asset, tarball, fresh)
        (fresh / UNPACKED_MARK).write_text(mark, encoding="utf-8")
        if folder.exists() and not _complete(folder, mark):
            shutil.rmtree(folder, ignore_errors=True)  # another version's files, or an interrupted copy
        try:
            os.replace(fresh, folder)
        except OSError:  # another build put it in place meanwhile
            if not _complete(folder, mark):
                raise
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return folder


def _complete(folder: Path, mark: str) -> bool:
    try:
        return (folder / UNPACKED_MARK).read_text(encoding="utf-8") == mark
    except OSError:
        return False


def local_urls(assets: str = "assets") -> dict[str, str]:
    """The exporter's URL traits pointing at the copies in the site's ``assets`` folder."""
    return {
        "require_js_url": f"{assets}/requirejs/require.js",
        "mathjax_url": f"{assets}/mathjax/MathJax.js" + MATHJAX_CONFIG,
        "widget_renderer_url": f"{assets}/html-manager/dist/embed-amd.js",
    }
