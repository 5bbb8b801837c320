"""Shared test helpers: the exact oracle that Monte Carlo agents are compared with, and the registered games.

Importing :mod:`game_for_tests` registers a game that exists only for the tests: every
test that iterates the registry (:func:`registered_games`) runs it too.

Ctrl-C: a test run started in the background by a non-interactive shell (``./run test &`` in a
script, ``nohup``, some CI runners) inherits SIGINT *ignored*, and so does every process the tests
start; the tests of what mctslab does on Ctrl-C (``test_interrupt.py``, the grader's and the
engine's) would then see nothing happen. They test mctslab's answer to Ctrl-C, not the shell's, so
each test process takes Python's own handler back (:func:`take_back_ctrl_c`, below).
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import json
import math
import os
import pickle
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import game_for_tests  # noqa: F401  (registers the test-only game "race")
import pytest

import mctslab.course  # noqa: F401  (registers the course's own agents: racioppo)
from mctslab.agents.minimax import Minimax
from mctslab.exact import move_values
from mctslab.games import Game


def take_back_ctrl_c() -> bool:
    """Give SIGINT back to Python (``KeyboardInterrupt``) where the process was started with it ignored.

    Returns whether it was ignored. Processes the tests start then get the default too.
    """
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        return False
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return True


take_back_ctrl_c()  # each worker imports this file in its main thread

FILE_COSTS = Path(__file__).with_name("file_costs.json")
"""Seconds each test file and notebook took in a full run (a worker's wall time), heaviest first.

Refreshed with ``./run test --file-costs tests/file_costs.json``. A file missing from it costs 0."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--file-costs", metavar="PATH", help="write each test file's seconds (summed durations) to PATH as JSON"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The heaviest files first (:data:`FILE_COSTS`), each file's tests in their own order.

    ``./run test`` hands whole files to its workers in this order (``--dist loadfile
    --no-loadscope-reorder``), so no worker starts a long file while the others run out of work.
    """
    costs = json.loads(FILE_COSTS.read_text()) if FILE_COSTS.exists() else {}
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(item.nodeid.split("::")[0], i)
    items.sort(key=lambda item: (-costs.get(item.nodeid.split("::")[0], 0), first[item.nodeid.split("::")[0]]))


_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Sum each file's durations (setup, call, teardown), for ``--file-costs``."""
    name = report.nodeid.split("::")[0]
    _SECONDS[name] = _SECONDS.get(name, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--file-costs")
    if path and not hasattr(session.config, "workerinput"):  # the controller: it has every worker's reports
        costs = {name: round(s) for name, s in sorted(_SECONDS.items(), key=lambda kv: (-round(kv[1]), kv[0]))}
        Path(path).write_text(json.dumps({n: s for n, s in costs.items() if s >= 2}, indent=0) + "\n")


def registered_games(handled_by: str | None = None) -> list[str]:
    """The small test spec of every registered game, in registration order, for tests that iterate the registry.

    A game's ``test_spec`` (``@register_game(..., test_spec=...)``), or its name if it gave
    none (``tests/test_game_registry.py`` then fails, saying where to add one). With
    ``handled_by`` (an agent spec, e.g. ``"uct"``), only the games of a kind that agent plays
    (a test of UCT's tree has nothing to draw on a one-player puzzle UCT refuses).
    """
    from mctslab.agents import make_agent
    from mctslab.games import GAMES, make_game

    specs = [entry.test_spec or name for name, entry in GAMES.items()]
    if handled_by is None:
        return specs
    handles = make_agent(handled_by).handles
    return [s for s in specs if make_game(s).kind().traits <= handles]


def games_for(handles: frozenset[str]) -> list[str]:
    """:func:`registered_games` whose kind an agent with these ``handles`` plays (:attr:`Agent.handles`).

    For tests that run one agent on every game: a game of another kind (hidden cards for plain
    UCT) is refused by the agent in one line, which ``test_game_registry`` checks.
    """
    from mctslab import make_game

    return [spec for spec in registered_games() if make_game(spec).kind().traits <= handles]


def exact_move_values(game: Game, state) -> dict[int, int]:
    """Each legal move's value for the player who makes it (+1 win, 0 draw, -1 loss), by full-depth minimax.

    An oracle independent of :mod:`mctslab.exact` (which it is compared with): only
    :class:`Minimax`'s public ``analyse``.
    """
    oracle, mover, values = Minimax(seed=0), game.to_move(state), {}
    for m in game.legal_moves(state):
        child = game.apply(state, m)
        if game.is_terminal(child):
            reward = game.returns(child)[mover]
        else:
            reward = 1 - oracle.analyse(game, child).value  # the opponent's value, in [0, 1]
        values[m] = round(2 * reward - 1)
    return values


def winning_moves(game: Game, state) -> set[int]:
    """Moves that force a win (:func:`mctslab.exact.move_values`)."""
    return {m for m, v in move_values(game, state).items() if v == 1}


def saving_moves(game: Game, state) -> set[int]:
    """Moves that do not lose against perfect play (:func:`mctslab.exact.move_values`)."""
    return {m for m, v in move_values(game, state).items() if v >= 0}


def random_unfinished_positions(game: Game, tries: int, rng, max_plies: int = 20) -> list:
    """Positions after 0 to ``max_plies`` random moves from the start, ``tries`` of them, less the finished ones."""
    found = []
    for _ in range(tries):
        state = game.initial_state()
        for _ in range(rng.randint(0, max_plies)):
            state = game.apply(state, rng.choice(game.legal_moves(state)))
            if game.is_terminal(state):
                break
        if not game.is_terminal(state):
            found.append(state)
    return found


def sample_margin(p: float, n: int, sigmas: float = 5.0) -> float:
    """``sigmas`` standard errors of a proportion ``p`` estimated from ``n`` samples."""
    return sigmas * math.sqrt(p * (1 - p) / n)


def outcome_rates(results) -> tuple[float, float, float]:
    """Rates of (player 0 wins, player 1 wins, draws) among per-player returns."""
    results = [tuple(r) for r in results]
    return tuple(results.count(r) / len(results) for r in ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5)))


