"""What a results file's writer does to the file itself: errors as one line, the lock, whole writes.

Kept apart from :mod:`~mctslab.tournament.results_file` (what the file holds and how it is
checked): the path checks, the one-line :class:`ResultsFileError` for what the file system
refuses, the exclusive ``flock`` that makes one run the file's only writer, and writes that
never stop half-way.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = [
    "ResultsFileBusyError",
    "ResultsFileError",
    "check_path",
    "lock_exclusively",
    "lock_shared",
    "os_error",
    "quoted",
    "write_all",
]


class ResultsFileError(ValueError):
    """A results file that cannot be used: written by another run, or damaged before its last line."""


class ResultsFileBusyError(ResultsFileError):
    """The results file is being written by another run (it holds the file's lock)."""


def os_error(path: Path, doing: str, err: OSError) -> ResultsFileError:
    """A file-system error as one line: what was being done, to which file, and why."""
    why = err.strerror or str(err)
    if err.errno == errno.ENOSPC:
        why += " (the disk is full: free some space, then run the same command to resume)"
    elif err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why += " (use a file in a directory you can write to)"
    elif err.errno == errno.ENAMETOOLONG:
        why += " (use a shorter name)"
    elif err.errno in (errno.ENOTDIR, errno.EEXIST):
        why += " (a part of the path is a file, not a directory)"
    return ResultsFileError(f"cannot {doing} results file {quoted(path)}: {why}")


def quoted(path: Path) -> str:
    """The path for a message, quoted, its middle cut if it is very long."""
    text = str(path)
    return repr(text if len(text) <= 80 else f"{text[:40]}...{text[-30:]}")


def lock_exclusively(fd: int, path: Path, busy: Callable[[], Exception] | None = None) -> None:
    """Take the exclusive ``flock`` on ``fd`` (none on a system or file system without locks).

    Args:
        fd: the open file.
        path: its path, for the message.
        busy: the error to raise when another run holds the lock (default: a
            :class:`ResultsFileBusyError` naming the results file).

    Raises:
        ResultsFileBusyError: (or ``busy()``) if another run holds it.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if busy is not None:
            raise busy() from None
        raise ResultsFileBusyError(
            f"results file {quoted(path)} is being written by another run; wait for it to end "
            "(then run this command again to resume from it) or use another file"
        ) from None
    except OSError:  # a file system without locks: go on unlocked
        pass


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write only part)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def check_path(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it can name a results file (not checked on disk).

    Raises:
        TypeError: if it is not a string or path.
        ValueError: if it is empty.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"out must be a file name (a str or a path), got {path!r} (a {type(path).__name__})")
    if os.fspath(path) in ("", b""):
        raise ValueError("out must be a file name, got an empty one")
    return Path(path)


@contextlib.contextmanager
def lock_shared(path: Path) -> Iterator[None]:
    """Hold a shared ``flock`` on ``path`` while reading it: refused while a run writes it (no lock if missing).

    Raises:
        ResultsFileBusyError: if a run holds the file's (exclusive) lock.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # missing or unreadable: the read says why
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ResultsFileBusyError(
                f"results file {quoted(path)} is being written by a run; read it when that run has ended"
            ) from None
        except OSError:  # a file system without locks
            pass
        yield
    finally:
        os.close(fd)
