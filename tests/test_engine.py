"""The compiled UCT engine (mctslab.engine) is the same player as the pure-Python UCT.

Not the same random numbers, so the checks are statistical and seeded: the compiled
rules equal the Python rules move by move, random playouts end as the exact
probabilities say, both engines choose moves from fixed positions with the same
frequencies (chi-square homogeneity test, which is shown to reject a different player),
both pass the point-of-view oracle from both seats, and they score 0.5 against each other
within a Wilson interval. Without Numba only the error test runs (the others skip, saying
why). Run time: about 15 s of CPU once the kernels are in Numba's cache; the
first run in a fresh checkout compiles them (about a minute).
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import replace
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from conftest import saving_moves, winning_moves

from mctslab import IllegalMoveError, draw_tree, make_agent, make_game, play_match, tree_outline
from mctslab.agents.compiled import CompiledNode
from mctslab.agents.rules import SelectionRule
from mctslab.agents.uct import UCT
from mctslab.engine import available, games_with_kernels
from mctslab.games.compiled import compiled_encoding, compiled_rules
from mctslab.tournament.stats import wilson

needs_numba = pytest.mark.skipif(
    not available(),
    reason="Numba is not installed (pip install 'mctslab[fast]'): the compiled engine is not tested",
)


def test_without_numba_a_one_line_error_names_the_extra(monkeypatch):
    """Simulate a missing Numba: asking for the compiled engine says what to install, in one line."""
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` now raises ImportError
    assert not available()
    with pytest.raises(ImportError, match=r"pip install 'mctslab\[fast\]'") as err:
        make_agent("uct:iterations=100,engine=compiled")
    assert "\n" not in str(err.value)
    assert make_agent("uct:iterations=100").engine == "python"  # plain UCT needs nothing


def test_the_engine_param_round_trips_and_plain_uct_is_unchanged():
    assert make_agent("uct").spec == "uct:iterations=1000"
    with pytest.raises(ValueError, match="'python' or 'compiled'"):
        make_agent("uct:engine=fortran")
    if not available():
        pytest.skip("Numba is not installed")
    agent = make_agent("uct:iterations=10000,engine=compiled")
    assert agent.spec == "uct:iterations=10000,engine=compiled"
    assert make_agent(agent.spec).parameters() == agent.parameters()


# -- chi-square homogeneity, written out (no SciPy) ------------------------------------
def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom > x), by the series of the lower incomplete gamma."""
    if x <= 0:
        return 1.0
    a, half = df / 2, x / 2
    term = total = 1 / a
    n = 1
    while term > 1e-15 * total:
        term *= half / (a + n)
        total += term
        n += 1
    lower = math.exp(-half + a * math.log(half) - math.lgamma(a)) * total
    return max(0.0, 1.0 - lower)


def homogeneity(a: dict[int, int], b: dict[int, int]) -> tuple[float, int, float]:
    """Chi-square test that two samples of moves come from one distribution: (statistic, df, p-value).

    Moves whose expected count is below 5 in either sample are pooled into one category.
    """
    na, nb = sum(a.values()), sum(b.values())
    keys = sorted(set(a) | set(b))
    big = [k for k in keys if min(na, nb) * (a.get(k, 0) + b.get(k, 0)) / (na + nb) >= 5]
    rows = [(a.get(k, 0), b.get(k, 0)) for k in big]
    rest = (na - sum(r[0] for r in rows), nb - sum(r[1] for r in rows))
    if sum(rest):
        rows.append(rest)
    stat = 0.0
    for ca, cb in rows:
        total = ca + cb
        for count, n in ((ca, na), (cb, nb)):
            expected = n * total / (na + nb)
            stat += (count - expected) ** 2 / expected
    df = len(rows) - 1
    return stat, df, chi2_sf(stat, df) if df > 0 else 1.0


def test_chi2_sf_matches_known_quantiles():
    # 95% and 99.9% quantiles of chi-square (tables): 3.841 (1 df), 11.070 (5 df), 16.266 (3 df)
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(11.070, 5) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(16.266, 3) == pytest.approx(0.001, abs=2e-5)


