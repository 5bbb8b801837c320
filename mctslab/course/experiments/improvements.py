"""The experiments of notebook 09, "Improving UCT": what each enhancement buys, measured.

* :func:`iterations_to_win`: how many iterations a UCT agent (or a variant) needs on a
  position with a forced win before the move it would play is a winning one, and stays
  one up to a limit (MCTS-Solver against UCT on Connect Four endgames);
* :data:`CONNECT4_ENDGAMES`: those endgames (found by seeded random play, checked exact
  by :func:`mctslab.exact.move_values` in the tests);
* :func:`head_to_head`: a variant against plain UCT at equal iterations, seats
  alternating, through :func:`mctslab.tournament.play_match` (resumable with ``out=``);
* :func:`timed_match`: a variant against plain UCT at equal time on Ultimate Tic-Tac-Toe,
  recording the seconds and iterations per move each side reached (:func:`reach`);
* :func:`measured_curve`: RAVE's score against UCT over budgets (:data:`CURVE_MATCHES`);
* :func:`node_counts`: tree nodes of UCT against positions stored with transpositions;
* :func:`playout_costs`: seconds per playout of each playout policy, interleaved.

Everything is seeded; the matches write results files (one JSON line per game) that
the notebook reads back: ``python -m mctslab.course.experiments.improvements`` plays what is
missing (resumable), at the size of :data:`MATCHES`, :data:`CURVE_MATCHES` and
:data:`TIMED_MATCHES` (those in one process, whatever ``--workers``: concurrent games would
share the cores their clocks measure).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...agents import UCT
from ...agents.playouts import policy_rollout
from ...games.base import Game, State
from ...tournament import MatchResult, Outcomes, play_match
from .curves import Curve

CONNECT4_ENDGAMES: tuple[tuple[int, ...], ...] = (
    (6, 5, 4, 2, 4, 6, 1, 6, 1, 5, 4, 6, 3, 4, 2, 3, 3, 5, 5, 5, 6, 2, 0, 2, 4, 0, 3, 4),
    (6, 0, 0, 6, 1, 6, 5, 1, 0, 6, 4, 5, 4, 4, 5, 0, 0, 0, 6, 2, 5, 5, 1, 4, 1, 3, 1, 1),
    (1, 1, 0, 4, 2, 1, 0, 3, 4, 3, 3, 0, 5, 5, 5, 5, 0, 6, 3, 4, 5, 4, 1, 1, 1, 2, 2, 2),
    (6, 3, 0, 6, 5, 6, 1, 5, 5, 3, 5, 5, 2, 5, 6, 1, 0, 6, 3, 4, 6, 1, 3, 2, 4, 3, 1, 0),
    (5, 0, 3, 5, 1, 2, 6, 4, 2, 6, 2, 1, 5, 3, 4, 3, 3, 2, 2, 0, 6, 6, 4, 6, 4, 4, 6, 2),
    (2, 3, 5, 1, 5, 3, 3, 3, 3, 5, 1, 4, 0, 2, 4, 4, 5, 0, 5, 3, 5, 0, 4, 6, 6, 1, 0, 0),
    (6, 5, 4, 2, 1, 1, 3, 6, 3, 6, 0, 2, 6, 6, 0, 0, 1, 6, 0, 0, 3, 3, 3, 1, 2, 3, 0, 2),
    (3, 0, 5, 4, 0, 0, 1, 4, 2, 0, 1, 6, 4, 6, 4, 5, 6, 6, 3, 4, 0, 5, 4, 2, 2, 5, 6, 6),
)
"""Connect Four (6 x 7) positions, as moves from the start, where the player to move has a
forced win that takes at least 5 plies and not every move wins. Found by seeded random
play (28 moves) and solved exactly; the tests re-check each with :mod:`mctslab.exact`."""


def iterations_to_win(agent: UCT, game: Game, state: State, winning: Iterable[int], limit: int) -> int | None:
    """Iterations until the move ``agent`` would play is winning and stays winning up to ``limit``.

    The search runs one iteration at a time from a fresh root; after each, the move
    :meth:`~mctslab.agents.uct.UCT.best_child` would play is checked against ``winning``.

    Args:
        agent: a UCT agent or a variant (its ``best_child`` is its final choice).
        game: the game.
        state: a position with a forced win for the player to move.
        winning: the moves that keep the forced win (from :func:`mctslab.exact.move_values`).
        limit: iterations to run, >= 1.

    Returns:
        The first iteration count from which the choice is always winning (through
        ``limit``), or ``None`` if it is not winning after iteration ``limit``.
    """
    winning = set(winning)
    root = agent.new_root(game, state)
    since = None
    for i in range(1, limit + 1):
        agent.iterate(game, root)
        if agent.best_child(root).move in winning:
            if since is None:
                since = i
        else:
            since = None
    return since


@dataclass(frozen=True)
class Race:
    """How soon each agent plays a forced win, per position and seed (``None``: not within the limit).

    Attributes:
        specs: the agents' specs (without seed), in column order.
        limit: iterations run per search.
        counts: ``counts[agent][k]`` for run ``k`` (positions x seeds, in that order).
    """

    specs: tuple[str, ...]
    limit: int
    counts: tuple[tuple[int | None, ...], ...]

    def solved(self, agent: int) -> int:
        """How many runs of agent ``agent`` (its column) play a winning move within the limit."""
        return sum(c is not None for c in self.counts[agent])

    def sooner(self, a: int, b: int) -> tuple[int, int, int]:
        """Runs where ``a`` needs fewer iterations than ``b``, as many, more (``None``: more than the limit)."""

        def key(c: int | None) -> int:
            return self.limit + 1 if c is None else c

        pairs = [(key(x), key(y)) for x, y in zip(self.counts[a], self.counts[b], strict=True)]
        return (sum(x < y for x, y in pairs), sum(x == y for x, y in pairs), sum(x > y for x, y in pairs))


def win_race(
    game: Game,
    positions: Sequence[Sequence[int]],
    agents: Sequence[Callable[[int], UCT]],
    specs: Sequence[str],
    seeds: Sequence[int],
    limit: int,
) -> Race:
    """:func:`iterations_to_win` for each agent on each position with each seed (the winning moves exact).

    Args:
        game: the game (small enough near the end for :func:`mctslab.exact.move_values`).
        positions: the positions, as moves from the start.
        agents: factories ``seed -> agent``, one per agent.
        specs: the agents' names for the table.
        seeds: one run per seed and position.
        limit: iterations per run.
    """
    from ... import exact

    counts: list[list[int | None]] = [[] for _ in agents]
    for moves in positions:
        state = game.state_from_moves(moves)
        values = exact.move_values(game, state)
        winning = [m for m, v in values.items() if v == 1]
        for seed in seeds:
            for column, make in zip(counts, agents, strict=True):
                column.append(iterations_to_win(make(seed), game, state, winning, limit))
    return Race(tuple(specs), limit, tuple(tuple(c) for c in counts))


# -- head to head against plain UCT ------------------------------------------------------
@dataclass(frozen=True)
class Pairing:
    """One match of the notebook: a variant against plain UCT on one game.

    Attributes:
        game: the game's spec.
        variant: the variant's spec.
        baseline: plain UCT's spec, at the same budget.
        games: games to play (seats alternate).
        budget: ``"iterations"`` or ``"time"``: what is equal between the two.
    """

    game: str
    variant: str
    baseline: str
    games: int
    budget: str = "iterations"

    @property
    def filename(self) -> str:
        """The results file's name: game, variant and budget, readable."""
        text = f"{self.game.split(':')[0]}__{self.variant}__{self.budget}"
        return text.replace(":", "_").replace(",", "_").replace("=", "-") + ".jsonl"


