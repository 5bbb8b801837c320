"""What every agent offers: :meth:`Agent.select_move`, and :meth:`Agent.analyse` for the numbers behind it."""

from __future__ import annotations

import functools
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ..games.base import Game, IllegalMoveError, State
from ..games.kinds import CHANCE, CLASSIC, describe_traits
from ..seeding import Seed, make_rng
from ..specs import Param, format_value, spec_text  # noqa: F401 - format_value: still importable from here
from ..validation import optional, positive_int


@dataclass(frozen=True)
class MoveStat:
    """What a search learned about one legal move at the root.

    Attributes:
        move: the move.
        visits: UCT visits of the child, or playouts spent on the move (flat/windowed).
        mean: mean return for the player to move, in [0, 1] (win 1, draw 0.5, loss 0).
        score: flat and windowed Monte Carlo: wins minus losses (draws 0), as in Racioppo 2020;
            ``None`` for UCT.
        exploration: UCT and its variants: the exploration term of the agent's selection
            rule at the root (for UCB1, ``c * sqrt(ln N / n)``); ``None`` otherwise.
    """

    move: int
    visits: int
    mean: float
    score: float | None = None
    exploration: float | None = None

    @property
    def ucb(self) -> float | None:
        """UCT: the selection rule's value ``mean + exploration`` of this child; ``None`` otherwise."""
        return None if self.exploration is None else self.mean + self.exploration


@dataclass
class Analysis:
    """The result of one decision: the move and the statistics behind it.

    Attributes:
        move: the chosen move.
        stats: per-move statistics, one entry per move searched, in move order
            (empty for agents that keep none, like random).
        iterations: UCT iterations or playouts spent.
        max_depth: UCT: deepest node added to the tree, in plies below the root
            (Bradberry 2015's "Maximum depth searched"); ``None`` otherwise.
        root: UCT: the root :class:`~mctslab.agents.uct.Node` of the tree built (with
            ``engine="compiled"``, a :class:`~mctslab.agents.compiled.CompiledNode` view).
        value: minimax: the value of the position for the player to move, in [0, 1].
        rule: UCT and its variants: the name of the selection rule whose values
            ``stats`` hold (:attr:`SelectionRule.name <mctslab.agents.rules.SelectionRule.name>`,
            ``"UCB1"`` for UCT); :meth:`table` labels them with it (``None``: as UCB1).
    """

    move: int
    stats: tuple[MoveStat, ...] = ()
    iterations: int = 0
    max_depth: int | None = None
    root: Any = None
    value: float | None = None
    rule: str | None = None

    def table(self, move_text: Callable[[int], str] | None = None) -> str:
        """The per-move statistics as a text table, best first (Bradberry 2015's printout).

        Args:
            move_text: how to name a move (e.g. :meth:`Drawing.move_text
                <mctslab.games.hooks.Drawing.move_text>`: ``"col 3"``); the move number by default.
        """
        rows = sorted(self.stats, key=lambda s: (-s.visits, -s.mean, s.move))
        names = [str(s.move) if move_text is None else move_text(s.move) for s in rows]
        width = 5 if move_text is None else max([len("move"), *map(len, names)])
        lines = [f"{'move':>{width}} {'visits':>8} {'mean':>7}"]
        for name, s in zip(names, rows, strict=True):
            line = f"{name:>{width}} {s.visits:>8} {s.mean:>7.3f}"
            if s.score is not None:
                line += f" score {s.score:+g}"
            if s.exploration is not None:
                line += f" {score_label(self.rule or 'UCB1')} {s.ucb:.3f}"
            lines.append(line)
        if self.max_depth is not None:
            lines.append(f"maximum depth searched: {self.max_depth}")
        return "\n".join(lines)


def score_label(rule: str) -> str:
    """How tables and pictures label a selection rule's values: ``"ucb"`` for UCB1, else the rule's name."""
    return "ucb" if rule == "UCB1" else rule


class CannotPlayError(ValueError):
    """An agent asked to play a kind of game it does not declare (:attr:`Agent.handles`).

    The message is one line: the agent, the game and its kind, what the agent plays,
    and the agents that can play it.
    """


ASKED: tuple[str, ...] = ("analyse", "search")
"""The methods that ask an agent for a move or a tree; each checks the game's kind first (:meth:`Agent.check_can_play`).
"""


class ConcurrentSearchError(RuntimeError):
    """An agent asked to search while it is already searching in another thread (see :class:`Agent`)."""


_SEARCHING = threading.Lock()
"""Guards every agent's record of the thread searching with it (held for a few instructions, never during a search)."""


