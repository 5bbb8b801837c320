"""The ``grade`` subcommand: ``python -m mctslab grade SUBMISSIONS/ --out grades.csv [--html DIR] [--points FILE]``.

For a class in an LMS: ``--roster roster.csv`` (folder -> student, :mod:`.roster`), ``--canvas``
and ``--moodle`` gradebook files (:mod:`.lms`), ``--feedback DIR`` (a page per student to hand
back) and ``--extra-checks FILE`` (the instructor's own checks, :mod:`.extras`).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path

from .sandbox import WALL_EXTRA, WALL_PER_CPU_SECOND, Limits

__all__ = ["SUMMARY", "check_lms", "check_paths", "configure", "run"]

SUMMARY = "mark a folder of submitted notebooks against the course's exercise checks"


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not math.isfinite(value) or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 1 (CPU time)")
    return value


def _writable_parent(path: Path, what: str) -> None:
    parent = path.resolve().parent
    if parent.exists() and not parent.is_dir():
        raise ValueError(f"{what} {path}: {parent} is not a folder")
    existing = next((p for p in (parent, *parent.parents) if p.exists()), None)
    if existing is None or not os.access(existing, os.W_OK):
        raise ValueError(f"{what} {path}: cannot write in {existing or parent}")


def check_paths(submissions: Path, out: Path, html: Path | None) -> None:
    """Refuse, before any grading, paths the results could not be written to.

    Raises:
        ValueError: (one line) saying which path and why.
    """
    if not submissions.is_dir():
        raise ValueError(f"{submissions} is not a folder: give the folder of the submitted notebooks")
    if not str(out) or out.is_dir() or out.name in ("", ".", ".."):
        raise ValueError(f"--out {str(out)!r} is a folder: give the CSV file to write, e.g. --out grades.csv")
    if out.suffix.lower() != ".csv":
        raise ValueError(f"--out {out}: give a file ending in .csv (the results go beside it, in .results.jsonl)")
    _writable_parent(out, "--out")
    if html is not None:
        if not str(html) or (html.exists() and not html.is_dir()):
            raise ValueError(f"--html {str(html)!r} is not a folder: give the folder to write the report into")
        _writable_parent(html / "index.html", "--html")


def _csv_output(path: Path, option: str, taken: dict[str, Path]) -> None:
    if not str(path) or path.is_dir() or path.suffix.lower() != ".csv":
        raise ValueError(f"{option} {str(path)!r}: give a file ending in .csv to write")
    _writable_parent(path, option)
    for other, where in taken.items():
        if path.resolve() == where.resolve():
            raise ValueError(f"{option} {path} is also {other}: give each output its own file")
    taken[option] = path


def check_lms(args: argparse.Namespace) -> None:
    """Refuse, before any grading, bad roster, gradebook, feedback and extra-checks options (one line each).

    Raises:
        ValueError: (one line) saying which option and why.
    """
    if (args.canvas or args.moodle) and args.roster is None:
        raise ValueError("--canvas and --moodle need --roster roster.csv: which folder is which student")
    if args.assignment and not (args.canvas or args.moodle):
        raise ValueError("--assignment names gradebook columns: give --canvas or --moodle too")
    results = args.out.with_name(args.out.stem + ".results.jsonl")  # batch.results_path, without importing nbclient
    taken = {"--out": args.out, "the results file": results}
    for option, path in (("--canvas", args.canvas), ("--moodle", args.moodle)):
        if path is not None:
            _csv_output(path, option, taken)
    if args.feedback is not None:
        folder = args.feedback
        if not str(folder) or (folder.exists() and not folder.is_dir()):
            raise ValueError(f"--feedback {str(folder)!r} is not a folder: give the folder to write the pages into")
        if args.html is not None and folder.resolve() == args.html.resolve():
            raise ValueError(f"--feedback {folder} is also --html: the students' pages go in a folder of their own")
        _writable_parent(folder / "index.html", "--feedback")
    if args.extra_checks is not None and args.points is None:
        raise ValueError(
            "--extra-checks needs --points FILE giving each extra check its points (extra_ucb1 = 5 under [points.04b])"
        )


def _workers(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers (a whole number >= 1)")
    return int(text)


def _whole(least: int, what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isdigit() or int(text) < least:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what} (a whole number >= {least})")
        return int(text)

    return parse


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``grade`` options to ``parser``."""
    parser.add_argument("submissions", type=Path, help="folder of .ipynb submissions (sub-folders too)")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"), help="the CSV to write (default grades.csv)")
    parser.add_argument("--html", type=Path, default=None, metavar="REPORT_DIR", help="also write an HTML report here")
    parser.add_argument("--workers", type=_workers, default=2, help="submissions graded at once (default 2)")
    parser.add_argument(
        "--cell-timeout",
        type=_positive,
        default=Limits.cell,
        help=f"seconds of CPU time per cell (default 60); a cell that waits without working is stopped after "
        f"{WALL_PER_CPU_SECOND:g} x this + {WALL_EXTRA:g} s of wall-clock time",
    )
    parser.add_argument(
        "--notebook-timeout",
        type=_positive,
        default=Limits.notebook,
        help=f"seconds of CPU time per run of a notebook (default 240); wall-clock backstop "
        f"{WALL_PER_CPU_SECOND:g} x this + {WALL_EXTRA:g} s",
    )
    parser.add_argument(
        "--memory-limit",
        type=_whole(64, "MB"),
        default=Limits.memory_mb,
        metavar="MB",
        help=f"MB of memory a submission's processes may hold together, its kernel included (default "
        f"{Limits.memory_mb}); past it the cell is left out, flagged memory",
    )
    parser.add_argument(
        "--disk-limit",
        type=_whole(1, "MB"),
        default=Limits.disk_mb,
        metavar="MB",
        help=f"MB of files a submission may write (default {Limits.disk_mb}); past it: flagged disk",
    )
    parser.add_argument(
        "--process-limit",
        type=_whole(1, "processes"),
        default=Limits.processes,
        metavar="N",
        help=f"processes a submission may run at once besides its kernel (default {Limits.processes}); "
        "past it: flagged processes",
    )
    parser.add_argument(
        "--sandbox", choices=("auto", "bwrap", "rlimits"), default="auto", help="auto: bubblewrap where it works"
    )
    parser.add_argument(
        "--points",
        type=Path,
        default=None,
        metavar="FILE",
        help="the marking scheme, TOML: partial_credit = true|false and [points.04b] ucb1 = 10 ... "
        "(default: the package's points.py); a change marks every submission again",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PATTERN",
        help="grade again only the submissions whose path under SUBMISSIONS matches this glob "
        "(e.g. 'alice*/*'; repeatable); the others' rows are kept",
    )
    parser.add_argument(
        "--roster",
        type=Path,
        default=None,
        metavar="CSV",
        help="the class: a CSV with columns folder,id (and name, email, sis_id, login, section) saying whose "
        "folder under SUBMISSIONS is whose",
    )
    parser.add_argument(
        "--canvas",
        type=Path,
        default=None,
        metavar="CSV",
        help="also write Canvas's gradebook import file (needs --roster)",
    )
    parser.add_argument(
        "--moodle",
        type=Path,
        default=None,
        metavar="CSV",
        help="also write Moodle's grade import file (needs --roster)",
    )
    parser.add_argument(
        "--assignment",
        action="append",
        default=[],
        metavar="EXERCISE=NAME",
        help="the gradebook column of an exercise (default 'Notebook 04b'); for Canvas the assignment's name and "
        "id, e.g. '04b=UCT homework (4711)' (repeatable)",
    )
    parser.add_argument(
        "--feedback",
        type=Path,
        default=None,
        metavar="DIR",
        help="also write one HTML page per student to hand back: their diagnoses only, no copies' flags "
        "(named by roster id, else like the report's pages)",
    )
    parser.add_argument(
        "--extra-checks",
        type=Path,
        default=None,
        metavar="FILE",
        help="the instructor's own checks, a Python file of extra_<part>(target) functions returning "
        "(passed, message); each a column whose points --points gives",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Grade the folder; write the CSV (and the report); print a one-line summary.

    Raises:
        ValueError: for a folder that does not exist, or a sandbox that does not work here
            (``python -m mctslab`` prints it as one line, exit status 2).
    """
    check_paths(args.submissions, args.out, args.html)
    if args.notebook_timeout < args.cell_timeout:
        raise ValueError(
            f"--notebook-timeout {args.notebook_timeout:g} is shorter than --cell-timeout {args.cell_timeout:g}: "
            "a run holds many cells"
        )
    check_lms(args)
    from .extras import load_extras
    from .lms import assignment_names
    from .roster import load_roster
    from .scheme import default_scheme, load_scheme

    extras = load_extras(args.extra_checks) if args.extra_checks is not None else None
    names = extras.names() if extras is not None else None
    scheme = load_scheme(args.points, names) if args.points is not None else default_scheme()
    columns = assignment_names(args.assignment)
    roster = load_roster(args.roster) if args.roster is not None else None
    from .batch import GradingInterrupted, find_submissions, grade_folder  # nbclient and matplotlib: only when grading
    from .html import write_feedback, write_report
    from .lms import write_canvas, write_moodle

    if roster is not None:
        folder = args.submissions.resolve()
        mine, nobody = roster.match(str(p.relative_to(folder)) for p in find_submissions(folder))
        if nobody:
            listed = ", ".join(nobody)
            print(
                f"{len(nobody)} submissions have no row in {args.roster} (graded, in no gradebook): {listed}",
                file=sys.stderr,
            )
        missing = [s for s in roster.students if not mine[s.id]]
        if missing:
            listed = ", ".join(f"{s.id} ({s.folder})" for s in missing)
            print(
                f"{len(missing)} students of {args.roster} have no submission (0 in the gradebooks): {listed}",
                file=sys.stderr,
            )

    limits = Limits(
        cell=args.cell_timeout,
        notebook=args.notebook_timeout,
        memory_mb=args.memory_limit,
        disk_mb=args.disk_limit,
        processes=args.process_limit,
    )
    try:
        rows = grade_folder(
            args.submissions,
            args.out,
            args.workers,
            limits,
            sandbox=args.sandbox,
            progress=not args.no_progress,
            scheme=scheme,
            only=tuple(args.only),
            extras=extras,
            private=tuple(p for p in (args.extra_checks, args.roster) if p is not None),
        )
    except GradingInterrupted as stop:
        print(f"python -m mctslab grade: {stop}", file=sys.stderr)
        return 130
    print(f"{len(rows)} submissions graded into {args.out}")
    if args.html is not None:
        print(f"report: {write_report(rows, args.html)}")
    said: set[str] = set()
    for path, write in ((args.canvas, write_canvas), (args.moodle, write_moodle)):
        if path is not None and roster is not None:
            for note in write(path, rows, roster, columns):
                if note not in said:
                    print(note, file=sys.stderr)
                    said.add(note)
            print(f"gradebook: {path} ({len(roster.students)} students)")
    if args.feedback is not None:
        pages = write_feedback(rows, args.feedback, roster)
        print(f"feedback: {len(pages)} pages in {args.feedback}")
    return 0