ITERATIONS = 200
"""Iterations per move of both sides in the equal-iterations matches."""

SECONDS = 0.02
"""Seconds per move of both sides in the equal-time matches (noisy on a loaded machine)."""

VARIANTS = ("solver", "rave", "transpositions", "uct:playout=decisive")
"""The variants measured (``uct:playout=decisive`` is UCT with decisive playouts)."""


def _with(spec: str, budget: str) -> str:
    sep = "," if ":" in spec else ":"
    return spec + sep + budget


def matches(scale: float = 1.0) -> list[Pairing]:
    """The notebook's matches: every variant against UCT on Connect Four and Ultimate Tic-Tac-Toe.

    At equal iterations (:data:`ITERATIONS`) on both games; at equal time
    (:data:`SECONDS`) on Connect Four. ``scale`` multiplies the number of games.
    """
    out = []
    for game, n in (("connect4", 60), ("uttt", 30)):
        for v in VARIANTS:
            # decisive playouts on Ultimate Tic-Tac-Toe cost about 100 times a random one: fewer games
            games = n // 2 if (game, v) == ("uttt", "uct:playout=decisive") else n
            variant = _with(v, f"iterations={ITERATIONS}")
            out.append(Pairing(game, variant, f"uct:iterations={ITERATIONS}", max(2, round(games * scale))))
    for v in VARIANTS:
        out.append(
            Pairing(
                "connect4", _with(v, f"seconds={SECONDS}"), f"uct:seconds={SECONDS}", max(2, round(40 * scale)), "time"
            )
        )
    return out


