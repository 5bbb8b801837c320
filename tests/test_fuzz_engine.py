"""Fuzzing the search surfaces (issue 30, items 5, 6 and 9): budgets, threads, inconsistent positions.

Every probe ends one of five ways: it works as documented, a clean one-line error, a
traceback (any other exception, or a message over several lines), a hang (a watchdog
interrupts it after :data:`HANG_SECONDS`), or a bad value silently accepted. The sweep
counts them and requires zero of the last three. Then one test per item:

* 5: the compiled engine sizes no allocation by the budget, stops within a second on
  Ctrl-C, and runs (with one warning) where Numba cannot write its cache; batched flat
  Monte Carlo plays a capped number of playouts per NumPy call;
* 6: an agent refuses a second concurrent search (every registered agent, in threads);
* 9: positions no game reaches are refused, for both engines, and a finished game is
  a clear error for every agent.
"""

from __future__ import annotations

import _thread
import math
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import mctslab.course  # noqa: F401  (registers the course's agents: the registry is iterated whole)
from mctslab import make_agent, make_game
from mctslab.agents import AGENTS, ConcurrentSearchError
from mctslab.agents.montecarlo import MAX_BATCH
from mctslab.engine import available
from mctslab.engine.warm import warm
from mctslab.games import IllegalMoveError, InvalidStateError
from mctslab.games.connect4 import ConnectFourState
from mctslab.games.stones import DRAWN, O_WON, ONGOING, X_WON
from mctslab.games.tictactoe import TicTacToeState
from mctslab.games.ultimate import ANYWHERE, UltimateState

ROOT = Path(__file__).resolve().parents[1]
HANG_SECONDS = 20.0
compiled_only = pytest.mark.skipif(not available(), reason="Numba is not installed: no compiled engine to fuzz")

# -- the probe harness ----------------------------------------------------------------


def outcome(probe: Callable[[], object], bad: bool) -> str:
    """How ``probe`` ended: "works", "clean", "traceback: ...", "hang" or "accepted" (a bad value taken)."""
    watchdog = threading.Timer(HANG_SECONDS, _thread.interrupt_main)
    watchdog.start()
    try:
        probe()
    except KeyboardInterrupt:
        return "hang"
    except (ValueError, TypeError, RuntimeError) as err:  # SpecError, InvalidStateError, ... are ValueErrors
        message = str(err)
        if not message or "\n" in message or isinstance(err, RuntimeError) and not bad:
            return f"traceback: {type(err).__name__}: {message!r}"
        return "clean" if bad else f"traceback: refused a good value: {message}"
    except Exception as err:  # noqa: BLE001 - counting exactly these is the point
        return f"traceback: {type(err).__name__}: {err}"
    finally:
        watchdog.cancel()
    return "accepted" if bad else "works"


def sweep(probes: list[tuple[str, Callable[[], object], bool]]) -> Counter:
    counts, faults = Counter(), []
    for name, probe, bad in probes:
        result = outcome(probe, bad)
        counts[result.split(":")[0]] += 1
        if result not in ("works", "clean"):
            faults.append(f"{name}: {result}")
    counts["tried"] = len(probes)
    print(dict(counts))  # the closing note's counts (pytest -s shows them)
    assert not faults, "\n".join(faults)
    return counts


# -- budgets --------------------------------------------------------------------------

BAD_NUMBERS = ["0", "-1", "nan", "inf", "-inf", "1e400", "abc", "", "true", "1e5x", "0x10", "--3"]
ZERO_ALLOWED = {"c", "noise"}  # an exploration constant or a noise weight may be 0
TTT = make_game("tictactoe")
MID = TTT.state_from_moves([0, 4])


def spec_probes() -> list[tuple[str, Callable[[], object], bool]]:
    """Every numeric parameter of every registered agent, given values that are not allowed."""
    probes = []
    for name, cls in sorted(AGENTS.items()):
        for p in cls.params:
            if p.parse not in (int, float):
                continue
            for text in BAD_NUMBERS:
                spec = f"{name}:{p.name}={text}"
                bad = not (text == "0" and p.name in ZERO_ALLOWED)
                probes.append((spec, lambda spec=spec: make_agent(spec, seed=0), bad))
    return probes


