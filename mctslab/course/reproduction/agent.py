"""Racioppo 2020's pure and windowed Monte Carlo, fast, with its defects as switches.

:class:`RacioppoMonteCarlo` makes the decisions of Racioppo 2020's ``f_Monte_Carlo_TTT``
(window 1) and ``f_Exp_Window_Monte_Carlo_TTT`` (windows 2 and 3) on 3 x 3 tic-tac-toe.
Each candidate move's ``playouts`` random games are drawn at once as a multinomial
sample from the exact outcome probabilities of :mod:`.outcomes`, which gives the same
distribution of decisions as playing them one by one (the tests check this against the
transcribed paper code, :mod:`.paper_code`) thousands of times faster.

Its ``defects`` are the ways Racioppo 2020's code departs from its own description
(:data:`DEFECTS`); ``procedure="paper"`` switches all of them on, which is how its
published numbers were made, and ``procedure="corrected"`` (the default) switches them
all off, which makes it decide exactly as :class:`mctslab.agents.WindowedMonteCarlo`
(``windowed:playouts=P,window=W,keep=4-2,reuse=false``; ``flat:playouts=P`` for window 1)
does with real playouts. Any subset can be switched on alone, to see what each does.

Named in tournaments and on the command line by specs such as
``racioppo:playouts=100,window=3,procedure=paper`` or ``racioppo:playouts=10,defects=turn-ties``.
It is registered as an experiment's agent (listed apart in ``--help``). Notebook 08 and
:mod:`mctslab.course.reproduction` use it.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ...agents.base import Agent, Analysis, MoveStat, Param, check_positive_int, legal_or_raise
from ...agents.registry import register_agent
from ...games.base import Game, State
from ...seeding import Seed

DEFECTS: dict[str, str] = {
    "turn": (
        "f_Rand_i alternates on its loop counter (i even: X), so every playout starts with an X move: "
        "after X's test move X moves twice in a row (O still replies after that), so every position X "
        "evaluates has an extra X stone"
    ),
    "check": (
        "f_Rand_i looks for a winner only after a random move, X's lines before O's: an O test move that "
        "wins is scored as an X win whenever X's next random move also makes a line"
    ),
    "index": (
        "window 3 evaluates np.array(pos)[idxs2], moves of the full list picked by indices into the list of "
        "the best 4, instead of the best 2 candidates, then plays a candidate chosen by those evaluations"
    ),
    "threshold": (
        "X narrows the window only with more than 4 (then 2) moves, O with at least 4 (then 2): with "
        "exactly 4 moves O re-runs the search on all 4 and goes on to window 3"
    ),
    "ties": (
        "ties go to numpy's order (argmax: the first move in the list; np.flip(np.argsort(...)) for X's "
        "window: the last), not to a random move: with 10 playouts ties are common and low cells win them"
    ),
}
"""Racioppo 2020's defects, by name, each with what it does (cell ``f_Rand_i`` or ``f_Exp_Window_Monte_Carlo_TTT``)."""

PROCEDURES = ("paper", "corrected")
"""Racioppo 2020's procedure (every defect on) and the corrected one (every defect off).

Defined here once; :func:`mctslab.course.reproduction.experiments.row_seed` numbers the seed
streams of a row by this order, so it must not change.
"""


@cache
def _probabilities(x: int, o: int, mover: int, turn: bool, check: bool) -> np.ndarray:
    """``(X wins, O wins, draw)`` of a playout after each legal move of ``mover``, one row per empty cell."""
    from .outcomes import after_move_probabilities  # here: reproduction imports this module

    empty = [c for c in range(9) if not (x | o) >> c & 1]
    table = np.array([after_move_probabilities(x, o, mover, c, turn, check) for c in empty])
    table.setflags(write=False)
    return table


