"""Results files: one JSON line per finished game, so a run can be stopped and resumed.

The first line is a header describing the run (game, agents, seed, seating); every
other line is one :class:`~mctslab.tournament.runner.GameResult`. Lines are written
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
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..games import Game, IllegalMoveError
from .runner import GameResult

FORMAT = "mctslab-results"
VERSION = 1


class ResultsFileError(ValueError):
    """A results file that cannot be used: written by another run, or damaged before its last line."""


class ResultsFileWarning(UserWarning):
    """A damaged last line was removed from a results file (its game will be played again)."""


def _record_to_json(result: GameResult) -> str:
    return json.dumps(
        {
            "pair": result.pair,
            "index": result.index,
            "a_first": result.a_first,
            "winner": result.winner,
            "returns": list(result.returns),
            "plies": result.plies,
            "seconds": [round(s, 6) for s in result.seconds],
            "moves": list(result.moves),
        },
        separators=(",", ":"),
    )


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
        self.path = Path(path)
        self.header = {"format": FORMAT, "version": VERSION, **header}
        self.game = game
        self.schedule = schedule

    def read(self) -> Contents:
        """Read and check the file without changing it.

        Returns:
            The :class:`Contents`: the finished games of the schedule, and whether the last
            line is damaged.

        Raises:
            ResultsFileError: another run's header, an unreadable header, or a damaged or
                duplicated game line before the last line.
        """
        if not self.path.exists() or self.path.stat().st_size == 0:
            return Contents({}, 0)
        data = self.path.read_bytes()
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
        if contents.end == 0:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(json.dumps(self.header) + "\n")
        elif contents.damage is not None:
            with open(self.path, "r+b") as f:
                f.truncate(contents.end)
            warnings.warn(
                f"{self.path}, line {contents.damaged_line}: {contents.damage}; removed it (the run was probably "
                "stopped while writing it): that game will be played again",
                ResultsFileWarning,
                stacklevel=4,  # the caller of play_match or round_robin (via play_schedule)
            )
        return contents.games

    def append(self, results: list[GameResult]) -> None:
        """Append finished games, one line each, and push them to disk."""
        with open(self.path, "a", encoding="utf-8") as f:
            f.write("".join(_record_to_json(r) + "\n" for r in results))
            f.flush()
            os.fsync(f.fileno())

    # -- checks ---------------------------------------------------------------------
    def _check_header(self, raw: bytes, complete: bool) -> None:
        try:
            if not complete:
                raise ValueError("it is incomplete")
            header = json.loads(raw)
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
        except ValueError:
            raise ValueError("the line is not valid JSON") from None
        try:
            pair, index, a_first, winner = d["pair"], d["index"], d["a_first"], d["winner"]
            returns, seconds, moves = d["returns"], d["seconds"], d["moves"]
            result = GameResult(
                pair=int(pair),
                index=int(index),
                a_first=bool(a_first),
                moves=tuple(int(m) for m in moves),
                winner=winner,
                returns=(float(returns[0]), float(returns[1])),
                seconds=(float(seconds[0]), float(seconds[1])),
            )
        except (KeyError, TypeError, IndexError, ValueError) as err:
            raise ValueError(f"the line is not a game record ({type(err).__name__}: {err})") from None
        if not isinstance(a_first, bool) or winner not in ("a", "b", None):
            raise ValueError("the line is not a game record (bad a_first or winner)")
        expected = self.schedule.get(result.key)
        if result.pair < 0 or result.index < 0 or (expected is not None and expected != result.a_first):
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
