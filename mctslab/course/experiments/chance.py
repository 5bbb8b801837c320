"""Notebook 12's experiments on Pig: fixed policies as players, UCT's matches against them, a tree as text.

* :class:`PolicyPlayer`: plays a Pig policy given as a table (the optimal one of
  :func:`mctslab.exact.pig.solve`, or "hold at 20" from :func:`mctslab.exact.pig.policy_grid`);
* :func:`run_pig_match`: UCT against such a player, seats alternating, one line per game in a
  resumable results file (a run stopped half-way goes on where it stopped);
* :func:`tree_text`: a UCT tree with its chance nodes, drawn as indented text.

``python -m mctslab.course.experiments.chance`` regenerates the stored runs of notebook 12
(:data:`STORED_RUNS`; minutes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...agents import Agent, Analysis, make_agent
from ...agents.base import legal_or_raise
from ...agents.node import Node
from ...exact.pig import hold_at, policy_grid, solve
from ...games import CHANCE, Game, State, make_game
from ...games.kinds import TWO_PLAYERS, WITH_CHANCE
from ...games.pig import HOLD, ROLL, Pig
from ...play import play_game
from ...seeding import Seed
from ...tournament.stats import wilson


class PolicyPlayer(Agent):
    """Plays Pig by a table: roll where ``rolls[mine, theirs, total]`` is True, else hold.

    Not registered (it needs the table); build it with :func:`policy_player`.
    """

    handles = frozenset({TWO_PLAYERS, WITH_CHANCE})

    def __init__(self, rolls: np.ndarray, label: str, seed: Seed = None) -> None:
        super().__init__(seed)
        self.rolls = rolls
        self.policy = label

    def analyse(self, game: Game, state: State) -> Analysis:
        """The table's move at this position (hold once holding wins)."""
        moves = legal_or_raise(game, state)
        mine, theirs = state.scores[state.player], state.scores[1 - state.player]
        if moves == (HOLD,):
            return Analysis(HOLD)
        return Analysis(ROLL if self.rolls[mine, theirs, state.total] else HOLD)


def policy_player(which: str, target: int) -> PolicyPlayer:
    """``"optimal"`` (value iteration) or ``"hold20"`` (hold at 20 or at the target) for Pig to ``target``."""
    if which == "optimal":
        return PolicyPlayer(solve(target, 6).roll, "optimal")
    if which == "hold20":
        return PolicyPlayer(policy_grid(hold_at(20), target), "hold at 20")
    raise ValueError(f"unknown Pig policy {which!r}; known: optimal, hold20")


@dataclass(frozen=True)
class PigMatch:
    """UCT's games against a policy: ``wins`` of ``games``, and how many of those it moved first."""

    uct: str
    opponent: str
    target: int
    games: int
    wins: int
    wins_first: int

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Wilson interval on UCT's win rate."""
        return wilson(self.wins, self.games, confidence)


def run_pig_match(
    uct: str,
    opponent: str,
    target: int,
    games: int,
    seed: int = 0,
    path: str | Path | None = None,
    progress: bool = True,
) -> PigMatch:
    """UCT (its spec) against ``opponent`` (``"optimal"`` or ``"hold20"``) in Pig to ``target``: ``games`` games.

    UCT moves first in the even games. Game ``i`` is seeded with the ``i``-th child of
    ``numpy.random.SeedSequence(seed)`` (the dice and UCT). With ``path`` every game is
    appended to that JSON-lines file as it ends, and the games already there are not
    played again (the first line holds the setup, which must match).
    """
    setup = {"uct": uct, "opponent": opponent, "target": target, "seed": seed}
    done: dict[int, bool] = {}
    if path is not None:
        path = Path(path)
        if path.exists():
            lines = path.read_text().splitlines()
            if json.loads(lines[0]) != setup:
                raise ValueError(f"{path} holds another run ({lines[0]}); setup asked: {setup}")
            done = {row["game"]: row["uct_won"] for row in map(json.loads, lines[1:])}
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(setup) + "\n")
    game = make_game(f"pig:target={target}")
    seeds = np.random.SeedSequence(seed).spawn(games)
    todo = [i for i in range(games) if i not in done]
    if progress and todo:  # no bar when the stored file holds every game
        from tqdm.auto import tqdm

        todo = tqdm(todo, desc=f"{uct} vs {opponent}", unit="game")
    for i in todo:
        uct_agent = make_agent(uct, seed=np.random.default_rng(seeds[i]).integers(2**32))
        other = policy_player(opponent, target)
        first = i % 2 == 0
        record = play_game(game, [uct_agent, other] if first else [other, uct_agent], seed=seeds[i])
        won = record.returns[0 if first else 1] == 1.0
        done[i] = won
        if path is not None:
            with path.open("a") as out:
                out.write(json.dumps({"game": i, "uct_won": won}) + "\n")
    played = [i for i in range(games) if i in done]
    wins = sum(done[i] for i in played)
    return PigMatch(uct, opponent, target, len(played), wins, sum(done[i] for i in played if i % 2 == 0))


def tree_text(game: Pig, root: Node, depth: int = 3, min_visits: int = 1) -> str:
    """A UCT tree as indented text: a player's node by its move, a chance node with its outcomes' probabilities."""
    lines: list[str] = []

    def walk(node: Node, level: int, label: str) -> None:
        kind = "chance" if game.to_move(node.state) == CHANCE else "player"
        lines.append(f"{'    ' * level}{label} [{kind}] visits {node.visits}, mean {node.mean:.3f}")
        if level == depth:
            return
        outcomes = dict(game.chance_outcomes(node.state)) if kind == "chance" else {}
        for child in sorted(node.children, key=lambda ch: ch.move):
            if child.visits < min_visits:
                continue
            if kind == "chance":
                name = f"face {child.move} (p = {outcomes[child.move]})"
            else:
                name = "roll" if child.move == ROLL else "hold"
            walk(child, level + 1, name)

    walk(root, 0, "root")
    return "\n".join(lines)


STORED_RUNS = (
    ("uct:iterations=300", "optimal", 30, 1000),
    ("uct:iterations=300", "hold20", 30, 1000),
)
"""The long runs notebook 12 reads: (UCT, opponent, target, games), stored in ``notebooks/data/12_chance/``."""


def stored_path(folder: str | Path, uct: str, opponent: str, target: int) -> Path:
    """The results file of one stored run."""
    return Path(folder) / f"{uct.replace(':', '_').replace('=', '')}_vs_{opponent}_to{target}.jsonl"


if __name__ == "__main__":
    for spec, rival, goal, count in STORED_RUNS:
        run_pig_match(spec, rival, goal, count, path=stored_path("notebooks/data/12_chance", spec, rival, goal))