def parse_defects(text: str) -> frozenset[str]:
    """``"turn-ties"`` -> ``{"turn", "ties"}``; ``"none"`` -> ``{}``; ``"all"`` -> every defect.

    Raises:
        ValueError: naming the known defects, for an unknown name.
    """
    if text in ("none", ""):
        return frozenset()
    if text == "all":
        return frozenset(DEFECTS)
    names = frozenset(part.strip() for part in text.split("-"))
    unknown = sorted(names - set(DEFECTS))
    if unknown:
        raise ValueError(f"unknown defect {', '.join(unknown)}; known defects: {', '.join(DEFECTS)}, or all / none")
    return names


def check_window(name: str, window: int) -> int:
    """Racioppo 2020's windows: 1, 2 or 3 (TypeError for a non-int, ValueError otherwise)."""
    window = check_positive_int(name, window)
    if window > 3:
        raise ValueError(f"{name} must be 1, 2 or 3 (Racioppo 2020's windows: all moves, best 4, best 2), got {window}")
    return window


def check_procedure(name: str, procedure: str) -> str:
    """One of :data:`PROCEDURES` (ValueError naming them otherwise)."""
    if procedure not in PROCEDURES:
        raise ValueError(f"{name} must be one of {', '.join(PROCEDURES)}, got {procedure!r}")
    return procedure


def check_defects(name: str, defects: frozenset[str] | set[str] | str) -> frozenset[str]:
    """A set of :data:`DEFECTS` names, from a set or from text such as ``"turn-ties"``, ``"all"``, ``"none"``."""
    return parse_defects(defects) if isinstance(defects, str) else parse_defects("-".join(defects))


def _named_by_procedure(agent: RacioppoMonteCarlo) -> bool:
    """Whether the agent's defects are all or none, so ``procedure=`` names them in its spec."""
    return agent.defects in (frozenset(), frozenset(DEFECTS))


