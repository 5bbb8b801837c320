"""The ``train`` subcommand of ``python -m mctslab`` (registered by :mod:`mctslab.cli`)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import fields

from ..tournament import RunIncomplete
from .training import TrainConfig, config_from, read_log, train

SUMMARY = "train a policy/value network for PUCT by self-play (resumable: run it again to continue)"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``train`` options: the game, ``--out``, and every :class:`TrainConfig` setting."""
    parser.add_argument("game", help="the game's spec: tictactoe or connect4")
    parser.add_argument("--out", required=True, help="output folder (log.jsonl, net.npz, checkpoint.npz)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    for f in fields(TrainConfig):
        if f.name == "game":
            continue
        if f.type in ("bool", bool):
            parser.add_argument(f"--no-{f.name.replace('_', '-')}", dest=f.name, action="store_false",
                                help=f"turn off {f.name} (default on)")  # fmt: skip
            continue
        kind = {"int": int, "float": float}[str(f.type)]
        flag = f"--{f.name.replace('_', '-')}"
        parser.add_argument(flag, type=kind, default=f.default, help=f"(default {f.default})")


def run(args: argparse.Namespace) -> int:
    """Train (or resume), then print the last evaluation; returns 0 (130 on Ctrl-C, 1 if an evaluation broke off)."""
    values = {f.name: getattr(args, f.name) for f in fields(TrainConfig) if f.name != "game"}
    config = config_from({"game": args.game, **values})
    try:
        train(args.out, config, progress=not args.no_progress)
    except (KeyboardInterrupt, RunIncomplete) as stop:  # from an evaluation too: its advice is for matches
        done = sum(r.get("kind") == "round" for r in read_log(args.out)) if os.path.isdir(args.out) else 0
        what = (
            "interrupted"
            if isinstance(stop, KeyboardInterrupt)
            else f"error: an evaluation did not finish ({stop.reason})"
        )
        print(
            f"python -m mctslab train: {what}: {done} of {config.rounds} rounds are saved in {args.out}; "
            "run the same command again to resume from there (the unfinished round is played again)",
            file=sys.stderr,
        )
        return 130 if isinstance(stop, KeyboardInterrupt) else 1
    evals = [r for r in read_log(args.out) if "eval" in r]
    if evals:
        last = evals[-1]
        for key, ev in last["eval"].items():
            print(
                f"round {last['round']}: {key.replace('_', ' ')} ({ev['opponent']}): {ev['wins']} wins, {ev['draws']} "
                f"draws, {ev['losses']} losses in {ev['games']} games; score {ev['score']:.3f} "
                f"[{ev['low']:.3f}, {ev['high']:.3f}]"
            )
    print(f"network: {args.out}/net.npz (play it: puct:evaluator=net,weights={args.out}/net.npz)")
    return 0