def assert_same_distribution(a, b, n_a: int, n_b: int, sigmas: float = 4.0) -> None:
    """Each outcome's rate in ``a`` and ``b`` agrees within ``sigmas`` standard errors of the difference."""
    for x, y in zip(a, b, strict=True):
        p = (x * n_a + y * n_b) / (n_a + n_b)
        margin = sigmas * math.sqrt(p * (1 - p) * (1 / n_a + 1 / n_b))
        assert abs(x - y) <= margin + 1e-12, (a, b)


def assert_rollout_matches_generic(game, start, rng, n: int, max_moves=None) -> tuple:
    """``n`` fast playouts and ``n`` of the generic :meth:`Game.rollout` agree in distribution.

    Returns the two rate triples (fast, generic) for further checks.
    """
    from mctslab.games.base import Game

    fast = outcome_rates(game.rollout(start, rng, max_moves) for _ in range(n))
    generic = outcome_rates(Game.rollout(game, start, rng, max_moves) for _ in range(n))
    assert_same_distribution(fast, generic, n, n)
    return fast, generic


@pytest.fixture
def ttt():
    from mctslab import make_game

    return make_game("tictactoe")


@pytest.fixture(autouse=True)
def _busy_machine_for_load_tests(request):
    """A test marked ``load`` runs while two processes per core spin (:func:`machine_load.busy_machine`).

    The suite's check that the exercise checks, the grader and the site hold on a busy machine:
    the tests that a wall-clock limit used to fail under load are marked, and run loaded every time.
    A test that makes its own load (the grader's) is marked too, and runs it only once.
    """
    if request.node.get_closest_marker("load") is None or request.node.get_closest_marker("own_load"):
        yield
        return
    from machine_load import busy_machine

    with busy_machine(per_core=2):
        yield


def shared_site(tmp_path_factory: pytest.TempPathFactory, edition: str = "student"):
    """The course's site of ``edition`` (a :class:`~mctslab.course.site.SiteReport`), built once per test run.

    The test files that read it (``test_site.py``, ``test_site_browser.py``) run in different
    workers: the first to ask builds it, under a file lock in the run's temporary folder, and
    the others read its report (the site's folder is never written after). Skips the test,
    saying why, when the site's scripts cannot be had.
    """
    from mctslab.course import site_assets
    from mctslab.course.site import build_site

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's folder, shared by its workers
    done = root / f"shared-site-{edition}.pickle"
    with open(root / f"shared-site-{edition}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            try:
                report = build_site(root / f"shared-site-{edition}", edition)
            except site_assets.AssetError as err:
                pytest.skip(f"the site's scripts could not be had: {err}")
            done.write_bytes(pickle.dumps(report))
        return pickle.loads(done.read_bytes())


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP from 127.0.0.1 (a thread, no log line per request): its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # no line per request in the test's output
        pass