MATCHES = matches()
"""The matches at the size the notebook shows."""

CURVE_VARIANT = "rave"
"""The variant of the budget curve: RAVE, the largest effect at equal iterations on Ultimate
Tic-Tac-Toe, and the enhancement whose effect should depend most on the budget (AMAF
statistics stand in for the real ones while a node has few visits)."""

CURVE_BUDGETS = (25, 50, 100, 200, 400, 800)
"""Iterations per move of both sides on the budget curve (200 is the table's match, the same
file and games), doubling from 25 to 800 (at 800 a game takes about 7 s on a quiet core)."""

CURVE_GAMES = 30
"""Games per budget on the curve (seats alternating)."""


def curve_matches(scale: float = 1.0) -> list[Pairing]:
    """The budget curve's matches: :data:`CURVE_VARIANT` against UCT on Ultimate at each of :data:`CURVE_BUDGETS`.

    The match at 200 iterations is the table's (the same file, the same games).
    """
    return [
        Pairing(
            "uttt", _with(CURVE_VARIANT, f"iterations={n}"), f"uct:iterations={n}", max(2, round(CURVE_GAMES * scale))
        )
        for n in CURVE_BUDGETS
    ]


CURVE_MATCHES = curve_matches()
"""The budget curve's matches at the size the notebook shows."""


def measured_curve(out_dir: str | os.PathLike, pairings: Sequence[Pairing] | None = None) -> Curve:
    """The score of :data:`CURVE_VARIANT` against UCT at each budget of :data:`CURVE_MATCHES`, read back.

    From ``out_dir``; missing games are played (run the command first). ``xs``: iterations per move.
    """
    pairings = CURVE_MATCHES if pairings is None else pairings
    results = [head_to_head(p, out_dir) for p in pairings]
    return Curve(
        label=f"{CURVE_VARIANT} vs uct (Ultimate Tic-Tac-Toe)",
        xs=tuple(float(p.variant.rpartition("iterations=")[2]) for p in pairings),
        outcomes=tuple(r.outcomes for r in results),
        opponent="uct",
        specs=tuple(p.variant for p in pairings),
    )


SEED = 2026
"""The seed of every match (game ``i`` of a match: ``SeedSequence(SEED).spawn(...)[i]``)."""


