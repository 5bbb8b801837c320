"""Import every module of a package's folder, so that each file registers what it defines.

:mod:`mctslab.games.discovery` and :mod:`mctslab.agents.discovery` use it: a new game or agent
is one file in its folder, and nothing else has to import it by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path


def package_modules(package: str, folder: str | Path) -> list[str]:
    """The dotted names of the modules in ``folder`` (package ``package``), private ``_name`` ones left out, sorted."""
    return sorted(
        f"{package}.{info.name}" for info in pkgutil.iter_modules([str(folder)]) if not info.name.startswith("_")
    )


def import_package_modules(package: str, folder: str | Path) -> list[str]:
    """Import every module :func:`package_modules` lists (each registering what it defines); returns their names."""
    names = package_modules(package, folder)
    for name in names:
        importlib.import_module(name)
    return names
