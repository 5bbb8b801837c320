"""The interface every game implements, and the errors it raises.

A game is a stateless rules object; a state is an immutable, hashable value. The
search code only ever calls the methods below, so a game is free to use integers,
bitboards or precomputed tables inside (see :mod:`mctslab.games.tictactoe`).

Conventions (the same for every game):

* Players are ``0`` and ``1``; ``0`` moves first (X in tic-tac-toe).
* Moves are small non-negative integers (the cell, column, ``9 * board + cell``...).
* Returns are per player: 1 for a win, 0.5 for a draw, 0 for a loss.

To add your own game, subclass :class:`Game`, implement the abstract methods and run
:func:`mctslab.check_game` on it. Optional hooks describe the game to the drawings and
the play board (:meth:`Game.mark`, :meth:`Game.move_text`, :meth:`Game.board_cells`,
:meth:`Game.move_cell`, :meth:`Game.played_cell`, :meth:`Game.click_move`,
:meth:`Game.column_labels`), so nothing
outside ``games/`` needs to know which game it is.
"""

from __future__ import annotations

import operator
import random
import reprlib
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Sequence
from math import floor
from typing import Any

import numpy as np

from .rollouts import PlayedRollout, replay_rollout

State = Hashable
"""A game position: any immutable, hashable value (each game documents its own)."""

DRAW = (0.5, 0.5)
WIN0 = (1.0, 0.0)
WIN1 = (0.0, 1.0)
RESULTS: dict[int | None, tuple[float, float]] = {0: WIN0, 1: WIN1, None: DRAW}
"""Winner (``None`` for a draw) -> returns per player."""


class IllegalMoveError(ValueError):
    """A move that is not legal in the given state; the message lists the legal moves."""


class InvalidStateError(ValueError):
    """A value given as a state that is not a position of this game.

    For example a Connect Four state given to tic-tac-toe, or a 4 x 4 tic-tac-toe state
    given to the 3 x 3 game. Raised by :meth:`Game.check_state`, which :meth:`Game.play`
    and every agent's ``select_move`` / ``analyse`` call before anything else.
    """


_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxtuple = 40, 60, 8


def describe_value(value: Any) -> str:
    """A value for an error message: its repr, shortened, and its type."""
    return f"{_short.repr(value)} (a {type(value).__name__})"