def head_to_head(
    pairing: Pairing,
    out_dir: str | os.PathLike | None = None,
    *,
    games: int | None = None,
    workers: int | None = 1,
    progress: bool = False,
) -> MatchResult:
    """Play (or read back) one pairing, the variant as A, seats alternating.

    Args:
        pairing: the match.
        out_dir: the folder of the results files; games already there are read, not
            played again (``None``: play everything, keep nothing).
        games: play only the first ``games`` games (the same games: game ``i`` has the
            same seed whatever the total).
        workers: processes (1: in this process).
        progress: show a progress bar.
    """
    out = None if out_dir is None else Path(out_dir) / pairing.filename
    n = pairing.games if games is None else games
    return play_match(
        pairing.game, pairing.variant, pairing.baseline, games=n, seed=SEED, workers=workers, out=out, progress=progress
    )


# -- head to head at equal time, with the iterations each side reached ------------------
TIMED_GAMES = 60
"""Games per equal-time match on Ultimate Tic-Tac-Toe (seats alternating)."""


def timed_matches(scale: float = 1.0) -> list[Pairing]:
    """The equal-time matches on Ultimate Tic-Tac-Toe: every variant against UCT at :data:`SECONDS` per move.

    The same time per move as on Connect Four: a game of about 50 plies then takes
    about a second, so 60 games per variant are affordable. They are played by
    :func:`timed_match`, which also records the iterations each side reached.
    """
    return [
        Pairing(
            "uttt", _with(v, f"seconds={SECONDS}"), f"uct:seconds={SECONDS}", max(2, round(TIMED_GAMES * scale)), "time"
        )
        for v in VARIANTS
    ]


TIMED_MATCHES = timed_matches()
"""The equal-time matches on Ultimate Tic-Tac-Toe at the size the notebook shows."""


def is_timed(pairing: Pairing) -> bool:
    """Whether ``pairing`` is played by :func:`timed_match`: the equal-time matches on Ultimate.

    Connect Four's equal-time games were played earlier by :func:`head_to_head` (through
    :func:`~mctslab.tournament.play_match`, which keeps no iteration counts) and stay as stored.
    """
    return pairing.budget == "time" and pairing.game == "uttt"


@dataclass(frozen=True)
class TimedGame:
    """One equal-time game, from the point of view of the variant (A) and UCT (B).

    Attributes:
        index: the game's number (its seed: ``SeedSequence(SEED).spawn(...)[index]``).
        a_first: whether A moved first (game ``i``: ``i`` even).
        winner: ``"a"``, ``"b"`` or ``None`` (a draw).
        moves: the moves played.
        seconds: wall-clock seconds A and B spent choosing their moves.
        iterations: iterations A and B ran over the game (what their clocks allowed).
        decisions: moves A and B chose.
    """

    index: int
    a_first: bool
    winner: str | None
    moves: tuple[int, ...]
    seconds: tuple[float, float]
    iterations: tuple[int, int]
    decisions: tuple[int, int]

    def as_dict(self) -> dict:
        """The game as one JSON object (a line of the results file)."""
        return {
            "index": self.index,
            "a_first": self.a_first,
            "winner": self.winner,
            "plies": len(self.moves),
            "seconds": list(self.seconds),
            "iterations": list(self.iterations),
            "decisions": list(self.decisions),
            "moves": list(self.moves),
        }

    @classmethod
    def from_dict(cls, d: dict) -> TimedGame:
        """The game of one results-file line."""
        return cls(
            d["index"],
            d["a_first"],
            d["winner"],
            tuple(d["moves"]),
            tuple(d["seconds"]),
            tuple(d["iterations"]),
            tuple(d["decisions"]),
        )


