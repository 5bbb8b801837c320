"""Decisions graded exactly: random play, move choice rates and decision quality (notebooks 02 and 03).

Each function runs one experiment and returns a small dataclass of numbers; the
notebooks print and assert on them, and :mod:`mctslab.course.figures.plots` draws them. Every
random choice comes from ``seed``: decision ``j`` at budget ``i`` is seeded with
``SeedSequence(seed).spawn(...)[i].spawn(...)[j]`` (see
:func:`mctslab.tournament.game_seed`), and games are seeded by the tournament code, so
the numbers are the same on any number of processes.

* :func:`random_play_sample`: random games, to set beside :func:`mctslab.exact.random_play_odds`;
* :func:`choice_rates` and :func:`predicted_flat_choices`: how often an agent picks each move
  (``choice_rates(..., out=...)`` reads and extends a stored run of its decisions);
* :func:`decision_quality`: the simple regret and the perfect-move rate of agents on a set
  of positions, at several budgets (notebook 03).

Games against a fixed opponent are in :mod:`mctslab.course.experiments.strength`.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from ...agents import UCT, Agent, FixedBudget
from ...exact import best_moves, exact_flat_values, flat_values, move_odds, reachable_states
from ...games import drawing
from ...games.base import Game, State
from ...tournament import Outcomes, game_seed, wilson
from ...tournament.match import seed_header
from .decisions_store import DecisionsFile, play_chunk, run_header
from .seeded_records import Appender, RecordFile, RecordFileError, indexed

MakeAgent = Callable[[int, np.random.SeedSequence], Agent]
"""Builds an agent from a budget and a seed, e.g. ``lambda b, s: UCT(iterations=b, seed=s)``."""


# -- random play -------------------------------------------------------------------------
def random_play_sample(game: Game, games: int, seed: int) -> Outcomes:
    """Play ``games`` uniformly random games from the initial position.

    Returns:
        Player 0's (X's) :class:`~mctslab.tournament.Outcomes`: wins, draws and losses.
    """
    rng = random.Random(seed)
    start = game.initial_state()
    counts = {1.0: 0, 0.5: 0, 0.0: 0}
    for _ in range(games):
        counts[game.rollout(start, rng)[0]] += 1
    return Outcomes(counts[1.0], counts[0.5], counts[0.0])


# -- which move is chosen ----------------------------------------------------------------
@dataclass(frozen=True)
class ChoiceRates:
    """How often an agent chose each move of one position, at several budgets.

    Attributes:
        budgets: the budgets, in increasing order.
        moves: the legal moves of the position.
        counts: ``counts[i, j]``: decisions at ``budgets[i]`` that chose ``moves[j]``.
    """

    budgets: tuple[int, ...]
    moves: tuple[int, ...]
    counts: np.ndarray

    @property
    def decisions(self) -> int:
        """Decisions per budget."""
        return int(self.counts[0].sum())

    def rate(self, moves: int | Sequence[int]) -> np.ndarray:
        """Fraction of decisions that chose ``moves`` (one move or any of several), per budget."""
        wanted = {moves} if isinstance(moves, int) else set(moves)
        columns = [j for j, m in enumerate(self.moves) if m in wanted]
        return self.counts[:, columns].sum(axis=1) / self.decisions

    def band(self, moves: int | Sequence[int], confidence: float = 0.95) -> np.ndarray:
        """Wilson intervals of :meth:`rate` (95% by default), shape ``(len(budgets), 2)``."""
        return np.array([wilson(round(r * self.decisions), self.decisions, confidence) for r in self.rate(moves)])


def choice_rates(
    game: Game,
    state: State,
    make: MakeAgent,
    budgets: Sequence[int],
    decisions: int,
    seed: int,
    progress: bool = False,
    out: str | os.PathLike | None = None,
) -> ChoiceRates:
    """Let a freshly seeded agent choose a move in ``state``, ``decisions`` times at each budget.

    Decision ``j`` at ``budgets[i]`` is made by ``make(budgets[i], game_seed(seed, (i, j)))``,
    so it does not depend on the other decisions, on their order or on ``decisions``.

    Args:
        game: the game.
        state: the position.
        make: builds the agent from a budget and a seed.
        budgets: the budgets to try.
        decisions: decisions per budget, >= 1.
        seed: the experiment's seed.
        progress: show a ``tqdm`` progress bar counting the decisions.
        out: a stored run (:class:`~mctslab.course.experiments.seeded_records.RecordFile`):
            the decisions it holds are read, the missing ones made and appended, so an
            interrupted run resumes and a finished one is only read. Its header names the
            game, the position, its moves, the budgets, the agent at each budget (its spec)
            and the seed; a file of another run is refused. ``None`` (the default): make
            every decision, store nothing.

    Raises:
        RecordFileError: if ``out`` holds another run or a damaged record (see
            :mod:`~mctslab.course.experiments.seeded_records`).
    """
    moves = game.legal_moves(state)
    index = {m: j for j, m in enumerate(moves)}
    counts = np.zeros((len(budgets), len(moves)), dtype=int)
    store = None if out is None else RecordFile(out, choices_header(game, state, make, budgets, seed))
    stored = {} if store is None else stored_choices(store, len(moves))
    with tqdm(total=len(budgets) * decisions, desc="decisions", disable=not progress) as bar:
        for i, budget in enumerate(budgets):
            new = Appender(store, {"budget": i}, "picks", CHOICES_PER_RECORD)
            for j in range(decisions):
                pick = stored.get((i, j))
                if pick is None:
                    pick = index[make(budget, game_seed(seed, (i, j))).select_move(game, state)]
                    new.add(j, pick)
                counts[i, pick] += 1
                bar.update()
            new.flush()
    return ChoiceRates(tuple(budgets), moves, counts)


CHOICES_PER_RECORD = 100
"""Decisions per record of a stored run of :func:`choice_rates`: a run stopped loses at most as many."""


def choices_header(game: Game, state: State, make: MakeAgent, budgets: Sequence[int], seed: int) -> dict:
    """What identifies a stored run of :func:`choice_rates` (its file's header).

    The agent at each budget is named by its spec (an agent without one, by its class), as
    built for that budget's first decision.
    """
    agents = [make(b, game_seed(seed, (i, 0))) for i, b in enumerate(budgets)]
    return {
        "kind": "choice_rates",
        "game": getattr(game, "spec", type(game).__name__),
        "state": repr(state),
        "moves": [drawing(game).move_text(m) for m in game.legal_moves(state)],
        "budgets": list(budgets),
        "agents": [getattr(a, "spec", type(a).__name__) for a in agents],
        "seed": seed_header(seed),
    }


def stored_choices(store: RecordFile, moves: int) -> dict[tuple[int, int], int]:
    """The decisions of a stored run of :func:`choice_rates`: ``(budget index, decision) -> index of the move``.

    Each record is ``{"budget": i, "first": j, "picks": [...]}``: the moves (as indices into
    the header's ``moves``) of decisions ``j, j + 1, ...`` at the ``i``-th budget.

    Raises:
        RecordFileError: a damaged record (:func:`~.seeded_records.indexed`), or a move that
            is not one of the ``moves`` legal moves.
    """
    found = indexed(store.read(), "budget", "picks")
    if not all(isinstance(p, int) and 0 <= p < moves for p in found.values()):
        raise RecordFileError(f"{store.path}: a stored move is not one of the position's {moves} moves")
    return found


def predicted_flat_choices(game: Game, state: State, playouts: int, trials: int, seed: int) -> dict[int, float]:
    """How often flat Monte Carlo with ``playouts`` per move picks each move, from the exact playout odds.

    The ``playouts`` random games after a move are independent draws from that move's
    :func:`~mctslab.exact.move_odds`, so its wins and losses are a multinomial sample:
    this draws ``trials`` decisions from that model (ties broken at random, as the agent
    does) instead of playing the games. Notebook 02 checks the agent against it.

    Returns:
        Move -> fraction of the ``trials`` decisions that chose it.
    """
    rng = np.random.default_rng(seed)
    me = game.to_move(state)
    odds = move_odds(game, state)
    moves = list(odds)
    scores = np.empty((trials, len(moves)))
    for j, m in enumerate(moves):
        win, draw, loss = odds[m].for_player(me)
        counts = rng.multinomial(playouts, [win, draw, max(0.0, 1.0 - win - draw)], size=trials)
        scores[:, j] = counts[:, 0] - counts[:, 2]
    # Scores are integers: noise below 1 breaks ties uniformly and changes nothing else.
    chosen = np.argmax(scores + rng.random(scores.shape) * 0.5, axis=1)
    return {m: float(np.mean(chosen == j)) for j, m in enumerate(moves)}


# -- decision quality on a set of positions ----------------------------------------------
def sample_positions(game: Game, count: int, seed: int, min_moves: int = 4) -> list[State]:
    """``count`` different positions drawn at random from all reachable ones.

    Only positions with at least ``min_moves`` legal moves whose moves do not all have
    the same flat Monte Carlo value qualify (there is something to find).

    Raises:
        ValueError: if fewer than ``count`` positions qualify.
    """
    pool = []
    for state in reachable_states(game):
        if len(game.legal_moves(state)) >= min_moves:
            values = exact_flat_values(game, state).values()
            if max(values) != min(values):  # exact fractions: equal values compare equal
                pool.append(state)
    if len(pool) < count:
        raise ValueError(f"only {len(pool)} positions have at least {min_moves} moves; asked for {count}")
    picks = np.random.default_rng(seed).choice(len(pool), size=count, replace=False)
    return [pool[i] for i in sorted(picks)]


@dataclass(frozen=True)
class Quality:
    """How well an agent decided on a set of positions, at several budgets.

    Attributes:
        label: the agent's name.
        budgets: the budgets (playouts per decision).
        spent: mean playouts actually spent per decision, per budget.
        regret: mean simple regret per budget: the best move's flat value minus the
            chosen move's (:func:`mctslab.exact.flat_values`; 0 when the choice is the
            move pure Monte Carlo converges to).
        regret_se: standard error of each mean.
        perfect: fraction of decisions that chose a move perfect play allows.
    """

    label: str
    budgets: tuple[int, ...]
    spent: np.ndarray
    regret: np.ndarray
    regret_se: np.ndarray
    perfect: np.ndarray


def decision_quality(
    game: Game,
    positions: Sequence[State],
    label: str,
    make: MakeAgent,
    budgets: Sequence[int],
    repeats: int,
    seed: int,
    folder: str | os.PathLike | None = None,
) -> Quality:
    """Every position, ``repeats`` seeded decisions at each budget: simple regret and perfect-move rate.

    Args:
        game: a small game (the answers are exact, by enumeration).
        positions: the positions (see :func:`sample_positions`).
        label: the agent's name, for tables and legends.
        make: builds the agent from a budget and a seed.
        budgets: the budgets.
        repeats: decisions per position and budget, >= 1.
        seed: the experiment's seed; position ``p``'s ``r``-th decision at budget ``i``
            is seeded by ``(i, p, r)``, whatever the agent, so agents are compared on
            the same positions.
        folder: where the decisions are stored (one file per agent, one line per budget, see
            :mod:`.decisions_store`): budgets stored there are read, the others decided and
            appended; ``None``: decide them all, keep nothing. The numbers are the same.
    """
    truth = [(flat_values(game, s), set(best_moves(game, s))) for s in positions]
    stored = None
    if folder is not None:
        stored = DecisionsFile(folder, run_header(game, positions, label, make, budgets, repeats, seed))
    spent, regret, se, perfect = [], [], [], []
    for i, budget in enumerate(budgets):
        chunk = None if stored is None else stored.chunks.get(i)
        if chunk is None:
            chunk = play_chunk(game, positions, make, budget, i, repeats, seed)
            if stored is not None:
                stored.append(i, chunk)
        costs, regrets, good = [], [], []
        for p, (values, perfect_moves) in enumerate(truth):
            top = max(values.values())
            for r in range(repeats):
                move = chunk.moves[p * repeats + r]
                costs.append(chunk.iterations[p * repeats + r])
                regrets.append(top - values[move])
                good.append(move in perfect_moves)
        spent.append(np.mean(costs))
        regret.append(np.mean(regrets))
        se.append(np.std(regrets, ddof=1) / np.sqrt(len(regrets)))
        perfect.append(np.mean(good))
    return Quality(label, tuple(budgets), np.array(spent), np.array(regret), np.array(se), np.array(perfect))


def monte_carlo_makers() -> dict[str, MakeAgent]:
    """The agents of notebook 03 at a fixed budget per decision: flat, Racioppo 2020's window, halving, UCT."""
    return {
        "flat": lambda b, s: FixedBudget("flat", b, seed=s),
        "window (Racioppo 2020)": lambda b, s: FixedBudget("window", b, seed=s),
        "halving": lambda b, s: FixedBudget("halving", b, seed=s),
        "UCT": lambda b, s: UCT(iterations=b, seed=s),
    }
