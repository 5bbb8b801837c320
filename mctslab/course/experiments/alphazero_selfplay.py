"""Why the network values the empty board at about 0.73: the games it learned from.

The value head learns the results ``z`` of the self-play games in its replay buffer. Those
games are exploratory by design (Dirichlet noise on the root's priors, the first plies
sampled in proportion to visits), and exploration costs the defending side more than
the attacker. :func:`exploratory_self_play` plays the shipped network against itself with
the training's exploration (:func:`mctslab.alphazero.training.self_play_game`, the shipped
run's settings) and counts what X scored; :func:`greedy_self_play` plays it without any
exploration, a single game since nothing in it is random.

``python -m mctslab.course.experiments.alphazero`` stores the exploratory games beside
the notebook's matches (one JSON line per game, resumable).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from tqdm.auto import tqdm

from ...agents.registry import make_agent
from ...alphazero.training import TrainConfig, config_from, self_play_game
from ...games import make_game
from ...nets.evaluators import WEIGHTS_DIR, shipped_network
from ...seeding import child_seed
from ...tournament.stats import Outcomes

SELF_PLAY_GAMES = 1000
"""Exploratory self-play games stored for the notebook."""

SELF_PLAY_FILE = "self_play_exploratory.jsonl"
"""Their results file, in the folder of the stored matches."""


def shipped_config() -> TrainConfig:
    """The training settings of the shipped tic-tac-toe network (its ``config.json``)."""
    return config_from(json.loads((WEIGHTS_DIR / "tictactoe_n3_k3.config.json").read_text()))


def exploratory_self_play(
    games: int, seed: int = 0, *, out: str | os.PathLike | None = None, progress: bool = False
) -> Outcomes:
    """X's wins, draws and losses when the shipped network plays itself as in training.

    Game ``g`` is :func:`~mctslab.alphazero.training.self_play_game` with seed
    ``child_seed(seed, (g,))`` and the shipped run's settings (32 simulations, noise 0.25,
    alpha 0.5, the first 4 plies sampled in proportion to visits).

    Args:
        games: games to play, >= 1.
        seed: the seed of every game's seed.
        out: a folder for the resumable results file :data:`SELF_PLAY_FILE`, or ``None``.
        progress: a progress bar.

    Raises:
        ValueError: if ``games < 1``, or the file holds games of other settings or another seed.
    """
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be an int >= 1, got {games!r}")
    game, config = make_game("tictactoe"), shipped_config()
    header = {"kind": "self-play", "network": "shipped tictactoe", "seed": seed, "config": asdict(config)}
    x_returns: dict[int, float] = {}
    path = None if out is None else Path(out) / SELF_PLAY_FILE
    if path is not None and path.exists():
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if not lines or lines[0] != header:
            raise ValueError(f"{path} holds other self-play games (its header differs); use another folder")
        x_returns = {rec["index"]: rec["x"] for rec in lines[1:]}
    elif path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(header) + "\n")
    net = shipped_network(game)
    todo = [g for g in range(games) if g not in x_returns]
    for g in tqdm(todo, desc="exploratory self-play", disable=not progress or not todo):
        rows = self_play_game(game, net, config, child_seed(seed, (g,)))
        x_returns[g] = rows[0][3]  # the first position's z: X's result
        if path is not None:
            with path.open("a") as f:
                f.write(json.dumps({"index": g, "x": x_returns[g], "plies": len(rows)}) + "\n")
    chosen = [x_returns[g] for g in range(games)]
    return Outcomes(sum(v == 1 for v in chosen), sum(v == 0.5 for v in chosen), sum(v == 0 for v in chosen))


def greedy_self_play(iterations: int = 32) -> tuple[list[int], tuple[float, float]]:
    """The one game the shipped network plays against itself without exploration: its moves and returns.

    PUCT with the network and no noise is deterministic, so every such game is this one.
    """
    game = make_game("tictactoe")
    agent = make_agent(f"puct:iterations={iterations},evaluator=net", seed=0)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        move = agent.select_move(game, state)
        moves.append(move)
        state = game.apply(state, move)
    return moves, game.returns(state)
