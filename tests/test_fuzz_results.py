"""Every results reader against damaged and hostile files: a one-line error, a repair with a warning, or the
right games; never a traceback, a hang, or a wrong answer accepted in silence.

The readers: a match resumed from its file (:func:`play_match` with ``out=``), a finished match read back
(:func:`read_match`, which must also leave the file alone), a round robin resumed from its file, and notebook
09's equal-time results (:func:`timed_match` with ``play=False``, as the notebook reads its stored games).
Each probe is classified; the test fails on anything but "clean", and prints the counts
(``pytest -s tests/test_fuzz_results.py``).
"""

from __future__ import annotations

import json
import random
import signal
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from mctslab.course.experiments import improvements as imp
from mctslab.tournament import ResultsFileWarning, play_match, read_match, round_robin

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="a hang is caught with SIGALRM")

DATA = Path(__file__).resolve().parents[1] / "notebooks" / "data" / imp.STORED_GAMES
GAME, A, B, GAMES, SEED = "tictactoe", "flat:playouts=4", "random", 6, 3
RR_AGENTS, RR_GAMES = ["random", "flat:playouts=4", "flat:playouts=8"], 2
TIMED = imp.TIMED_MATCHES[1]  # rave against UCT at 0.02 s per move on Ultimate Tic-Tac-Toe
TIMED_GAMES = 4
HANG_SECONDS = 20


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def _fingerprint(results) -> list[tuple]:
    """What a reader must get right about each game (seconds are the clock's: checked apart)."""
    return [(r.key, r.a_first, r.moves, r.winner, r.returns, r.iterations) for r in results]


def _classify(read: Callable[[], list], truth: list[tuple], path: Path, read_only: bool) -> str:
    """Run one reader on ``path`` and say how it did: clean, traceback, hang or accepted (a wrong answer)."""
    before = path.read_bytes() if path.exists() else None
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResultsFileWarning)  # a repaired last line: its game is played again
            results = read()
    except ValueError as err:  # ResultsFileError, or timed_match's own one-line refusals
        outcome = "clean" if "\n" not in str(err) else "traceback"
    except _Hang:
        outcome = "hang"
    except Exception as err:  # noqa: BLE001 - anything else is what this test looks for
        outcome = f"traceback ({type(err).__name__}: {err})"
    else:
        sound = all(min(r.seconds) >= 0 for r in results)
        outcome = "clean" if _fingerprint(results) == truth and sound else "accepted"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if read_only and (path.read_bytes() if path.exists() else None) != before:
        outcome = "accepted (a reader changed the file)"
    return outcome


# -- the damage ----------------------------------------------------------------------------------------
def _edit(field: str, value) -> Callable[[dict], dict]:
    return lambda d: {**d, field: value}


def _drop(field: str) -> Callable[[dict], dict]:
    return lambda d: {k: v for k, v in d.items() if k != field}


GAME_LINE_EDITS: dict[str, Callable[[dict], dict]] = {
    **{f"winner={v!r}": _edit("winner", v) for v in ("x", 1, True, [])},
    "winner flipped": lambda d: {**d, "winner": {"a": "b", "b": "a", None: "a"}[d["winner"]]},
    "returns swapped": lambda d: {**d, "returns": d["returns"][::-1]} if d["winner"] else {**d, "returns": [1.0, 0.0]},
    **{f"returns={v!r}": _edit("returns", v) for v in ([1, 1], ["1", 0], [1], None, [-1, 2], [1e400, 0])},
    **{f"seconds={v!r}": _edit("seconds", v) for v in ([float("nan"), 0], [1e400, 0], [-1, 0], ["0", 0], [0], {})},
    **{f"index={v!r}": _edit("index", v) for v in ("1", 1.0, -1, True, 10**30, None)},
    **{f"pair={v!r}": _edit("pair", v) for v in (1, -1, "0", None)},
    "a_first flipped": lambda d: {**d, "a_first": not d["a_first"]},
    "a_first=1": _edit("a_first", 1),
    "moves=[]": _edit("moves", []),
    "moves cut": lambda d: {**d, "moves": d["moves"][:-1], "plies": len(d["moves"]) - 1},
    "moves extended": lambda d: {**d, "moves": [*d["moves"], 0], "plies": len(d["moves"]) + 1},
    "illegal move": lambda d: {**d, "moves": [d["moves"][0], *d["moves"][:-1]]},
    **{f"moves={v!r}": _edit("moves", v) for v in (["0"], [0.0], [10**40], [[0]], "012", None, [-1])},
    "plies wrong": lambda d: {**d, "plies": d["plies"] + 1},
    "an unknown field": lambda d: {**d, "comment": "ok"},
    "iterations' name damaged": lambda d: {**_drop("iterations")(d), ")terations": d.get("iterations")},
    **{f"iterations={v!r}": _edit("iterations", v) for v in ([-1, 2], ["1", 2], [1], [1.5, 2], "12")},
    **{f"no {k}": _drop(k) for k in ("pair", "index", "a_first", "winner", "returns", "seconds", "moves")},
}
RAW_LINES: dict[str, str] = {
    "a JSON list": "[]",
    "a JSON string": '"game"',
    "null": "null",
    "a number": "1e999",
    "empty line": "",
    "spaces": "   ",
    "not JSON": "{pair: 0}",
    "nested 100000 deep": "[" * 100_000 + "]" * 100_000,
    "NaN literal": '{"pair": NaN}',
    "NUL bytes": "\0\0\0",
    "a megabyte of digits": "1" * 1_000_000,
}
NEUTRAL_EDITS: dict[str, Callable[[str], str]] = {
    "keys reordered": lambda line: json.dumps(dict(reversed(list(json.loads(line).items())))),
    "spaces inside": lambda line: json.dumps(json.loads(line), indent=None, separators=(" , ", " : ")),
}


