"""Self-play training of a policy/value network, AlphaZero's loop at the scale of a notebook.

One round: play ``games_per_round`` games of PUCT against itself with the current network
(Dirichlet noise at the root, moves sampled in proportion to visits for the first
``sample_moves`` plies), add every position to a replay buffer with the search's visit
shares ``pi`` and the game's result ``z`` for the player to move, then take
``steps_per_round`` Adam steps on minibatches from the buffer, each position seen through
a random symmetry of the board (:meth:`mctslab.games.Game.symmetries`: 8 for tic-tac-toe). Every ``eval_every``
rounds the network is measured with :func:`evaluate` (PUCT+net against UCT at equal
simulations, and against perfect play), with Wilson intervals.

Everything is written to the output folder as it happens, so an interrupted run loses at
most one round and :func:`train` resumes it (same seed, same result as a run never stopped):

* ``log.jsonl``: one line per round (losses, buffer size, time) and per evaluation;
* ``net.npz``: the latest network (load it with :meth:`PolicyValueNet.load`, or play it
  as ``puct:evaluator=net,weights=OUT/net.npz``);
* ``checkpoint.npz``: the network, the optimiser and the replay buffer, for resuming.

Seeds: the initial weights, round ``r``'s game ``g``, its minibatches and its evaluation
come from the spawn paths ``(0,)``, ``(1, r, g)``, ``(2, r)`` and ``(3, r)`` of the seed
(:func:`mctslab.seeding.child_seed`), never from a running generator, so the result depends on
the seed alone.
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from .. import validation
from ..agents.puct import PUCT
from ..exact.enumeration import reachable_states
from ..games import make_game
from ..games.base import Game
from ..games.network import network_encoding
from ..nets.evaluators import legal_mask
from ..nets.network import Adam, Batch, PolicyValueNet
from ..seeding import Seed, child_seed, make_rng
from ..tournament import play_match
from . import folder


@dataclass
class TrainConfig:
    """The knobs of :func:`train` (the defaults train tic-tac-toe in seconds).

    Attributes:
        game: the game's spec.
        iterations: PUCT simulations per move in self-play and in evaluation.
        c: PUCT's ``c_puct``.
        noise: weight of the root's Dirichlet noise in self-play.
        alpha: its concentration.
        sample_moves: plies at the start of each self-play game whose move is sampled in
            proportion to visits (the most visited move afterwards).
        rounds: rounds of self-play + training.
        games_per_round: self-play games per round.
        steps_per_round: Adam steps per round.
        batch: minibatch size.
        buffer: positions kept in the replay buffer (the newest).
        hidden: width of the network's two hidden layers.
        lr: Adam's step size.
        l2: weight decay.
        eval_every: evaluate every this many rounds (and after the last), 0 never.
        eval_games: games per opponent in an evaluation.
        perfect: also evaluate against perfect play (games small enough to enumerate only,
            such as tic-tac-toe; see :mod:`mctslab.exact`).
        seed: the seed of everything.
    """

    game: str = "tictactoe"
    iterations: int = 32
    c: float = 1.5
    noise: float = 0.25
    alpha: float = 0.5
    sample_moves: int = 4
    rounds: int = 30
    games_per_round: int = 20
    steps_per_round: int = 100
    batch: int = 64
    buffer: int = 4000
    hidden: int = 64
    lr: float = 3e-3
    l2: float = 1e-4
    eval_every: int = 10
    eval_games: int = 40
    perfect: bool = True
    seed: int = 0


LIMITS = {"iterations": 100_000, "rounds": 1_000_000, "games_per_round": 100_000, "steps_per_round": 1_000_000,
          "batch": 100_000, "buffer": 10_000_000, "hidden": 4096, "eval_games": 1_000_000}  # fmt: skip
"""The largest value each integer setting takes (larger ones would only exhaust memory or time)."""

PERFECT_MAX_POSITIONS = 50_000
"""``perfect`` evaluation is for games with at most this many positions (tic-tac-toe has 5,478; each
evaluation solves the game in every worker process, so larger games are refused up front)."""


def check_config(config: TrainConfig) -> TrainConfig:
    """Check every setting (before anything is written); returns ``config``.

    Raises:
        TypeError, ValueError: one line naming the setting, its value and what is allowed.
    """
    v = validation
    for name in LIMITS:
        v.integer(name, getattr(config, name), low=1, high=LIMITS[name])
    for name in ("sample_moves", "eval_every", "seed"):
        v.non_negative_int(name, getattr(config, name))
    v.non_negative_number("c", config.c, finite=True)
    v.probability("noise", config.noise)
    v.positive_number("alpha", config.alpha, finite=True)
    v.positive_number("lr", config.lr, finite=True, hint=" (Adam's step size, such as 0.003)")
    v.non_negative_number("l2", config.l2, finite=True)
    if not isinstance(config.perfect, bool):
        raise TypeError(f"perfect must be True or False, got {config.perfect!r}")
    if not isinstance(config.game, str):
        raise TypeError(f"game must be a game's spec, got {config.game!r}")
    return config


def check_game(config: TrainConfig) -> Game:
    """The game of ``config``, refused if it has no network encoding or (with ``perfect``) is too large to solve."""
    game = make_game(config.game)
    network_encoding(game)  # refuses a game without one, in one line
    if config.perfect and config.eval_every:
        for count, _ in enumerate(reachable_states(game), 1):
            if count > PERFECT_MAX_POSITIONS:
                raise ValueError(
                    f"{game.spec} has more than {PERFECT_MAX_POSITIONS:,} positions: its evaluation cannot play "
                    "perfect play (exact play is for small games such as tictactoe); give --no-perfect "
                    "(evaluate against UCT only) or --eval-every 0"
                )
    return game


def self_play_game(game: Game, net: PolicyValueNet, config: TrainConfig, seed: Seed) -> list[tuple]:
    """One self-play game; returns its positions as ``(features, legal, pi, z)`` rows.

    The search draws from ``child_seed(seed, (0,))``, the sampled opening moves from ``(1,)``.
    """
    agent = PUCT(
        iterations=config.iterations, c=config.c, evaluator="net", noise=config.noise,
        alpha=config.alpha, seed=child_seed(seed, (0,)), network=net,
    )  # fmt: skip
    pick = make_rng(child_seed(seed, (1,)))
    state, rows, ply = game.initial_state(), [], 0
    encoding = network_encoding(game)
    while not game.is_terminal(state):
        root = agent.search(game, state)
        visits = np.zeros(encoding.policy_size)
        for child in root.children:
            visits[child.move] = child.visits
        pi = visits / visits.sum()
        if ply < config.sample_moves:
            move = pick.choices(range(encoding.policy_size), weights=visits)[0]
        else:
            move = agent.best_child(root).move
        rows.append((encoding.features(state), legal_mask(game, state), pi, game.to_move(state)))
        state = game.apply(state, move)
        ply += 1
    returns = game.returns(state)
    return [(x, legal, pi, returns[player]) for x, legal, pi, player in rows]


def evaluate(game: Game, weights: str | Path, config: TrainConfig, seed: int, progress: bool = False) -> dict:
    """PUCT+net against UCT at equal simulations, and against perfect play (tic-tac-toe), seats swapped.

    Returns:
        A dict: ``vs_uct`` (score, interval, wins/draws/losses) and, with
        ``config.perfect``, ``vs_perfect`` (the same; a loss there is a mistake of the network's search).
    """
    puct = f"puct:iterations={config.iterations},evaluator=net,weights={weights}"
    out: dict[str, Any] = {}
    opponents = {"vs_uct": f"uct:iterations={config.iterations}"}
    if config.perfect:
        opponents["vs_perfect"] = "perfect"
    for key, opponent in opponents.items():
        o = play_match(game, puct, opponent, games=config.eval_games, seed=seed, progress=progress).outcomes
        low, high = o.score_ci()
        out[key] = {"opponent": opponent, "games": o.games, "wins": o.wins, "draws": o.draws,
                    "losses": o.losses, "score": o.score, "low": low, "high": high}  # fmt: skip
    return out


def _append(path: Path, record: dict) -> None:
    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")


def read_log(out: str | Path) -> list[dict]:
    """The records of a training log (rounds and evaluations), in order.

    Args:
        out: a run's folder (its ``log.jsonl`` is read) or a ``.jsonl`` log file, such as
            the shipped network's ``WEIGHTS_DIR / "tictactoe_n3_k3.log.jsonl"``.
    """
    path = Path(out)
    path = path if path.suffix == ".jsonl" else path / "log.jsonl"
    if not path.exists():
        return []
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                record = None
            if not isinstance(record, dict):
                raise ValueError(f"{path} is damaged at line {number} (not a JSON record)")
            records.append(record)
    return records


def train(out: str | Path, config: TrainConfig | None = None, progress: bool = True) -> PolicyValueNet:
    """Train a network by self-play (module docstring); resumes a run already in ``out``.

    Every setting, the game and the folder are checked before anything is written
    (:func:`check_config`, :func:`check_game`, :func:`mctslab.alphazero.folder.check_name`);
    one run at a time trains in a folder (a lock). A round is evaluated before it is
    checkpointed, so an interrupted round is played again on resume, with the same result.

    Args:
        out: the output folder (created if needed).
        config: the knobs; a resumed run must use the same ones (checked), except
            ``rounds``, which may grow to train further. The network after round ``r`` is
            the same whether the run stopped there or not.
        progress: show a progress bar over rounds.

    Returns:
        The trained network (also in ``OUT/net.npz``).

    Raises:
        TypeError, ValueError: one line: a bad setting, a game that cannot be trained
            or evaluated, a folder that cannot be used (a file, busy, damaged, holding a
            run with another configuration, full), or training that diverged (non-finite
            weights, never saved).
    """
    config = check_config(config or TrainConfig())
    game = check_game(config)
    out = folder.check_name(out)
    folder.make_folder(out)
    with folder.lock(out):
        folder.check_config_file(out, asdict(config))
        try:
            return _train(out, game, config, progress)
        except OSError as err:
            doing = f"write {Path(err.filename).name}" if err.filename else "write"
            raise folder.folder_error(out, doing, err) from None


def _train(out: Path, game: Game, config: TrainConfig, progress: bool) -> PolicyValueNet:
    encoding = network_encoding(game)
    inputs = len(encoding.features(game.initial_state()))
    net = PolicyValueNet(inputs, encoding.policy_size, config.hidden, seed=child_seed(config.seed, (0,)))
    opt = Adam(net, lr=config.lr)
    symmetries = [(np.array(f), np.array(m)) for f, m in encoding.symmetries()]
    buffer: list[tuple] = []
    start = 0
    checkpoint = out / "checkpoint.npz"
    if checkpoint.exists():
        start, buffer = _restore(checkpoint, net, opt)
    if start > config.rounds:
        raise ValueError(
            f"{out} has trained {start} rounds already; rounds={config.rounds} asks for fewer "
            f"(give {start} to report it, more to train further)"
        )
    folder.write_config(out, asdict(config))
    log = out / "log.jsonl"
    _keep_log(log, start)
    rounds = tqdm(range(start, config.rounds), initial=start, total=config.rounds, desc="self-play rounds",
                  disable=not progress)  # fmt: skip
    for r in rounds:
        began = time.perf_counter()
        for g in range(config.games_per_round):
            buffer.extend(self_play_game(game, net, config, child_seed(config.seed, (1, r, g))))
        buffer = buffer[-config.buffer :]
        losses = _steps(net, opt, buffer, symmetries, config, r)
        net.save(out / "net.npz")
        record = {"kind": "round", "round": r + 1, "games": (r + 1) * config.games_per_round,
                  "positions": len(buffer), "loss": float(np.mean(losses)),
                  "seconds": round(time.perf_counter() - began, 3)}  # fmt: skip
        last = r + 1 == config.rounds
        if config.eval_every and ((r + 1) % config.eval_every == 0 or last):
            ev = evaluate(game, out / "net.npz", config, seed=child_seed(config.seed, (3, r)))
            record |= {"eval": ev}
        # The round's record, then its checkpoint: stopped in between, the resumed run drops
        # the record (_keep_log) and plays the round again, to the same result.
        _append(log, record)
        _save(checkpoint, net, opt, r + 1, buffer)
        rounds.set_postfix(loss=f"{record['loss']:.3f}")
    return net


def _steps(net: PolicyValueNet, opt: Adam, buffer: list[tuple], symmetries: list, config: TrainConfig, r: int) -> list:
    """Round ``r``'s Adam steps; the losses. Refuses to go on from non-finite weights (nothing is saved)."""
    batch_rng = np.random.default_rng(child_seed(config.seed, (2, r)))
    losses = []
    for step in range(config.steps_per_round):
        idx = batch_rng.integers(0, len(buffer), size=min(config.batch, len(buffer)))
        sym = batch_rng.integers(0, len(symmetries), size=len(idx))
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is refused below, in one line
            loss, grads = net.gradients(_batch([buffer[i] for i in idx], [symmetries[k] for k in sym]), config.l2)
            opt.step(grads)
        losses.append(loss)
        if not (np.isfinite(loss) and all(np.all(np.isfinite(p)) for p in net.params.values())):
            raise ValueError(
                f"training diverged in round {r + 1}, step {step + 1}: the network's weights are no longer "
                f"finite numbers (nothing of this round was saved); lower --lr (got {config.lr})"
            )
    return losses


def _keep_log(log: Path, rounds_done: int) -> None:
    """Drop the log's records of rounds after the checkpoint's (a run stopped between the two writes)."""
    records = read_log(log)
    kept = [r for r in records if not isinstance(r.get("round"), int) or r["round"] <= rounds_done]
    if len(kept) != len(records):
        folder.write_atomic(log, "".join(json.dumps(r) + "\n" for r in kept).encode())


def _batch(rows: list[tuple], symmetries: list[tuple[np.ndarray, np.ndarray]]) -> Batch:
    """A minibatch, each row seen through one of the board's symmetries (:meth:`Game.symmetries`)."""
    x = np.array([row[0][f] for row, (f, _) in zip(rows, symmetries, strict=True)])
    legal = np.array([row[1][m] for row, (_, m) in zip(rows, symmetries, strict=True)])
    pi = np.array([row[2][m] for row, (_, m) in zip(rows, symmetries, strict=True)])
    return Batch(x, legal, pi, np.array([row[3] for row in rows], dtype=float))


def _save(path: Path, net: PolicyValueNet, opt: Adam, rounds_done: int, buffer: list[tuple]) -> None:
    x, legal, pi, z = (np.array(col) for col in zip(*buffer, strict=True))
    arrays = {f"net_{k}": v for k, v in net.params.items()} | {f"opt_{k}": v for k, v in opt.state().items()}
    buf = io.BytesIO()
    np.savez(buf, rounds_done=np.array(rounds_done), x=x, legal=legal, pi=pi, z=z, **arrays)
    folder.write_atomic(path, buf.getvalue())  # an interrupted save leaves the previous checkpoint


def _restore(path: Path, net: PolicyValueNet, opt: Adam) -> tuple[int, list[tuple]]:
    try:
        with np.load(path, allow_pickle=False) as data:
            params = {k: np.array(data[f"net_{k}"], dtype=float) for k in net.params}
            state = {k[4:]: np.array(data[k]) for k in data.files if k.startswith("opt_")}
            buffer = list(zip(data["x"], data["legal"], data["pi"], data["z"].tolist(), strict=True))
            done = int(data["rounds_done"])
        for k, v in params.items():
            if v.shape != net.params[k].shape or not np.all(np.isfinite(v)):
                raise ValueError(f"its {k} has shape {v.shape} or non-finite values")
        probe = Adam(net)
        probe.restore(state)
        if done < 1 or not buffer:
            raise ValueError("it records no finished round")
    except Exception as err:  # a damaged file can raise almost anything from numpy or zipfile
        raise ValueError(
            f"the checkpoint {path} is damaged ({type(err).__name__}: {' '.join(str(err).split())[:120]}); "
            "delete it to train from the start, or use another folder"
        ) from None
    net.params = params
    opt.restore(state)
    return done, buffer


def config_from(values: dict[str, Any]) -> TrainConfig:
    """A :class:`TrainConfig` from a dict, refusing unknown keys (ValueError naming the known ones)."""
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(values.keys() - known)
    if unknown:
        raise ValueError(f"unknown training settings {unknown}; known: {', '.join(sorted(known))}")
    return TrainConfig(**values)