@register_agent
class RacioppoMonteCarlo(Agent):
    """Racioppo 2020's pure (window 1) or windowed Monte Carlo on 3 x 3 tic-tac-toe, defects switchable.

    Round 1 evaluates every legal move with ``playouts`` random games; with
    ``window >= 2`` the best 4 are evaluated again with fresh playouts, and with
    ``window >= 3`` the best 2 of those once more; the best of the last round is played.
    A move's score is wins minus losses for the player to move (draws 0), as in Racioppo 2020.

    Args:
        playouts: random games per candidate move per round (Racioppo 2020's ``it``), >= 1.
        window: rounds, 1 to 3 (Racioppo 2020's ``window``).
        procedure: ``"corrected"`` (no defect: the same decisions, in distribution, as
            ``windowed:playouts=P,window=W`` with real playouts) or ``"paper"`` (every
            defect of :data:`DEFECTS`: Racioppo 2020's published procedure).
        defects: a subset of :data:`DEFECTS` to switch on instead of the procedure's
            (a set of names, or text such as ``"turn-ties"``, ``"all"``, ``"none"``).
        seed: randomness (see :func:`mctslab.seeding.make_rng`).

    Raises:
        ValueError: for a budget < 1, a window outside 1-3, an unknown procedure or defect.
        TypeError: for a non-integer budget or window.
    """

    name = "racioppo"
    experiment = True
    params = (
        Param("playouts", int, 100, check_positive_int, "random games per candidate per round", show="always"),
        Param("window", int, 1, check_window, "rounds: 1, 2 or 3", show="always"),
        Param("procedure", str, "corrected", check_procedure, "paper (every defect) or corrected", _named_by_procedure),
        Param(
            "defects",
            parse_defects,
            None,
            check_defects,
            "defects switched on: e.g. turn-ties, all, none",
            lambda agent: not _named_by_procedure(agent),
            lambda defects: "-".join(d for d in DEFECTS if d in defects),
        ),
    )

    def __init__(
        self,
        playouts: int = 100,
        window: int = 1,
        procedure: str = "corrected",
        defects: frozenset[str] | set[str] | str | None = None,
        seed: Seed = None,
    ) -> None:
        super().__init__(seed)
        self.set_params(playouts=playouts, window=window, procedure=procedure)
        if defects is None:
            defects = frozenset(DEFECTS) if procedure == "paper" else frozenset()
        self.set_params(defects=defects)
        # One name for one behaviour: all defects is the paper's procedure, none the
        # corrected one; with a subset, the procedure plays no part and keeps its default.
        self.procedure = "paper" if self.defects == frozenset(DEFECTS) else "corrected"
        self._np_rng = np.random.default_rng(self.rng.getrandbits(64))

    # -- the paper's decision, step by step ----------------------------------------------
    def analyse(self, game: Game, state: State) -> Analysis:
        """Choose a move as Racioppo 2020's code (with this agent's defects) would.

        Raises:
            ValueError: if ``game`` is not 3 x 3 tic-tac-toe (the exact playout
                tables exist only for it).
            IllegalMoveError: if the game is over.
        """
        if game.spec != "tictactoe:n=3,k=3":
            raise ValueError(
                f"the racioppo agent draws playouts from exact tables of 3 x 3 tic-tac-toe; {game.spec} is "
                "another game: use flat:playouts=... or windowed:playouts=... there"
            )
        pos = np.array(legal_or_raise(game, state))
        x, o, _ = state
        mover = game.to_move(state)
        probs = _probabilities(x, o, mover, "turn" in self.defects, "check" in self.defects)
        last: dict[int, np.ndarray] = {}  # index into pos -> (X wins, O wins, draws) of its latest round
        spent = 0

        def outcomes(which: np.ndarray) -> np.ndarray:
            """Racioppo 2020's Count_v: X wins minus O wins over ``playouts`` games after each move ``pos[which]``."""
            nonlocal spent
            counts = self._np_rng.multinomial(self.playouts, probs[which])  # columns: X wins, O wins, draws
            spent += self.playouts * len(which)
            last.update(zip(which.tolist(), counts, strict=True))
            return (counts[:, 0] - counts[:, 1]).astype(float)

        count_v = outcomes(np.arange(len(pos)))
        if self.window >= 2 and self._narrows(mover, len(pos), 4):
            idxs = self._best(mover, count_v, 4)  # indices into pos
            count_v = outcomes(idxs)
            if self.window >= 3 and self._narrows(mover, len(idxs), 2):
                idxs2 = self._best(mover, count_v, 2)  # indices into pos[idxs]
                # defect "index": Racioppo 2020 writes np.array(pos)[idxs2], indexing the full list
                count_v = outcomes(idxs2 if "index" in self.defects else idxs[idxs2])
                idxj = idxs2[self._best(mover, count_v, 1)[0]]
            else:
                idxj = self._best(mover, count_v, 1)[0]
            idx = idxs[idxj]
        else:
            idx = self._best(mover, count_v, 1)[0]
        stats = []
        for i in sorted(last):
            xw, ow, d = (int(c) for c in last[i])
            wins, losses = (xw, ow) if mover == 0 else (ow, xw)
            stats.append(MoveStat(int(pos[i]), self.playouts, (wins + d / 2) / self.playouts, float(wins - losses)))
        return Analysis(int(pos[idx]), tuple(stats), iterations=spent)

    def _narrows(self, mover: int, n: int, keep: int) -> bool:
        """Whether a round keeping ``keep`` of ``n`` candidates runs."""
        if "threshold" in self.defects and mover == 1:
            return n >= keep  # Racioppo 2020's O branch: np.shape(Count_v)[0] >= 4 (then >= 2)
        return n > keep

    def _best(self, mover: int, count_v: np.ndarray, k: int) -> np.ndarray:
        """Indices of the ``k`` best entries of ``count_v`` for ``mover`` (X maximises it, O minimises it)."""
        if "ties" in self.defects:
            if k == 1:
                return np.array([np.argmax(count_v) if mover == 0 else np.argmin(count_v)])
            # numpy's sort of fewer than 17 numbers was an insertion sort in 2020: stable
            order = np.argsort(count_v, kind="stable")
            return (np.flip(order) if mover == 0 else order)[:k]
        score = count_v if mover == 0 else -count_v
        shuffled = self._np_rng.permutation(len(score))
        return shuffled[np.argsort(-score[shuffled], kind="stable")][:k]
