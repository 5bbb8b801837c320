"""``check_game``: verify that a game keeps the contract of :class:`~mctslab.games.base.Game`.

Run it on your own game before searching it (``notebooks/00`` shows how); the test
suite runs it on every registered game. It plays seeded random games and checks, at
every position on the way, what the search code relies on.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import numpy as np

from ..specs import spec_text
from .adapters import BASES, adapter_names_defined_by, find_adapter
from .base import Game, IllegalMoveError, InvalidStateError
from .check_kinds import declaration_fault, information_fault, player_fault, position_fault
from .compiled import COMPILED_CHECKS, capacity_fault, compiled_rules
from .hooks import drawing
from .kinds import CHANCE, CLASSIC
from .network import encoding_fault
from .registry import GAMES, GameEntry, make_game
from .rollouts import reports_its_rollout

VALID_RETURNS = {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)}

REPLAYED_GAMES = 3
""":func:`check_game` compares ``rollout_moves`` with ``rollout`` on the positions of this many games."""


class GameContractError(AssertionError):
    """A game broke its contract; the message says which rule, where, and how."""


def _fail(game: Game, moves: list[int], rule: str) -> GameContractError:
    return GameContractError(f"{getattr(game, 'spec', type(game).__name__)}: {rule} (after moves {moves})")


def check_game(game: Game, *, games: int = 20, seed: int = 0, max_plies: int = 10_000) -> None:
    """Check ``game`` against the interface contract; raise on the first violation.

    Plays ``games`` seeded random games and checks at every position: ``check_state``
    accepts it (:meth:`~Game.play` takes the positions it returns as checked); the state is
    hashable and equal to itself rebuilt by :meth:`~Game.state_from_moves`; ``to_move``
    is 0 or 1; ``legal_moves`` is a sorted tuple of distinct ints, empty exactly when
    the game is over; ``play`` returns a new state and leaves the old one unchanged,
    agrees with ``apply``, and raises :class:`IllegalMoveError` naming the legal moves
    for an illegal move (also in a finished game); ``returns`` and ``winner`` agree and
    are 1 / 0.5 / 0; ``render`` gives a string; ``rollout`` gives valid returns (those
    of ``returns`` in a finished game), and so does ``playout_counts`` (one row of
    three counts adding up to the playouts asked for); every game ends within
    ``max_plies``.

    A registered game's spec rebuilds it (``make_game(game.spec) == game``, with the same
    public attributes and initial state); one registered with declared parameters
    (:class:`~mctslab.specs.Param`) has the spec they generate and reads each value back the
    same from it; and every method that takes a player
    (:attr:`~Game.PLAYER_METHODS`) refuses ``-1`` and ``num_players`` with a one-line ``ValueError``.

    It checks that the game refuses what is not one of its states: :meth:`~Game.play`
    raises :class:`InvalidStateError` for ``None``, a number, a string, and positions of
    every other registered game whose states are of another type (:func:`foreign_states`).

    It also checks the game's drawing adapter (:func:`~mctslab.games.hooks.drawing`: the one
    registered beside the game, else the defaults of :class:`~mctslab.games.hooks.Drawing`):
    the two players' ``mark`` are distinct non-empty strings; ``move_text`` (long and
    short) names the legal moves with distinct non-empty strings; ``board_cells``
    is ``None`` at every position or rows of strings of the same size at every
    position; ``move_cell``, ``played_cell`` and ``click_move`` point inside the board (and a
    click plays a legal move, checked on the first :data:`REPLAYED_GAMES` games); ``column_labels``
    is ``None`` or one string per column; and the game object itself defines none of an adapter's
    names (:func:`~mctslab.games.adapters.adapter_names_defined_by`: they would be ignored);
    and, on the positions of the first :data:`REPLAYED_GAMES` games, :meth:`~Game.rollout_moves`
    plays legal moves to its final position and ends with the returns of
    :meth:`~Game.rollout` with the generator left in the same state (unless the game
    overrides ``rollout`` alone, whose replay the drawings flag as possibly different).
    A game with a network encoding (:func:`~mctslab.games.network.network_encoding`) must give
    ``features`` of one length, moves in ``range(policy_size)`` and ``symmetries`` that are
    permutations, the identity first (:func:`~mctslab.games.network.encoding_fault`).
    A game with compiled rules (:func:`~mctslab.games.compiled.compiled_rules`) must keep their declared sizes at every
    position (:func:`~mctslab.games.compiled.capacity_fault`), and, where Numba is installed,
    its compiled rules must play the random games in lock step with its Python rules: the
    same legal moves, and the position vector of every position (result, player, fields)
    equal to ``compiled_state`` of the Python position (:mod:`mctslab.engine.check`).

    Games of other kinds (:meth:`~Game.kind`: one player or more than two, chance,
    hidden information) are checked against their declaration
    (:mod:`mctslab.games.check_kinds`): ``to_move`` is a player or :data:`CHANCE`
    (only if ``has_chance``); ``returns`` and ``rollout`` give one number in [0, 1] per
    player (the win / draw / loss triples above stay the rule for two-player games
    without chance or hidden information); at a chance node ``chance_outcomes`` names
    the legal moves once each with probabilities > 0 summing to 1 (exactly, for
    ``Fraction`` s); ``information_state`` is hashable for every player, two
    positions with the same key for the player to move have the same legal moves, and
    ``sample_state`` keeps that key, the player to move and the legal moves.

    Args:
        game: the game to check.
        games: random games to play, >= 1.
        seed: seed of those games.
        max_plies: a game longer than this is reported as never ending.

    Raises:
        GameContractError: (an ``AssertionError``) describing the first violation.
    """
    rng = random.Random(seed)
    batch_rng = np.random.default_rng(seed)
    initial = game.initial_state()
    _check_hashable(game, initial, [])
    if initial != game.initial_state() or hash(initial) != hash(game.initial_state()):
        raise _fail(game, [], "initial_state() must give equal values on every call")
    if game.is_terminal(initial):
        raise _fail(game, [], "the initial state must not be terminal")
    fault = declaration_fault(game)
    if fault:
        raise _fail(game, [], fault)
    misplaced = adapter_names_defined_by(type(game)) or {n: c for n, c in _adapter_names().items() if n in vars(game)}
    if misplaced:
        name, concern = next(iter(misplaced.items()))
        raise _fail(game, [], f"the game sets {name}, a name of its {concern} adapter: register the adapter instead")
    _check_spec_rebuilds(game)
    _check_refuses_foreign_players(game, initial)
    _check_marks(game)
    _check_refuses_foreign_states(game)
    draw = drawing(game)
    board = draw.board_cells(initial)
    size = None if board is None else (len(board), len(board[0]) if board else 0)
    replayed = reports_its_rollout(game)
    replays = []  # positions to compare rollout_moves() with rollout() on, after the basic rules
    sample_rng, seen = random.Random(seed), {}  # sample_state's own generator: the random games stay the same
    compiled, played = compiled_rules(game), []
    for number in range(games):
        state, moves = initial, []
        while True:
            try:  # play() takes the positions it returns as checked: every one is checked here once
                game.check_state(state)
            except InvalidStateError as err:
                raise _fail(game, moves, f"check_state() refuses a position play() reached: {err}") from None
            _check_position(game, state, moves, rng)
            fault = information_fault(game, state, moves, sample_rng, seen)
            if fault:
                raise _fail(game, moves, fault)
            if game.num_players == 2:
                _check_playout_counts(game, state, moves, batch_rng)
            _check_board(game, state, moves, size, clicks=number < REPLAYED_GAMES)
            if replayed and number < REPLAYED_GAMES:
                replays.append((state, list(moves)))
            if compiled is not None:
                fault = capacity_fault(game, compiled, state, len(moves))
                if fault:
                    raise _fail(game, moves, fault)
            legal = game.legal_moves(state)
            if not legal:
                played.append(moves)
                break
            move = rng.choice(legal)
            before, before_hash = state, hash(state)
            after = game.play(state, move)
            if state != before or hash(state) != before_hash:
                raise _fail(game, moves, "play() must not change the state it is given")
            if after != game.apply(state, move):
                raise _fail(game, moves, f"play() and apply() disagree on move {move}")
            cell = draw.played_cell(after, move)
            if size is None and cell is not None or size is not None and not _inside(cell, size, True):
                raise _fail(
                    game, moves, f"played_cell() of move {move} must be None or a cell of the board, got {cell!r}"
                )
            state = after
            moves.append(move)
            if len(moves) > max_plies:
                raise _fail(game, moves[:20], f"a random game did not end within {max_plies} plies")
    for number, (state, moves) in enumerate(replays):
        _check_rollout_moves(game, state, moves, seed + number)
    for check in COMPILED_CHECKS if compiled is not None else ():
        fault = check(game, played)
        if fault:
            raise _fail(game, [], fault)
    if find_adapter("network", game) is not None:
        fault = encoding_fault(game, [s for s, _ in replays] or [initial])
        if fault:
            raise _fail(game, [], fault)


def _adapter_names() -> dict[str, str]:
    """Every adapter's names: name -> concern."""
    return {name: base.concern for base in BASES.values() for name in base.names}


