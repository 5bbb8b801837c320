"""The results files' locks held by this process, so that a forked worker can let go of them.

:meth:`ResultsFile.lock <mctslab.tournament.results_file.ResultsFile.lock>` adds the file
descriptor holding a results file's ``flock`` here; a pool worker
(:func:`mctslab.tournament.workers.init_worker`) closes its copies with :func:`release_inherited`:
an ``flock`` lasts while any copy of the descriptor is open, and a worker must not keep the
file locked after its run.
"""

from __future__ import annotations

import contextlib
import os

LOCKS: set[int] = set()
"""File descriptors holding a results file's lock in this process."""


def release_inherited() -> None:
    """Close this process's copies of the lock descriptors (in a forked worker) and forget them."""
    for fd in list(LOCKS):
        with contextlib.suppress(OSError):
            os.close(fd)
    LOCKS.clear()