def engine_probes() -> list[tuple[str, Callable[[], object], bool]]:
    """The compiled engine's own entry points (``mctslab.engine.search``, ``random_results``) and agent."""
    from mctslab.engine import random_results, search

    def run(**budget):
        args = {"c": 1.4, "iterations": 100, "seconds": None, "max_moves": None, "seed": 0, **budget}
        return search(TTT, MID, **args)

    probes = []
    for value in (0, -1, 2**40, math.nan, math.inf, "100", 1.5, True):
        probes.append((f"search iterations={value!r}", lambda v=value: run(iterations=v), True))
    for value in (0.0, -1.0, math.nan, math.inf, "1"):
        probes.append((f"search seconds={value!r}", lambda v=value: run(iterations=None, seconds=v), True))
    for value in (math.nan, -1.0, math.inf, "1.4"):
        probes.append((f"search c={value!r}", lambda v=value: run(c=v), True))
    for value in (-1, 2**32, 0.5):
        probes.append((f"search seed={value!r}", lambda v=value: run(seed=v), True))
    probes.append(("search without a budget", lambda: run(iterations=None), True))
    probes.append(("search max_moves=0", lambda: run(max_moves=0), True))
    for value in (0, -3, 2.5, "9", None):
        probes.append((f"random_results playouts={value!r}", lambda v=value: random_results(TTT, MID, v, 0), True))
    probes.append(("random_results seed=-1", lambda: random_results(TTT, MID, 10, -1), True))
    for its in (2**31, 10**12):
        spec = f"uct:iterations={its},engine=compiled"
        probes.append((spec, lambda spec=spec: make_agent(spec, seed=0), True))
    # huge budgets that are allowed: they run (cut by the clock) without sizing anything by the budget
    probes.append(("search iterations=10**9,seconds=0.05", lambda: run(iterations=10**9, seconds=0.05), False))
    spec = "uct:iterations=1000000000,seconds=0.05,engine=compiled"
    probes.append((spec, lambda: make_agent(spec, seed=0).analyse(TTT, MID), False))
    probes.append(("random_results playouts=200000", lambda: random_results(TTT, MID, 200_000, 0), False))
    return probes


def constructor_probes() -> list[tuple[str, Callable[[], object], bool]]:
    """Budgets passed to the classes in Python (not through spec text): NumPy and odd types."""
    from mctslab.agents import UCT, FlatMonteCarlo, Minimax

    probes = []
    for value in (np.int64(0), np.float64(math.nan), 10.0, "100", [100], -(10**30)):
        probes.append((f"UCT(iterations={value!r})", lambda v=value: UCT(iterations=v), True))
        probes.append((f"FlatMonteCarlo(playouts={value!r})", lambda v=value: FlatMonteCarlo(playouts=v), True))
        probes.append((f"Minimax(depth={value!r})", lambda v=value: Minimax(depth=v), True))
    for value in (np.float64(math.nan), math.inf, -0.5, 0, "1"):
        probes.append((f"UCT(seconds={value!r})", lambda v=value: UCT(seconds=v), True))
    probes.append(("UCT(iterations=np.int64(50))", lambda: UCT(iterations=np.int64(50)).analyse(TTT, MID), False))
    return probes


# -- inconsistent and finished positions ---------------------------------------------------

C4 = make_game("connect4")
UTTT, FRACTIO = make_game("uttt"), make_game("fractio")
_X_MACRO = sum(1 << c for c in (0, 1, 2, 9, 10, 11, 18, 19))  # boards 0 and 1 won by X; X sent to board 2
_O_MACRO = sum(1 << c for c in (27, 28, 45, 46, 54, 55, 72, 73))
UTTT_OK = UltimateState(_X_MACRO, _O_MACRO, 0b11, 0, 0b11, 2, ONGOING)

