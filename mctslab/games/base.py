"""The interface every game implements, and the errors it raises.

A game is a stateless rules object; a state is an immutable, hashable value. The
search code only ever calls the methods below, so a game is free to use integers,
bitboards or precomputed tables inside (see :mod:`mctslab.games.tictactoe`).

Conventions (the same for every game):

* Players are ``0`` to ``num_players - 1`` (``0`` and ``1`` in a two-player game, ``0``
  moving first: X in tic-tac-toe); at a chance node :meth:`Game.to_move` is
  :data:`CHANCE`.
* Moves are small non-negative integers (the cell, column, ``9 * board + cell``, a die's face...).
* Returns are per player, each in [0, 1]: 1 for a win, 0.5 for a draw, 0 for a loss in
  the two-player games; a one-player game's score, normalised (:meth:`Game.normalise`).

A game declares its kind (:attr:`Game.num_players`, :attr:`Game.has_chance`,
:attr:`Game.perfect_information`, gathered by :meth:`Game.kind`) and agents ask it.

To add your own game, subclass :class:`Game`, implement the abstract methods, register
it with :func:`mctslab.games.register_game` and run :func:`mctslab.check_game` on it.
What other consumers need is not part of the rules: optional adapters registered beside the
game, in its file (:mod:`mctslab.games.adapters`), describe it to the drawings and the play
board (:class:`~mctslab.games.hooks.Drawing`: ``mark``, ``move_text``, ``board_cells``,
``move_cell``...), so nothing outside ``games/`` needs to know which game it is, to a
policy-value network (:class:`~mctslab.games.network.NetworkEncoding`) and to the compiled engine
(:class:`~mctslab.games.compiled.CompiledEncoding`).
"""

from __future__ import annotations

import functools
import operator
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction
from math import floor
from typing import Any

import numpy as np

from .adapters import adapter_names_defined_by
from .compiled import CompiledEncoding, compiled_or_none
from .errors import IllegalMoveError, InvalidStateError, describe_value
from .hooks import Drawing, drawing
from .kinds import CHANCE, GameKind
from .network import NetworkEncoding, network_or_none
from .rollouts import PlayedRollout, replay_rollout

State = Hashable
"""A game position: any immutable, hashable value (each game documents its own)."""

DRAW = (0.5, 0.5)
WIN0 = (1.0, 0.0)
WIN1 = (0.0, 1.0)
RESULTS: dict[int | None, tuple[float, float]] = {0: WIN0, 1: WIN1, None: DRAW}
"""Winner (``None`` for a draw) -> returns per player."""


