"""The checks of ``check_chance_uct`` that read the whole tree, at every depth, and the playouts' own moves.

Issue 40 found three wrong agents that passed every check of notebook 12, because the other
checks read the tree only down to the first outcome (depth 2) and the playouts only at chance
positions:

* ``growth``: the tree must grow by one node per iteration, below the outcomes too
  (:mod:`.growth`): an outcome's node made with no untried moves (30-41 nodes after 300
  iterations), or a selection that stops at the outcome's node it reaches (58-74 nodes),
  gave trees that stop growing at the first roll. Exact: a correct agent always passes.
* ``players``: every finished game in the tree, at every depth, is credited to the player who
  moved into it (the roller, after a roll), and, for nodes that keep a ``player`` (as
  :class:`~mctslab.course.exercises.TreeNode`), every node's ``player`` is that player. A
  child's ``player`` set to ``1 - parent.player`` is right in tic-tac-toe and wrong after a roll
  when the roller moves again (Pig): the tree of :data:`~.chance_probes.PIG_ENDGAME` reaches
  finished games at depth 3 and deeper. Exact: a correct agent always passes.
* ``playout_policy``: the playouts choose the players' moves uniformly at random.
  :data:`POLICY_SEARCHES` searches of one iteration each from :data:`POLICY_POSITION`: the
  search expands one of player 0's two choices (the bent coin or the steady die) and the
  playout makes player 1's, which the check sees (it watches ``apply`` on a game instance of
  its own, at player 1's positions, which a one-iteration tree never holds). The number of
  times the coin was chosen, of ``n`` choices, is Binomial(n, 1/2) for a uniform choice: it
  must lie in its exact acceptance region at level :data:`POLICY_ALPHA` (2.5e-7). A playout
  that always takes the first legal move (in Pig: never holds) or the last chooses the coin
  ``n`` or 0 times, outside the region whenever ``n >= 23``: here ``n`` is 200 and it always
  fails. Then player 0's wins must lie in their exact acceptance region too (given the
  children the searches expanded, a sum of independent Bernoulli draws with probabilities
  101/200 after the coin and 17/20 after the die: :func:`~.chance_game.random_play_win`),
  for a playout whose choices are uniform but whose results are not those of the game. Two
  tests at POLICY_ALPHA: a correct agent fails with probability at most 5e-7.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...games import drawing
from ...games.base import Game, State
from ...games.kinds import CHANCE
from .chance_game import COIN, STEADY, DiceState, LoadedDice, WatchedDice, random_play_win
from .chance_probes import _NAMES, ALPHA, ITERATIONS, PIG_ENDGAME, Outcome, _Failed, acceptance, region
from .growth import growth_slip, read_growth
from .student import _Skip

POLICY_GAME = LoadedDice((COIN, STEADY), turns=2)
"""Two rolls; each player chooses the bent coin (0 or 2, 9/10 and 1/10) or the steady die (1 or 2, evenly)."""
POLICY_POSITION = DiceState(0, (1, 0), -1)
"""Player 0 to choose, one point ahead: the search expands one choice, the playout makes player 1's."""
POLICY_SEARCHES = 200
"""Searches of one iteration read by ``playout_policy``."""

POLICY_ALPHA = ALPHA / 4
"""The level of each of the two tests of ``playout_policy`` (5e-7 for both, so that the statistical checks of
``check_chance_uct`` together stay below 2e-5)."""

GROWTH_TREES = ("roll0", "roll1", "pig", "pig_end")
"""The searches (of :data:`~.chance_probes.ITERATIONS` iterations) whose growth is read."""

NAMES = {"select": "select_chance", "expand": "expand", "expand_outcome": "expand_chance"}
"""The functions of notebook 12's skeleton in the roles :func:`~.growth.growth_slip` blames."""


def poisson_binomial(ps: list[float]) -> list[float]:
    """The distribution of the number of successes of independent Bernoulli draws with probabilities ``ps``."""
    pmf = [1.0]
    for p in ps:
        padded = [*pmf, 0.0]
        pmf = [padded[k] * (1 - p) + (padded[k - 1] * p if k else 0.0) for k in range(len(padded))]
    return pmf


