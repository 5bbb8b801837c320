"""Chance and hidden information in viz: chance nodes drawn as such; the play board shows each seat only its view."""

from __future__ import annotations

import pytest
from toy_games import CountingPuzzle, DiceDuel, HighCard, NamedHighCard

from mctslab import IllegalMoveError, check_game, make_agent
from mctslab.agents.node import Node
from mctslab.games import CHANCE, drawing
from mctslab.viz import PlaySession, draw_tree, play_board, tree_outline


class ToyNode:
    """A tree node of our own, speaking the chance-node interface of :mod:`mctslab.viz.labels`."""

    def __init__(self, state, player, move=None, parent=None, visits=0, wins=0.0, **interface):
        self.state, self.player, self.move, self.parent = state, player, move, parent
        self.visits, self.wins = visits, wins
        self.mean = wins / visits if visits else 0.5
        self.__dict__.update(interface)  # chance=..., probability=...: only when given
        self.children = []
        if parent is not None:
            parent.children.append(self)


def hand_built_tree(with_attributes=True):
    """DiceDuel's first turn: P0 chooses the steady (0) or the wild die (1); chance rolls it."""
    game = DiceDuel()
    root = ToyNode(game.initial_state(), 1, visits=12, **({"chance": False} if with_attributes else {}))
    flags = {"chance": True} if with_attributes else {}
    for move, visits in ((0, 5), (1, 7)):
        die = ToyNode(game.play(root.state, move), 0, move, root, visits, visits / 2, **flags)
        faces = game.chance_outcomes(die.state)
        for face, probability in faces:
            kwargs = {"probability": probability} if with_attributes else {}
            ToyNode(game.play(die.state, face), -1, face, die, visits // len(faces) + (face == 0), 1.0, **kwargs)
    return game, root


@pytest.mark.parametrize("with_attributes", [True, False])
def test_chance_nodes_are_ellipses_and_their_edges_carry_exact_probabilities(with_attributes):
    game, root = hand_built_tree(with_attributes)
    # Without the attributes the game is asked (it must be given); with them, no game is needed for the shapes.
    graph = draw_tree(root, game, depth=None, top_k=None, max_nodes=None)
    source = graph.source
    assert source.count("shape=ellipse") == 2  # the two dice about to be rolled
    for label in ("1/3", "1/2"):
        assert f"label={label}" in source or f'label="{label}"' in source
    assert "chance: 5" in source and "chance: 3" in source
    assert "ellipse: chance node" in source  # the legend says so
    outline = tree_outline(root, game, depth=None, top_k=None, max_nodes=None)
    assert "chance: 0  p=1/2" in outline and "chance: 2  p=1/3" in outline
    assert outline.count("(chance node)") == 2


def test_floats_are_rounded_and_unknown_probabilities_say_so():
    game, root = hand_built_tree()
    wild = root.children[1]
    wild.children[0].probability, wild.children[1].probability = 0.123456, None
    source = draw_tree(root, game, depth=None, top_k=None, max_nodes=None).source
    assert "label=0.123" in source or 'label="0.123"' in source
    # The second child falls back on the game's exact odds, since its parent has a state.
    assert "label=1/2" in source or 'label="1/2"' in source


def test_no_chance_marks_on_a_tree_without_chance():
    game = DiceDuel()
    root = Node(game.initial_state(), 1)
    source = draw_tree(root).source  # no game: no way (and no need) to tell
    assert "ellipse" not in source and "chance" not in source


def test_package_nodes_without_the_attributes_are_told_by_the_game():
    game = DiceDuel()
    root = Node(game.initial_state(), 1)
    die = Node(game.play(root.state, 1), 0, 1, root)
    root.children = [die]
    root.visits = die.visits = 2
    die.children = [Node(game.play(die.state, f), 0, f, die) for f in (0, 5)]
    for ch in die.children:
        ch.visits = 1
    source = draw_tree(root, game).source
    assert source.count("shape=ellipse") == 1 and source.count("1/2") == 2
    assert "ucb" not in draw_tree(root, game, ucb=True).source.split("chance: 0")[1].split("\n")[0]


# -- the play board --------------------------------------------------------------------------


def widget_texts(widget):
    """Every string a widget tree shows or holds: HTML values, button labels, tooltips, options."""
    texts = []
    for name in ("value", "description", "tooltip"):
        value = getattr(widget, name, None)
        if isinstance(value, str):
            texts.append(value)
    texts += [str(o) for o in getattr(widget, "options", ())]
    for child in getattr(widget, "children", ()):
        texts += widget_texts(child)
    return texts


def test_the_board_rolls_the_dice_itself_says_what_came_up_and_is_seeded():
    game = DiceDuel()
    runs = []
    for _ in range(2):
        session = PlaySession(game, make_agent("random", seed=3), human=0, seed=11)
        while not session.over:
            assert session.your_turn() and game.to_move(session.state) != CHANCE
            session.play(1)  # the wild die: 0 or 5
            assert session.events_text().startswith("you: 1; chance: ")
        runs.append(session.moves)
        assert game.state_from_moves(session.moves) == session.state  # outcomes are recorded as moves
        assert "chance: 5" in session.events_text() or "chance: 0" in session.events_text()  # the whole game
    assert runs[0] == runs[1] and len(runs[0]) == 12
    dice = set()
    for seed in range(12, 16):  # other seeds, other dice: 2**6 sequences, four alike with chance 1/2**18
        other = PlaySession(game, make_agent("random", seed=3), human=0, seed=seed)
        while not other.over:
            other.play(1)
        dice.add(tuple(other.moves))
    assert len(dice) > 1
    with pytest.raises(IllegalMoveError):
        PlaySession(game, make_agent("random", seed=3), human=0, seed=11).play(2)


def test_the_board_draws_a_chance_tree_game_without_a_board_by_its_moves():
    board = play_board(DiceDuel(), make_agent("random", seed=0), human=1, seed=5)
    session = board.session
    assert session.moves[:1] == [session.events[0].move] and len(session.moves) == 2  # P0 chose, chance rolled
    assert [b.description for b in board.choices.children] == ["0", "1"]
    board.choices.children[0].click()
    assert session.events_text().startswith("you: 0; chance: ") and "chance: " in board.view.value


def reveals(card_name, session_or_board):
    if isinstance(session_or_board, PlaySession):
        texts = [session_or_board._repr_html_(), repr(session_or_board)]
    else:
        texts = widget_texts(session_or_board.box) + [session_or_board._repr_mimebundle_()["text/plain"]]
    return any(card_name in text for text in texts)


@pytest.mark.parametrize("human", [0, 1])
@pytest.mark.parametrize("seed", range(6))
def test_the_board_never_shows_the_other_card_before_the_end_and_shows_everything_after(human, seed):
    game = NamedHighCard()
    board = play_board(game, make_agent("random", seed=seed), human=human, seed=seed)
    session = board.session
    other = game.names[session.state.cards[1 - human]]
    own = game.names[session.state.cards[human]]
    while not session.over:
        assert not reveals(other, board) and not reveals(other, session)
        assert f"you hold {own}" in board.view.value
        assert "statistics are shown when the game ends" in session.stats_table() or session.analysis is None
        board.choices.children[seed % len(board.choices.children)].click()
    assert reveals(other, board) and reveals(other, session)
    assert f"deals {other}" in session.events_text()  # the deal, said at the end


def test_default_views_of_a_hidden_game_depend_only_on_the_information_state():
    # HighCard keeps the default render_for and board hooks: the board's HTML, before the end, is the same
    # whichever card the agent holds (the random agent's move does not depend on it).
    game = HighCard()
    for human, mine in ((0, 2), (1, 1)):
        pages = set()
        for theirs in {1, 2, 3} - {mine}:
            deal = [mine, theirs] if human == 0 else [theirs, mine]
            session = PlaySession(game, make_agent("random", seed=0), human=human, opening=deal, seed=0)
            assert not session.over
            pages.add((session._repr_html_(), repr(session), session.view(), session.events_text()))
        assert len(pages) == 1, pages
    assert drawing(game).board_cells_for(game.initial_state(), 0) is None


def test_a_puzzle_is_played_alone():
    game = CountingPuzzle()
    with pytest.raises(ValueError, match="pass agent=None"):
        PlaySession(game, make_agent("random", seed=0))
    with pytest.raises(ValueError, match="give an agent"):
        PlaySession(DiceDuel())
    board = play_board(game)
    assert board.seat.layout.display == "none" and "you play alone" in board.stats.value
    for _ in range(4):
        board.choices.children[1].click()  # add 2, four times: 8
    session = board.session
    assert session.over and session.moves == [2, 2, 2, 2]
    assert session.status() == f"the end: your return is {game.normalise(8):.3g} (1 is the best)"
    assert board.choices.children == () and "the end" in board.status.value


def test_the_toy_game_with_names_passes_check_game():
    check_game(NamedHighCard(), games=20, seed=1)


# -- the explorer ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [DiceDuel(), HighCard()])
def test_the_explorer_refuses_a_game_its_agent_cannot_search_in_one_line(game):
    from mctslab.agents.base import CannotPlayError
    from mctslab.viz import TreeExplorer, tree_explorer

    uct = make_agent("uct")
    if game.kind().traits <= uct.handles:  # UCT through chance nodes: then the explorer must draw its tree
        explorer = TreeExplorer(game, iteration=30)
        assert "30 visits" in explorer.figure().source
        return
    for build in (lambda: TreeExplorer(game), lambda: tree_explorer(game)):
        with pytest.raises(CannotPlayError, match=f"cannot play {game.spec}, a two-player game with") as err:
            build()
        assert "\n" not in str(err.value)


def test_the_recorder_scores_no_outcome_of_a_chance_node_and_says_chance_drew_it():
    from mctslab.viz import IterationRecord, Playout, SearchRecorder, Update

    game, root = hand_built_tree()
    recorder = SearchRecorder(game, game.initial_state())
    wild = root.children[1]
    drawn = wild.children[1]
    at_root, at_die = recorder._scores(root, wild), recorder._scores(wild, drawn)
    assert len(at_root.scores) == 2 and at_die.scores == ()
    updates = tuple(Update(n, n.visits, n.wins, 1.0) for n in (drawn, wild, root))
    playout = Playout((), (1.0, 0.0), drawn.state, False)
    record = IterationRecord(1, root, (at_root, at_die), drawn, None, playout, updates, 1.4, "UCB1")
    text = record.describe(game)
    assert "at P0 1, a chance node, N = 7: drawn, chance: 5" in text and "chance: 5 1/3 -> 2/4" in text
