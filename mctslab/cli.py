"""The command line: ``python -m mctslab COMMAND ...``.

Commands::

    python -m mctslab match GAME AGENT_A AGENT_B --games N --seed S [--workers W] [--out FILE] [--json]
    python -m mctslab move GAME AGENT --moves 4,0,8 --seed S [--json]
    python -m mctslab tournament GAME AGENT AGENT... --games N --seed S [--workers W] [--out FILE] [--json]
    python -m mctslab bench [--rounds R] [--scale S] [--c] [--only ROWS] [--memory] [--bandits] [--json]
    python -m mctslab course student OUT [--notebooks DIR]
    python -m mctslab course site OUT [--edition student|instructor] [--cdn] [--issues URL]
    python -m mctslab grade SUBMISSIONS/ --out grades.csv [--html REPORT_DIR] [--workers N]
    python -m mctslab games

GAME and AGENT are the specs of :func:`mctslab.make_game` and :func:`mctslab.make_agent`
(``tictactoe``, ``connect4:rows=6,cols=7``; ``uct:iterations=1000``, ``flat:playouts=100``).
Every registered agent is known, the experiments' agents too (``perfect``,
``fixedbudget:...``, ``racioppo:...``; ``--help`` lists them apart). Bad input exits with
status 2 and one line saying what is wrong. A run that does not finish says so in one line
and how many games its ``--out`` file keeps: status 130 when stopped by Ctrl-C (in any of its
processes), 1 when a worker died (e.g. killed by the system when memory ran out).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections.abc import Sequence

from .agents import AGENTS, canonical_spec, make_agent
from .alphazero import cli as train_command
from .bench import cli as bench_command
from .course import site as course_site
from .course.grader import cli as grade_command
from .games import CHANCE, GAMES, IllegalMoveError, describe_games, make_game
from .specs import SpecError
from .tournament import ResultsFileError, RunIncomplete, RunInterrupted, play_match, round_robin
from .tournament.match import SEATS
from .tournament.runner import MAX_WORKERS


def agent_arg(spec: str) -> str:
    """An agent spec from the command line, checked and made canonical.

    Raises:
        mctslab.SpecError: for an unknown agent (listing the known ones) or bad parameters.
    """
    return canonical_spec(spec)


class UsageError(Exception):
    """Bad command-line input, reported as one line without a traceback.

    Args:
        message: what is wrong.
        prog: the (sub)command it is about, e.g. ``"python -m mctslab match"``.
    """

    def __init__(self, message: str, prog: str | None = None) -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (argparse prints the usage too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see {self.prog} --help)", prog=self.prog)


# -- argument types ---------------------------------------------------------------------
# Strict: plain ASCII digits only. int() would also take " 5", "1_000" and other scripts'
# digits, which a typo can produce; a number on the command line is written one way.
_WHOLE = re.compile(r"[0-9]{1,18}")
_MOVE = re.compile(r"-?[0-9]{1,18}")


def _whole(text: str, low: int, high: int | None = None) -> int:
    allowed = f"a whole number >= {low}" if high is None else f"a whole number from {low} to {high:,}"
    if not _WHOLE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}")
    value = int(text)
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An int >= 1 (for --games, --batch-size), digits only."""
    return _whole(text, 1)


def workers_int(text: str) -> int:
    """An int from 1 to :data:`~mctslab.tournament.runner.MAX_WORKERS` (for --workers)."""
    return _whole(text, 1, MAX_WORKERS)


def seed_int(text: str) -> int:
    """An int >= 0 (for --seed), digits only: a negative seed is refused, not folded onto a positive one."""
    return _whole(text, 0)