def sample(spec: str, game, state, searches: int, seed: int) -> tuple[dict[int, int], np.ndarray]:
    """``searches`` seeded searches: how often each move was chosen, and the root visits (a row per search)."""
    counts: dict[int, int] = {}
    legal = game.legal_moves(state)
    visits = np.zeros((searches, len(legal)))
    for i in range(searches):
        analysis = make_agent(spec, seed=seed + i).analyse(game, state)
        counts[analysis.move] = counts.get(analysis.move, 0) + 1
        by_move = {s.move: s.visits for s in analysis.stats}
        visits[i] = [by_move.get(m, 0) for m in legal]
    return counts, visits


def visit_z(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per move, Welch's z for the difference of the mean root visits of two samples of searches."""
    return (a.mean(0) - b.mean(0)) / np.sqrt(a.var(0, ddof=1) / len(a) + b.var(0, ddof=1) / len(b))


Z_LIMIT = 4.0
"""|z| above this for any move (two-sided 6e-5 each, at most 81 moves: family-wise < 0.006) rejects."""


# -- the rules, move by move ---------------------------------------------------------
RULE_GAMES = ["tictactoe", "tictactoe:n=4,k=3", "tictactoe:n=7,k=5", "connect4", "connect4:rows=4,cols=5,k=3"]
RULE_GAMES += ["connect4:rows=8,cols=7,k=5", "uttt", "fractio", "hex:size=3", "hex:size=7"]


@needs_numba
@pytest.mark.parametrize("spec", RULE_GAMES)
def test_compiled_rules_equal_the_python_rules(spec):
    from mctslab.engine import kernels

    game = make_game(spec)
    rules, encode = compiled_rules(game), compiled_encoding(game).compiled_state
    prm, tab = rules.prm, rules.tab
    rng = random.Random(0)
    buf = np.empty(128, dtype=np.int64)
    for _ in range(30):
        state = game.initial_state()
        while True:
            st = np.array(encode(state), dtype=np.int64)
            n = kernels.legal_moves(rules, prm, tab, st, buf)
            assert tuple(buf[:n]) == game.legal_moves(state)
            if game.is_terminal(state):
                assert st[0] == state.result
                break
            move = rng.choice(game.legal_moves(state))
            kernels.apply_move(rules, prm, tab, st, move)
            state = game.apply(state, move)
            assert tuple(st) == encode(state), (spec, move)


TTT = make_game("tictactoe")


@cache
def exact_playout(state) -> tuple[Fraction, Fraction, Fraction]:
    """Exact probabilities that a uniformly random playout of 3 x 3 tic-tac-toe ends X, O, draw."""
    game = TTT
    if game.is_terminal(state):
        w = game.winner(state)
        return tuple(Fraction(int(w == i if i < 2 else w is None)) for i in range(3))
    moves = game.legal_moves(state)
    parts = [exact_playout(game.apply(state, m)) for m in moves]
    return tuple(sum(p[i] for p in parts) / len(moves) for i in range(3))


@needs_numba
def test_compiled_playouts_end_as_the_exact_probabilities():
    from mctslab.engine import random_results

    game = TTT
    for moves in ([], [4], [0, 4, 8]):
        state = game.state_from_moves(moves)
        counts = random_results(game, state, 20_000, seed=len(moves))
        for count, exact in zip(counts, exact_playout(state), strict=True):
            low, high = wilson(int(count), 20_000, confidence=0.999)
            assert low <= exact <= high, (moves, counts, float(exact))


@needs_numba
@pytest.mark.parametrize("spec,moves", [("connect4", []), ("connect4:rows=4,cols=5,k=3", [2]), ("uttt", [40]),
                                        ("fractio", [])])  # fmt: skip
def test_compiled_playouts_agree_with_python_playouts(spec, moves):
    from mctslab.engine import random_results

    game = make_game(spec)
    state = game.state_from_moves(moves)
    compiled = random_results(game, state, 4000, seed=1)
    python = game.playout_counts([state], 2000 if spec.startswith("connect4") else 600, np.random.default_rng(1))[0]
    _, df, p = homogeneity(dict(enumerate(map(int, compiled))), dict(enumerate(map(int, python))))
    assert p > 0.001, (compiled, python)


# -- the same player ---------------------------------------------------------------------
DISTRIBUTION_CASES = [  # (game, moves so far, iterations, searches per engine)
    ("tictactoe", [], 60, 300),  # X to move
    ("tictactoe", [0, 4, 8], 100, 200),  # O to move: the corners lose, the edges draw
    ("connect4", [], 80, 150),
    ("uttt", [40], 60, 100),  # O sent to the centre board
]


@needs_numba
@pytest.mark.parametrize("spec,moves,iterations,searches", DISTRIBUTION_CASES)
def test_both_engines_are_the_same_player(spec, moves, iterations, searches):
    """Same move frequencies (chi-square) and the same mean root visits per move (Welch z)."""
    game = make_game(spec)
    state = game.state_from_moves(moves)
    python, python_visits = sample(f"uct:iterations={iterations}", game, state, searches, seed=0)
    compiled, compiled_visits = sample(f"uct:iterations={iterations},engine=compiled", game, state, searches, 10_000)
    stat, df, p = homogeneity(python, compiled)
    assert df >= 2, "the positions must spread the choices over several moves"
    assert p > 0.001, f"chi-square {stat:.1f} on {df} df: python {python}, compiled {compiled}"
    z = visit_z(python_visits, compiled_visits)
    assert np.abs(z).max() < Z_LIMIT, np.round(z, 1)


@needs_numba
def test_the_tests_reject_a_different_player():
    """The same two tests, Python UCT with c = sqrt(2) against compiled UCT with c = 0.5: both reject."""
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 4, 8])
    python, python_visits = sample("uct:iterations=100", game, state, 200, seed=0)
    other, other_visits = sample("uct:iterations=100,c=0.5,engine=compiled", game, state, 200, seed=10_000)
    assert homogeneity(python, other)[2] < 0.001
    assert np.abs(visit_z(python_visits, other_visits)).max() > Z_LIMIT


