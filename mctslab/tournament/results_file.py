"""Results files: one JSON line per finished game, so a run can be stopped and resumed.

The first line is a header describing the run (game, agents, seed, seating); every
other line is one :class:`~mctslab.tournament.records.GameResult`. Lines are written
as batches of games finish, and flushed, so killing a run loses at most the games in
flight. Running the same command with the same file again reads the finished games and
plays only the others; since each game's seed depends only on its place in the
schedule, the totals are those of an uninterrupted run.

What is checked on reading, so that nothing is ever silently mis-counted:

* the header must describe the same run (otherwise :class:`ResultsFileError` says
  which field differs);
* every game line must parse, name a game of the schedule, sit in the seat the
  schedule gives it, appear once, and its moves, replayed, must end the game with the
  recorded winner;
* a damaged **last** line (the one being written when a run was killed) is not counted;
  when the run resumes (:meth:`ResultsFile.open_for_append`) it is removed from the file
  with a :class:`ResultsFileWarning` and that game is played again; a damaged line
  anywhere else is an error naming the line.

Reading a file never changes it; only opening it to append does.

What goes wrong with the file itself is one :class:`ResultsFileError` line too: a path
that is a directory, a device (``/dev/null`` would swallow every game, ``/dev/full``
refuses them), empty, too long, under a file or in a read-only directory; a disk that
fills up during the run stops it with the games written so far kept. And one file has
one writer: a run holds a lock on it (:meth:`ResultsFile.lock`), so a second run given
the same file stops at once with a message instead of interleaving its lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..games import Game, IllegalMoveError
from .files import (
    ResultsFileBusyError as ResultsFileBusyError,  # re-exported: its home before files.py
)
from .files import (
    ResultsFileError,
    check_path,
    lock_exclusively,
    os_error,
    quoted,
    write_all,
)
from .locks import LOCKS
from .records import GameResult, result_from_dict, result_to_json

FORMAT = "mctslab-results"
VERSION = 1


class ResultsFileWarning(UserWarning):
    """A damaged last line was removed from a results file (its game will be played again)."""


@dataclass(frozen=True)
class Contents:
    """What a results file holds, as :meth:`ResultsFile.read` finds it (nothing is changed).

    Attributes:
        games: ``(pair, index) -> GameResult`` for every valid game line whose game is in
            the schedule (lines for games beyond it, e.g. from a longer earlier run, stay
            in the file but are not returned).
        end: how many bytes at the start of the file are sound (the header and every valid
            game line); 0 if the file is missing or empty.
        damage: why the last line cannot be used (the run was probably stopped while
            writing it), or ``None`` if it can.
        damaged_line: that line's number (from 1), or ``None``.
    """

    games: dict[tuple[int, int], GameResult]
    end: int
    damage: str | None = None
    damaged_line: int | None = None


class ResultsFile:
    """A results file for one run: read what is there, then append as games finish.

    Reading (:meth:`read`, :meth:`load`) never changes the file; :meth:`open_for_append`
    writes the header of a new file or cuts a damaged last line, and :meth:`append` adds
    games.

    Args:
        path: the file (created with its header by :meth:`open_for_append` if missing or empty).
        header: what describes the run; a file whose header differs is refused.
        game: the game, to replay and check every recorded game.
        schedule: ``(pair, index) -> a_first`` for every game of the run: the seat the
            schedule gives agent A.

    Raises:
        ResultsFileError: see :meth:`read`.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        header: dict[str, Any],
        game: Game,
        schedule: Mapping[tuple[int, int], bool],
    ) -> None:
        self.path = check_path(path)
        self.header = {"format": FORMAT, "version": VERSION, **header}
        self.game = game
        self.schedule = schedule
        self._fd: int | None = None  # the descriptor holding the lock (its file is the one the run writes)

    def read(self) -> Contents:
        """Read and check the file without changing it.

        Returns:
            The :class:`Contents`: the finished games of the schedule, and whether the last
            line is damaged.

        Raises:
            ResultsFileError: another run's header, an unreadable header, or a damaged or
                duplicated game line before the last line.
        """
        data = self._read_bytes()
        if not data:
            return Contents({}, 0)
        lines = data.split(b"\n")
        complete = data.endswith(b"\n")
        if complete:
            lines.pop()  # the empty piece after the final newline
        self._check_header(lines[0], complete or len(lines) > 1)
        found: dict[tuple[int, int], GameResult] = {}
        offset = len(lines[0]) + 1
        for number, raw in enumerate(lines[1:], start=2):
            is_last = number == len(lines)
            try:
                if is_last and not complete:
                    raise ValueError("the line is incomplete (no newline at its end)")
                result = self._parse(raw)
                if result.key in found:
                    raise ValueError(f"game {result.key} appears twice")
            except ValueError as err:
                if not is_last:
                    raise ResultsFileError(
                        f"{self.path}, line {number}: {err}; the file is damaged before its last line, "
                        "so it cannot be resumed safely (repair or delete that line, or use another file)"
                    ) from None
                return Contents(found, offset, str(err), number)
            offset += len(raw) + 1
            if result.key in self.schedule:
                found[result.key] = result
        return Contents(found, offset)

    def load(self) -> dict[tuple[int, int], GameResult]:
        """The finished games of the schedule, ``(pair, index) -> GameResult`` (read only; see :meth:`read`).

        Raises:
            ResultsFileError: as :meth:`read`.
        """
        return self.read().games

    def open_for_append(self) -> dict[tuple[int, int], GameResult]:
        """Read the finished games, then make the file ready for :meth:`append`.

        A missing or empty file gets the run's header. A damaged last line is cut off,
        with a :class:`ResultsFileWarning`: its game is not returned, so it is played
        again.

        Returns:
            As :meth:`load`.

        Raises:
            ResultsFileError: as :meth:`read` (the file is then left as it was).
        """
        contents = self.read()
        try:
            if contents.end == 0:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "w", encoding="utf-8") as f:
                    f.write(json.dumps(self.header) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                self._check_regular()
            elif contents.damage is not None:
                with open(self.path, "r+b") as f:
                    f.truncate(contents.end)
        except OSError as err:
            raise os_error(self.path, "write", err) from None
        if contents.damage is not None:
            warnings.warn(
                f"{self.path}, line {contents.damaged_line}: {contents.damage}; removed it (the run was probably "
                "stopped while writing it): that game will be played again",
                ResultsFileWarning,
                stacklevel=4,  # the caller of play_match or round_robin (via play_schedule)
            )
        return contents.games

    def append(self, results: list[GameResult]) -> None:
        """Append finished games, one line each, and push them to disk.

        The file is never created here: a results file deleted during a run is written
        again from the copy the run's lock still holds (with a :class:`ResultsFileWarning`),
        never recreated without its header; one replaced by another file is refused.

        Raises:
            ResultsFileError: if they cannot be written (a full disk...): the games
                written before stay in the file (a line cut short is the damaged last
                line that resuming removes); or if the file was deleted (with no lock
                held) or replaced during the run.
        """
        data = "".join(result_to_json(r) + "\n" for r in results).encode()
        self._check_still_there()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)  # no O_CREAT: never a file without its header
        except FileNotFoundError:
            raise ResultsFileError(self._gone("was deleted")) from None
        except OSError as err:
            raise os_error(self.path, "write to", err) from None
        try:
            write_all(fd, data)
            os.fsync(fd)
        except OSError as err:
            raise os_error(self.path, "write to", err) from None
        finally:
            os.close(fd)

    def _gone(self, what: str) -> str:
        return (
            f"results file {quoted(self.path)} {what} during the run; stopped so as not to write games "
            "without their header (run the same command again to start it anew)"
        )

    def _check_still_there(self) -> None:
        """Make sure the file at :attr:`path` is the one this run locked; restore it if it was deleted.

        Raises:
            ResultsFileError: if another file took its place, or it cannot be restored.
        """
        if self._fd is None:
            return
        mine = os.fstat(self._fd)
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            self._restore(mine.st_size)
            return
        except OSError as err:
            raise os_error(self.path, "open", err) from None
        if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
            raise ResultsFileError(self._gone("was replaced by another file"))

    def _restore(self, size: int) -> None:
        """Write the deleted file again from the locked descriptor, lock the new file, and warn."""
        old = self._fd
        assert old is not None
        try:
            data = os.pread(old, size, 0)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            new = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError:
            raise ResultsFileError(self._gone("was deleted")) from None
        try:
            write_all(new, data)
            os.fsync(new)
            lock_exclusively(new, self.path)
        except BaseException:
            os.close(new)
            raise
        LOCKS.discard(old)
        os.close(old)
        self._fd = new
        LOCKS.add(new)
        games = max(0, data.count(b"\n") - 1)
        warnings.warn(
            f"results file {quoted(self.path)} was deleted during the run; wrote it again with its header and "
            f"the {games} games it held, and went on",
            ResultsFileWarning,
            stacklevel=2,
        )

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold this file's lock for the length of a run: one writer per file.

        The file (and its directory) is created if missing. The lock is an advisory
        ``flock`` (POSIX systems; elsewhere there is no lock), released when the block
        ends or the process dies, so a killed run never leaves a stale lock.

        Raises:
            ResultsFileBusyError: if another run holds the lock.
            ResultsFileError: if the file cannot be opened or is not a regular file.
        """
        self._check_regular()
        self._check_not_a_link()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        except OSError as err:
            raise os_error(self.path, "open", err) from None
        self._fd = fd
        try:
            self._check_regular(os.fstat(fd))
            lock_exclusively(fd, self.path)
            LOCKS.add(fd)
            yield
        finally:
            fd, self._fd = self._fd, None  # the file restored after a deletion holds it now
            LOCKS.discard(fd)
            os.close(fd)

    # -- the file itself --------------------------------------------------------------
    def _check_not_a_link(self) -> None:
        """Refuse a symbolic link, or an empty hard-linked file: never write through a link onto another file."""
        try:
            info = os.lstat(self.path)
        except OSError:  # missing (created here), or refused when opened
            return
        if stat.S_ISLNK(info.st_mode):
            what = "a symbolic link"
        elif info.st_nlink > 1 and info.st_size == 0:
            what = "an empty file with other names (a hard link)"
        else:
            return
        raise ResultsFileError(
            f"results file {quoted(self.path)} is {what}: a run writes its file in place, never through a link; "
            "give the name of a file of its own"
        )

    def _check_regular(self, info: os.stat_result | None = None) -> None:
        """Refuse a directory or a device (``/dev/null`` would swallow every game without a word)."""
        if info is None:
            try:
                info = self.path.stat()
            except FileNotFoundError:
                return
            except OSError as err:
                raise os_error(self.path, "open", err) from None
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device?)"
            raise ResultsFileError(f"results file {quoted(self.path)} is {kind}: give the name of a file to write")

    def _read_bytes(self) -> bytes:
        """The file's bytes; ``b""`` if it does not exist."""
        self._check_regular()
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as err:
            raise os_error(self.path, "read", err) from None

    # -- checks ---------------------------------------------------------------------
    def _check_header(self, raw: bytes, complete: bool) -> None:
        try:
            if not complete:
                raise ValueError("it is incomplete")
            try:
                header = json.loads(raw)
            except RecursionError:
                raise ValueError("its first line is nested too deeply") from None
            if not isinstance(header, dict) or header.get("format") != FORMAT:
                raise ValueError(f"its first line is not an {FORMAT} header")
        except ValueError as err:
            raise ResultsFileError(
                f"{self.path} is not a results file this run can resume ({err}); use another --out file"
            ) from None
        for key, want in self.header.items():
            if header.get(key) != want:
                raise ResultsFileError(
                    f"{self.path} holds the results of another run: its {key} is {header.get(key)!r}, "
                    f"this run's is {want!r}; use another output file, or delete it to start again"
                )

    def _parse(self, raw: bytes) -> GameResult:
        try:
            d = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested thousands deep
            raise ValueError("the line is not valid JSON") from None
        result = result_from_dict(d)
        expected = self.schedule.get(result.key)
        if expected is not None and expected != result.a_first:
            raise ValueError(f"game {result.key} is not seated as this run's schedule seats it")
        self._replay(result)
        return result

    def _replay(self, result: GameResult) -> None:
        try:
            state = self.game.state_from_moves(result.moves)
        except (IllegalMoveError, TypeError) as err:
            raise ValueError(f"its moves cannot be replayed ({err})") from None
        if not self.game.is_terminal(state):
            raise ValueError("its moves do not finish the game")
        seat = self.game.winner(state)
        a_seat = 0 if result.a_first else 1
        winner = None if seat is None else ("a" if seat == a_seat else "b")
        returns = self.game.returns(state)
        if winner != result.winner or (returns[a_seat], returns[1 - a_seat]) != result.returns:
            raise ValueError(f"its recorded result ({result.winner}) is not what its moves give ({winner})")