def policy_win(move: int) -> Fraction:
    """Player 0's chance of winning after choosing ``move`` at :data:`POLICY_POSITION`, then uniformly random play."""
    return random_play_win(POLICY_GAME, POLICY_GAME.apply(POLICY_POSITION, move), 0)


def _movers(game: Game, state: State, root: Any) -> list[tuple[Any, Any, State, int, int, bool]]:
    """Every node below ``root``: (node, parent, its position, the player who moved into it, depth, after a roll)."""
    out: list[tuple[Any, Any, State, int, int, bool]] = []
    stack = [(root, state, None, 0)]
    while stack:
        node, here, mover, depth = stack.pop()
        chance = game.to_move(here) == CHANCE
        for child in node.children:
            moved = mover if chance else game.to_move(here)  # an outcome's node: the roller, who moved into `node`
            after = game.apply(here, child.move)
            out.append((child, node, after, moved, depth + 1, chance))
            stack.append((child, after, moved, depth + 1))
    return out


def _credits_the_other(game: Game, wrong: list) -> bool:
    """Every node missed is a finished game credited exactly with the other player's results (not the mover's)."""
    for node, _, after, mover, _, _ in wrong:
        if not game.is_terminal(after) or abs(node.wins - node.visits * game.returns(after)[1 - mover]) > 1e-9:
            return False
    return True


