"""MCTS-Solver on the compiled engine (``solver:engine=compiled``): exact proofs, the Python solver's player.

* Against an oracle nobody wrote into the kernel, :mod:`mctslab.exact` (minimax by
  enumeration): every node the compiled solver marks proven has exactly its game-theoretic
  value, on tic-tac-toe and small Connect Four boards, and small positions get their root
  proven within a budget.
* The same player as the Python solver (:class:`mctslab.agents.solver.Solver`): tree for tree
  is not possible, the two engines draw different random numbers (Numba's MT19937 against
  the agent's ``random.Random``), so, as for plain UCT in ``tests/test_engine.py``, seeded
  samples of searches from fixed positions must choose the same moves *with the same proven
  root values* at the same frequencies (chi-square homogeneity) and give each move the same
  mean visits (Welch z); the test is shown to reject compiled plain UCT, a kernel without proofs.
* Seeded results identical run to run whatever the chunking and growth of the arrays.

About 15 s of CPU once the kernels are in Numba's cache.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import numpy as np
import pytest
from test_engine import Z_LIMIT, homogeneity, needs_numba, visit_z

from mctslab import draw_tree, exact, make_agent, make_game
from mctslab.agents.solver import CompiledSolverNode, Solver
from mctslab.course.experiments.improvements import CONNECT4_ENDGAMES

pytestmark = needs_numba

VALUE = {1: 1.0, 0: 0.5, -1: 0.0}  # exact.solve's -1/0/1 as a value for the player to move
TTT = make_game("tictactoe")


def compiled(spec: str, seed: int) -> Solver:
    return make_agent(f"solver:{spec},engine=compiled", seed=seed)


def check_every_proof(game, root) -> int:
    """Assert that every proven node under ``root`` has its exact value; the number of proven nodes."""
    proven = 0
    for node in root.iter_nodes():
        if node.proven is not None:  # proven is for node.player, who made the move into it
            assert node.proven == 1.0 - VALUE[exact.solve(game, node.state)], (node, game.spec)
            proven += 1
    return proven


def depth_states(game, plies):
    return [
        s for s in exact.reachable_states(game) if len(game.legal_moves(s)) == 9 - plies and not game.is_terminal(s)
    ]


# -- the exact oracle --------------------------------------------------------------------------------
@pytest.mark.parametrize("plies", [4, 5])  # X to move after 4 plies, O after 5: both seats
def test_tictactoe_roots_are_proven_with_their_exact_values_and_so_is_every_proven_node(plies):
    states = depth_states(TTT, plies)[::7]  # 108 and 163 positions, every 7th
    assert {exact.solve(TTT, s) for s in states} == {-1, 0, 1}
    proofs = 0
    for i, state in enumerate(states):
        a = compiled("iterations=2000", seed=i).analyse(TTT, state)
        assert isinstance(a.root, CompiledSolverNode)
        assert a.value == VALUE[exact.solve(TTT, state)], (state, a.value)  # proven within the budget
        assert exact.move_values(TTT, state)[a.move] == exact.solve(TTT, state), "it plays a move keeping the value"
        proofs += check_every_proof(TTT, a.root)
    assert proofs > 10 * len(states)


def positions(game, plies: tuple[int, int], count: int, seed: int = 0) -> list:
    """``count`` positions (not over) of seeded random play, ``plies`` (low, high) moves in."""
    rng, states = random.Random(seed), []
    while len(states) < count:
        state = game.initial_state()
        for _ in range(rng.randint(*plies)):
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if not game.is_terminal(state):
            states.append(state)
    return states


@pytest.mark.parametrize("spec,plies", [("connect4:rows=4,cols=4", (8, 10)), ("connect4:rows=4,cols=5,k=3", (3, 6))])
def test_small_connect_four_every_proven_node_has_its_exact_value(spec, plies):
    """From the start (the root not proven) and from positions in play (proven within 20,000 iterations)."""
    game = make_game(spec)
    states = positions(game, plies, 8)
    assert len({exact.solve(game, s) for s in states}) >= 2
    proofs = 0
    for i, state in enumerate([game.initial_state(), *states]):
        a = compiled("iterations=20000", seed=i).analyse(game, state)
        proofs += check_every_proof(game, a.root)
        if i > 0:
            assert a.value == VALUE[exact.solve(game, state)], (spec, i, a.value)
            assert exact.move_values(game, state)[a.move] == exact.solve(game, state)
    assert proofs > 1000, proofs
    first = compiled("iterations=20000", seed=0).analyse(game, game.initial_state())
    if spec.endswith("k=3"):  # the first player wins 4 x 5 three in a row, and the solver proves it
        assert exact.solve(game, game.initial_state()) == 1 and first.value == 1.0
        assert exact.move_values(game, game.initial_state())[first.move] == 1
    else:  # a draw: too big a proof for this budget (every reply must be proven)
        assert exact.solve(game, game.initial_state()) == 0 and first.value is None


def test_proven_losses_are_never_played_and_a_lost_root_says_so():
    state = TTT.state_from_moves([0, 4, 8, 2, 6])  # X threatens 3 and 7: O (to move) is lost
    a = compiled("iterations=500", seed=0).analyse(TTT, state)
    assert a.value == 0.0 and a.root.proven == 1.0
    assert all(ch.proven == 0.0 for ch in a.root.children) and len(a.root.children) == 4
    win = TTT.state_from_moves([0, 3, 1, 4])  # X wins with 2
    for seed in range(5):
        b = compiled("iterations=50", seed=seed).analyse(TTT, win)
        assert b.move == 2 and b.value == 1.0 and b.root.child(2).proven == 1.0


# -- the same player as the Python solver --------------------------------------------------------------
@cache
def sample(spec: str, game, state, searches: int, seed: int) -> tuple[Counter, Counter, np.ndarray]:
    """``searches`` seeded analyses: counts of (move, proven root value), of moves, and root visits per move.

    Cached: the rejection test below reads the Python solver's sample of the same-player test.
    """
    pairs, moves = Counter(), Counter()
    legal = game.legal_moves(state)
    visits = np.zeros((searches, len(legal)))
    for i in range(searches):
        a = make_agent(spec, seed=seed + i).analyse(game, state)
        pairs[f"{a.move}/{a.value}"] += 1
        moves[a.move] += 1
        by_move = {s.move: s.visits for s in a.stats}
        visits[i] = [by_move.get(m, 0) for m in legal]
    return pairs, moves, visits


SAME_PLAYER_CASES = [  # (game, moves so far, iterations, searches per engine)
    ("tictactoe", [0, 1], 300, 300),  # X wins by force: proven in about half the searches
    ("connect4", CONNECT4_ENDGAMES[2], 200, 300),  # two winning moves, each proven or not
    ("connect4", CONNECT4_ENDGAMES[5], 700, 150),  # only 4 wins: UCT prefers 1, the solver proves 4 a third of the time
]


@pytest.mark.parametrize("spec,moves,iterations,searches", SAME_PLAYER_CASES)
def test_both_engines_are_the_same_solver(spec, moves, iterations, searches):
    """Same frequencies of (move, proven root value) (chi-square) and the same mean root visits per move (Welch z)."""
    game = make_game(spec)
    state = game.state_from_moves(moves)
    python, _, python_visits = sample(f"solver:iterations={iterations}", game, state, searches, seed=0)
    fast, _, fast_visits = sample(f"solver:iterations={iterations},engine=compiled", game, state, searches, 10_000)
    assert sum(n for key, n in fast.items() if not key.endswith("None")) >= 0.1 * searches, "proofs must happen"
    stat, df, p = homogeneity(python, fast)
    assert df >= 1
    assert p > 0.001, f"chi-square {stat:.1f} on {df} df: python {python}, compiled {fast}"
    z = visit_z(python_visits, fast_visits)  # nan: a move no search of either engine expanded (a proof came first)
    assert np.abs(z[~np.isnan(z)]).max() < Z_LIMIT, np.round(z, 1)


def test_the_test_rejects_compiled_plain_uct():
    """Moves alone, Python solver against compiled UCT (no proofs) where proofs matter: it rejects."""
    game = make_game("connect4")
    state = game.state_from_moves(CONNECT4_ENDGAMES[5])
    _, python, _ = sample("solver:iterations=700", game, state, 150, seed=0)
    _, uct, _ = sample("uct:iterations=700,engine=compiled", game, state, 150, seed=10_000)
    assert homogeneity(python, uct)[2] < 0.001, (python, uct)


# -- reproducible, whatever the chunks -----------------------------------------------------------------
def test_the_seeded_compiled_solver_is_the_same_however_the_budget_is_chunked(monkeypatch):
    """Chunks and growth continue one random stream and copy ``proven``: every array as one call's."""
    from mctslab.engine import tree as tree_module

    game = make_game("connect4:rows=4,cols=4")

    def arrays(**patches):
        for name, value in patches.items():
            monkeypatch.setattr(tree_module, name, value)
        a = compiled("iterations=20000", seed=3).analyse(game, game.initial_state())
        tree = a.root.tree
        used = tree.slots
        return a.move, a.value, a.stats, {name: getattr(tree, name)[:used].tolist() for name, _ in tree._ARRAYS}

    chunked = arrays(FIRST_CHUNK=64, MAX_CHUNK=128, INITIAL_SLOTS=16)  # hundreds of calls, many growths
    assert sum(p >= 0 for p in chunked[3]["proven"]) > 1000
    assert arrays(FIRST_CHUNK=1 << 20, MAX_CHUNK=1 << 20, INITIAL_SLOTS=1 << 19) == chunked  # one call
    assert arrays() == chunked  # and again, as shipped
    assert compiled("iterations=20000", seed=4).analyse(game, game.initial_state()).stats != chunked[2]