POSITIONS = [  # the oracle positions of tests/test_agents.py
    ([0, 3, 1, 4], "X", "win"),
    ([0, 1, 2, 4, 3], "O", "win"),
    ([0, 4, 8, 2], "X", "block"),
    ([0, 4, 1], "O", "block"),
]


@needs_numba
@pytest.mark.parametrize("moves,seat,kind", POSITIONS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_point_of_view_both_seats(ttt, moves, seat, kind, seed):
    state = ttt.state_from_moves(moves)
    assert ttt.to_move(state) == "XO".index(seat)
    answers = winning_moves(ttt, state) if kind == "win" else saving_moves(ttt, state)
    assert len(answers) == 1
    agent = make_agent("uct:iterations=3000,engine=compiled", seed=seed)
    analysis = agent.analyse(ttt, state)
    assert analysis.move in answers
    assert sum(s.visits for s in analysis.stats) == 3000 == analysis.iterations


@needs_numba
@pytest.mark.parametrize("seat", [0, 1])
def test_connect_four_point_of_view_both_seats(seat):
    """Win in one as X and as O on Connect Four (the mover has three in a column)."""
    game = make_game("connect4")
    moves = [3, 0, 3, 0, 3, 6] if seat == 0 else [1, 3, 6, 3, 6, 3, 5]
    state = game.state_from_moves(moves)
    assert game.to_move(state) == seat
    for seed in range(3):
        assert make_agent("uct:iterations=2000,engine=compiled", seed=seed).select_move(game, state) == 3


@needs_numba
def test_compiled_scores_half_against_python():
    result = play_match(
        "tictactoe", "uct:iterations=100,engine=compiled", "uct:iterations=100", games=80, seed=0, progress=False
    )
    low, high = result.outcomes.score_ci()
    assert low <= 0.5 <= high, result.outcomes


# -- the agent's other options -------------------------------------------------------------
@needs_numba
def test_same_seed_same_search_and_different_seeds_differ():
    game = make_game("connect4")
    state = game.initial_state()

    def stats(seed):
        return make_agent("uct:iterations=500,engine=compiled", seed=seed).analyse(game, state).stats

    assert stats(3) == stats(3)
    assert stats(3) != stats(4)


@needs_numba
def test_final_mean_max_moves_seconds_and_reuse():
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 4])
    by_mean = make_agent("uct:iterations=400,final=mean,engine=compiled", seed=0).analyse(game, state)
    assert by_mean.move == max(by_mean.stats, key=lambda s: (s.mean, s.visits)).move
    cut = make_agent("uct:iterations=300,max_moves=1,engine=compiled", seed=0).analyse(game, state)
    assert sum(s.visits for s in cut.stats) == 300
    timed = make_agent("uct:seconds=0.05,engine=compiled", seed=0).analyse(game, state)
    assert timed.iterations >= 1 and timed.move in game.legal_moves(state)
    agent = make_agent("uct:iterations=500,reuse=true,engine=compiled", seed=0)
    first = agent.analyse(game, state)
    reply = game.apply(game.apply(state, first.move), 8 if first.move != 8 else 2)
    kept = agent.analyse(game, reply).root
    assert kept.visits > 500  # the subtree of `reply` was kept and searched 500 more times
    assert kept.state == reply and kept.move is None and kept.parent is None
    assert agent.analyse(game, game.initial_state()).root.visits == 500  # not in the tree: fresh