INCONSISTENT = [  # (game, state, what is wrong)
    (C4, ConnectFourState(1 << 1, 0, ONGOING), "floats in column 0"),  # a stone on row 1 over an empty cell
    (C4, ConnectFourState(0b1 | 1 << 15, 1 << 7, ONGOING), "floats in column 2"),
    (C4, ConnectFourState(0b1111, 0b111 << 7, ONGOING), "stones say 0"),  # X has four, still "playing"
    (C4, ConnectFourState(0b111, 0b111 << 7, X_WON), "stones say -1"),  # a win nobody has
    (C4, ConnectFourState(0b111 | 1 << 14 | 1 << 21, 0b1111 << 7, O_WON), "did not play the last"),
    (C4, ConnectFourState(0b1111 | 0b1111 << 14, 0b111 << 7 | 0b111 << 21 | 1 << 28, X_WON), "no single last stone"),
    (TTT, TicTacToeState(0b111, 0b11000, ONGOING), "stones say 0"),  # X has the top row: over
    (TTT, TicTacToeState(0b111, 0b111000, X_WON), "both X and O"),
    (TTT, TicTacToeState(0b1011, 0b110100, DRAWN), "stones say -1"),  # drawn with empty cells, no line
    (TTT, TicTacToeState(0b100101, 0b10010010, X_WON), "stones say 1"),  # O has the middle column
    (
        make_game("tictactoe:n=4,k=2"),
        TicTacToeState(0b11 | 0b11 << 10, 1 << 3 | 1 << 5 | 1 << 12, X_WON),
        "no single last stone",
    ),  # fmt: skip
    (UTTT, UTTT_OK._replace(forced=0), "decided"),  # sent to board 0, which X has won
    (UTTT, UTTT_OK._replace(forced=1), "decided"),
    (UTTT, UTTT_OK._replace(x_won=0b1), "x_won and o_won"),
    (UTTT, UTTT_OK._replace(decided=0b111), "decided must be"),
    (UTTT, UTTT_OK._replace(result=X_WON, forced=ANYWHERE), "stones say -1"),
    (UTTT, UltimateState(_X_MACRO | 1 << 20, _O_MACRO | 1 << 36, 0b111, 0, 0b111, ANYWHERE, X_WON), "did not play the"),
    (FRACTIO, FRACTIO.state_from_moves([36, 4, 37, 13, 38])._replace(result=ONGOING), "first local board"),
]
INCONSISTENT_IDS = [f"{game.spec}-{i}" for i, (game, _, _) in enumerate(INCONSISTENT)]
FINISHED = [(TTT, [0, 3, 1, 4, 2]), (C4, [0, 1, 0, 1, 0, 1, 0]), (FRACTIO, [36, 4, 37, 13, 38])]
SEARCHERS = ["uct:iterations=50", "flat:playouts=5", "minimax:depth=2", "random", "puct:iterations=20"]
COMPILED = ["uct:iterations=200,engine=compiled", "flat:playouts=20,engine=compiled"]


def position_probes() -> list[tuple[str, Callable[[], object], bool]]:
    probes = []
    searchers = SEARCHERS + (COMPILED if available() else [])
    for game, state, _ in INCONSISTENT:
        probes.append((f"check_state {game.spec} {state}", lambda g=game, s=state: g.check_state(s), True))
        probes.append((f"play {game.spec} {state}", lambda g=game, s=state: g.play(s, 0), True))
        for spec in searchers:
            probes.append(
                (f"{spec} on {state}", lambda g=game, s=state, a=spec: make_agent(a, seed=0).analyse(g, s), True)
            )
    for game, moves in FINISHED:
        state = game.state_from_moves(moves)
        for spec in searchers:
            probes.append(
                (f"{spec} on finished {moves}", lambda g=game, s=state, a=spec: make_agent(a).analyse(g, s), True)
            )
    return probes


def test_the_sweep_finds_no_traceback_hang_or_silent_acceptance():
    """The closing note's counts: every probe works as documented or is a clean one-line error."""
    if available():  # compile (or load) the kernels first: the watchdog times each probe, not Numba's compiler
        warm()
    counts = sweep(spec_probes() + constructor_probes() + position_probes() + (engine_probes() if available() else []))
    assert counts["tried"] >= 500 and counts["clean"] >= 450


# -- item 9: positions ----------------------------------------------------------------------


@pytest.mark.parametrize(("game", "state", "why"), INCONSISTENT, ids=INCONSISTENT_IDS)
def test_check_state_refuses_a_position_no_game_reaches(game, state, why):
    with pytest.raises(InvalidStateError, match=why) as caught:
        game.check_state(state)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("spec", ["tictactoe", "tictactoe:n=4,k=3", "connect4", "connect4:rows=4,cols=5,k=3", "uttt",
                                  "fractio", "connect4:rows=3,cols=3,k=1"])  # fmt: skip
