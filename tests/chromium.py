"""What the browser tests share: Debian's Chromium, its flags for a closed network, and how to start it.

``./run test`` installs Chromium and Playwright when it can; :func:`playwright_or_skip`, called at
the top of a test module, skips the module with the reason when either is missing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

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


def playwright_or_skip() -> Any:
    """``playwright.sync_api``, or skip the calling test module saying what is missing and how to get it."""
    api = pytest.importorskip(
        "playwright.sync_api",
        reason="the playwright package is not installed (pip install playwright; ./run test does)",
    )
    if not CHROMIUM.exists():
        pytest.skip(
            f"Chromium not found at {CHROMIUM}: install Debian's chromium (sudo apt-get install chromium; ./run test "
            "does this when run as root or with password-less sudo) or set MCTSLAB_CHROMIUM",
            allow_module_level=True,
        )
    return api


def launch(playwright: Any, profile: Path, viewport: dict[str, int]) -> Any:
    """A persistent Chromium context with a fresh profile folder (headless, the flags above)."""
    return playwright.chromium.launch_persistent_context(
        str(profile), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True, viewport=viewport
    )