def play_timed_game(pairing: Pairing, index: int) -> TimedGame:
    """Play game ``index`` of ``pairing`` (seeded as :func:`~mctslab.tournament.play_match` does), counting iterations.

    Each move is chosen by the agent's ``analyse``, whose ``iterations`` is what the
    clock allowed; the seconds are measured around it, as :func:`mctslab.play.play_game` does.
    """
    from ...agents import make_agent
    from ...games import make_game
    from ...seeding import child_seeds
    from ...tournament import game_seed

    game = make_game(pairing.game)
    a_first = index % 2 == 0
    specs = (pairing.variant, pairing.baseline) if a_first else (pairing.baseline, pairing.variant)
    players = [
        make_agent(spec, seed=s) for spec, s in zip(specs, child_seeds(game_seed(SEED, (index,)), 2), strict=True)
    ]
    for agent in players:
        agent.reset()
    seconds, iterations, decisions = [0.0, 0.0], [0, 0], [0, 0]
    state = game.initial_state()
    moves = []
    while not game.is_terminal(state):
        mover = game.to_move(state)
        began = time.perf_counter()
        analysis = players[mover].analyse(game, state)
        seconds[mover] += time.perf_counter() - began
        iterations[mover] += analysis.iterations
        decisions[mover] += 1
        moves.append(int(analysis.move))
        state = game.play(state, analysis.move)
    a = 0 if a_first else 1  # A's seat
    won = game.winner(state)
    winner = None if won is None else ("a" if won == a else "b")
    return TimedGame(
        index,
        a_first,
        winner,
        tuple(moves),
        (round(seconds[a], 6), round(seconds[1 - a], 6)),  # as stored: microseconds
        (iterations[a], iterations[1 - a]),
        (decisions[a], decisions[1 - a]),
    )


@dataclass(frozen=True)
class TimedMatch:
    """An equal-time match's games, with what each side's clock allowed.

    Attributes:
        pairing: the match.
        games: its games, by index.
    """

    pairing: Pairing
    games: tuple[TimedGame, ...]

    @property
    def outcomes(self) -> Outcomes:
        """The variant's (A's) wins, draws and losses."""
        wins = sum(g.winner == "a" for g in self.games)
        losses = sum(g.winner == "b" for g in self.games)
        return Outcomes(wins, len(self.games) - wins - losses, losses)

    def iterations_per_move(self) -> tuple[float, float]:
        """Mean iterations per move that A (the variant) and B (UCT) reached in their time."""
        return tuple(sum(g.iterations[k] for g in self.games) / sum(g.decisions[k] for g in self.games) for k in (0, 1))

    def seconds_per_move(self) -> tuple[float, float]:
        """Mean wall-clock seconds per move of A and B (the budget, plus each move's overshoot)."""
        return tuple(sum(g.seconds[k] for g in self.games) / sum(g.decisions[k] for g in self.games) for k in (0, 1))


def _timed_header(pairing: Pairing) -> dict:
    from ...games import make_game

    return {
        "format": "mctslab-timed",
        "version": 1,
        "kind": "match",
        "game": make_game(pairing.game).spec,
        "agents": [pairing.variant, pairing.baseline],
        "seed": {"entropy": SEED, "spawn_key": []},
        "seats": "alternate",
        "seconds_per_move": SECONDS,
    }


def timed_match(
    pairing: Pairing,
    out_dir: str | os.PathLike | None = None,
    *,
    games: int | None = None,
    progress: bool = False,
) -> TimedMatch:
    """Play (or read back) an equal-time match, recording each side's iterations, in this process.

    Games already in ``out_dir``'s file are read, not played again; each new game is
    appended as it ends (an interrupted run loses at most the game under way). The moves
    depend on this machine's speed, so a game played again need not be the same one.

    Args:
        pairing: the match (its variant and baseline with ``seconds=``).
        out_dir: the folder of the results files (``None``: play everything, keep nothing).
        games: the first ``games`` games (default: ``pairing.games``).
        progress: show a progress bar.

    Raises:
        ValueError: if the file holds another match.
    """
    import json

    from tqdm.auto import tqdm

    n = pairing.games if games is None else games
    header = _timed_header(pairing)
    stored: dict[int, TimedGame] = {}
    path = None if out_dir is None else Path(out_dir) / pairing.filename
    if path is not None and path.exists() and path.stat().st_size:
        lines = path.read_text().splitlines()
        if json.loads(lines[0]) != header:
            raise ValueError(f"{path} holds another match (header {lines[0]})")
        for line in lines[1:]:
            if line.strip():
                g = TimedGame.from_dict(json.loads(line))
                stored[g.index] = g
    elif path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(header) + "\n")
    missing = [i for i in range(n) if i not in stored]
    for i in tqdm(missing, desc=f"{pairing.variant} vs {pairing.baseline} ({pairing.game})", disable=not progress):
        g = play_timed_game(pairing, i)
        stored[i] = g
        if path is not None:
            with path.open("a") as f:
                f.write(json.dumps(g.as_dict(), separators=(",", ":")) + "\n")
    return TimedMatch(pairing, tuple(stored[i] for i in range(n)))