def _public(game: Game) -> dict:
    """The game's public attributes (its parameters and spec; caches are ``_private``), arrays as lists."""
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in vars(game).items() if not k.startswith("_")}


def _check_spec_rebuilds(game: Game) -> None:
    """A registered game's spec rebuilds it: ``make_game(game.spec) == game``, with the same parameters.

    Game equality rests on the spec, so a spec that names other parameters than the game's
    would make two different games equal (and a results file or a worker rebuild the wrong
    one). A game whose name is not registered (written in a notebook), or of a class other
    than the one registered under its name, has nothing to rebuild from. A game registered
    with declared parameters (:class:`~mctslab.specs.Param`) must also hold each one under
    its name, have the spec they generate (:func:`~mctslab.specs.spec_text`: not one written
    by hand), and read each value back the same from it.
    """
    entry = next((e for e in GAMES.values() if e.factory is type(game) and e.declared is not None), None)
    if entry is not None:
        _check_declared_spec(game, entry)
    else:
        entry = GAMES.get(game.spec.partition(":")[0])
        if entry is None or isinstance(entry.factory, type) and type(game) is not entry.factory:
            return  # an unregistered game, or a class of its own borrowing a registered name (a test's broken game)
    try:
        rebuilt = make_game(game.spec)
    except ValueError as err:
        raise _fail(game, [], f"make_game(game.spec) must rebuild the game; it raised {err}") from None
    if rebuilt != game or _public(rebuilt) != _public(game) or rebuilt.initial_state() != game.initial_state():
        raise _fail(
            game, [], f"make_game({game.spec!r}) must rebuild the same game (the spec must name every parameter)"
        )


