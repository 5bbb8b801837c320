"""A training run's folder: checked, locked, and written so that nothing is lost or half-written.

:func:`prepare` is what :func:`~mctslab.alphazero.training.train` does before its first
round, in this order, so that a refused run writes nothing:

1. the folder's name: no ``,`` or ``=`` (the network is evaluated and played as the agent
   spec ``puct:evaluator=net,weights=OUT/net.npz``, whose values cannot hold them);
2. the folder: created if missing; a file, a device or a path too long is one line;
3. the lock (:func:`lock`): one ``train`` per folder at a time;
4. ``config.json``: a saved configuration must match (``rounds`` apart, which may not fall
   below the rounds already trained), and a damaged one is refused; the configuration is
   then written atomically (:func:`write_atomic`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..tournament.files import lock_exclusively
from ..tournament.locks import LOCKS

LOCK_NAME = "train.lock"
"""The lock file in a run's folder (empty; an ``flock`` on it marks a run in progress)."""


def folder_error(out: Path, doing: str, err: OSError) -> ValueError:
    """One line for an OSError met while ``doing`` something in the run's folder ``out``."""
    why = err.strerror or type(err).__name__
    return ValueError(f"training folder {os.fspath(out)!r}: cannot {doing} ({why})")


def check_name(out: str | os.PathLike) -> Path:
    """``out`` as a Path, refusing an empty name and one holding ``,`` or ``=`` (module docstring)."""
    text = os.fspath(out)
    if not text or not text.strip():
        raise ValueError(f"--out must name a folder, got {text!r}")
    bad = sorted({ch for ch in ",=" if ch in text})
    if bad:
        raise ValueError(
            f"--out {text!r} holds {' and '.join(repr(c) for c in bad)}, which an agent spec cannot hold "
            "(the network is played as puct:evaluator=net,weights=OUT/net.npz); choose a folder name without them"
        )
    return Path(text)


def make_folder(out: Path) -> None:
    """Create ``out`` (and its parents), or say in one line why it cannot be a training folder."""
    try:
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out {os.fspath(out)!r} is not a folder (it is a file or a device); give a folder")
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise folder_error(out, "create it", err) from None


@contextlib.contextmanager
def lock(out: Path) -> Iterator[None]:
    """Hold the folder's lock while a run trains in it (released when the block ends or the process dies).

    Raises:
        ValueError: if another run holds it.
    """
    try:
        fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as err:
        raise folder_error(out, "create the lock file", err) from None
    try:
        lock_exclusively(
            fd,
            out / LOCK_NAME,
            busy=lambda: ValueError(
                f"{os.fspath(out)} is being trained by another run; wait for it to end "
                "(then run this command again to resume or extend it) or use another folder"
            ),
        )
        LOCKS.add(fd)  # a forked evaluation worker lets go of it (tournament.locks)
        yield
    finally:
        LOCKS.discard(fd)
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (temporary file, then rename over it)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_config(path: Path) -> dict[str, Any] | None:
    """The saved configuration (None if there is none); a damaged one is a one-line ValueError."""
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as err:
        raise ValueError(f"{path} is damaged ({type(err).__name__}); delete the folder or use another") from None
    if not isinstance(saved, dict):
        raise ValueError(f"{path} is damaged (not a JSON object); delete the folder or use another")
    return saved


def check_config_file(out: Path, settings: dict[str, Any]) -> None:
    """Refuse a folder holding a run with other settings (``rounds`` apart).

    A folder with no checkpoint has trained no round yet (a run refused or stopped in its
    first round): its settings do not bind, so a corrected command goes on there.
    """
    saved = read_config(out / "config.json")
    if not (out / "checkpoint.npz").exists():
        return
    if saved is None:
        raise ValueError(f"{out} holds a checkpoint but no config.json: its settings are unknown; use another folder")
    changed = sorted(k for k in saved.keys() | settings.keys() if k != "rounds" and saved.get(k) != settings.get(k))
    if changed:
        raise ValueError(f"{out} holds a run with other settings ({', '.join(changed)}); use another folder")


def write_config(out: Path, settings: dict[str, Any]) -> None:
    """Save ``settings`` as ``OUT/config.json`` (atomically)."""
    try:
        write_atomic(out / "config.json", (json.dumps(settings, indent=1) + "\n").encode())
    except OSError as err:
        raise folder_error(out, "write config.json", err) from None