def test_every_position_of_random_games_passes_check_state(spec):
    game, rng = make_game(spec), np.random.default_rng(0)
    for _ in range(30):
        state = game.initial_state()
        game.check_state(state)
        while not game.is_terminal(state):
            moves = game.legal_moves(state)
            state = game.play(state, moves[int(rng.integers(len(moves)))])  # play() checks each state
            game.check_state(state)


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=compiled_only)])
def test_an_ultimate_board_forced_to_a_decided_board_is_refused_by_both_engines(engine):
    agent = make_agent(f"uct:iterations=100,engine={engine}", seed=0)
    agent.select_move(UTTT, UTTT_OK)  # the consistent position searches
    with pytest.raises(InvalidStateError, match="forced is board 0, which is decided"):
        agent.select_move(UTTT, UTTT_OK._replace(forced=0))


PUZZLE = make_game("samegame:rows=4,cols=4,colors=3,seed=0")
"""The game an agent that plays only one-player puzzles is tried on (tic-tac-toe for the others)."""


def _plays_tictactoe(name: str) -> bool:
    return TTT.kind().traits <= make_agent(name, seed=0).handles


def _finished(game, seed: int = 0):
    state, rng = game.initial_state(), np.random.default_rng(seed)
    while not game.is_terminal(state):
        moves = game.legal_moves(state)
        state = game.play(state, moves[int(rng.integers(len(moves)))])
    return state


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_agent_refuses_a_finished_game_in_one_line(name):
    if not _plays_tictactoe(name):  # a puzzle solver: a finished puzzle
        with pytest.raises(IllegalMoveError, match="the game is over") as caught:
            make_agent(name, seed=0).analyse(PUZZLE, _finished(PUZZLE))
        assert "\n" not in str(caught.value)
        return
    state = TTT.state_from_moves([0, 3, 1, 4, 2])  # X has won
    with pytest.raises(IllegalMoveError, match="the game is over") as caught:
        make_agent(name, seed=0).analyse(TTT, state)
    assert "\n" not in str(caught.value)
    with pytest.raises(InvalidStateError, match="stones say 0"):  # the same stones claiming play goes on
        make_agent(name, seed=0).analyse(TTT, state._replace(result=ONGOING))


# -- item 6: threads ---------------------------------------------------------------------------


class HeldGame:
    """A fresh copy of ``game`` whose first ``legal_moves`` from a worker thread waits until released."""

    def __init__(self, game=TTT) -> None:
        self.game = make_game(game.spec)
        self.inside, self.release = threading.Event(), threading.Event()
        original = self.game.legal_moves

        def legal_moves(state):
            if threading.current_thread() is not threading.main_thread() and not self.inside.is_set():
                self.inside.set()
                self.release.wait(30)
            return original(state)

        self.game.legal_moves = legal_moves


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_an_agent_refuses_a_second_concurrent_search_and_works_again_after(name):
    game, mid = (TTT, MID) if _plays_tictactoe(name) else (PUZZLE, PUZZLE.initial_state())
    agent, held = make_agent(name, seed=0), HeldGame(game)
    found: list = []
    worker = threading.Thread(target=lambda: found.append(agent.analyse(held.game, mid).move))
    worker.start()
    try:
        assert held.inside.wait(30), "the first search never reached the game"
        for ask in (agent.analyse, getattr(agent, "search", agent.analyse)):
            with pytest.raises(ConcurrentSearchError, match="already searching in another thread") as caught:
                ask(game, mid)
            assert "\n" not in str(caught.value) and agent.spec in str(caught.value)
    finally:
        held.release.set()
        worker.join(60)
    assert found and found[0] in game.legal_moves(mid)  # the first search was not disturbed
    assert agent.analyse(game, mid).move in game.legal_moves(mid)  # one thread after another is fine


SHARED = ["puct:iterations=400", "transpositions:iterations=400", "rave:iterations=300", "minimax"]
SHARED += [pytest.param("uct:iterations=20000,engine=compiled", marks=compiled_only)]


