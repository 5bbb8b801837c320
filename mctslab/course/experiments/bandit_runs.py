"""Stored bandit runs: :func:`~mctslab.bandits.run`'s results kept beside a notebook, read back instead of played again.

Notebook 01's regret race, its simple-regret experiment and its sweep of UCB1's ``c`` are
seeded :func:`~mctslab.bandits.run` calls (one policy on one bandit, ``runs`` runs of
``steps`` pulls). :func:`stored_run` and :func:`stored_compare` are :func:`~mctslab.bandits.run`
and :func:`~mctslab.bandits.compare` with a ``folder``: each run found there is read, each
missing one is played and stored, and what they return is, array for array and bit for bit,
what the plain functions return (with ``folder=None`` they are those functions).

One call of :func:`~mctslab.bandits.run` is the stored unit (the **chunk**): its runs are
advanced together from three shared streams (:mod:`mctslab.bandits.experiment`), so a part of
them cannot be played alone. A run's file, :func:`run_file`, is written whole (a temporary
file renamed), so an interrupted notebook loses only the run in flight. It is a NumPy archive
(``.npz``, read by ``np.load`` without pickle) whose members are compressed with bzip2 (notebook
01's runs take 40% less room than with ``numpy.savez_compressed``'s deflate), holding:

* ``header``: what identifies the run, as JSON (:func:`run_header`: the policy's class and
  parameters, the bandit's class and means, runs, steps, the seed and the recorded times);
  the file's name ends with a digest of it, and it is checked again on reading;
* the result's arrays (:class:`~mctslab.bandits.BanditResult`): ``times``, ``regret``,
  ``simple_regret`` and ``counts`` as they are, and ``optimal_pulls``, the whole pulls of an
  optimal arm, from which ``optimal_fraction = optimal_pulls / times`` is computed exactly as
  :func:`~mctslab.bandits.run` computes it (integers take less room than the fractions).

Only runs that can be played again are stored: the seed is an int or a ``SeedSequence`` (not
``None`` or a generator), and the policy's and bandit's parameters are numbers, strings or
lists of them. A file that is not a sound stored run is refused, never overwritten. To make a
notebook's runs again, delete its folder and run the notebook.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ...bandits.arms import Arms, BernoulliArms
from ...bandits.experiment import BanditResult, log_grid, run
from ...bandits.policy import Policy
from ...seeding import Seed
from ...tournament.match import seed_header
from ...validation import positive_int

__all__ = ["FORMAT", "VERSION", "load_run", "run_file", "run_header", "save_run", "stored_compare", "stored_run"]

FORMAT = "mctslab-bandit-run"
VERSION = 1
_ARRAYS = ("times", "regret", "simple_regret", "optimal_pulls", "counts")


def _describe(thing: object) -> dict[str, Any]:
    """A policy's or a bandit's class and public attributes, JSON-ready (what plays the same, given the seed).

    Raises:
        ValueError: for an attribute that is not a number, a string or a list of them.
    """
    cls = type(thing)
    described: dict[str, Any] = {"class": f"{cls.__module__}.{cls.__qualname__}"}
    for key, value in sorted(vars(thing).items()):
        if key.startswith("_"):
            continue
        value = value.tolist() if isinstance(value, np.ndarray) else value
        value = value.item() if isinstance(value, np.generic) else value
        flat = value if isinstance(value, list | tuple) else [value]
        if not all(isinstance(v, bool | int | float | str) or v is None for v in flat):
            raise ValueError(
                f"{thing!r} cannot be stored: its attribute {key!r} = {value!r} is not a number, a string or a "
                "list of them, so a file could not say which run it holds (run it without a folder)"
            )
        described[key] = list(value) if isinstance(value, tuple) else value
    return described


def run_header(
    policy: Policy, arms: Arms, *, runs: int, steps: int, seed: int | np.random.SeedSequence, times: Sequence[int]
) -> dict[str, Any]:
    """What identifies a stored run: checked against a file's header when it is read.

    Args:
        policy: the policy (its class and public parameters, and its name).
        arms: the bandit (its class and parameters).
        runs: independent runs.
        steps: pulls in each run.
        seed: an int or a ``SeedSequence`` (see :func:`~mctslab.tournament.match.seed_header`).
        times: the recorded times, increasing.

    Raises:
        TypeError: if ``seed`` is neither an int nor a ``SeedSequence`` (``None`` or a generator
            gives another run each time: nothing could be stored).
        ValueError: as :func:`_describe`, or for a negative seed.
    """
    return {
        "format": FORMAT,
        "version": VERSION,
        "policy": {"name": policy.name, **_describe(policy)},
        "arms": _describe(arms),
        "runs": int(runs),
        "steps": int(steps),
        "seed": seed_header(seed),
        "record": [int(t) for t in times],
    }


def run_file(folder: str | os.PathLike, header: dict[str, Any]) -> Path:
    """The stored run of ``header`` in ``folder``: ``<policy>_<runs>x<steps>_<digest of the header>.npz``."""
    slug = re.sub(r"[^a-z0-9]+", "-", header["policy"]["name"].lower()).strip("-") or "policy"
    digest = hashlib.sha256(json.dumps(header, sort_keys=True).encode()).hexdigest()[:10]
    return Path(folder) / f"{slug}_{header['runs']}x{header['steps']}_{digest}.npz"


def save_run(path: str | os.PathLike, header: dict[str, Any], result: BanditResult) -> None:
    """Write ``result`` (of the run ``header`` describes) to ``path``, whole: a temporary file renamed over it.

    Raises:
        ValueError: if ``result`` does not have the shapes of ``header``'s run, or its
            fractions of optimal pulls are not whole pulls over the times (it did not come from
            :func:`~mctslab.bandits.run`).
    """
    path = Path(path)
    optimal_pulls = np.rint(result.optimal_fraction * result.times).astype(np.int64)
    if not np.array_equal(optimal_pulls / result.times, result.optimal_fraction):
        raise ValueError(f"{result!r}: its optimal_fraction is not optimal pulls / times; it cannot be stored exactly")
    arrays = {name: getattr(result, name) for name in _ARRAYS if name != "optimal_pulls"}
    _check(path, header, {**arrays, "optimal_pulls": optimal_pulls})
    buffer = io.BytesIO()
    # An .npz (np.load reads it) compressed with bzip2, not savez_compressed's deflate: 40% smaller here.
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_BZIP2) as archive:
        for name, array in {"header": np.array(json.dumps(header)), "optimal_pulls": optimal_pulls, **arrays}.items():
            with archive.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(buffer.getvalue())
    tmp.replace(path)


def _check(path: Path, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Raise ValueError unless ``arrays`` have the shapes, kinds and times of ``header``'s run."""
    runs, times, arms = header["runs"], np.array(header["record"], dtype=np.int64), len(header["arms"]["means"])
    shapes = {"times": (times.size,), "counts": (runs, arms), "regret": (runs, times.size)}
    shapes |= {"simple_regret": shapes["regret"], "optimal_pulls": shapes["regret"]}
    for name, shape in shapes.items():
        array = arrays[name]
        kind = "f" if name in ("regret", "simple_regret") else "i"
        if array.shape != shape or array.dtype.kind != kind:
            raise ValueError(f"{path}: {name} has shape {array.shape} ({array.dtype}); the run's is {shape}")
    if not np.array_equal(arrays["times"], times) or not np.all(arrays["counts"].sum(axis=1) == header["steps"]):
        raise ValueError(f"{path}: its times or pulls are not those of the run it describes")


