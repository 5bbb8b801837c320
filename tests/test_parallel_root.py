"""Root parallelism in the compiled engine: ``uct:engine=compiled,threads=K,parallel=root``.

K trees of one position, searched at once in K threads from K seeds drawn from the
agent's generator, their root children summed. The checks: each thread's tree is,
slot for slot, the single-thread search with its seed (so the sums equal K separate
searches, whatever the threads' scheduling); seeded results repeat run to run;
``threads=1`` is today's engine; Numba's generator is one per thread; the shared table
of square roots is filled with the kernels' own doubles before the threads start; the
spec round-trips and bad values are refused in one line. No timing is asserted (speed:
``python -m mctslab bench``). Run time: a few seconds once the kernels are cached.
"""

from __future__ import annotations

import math
import random
import threading

import numpy as np
import pytest

from mctslab import engine, make_agent, make_game
from mctslab.agents.uct import UCT, VARIANT_PARAMS
from mctslab.games.compiled import compiled_encoding, compiled_rules

pytestmark = pytest.mark.skipif(not engine.available(), reason="the compiled engine needs Numba")

C = math.sqrt(2)
GAMES = ("tictactoe", "connect4", "uttt")
BUDGET = {"tictactoe": 300, "connect4": 1_500, "uttt": 600}


def _derived_seeds(seed: int, k: int) -> list[int]:
    """The seeds a fresh seeded agent gives its K trees: K draws of 32 bits from its own generator."""
    rng = make_agent("uct:engine=compiled", seed=seed).rng
    return [rng.getrandbits(32) for _ in range(k)]


def _single(game, state, iterations: int, seed: int):
    return engine.search(game, state, c=C, iterations=iterations, seconds=None, max_moves=None, seed=seed)


def _arrays(tree) -> list[np.ndarray]:
    n = tree.slots
    return [a[:n].copy() for a in (tree.move, tree.first, tree.nlegal, tree.nexp, tree.visits, tree.wins2, tree.mean)]


@pytest.mark.parametrize("spec", GAMES)
def test_the_summed_root_is_the_sum_of_k_single_thread_searches_with_the_derived_seeds(spec):
    """Summed visits and wins per move, the chosen move and every tree slot for slot, against K searches apart."""
    game = make_game(spec)
    state = game.initial_state()
    k, its = 3, BUDGET[spec]
    agent = make_agent(f"uct:iterations={its},engine=compiled,threads={k}", seed=11)
    analysis = agent.analyse(game, state)
    seeds = _derived_seeds(11, k)
    singles = [_single(game, state, its, s) for s in seeds]
    visits: dict[int, int] = {}
    wins: dict[int, float] = {}
    for r in singles:
        for s in r.tree.children():
            m = int(r.tree.move[s])
            visits[m] = visits.get(m, 0) + int(r.tree.visits[s])
            wins[m] = wins.get(m, 0.0) + int(r.tree.wins2[s]) / 2
    assert {st.move: st.visits for st in analysis.stats} == visits
    assert {ch.move: ch.wins for ch in analysis.root.children} == wins
    assert analysis.root.visits == sum(int(r.tree.visits[r.tree.root]) for r in singles) == k * its
    assert analysis.iterations == k * its
    best = max(sorted(visits), key=lambda m: (visits[m], wins[m] / visits[m]))
    assert analysis.move == best
    parallel = engine.search_root_parallel(game, state, engine.Budget(C, its), seeds=seeds)
    for tree, single in zip(parallel.trees, singles, strict=True):
        for a, b in zip(_arrays(tree), _arrays(single.tree), strict=True):
            assert np.array_equal(a, b)


def test_threads_2_gives_the_same_results_run_after_run():
    """Fresh agents with one seed repeat every move's statistics; one agent's calls repeat from the same seeds."""
    game = make_game("connect4")
    states = [game.initial_state(), game.apply(game.initial_state(), 3)]

    def moves(seed: int) -> list[tuple]:
        agent = make_agent("uct:iterations=2000,engine=compiled,threads=2,parallel=root", seed=seed)
        return [tuple((s.move, s.visits, s.mean) for s in agent.analyse(game, st).stats) for st in states]

    first = moves(5)
    assert all(moves(5) == first for _ in range(4))
    assert moves(6) != first  # the seed matters: the test can fail
    seeds = _derived_seeds(5, 2)
    runs = [engine.search_root_parallel(game, states[0], engine.Budget(C, 2000), seeds=seeds) for _ in range(4)]
    assert all((r.moves, r.visits, r.wins) == (runs[0].moves, runs[0].visits, runs[0].wins) for r in runs)
    assert tuple((m, v, w / v) for m, v, w in zip(runs[0].moves, runs[0].visits, runs[0].wins, strict=True)) == first[0]


@pytest.mark.parametrize("spec", GAMES)
def test_threads_1_is_the_engine_of_one_thread(spec):
    """threads=1 (written or not) plays today's engine; one seed in a worker thread builds the same tree."""
    game = make_game(spec)
    state = game.initial_state()
    plain = make_agent(f"uct:iterations={BUDGET[spec]},engine=compiled", seed=2)
    one = make_agent(f"uct:iterations={BUDGET[spec]},engine=compiled,threads=1", seed=2)
    assert one.spec == plain.spec
    a, b = plain.analyse(game, state), one.analyse(game, state)
    assert a.stats == b.stats and a.move == b.move
    seed = _derived_seeds(2, 1)[0]
    single = _single(game, state, BUDGET[spec], seed)
    assert [(s.move, s.visits) for s in a.stats] == sorted(zip(single.moves, single.visits, strict=True))
    threaded = engine.search_root_parallel(game, state, engine.Budget(C, BUDGET[spec]), seeds=[seed])
    for x, y in zip(_arrays(threaded.trees[0]), _arrays(single.tree), strict=True):
        assert np.array_equal(x, y)