def _enter_search(agent: Agent) -> None:
    """Record that this thread searches with ``agent``, refusing if another thread does (nested calls count)."""
    me = threading.get_ident()
    with _SEARCHING:
        owner, depth = agent._search_thread
        if depth and owner != me:
            raise ConcurrentSearchError(
                f"agent {agent.spec!r} is already searching in another thread: an agent keeps one search's state"
                " (tree, scratch values, random stream), so give each thread its own agent (make_agent(spec, seed=...))"
            )
        agent._search_thread = (me, depth + 1)


def _leave_search(agent: Agent) -> None:
    with _SEARCHING:
        owner, depth = agent._search_thread
        agent._search_thread = (owner if depth > 1 else None, depth - 1)


def _checks_the_kind(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (``analyse`` or ``search``), refusing first a game whose kind the agent does not handle.

    It also refuses to start while another thread searches with the same agent
    (:class:`ConcurrentSearchError`): an agent is one search at a time.
    """

    @functools.wraps(method)
    def asked(self: Agent, *args: Any, **kwargs: Any) -> Any:
        self.check_can_play(args[0] if args else kwargs.get("game"))
        _enter_search(self)
        try:
            return method(self, *args, **kwargs)
        finally:
            _leave_search(self)

    asked.checks_the_kind = True  # type: ignore[attr-defined]
    return asked


REGISTERED: dict[str, type] = {}
"""Name -> class of the registered agents: :data:`mctslab.agents.registry.AGENTS` is this dict
(defined here so that a refusal can name the agents that can play, without an import circle)."""


def _agent_classes(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_agent_classes(sub)]
    return found


class Agent(ABC):
    """A player. Subclasses implement :meth:`analyse` and declare their parameters.

    To write an agent: subclass, set :attr:`name` and :attr:`params`, call
    ``self.set_params(...)`` in the constructor with every declared parameter, and
    register the class with :func:`mctslab.agents.register_agent`. Its spec is then
    generated from the values it holds, and ``make_agent(agent.spec)`` rebuilds it.

    Args:
        seed: where randomness comes from (see :func:`mctslab.seeding.make_rng`); the
            same seed gives the same moves.

    Attributes:
        name: the name in specs (``"uct"``); set by each registered class.
        params: the declared parameters (:class:`Param`), in spec order.
        experiment: True for agents that exist for an experiment of the course (listed
            apart in ``--help``).
        handles: the kinds of game it plays, as traits of
            :data:`mctslab.games.kinds.TRAITS`; by default two-player games without
            chance or hidden information. An agent asked to play another kind refuses
            with a :class:`CannotPlayError` before any search (:meth:`check_can_play`).
        rng: the agent's random number generator.

    Threads: an agent is one search at a time. Its search keeps state on the agent (the
    tree kept for reuse, scratch values of the current iteration, the random stream), so
    two threads searching with one agent would corrupt each other's results. It refuses
    instead: ``analyse`` or ``search`` called while another thread is inside either
    raises :class:`ConcurrentSearchError` at once, and changes nothing. Give each thread
    its own agent (``make_agent(spec, seed=...)``; separate seeds keep the results
    reproducible). Using one agent from several threads in turn is fine.
    """

    name: ClassVar[str] = "agent"
    params: ClassVar[tuple[Param, ...]] = ()
    experiment: ClassVar[bool] = False
    handles: ClassVar[frozenset[str]] = CLASSIC
    _search_thread: tuple[int | None, int] = (None, 0)
    """The thread searching with this agent and how deeply its calls nest (``(None, 0)``: none)."""
    _game_played: Game | None = None
    """The last game :meth:`check_can_play` accepted (a game's kind never changes: checked per game, not per move)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Make a subclass's own ``analyse`` and ``search`` check the game's kind first (:data:`ASKED`)."""
        super().__init_subclass__(**kwargs)
        for name in ASKED:
            method = vars(cls).get(name)
            if callable(method) and not getattr(method, "checks_the_kind", False):
                setattr(cls, name, _checks_the_kind(method))

    def check_can_play(self, game: Game) -> None:
        """Refuse ``game`` unless this agent handles its kind (:meth:`Game.kind <mctslab.games.base.Game.kind>`).

        Called by ``analyse`` and ``search`` before anything else, so an agent never
        starts a search it cannot do (plain UCT on a game with hidden cards, minimax
        on dice). A value that is not a game is left to the agent's own checks.

        Raises:
            CannotPlayError: (a ``ValueError``) naming the game's kind, what this agent
                plays, and the agents that can play it.
        """
        if game is self._game_played or not isinstance(game, Game):
            return
        kind = game.kind()
        traits = kind.traits
        if traits <= self.handles:
            self._game_played = game
            return
        able = sorted(
            {c.name for c in _agent_classes(Agent) if REGISTERED.get(vars(c).get("name")) is c and traits <= c.handles}
        )
        raise CannotPlayError(
            f"agent {self.name!r} cannot play {game.spec}, {kind.describe()}: it plays "
            f"{describe_traits(self.handles)}; agents that can: {', '.join(able) or 'none yet'}"
        )

    def __init__(self, seed: Seed = None) -> None:
        self.rng = make_rng(seed)

    def set_params(self, declared_by: type[Agent] | None = None, /, **values: Any) -> None:
        """Check every declared parameter with its :attr:`Param.check` and store it as an attribute.

        Args:
            declared_by: the class whose declaration applies (default: this agent's
                class); a subclass that builds on its parent's constructor, as flat
                Monte Carlo on windowed, passes the parent here.
            **values: declared parameters, by name (a subclass sets its own after its parent's).

        Raises:
            TypeError: for an undeclared parameter, or a value of the wrong type.
            ValueError: for a value out of range.
        """
        declared = {p.name: p for p in (declared_by or type(self)).params}
        undeclared = values.keys() - declared.keys()
        if undeclared:
            raise TypeError(f"{type(self).__name__}.set_params: {sorted(undeclared)} not declared in params")
        for name, value in values.items():
            setattr(self, name, declared[name].validate(value))

    @classmethod
    def param(cls, name: str) -> Param:
        """The declared parameter called ``name``.

        Raises:
            KeyError: naming the declared parameters, for an unknown name.
        """
        for p in cls.params:
            if p.name == name:
                return p
        raise KeyError(f"{cls.name} has no parameter {name!r}; declared: {', '.join(p.name for p in cls.params)}")

    def parameters(self) -> dict[str, Any]:
        """Every declared parameter and its value now, in declaration order."""
        return {p.name: getattr(self, p.name) for p in self.params}

    @property
    def spec(self) -> str:
        """The spec :func:`mctslab.make_agent` accepts to rebuild this agent (generated, never written by hand)."""
        return spec_text(self.name, self.params, self)

    @property
    def label(self) -> str:
        """A short display name for tables and plots (the spec unless a class says otherwise)."""
        return self.spec

    def select_move(self, game: Game, state: State) -> int:
        """The move this agent plays in ``state``.

        Raises:
            InvalidStateError: if ``state`` is not a position of ``game``.
            IllegalMoveError: if the game is already over.
        """
        return self.analyse(game, state).move

    @abstractmethod
    def analyse(self, game: Game, state: State) -> Analysis:
        """Decide on a move and return it with the statistics behind it."""

    def reset(self) -> None:  # noqa: B027 - a hook: most agents keep nothing between moves
        """Forget anything kept between moves (called at the start of each game)."""

    def __repr__(self) -> str:
        return f"make_agent({self.spec!r})"


def legal_or_raise(game: Game, state: State) -> tuple[int, ...]:
    """The legal moves of ``state``, checked: every agent's :meth:`Agent.analyse` starts here.

    Raises:
        InvalidStateError: if ``state`` is not a position of ``game`` (:meth:`Game.check_state`).
        IllegalMoveError: if the game is over (nothing to choose), or ``state`` is a
            chance node (no player chooses there).
    """
    game.check_state_once(state)
    moves = game.legal_moves(state)
    if not moves:
        raise IllegalMoveError("no move to select: the game is over")
    if game.has_chance and game.to_move(state) == CHANCE:
        raise IllegalMoveError("no player moves at a chance node: draw the outcome with game.chance_move(state, rng)")
    return moves


def check_positive_int(name: str, value: Any) -> int:
    """``value`` as an ``int`` if it is an integer >= 1 (NumPy integers too; a ``bool`` is not).

    The agents' form (``check(name, value)``, as :class:`Param` calls it) of
    :func:`mctslab.validation.positive_int`: one rule and one wording everywhere.

    Raises:
        TypeError: if ``value`` is not an integer.
        ValueError: if it is < 1.
    """
    return positive_int(name, value)


def check_optional_positive_int(name: str, value: Any) -> int | None:
    """``None`` (unset), or ``value`` checked by :func:`check_positive_int`."""
    return optional(positive_int, name, value)


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool (anything Python reads as true or false, as the constructors always accepted)."""
    return bool(value)