def move_list(text: str) -> list[int]:
    """Comma-separated moves such as ``4,0,8`` (empty for the initial position)."""
    parts = [p.strip() for p in text.split(",")] if text.strip() else []
    if not all(_MOVE.fullmatch(p) for p in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated move numbers such as 4,0,8, got {text!r}")
    return [int(p) for p in parts]


def _add_run_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--games", type=positive_int, default=100, help=f"games {what} (default 100)")
    parser.add_argument("--seed", type=seed_int, default=0, help="the seed: same seed, same games (default 0)")
    parser.add_argument("--workers", type=workers_int, default=None, help="processes (default: every core)")
    parser.add_argument("--batch-size", type=positive_int, default=None, help="games per task (default: automatic)")
    parser.add_argument("--out", default=None, help="results file, one JSON line per game; re-run to resume")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


# -- match ------------------------------------------------------------------------------
def _configure_match(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game spec, e.g. tictactoe or connect4:rows=6,cols=7")
    parser.add_argument("a", metavar="AGENT_A", help="agent spec, e.g. uct:iterations=1000")
    parser.add_argument("b", metavar="AGENT_B", help="agent spec, e.g. flat:playouts=100")
    _add_run_options(parser, "in the match")
    parser.add_argument(
        "--seats",
        choices=SEATS,
        default="alternate",
        help="who moves first: alternate (default), or always A (a-first) or B (b-first)",
    )


def _run_match(args: argparse.Namespace) -> int:
    result = play_match(
        args.game,
        agent_arg(args.a),
        agent_arg(args.b),
        games=args.games,
        seed=args.seed,
        seats=args.seats,
        workers=args.workers,
        batch_size=args.batch_size,
        out=args.out,
        progress=not args.no_progress,
    )
    if args.json:
        print(json.dumps(result.as_dict()))
        return 0
    print(result.table())
    a_time, b_time = result.seconds
    print(f"thinking time: A {a_time:.2f} s, B {b_time:.2f} s; mean game length {result.mean_plies:.1f} moves")
    if result.resumed:
        print(f"{result.resumed} of the {result.games} games were read from {args.out}")
    return 0


# -- move -------------------------------------------------------------------------------
def _configure_move(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game spec, e.g. tictactoe")
    parser.add_argument("agent", help="agent spec, e.g. uct:iterations=2000")
    parser.add_argument("--moves", type=move_list, default=[], help="moves played so far, e.g. 4,0,8 (default none)")
    parser.add_argument("--seed", type=seed_int, default=0, help="the agent's seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def _stat_dict(stat) -> dict:
    if stat.score is not None:  # flat / windowed Monte Carlo: playouts and wins minus losses
        return {"move": stat.move, "playouts": stat.visits, "score": stat.score, "mean": round(stat.mean, 6)}
    out = {"move": stat.move, "visits": stat.visits, "mean": round(stat.mean, 6)}
    if stat.ucb is not None:
        out["ucb"] = round(stat.ucb, 6)
    return out


def _run_move(args: argparse.Namespace) -> int:
    game = make_game(args.game)
    agent = make_agent(agent_arg(args.agent), seed=args.seed)
    state = game.state_from_moves(args.moves)
    if game.is_terminal(state):
        winner = game.winner(state)
        result = "a draw" if winner is None else f"won by player {winner}"
        raise UsageError(f"the game is over after moves {','.join(map(str, args.moves))} ({result}): no move to choose")
    if game.to_move(state) == CHANCE:
        outcomes = ", ".join(f"{m} ({p})" for m, p in game.chance_outcomes(state))
        raise UsageError(
            f"chance moves after moves {','.join(map(str, args.moves))}, not an agent: add the outcome to --moves, "
            f"one of {outcomes}"
        )
    analysis = agent.analyse(game, state)
    if args.json:
        out = {
            "game": game.spec,
            "agent": agent.spec,
            "moves": args.moves,
            "to_move": game.to_move(state),
            "move": analysis.move,
            "iterations": analysis.iterations,
            "stats": [_stat_dict(s) for s in analysis.stats],
        }
        if any(s.ucb is not None for s in analysis.stats):  # each stat's "ucb" is this rule's value
            out["rule"] = analysis.rule or "UCB1"
        if analysis.value is not None:
            out["value"] = analysis.value
        print(json.dumps(out))
        return 0
    print(game.render(state))
    print(f"player {game.to_move(state)} to move; {agent.spec} plays {analysis.move}")
    if analysis.stats:
        print(analysis.table())
    if analysis.value is not None:
        print(f"value for the player to move: {analysis.value:.3f}")
    return 0


# -- tournament -------------------------------------------------------------------------
def _configure_tournament(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game spec, e.g. tictactoe")
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="two or more agent specs")
    _add_run_options(parser, "per pairing")


def _run_tournament(args: argparse.Namespace) -> int:
    if len(args.agents) < 2:
        raise UsageError(f"a tournament needs at least two agents, got {len(args.agents)}")
    result = round_robin(
        args.game,
        [agent_arg(a) for a in args.agents],
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        batch_size=args.batch_size,
        out=args.out,
        progress=not args.no_progress,
    )
    print(json.dumps(result.as_dict()) if args.json else result.table())
    return 0


def _configure_games(parser: argparse.ArgumentParser) -> None:
    del parser  # no arguments


def _run_games(args: argparse.Namespace) -> int:
    del args
    print(describe_games())
    return 0


COMMANDS = {
    "match": ("play two agents against each other, seats swapped", _configure_match, _run_match),
    "move": ("the move an agent picks in a position, with its statistics", _configure_move, _run_move),
    "tournament": ("round robin with a score table and Elo ratings", _configure_tournament, _run_tournament),
    "bench": (bench_command.SUMMARY, bench_command.configure, bench_command.run),
    "train": (train_command.SUMMARY, train_command.configure, train_command.run),
    "course": (course_site.COURSE_SUMMARY, course_site.configure_course, course_site.run_course),
    "grade": (grade_command.SUMMARY, grade_command.configure, grade_command.run),
    "games": ("the games, each parameter with its default and what it means", _configure_games, _run_games),
}
"""The subcommands: name -> (one line for ``--help``, add the arguments, run and return the exit status)."""


# -- entry point ------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m mctslab`` with every registered command."""
    parser = _Parser(
        prog="python -m mctslab",
        description="mctslab: play, analyse and compare Monte Carlo Tree Search agents.",
        epilog=(
            "games (`python -m mctslab games` lists their parameters): "
            f"{', '.join(sorted(GAMES))}; "
            f"agents: {', '.join(n for n in sorted(AGENTS) if not AGENTS[n].experiment)}; "
            f"experiments' agents: {', '.join(n for n in sorted(AGENTS) if AGENTS[n].experiment)}"
        ),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (summary, configure, _) in COMMANDS.items():
        configure(sub.add_parser(name, help=summary, description=summary))
    return parser


EXTRAS = {"grade": "course", "course": "course"}
"""The install extra that brings what a command needs beyond the core (numpy, tqdm)."""
MODULE_EXTRAS = {"numba": "fast"}
"""The install extra that brings a module any command may need (``engine=compiled``: Numba)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m mctslab`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    prog = parser.prog
    args = None
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            raise UsageError(f"give a command: {', '.join(COMMANDS)} (see {prog} --help)")
        prog = f"{parser.prog} {args.command}"
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            return COMMANDS[args.command][2](args)
    except (UsageError, SpecError, IllegalMoveError, ResultsFileError, ValueError) as err:
        where = getattr(err, "prog", None) or prog
        print(f"{where}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:
        missing = (err.name or "").split(".")[0]
        if not missing or missing == "mctslab":
            raise
        extra = MODULE_EXTRAS.get(missing) or EXTRAS.get(getattr(args, "command", None), "")
        hint = f"pip install 'mctslab[{extra}]'" if extra else f"pip install {missing}"
        print(f"{prog}: error: this command needs {missing}, which is not installed: {hint}", file=sys.stderr)
        return 2
    except RunInterrupted as stop:
        print(f"{prog}: {stop.message()}", file=sys.stderr)
        return 130
    except RunIncomplete as stop:
        print(f"{prog}: error: {stop.message()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"python -m mctslab: warning: {' '.join(str(message).split())}", file=sys.stderr)
