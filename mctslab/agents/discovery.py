"""Import every module of ``mctslab/agents/``, so that each agent file registers itself.

A new agent is one file in this folder, its class decorated with
:func:`~mctslab.agents.registry.register_agent`; nothing else has to import it by name
(a file without an import line elsewhere is never silently absent). The package imports
the built-in agents first, in a fixed order (the order of
:data:`~mctslab.agents.registry.AGENTS`), then this module imports the rest of the folder,
alphabetically.
"""

from __future__ import annotations

from pathlib import Path

from ..discovery import import_package_modules, package_modules

FOLDER = Path(__file__).resolve().parent
PACKAGE = __name__.rpartition(".")[0]


def agent_modules() -> list[str]:
    """The dotted names of the modules in ``mctslab/agents/`` (private ``_name`` modules left out), sorted."""
    return package_modules(PACKAGE, FOLDER)


def import_agent_modules() -> list[str]:
    """Import every module :func:`agent_modules` lists (registering its agents); returns their names."""
    return import_package_modules(PACKAGE, FOLDER)


import_agent_modules()
