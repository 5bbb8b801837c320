"""Root parallelism without Numba: ``uct:threads=K,parallel=root`` on the python engine runs K processes.

The checks: the summed root equals K separate seeded single-process searches (the seeds drawn
from the agent's generator as the compiled root parallelism draws them) summed move by move,
and the move is chosen by the summed visits; seeded results repeat run after run; a game
with chance nodes works too; the spec round-trips; what crosses to a process pickles. Budgets
are small (tens of milliseconds per search); the pool is started once for the module.
"""

from __future__ import annotations

import json
import pickle

import pytest

from mctslab import make_agent, make_game
from mctslab.agents.processes import one_root, single_spec


def _seeds(seed: int, k: int) -> list[int]:
    rng = make_agent("uct", seed=seed).rng
    return [rng.getrandbits(32) for _ in range(k)]


@pytest.mark.parametrize(("spec", "its"), [("tictactoe", 150), ("connect4", 100)])
def test_the_summed_root_is_k_separate_seeded_searches_summed(spec, its):
    game = make_game(spec)
    state = game.apply(game.initial_state(), 0)
    k = 3
    agent = make_agent(f"uct:iterations={its},threads={k},c=1.1", seed=9)
    analysis = agent.analyse(game, state)
    visits: dict[int, int] = {}
    wins: dict[int, float] = {}
    roots = 0
    for seed in _seeds(9, k):
        root = make_agent(f"uct:iterations={its},c=1.1", seed=seed).search(game, state)
        roots += root.visits
        for ch in root.children:
            visits[ch.move] = visits.get(ch.move, 0) + ch.visits
            wins[ch.move] = wins.get(ch.move, 0.0) + ch.wins
    assert {s.move: s.visits for s in analysis.stats} == visits
    assert {ch.move: ch.wins for ch in analysis.root.children} == wins  # sums of halves: exact
    assert analysis.root.visits == roots == k * its and analysis.iterations == k * its
    assert analysis.move == max(sorted(visits), key=lambda m: (visits[m], wins[m] / visits[m]))


def test_a_node_class_s_own_statistics_are_summed_too():
    """UCB1-Tuned's squared rewards (``TunedNode.SUMMED``) reach the summed root, each the K searches' sum."""
    game = make_game("tictactoe")
    state = game.apply(game.initial_state(), 4)
    k = 2
    analysis = make_agent(f"tuned:iterations=120,threads={k}", seed=5).analyse(game, state)
    squares: dict[int, float] = {}
    for seed in _seeds(5, k):
        for ch in make_agent("tuned:iterations=120", seed=seed).search(game, state).children:
            squares[ch.move] = squares.get(ch.move, 0.0) + ch.squares
    assert type(analysis.root).__name__ == "TunedNode"
    assert {ch.move: ch.squares for ch in analysis.root.children} == squares  # sums of quarters: exact
    assert all(s.exploration is not None for s in analysis.stats)


def test_seeded_results_repeat_and_the_seed_matters():
    game = make_game("connect4")
    state = game.initial_state()

    def stats(seed: int) -> tuple:
        analysis = make_agent("uct:iterations=80,threads=2,parallel=root", seed=seed).analyse(game, state)
        return tuple((s.move, s.visits, s.mean) for s in analysis.stats)

    first = stats(1)
    assert stats(1) == first and stats(1) == first and stats(2) != first


def test_a_game_with_chance_and_a_playout_policy_search_in_processes():
    game = make_game("pig")
    agent = make_agent("uct:iterations=60,threads=2", seed=0)
    state = game.initial_state()
    analysis = agent.analyse(game, state)
    assert analysis.move in game.legal_moves(state) and analysis.iterations == 120
    c4 = make_game("connect4")
    decisive = make_agent("uct:iterations=60,threads=2,playout=decisive", seed=0)
    assert decisive.analyse(c4, c4.initial_state()).iterations == 120


def test_the_spec_round_trips_and_what_crosses_to_a_process_pickles():
    agent = make_agent("uct:iterations=50,threads=2,max_moves=30")
    assert agent.spec == "uct:iterations=50,max_moves=30,threads=2,parallel=root"
    assert make_agent(agent.spec).spec == agent.spec
    assert single_spec(agent) == "uct:iterations=50,max_moves=30"
    game = make_game("tictactoe")
    job = (game.spec, game.initial_state(), single_spec(agent), 5)
    assert pickle.loads(pickle.dumps(job)) == job
    assert pickle.loads(pickle.dumps(one_root(*job))) == one_root(*job)


MATCH = """
from mctslab.tournament.match import play_match
if __name__ == "__main__":
    runs = [
        play_match("tictactoe", "uct:iterations=40,threads=2", "uct:iterations=40", games=4, seed=0, workers=w,
                   progress=False)
        for w in (2, 1)
    ]
    print([[list(g.moves) for g in r.results] for r in runs])
"""


def test_a_tournament_in_worker_processes_plays_agents_that_search_in_processes(tmp_path):
    """Processes inside a tournament's worker processes: the match ends (a pool kept in a worker once held
    its exit for ever) and plays the same games as in one process. Run apart, with a time limit."""
    import os
    import subprocess
    import sys

    script = tmp_path / "match.py"
    script.write_text(MATCH)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    pools, alone = json.loads(done.stdout)
    assert pools == alone and len(pools) == 4