def _variants(text: str) -> dict[str, tuple[str | bytes, bool]]:
    """``name -> (damaged file, damaged?)`` for a results file ``text`` (header, then game lines)."""
    header, *games = text.splitlines()
    out: dict[str, tuple[str | bytes, bool]] = {}

    def with_line(where: int, line: str) -> str:
        lines = [header, *games]
        lines[where] = line
        return "\n".join(lines) + "\n"

    for where, label in ((2, "middle"), (len(games), "last")):
        for name, edit in GAME_LINE_EDITS.items():
            out[f"{label}: {name}"] = (with_line(where, json.dumps(edit(json.loads(games[where - 1])))), True)
        for name, raw in RAW_LINES.items():
            out[f"{label}: {name}"] = (with_line(where, raw), True)
        for name, edit in NEUTRAL_EDITS.items():
            out[f"{label}: {name} (neutral)"] = (with_line(where, edit(games[where - 1])), False)
    whole = text.encode()
    rng = random.Random(30)
    for cut in sorted({1, len(header), len(header) + 1, len(whole) - 1, *rng.sample(range(2, len(whole) - 1), 12)}):
        out[f"cut at byte {cut}"] = (whole[:cut], cut < len(whole))
    for k in range(12):
        at = rng.randrange(len(whole))
        flipped = bytearray(whole)
        flipped[at] ^= 1 << rng.randrange(8)
        out[f"bit flip {k} at byte {at}"] = (bytes(flipped), True)
    out["a game repeated at the end"] = (text + games[0] + "\n", True)
    out["a game repeated in the middle"] = ("\n".join([header, games[0], *games]) + "\n", True)
    out["two games swapped (neutral)"] = ("\n".join([header, games[1], games[0], *games[2:]]) + "\n", False)
    out["CRLF line ends (neutral)"] = (text.replace("\n", "\r\n"), False)
    out["a UTF-8 byte order mark"] = (b"\xef\xbb\xbf" + whole, True)
    out["invalid UTF-8 in the last line"] = (whole[:-3] + b"\xff\xfe\n", True)
    out["empty"] = ("", True)
    out["header only"] = (header + "\n", True)
    out["header without its newline"] = (header, True)
    out["games without a header"] = ("\n".join(games) + "\n", True)
    h = json.loads(header)
    for name, value in {
        "not JSON": "{format",
        "a list": "[]",
        "another format": json.dumps({**h, "format": "other"}),
        "another version": json.dumps({**h, "version": 2}),
        "another seed": json.dumps({**h, "seed": {"entropy": 99, "spawn_key": []}}),
        "other agents": json.dumps({**h, "agents": h["agents"][::-1]}),
        "another game": json.dumps({**h, "game": "connect4"}),
        "no seed": json.dumps({k: v for k, v in h.items() if k != "seed"}),
        "nested 100000 deep": "[" * 100_000 + "]" * 100_000,
        "an unknown key (neutral)": json.dumps({**h, "weights_sha256": {}}),
    }.items():
        out[f"header: {name}"] = ("\n".join([value, *games]) + "\n", "neutral" not in name)
    return out


# -- the readers ---------------------------------------------------------------------------------------
def _match_readers(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    truth = _fingerprint(play_match(GAME, A, B, games=GAMES, seed=SEED, workers=1, out=path, progress=False).results)
    text = path.read_text()

    def resume():
        return play_match(GAME, A, B, games=GAMES, seed=SEED, workers=1, out=path, progress=False).results

    def read():
        return read_match(GAME, A, B, GAMES, SEED, out=path).results

    return text, path, truth, [("match resumed", resume, False), ("match read", read, True)]


def _round_robin_readers(tmp_path: Path):
    path = tmp_path / "rr.jsonl"

    def resume():
        result = round_robin(GAME, RR_AGENTS, games=RR_GAMES, seed=SEED, workers=1, out=path, progress=False)
        return sorted((g for m in result.matches.values() for g in m.results), key=lambda r: r.key)

    truth = _fingerprint(resume())
    return path.read_text(), path, truth, [("round robin resumed", resume, False)]


def _timed_readers(tmp_path: Path):
    folder = tmp_path / "timed"
    folder.mkdir()
    path = folder / TIMED.filename
    text = "".join((DATA / TIMED.filename).read_text().splitlines(True)[: 1 + TIMED_GAMES])
    path.write_text(text)

    def read():
        match = imp.timed_match(TIMED, folder, games=TIMED_GAMES, play=False)  # as imp.reach reads every game
        match.iterations_per_move(), match.seconds_per_move()  # what the notebook shows from them
        return match.result.results

    truth = _fingerprint(read())
    return text, path, truth, [("timed read", read, True)]


def _probe(make_readers, tmp_path: Path) -> Counter:
    text, path, truth, readers = make_readers(tmp_path)
    counts: Counter = Counter()
    failures = []
    for name, (content, _) in _variants(text).items():
        for label, read, read_only in readers:
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, newline="")
            outcome = _classify(read, truth, path, read_only)
            counts["tried"] += 1
            counts[outcome.split(" (")[0]] += 1
            if outcome != "clean":
                failures.append(f"{label} / {name}: {outcome}")
    print(f"\n{make_readers.__name__[1:]}: {dict(counts)}", file=sys.stderr)
    assert not failures, "\n".join(failures[:20])
    return counts


def test_match_results_files(tmp_path):
    _probe(_match_readers, tmp_path)


def test_round_robin_results_files(tmp_path):
    _probe(_round_robin_readers, tmp_path)


def test_equal_time_results_of_notebook_09(tmp_path):
    _probe(_timed_readers, tmp_path)