class Mean(SelectionRule):
    """A variant's rule (the mean alone): what the compiled engine cannot run."""

    name = "mean"

    def value(self, parent, child):
        return child.mean


class Greedy(UCT):
    rule_class = Mean


@needs_numba
def test_variants_are_refused():
    game = make_game("tictactoe")
    with pytest.raises(ValueError, match="plain UCT only"):
        Greedy(iterations=10, engine="compiled").select_move(game, game.initial_state())


def no_compiling(monkeypatch):
    """Make any use of the compiled kernels fail the test: what is refused must be refused before."""

    def kernels():
        raise AssertionError("a kernel was about to be compiled or run")

    for module in ("backend", "uct", "tree"):
        monkeypatch.setattr(f"mctslab.engine.{module}.kernels", kernels)


@needs_numba
@pytest.mark.parametrize(
    "spec", ["uct:iterations=10", "flat:playouts=10", "windowed:playouts=10", "fixedbudget:budget=30"]
)
@pytest.mark.parametrize("game_spec", ["tictactoe:n=8,k=4", "nim"])
def test_games_without_a_kernel_are_refused_before_anything_is_compiled(monkeypatch, spec, game_spec):
    no_compiling(monkeypatch)
    game = make_game(game_spec)
    agent = make_agent(f"{spec},engine=compiled", seed=0)  # accepted: the game is not known yet
    with pytest.raises(
        ValueError, match=r"no kernel for .*; games with one: connect4, fractio, hex, tictactoe, uttt"
    ) as err:
        agent.select_move(game, game.initial_state())
    assert "\n" not in str(err.value) and "engine=python" in str(err.value)


def test_the_games_with_a_kernel_are_those_that_declare_one():
    assert games_with_kernels() == ("connect4", "fractio", "hex", "tictactoe", "uttt")
    assert compiled_rules(make_game("nim")) is None


@needs_numba
@pytest.mark.parametrize("spec", ["tictactoe", "connect4:rows=4,cols=5", "uttt"])
def test_the_compiled_search_returns_a_tree_that_reads_like_nodes(spec):
    game = make_game(spec)
    state = game.initial_state()
    agent = make_agent("uct:iterations=600,engine=compiled", seed=1)
    a = agent.analyse(game, state)
    root = a.root
    assert isinstance(root, CompiledNode) and root.state == state and root.move is None
    assert root.visits == 600 and root.size() == root.tree.nodes()
    assert [(s.move, s.visits, s.mean) for s in a.stats] == sorted(
        (ch.move, ch.visits, ch.mean) for ch in root.children
    )
    for node in root.iter_nodes():
        assert node.wins == pytest.approx(node.mean * node.visits)
        if node.untried is not None:
            assert sorted([*node.untried, *(ch.move for ch in node.children)]) == sorted(game.legal_moves(node.state))
        for ch in node.children:
            assert ch.parent is node and ch.player == game.to_move(node.state)
            assert ch.state == game.apply(node.state, ch.move)
        assert sum(ch.visits for ch in node.children) in (node.visits, node.visits - 1)
    assert root.children is root.children  # the same views each time: pictures key nodes by id
    with pytest.raises(TypeError, match="read-only"):
        root.add(1.0)


@needs_numba
def test_viz_draws_and_outlines_the_compiled_tree():
    game = make_game("tictactoe")
    root = make_agent("uct:iterations=500,engine=compiled", seed=0).search(game, game.initial_state())
    graph = draw_tree(root, game, depth=2, top_k=3, mean=True, ucb=True)
    assert "500 visits" in graph.source and "ucb " in graph.source
    outline = tree_outline(root, game, depth=2, ucb=True)
    best = max(root.children, key=lambda ch: (ch.visits, ch.mean))
    assert f"X {best.move}  {best.wins:g}/{best.visits}" in outline and "[most visited]" in outline