def test_numbas_generator_is_one_per_thread():
    """Seeding and drawing in another thread leaves this thread's stream where it was."""
    compiled = engine.backend.kernels()
    game = make_game("connect4")
    rules = compiled_rules(game)
    prm, tab = rules.prm, rules.tab
    st = np.array(compiled_encoding(game).compiled_state(game.initial_state()), dtype=np.int64)
    scratch = np.empty(compiled.SCRATCH, dtype=np.int64)

    def draw() -> list[int]:
        return list(compiled.random_results(rules, prm, tab, st, 500, engine.NO_LIMIT, scratch.copy()))

    compiled.seed(5)
    draw()
    expected = draw()
    compiled.seed(5)
    draw()
    other: list[list[int]] = []

    def elsewhere() -> None:
        compiled.seed(9)
        other.append(draw())

    worker = threading.Thread(target=elsewhere)
    worker.start()
    worker.join()
    assert draw() == expected
    compiled.seed(9)
    assert other == [draw()]  # the worker drew seed 9's stream


def test_the_shared_table_is_filled_with_the_kernels_doubles_before_the_threads():
    """Every entry from 1 to ROOTS - 1: sqrt(ln n) and 1 / sqrt(n), bit for bit as computed each time."""
    table = engine.parallel.roots_filled()
    n = np.arange(1, table.shape[1])
    picks = [1, 2, 3, 1000, table.shape[1] - 1] + random.Random(0).sample(range(1, table.shape[1]), 500)
    assert all(table[0, i] == math.sqrt(math.log(i)) for i in picks)
    assert all(table[1, i] == 1.0 / math.sqrt(i) for i in picks)
    assert np.all(table[1, n] > 0) and np.all(table[0, n[1:]] > 0)


def test_seconds_runs_every_tree_for_the_wall_time():
    """A time budget: every tree searches (no timing asserted)."""
    game = make_game("tictactoe")
    agent = make_agent("uct:seconds=0.02,engine=compiled,threads=2", seed=0)
    analysis = agent.analyse(game, game.initial_state())
    assert analysis.iterations >= 2 and analysis.move in game.legal_moves(game.initial_state())


def test_the_spec_round_trips_and_defaults_stay_out_of_it():
    """threads=K writes parallel=root beside it (the kind is part of the player); threads=1 writes neither."""
    written = {
        "uct:iterations=500,engine=compiled,threads=2,parallel=root": (
            "uct:iterations=500,engine=compiled,threads=2,parallel=root"
        ),
        "uct:engine=compiled,threads=3": "uct:iterations=1000,engine=compiled,threads=3,parallel=root",
    }
    for spec, expected in written.items():
        agent = make_agent(spec)
        assert agent.spec == expected
        assert make_agent(agent.spec).spec == expected
    assert make_agent("uct:engine=compiled,threads=1").spec == "uct:iterations=1000,engine=compiled"
    assert {"threads", "parallel"} <= {p.name for p in UCT.params}
    # a variant searches K trees in K processes and says so (threads); the shared tree and engine are UCT's
    assert "threads" in {p.name for p in VARIANT_PARAMS}
    assert not {"parallel", "engine"} & {p.name for p in VARIANT_PARAMS}


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("uct:engine=compiled,threads=0", "threads must be an integer in [1, 256], got 0"),
        ("uct:engine=compiled,threads=-1", "threads must be an integer in [1, 256], got -1"),
        ("uct:engine=compiled,threads=x", "'x'"),
        ("uct:engine=compiled,threads=100000", "got 100000"),
        ("uct:engine=compiled,parallel=roots", "parallel must be 'root', 'tree' or 'leaf'"),
        ("uct:threads=2,parallel=leaf", "parallel=leaf with engine=python"),
        ("uct:engine=compiled,threads=2,reuse=true", "reuse=True with threads=2"),
    ],
)
def test_bad_values_are_refused_in_one_line(spec, words):
    with pytest.raises((ValueError, TypeError)) as err:
        make_agent(spec)
    message = str(err.value)
    assert words in message and "\n" not in message


def test_bad_calls_of_the_engine_are_refused_in_one_line():
    game = make_game("tictactoe")
    state = game.initial_state()
    for seeds, words in (([], "threads must be"), ([1] * 257, "threads must be"), ([-1], "seed")):
        with pytest.raises(ValueError, match=words):
            engine.search_root_parallel(game, state, engine.Budget(C, 10), seeds=seeds)


def test_the_benchmark_reports_every_thread_count_with_its_speedup():
    """The bench's threads rows: K = 1, 2 (and more with more CPUs) per game, rates and speed-ups (never asserted)."""
    from mctslab.bench import format_report, run_benchmark
    from mctslab.bench.parallel import NAME, thread_counts

    assert thread_counts(1) == thread_counts(2) == (1, 2)
    assert thread_counts(6) == (1, 2, 4, 6) and thread_counts(8) == (1, 2, 4, 8)
    report = run_benchmark(rounds=1, scale=0.01, compare=False, progress=False, only=(NAME,))
    rows = report.rows
    assert [(r.game, r.threads) for r in rows] == [(g, k) for g in GAMES for k in thread_counts()]
    for r in rows:
        assert (
            r.rate > 0
            and r.work % r.threads == 0
            and r.speedup == pytest.approx(r.rate / next(b.rate for b in rows if (b.game, b.threads) == (r.game, 1)))
        )
    text = format_report(report)
    assert "root parallelism" in text and "load average" in text and "speed-up" in text