def _check_declared_spec(game: Game, entry: GameEntry) -> None:
    """The game holds its declared parameters, its spec is the one they generate, and each reads back the same."""
    name = next(key for key, e in GAMES.items() if e is entry)
    declared = entry.declared or ()
    missing = [p.name for p in declared if not hasattr(game, p.name)]
    if missing:
        raise _fail(game, [], f"the game declares the parameter {missing[0]!r} but holds no attribute of that name")
    generated = spec_text(name, declared, game)
    if game.spec != generated:
        raise _fail(
            game,
            [],
            f"its spec {game.spec!r} is not the one its declared parameters generate, {generated!r}: "
            "let register_game write it (do not set spec by hand)",
        )
    try:
        rebuilt = make_game(generated)
    except ValueError as err:
        raise _fail(game, [], f"make_game({generated!r}) must rebuild the game; it raised {err}") from None
    for p in declared:
        held, read = getattr(game, p.name), getattr(rebuilt, p.name, None)
        if read != held or type(read) is not type(held):
            raise _fail(
                game, [], f"parameter {p.name}={held!r} must read back the same from {generated!r}, got {read!r}"
            )


def _check_refuses_foreign_players(game: Game, state) -> None:
    """Every method that takes a player refuses one outside ``0 .. num_players - 1`` with a one-line ValueError."""
    rng = random.Random(0)
    calls = {
        "information_state": lambda p: game.information_state(state, p),
        "sample_state": lambda p: game.sample_state(state, p, rng),
        "evaluate": lambda p: game.evaluate(state, p),
    }
    for name, call in calls.items():
        for player in (-1, game.num_players):
            try:
                call(player)
            except ValueError as err:
                if "\n" in str(err):
                    raise _fail(game, [], f"{name}(state, {player}) must refuse in one line, got {err}") from None
                continue
            raise _fail(
                game, [], f"{name}(state, {player}) must raise ValueError: players are 0 to {game.num_players - 1}"
            )


def foreign_states(game: Game) -> list:
    """Values that cannot be states of ``game``: junk, and positions of the other registered games.

    Only values whose type differs from ``game``'s states are kept (the positions: the
    initial one and one a few random moves in, of each registered game with its default
    parameters): a 4 x 4 tic-tac-toe position may well be a 3 x 3 one too, and a game
    whose states are plain tuples may accept ``()`` as it likes.
    """
    own = type(game.initial_state())
    found: list = [None, 0, 3.5, "state", (), (0, 0, -1)]
    rng = random.Random(0)
    for name in sorted(GAMES):
        try:
            other = make_game(name)
        except Exception:  # a registered game that needs parameters: nothing to borrow from it
            continue
        state = other.initial_state()
        if type(state) is own:
            continue
        found.append(state)
        for _ in range(3):
            moves = other.legal_moves(state)
            if not moves:
                break
            state = other.apply(state, rng.choice(moves))
        found.append(state)
    return [value for value in found if type(value) is not own]