@needs_numba
def test_the_explorer_says_it_explores_a_compiled_agent_on_the_python_engine():
    from mctslab.viz import TreeExplorer

    game = make_game("tictactoe")
    ex = TreeExplorer(game, iteration=20, agent=make_agent("uct:engine=compiled", seed=0))
    assert "engine=compiled" in ex.note and "Python" in ex.note and "cannot stop between phases" in ex.note
    assert TreeExplorer(game, iteration=5).note == ""


@needs_numba
def test_the_explorer_widget_shows_why_a_compiled_agent_is_explored_in_python():
    pytest.importorskip("ipywidgets")
    from mctslab.viz import tree_explorer

    game = make_game("tictactoe")
    widget = tree_explorer(game, iteration=5, max_iterations=20, agent=make_agent("uct:engine=compiled", seed=0))
    assert "engine=compiled: explored on the Python engine" in widget.status.value


@needs_numba
def test_memory_per_node_is_small():
    game = make_game("connect4")
    tree = make_agent("uct:iterations=5000,engine=compiled", seed=0).analyse(game, game.initial_state()).root.tree
    assert tree.nodes() == 5001
    assert tree.bytes_per_node() < 300


@needs_numba
def test_experiments_take_the_compiled_engine():
    from mctslab.course.experiments.strength import budget_agent, uct_grid

    assert budget_agent("uct-compiled", 50) == "uct:iterations=50,engine=compiled"
    grid = uct_grid("tictactoe", [1.0], [50], games=4, engine="compiled")
    assert grid.outcomes[0][0].games == 4


@needs_numba
def test_bench_rows_for_the_compiled_engine():
    from mctslab.bench import compiled_node_bytes, format_report, run_benchmark

    report = run_benchmark(rounds=1, scale=0.002, compare=False, progress=False)
    rows = {r.game: r for r in report.rows if r.name == "uct compiled"}
    assert set(rows) == {"tictactoe", "connect4", "uttt"}
    assert all(r.speedup and r.speedup > 0 and r.openspiel_rate is None for r in rows.values())
    assert report.compile_seconds is not None and "uct (nb)" in format_report(report)
    assert 0 < compiled_node_bytes(iterations=2_000) < 300


@needs_numba
@pytest.mark.parametrize("spec", ["flat:playouts=30", "windowed:playouts=20", "fixedbudget:kind=flat,budget=120"])
def test_monte_carlo_with_compiled_playouts_is_the_same_player(spec):
    """Flat, windowed and fixed-budget Monte Carlo: the same choice frequencies with compiled playouts."""
    game = make_game("tictactoe")
    state = game.state_from_moves([0, 4, 8])
    python, _ = sample(spec, game, state, 200, seed=0)
    compiled, _ = sample(spec + ",engine=compiled", game, state, 200, seed=10_000)
    stat, df, p = homogeneity(python, compiled)
    assert df >= 2 and p > 0.001, (python, compiled)
    fast, slow = (make_agent(s, seed=0).analyse(game, state) for s in (spec + ",engine=compiled", spec))
    assert fast.iterations == slow.iterations  # the same playouts spent
    assert [s.visits for s in fast.stats] == [s.visits for s in slow.stats]


def test_the_compiled_engine_leaves_numpys_global_generator_alone():
    """Numba's generator is its own, seeded per search from the agent's: NumPy's global one is untouched."""
    game = make_game("connect4")
    saved = np.random.get_state()  # noqa: NPY002 - this test is about the global generator
    try:
        np.random.seed(1)  # noqa: NPY002
        expected = np.random.random()  # noqa: NPY002
        np.random.seed(1)  # noqa: NPY002
        first = make_agent("uct:iterations=500,engine=compiled", seed=3).select_move(game, game.initial_state())
        assert np.random.random() == expected  # noqa: NPY002
        np.random.seed(99)  # noqa: NPY002
        again = make_agent("uct:iterations=500,engine=compiled", seed=3).select_move(game, game.initial_state())
        assert again == first
    finally:
        np.random.set_state(saved)  # noqa: NPY002


