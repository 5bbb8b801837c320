"""Grade a folder of submissions: find them, resume, run them on N worker processes, write grades.csv.

Each finished submission is appended at once, as one JSON line, to the results file
(``grades.csv`` -> ``grades.results.jsonl``); a rerun reads it and grades only the
submissions not in it yet, or graded under other checks, another package version or other
bytes (their run key, :func:`.scheme.run_key`, differs); one graded under another scheme
(points, partial-credit policy) alone is marked again from its stored reports, without a
kernel. ``only`` (``--only PATTERN``) grades again just the submissions it matches and keeps
the others' rows. Then ``grades.csv`` is written from all of them.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import fnmatch
import hashlib
import json
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from tqdm.auto import tqdm

from .catalogue import EXERCISES
from .cgroups import grading_run
from .cgroups import probe as hard_caps
from .cgroups import sweep as sweep_cgroups
from .copies import attach_copies, copy_flags
from .extras import Extras, combined_checks, extend
from .run import grade_submission, mark
from .sandbox import Limits, adopt_orphans, describe, kill_descendants, kill_trees, probe
from .scheme import Scheme, checks_digest, default_scheme, fingerprint, run_key

__all__ = [
    "GradingInterrupted",
    "columns",
    "find_submissions",
    "grade_folder",
    "hidden_places",
    "not_reached",
    "plan",
    "results_path",
    "write_csv",
]


def find_submissions(folder: Path) -> list[Path]:
    """Every ``.ipynb`` under ``folder`` (sub-folders too; checkpoints and hidden folders left out), sorted."""
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        parts = path.relative_to(folder).parts
        if any(p.startswith(".") or p == ".ipynb_checkpoints" for p in parts):
            continue
        found.append(path)
    return found


def results_path(out: Path) -> Path:
    """Where the per-submission results of ``out`` (``grades.csv``) are appended."""
    return out.with_name(out.stem + ".results.jsonl")


def _digest(path: Path) -> str:
    """The file's SHA-256; for what cannot be read (a pipe, a folder named .ipynb, no permission), why not."""
    if not path.is_file():
        return "not a regular file"
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        return f"unreadable: {error.strerror or error}"


def _load(results: Path) -> dict[str, dict]:
    done: dict[str, dict] = {}
    if results.exists():
        for line in results.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a line cut short by an interrupted run: graded again
            done[row["submission"]] = row
    return done


def columns(rows: list[dict]) -> list[str]:
    """The columns of ``grades.csv``: submission, score, max_score, every part present, flags, not_reached, seconds.

    The instructor's extra checks (:mod:`.extras`) follow their exercise's parts.
    """
    parts: list[str] = []
    for exercise in EXERCISES.values():
        if any(row.get("exercise") == exercise.key for row in rows):
            parts += [p.name for p in exercise.parts if p.name not in parts]
            for row in rows:
                if row.get("exercise") == exercise.key:
                    parts += [p for p in row.get("points") or {} if p not in parts]
    return ["submission", "score", "max_score", *parts, "flags", "not_reached", "seconds"]


def not_reached(row: dict) -> str:
    """The checks a submission did not reach, ``part.check`` each: they waited for a check that failed.

    They earn nothing, like a failed check, but they did not fail: ``grades.csv`` lists them apart
    (and the report's pages show them as "not reached").
    """
    names = []
    for part, result in (row.get("reports") or {}).items():
        for check in ((result or {}).get("report") or {}).get("checks") or []:
            if check.get("status") == "skipped":  # mctslab.course.exercises.report.SKIPPED, as stored
                names.append(f"{part}.{check.get('name')}")
    return " ".join(names)


def write_csv(rows: list[dict], out: Path) -> None:
    """Write ``grades.csv``: one row per submission, sorted by submission; whole or not at all.

    The flags column holds the grading's flags, then the copies' (``row["copies"]``, :mod:`.copies`).

    Written to a temporary file beside ``out``, then renamed over it: an interrupted or failed
    write leaves the previous ``grades.csv`` as it was.
    """
    names = columns(rows)
    temporary = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        # A file name that is not UTF-8 (kept by Python as surrogates) is written with backslash escapes.
        with temporary.open("w", newline="", encoding="utf-8", errors="backslashreplace") as handle:
            writer = csv.DictWriter(handle, fieldnames=names, extrasaction="ignore")
            writer.writeheader()
            for row in sorted(rows, key=lambda r: r["submission"]):
                flags = " ".join(f for f in [row.get("flags") or "", *copy_flags(row.get("copies") or {})] if f)
                writer.writerow(
                    {
                        **{n: "" for n in names},
                        **row,
                        **row.get("points", {}),
                        "flags": flags,
                        "not_reached": not_reached(row),
                    }
                )
        os.replace(temporary, out)
    finally:
        temporary.unlink(missing_ok=True)


