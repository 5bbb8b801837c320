"""Network files: checked before they are trusted, and named by their content in results files.

A network file is an ``.npz`` archive (a zip of ``.npy`` arrays) holding the parameters
:data:`~mctslab.nets.network.WEIGHTS`. :func:`load_weights` reads one and refuses, with one
line naming the file and what is wrong:

* a path that is missing, a directory, empty, or not a zip archive (an ``.npy`` file, a
  pickle, a truncated archive);
* an archive without the parameters, or whose arrays' shapes (read from each array's
  ``.npy`` header inside the zip, before anything is decompressed) do not fit together or
  are larger than :data:`MAX_PARAMETERS`: a small "zip bomb" cannot make it allocate more;
* arrays that are not real numbers (complex, object), or not finite (NaN, infinity).

:func:`weights_digest` gives the sha256 of every network file named in agent specs: the
results files record it in their header, so a run whose network file was replaced is
refused on resume instead of mixing two players under one spec.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np

WEIGHTS = ("W1", "b1", "W2", "b2", "Wp", "bp", "wv", "bv")
"""The names of the parameters, in order."""

MAX_PARAMETERS = 10_000_000
"""The most parameters a network file may hold (80 MB as float64; the shipped Connect Four network has about 26,000)."""


def _fail(path: str | os.PathLike, why: str) -> ValueError:
    return ValueError(f"weights file {os.fspath(path)!r} {why}")


def weights_file(path: str | os.PathLike) -> Path:
    """``path`` (``~`` expanded) if it names a non-empty regular file, else a ValueError saying why."""
    full = Path(path).expanduser()
    try:
        info = full.stat()
    except FileNotFoundError:
        raise _fail(path, "does not exist; give the path of a network's .npz file") from None
    except OSError as err:
        raise _fail(path, f"cannot be read ({err.strerror or err})") from None
    if full.is_dir():
        raise _fail(path, "is a directory; give the path of a network's .npz file (such as OUT/net.npz)")
    if not full.is_file():
        raise _fail(path, "is not a regular file; give the path of a network's .npz file")
    if info.st_size == 0:
        raise _fail(path, "is empty")
    return full


def _header_shapes(path: str | os.PathLike, archive: zipfile.ZipFile) -> dict[str, tuple[int, ...]]:
    """Each parameter's shape, read from its ``.npy`` header (nothing else is decompressed)."""
    names = set(archive.namelist())
    missing = [k for k in WEIGHTS if f"{k}.npy" not in names]
    if missing:
        raise _fail(path, f"is not a policy/value network file (missing {missing})")
    shapes = {}
    for k in WEIGHTS:
        with archive.open(f"{k}.npy") as member:
            version = np.lib.format.read_magic(member)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read(member)
        if dtype.hasobject or dtype.kind not in "fiu":
            raise _fail(path, f"holds {k} as {dtype}; the parameters must be real numbers (float)")
        shapes[k] = tuple(int(n) for n in shape)
    return shapes


def _check_shapes(path: str | os.PathLike, shapes: dict[str, tuple[int, ...]]) -> None:
    w1, wp = shapes["W1"], shapes["Wp"]
    if len(w1) != 2 or len(wp) != 2:
        raise _fail(path, f"has W1 of shape {w1} and Wp of shape {wp}; both must be matrices")
    (inputs, hidden), moves = w1, wp[1]
    want = {"W1": (inputs, hidden), "b1": (hidden,), "W2": (hidden, hidden), "b2": (hidden,),
            "Wp": (hidden, moves), "bp": (moves,), "wv": (hidden, 1), "bv": (1,)}  # fmt: skip
    for k in WEIGHTS:
        if shapes[k] != want[k]:
            raise _fail(path, f"has parameter {k} of shape {shapes[k]}, expected {want[k]}")
    if min(inputs, hidden, moves) < 1:
        raise _fail(path, f"has an empty layer (inputs {inputs}, hidden {hidden}, moves {moves})")
    total = sum(int(np.prod(s)) for s in shapes.values())
    if total > MAX_PARAMETERS:
        raise _fail(path, f"holds {total:,} parameters; at most {MAX_PARAMETERS:,} are read")


def load_weights(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The parameters in a network file, as float64 arrays, after every check of the module docstring.

    Raises:
        ValueError: one line naming the file and what is wrong with it.
    """
    full = weights_file(path)
    try:
        with open(full, "rb") as f:
            start = f.read(6)
        if start == b"\x93NUMPY":
            raise _fail(path, "is a single .npy array; a network file is an .npz archive (PolicyValueNet.save)")
        if not zipfile.is_zipfile(full):
            raise _fail(path, "is not an .npz archive (a network file is written by PolicyValueNet.save)")
        with zipfile.ZipFile(full) as archive:
            _check_shapes(path, _header_shapes(path, archive))
            params = {}
            for k in WEIGHTS:  # the very members whose headers were checked (np.load could pick another)
                with archive.open(f"{k}.npy") as member:
                    params[k] = np.asarray(np.lib.format.read_array(member, allow_pickle=False), dtype=np.float64)
    except ValueError as err:
        if str(err).startswith("weights file "):
            raise
        raise _fail(path, f"is damaged ({' '.join(str(err).split())})") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError, RuntimeError) as err:
        raise _fail(path, f"is damaged or unreadable ({type(err).__name__}: {' '.join(str(err).split())})") from None
    for k, v in params.items():
        if not np.all(np.isfinite(v)):
            raise _fail(path, f"holds non-finite values (NaN or infinity) in {k}; it cannot be played")
    return params


def check_weights_file(path: str | os.PathLike) -> tuple[int, int, int]:
    """Check a network file as :func:`load_weights` does; returns its ``(inputs, hidden, moves)``."""
    params = load_weights(path)
    inputs, hidden = params["W1"].shape
    return inputs, hidden, params["Wp"].shape[1]


def spec_weights(spec: str) -> str | None:
    """The ``weights=`` value of an agent spec such as ``"puct:evaluator=net,weights=a.npz"``, or None."""
    _, _, params = spec.partition(":")
    for part in params.split(","):
        key, eq, value = part.partition("=")
        if eq and key.strip() == "weights":
            return value.strip()
    return None


def file_digest(path: str | os.PathLike) -> str:
    """``"sha256:<hex>"`` of a file's bytes."""
    h = hashlib.sha256()
    with open(Path(path).expanduser(), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return f"sha256:{h.hexdigest()}"


def weights_digest(specs: Iterable[str]) -> dict[str, str]:
    """``{path: "sha256:<hex>"}`` of every network file named (``weights=``) in agent specs.

    Specs that name no weights file add nothing, so the result is ``{}`` for most runs.

    Raises:
        ValueError: if a named file cannot be read (one line).
    """
    out = {}
    for spec in specs:
        path = spec_weights(spec) if isinstance(spec, str) else None
        if path:
            try:
                out[path] = file_digest(path)
            except OSError as err:
                raise _fail(path, f"cannot be read ({err.strerror or err})") from None
    return out