class _DepthProbes:
    """The checks above; the runner (:class:`~.chance._Runner`) provides ``tree``, ``search``, ``agent``."""

    def tree(self, name: str) -> tuple[Game, Any]:  # the probes'
        raise NotImplementedError

    def search(self, agent: Any, game: Game, state: State) -> Any:  # the probes'
        raise NotImplementedError

    def agent(self, seed: int, iterations: int | None = None) -> Any:  # the runner's
        raise NotImplementedError

    def growth(self) -> Outcome:
        shown = []
        for name in GROWTH_TREES:
            game, root = self.tree(name)
            state = PIG_ENDGAME if name == "pig_end" else root.state
            growth = read_growth(game, state, root)
            slip = growth_slip(growth, ITERATIONS, NAMES)
            if slip is not None:
                return False, f"{_NAMES[name]}: {slip[0]}", slip[1]
            shown.append(growth.nodes)
        return True, (
            f"four searches of {ITERATIONS} iterations (loaded dice, Pig): {', '.join(map(str, shown))} nodes, one "
            "per iteration except those that end at a finished game, below the outcomes too"
        )

    def players(self) -> Outcome:
        game, root = self.tree("pig_end")
        nodes = _movers(game, PIG_ENDGAME, root)
        keeps = all(isinstance(getattr(n, "player", None), int) for n, *_ in nodes)
        convention = keeps and all(n.player == mover for n, _, _, mover, depth, _ in nodes if depth == 1)
        finished, wrong = set(), []
        for node, parent, after, mover, depth, after_roll in nodes:
            if game.is_terminal(after) and node.visits:
                finished.add(depth)
                if abs(node.wins - node.visits * game.returns(after)[mover]) > 1e-9:
                    wrong.append((node, parent, after, mover, depth, after_roll))
            elif convention and node.player != mover:
                wrong.append((node, parent, after, mover, depth, after_roll))
        if not any(d >= 3 for d in finished):
            raise _Failed(
                "in Pig to 10 at 8-9 no finished game below the first roll was reached in 300 iterations: after a "
                "roll of 2 to 6 player 0 moves again and holds to win, which a growing tree reaches at once",
                "select_chance",
            )
        if not wrong:
            depths = ", ".join(map(str, sorted(finished)))
            return True, (
                f"Pig to 10 at 8-9, {len(nodes)} nodes: the finished games at depths {depths} credited to the player "
                "who moved into them, the roller after a roll" + (", every node's `player` that player" * convention)
            )
        return self._players_diagnosis(game, wrong)

    def _players_diagnosis(self, game: Game, wrong: list) -> Outcome:
        node, parent, after, mover, depth, after_roll = min(wrong, key=lambda w: w[4])
        player = getattr(node, "player", None)
        move = f"outcome {node.move!r}" if after_roll else f"move {node.move!r} ({drawing(game).move_text(node.move)})"
        what = f"in Pig to 10 at 8-9, the node for {move} at depth {depth}"
        if game.is_terminal(after):
            seen = (
                f"{what} ends the game, won by player {game.winner(after)}; player {mover} moved into it, so its "
                f"`wins` should be {node.visits * game.returns(after)[mover]:g} of {node.visits} visits, but it has "
                f"{node.wins:g}"
            )
        else:
            seen = f"{what} has `player` = {player}, but player {mover} made that move"
        if player is None and _credits_the_other(game, wrong):  # nodes of another design: read their wins
            return (
                False,
                (
                    f"{seen}: it counts the other player's results. The player who moves into a node is the player "
                    "to move at its parent, game.to_move(parent's state), which does not simply alternate down the "
                    "tree: in Pig a player who rolls 2 to 6 moves again"
                ),
                "expand",
            )
        if player is None or player == mover:
            return (
                False,
                (
                    f"{seen}: `backpropagate` must add to each node the result of the player who moved into it "
                    "(`returns[node.player]`), at every depth"
                ),
                "backpropagate",
            )
        if after_roll:
            return (
                False,
                (
                    f"{seen} (`player` = {player}): an outcome's node counts the results of the player who rolled, its "
                    "`player` is the chance node's"
                ),
                "expand_chance",
            )
        flipped = ", 1 - its parent's `player`" if player == 1 - getattr(parent, "player", -1) else ""
        return (
            False,
            (
                f"{seen} (`player` = {player}{flipped}): a child's `player` is the player "
                "to move at its parent, game.to_move(node.state). In Pig a player who rolls 2 to 6 moves again, so "
                "the player does not simply alternate down the tree"
            ),
            "expand",
        )

    def playout_policy(self) -> Outcome:
        # Player 1 chooses only in the playout of a one-iteration search: the dice it chooses are the playouts'.
        game = WatchedDice(POLICY_GAME.dice, POLICY_GAME.turns)
        ps, wins = [], 0
        for seed in range(POLICY_SEARCHES):
            root = self.search(self.agent(2000 + seed, 1), game, POLICY_POSITION)
            visited = [ch for ch in root.children if ch.visits]
            if len(visited) != 1 or visited[0].move not in game.legal_moves(POLICY_POSITION):
                raise _Skip("a search of one iteration must visit one child of the root")
            ps.append(float(policy_win(visited[0].move)))
            wins += visited[0].wins == visited[0].visits  # a win: 1 (a draw is 0.5)
        chosen = game.chosen
        fix = "A playout chooses every player's move uniformly at random among the legal moves"
        told = (
            f"{POLICY_SEARCHES} searches of one iteration where player 0 (one point ahead) chooses the bent coin or "
            "the steady die, then the playout chooses for player 1"
        )
        n, coin = len(chosen), chosen.count(0)
        lo, hi = acceptance(n, Fraction(1, 2), POLICY_ALPHA) if n else (0, 0)
        if n and not lo <= coin <= hi:
            always = {0: " (always the last legal move; in Pig: always hold)", n: " (always the first legal move; in "
                      "Pig: always roll, never hold)"}.get(coin, "")  # fmt: skip
            return False, (
                f"{told}: the playouts chose the coin {coin} times and the die {n - coin} times{always}, where a "
                f"uniformly random choice gives {lo} to {hi} of each. {fix}, rng.choice(game.legal_moves(state))"
            )
        a, b = region(poisson_binomial(ps), POLICY_ALPHA)
        if not a <= wins <= b:
            return False, (
                f"{told}: player 0 won {wins}, where uniformly random choices give {a} to {b} (exact, given the "
                f"children the searches expanded). {fix}, rng.choice(game.legal_moves(state))"
            )
        seen = f"the coin {coin} times and the die {n - coin} times (within {lo} to {hi}); " if n else ""
        return True, f"{told}: it chose {seen}player 0 won {wins} (within {a} to {b})"