@needs_numba
@pytest.mark.parametrize("game_spec", ["tictactoe", "connect4", "uttt"])
def test_a_compiled_search_is_the_analysis_tree_and_its_checks(game_spec):
    """search() skips the final move and statistics, nothing else: the same tree, the same refusals."""
    game = make_game(game_spec)
    state = game.play(game.initial_state(), game.legal_moves(game.initial_state())[0])
    spec = "uct:iterations=300,engine=compiled"
    root = make_agent(spec, seed=3).search(game, state)
    analysed = make_agent(spec, seed=3).analyse(game, state).root
    assert type(root) is type(analysed) and root.state == analysed.state == state
    for name in ("move", "first", "nlegal", "nexp", "visits", "wins2"):
        assert np.array_equal(
            getattr(root.tree, name)[: root.tree.slots], getattr(analysed.tree, name)[: analysed.tree.slots]
        )
    over = game.initial_state()
    while not game.is_terminal(over):
        over = game.apply(over, game.legal_moves(over)[0])
    with pytest.raises(IllegalMoveError, match="game is over"):
        make_agent(spec, seed=3).search(game, over)
    with pytest.raises(ValueError, match="plain UCT only"):
        Greedy(iterations=10, engine="compiled").search(game, state)


def test_without_numba_the_command_line_says_what_to_install_in_one_line(monkeypatch, capsys):
    # before: `python -m mctslab move connect4 uct:engine=compiled` without Numba printed an ImportError traceback
    from mctslab.cli import main

    monkeypatch.setitem(sys.modules, "numba", None)
    assert main(["move", "connect4", "uct:iterations=100,engine=compiled"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'mctslab[fast]'" in err, err


def test_a_budget_whose_tree_cannot_fit_is_refused_at_once_in_one_line(monkeypatch, capsys):
    # before: uct:iterations=1000000000,engine=compiled on Connect Four grew its tree until memory ran out
    # (under a 3 GB cap: 138 s, then an OSError traceback)
    from mctslab.cli import main
    from mctslab.engine import tree

    monkeypatch.setattr(tree, "memory_available", lambda: 3 << 30)
    for spec in ("uct:iterations=1000000000,engine=compiled", "uct:iterations=60000000,engine=compiled,threads=2"):
        with pytest.raises(ValueError, match="this process may use"):  # refused when made: nothing is searched
            make_agent(spec)
        assert main(["move", "connect4", spec]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "more than the 3.0 GiB this process may use" in err, err
    # what fits is made, and a clock bounds a tree as well as a count
    assert make_agent("uct:iterations=60000000,engine=compiled").iterations == 60_000_000
    assert make_agent("uct:iterations=1000000000,seconds=1,engine=compiled").seconds == 1.0


def test_the_memory_a_process_may_use_is_within_its_address_space_limit(monkeypatch):
    import resource

    from mctslab.engine.tree import memory_available

    monkeypatch.setattr(resource, "getrlimit", lambda which: (3 << 30, resource.RLIM_INFINITY))
    assert 0 <= memory_available() <= 3 << 30


@needs_numba
def test_the_kernels_capacity_is_checked_with_a_clear_error():
    # before: a game past 32 fields, 128 moves or 255 plies was indexed past the kernels' scratch arrays
    from mctslab.engine.backend import kernels
    from mctslab.engine.tree import MAX_FIELDS, MAX_MOVES, MAX_PATH
    from mctslab.games.compiled import register_compiled
    from mctslab.games.connect4 import ConnectFour, ConnectFourCompiled
    from mctslab.games.tictactoe import TicTacToe, TicTacToeCompiled

    assert kernels().SCRATCH == MAX_FIELDS + MAX_MOVES + MAX_PATH

    class Wide(TicTacToe):
        pass

    @register_compiled(Wide)
    class _WideCompiled(TicTacToeCompiled):
        def compiled(self):
            return replace(super().compiled(), fields=MAX_FIELDS + 1)

        def compiled_state(self, state):
            return (0,) * (MAX_FIELDS + 1)

    class Deep(ConnectFour):
        pass

    @register_compiled(Deep)
    class _DeepCompiled(ConnectFourCompiled):
        def compiled(self):
            return replace(super().compiled(), max_plies=300)

    class Many(TicTacToe):
        pass

    @register_compiled(Many)
    class _ManyCompiled(TicTacToeCompiled):
        def compiled(self):
            return replace(super().compiled(), max_moves=144)

    agent = make_agent("uct:iterations=10,engine=compiled", seed=0)
    for game, what in ((Wide(), "32 fields"), (Deep(rows=4, cols=5, k=3), "255 plies"), (Many(), "128 legal moves")):
        with pytest.raises(ValueError, match=f"the compiled engine holds at most {what}") as err:
            agent.select_move(game, game.initial_state())
        assert "\n" not in str(err.value)