class _ShowsLines:
    """Shows itself as its :meth:`lines`: in text (``str``, ``repr``) and, preformatted, in a notebook."""

    def lines(self) -> list[str]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        import html

        return "<pre>" + html.escape(str(self)) + "</pre>"


@dataclass(frozen=True)
class Reach(_ShowsLines):
    """What each side's clock allowed in the equal-time matches on this machine; shows itself."""

    matches: tuple[TimedMatch, ...]

    def lines(self) -> list[str]:
        """One line per match: seconds per move and mean iterations per move of each side."""
        out = [
            f"{'game':<6}{'variant (A) vs uct (B)':<40}{'s/move A':>9}{'s/move B':>9}{'it/move A':>10}{'it/move B':>10}"
        ]
        for m in self.matches:
            (sa, sb), (ia, ib) = m.seconds_per_move(), m.iterations_per_move()
            name = f"{m.pairing.variant}"
            out.append(f"{m.pairing.game.split(':')[0]:<6}{name:<40}{sa:>9.4f}{sb:>9.4f}{ia:>10.1f}{ib:>10.1f}")
        return out


def reach(out_dir: str | os.PathLike, pairings: Sequence[Pairing] | None = None) -> Reach:
    """The iterations and seconds per move of :data:`TIMED_MATCHES`, read back from ``out_dir``."""
    return Reach(tuple(timed_match(p, out_dir) for p in (TIMED_MATCHES if pairings is None else pairings)))


@dataclass(frozen=True)
class Row:
    """One line of the measured table: a variant's score against plain UCT, with its Wilson interval.

    Attributes:
        game: the game's spec.
        variant: the variant's spec.
        budget: ``"iterations"`` or ``"time"``.
        outcomes: the variant's wins, draws and losses.
    """

    game: str
    variant: str
    budget: str
    outcomes: Outcomes

    @property
    def verdict(self) -> str:
        """``"better"``/``"worse"`` than UCT when the 95% interval on the score excludes 1/2, else ``"not shown"``."""
        low, high = self.outcomes.score_ci()
        return "better" if low > 0.5 else "worse" if high < 0.5 else "not shown"


@dataclass(frozen=True)
class Table(_ShowsLines):
    """The measured table (enhancement x game x budget -> score vs UCT [95% interval]); shows itself."""

    rows: tuple[Row, ...]

    def lines(self) -> list[str]:
        """The table as text lines (under 100 characters)."""
        out = [f"{'game':<10}{'variant (A) vs uct':<38}{'budget':<11}{'games':>6}  {'score [95% Wilson]':<22}verdict"]
        for r in self.rows:
            o = r.outcomes
            low, high = o.score_ci()
            cell = f"{o.score:.3f} [{low:.3f}, {high:.3f}]"
            out.append(f"{r.game.split(':')[0]:<10}{r.variant:<38}{r.budget:<11}{o.games:>6}  {cell:<22}{r.verdict}")
        return out

    def row(self, game: str, variant: str, budget: str = "iterations") -> Row:
        """The row of ``variant`` (its name before ``:``, or the full spec) on ``game``."""
        for r in self.rows:
            if (
                r.game.split(":")[0] == game
                and r.budget == budget
                and (r.variant == variant or _short(r.variant) == variant)
            ):
                return r
        raise KeyError((game, variant, budget))


