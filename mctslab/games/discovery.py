"""Import every module of ``mctslab/games/``, so that each game file registers itself.

A new game is one file in this folder, its class decorated with
:func:`~mctslab.games.registry.register_game`; nothing else imports it by name. The
package imports the built-in games first, in a fixed order (the order of
:data:`~mctslab.games.registry.GAMES`, which seeded checks walk), then this module imports
the rest of the folder, alphabetically.
"""

from __future__ import annotations

from pathlib import Path

from ..discovery import import_package_modules, package_modules

FOLDER = Path(__file__).resolve().parent
PACKAGE = __name__.rpartition(".")[0]


def game_modules() -> list[str]:
    """The dotted names of the modules in ``mctslab/games/`` (private ``_name`` modules left out), sorted."""
    return package_modules(PACKAGE, FOLDER)


def import_game_modules() -> list[str]:
    """Import every module :func:`game_modules` lists (registering its games); returns their names."""
    return import_package_modules(PACKAGE, FOLDER)


import_game_modules()
