"""UCT through chance nodes: outcome children sampled by probability; close to Pig's optimal policy."""

from __future__ import annotations

from math import sqrt

import pytest

from mctslab import make_agent, make_game
from mctslab.agents import Rave, Solver
from mctslab.agents.base import CannotPlayError
from mctslab.exact.pig import solve
from mctslab.games import CHANCE
from mctslab.games.pig import HOLD, ROLL, PigState


def test_the_tree_has_chance_nodes_whose_children_are_the_outcomes_in_proportion():
    game = make_game("pig:target=10")
    root = make_agent("uct:iterations=3000", seed=3).search(game, game.initial_state())
    chance = root.child(ROLL)
    assert game.to_move(chance.state) == CHANCE
    assert sorted(ch.move for ch in chance.children) == [1, 2, 3, 4, 5, 6]
    n = chance.visits - 1  # the visit that created the chance node drew no outcome
    for ch in chance.children:
        assert ch.player == chance.player  # each outcome keeps the roller's statistics
        # Each face is drawn with probability 1/6: within four standard errors.
        assert abs(ch.visits / n - 1 / 6) < 4 * sqrt(5 / 36 / n), (ch.move, ch.visits, n)
    assert sum(ch.visits for ch in chance.children) == n


@pytest.mark.parametrize(
    ("position", "seed"),
    [((0, 0, 0), 1), ((6, 5, 2), 2), ((3, 9, 4), 3), ((5, 8, 0), 4)],
)
def test_uct_plays_the_optimal_move_where_the_gap_is_large(position, seed):
    """At positions where the optimal move is clearly better, UCT with 2,000 iterations finds it."""
    solution = solve(10, 6)
    mine, theirs, total = position
    hold, roll = solution.sides(mine, theirs, total)
    assert abs(roll - hold) > 0.05  # a clear gap between the two moves' exact values
    game = make_game("pig:target=10")
    state = PigState((mine, theirs), total, 0, False)
    analysis = make_agent("uct:iterations=2000", seed=seed).analyse(game, state)
    assert analysis.move == solution.move(*position)
    best = max(analysis.stats, key=lambda s: s.visits)
    assert best.visits > 1000


def test_compiled_engine_playouts_and_variants_refuse_chance():
    game = make_game("pig:target=10")
    state = game.initial_state()
    with pytest.raises(ValueError, match="engine=compiled cannot play pig"):
        make_agent("uct:iterations=10,engine=compiled").analyse(game, state)
    for variant in (Rave, Solver):
        with pytest.raises(CannotPlayError):
            variant(iterations=10).analyse(game, state)
    assert make_agent("uct").analyse(game, game.play(state, HOLD)).move in (ROLL, HOLD)


def test_decisive_playouts_draw_the_dice_by_their_probabilities():
    """Decisive and anti-decisive playouts pass through chance positions with the die's own odds."""
    import random

    from mctslab.agents.playouts import policy_rollout
    from mctslab.games.kinds import CHANCE
    from mctslab.tournament import wilson

    game = make_game("pig:target=10")
    faces = dict.fromkeys(range(1, 7), 0)
    for playout in ("decisive", "antidecisive"):
        for seed in range(150):
            played = policy_rollout(game, game.initial_state(), random.Random(seed), playout=playout)
            state = game.initial_state()
            for move in played.moves:  # a legal game, ending where the playout says
                if game.to_move(state) == CHANCE:
                    faces[move] += 1
                state = game.play(state, move)
            assert game.is_terminal(state) and game.returns(state) == played.returns
        assert make_agent(f"uct:iterations=30,playout={playout}", seed=1).analyse(game, state=game.initial_state())
    rolls = sum(faces.values())
    for face, count in faces.items():  # each face 1/6 (Bonferroni over 6 faces, 99.9% intervals)
        low, high = wilson(count, rolls, 1 - 0.001 / 6)
        assert low <= 1 / 6 <= high, (face, count, rolls)


def test_a_stored_match_resumes_where_it_stopped(tmp_path):
    from mctslab.course.experiments.chance import run_pig_match

    path = tmp_path / "run.jsonl"
    part = run_pig_match("uct:iterations=20", "hold20", 20, 3, seed=5, path=path, progress=False)
    whole = run_pig_match("uct:iterations=20", "hold20", 20, 6, seed=5, path=path, progress=False)
    fresh = run_pig_match("uct:iterations=20", "hold20", 20, 6, seed=5, progress=False)
    assert part.games == 3 and whole == fresh and len(path.read_text().splitlines()) == 7
    with pytest.raises(ValueError, match="another run"):
        run_pig_match("uct:iterations=30", "hold20", 20, 6, seed=5, path=path, progress=False)