def _short(spec: str) -> str:
    name, _, rest = spec.partition(":")
    extra = [p for p in rest.split(",") if not p.startswith(("iterations=", "seconds="))]
    return ":".join([name, ",".join(extra)]) if extra else name


def measured_table(out_dir: str | os.PathLike, pairings: Sequence[Pairing] | None = None) -> Table:
    """The table of :data:`MATCHES` and :data:`TIMED_MATCHES` read back from ``out_dir``.

    Missing games are played: run the command first.
    """
    rows = []
    for p in [*MATCHES, *TIMED_MATCHES] if pairings is None else pairings:
        if is_timed(p):
            timed = timed_match(p, out_dir)
            rows.append(Row(p.game, p.variant, p.budget, timed.outcomes))
        else:
            result = head_to_head(p, out_dir)
            rows.append(Row(result.game, result.a, p.budget, result.outcomes))
    return Table(tuple(rows))


# -- transpositions: nodes ----------------------------------------------------------------
def node_counts(game: Game, budgets: Sequence[int], seed: int = 0) -> list[tuple[int, int, int]]:
    """``(iterations, UCT's tree nodes, positions with transpositions)`` from the initial position, per budget."""
    from ...agents.transpositions import TranspositionUCT

    rows = []
    for n in budgets:
        tree = UCT(iterations=n, seed=seed).search(game, game.initial_state())
        agent = TranspositionUCT(iterations=n, seed=seed)
        agent.search(game, game.initial_state())
        rows.append((n, tree.size(), len(agent.table)))
    return rows


# -- playouts: cost -----------------------------------------------------------------------
def playout_costs(
    game: Game,
    policies: Sequence[str] = ("random", "decisive", "antidecisive"),
    playouts: int = 20,
    rounds: int = 3,
    seed: int = 0,
) -> dict[str, float]:
    """Median seconds per playout from the initial position, per policy, the policies interleaved in rounds.

    ``"random"`` is the game's own fast rollout (what UCT plays by default). Timings on a
    loaded machine are noisy: compare the ratios, not the seconds.
    """
    times: dict[str, list[float]] = {p: [] for p in policies}
    state = game.initial_state()
    for r in range(rounds):
        for policy in policies:
            rng = random.Random(seed + r)
            start = time.perf_counter()
            for _ in range(playouts):
                if policy == "random":
                    game.rollout(state, rng)
                else:
                    policy_rollout(game, state, rng, None, policy)
            times[policy].append((time.perf_counter() - start) / playouts)
    return {p: sorted(t)[len(t) // 2] for p, t in times.items()}


def iteration_costs(game: Game, specs: Sequence[str], iterations: int = 300, rounds: int = 3) -> dict[str, float]:
    """Median seconds per iteration of each agent (a search from the initial position), interleaved in rounds.

    Divide by the ``"uct"`` entry for the cost relative to plain UCT; timings on a loaded
    machine are noisy, the ratios less so.
    """
    from ...agents import make_agent

    times: dict[str, list[float]] = {s: [] for s in specs}
    state = game.initial_state()
    for r in range(rounds):
        for spec in specs:
            agent = make_agent(spec, seed=r)
            agent.iterations = iterations
            start = time.perf_counter()
            agent.search(game, state)
            times[spec].append((time.perf_counter() - start) / iterations)
    return {s: sorted(t)[len(t) // 2] for s, t in times.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """Play every missing game of :data:`MATCHES` into ``OUT_DIR`` (default ``notebooks/data/09_improving_uct``)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("out_dir", nargs="?", default="notebooks/data/09_improving_uct")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", default="", help="play only the matches whose file name contains this")
    args = parser.parse_args(argv)
    Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    for pairing in [*MATCHES, *(p for p in CURVE_MATCHES if p not in MATCHES)]:
        if args.only in pairing.filename:
            head_to_head(pairing, args.out_dir, workers=args.workers, progress=True)
    for pairing in TIMED_MATCHES:  # one process: the clocks of concurrent games would compete
        if args.only in pairing.filename:
            timed_match(pairing, args.out_dir, progress=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
