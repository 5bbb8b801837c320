"""Bad and hostile inputs to the course tools (issue 30, items 2-4): each is a one-line error, nothing half-written.

Three surfaces, probed through what a user types or passes:

* ``python -m mctslab train`` (:mod:`mctslab.alphazero`): settings, folders, damaged files,
  interruptions, two runs on one folder;
* ``python -m mctslab course student OUT`` (:mod:`mctslab.course.editions`): links into the
  instructor edition, tags, malformed notebooks, bad output folders, a full disk;
* network files named by ``weights=`` (:mod:`mctslab.nets.files`): missing, a directory,
  empty, truncated, ``.npy``, pickles, NaN/inf/complex values, a zip bomb, replaced files.

A probe is *clean* when the command exits with status 2 and prints exactly one line,
``python -m mctslab ...: error: ...``, or the function raises a ValueError/TypeError whose
message is one line. Every probe here must be clean (or, for the hostile-but-legal inputs,
succeed without harming anything): a traceback, a hang or a silently accepted bad input
fails the test.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mctslab.cli import main
from mctslab.games import network_encoding

# -- helpers -------------------------------------------------------------------------------


def one_line_error(capsys, argv: list[str]) -> str:
    """Run the command; assert it exits 2 with one ``error:`` line on stderr; return that line."""
    rc = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert rc == 2, f"{argv}: exit {rc}, stderr {captured.err!r}"
    assert len(lines) == 1 and ": error: " in lines[0] and "Traceback" not in captured.err, captured.err
    return lines[0]


def one_line(err: BaseException) -> str:
    text = str(err)
    assert text and "\n" not in text, repr(text)
    return text


# -- training: python -m mctslab train -----------------------------------------------------
TINY = ["--rounds", "1", "--games-per-round", "2", "--steps-per-round", "2", "--iterations", "4",
        "--eval-every", "0", "--no-progress"]  # fmt: skip

BAD_SETTINGS = [
    ("--lr", "nan"), ("--lr", "-1"), ("--lr", "0"), ("--lr", "inf"), ("--buffer", "0"), ("--buffer", "-3"),
    ("--steps-per-round", "0"), ("--rounds", "0"), ("--hidden", "0"), ("--hidden", "-5"), ("--batch", "0"),
    ("--games-per-round", "0"), ("--iterations", "0"), ("--eval-games", "0"), ("--eval-every", "-1"),
    ("--noise", "2"), ("--noise", "nan"), ("--alpha", "0"), ("--c", "-1"), ("--l2", "nan"), ("--seed", "-1"),
    ("--sample-moves", "-1"), ("--hidden", "100000000"), ("--lr", "abc"), ("--rounds", "1.5"),
]  # fmt: skip


@pytest.mark.parametrize(("flag", "value"), BAD_SETTINGS)
def test_train_refuses_bad_settings_before_writing_anything(tmp_path, capsys, flag, value):
    out = tmp_path / "run"
    line = one_line_error(capsys, ["train", "tictactoe", "--out", str(out), *TINY, flag, value])
    assert value in line or flag.lstrip("-").replace("-", "_") in line
    assert not out.exists()  # checked before anything is written


def test_a_refused_command_does_not_block_the_corrected_one(tmp_path, capsys):
    out = str(tmp_path / "run")
    one_line_error(capsys, ["train", "tictactoe", "--out", out, *TINY, "--lr", "1e300"])  # diverges
    assert not (tmp_path / "run" / "net.npz").exists()  # a NaN network is never written
    assert main(["train", "tictactoe", "--out", out, *TINY]) == 0
    assert (tmp_path / "run" / "net.npz").exists()


def test_a_diverging_run_never_writes_a_non_finite_network(tmp_path):
    from mctslab.alphazero.training import TrainConfig, train

    config = TrainConfig(rounds=2, games_per_round=2, steps_per_round=3, iterations=4, eval_every=0, lr=1e300)
    with pytest.raises(ValueError, match="diverged") as err:
        train(tmp_path, config, progress=False)
    assert "lower --lr" in one_line(err.value)
    assert not (tmp_path / "net.npz").exists() and not (tmp_path / "checkpoint.npz").exists()


@pytest.mark.parametrize("game", ["connect4", "nim", "nosuchgame"])
def test_train_checks_the_game_up_front(tmp_path, capsys, game):
    line = one_line_error(capsys, ["train", game, "--out", str(tmp_path / "run"), "--no-progress"])
    if game == "connect4":
        assert "--no-perfect" in line  # what is allowed
    assert not (tmp_path / "run").exists()


def _bad_out(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "a_file").write_text("x")
    return {
        "dev null": "/dev/null",
        "a file": str(tmp_path / "a_file"),
        "under a file": str(tmp_path / "a_file" / "run"),
        "too long": str(tmp_path / ("n" * 300)),
        "equals sign": str(tmp_path / "runs" / "lr=0.01"),
        "comma": str(tmp_path / "a,b"),
        "empty": "",
    }


@pytest.mark.parametrize("case", ["dev null", "a file", "under a file", "too long", "equals sign", "comma", "empty"])
def test_train_refuses_a_bad_out_folder(tmp_path, capsys, case):
    out = _bad_out(tmp_path)[case]
    one_line_error(capsys, ["train", "tictactoe", "--out", out, *TINY])
    assert not (tmp_path / "runs").exists() and not (tmp_path / "a,b").exists()


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("trained") / "run"
    assert main(["train", "tictactoe", "--out", str(out), *TINY]) == 0
    return out


DAMAGES = ["config not json", "config a list", "config missing", "checkpoint truncated", "checkpoint empty",
           "checkpoint not npz", "checkpoint wrong arrays", "log damaged"]  # fmt: skip


@pytest.mark.parametrize("damage", DAMAGES)
def test_train_refuses_a_damaged_run_folder(tmp_path, capsys, trained, damage):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(trained, out)
    target, data = {
        "config not json": ("config.json", b'{"lr": '),
        "config a list": ("config.json", b"[]"),
        "checkpoint truncated": ("checkpoint.npz", (trained / "checkpoint.npz").read_bytes()[:500]),
        "checkpoint empty": ("checkpoint.npz", b""),
        "checkpoint not npz": ("checkpoint.npz", b"\x93NUMPY not an archive"),
        "checkpoint wrong arrays": ("checkpoint.npz", _npz(rounds_done=np.array(1), x=np.zeros(3))),
        "log damaged": ("log.jsonl", b'{"kind": "round", "round": 1}\n{"kind": \n'),
        "config missing": ("config.json", None),
    }[damage]
    if data is None:
        (out / target).unlink()
    else:
        (out / target).write_bytes(data)
    one_line_error(capsys, ["train", "tictactoe", "--out", str(out), *TINY, "--rounds", "2"])


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_fewer_rounds_than_trained_are_refused(tmp_path, capsys):
    out = str(tmp_path / "run")
    assert main(["train", "tictactoe", "--out", out, *TINY, "--rounds", "2"]) == 0
    capsys.readouterr()
    assert "trained 2 rounds already" in one_line_error(capsys, ["train", "tictactoe", "--out", out, *TINY])
    assert json.loads((tmp_path / "run" / "config.json").read_text())["rounds"] == 2


def test_a_second_run_on_the_same_folder_is_refused(tmp_path, capsys):
    from mctslab.alphazero import folder

    out = tmp_path / "run"
    out.mkdir()
    with folder.lock(out):  # another train holds the folder
        line = one_line_error(capsys, ["train", "tictactoe", "--out", str(out), *TINY])
    assert "another run" in line
    assert main(["train", "tictactoe", "--out", str(out), *TINY]) == 0  # the lock went with it


def test_an_interrupted_evaluation_loses_no_round_and_says_how_to_resume(tmp_path, capsys, monkeypatch):
    """Ctrl-C in round 2's evaluation: round 1 is kept, the advice is training's, the resumed run is the same."""
    from mctslab.alphazero import training

    args = ["train", "tictactoe", "--rounds", "2", "--games-per-round", "2", "--steps-per-round", "2",
            "--iterations", "4", "--eval-every", "1", "--eval-games", "2", "--no-progress"]  # fmt: skip
    real = training.evaluate
    calls = []

    def evaluate(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(training, "evaluate", evaluate)
    assert main([*args, "--out", str(tmp_path / "a")]) == 130
    err = capsys.readouterr().err
    assert "1 of 2 rounds are saved" in err and "run the same command again" in err and "games" not in err
    log = training.read_log(tmp_path / "a")
    assert [r["round"] for r in log] == [1] and "eval" in log[0]
    monkeypatch.setattr(training, "evaluate", real)
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0  # never interrupted
    assert training.read_log(tmp_path / "a") == [
        {**r, "seconds": s["seconds"]}
        for r, s in zip(training.read_log(tmp_path / "b"), training.read_log(tmp_path / "a"), strict=True)
    ]


def test_a_record_past_the_checkpoint_is_dropped_on_resume(tmp_path):
    """Stopped between writing the log line and the checkpoint: the round is played again, logged once."""
    from mctslab.alphazero.training import TrainConfig, read_log, train

    config = TrainConfig(rounds=1, games_per_round=2, steps_per_round=2, iterations=4, eval_every=0)
    train(tmp_path, config, progress=False)
    log = (tmp_path / "log.jsonl").read_text()
    (tmp_path / "log.jsonl").write_text(log + log.replace('"round": 1', '"round": 2'))  # round 2 logged, not saved
    train(tmp_path, TrainConfig(**{**config.__dict__, "rounds": 2}), progress=False)
    assert [r["round"] for r in read_log(tmp_path)] == [1, 2]


def test_a_full_disk_while_training_is_one_line_and_keeps_the_previous_files(tmp_path, capsys, monkeypatch):
    from mctslab.alphazero import folder

    out = tmp_path / "run"
    assert main(["train", "tictactoe", "--out", str(out), *TINY]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = os.fdopen

    class Full(io.BytesIO):
        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(
        folder.os, "fdopen", lambda fd, mode: (os.close(fd), Full())[1] if "w" in mode else real(fd, mode)
    )
    line = one_line_error(capsys, ["train", "tictactoe", "--out", str(out), *TINY, "--rounds", "2"])
    assert "No space left on device" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the previous files, whole; no temporary one
    monkeypatch.undo()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    # np.savez_compressed into net.npz: a failure there leaves the previous network (written atomically).
    from mctslab.nets.network import PolicyValueNet

    net = PolicyValueNet.load(out / "net.npz")
    monkeypatch.setattr(np, "savez_compressed", lambda f, **a: (f.write(b"PK\x03"), _raise_enospc()))
    with pytest.raises(OSError):
        net.save(out / "net.npz")
    assert (out / "net.npz").read_bytes() == before["net.npz"]
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def _raise_enospc():
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_net_npz_is_replaced_not_written_through_a_link(tmp_path):
    from mctslab.nets.network import PolicyValueNet

    precious = tmp_path / "precious.npz"
    precious.write_bytes(b"do not touch")
    (tmp_path / "net.npz").symlink_to(precious)
    PolicyValueNet(3, 2, 4).save(tmp_path / "net.npz")
    assert precious.read_bytes() == b"do not touch"
    assert PolicyValueNet.load(tmp_path / "net.npz").shape == (3, 4, 2)


# -- course student OUT ----------------------------------------------------------------------
def _cell(kind: str, source: str, tags=None, **extra) -> dict:
    cell = {"cell_type": kind, "id": hashlib.md5(source.encode()).hexdigest()[:8], "metadata": {}, "source": source}
    if tags is not None:
        cell["metadata"]["tags"] = tags
    if kind == "code":
        cell |= {"outputs": [], "execution_count": None}
    return cell | extra


def _notebook(*cells: dict) -> dict:
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _write(path: Path, notebook) -> None:
    path.write_text(notebook if isinstance(notebook, str) else json.dumps(notebook))


@pytest.fixture
def source(tmp_path) -> Path:
    """A small instructor edition: two notebooks with solutions, and a data folder."""
    src = tmp_path / "src"
    (src / "data" / "sub").mkdir(parents=True)
    _write(src / "a.ipynb", _notebook(_cell("markdown", "# A"), _cell("code", "ANSWER_A = 42", ["solution"])))
    _write(src / "b.ipynb", _notebook(_cell("code", "ANSWER_B = 7", ["solution", "hide"]), _cell("code", "x = 1")))
    (src / "data" / "sub" / "games.jsonl").write_text('{"game": 1}\n')
    return src


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
def test_course_student_never_writes_through_links_onto_the_sources(tmp_path, source, kind):
    before = _snapshot(source)
    out = tmp_path / "out"
    (out / "data" / "sub").mkdir(parents=True)
    for name in [*before]:
        link = out / name
        (link.symlink_to if kind == "symlink" else link.hardlink_to)(source / name)
    assert main(["course", "student", str(out), "--notebooks", str(source)]) == 0
    assert _snapshot(source) == before  # every solution still there
    student = json.loads((out / "a.ipynb").read_text())
    assert "ANSWER_A" not in json.dumps(student) and not (out / "a.ipynb").is_symlink()


@pytest.mark.parametrize("how", ["the same folder", "a link to it", "its parent", "data linked back"])
def test_course_student_refuses_an_out_that_is_contains_or_links_to_the_sources(tmp_path, capsys, source, how):
    before = _snapshot(source)
    if how == "the same folder":
        out = source
    elif how == "a link to it":
        out = tmp_path / "link"
        out.symlink_to(source)
    elif how == "its parent":
        out = tmp_path
    else:
        out = tmp_path / "out"
        out.mkdir()
        (out / "data").symlink_to(source / "data")
    one_line_error(capsys, ["course", "student", str(out), "--notebooks", str(source)])
    assert _snapshot(source) == before
    if how == "data linked back":
        assert sorted(p.name for p in out.iterdir()) == ["data"]  # nothing written


@pytest.mark.parametrize("tags", ["solution", "Solution", ["SOLUTION"], [" solution "], ["Solution", "x"]])
def test_a_solution_tag_in_any_form_is_dropped(tmp_path, capsys, source, tags):
    _write(source / "c.ipynb", _notebook(_cell("code", "SECRET_SOLUTION = 1", tags), _cell("code", "y = 2", "hide")))
    assert main(["course", "student", str(tmp_path / "out"), "--notebooks", str(source)]) == 0
    assert "c.ipynb: 1 solution cells removed" in capsys.readouterr().out
    assert "SECRET_SOLUTION" not in (tmp_path / "out" / "c.ipynb").read_text()
    student = json.loads((tmp_path / "out" / "c.ipynb").read_text())
    assert [c["metadata"]["tags"] for c in student["cells"]] == [["hide"]]  # a valid notebook: tags a list


BAD_NOTEBOOKS = {
    "tags null": _notebook(_cell("code", "x", None) | {"metadata": {"tags": None}}),
    "tags a number": _notebook(_cell("code", "x", 3)),
    "tags a list of numbers": _notebook(_cell("code", "x", [1, 2])),
    "tags a dict": _notebook(_cell("code", "x", {"solution": True})),
    "metadata a list": _notebook(_cell("code", "x") | {"metadata": ["solution"]}),
    "not a notebook (object)": {"a": 1},
    "not a notebook (list)": [1, 2, 3],
    "cells not a list": {"cells": "solution", "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
    "cell not an object": _notebook("x"),
    "cell without type": {"cells": [{"source": "x"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
    "source a number": _notebook(_cell("code", "x") | {"source": 5}),
    "outputs not a list": _notebook(_cell("code", "x") | {"outputs": "x"}),
    "not json": "this is not json",
    "empty file": "",
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "deep metadata": json.dumps(_notebook(_cell("code", "x"))).replace(
        '"metadata": {}', '"metadata": {"a": ' + "[" * 3000 + "]" * 3000 + "}", 1
    ),
    "nbformat 3": {"worksheets": [], "metadata": {}, "nbformat": 3, "nbformat_minor": 0},
    "binary": "\udcff\x00",
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_NOTEBOOKS))
def test_course_student_refuses_a_malformed_notebook_before_writing(tmp_path, capsys, source, case):
    bad = BAD_NOTEBOOKS[case]
    if case == "binary":
        (source / "z.ipynb").write_bytes(b"\xff\xfe\x00notebook")
    else:
        _write(source / "z.ipynb", bad)
    line = one_line_error(capsys, ["course", "student", str(tmp_path / "out"), "--notebooks", str(source)])
    assert "z.ipynb" in line
    assert not (tmp_path / "out").exists()  # nothing written


def test_course_student_refuses_a_folder_named_ipynb(tmp_path, capsys, source):
    (source / "folder.ipynb").mkdir()
    one_line_error(capsys, ["course", "student", str(tmp_path / "out"), "--notebooks", str(source)])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", ["empty", "a file", "under a file", "/dev/full", "too long", "no notebooks"])
def test_course_student_refuses_a_bad_out(tmp_path, capsys, source, case, monkeypatch):
    # The current folder is one of this test's own: a snapshot of the repository (its .venv, its .git)
    # took seconds, and other tests running beside this one in parallel write there.
    (tmp_path / "cwd").mkdir()
    (tmp_path / "cwd" / "kept.txt").write_text("here before")
    monkeypatch.chdir(tmp_path / "cwd")
    (tmp_path / "a_file").write_text("x")
    outs = {"empty": "", "a file": str(tmp_path / "a_file"), "under a file": str(tmp_path / "a_file" / "x")}
    outs |= {"/dev/full": "/dev/full", "too long": str(tmp_path / ("n" * 300)), "no notebooks": str(tmp_path / "o")}
    out = outs[case]
    notebooks = str(tmp_path / "empty_src") if case == "no notebooks" else str(source)
    (tmp_path / "empty_src").mkdir()
    cwd = _snapshot(Path.cwd()) if case == "empty" else None
    one_line_error(capsys, ["course", "student", out, "--notebooks", notebooks])
    assert (tmp_path / "a_file").read_text() == "x"
    if cwd is not None:
        assert _snapshot(Path.cwd()) == cwd  # nothing written into the current folder


def test_course_student_on_a_full_disk_leaves_no_truncated_notebook(tmp_path, capsys, source, monkeypatch):
    out = tmp_path / "out"
    assert main(["course", "student", str(out), "--notebooks", str(source)]) == 0
    before = _snapshot(out)
    _write(source / "a.ipynb", _notebook(_cell("code", "z = 3 " * 1000)))  # a changed source: a new file to write
    import mctslab.course.notebook_files as files

    class Full(io.BytesIO):
        def write(self, data):
            super().write(data[:10])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    real = os.fdopen
    monkeypatch.setattr(
        files.os, "fdopen", lambda fd, mode: (os.close(fd), Full())[1] if "w" in mode else real(fd, mode)
    )
    line = one_line_error(capsys, ["course", "student", str(out), "--notebooks", str(source)])
    assert "No space left" in line
    assert _snapshot(out) == before  # the previous files, whole; no temporary file left


# -- weights files -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nets(tmp_path_factory) -> dict[str, Path]:
    """Network files good and bad, for tic-tac-toe."""
    from mctslab.games import make_game
    from mctslab.nets.network import PolicyValueNet

    d = tmp_path_factory.mktemp("nets")
    game = make_game("tictactoe")
    good = PolicyValueNet(len(network_encoding(game).features(game.initial_state())), 9, 8, seed=1)
    good.save(d / "good.npz")
    PolicyValueNet(len(network_encoding(game).features(game.initial_state())), 9, 8, seed=2).save(d / "other.npz")
    names = {"good": "good.npz", "other": "other.npz", "missing": "missing.npz", "directory": "dir.npz"}
    names |= {"empty": "empty.npz", "truncated": "truncated.npz", "npy": "one.npy", "text": "text.npz"}
    files = {k: d / v for k, v in names.items()}
    (d / "dir.npz").mkdir()
    (d / "empty.npz").write_bytes(b"")
    (d / "truncated.npz").write_bytes((d / "good.npz").read_bytes()[:300])
    np.save(d / "one.npy", np.zeros(3))
    (d / "text.npz").write_text("W1 = [[1, 2]]")
    for name, change in {
        "nan": lambda p: p["W1"].__setitem__((0, 0), np.nan),
        "inf": lambda p: p["bv"].__setitem__(0, np.inf),
        "complex": lambda p: p.__setitem__("b1", p["b1"] + 1j),
        "object (pickle)": lambda p: p.__setitem__("b2", np.array([None] * 8, dtype=object)),
        "missing array": lambda p: p.pop("wv"),
        "wrong shape": lambda p: p.__setitem__("W2", np.zeros((8, 7))),
        "strings": lambda p: p.__setitem__("bp", np.array(["a"] * 9)),
    }.items():
        params = {k: v.copy() for k, v in good.params.items()}
        change(params)
        files[name] = d / f"{name.replace(' ', '_')}.npz"
        with open(files[name], "wb") as f:
            np.savez(f, allow_pickle=True, **params) if name == "object (pickle)" else np.savez(f, **params)
    files["zip bomb"] = _zip_bomb(d / "bomb.npz")
    return files


def _zip_bomb(path: Path) -> Path:
    """A small .npz whose W1 decompresses to 12e6 x 1 float64 (96 MB): consistent shapes, too many parameters."""
    inputs, hidden, moves = 12_000_000, 1, 1
    shapes = {"b1": (hidden,), "W2": (hidden, hidden), "b2": (hidden,), "Wp": (hidden, moves), "bp": (moves,)}
    arrays = {k: np.zeros(v) for k, v in (shapes | {"wv": (hidden, 1), "bv": (1,)}).items()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in arrays.items():
            buf = io.BytesIO()
            np.save(buf, v)
            z.writestr(f"{k}.npy", buf.getvalue())
        with z.open("W1.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f8", "fortran_order": False, "shape": (inputs, hidden)})
            block = bytes(1 << 22)
            for _ in range(inputs * hidden * 8 // len(block)):
                f.write(block)
    assert path.stat().st_size < 1_000_000
    return path


BAD_WEIGHTS = ["missing", "directory", "empty", "truncated", "npy", "text", "nan", "inf", "complex",
               "object (pickle)", "missing array", "wrong shape", "strings", "zip bomb", "home"]  # fmt: skip


@pytest.mark.parametrize("case", BAD_WEIGHTS)
def test_a_bad_weights_file_is_refused_when_the_spec_is_made(nets, case):
    import tracemalloc

    from mctslab import make_agent
    from mctslab.specs import SpecError

    path = "~" if case == "home" else str(nets[case])
    tracemalloc.start()
    try:
        with pytest.raises(SpecError) as err:
            make_agent(f"puct:evaluator=net,weights={path}")  # before any game
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "weights file" in one_line(err.value)
    assert peak < 20_000_000  # the zip bomb is refused from its headers, not decompressed


def test_a_tournament_with_a_bad_weights_file_stops_before_its_first_game(tmp_path, capsys, nets):
    out = tmp_path / "rr.jsonl"
    line = one_line_error(capsys, ["tournament", "tictactoe", "random", "uct:iterations=4",
                                   f"puct:iterations=4,evaluator=net,weights={nets['nan']}",
                                   "--games", "2", "--out", str(out)])  # fmt: skip
    assert "non-finite" in line and not out.exists()


def test_weights_with_the_rollout_evaluator_are_refused(capsys, nets):
    line = one_line_error(capsys, ["move", "tictactoe", f"puct:iterations=4,weights={nets['good']}"])
    assert "evaluator=net" in line


def test_a_good_weights_file_plays(nets):
    from mctslab import make_agent
    from mctslab.games import make_game

    game = make_game("tictactoe")
    agent = make_agent(f"puct:iterations=8,evaluator=net,weights={nets['good']}", seed=0)
    assert agent.select_move(game, game.initial_state()) in game.legal_moves(game.initial_state())


def test_a_results_file_refuses_to_resume_with_a_replaced_weights_file(tmp_path, nets):
    import shutil

    from mctslab.tournament import play_match
    from mctslab.tournament.results_file import ResultsFileError

    net = tmp_path / "net.npz"
    shutil.copyfile(nets["good"], net)
    spec = f"puct:iterations=4,evaluator=net,weights={net}"
    out = tmp_path / "m.jsonl"
    play_match("tictactoe", spec, "random", games=2, seed=0, out=out, workers=1, progress=False)
    header = json.loads(out.read_text().splitlines()[0])
    assert header["weights"] == {str(net): "sha256:" + hashlib.sha256(net.read_bytes()).hexdigest()}
    # The same file: the run resumes (nothing to play). Another network under the same path: refused.
    play_match("tictactoe", spec, "random", games=2, seed=0, out=out, workers=1, progress=False)
    shutil.copyfile(nets["other"], net)
    with pytest.raises(ResultsFileError, match="weights"):
        play_match("tictactoe", spec, "random", games=4, seed=0, out=out, workers=1, progress=False)


def test_only_the_checked_members_are_read(tmp_path, nets):
    """An extra member ``W1`` (no ``.npy``), 240 MB unpacked: np.load would read it; load_weights reads W1.npy."""
    import tracemalloc

    from mctslab.nets.files import load_weights

    path = tmp_path / "extra.npz"
    with zipfile.ZipFile(nets["good"]) as good, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info in good.infolist():
            z.writestr(info.filename, good.read(info.filename))
        with z.open("W1", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f8", "fortran_order": False, "shape": (30_000_000,)})
            block = bytes(1 << 22)
            for _ in range(30_000_000 * 8 // len(block)):
                f.write(block)
    tracemalloc.start()
    try:
        params = load_weights(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert params["W1"].shape == load_weights(nets["good"])["W1"].shape
    assert peak < 20_000_000


def test_an_evaluation_that_does_not_finish_says_how_to_resume_training(tmp_path, capsys, monkeypatch):
    from mctslab.alphazero import training
    from mctslab.tournament import RunIncomplete

    def evaluate(*a, **k):
        raise RunIncomplete(3, 40, "a worker process was killed by SIGKILL")

    monkeypatch.setattr(training, "evaluate", evaluate)
    rc = main(["train", "tictactoe", "--out", str(tmp_path / "a"), *TINY, "--eval-every", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1
    assert "killed by SIGKILL" in err[0] and "0 of 1 rounds are saved" in err[0] and "--out FILE" not in err[0]
    assert not (tmp_path / "a" / "checkpoint.npz").exists()  # the round is played again on resume