def _check_refuses_foreign_states(game: Game) -> None:
    move = game.legal_moves(game.initial_state())[0]
    for value in foreign_states(game):
        try:
            game.play(value, move)
        except InvalidStateError:
            continue
        except Exception as err:
            raise _fail(
                game,
                [],
                f"play() must raise InvalidStateError for a value that is not one of its states, "
                f"got {type(err).__name__} for {value!r} (override check_state)",
            ) from None
        raise _fail(game, [], f"play() accepted {value!r}, which is not one of its states (override check_state)")


def _check_playout_counts(game: Game, state, moves: list[int], rng: np.random.Generator, playouts: int = 4) -> None:
    counts = np.asarray(game.playout_counts([state], playouts, rng))
    if counts.shape != (1, 3) or counts.dtype.kind not in "iu" or counts.min() < 0 or counts.sum() != playouts:
        rule = f"playout_counts() must give one row of 3 counts adding up to {playouts}, got {counts}"
        raise _fail(game, moves, rule)
    if game.is_terminal(state) and tuple(game.returns(state)) in VALID_RETURNS:
        column = {(1.0, 0.0): 0, (0.0, 1.0): 1, (0.5, 0.5): 2}[tuple(game.returns(state))]
        if counts[0, column] != playouts:
            raise _fail(game, moves, f"playout_counts() of a finished game must count only its result, got {counts}")


def _check_hashable(game: Game, state, moves: list[int]) -> None:
    try:
        if not isinstance(state, Hashable):
            raise TypeError(type(state).__name__)
        hash(state)
    except TypeError as err:
        raise _fail(game, moves, f"states must be immutable and hashable ({err})") from None


def _check_position(game: Game, state, moves: list[int], rng: random.Random) -> None:
    _check_hashable(game, state, moves)
    if game.state_from_moves(moves) != state:
        raise _fail(game, moves, "state_from_moves() must rebuild an equal state")
    player = game.to_move(state)
    if game.kind().traits != CLASSIC:
        fault = position_fault(game, state, rng, player)
        if fault:
            raise _fail(game, moves, fault)
        return
    if player not in (0, 1):
        rule = player_fault(game, player) if player == CHANCE else f"to_move() must be 0 or 1, got {player!r}"
        raise _fail(game, moves, rule)
    if not isinstance(game.render(state), str):
        raise _fail(game, moves, "render() must return a str")
    legal = game.legal_moves(state)
    if not isinstance(legal, tuple) or not all(isinstance(m, int) and not isinstance(m, bool) for m in legal):
        raise _fail(game, moves, f"legal_moves() must be a tuple of ints, got {legal!r}")
    if list(legal) != sorted(set(legal)):
        raise _fail(game, moves, f"legal_moves() must be ascending without repeats, got {legal}")
    terminal = game.is_terminal(state)
    if terminal != (not legal):
        raise _fail(game, moves, f"is_terminal() is {terminal} but legal_moves() is {legal}")
    rollout = game.rollout(state, rng)
    if tuple(rollout) not in VALID_RETURNS:
        raise _fail(game, moves, f"rollout() must give (1, 0), (0, 1) or (0.5, 0.5), got {rollout}")
    illegal = max(legal, default=0) + 1 if legal else 0
    try:
        game.play(state, illegal)
    except IllegalMoveError as err:
        if legal and not all(str(m) in str(err) for m in legal[:5]):
            raise _fail(game, moves, f"the IllegalMoveError message must list the legal moves: {err}") from None
    else:
        raise _fail(game, moves, f"play() accepted the illegal move {illegal}")
    if terminal:
        returns = tuple(game.returns(state))
        if returns not in VALID_RETURNS:
            raise _fail(game, moves, f"returns() must be (1, 0), (0, 1) or (0.5, 0.5), got {returns}")
        if tuple(game.rollout(state, rng)) != returns:
            raise _fail(game, moves, f"rollout() of a finished game must give returns() = {returns}")
        winner = game.winner(state)
        expected = {(1.0, 0.0): 0, (0.0, 1.0): 1, (0.5, 0.5): None}[returns]
        if winner != expected:
            raise _fail(game, moves, f"winner() is {winner!r} but returns() is {returns}")
    else:
        if game.winner(state) is not None:
            raise _fail(game, moves, "winner() must be None while the game is in progress")
        try:
            game.returns(state)
        except ValueError:
            pass
        else:
            raise _fail(game, moves, "returns() must raise ValueError while the game is in progress")