# -- the agent ----------------------------------------------------------------------------------------
def test_spec_round_trips_and_the_analysis_is_the_python_solvers_kind():
    agent = make_agent("solver:iterations=400,c=0.8,engine=compiled", seed=0)
    assert agent.spec == "solver:iterations=400,c=0.8,engine=compiled"
    assert make_agent(agent.spec).parameters() == agent.parameters()
    assert make_agent("solver").engine == "python"
    state = TTT.state_from_moves([0, 4])
    fast, slow = agent.analyse(TTT, state), Solver(iterations=400, c=0.8, seed=0).analyse(TTT, state)
    assert type(fast) is type(slow) and fast.rule == slow.rule and fast.iterations == 400
    assert [s.move for s in fast.stats] == [s.move for s in slow.stats] == sorted(s.move for s in fast.stats)
    assert fast.value is not None or sum(s.visits for s in fast.stats) == fast.root.visits == 400
    assert "proven" in repr(fast.root) and draw_tree(fast.root, TTT, depth=2).source


class Greedy(Solver):
    """A variant that changes the final move: the compiled solver does not run it as Solver."""

    def best_child(self, root):
        return root.children[0]


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda: Solver(iterations=10, engine="compiled", threads=2), "threads=2: .* one thread"),
        (lambda: Greedy(iterations=10, engine="compiled"), "Greedy overrides best_child"),
    ],
)
def test_what_it_cannot_run_is_refused_in_one_line(make, match):
    with pytest.raises(ValueError, match=match) as err:
        make().analyse(TTT, TTT.initial_state())
    assert "\n" not in str(err.value)
    for game in ("nim", "tictactoe:n=8,k=4"):
        with pytest.raises(ValueError, match="no kernel") as err:
            compiled("iterations=10", seed=0).select_move(make_game(game), make_game(game).initial_state())
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="random playouts only"):
        make_agent("solver:playout=decisive,engine=compiled")


def test_reuse_keeps_the_subtree_and_its_proofs():
    agent = compiled("iterations=500,reuse=true", seed=0)
    state = TTT.state_from_moves([0, 4])
    first = agent.analyse(TTT, state)
    reply = TTT.apply(TTT.apply(state, first.move), 8 if first.move != 8 else 2)
    kept = agent.analyse(TTT, reply).root
    assert kept.visits > 500 and kept.state == reply and kept.parent is None
    check_every_proof(TTT, kept)


def test_a_timed_search_and_the_tree_explorer():
    from mctslab.agents.solver import SolverNode
    from mctslab.viz import TreeExplorer

    timed = compiled("seconds=0.05", seed=0).analyse(TTT, TTT.state_from_moves([0, 4]))
    assert timed.iterations >= 1 and timed.move in TTT.legal_moves(TTT.state_from_moves([0, 4]))
    ex = TreeExplorer(TTT, iteration=20, agent=compiled("iterations=100", seed=0))
    assert "engine=compiled" in ex.note and type(ex.root) is SolverNode  # explored on the Python engine