class Game(ABC):
    """Rules of a game: by default two-player, without chance, with perfect information.

    Subclasses implement the abstract methods; :meth:`play` (checked) and
    :meth:`rollout` (a random playout) come for free and may be overridden with
    faster versions that give the same results.

    Other kinds of game declare themselves with three class attributes (after
    OpenSpiel's ``GameType``) and implement the methods their kind needs:

    * **One player, or more than two**: :attr:`num_players`; :meth:`returns` has one
      entry per player, each in [0, 1] (a one-player game with raw scores declares
      :attr:`score_range` and returns :meth:`normalise` of its score).
    * **Chance** (dice, cards dealt): :attr:`has_chance` is True; at a chance node
      :meth:`to_move` returns :data:`CHANCE` (``mctslab.games.CHANCE``),
      :meth:`chance_outcomes` gives ``((move, probability), ...)`` and
      :meth:`legal_moves` the same moves.
    * **Hidden information** (cards in hand): :attr:`perfect_information` is False;
      :meth:`information_state` is what a player knows, and :meth:`sample_state` a
      position the player cannot tell apart from the real one (a determinization).

    Agents ask :meth:`kind`, never the game's type, and refuse a kind they cannot play.
    :func:`mctslab.check_game` checks every part of this contract.

    Attributes:
        spec: the canonical spec string that :func:`mctslab.make_game` accepts to
            rebuild this game, e.g. ``"tictactoe:n=3,k=3"``.
        num_players: how many players take turns: 1 (a puzzle), 2 (the default) or more.
        has_chance: True if some positions are chance nodes (:meth:`to_move` is
            :data:`CHANCE` there); False by default.
        perfect_information: False if a player may not see the whole position
            (:meth:`information_state` says what each sees); True by default.
        score_range: ``(lowest, highest)``, for a game with raw scores (a puzzle's
            points) that :meth:`normalise` maps onto [0, 1]; None by default.
    """

    spec: str = "game"

    # The game's kind (OpenSpiel's GameType), documented in the class docstring.
    num_players: int = 2
    has_chance: bool = False
    perfect_information: bool = True
    score_range: tuple[float, float] | None = None

    rollout_order: str = "ordered"
    """How :meth:`rollout` draws its moves, for :meth:`rollout_moves`: ``"ordered"`` or
    ``"pool"`` (see :mod:`mctslab.games.rollouts`). A game that overrides
    :meth:`rollout` declares it next to its rollout (or overrides :meth:`rollout_moves`)."""

    PLAYER_METHODS = ("information_state", "sample_state", "evaluate")
    """The methods that take a player: each refuses one outside ``0 .. num_players - 1``
    (:meth:`check_player`), in a subclass that overrides it too (wrapped when the class is made)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        misplaced = adapter_names_defined_by(cls)
        if misplaced:
            name, concern = next(iter(misplaced.items()))
            raise TypeError(
                f"{cls.__name__}.{name} belongs to the game's {concern} adapter, not to its rules: define it on a "
                f"subclass of {ADAPTER_HOME[concern]} registered beside the game (see mctslab.games.adapters)"
            )
        for name in cls.PLAYER_METHODS:
            method = vars(cls).get(name)
            if callable(method) and not getattr(method, "_checks_player", False):
                setattr(cls, name, _player_checked(method))

    def check_player(self, player: Any) -> int:
        """``player`` if it is one of this game's players (an int from 0 to ``num_players - 1``).

        Raises:
            ValueError: (one line) for anything else: ``information_state(state, -1)`` would
                otherwise read a hand from the end of a tuple, and player 5 another's.
        """
        if type(player) is int and 0 <= player < self.num_players:
            return player
        try:
            index = operator.index(player)
        except TypeError:
            index = None
        if index is None or isinstance(player, bool) or not 0 <= index < self.num_players:
            raise ValueError(f"player {player!r}: {self.spec} has players 0 to {self.num_players - 1}")
        return index

    # -- the interface -------------------------------------------------------------
    @abstractmethod
    def initial_state(self) -> State:
        """The position before the first move."""

    @abstractmethod
    def to_move(self, state: State) -> int:
        """The player to move: 0 to ``num_players - 1``, or ``CHANCE`` at a chance node.

        In a finished game, whose turn it would be. :data:`CHANCE` is
        ``mctslab.games.CHANCE``.
        """

    @abstractmethod
    def legal_moves(self, state: State) -> tuple[int, ...]:
        """The legal moves in ascending order; ``()`` when the game is over.

        At a chance node, the moves of :meth:`chance_outcomes`. In a game with hidden
        information they must depend only on what the player to move knows (its
        :meth:`information_state`).
        """

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
        """The player who has won (0, 1, ...); ``None`` for a draw or a game in progress.

        A one-player game whose :meth:`returns` is a score may always say ``None``.
        """

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

    _checked: Any = None
    """The state object :meth:`check_state_once` checked last (a tuple holding it: ``None`` is a state to check)."""

    def check_state_once(self, state: State) -> None:
        """:meth:`check_state`, skipped for the very object (``is``, not ``==``) this game checked last.

        The game loop hands each position to an agent (which checks it) and then to :meth:`play`
        (which would check it again); states are immutable, so the second check is skipped. The
        position :meth:`play` returns counts as checked too: a legal move from a checked position
        reaches a position of the game (:func:`mctslab.check_game` checks every position of its
        random games), so replaying a game's moves checks its first position only. A state
        equal to that one but another object (a foreign tuple, a float field) is checked.

        Raises:
            InvalidStateError: as :meth:`check_state`.
        """
        checked = self._checked
        if checked is not None and checked[0] is state:
            return
        self.check_state(state)
        self._checked = (state,)

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
        self.check_state_once(state)
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
        after = self.apply(state, move)
        self._checked = (after,)  # a legal move from a checked position reaches a position of this game
        return after

    def returns(self, state: State) -> tuple[float, ...]:
        """Per-player returns of a finished game, one entry per player, each in [0, 1].

        The default, from :meth:`winner`: 1 to the winner, 0 to the others, 0.5 each for a
        draw. A game with scores overrides it (a one-player game with :meth:`normalise`).

        Raises:
            ValueError: if the game is not over.
        """
        if not self.is_terminal(state):
            raise ValueError("returns() needs a finished game; this one is still in progress")
        if self.num_players == 2:
            return RESULTS[self.winner(state)]
        winner = self.winner(state)
        return tuple(0.5 if winner is None else float(p == winner) for p in range(self.num_players))

    # -- kinds of game: players, chance, hidden information --------------------------
    def kind(self) -> GameKind:
        """What kind of game this is: players, chance, perfect information (from the class attributes)."""
        return GameKind(self.num_players, self.has_chance, self.perfect_information)

    def normalise(self, score: float) -> float:
        """A raw score mapped from :attr:`score_range` onto [0, 1], for :meth:`returns` of a scored game.

        Raises:
            ValueError: if the game declares no :attr:`score_range` or ``score`` lies outside it.
        """
        if self.score_range is None:
            raise ValueError(f"{self.spec} declares no score_range = (lowest, highest) to normalise its scores with")
        low, high = self.score_range
        if not low <= score <= high:
            raise ValueError(f"score {score} lies outside {self.spec}'s score_range {self.score_range}")
        return (score - low) / (high - low)

    def chance_outcomes(self, state: State) -> tuple[tuple[int, float | Fraction], ...]:
        """At a chance node, ``((move, probability), ...)``: moves ascending, probabilities > 0 summing to 1.

        Give exact :class:`fractions.Fraction` probabilities where the game allows (a
        fair die: ``Fraction(1, 6)`` each). The default, for a game without chance,
        raises.

        Raises:
            ValueError: if ``state`` is not a chance node.
        """
        raise ValueError(f"{self.spec} has no chance nodes; chance_outcomes() needs to_move(state) == CHANCE")

    def chance_move(self, state: State, rng: random.Random) -> int:
        """A chance outcome drawn with its probability, from one ``rng.random()`` (used by :meth:`rollout`)."""
        u, total = rng.random(), 0.0
        outcomes = self.chance_outcomes(state)
        for move, probability in outcomes:
            total += float(probability)
            if u < total:
                return move
        return outcomes[-1][0]  # u within rounding of 1

    def information_state(self, state: State, player: int) -> Hashable:
        """A hashable key of what ``player`` knows in ``state``: equal keys, positions the player cannot tell apart.

        The default, for perfect information, is the state itself. A game with hidden
        cards returns, e.g., the player's own hand and the moves seen so far.

        Raises:
            ValueError: for a player outside ``0 .. num_players - 1`` (:meth:`check_player`).
        """
        self.check_player(player)
        return state

    def sample_state(self, state: State, player: int, rng: random.Random) -> State:
        """A position ``player`` cannot tell apart from ``state`` (a determinization), drawn with ``rng``.

        It has the same :meth:`information_state` for ``player``; the hidden parts
        (the others' cards) are drawn at random. The default, for perfect
        information, is ``state`` itself.

        Raises:
            ValueError: for a player outside ``0 .. num_players - 1`` (:meth:`check_player`).
        """
        self.check_player(player)
        return state

    def rollout(self, state: State, rng: random.Random, max_moves: int | None = None) -> tuple[float, ...]:
        """Play uniformly random moves from ``state`` to the end; return the returns.

        At a chance node the outcome is drawn with its probability (:meth:`chance_move`).

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
                return DRAW if self.num_players == 2 else (0.5,) * self.num_players
            if self.has_chance and self.to_move(state) == CHANCE:
                state = self.apply(state, self.chance_move(state, rng))
            else:
                moves = self.legal_moves(state)
                state = self.apply(state, moves[floor(rng.random() * len(moves))])
            steps += 1
        return self.returns(state)

    def playout_counts(
        self, states: Sequence[State], playouts: int, rng: np.random.Generator, max_moves: int | None = None
    ) -> np.ndarray:
        """How ``playouts`` random playouts from each of ``states`` end, counted (two-player games).

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

        Raises:
            ValueError: for a player outside ``0 .. num_players - 1`` (:meth:`check_player`).
        """
        self.check_player(player)
        return 0.5

    def position_bound(self, state: State) -> int | None:
        """An upper bound on the number of positions reachable from ``state``, cheap to compute, or ``None``.

        Lets exact play refuse a position too large to enumerate at once, before enumerating
        millions of positions (:class:`~mctslab.agents.perfect.PerfectPlayer`). The default,
        ``None``, means "not known": the enumeration then stops when it meets too many.
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

    def __getattr__(self, name: str) -> Any:
        """An adapter's name asked of the game itself (``game.board_cells(state)``): the adapter's, for old callers.

        The consumers ask the adapter (``drawing(game).board_cells(state)``); this keeps code written
        before the split working. Only for names missing on the game (the rules are found first).
        """
        lookup = FORWARDED.get(name)
        if lookup is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(lookup(self), name)

    def __repr__(self) -> str:
        return f"make_game({self.spec!r})"

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.spec))


ADAPTER_HOME = {
    "drawing": "mctslab.games.hooks.Drawing",
    "network": "mctslab.games.network.NetworkEncoding",
    "compiled": "mctslab.games.compiled.CompiledEncoding",
}
"""concern -> the adapter base class a game's adapter subclasses (for the error of :meth:`Game.__init_subclass__`)."""

FORWARDED: dict[str, Any] = {
    **dict.fromkeys(Drawing.names, drawing),
    **dict.fromkeys(NetworkEncoding.names, network_or_none),
    **dict.fromkeys(CompiledEncoding.names, compiled_or_none),
}
"""An adapter's name -> the lookup :meth:`Game.__getattr__` forwards it to."""


def _player_checked(method: Any) -> Any:
    """``method(self, state, player, ...)`` that first refuses a player the game has not (:meth:`Game.check_player`)."""

    @functools.wraps(method)
    def checked(self: Game, state: State, player: int, *args: Any, **kwargs: Any) -> Any:
        if type(player) is not int or not 0 <= player < self.num_players:  # the common case costs one test
            player = self.check_player(player)
        return method(self, state, player, *args, **kwargs)

    checked._checks_player = True  # type: ignore[attr-defined]
    return checked


def state_from_moves(game: Game, moves: Iterable[int]) -> State:
    """The state ``game`` reaches after ``moves`` from its initial state (see :meth:`Game.state_from_moves`)."""
    return game.state_from_moves(moves)