class Game(ABC):
    """Rules of a two-player, zero-sum, perfect-information game.

    Subclasses implement the abstract methods; :meth:`play` (checked) and
    :meth:`rollout` (a random playout) come for free and may be overridden with
    faster versions that give the same results.

    Attributes:
        spec: the canonical spec string that :func:`mctslab.make_game` accepts to
            rebuild this game, e.g. ``"tictactoe:n=3,k=3"``.
    """

    spec: str = "game"

    rollout_order: str = "ordered"
    """How :meth:`rollout` draws its moves, for :meth:`rollout_moves`: ``"ordered"`` or
    ``"pool"`` (see :mod:`mctslab.games.rollouts`). A game that overrides
    :meth:`rollout` declares it next to its rollout (or overrides :meth:`rollout_moves`)."""

    # -- the interface -------------------------------------------------------------
    @abstractmethod
    def initial_state(self) -> State:
        """The position before the first move."""

    @abstractmethod
    def to_move(self, state: State) -> int:
        """The player to move: 0 or 1 (in a finished game, whose turn it would be)."""

    @abstractmethod
    def legal_moves(self, state: State) -> tuple[int, ...]:
        """The legal moves in ascending order; ``()`` when the game is over."""

    @abstractmethod
    def apply(self, state: State, move: int) -> State:
        """The state after ``move``, without checking legality.

        For search code that takes its moves from :meth:`legal_moves`; everyone
        else should call :meth:`play`.
        """

    @abstractmethod
    def is_terminal(self, state: State) -> bool:
        """True when the game is over."""

    @abstractmethod
    def winner(self, state: State) -> int | None:
        """0 or 1 if that player has won; ``None`` for a draw or a game in progress."""

    @abstractmethod
    def render(self, state: State) -> str:
        """A readable text picture of the position."""

    # -- provided ------------------------------------------------------------------
    def check_state(self, state: State) -> None:
        """Raise :class:`InvalidStateError` unless ``state`` can be a position of this game.

        Called where states come in from outside (:meth:`play`, agents' ``select_move``
        and ``analyse``), never inside a search. This default accepts only values of the
        type of :meth:`initial_state`; games override it to check more (the stones fit
        the board, the heaps are those of this game...). :func:`mctslab.check_game`
        checks that states of the other registered games are refused.

        Raises:
            InvalidStateError: (a ``ValueError``) saying what was given and what a state
                of this game is.
        """
        expected = type(self.initial_state())
        if type(state) is not expected:
            self.refuse_state(state, f"its states are {expected.__name__} values")

    def refuse_state(self, state: Any, why: str) -> None:
        """Raise the :class:`InvalidStateError` of :meth:`check_state` for ``state``, saying ``why``."""
        raise InvalidStateError(
            f"not a state of the game {self.spec}: {why}; got {describe_value(state)}. "
            "Use the states of this game's initial_state(), play() or state_from_moves()"
        )

    def play(self, state: State, move: int) -> State:
        """Return the state after ``move``; ``state`` itself is not changed.

        Raises:
            InvalidStateError: if ``state`` is not a position of this game (see :meth:`check_state`).
            TypeError: if ``move`` is not an integer.
            IllegalMoveError: if ``move`` is not legal here (the message lists the
                legal moves), including any move in a finished game.
        """
        self.check_state(state)
        if isinstance(move, bool):
            raise TypeError(f"a move is an int, not a bool ({move!r})")
        try:
            move = operator.index(move)
        except TypeError:
            raise TypeError(f"a move is an int, not {type(move).__name__} ({move!r})") from None
        legal = self.legal_moves(state)
        if move not in legal:
            if not legal:
                raise IllegalMoveError(f"move {move} is illegal: the game is over, there are no legal moves")
            raise IllegalMoveError(f"move {move} is illegal here; legal moves: {', '.join(map(str, legal))}")
        return self.apply(state, move)

    def returns(self, state: State) -> tuple[float, float]:
        """Per-player returns of a finished game: 1 win, 0.5 draw, 0 loss.

        Raises:
            ValueError: if the game is not over.
        """
        if not self.is_terminal(state):
            raise ValueError("returns() needs a finished game; this one is still in progress")
        return RESULTS[self.winner(state)]

    def rollout(self, state: State, rng: random.Random, max_moves: int | None = None) -> tuple[float, float]:
        """Play uniformly random moves from ``state`` to the end; return the returns.

        Args:
            state: where the playout starts (may already be terminal).
            rng: the source of randomness.
            max_moves: stop after this many moves and score the unfinished game as a
                draw (0.5 each), as ``max_moves`` in Bradberry 2015; ``None`` plays to the end.

        Games override this with a fast version; it must stay equivalent (a uniformly
        random legal move at every step).
        """
        steps = 0
        while not self.is_terminal(state):
            if max_moves is not None and steps >= max_moves:
                return DRAW
            moves = self.legal_moves(state)
            state = self.apply(state, moves[floor(rng.random() * len(moves))])
            steps += 1
        return self.returns(state)

    def playout_counts(
        self, states: Sequence[State], playouts: int, rng: np.random.Generator, max_moves: int | None = None
    ) -> np.ndarray:
        """How ``playouts`` random playouts from each of ``states`` end, counted.

        The batched form of :meth:`rollout`, for flat and windowed Monte Carlo with
        ``batched=True``: the same distribution, drawn from a NumPy generator. This
        generic version runs :meth:`rollout` with a :class:`random.Random` seeded from
        ``rng``; games override it with a vectorised one (tic-tac-toe does).

        Returns:
            An integer array of shape ``(len(states), 3)``: per state, the playouts
            player 0 won, player 1 won, and drawn (a playout cut short by
            ``max_moves`` is a draw).
        """
        python_rng = random.Random(int(rng.integers(2**63)))
        counts = np.zeros((len(states), 3), dtype=np.int64)
        for row, state in zip(counts, states, strict=True):
            for _ in range(playouts):
                returns = self.rollout(state, python_rng, max_moves)
                row[0 if returns == WIN0 else 1 if returns == WIN1 else 2] += 1
        return counts

    def evaluate(self, state: State, player: int) -> float:
        """Heuristic estimate in [0, 1] of ``player``'s return (used by depth-limited minimax).

        The default knows nothing and says 0.5; games override it.
        """
        return 0.5

    # -- what a learned evaluator sees (mctslab.alphazero) ---------------------------
    policy_size: int | None = None
    """Number of move ids for a policy network: every move is an int in ``range(policy_size)``
    (``None``: the game has no network encoding, and ``puct:evaluator=net`` refuses it)."""

    def features(self, state: State) -> np.ndarray:
        """The position as a flat float vector for a network, from the point of view of the player to move.

        Raises:
            NotImplementedError: for a game without a network encoding (:attr:`policy_size` is ``None``).
        """
        raise NotImplementedError(f"{self.spec} has no network encoding (features); PUCT can use evaluator=rollout")

    def symmetries(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """The board's symmetries for a network's training data, identity included.

        Each is ``(feature_perm, move_perm)``: the symmetric position's features are
        ``features[feature_perm]`` and its move ``i`` is the original's ``move_perm[i]``
        (index arrays, so a policy target ``pi`` becomes ``pi[move_perm]``). The default
        is the identity alone.
        """
        n = len(self.features(self.initial_state()))
        return ((tuple(range(n)), tuple(range(self.policy_size or 0))),)

    # -- the compiled engine (mctslab.engine) ---------------------------------------
    def compiled_encoding(self) -> tuple[str, tuple[int, ...]] | None:
        """How :mod:`mctslab.engine` plays this game: its kind and integer parameters.

        ``None`` (the default) when the compiled engine cannot play it; the games it
        knows return e.g. ``("tictactoe", (n, k))`` and implement :meth:`compiled_state`.
        """
        return None

    def compiled_state(self, state: State) -> tuple[int, ...]:
        """``state`` as the compiled engine's integer vector: result, player to move, then the game's fields.

        Raises:
            NotImplementedError: for a game without :meth:`compiled_encoding`.
        """
        raise NotImplementedError(f"{self.spec} has no compiled encoding")

    # -- how the game describes itself (tree drawings, play board) -----------------
    def mark(self, player: int) -> str:
        """The name of ``player`` (0 or 1) on boards and in text: ``"P0"`` or ``"P1"`` by default.

        Stone games say ``"X"`` and ``"O"``.
        """
        return f"P{player}"

    def move_text(self, move: int, short: bool = False) -> str:
        """A move as people read it: the move number by default.

        Args:
            move: a move of this game.
            short: the short form, for lists of playout moves (the move number
                unless the game says otherwise, e.g. ``"1:2"`` in Nim).
        """
        return str(move)

    def board_cells(self, state: State) -> list[list[str]] | None:
        """The board as rows of equal length of ``"X"``, ``"O"`` or ``""`` (top row first).

        Drawn inside tree nodes when it is small, and clickable on the play board.
        ``None`` (the default) for a game without a board to draw: its tree nodes are
        labelled by move and it cannot be played on the play board.
        """
        return None

    def move_cell(self, state: State, move: int) -> tuple[int, int] | None:
        """Where ``move``, played in ``state``, puts its stone: ``(row, column)`` of :meth:`board_cells`.

        ``None`` (the default) when the move marks no single cell. The play board draws
        the agent's visits to ``move`` on this cell.
        """
        return None

    def played_cell(self, state: State, move: int) -> tuple[int, int] | None:
        """The cell the last move ``move`` marked, ``state`` being the position *after* it.

        Tree nodes draw it in bold. By default :meth:`move_cell` of ``state``, which
        is right for games where a move's cell does not depend on the position.
        """
        return self.move_cell(state, move)

    def click_move(self, state: State, row: int, col: int) -> int | None:
        """The move that a click on cell ``(row, col)`` of :meth:`board_cells` plays in ``state``.

        Returns ``None`` where a click plays nothing. By default the legal move whose
        :meth:`move_cell` is that cell; a game may accept more cells for a move (a
        whole column, say).
        """
        for move in self.legal_moves(state):
            if self.move_cell(state, move) == (row, col):
                return move
        return None

    def column_labels(self) -> list[str] | None:
        """Labels written above the columns of :meth:`board_cells` on the play board, or ``None`` (the default).

        Connect Four numbers its columns, the names of its moves.
        """
        return None

    def rollout_moves(self, state: State, rng: random.Random, max_moves: int | None = None) -> PlayedRollout:
        """:meth:`rollout`, keeping the moves: the same random draws, the same moves, the same end.

        Called with a generator in the same state, it plays the moves that
        ``self.rollout(state, rng, max_moves)`` plays and leaves ``rng`` in the same
        state; the tree drawings show them. The default replays
        :attr:`rollout_order`; a game whose rollout draws otherwise overrides it
        (:func:`mctslab.check_game` compares the two).

        Returns:
            A :class:`~mctslab.games.rollouts.PlayedRollout`: the moves, the returns,
            the final position and whether ``max_moves`` cut the playout short.
        """
        return replay_rollout(self, state, rng, max_moves, self.rollout_order)

    def state_from_moves(self, moves: Iterable[int]) -> State:
        """The state reached by playing ``moves`` (checked) from the initial state.

        Raises:
            IllegalMoveError: naming the move number and the legal moves at that point.
        """
        state = self.initial_state()
        for ply, move in enumerate(moves):
            try:
                state = self.play(state, move)
            except IllegalMoveError as err:
                raise IllegalMoveError(f"move #{ply + 1} of the list: {err}") from None
        return state

    def __repr__(self) -> str:
        return f"make_game({self.spec!r})"

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.spec))


def state_from_moves(game: Game, moves: Iterable[int]) -> State:
    """The state ``game`` reaches after ``moves`` from its initial state (see :meth:`Game.state_from_moves`)."""
    return game.state_from_moves(moves)