class GraderBusy(ValueError):
    """Another grader is writing the same results (one line)."""


@contextlib.contextmanager
def _locked(results: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``results``' lock file for the run; refuse at once if another grader holds it."""
    lock = results.with_name(results.name + ".lock")
    with lock.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GraderBusy(
                f"another grader is writing {results.name} (its lock {lock.name} is held): wait for it, "
                "or give another --out"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _work(
    path: str,
    root: str,
    level: str,
    limits: Limits,
    hidden: tuple[str, ...],
    scratch: str,
    scheme: Scheme,
    extras: Extras | None = None,
) -> dict:
    """In a worker process: grade one submission, then kill whatever it left running."""
    adopt_orphans()
    try:
        hidden_paths = tuple(Path(h) for h in hidden)
        return grade_submission(Path(path), Path(root), level, limits, hidden_paths, Path(scratch), scheme, extras)
    finally:
        kill_descendants()


def _short_temp() -> str:
    """The temporary folder, or ``/tmp`` where its path is long: the kernels' ZeroMQ sockets are files in the
    work folders, and a socket's path holds at most 107 bytes (a long ``TMPDIR`` made every kernel fail)."""
    base = tempfile.gettempdir()
    return "/tmp" if len(base) > 40 and os.path.isdir("/tmp") else base


def _quiet_worker() -> None:
    """A worker ignores Ctrl-C (a terminal sends it to the whole group): the main process stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class GradingInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the run; every submission graded before is kept in the results file."""

    def __init__(self, graded: int, total: int, results: Path) -> None:
        super().__init__(graded, total, results)
        self.graded, self.total, self.results = graded, total, results

    def __str__(self) -> str:
        return (
            f"interrupted: {self.graded} of {self.total} submissions graded, kept in {self.results.name}; "
            "run the same command again to grade the rest"
        )


def _stop(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's workers and everything they started (kernels, what a submission left running) at once."""
    kill_trees(set(getattr(pool, "_processes", None) or {}))
    pool.shutdown(wait=True, cancel_futures=True)  # the workers are dead: this only reaps them


@contextlib.contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """While grading, SIGTERM stops the run as Ctrl-C does (in the main thread only, where handlers run)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _failed(path: Path, folder: Path, why: str) -> dict:
    """The row of a submission the grader could not finish: 0 points, flagged ``crashed``, with why."""
    return {
        "submission": str(path.relative_to(folder)),
        "exercise": None,
        "points": {},
        "reports": {},
        "score": 0.0,
        "max_score": 0.0,
        "flags": "crashed",
        "seconds": 0.0,
        "error": why,
    }


def grade_folder(
    folder: Path,
    out: Path,
    workers: int = 2,
    limits: Limits | None = None,
    sandbox: str = "auto",
    progress: bool = True,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    scheme: Scheme | None = None,
    only: Sequence[str] = (),
    extras: Extras | None = None,
    private: Sequence[Path] = (),
) -> list[dict]:
    """Grade every submission under ``folder`` into ``out`` (CSV); return all rows (old and new).

    Args:
        folder: the submissions (``.ipynb`` files, in sub-folders or not).
        out: the CSV to write; its results file (:func:`results_path`) makes a rerun resume.
        workers: submissions graded at once, each in its own process and kernel.
        limits: CPU-time limits per cell and per notebook, with their wall-clock backstops (:class:`Limits`).
        sandbox: ``"auto"`` (bubblewrap when it works here), ``"bwrap"`` or ``"rlimits"``.
        progress: show a progress bar.
        say: where the one-line messages go (the sandbox level, what is resumed).
        scheme: the points and the partial-credit policy (default: the package's, :mod:`.points`).
        only: glob patterns (``fnmatch``) on the submissions' paths relative to ``folder``: grade
            again just those matching one, keep the other rows as they are.
        extras: the instructor's extra checks (:mod:`.extras`; ``scheme`` must give their points);
            a change of them grades every submission again.
        private: more of the instructor's files (the extra checks, the roster): their folders are
            hidden from the kernels too (:func:`hidden_places`).

    Raises:
        ValueError: for an unknown ``sandbox``, or ``"bwrap"`` where it does not work, or a
            folder holding no notebook, or ``only`` patterns matching none (``out`` is then left as it was).
        GraderBusy: (a ``ValueError``) when another grader is writing the same ``out``.
    """
    if sandbox not in ("auto", "bwrap", "rlimits"):
        raise ValueError(f"unknown sandbox {sandbox!r}; allowed: auto, bwrap, rlimits")
    level = probe() if sandbox != "rlimits" else "rlimits"
    if sandbox == "bwrap" and level != "bwrap":
        raise ValueError("bubblewrap does not work here (missing, or user namespaces refused); use --sandbox auto")
    limits = limits or Limits()
    folder, out = folder.resolve(), out.resolve()
    results = results_path(out)
    found = find_submissions(folder)
    if not found:
        raise ValueError(f"no .ipynb file under {folder}: nothing to grade ({out.name} is left as it was)")
    if only and not any(_matches(str(p.relative_to(folder)), only) for p in found):
        patterns = " ".join(f"--only {p!r}" for p in only)
        raise ValueError(
            f"{patterns} matches none of the {len(found)} submissions under {folder} (paths relative to it)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    with _locked(results):
        say(f"{describe(level, limits)}; {hard_caps()}")
        scheme = scheme or default_scheme()
        hidden = hidden_places(folder, out, private, results)
        return _grade(folder, out, results, workers, limits, level, progress, say, scheme, only, extras, hidden)


def hidden_places(
    folder: Path, out: Path, private: Sequence[Path] = (), results: Path | None = None
) -> tuple[str, ...]:
    """What the sandbox hides from the kernels, wherever it is (in the repository checkout the package runs
    from, too): the submissions, the output's folder and the output's own files (in case that folder is the
    package's), and each folder holding one of the instructor's ``private`` files (what is inside the kernel's
    own needs, the package, stays readable: :func:`.sandbox._bwrap_prefix`)."""
    places = {folder.resolve(), out.resolve().parent, out.resolve(), *(Path(p).resolve().parent for p in private)}
    if results is not None:
        places |= {results.resolve(), results.resolve().with_name(results.name + ".lock")}
    return tuple(sorted(str(p) for p in places))


def _matches(key: str, only: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(key, pattern) for pattern in only)


def plan(
    digests: dict[str, str], done: dict[str, dict], checks: str, scheme: Scheme, only: Sequence[str] = ()
) -> tuple[list[str], list[str], list[str], list[str]]:
    """Which submissions to grade, mark again or keep.

    Args:
        digests: each submission (its path relative to the folder) and its bytes' hash.
        done: the rows of the results file, by submission.
        checks: :func:`.scheme.checks_digest` of this run.
        scheme: this run's scheme.
        only: ``--only`` patterns (empty: every submission).

    Returns:
        ``(grade, remark, stale, ungraded)``: to grade in a kernel (never graded, or its run key
        changed; with ``only``, every match); to mark again from its reports (its scheme alone
        changed); with ``only``, the others whose rows are kept though stale, and the others never graded.
    """
    grade, remark, stale, ungraded = [], [], [], []
    for key, digest in digests.items():
        row = done.get(key)
        current = row is not None and row.get("run_key") == run_key(checks, digest)
        marked = current and row.get("fingerprint") == fingerprint(row["run_key"], scheme)
        if only and not _matches(key, only):
            if row is None:
                ungraded.append(key)
            elif not marked:
                stale.append(key)
        elif only or not current:
            grade.append(key)
        elif not marked:
            remark.append(key)
    return grade, remark, stale, ungraded


def _remark(row: dict, scheme: Scheme, extras: Extras | None = None) -> None:
    """Mark ``row`` again under ``scheme`` from its stored reports (its flags, from the run, stay)."""
    exercise = EXERCISES.get(row.get("exercise") or "")
    if exercise is None:
        return
    exercise = extend(exercise, extras)
    full = scheme.of(exercise)
    if row.get("reports"):
        row["points"] = mark(exercise, row["reports"], set(), scheme)
        row["score"] = round(sum(row["points"].values()), 2)
    row["max_score"] = sum(full.values())


def _grade(
    folder: Path,
    out: Path,
    results: Path,
    workers: int,
    limits: Limits,
    level: str,
    progress: bool,
    say: Callable[[str], None],
    scheme: Scheme,
    only: Sequence[str],
    extras: Extras | None = None,
    hidden: tuple[str, ...] = (),
) -> list[dict]:
    hidden = hidden or hidden_places(folder, out, (), results)
    done = _load(results)
    files = {str(path.relative_to(folder)): path for path in find_submissions(folder)}
    digests = {key: _digest(path) for key, path in files.items()}
    checks = combined_checks(checks_digest(), extras)
    grade, remark, stale, ungraded = plan(digests, done, checks, scheme, only)
    todo = [files[key] for key in grade]
    if not only and len(todo) < len(digests):
        say(f"resuming: {len(digests) - len(todo)} of {len(digests)} submissions already graded in {results.name}")
    if only:
        say(f"--only: grading {len(todo)} of {len(digests)} submissions again, keeping the others' rows")
    if stale:
        say(f"{len(stale)} rows kept by --only were marked under other points or checks: rerun without --only")
    if ungraded:
        say(f"{len(ungraded)} submissions not matching --only have never been graded: they get no row")
    out.parent.mkdir(parents=True, exist_ok=True)
    bar = tqdm(total=len(todo), desc="grading", unit="notebook", disable=not progress)
    context = multiprocessing.get_context("spawn")
    scratch = tempfile.mkdtemp(prefix="mctslab-grade-", dir=_short_temp())  # the work folders, removed at the end
    graded = 0
    with results.open("a") as log, _sigterm_as_ctrl_c(), grading_run():  # its own cgroups (see grading_run)

        def record(row: dict) -> None:
            nonlocal graded
            graded += 1
            row["sha256"] = digests[row["submission"]]
            row["run_key"] = run_key(checks, row["sha256"])
            row["fingerprint"] = fingerprint(row["run_key"], scheme)
            row["sandbox"] = level
            log.write(json.dumps(row) + "\n")
            log.flush()
            done[row["submission"]] = row
            bar.update(1)

        if remark:
            say(f"marking {len(remark)} submissions again under {scheme.source}, from their stored reports")
        for key in remark:  # no kernel: the verdicts stand, the points change
            row = done[key]
            _remark(row, scheme, extras)
            row["fingerprint"] = fingerprint(row["run_key"], scheme)
            log.write(json.dumps(row) + "\n")
            log.flush()
        # All at once; then, alone, each one whose worker died (a dead worker breaks the whole pool,
        # failing every submission in it): one that kills its worker alone too is marked, the rest graded.
        rounds = [(todo, False)]
        try:
            while rounds:
                paths, alone = rounds.pop(0)
                broken = []
                for group in [[p] for p in paths] if alone else [paths]:
                    pool = ProcessPoolExecutor(
                        max_workers=1 if alone else max(1, workers), mp_context=context, initializer=_quiet_worker
                    )
                    try:
                        futures = {
                            pool.submit(_work, str(p), str(folder), level, limits, hidden, scratch, scheme, extras): p
                            for p in group
                        }
                        for future in as_completed(futures):
                            path = futures[future]
                            try:
                                record(future.result())
                            except BrokenProcessPool:
                                if not alone:
                                    broken.append(path)
                                else:
                                    record(_failed(path, folder, "the process grading it died (killed by the system?)"))
                            except Exception as error:  # noqa: BLE001 - one submission's failure stops nothing else
                                why = f"the grader failed on it: {type(error).__name__}: {error}"
                                record(_failed(path, folder, why))
                    except KeyboardInterrupt:
                        _stop(pool)
                        raise GradingInterrupted(graded, len(todo), results) from None
                    pool.shutdown(wait=True)
                if broken:
                    say(f"a grading process died: grading the {len(broken)} submissions it held again, one at a time")
                    rounds.append((broken, True))
        finally:
            bar.close()
            shutil.rmtree(scratch, ignore_errors=True)
            sweep_cgroups()  # those of workers killed (an interrupt, the system)
    rows = [done[key] for key in sorted(digests) if key in done]
    attach_copies(rows, folder)  # the whole class's: worked out again on every run, never stored
    write_csv(rows, out)
    return rows