def load_run(path: str | os.PathLike, header: dict[str, Any], arms: Arms) -> BanditResult | None:
    """The stored result of ``header``'s run in ``path``, or ``None`` if there is no such file.

    Args:
        path: the file (:func:`run_file`).
        header: what the run is (:func:`run_header`).
        arms: the run's bandit (the result's ``means`` are its means, as :func:`~mctslab.bandits.run` gives them).

    Raises:
        ValueError: if the file is not a stored run, holds another run, or its arrays are not the run's.
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            stored = json.loads(str(data["header"]))
            arrays = {name: data[name] for name in _ARRAYS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path} is not a sound stored bandit run ({err!r}); delete it to play it again") from None
    if stored != header:
        differs = sorted(k for k in {*stored, *header} if stored.get(k) != header.get(k))
        raise ValueError(f"{path} holds another run ({', '.join(differs)} differ); delete it to play this run")
    _check(path, header, arrays)
    return BanditResult(
        policy=header["policy"]["name"],
        means=arms.means,
        times=arrays["times"].astype(np.int64),
        regret=arrays["regret"].astype(np.float64),
        simple_regret=arrays["simple_regret"].astype(np.float64),
        optimal_fraction=arrays["optimal_pulls"] / arrays["times"],
        counts=arrays["counts"].astype(np.int64),
    )


def stored_run(
    policy: Policy,
    arms: Arms | Sequence[float],
    *,
    runs: int = 1000,
    steps: int = 10_000,
    seed: Seed = 0,
    record: Iterable[int] | None = None,
    progress: bool = True,
    folder: str | os.PathLike | None = None,
) -> BanditResult:
    """:func:`~mctslab.bandits.run`, read from ``folder`` if it is stored there, else played (and stored there).

    Args:
        policy, arms, runs, steps, seed, record, progress: as :func:`~mctslab.bandits.run`.
        folder: where the run is stored (:func:`run_file`); ``None``: played, nothing stored.

    Returns:
        The :class:`~mctslab.bandits.BanditResult` that :func:`~mctslab.bandits.run` returns.

    Raises:
        TypeError, ValueError: as :func:`~mctslab.bandits.run` and :func:`run_header` (with a
            folder, the seed must be an int or a ``SeedSequence``), or :func:`load_run`.
    """
    if folder is None:
        return run(policy, arms, runs=runs, steps=steps, seed=seed, record=record, progress=progress)
    bandit = arms if isinstance(arms, Arms) else BernoulliArms(arms)
    steps = positive_int("steps", steps)
    times = log_grid(steps) if record is None else np.unique(np.asarray(list(record), dtype=np.int64))
    header = run_header(policy, bandit, runs=positive_int("runs", runs), steps=steps, seed=seed, times=times)
    path = run_file(folder, header)
    result = load_run(path, header, bandit)
    if result is None:
        result = run(policy, bandit, runs=runs, steps=steps, seed=seed, record=times, progress=progress)
        save_run(path, header, result)
    else:  # the bar a played run leaves, so that a notebook shows the same whether its runs were read or played
        with tqdm(total=steps, desc=policy.name, disable=not progress, leave=False) as bar:
            bar.update(steps)
            bar.refresh()  # drawn at 100% now, as run's last refresh draws it
    return result


def stored_compare(
    policies: Iterable[Policy],
    arms: Arms | Sequence[float],
    *,
    runs: int = 1000,
    steps: int = 10_000,
    seed: Seed = 0,
    record: Iterable[int] | None = None,
    progress: bool = True,
    folder: str | os.PathLike | None = None,
) -> dict[str, BanditResult]:
    """:func:`~mctslab.bandits.compare`, each policy's run read from ``folder`` or played and stored there.

    Each run is a :func:`stored_run`; with ``folder=None`` this is :func:`~mctslab.bandits.compare`.

    Returns:
        Policy name -> :class:`~mctslab.bandits.BanditResult`, in the order given.

    Raises:
        ValueError: if two policies share a name, or as :func:`stored_run`.
    """
    results: dict[str, BanditResult] = {}
    record = None if record is None else list(record)
    for policy in policies:
        if policy.name in results:
            raise ValueError(f"two policies are both named {policy.name!r}; give them different parameters")
        results[policy.name] = stored_run(
            policy, arms, runs=runs, steps=steps, seed=seed, record=record, progress=progress, folder=folder
        )
    return results