def _check_marks(game: Game) -> None:
    if game.num_players != 2:
        return  # declaration_fault() checked one mark per player
    marks = [drawing(game).mark(0), drawing(game).mark(1)]
    if not all(isinstance(m, str) and m for m in marks) or marks[0] == marks[1]:
        raise _fail(game, [], f"mark(0) and mark(1) must be two different non-empty strings, got {marks!r}")


def _inside(cell, size: tuple[int, int], may_be_none: bool) -> bool:
    if cell is None:
        return may_be_none
    return (
        isinstance(cell, tuple)
        and len(cell) == 2
        and all(isinstance(i, int) for i in cell)
        and 0 <= cell[0] < size[0]
        and 0 <= cell[1] < size[1]
    )


def _check_board(game: Game, state, moves: list[int], size: tuple[int, int] | None, clicks: bool) -> None:
    """The naming and drawing hooks at one position (``size``: the initial board's rows and columns).

    ``clicks``: also click every cell (slow on big boards, so on a few games only).
    """
    legal, draw = game.legal_moves(state), drawing(game)
    for short in (False, True):
        names = [draw.move_text(m, short) for m in legal]
        if not all(isinstance(name, str) and name for name in names) or len(set(names)) != len(names):
            form = "move_text(move, short=True)" if short else "move_text(move)"
            raise _fail(game, moves, f"{form} must name the legal moves with distinct non-empty strings, got {names}")
    board = draw.board_cells(state)
    if size is None:
        if board is not None:
            raise _fail(game, moves, "board_cells() must be None at every position if it is None at the start")
        if any(draw.move_cell(state, m) is not None for m in legal):
            raise _fail(game, moves, "move_cell() must be None for a game without board_cells()")
        return
    if (
        not isinstance(board, list)
        or len(board) != size[0]
        or not all(isinstance(row, list) and len(row) == size[1] for row in board)
        or not all(isinstance(text, str) for row in board for text in row)
    ):
        rule = f"board_cells() must give {size[0]} rows of {size[1]} strings at every position (as at the start)"
        raise _fail(game, moves, f"{rule}, got {board!r}")
    labels = draw.column_labels()
    if labels is not None and (
        not isinstance(labels, list) or len(labels) != size[1] or not all(isinstance(t, str) for t in labels)
    ):
        raise _fail(game, moves, f"column_labels() must be None or {size[1]} strings (one per column), got {labels!r}")
    for move in legal:
        cell = draw.move_cell(state, move)
        if not _inside(cell, size, True):
            raise _fail(
                game, moves, f"move_cell() of move {move} must be None or (row, col) on the board, got {cell!r}"
            )
    for r in range(size[0] if clicks else 0):
        for c in range(size[1]):
            move = draw.click_move(state, r, c)
            if move is not None and move not in legal:
                raise _fail(game, moves, f"click_move() at {(r, c)} must be None or a legal move, got {move!r}")


def _check_rollout_moves(game: Game, state, moves: list[int], seed: int) -> None:
    """``rollout_moves`` against ``rollout`` from one position, played out and cut short."""
    for cap in (None, 1, 3):
        real, twin = random.Random(seed), random.Random(seed)
        expected = tuple(game.rollout(state, real, cap))
        played = game.rollout_moves(state, twin, cap)
        if tuple(played.returns) != expected or twin.getstate() != real.getstate():
            rule = (
                f"rollout_moves(state, rng, max_moves={cap}) must draw the random numbers of rollout() and end "
                f"with its returns {expected}, got {tuple(played.returns)}"
                + ("" if twin.getstate() == real.getstate() else " with the generator in another state")
                + f"; set rollout_order ({game.rollout_order!r} now) or override rollout_moves"
            )
            raise _fail(game, moves, rule)
        end = state
        for move in played.moves:
            try:
                end = game.play(end, move)
            except IllegalMoveError as err:
                raise _fail(game, moves, f"rollout_moves() played an illegal move: {err}") from None
        if end != played.final:
            raise _fail(game, moves, "rollout_moves() must give the position its moves lead to as final")
        if bool(played.cut) == game.is_terminal(end) or played.cut and (cap is None or len(played.moves) != cap):
            raise _fail(
                game, moves, f"rollout_moves() says cut={played.cut} after {len(played.moves)} moves (max {cap})"
            )