@pytest.mark.parametrize("spec", SHARED)
def test_a_shared_agent_in_eight_threads_answers_or_refuses_never_corrupts(spec):
    agent, start = make_agent(spec, seed=0), threading.Barrier(8)
    ends: list = []

    def search():
        start.wait()
        try:
            ends.append(agent.analyse(TTT, MID).move in TTT.legal_moves(MID))
        except ConcurrentSearchError:
            ends.append("refused")
        except Exception as err:  # noqa: BLE001 - what the test looks for
            ends.append(repr(err))

    threads = [threading.Thread(target=search) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(ends) == 8 and set(ends) <= {True, "refused"} and True in ends, ends


# -- item 5: the compiled engine ---------------------------------------------------------------


@compiled_only
def test_a_huge_iteration_budget_allocates_nothing_by_the_budget():
    from mctslab.engine import search
    from mctslab.engine.tree import INITIAL_SLOTS, SLOT_BYTES

    result = search(TTT, TTT.initial_state(), c=1.4, iterations=10**9, seconds=0.2, max_moves=None, seed=0)
    tree = result.tree
    assert result.done >= 1 and tree.move.shape[0] <= max(INITIAL_SLOTS, 2 * tree.slots)
    assert tree.move.shape[0] * SLOT_BYTES < 200 * 2**20  # tic-tac-toe's whole tree: under a million slots


@compiled_only
def test_the_seeded_compiled_search_is_the_same_however_the_budget_is_chunked(monkeypatch):
    """Chunks and growth continue one random stream: the result is that of one call into a big tree."""
    from mctslab.engine import tree as tree_module

    def table(**patches):
        for name, value in patches.items():
            monkeypatch.setattr(tree_module, name, value)
        agent = make_agent("uct:iterations=30000,engine=compiled", seed=3)
        return [(s.move, s.visits, s.mean) for s in agent.analyse(C4, C4.initial_state()).stats]

    chunked = table(FIRST_CHUNK=64, MAX_CHUNK=128, INITIAL_SLOTS=16)  # hundreds of calls, many growths
    assert table(FIRST_CHUNK=1 << 20, MAX_CHUNK=1 << 20, INITIAL_SLOTS=1 << 19) == chunked  # one call


@compiled_only
def test_ctrl_c_stops_a_long_compiled_search_within_a_second():
    from mctslab.engine import compile_seconds

    compile_seconds()  # compiled (or loaded) before the clock starts
    agent = make_agent("uct:iterations=20000000,engine=compiled", seed=0)  # about 40 s in one call before
    sent: list[float] = []

    def interrupt():
        sent.append(time.process_time())  # CPU time: what the search spends before it sees the interrupt,
        _thread.interrupt_main()  # the same on a busy machine (where the wall clock also counts waiting)

    timer = threading.Timer(0.5, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            agent.analyse(C4, C4.initial_state())
        took = time.process_time() - sent[0]
    finally:
        timer.cancel()
    assert took < 1.0, f"took {took:.2f} s of CPU time to stop"


@compiled_only
def test_no_writable_numba_cache_runs_with_one_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "NUMBA_CACHE_DIR": str(blocker / "cache"),
        "NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator",
    }  # fmt: skip  (nowhere to write a cache)
    code = "from mctslab.engine import kernels, random_results\nfrom mctslab import make_game\n"
    code += "assert not kernels.CACHE\nkernels.seed(1)\nprint('ran')"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "ran\n", done.stderr
    assert done.stderr.count("RuntimeWarning") == 1 and "without Numba's cache" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_batched_flat_monte_carlo_caps_the_playouts_of_one_numpy_call(monkeypatch):
    asked: list[int] = []

    def counts(states, playouts, rng, max_moves=None):
        asked.append(len(states) * playouts)
        return np.tile(np.array([playouts, 0, 0]), (len(states), 1))

    game = type(TTT)()
    monkeypatch.setattr(game, "playout_counts", counts)
    analysis = make_agent("flat:playouts=100000000,batched=true", seed=0).analyse(game, game.initial_state())
    assert max(asked) <= MAX_BATCH and sum(asked) == 9 * 10**8
    assert all(s.visits == 10**8 for s in analysis.stats)
