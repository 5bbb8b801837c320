"""A person plays Kuhn poker and Pig on the play board, through the widget's own buttons.

Kuhn poker: what the board shows the person (every widget text, the saved HTML, the text
form) may depend only on what their seat knows. Two sessions whose deals differ only in the
agent's card must show the same thing at every step, clicked the same way, until a showdown
turns the cards over; a hand that ends in a fold never shows the agent's card (nor its
statistics, which depend on it). ISMCTS's move does not depend on the hidden card
(tests/test_no_peeking.py), so the two sessions are played alike.

Pig: the die is rolled by the board, and each roll is said in words, with the turn total.
"""

from __future__ import annotations

import re

import pytest
from test_viz_chance import widget_texts

from mctslab import make_agent, make_game
from mctslab.games.kuhn import CARDS, FOLDS
from mctslab.viz.playboard import play_board


def shown(board) -> list[str]:
    """Everything the board shows or holds: its widgets, and what a saved notebook keeps of it."""
    bundle = board._repr_mimebundle_()
    return [*widget_texts(board.box), bundle["text/plain"], bundle["text/html"]]


def kuhn_board(deal: list[int], human: int, agent: str, seed: int):
    return play_board(make_game("kuhn"), make_agent(agent, seed=seed), human=human, opening=deal, seed=seed)


def click(board, name: str) -> None:
    (button,) = [b for b in board.choices.children if b.description == name]
    button.click()


def play_twins(human: int, mine: int, agent: str, plan: str, seed: int) -> tuple[int, str]:
    """Two boards, the agent's card the only difference, clicked alike; how many views were compared, and the end.

    The views are compared while the bets agree (the agent may bet differently on another
    card: that is its information, and the bets are public). The end is ``"fold"``,
    ``"showdown"`` or ``"apart"`` (the agent's bets differed).
    """
    others = [c for c in range(3) if c != mine]
    boards = [kuhn_board([mine, t] if human == 0 else [t, mine], human, agent, seed) for t in others]
    sessions = [b.session for b in boards]
    compared = 0
    while True:
        if sessions[0].state.history != sessions[1].state.history:
            return compared, "apart"
        history = sessions[0].state.history
        if sessions[0].over and history not in FOLDS:
            for board, theirs in zip(boards, others, strict=True):  # the showdown: both cards, who won, how much
                assert f"P{1 - human} holds {CARDS[theirs]}" in board.view.value and "showdown:" in board.view.value
                assert re.search(r"(P0|P1|you) wins? (1 chip|2 chips)", board.view.value), board.view.value
                assert " won" in board.status.value
            return compared, "showdown"
        texts = [shown(b) for b in boards]
        assert texts[0] == texts[1], f"the board shows the agent's card (seat {human}, your card {CARDS[mine]})"
        compared += 1
        if sessions[0].over:  # a fold: the cards and the agent's statistics stay hidden at the end too
            assert "folded" in boards[0].view.value and "not shown" in boards[0].view.value
            assert sessions[0].analysis is None or "stay hidden" in sessions[0].stats_table()
            return compared, "fold"
        view = boards[0].view.value
        assert f"hold {CARDS[mine]}" in view and "the other card is hidden" in view
        assert [b.description for b in boards[0].choices.children] == ["pass", "bet"]
        for board in boards:
            click(board, plan)


@pytest.mark.parametrize("human", [0, 1])
def test_kuhn_shows_the_same_whatever_the_agents_card_until_a_showdown(human):
    ends, compared = set(), 0
    for agent in ("random", "ismcts:iterations=60"):
        for mine in range(3):
            for plan in ("pass", "bet"):
                for seed in range(2):
                    count, end = play_twins(human, mine, agent, plan, seed)
                    compared += count
                    ends.add(end)
    assert {"fold", "showdown"} <= ends and compared >= 12  # the random agent (12 hands) never bets apart


@pytest.mark.parametrize("human", [0, 1])
def test_kuhn_dealt_by_the_board_says_your_card_and_hides_theirs(human):
    for seed in range(4):
        board = play_board(make_game("kuhn"), make_agent("ismcts:iterations=60", seed=seed), human=human, seed=seed)
        session = board.session
        mine, theirs = session.state.cards[human], session.state.cards[1 - human]
        said = board.view.value
        assert f"chance: {CARDS[mine]} to P{human}" in said and "chance: (hidden from you)" in said
        while not session.over:
            assert not any(f"{CARDS[theirs]} to P{1 - human}" in text for text in shown(board))
            if session.state.history:  # the agent's bets are public: they are said
                assert re.search(r"the agent \(P\d\): (pass|bet)", session.events_text() + board.view.value) or (
                    session.events[-1].who == "you"
                )
            click(board, "bet" if seed % 2 else "pass")
        if session.state.history not in FOLDS:  # a showdown tells the whole deal
            assert f"chance: {CARDS[theirs]} to P{1 - human}" in session.events_text()


def test_pig_rolls_are_said_with_the_turn_total():
    game = make_game("pig:target=30")
    board = play_board(game, make_agent("uct:iterations=100", seed=0), human=0, seed=3)
    session = board.session
    assert [b.description for b in board.choices.children] == ["roll", "hold"]
    rolls = 0
    for _ in range(12):
        if session.over:
            break
        if [b.description for b in board.choices.children] == ["hold"]:  # holding wins: the only move
            assert "hold and win" in board.view.value
            click(board, "hold")
            break
        before = len(session.events)
        click(board, "roll")
        face = session.events[before + 1].move  # your roll, then the die
        assert session.events[before + 1].who == "chance"
        text = session.events_text()
        rolls += 1
        if session.over:  # the agent won in its turn: the board tells the whole game
            assert f"you: roll; chance: rolled {face}" in text
            break
        assert text.startswith(f"you: roll; chance: rolled {face}")
        if face == 1:  # pigged out: the turn passed, the agent played its turn, the turn total is back to 0
            assert "turn over" in text and ("the agent (P1): " in text or session.over)
        else:
            assert f"turn total {session.state.total}" in board.view.value
            if session.state.total >= 8:
                click(board, "hold")
                assert session.events_text().startswith("you: hold\nthe agent (P1): ") or session.over
    assert rolls >= 3
    while not session.over:
        names = [b.description for b in board.choices.children]
        click(board, "hold" if session.state.total >= 6 or names == ["hold"] else "roll")
    assert "wins" in board.view.value and " won" in board.status.value


@pytest.mark.parametrize("human", [0, 1])
def test_phantom_board_shows_your_marks_and_the_ones_your_tries_found_only(human):
    """Phantom tic-tac-toe: the buttons hold your view (your marks, the ones your tries found), never the rest."""
    game = make_game("phantom_ttt")
    for seed in range(3):
        board = play_board(game, make_agent("ismcts:iterations=50", seed=seed), human=human, seed=seed)
        session, hidden_seen = board.session, 0
        for step in range(30):
            if session.over:
                break
            shown_cells = [[b.description.replace("\xa0", "") for b in row] for row in board.buttons]
            assert shown_cells == game.board_cells_for(session.state, human), game.render(session.state)
            truth = game.board_cells(session.state)
            pairs = zip(sum(truth, []), sum(shown_cells, []), strict=True)
            hidden_seen += sum(bool(t) and not s for t, s in pairs)
            assert "hidden" in board._repr_mimebundle_()["text/plain"]  # the words say how many are hidden
            legal = session.game.legal_moves(session.state)
            row, col = divmod(legal[(seed + step) % len(legal)], 3)
            board.click(row, col)
        assert session.over
        marks = [[b.description if b.description in "XO" else "" for b in row] for row in board.buttons]
        assert marks == game.board_cells(session.state)  # at the end the whole board (and the agent's visits)
    assert hidden_seen > 0  # the agent's marks were on the board, and not shown


def test_a_failed_phantom_try_says_the_cell_was_taken():
    """Your try on a cell the agent holds (hidden from you) is told as a failed try, a placement as a move only."""
    game = make_game("phantom_ttt")
    board = play_board(game, make_agent("ismcts:iterations=30", seed=0), human=1, seed=0)  # the agent (X) first
    session = board.session
    taken = session.state.board.index(1)  # the agent's hidden X
    board.click(*divmod(taken, 3))
    assert session.events_text().startswith(f"you: {taken} (an X was there: try again)")
    assert board.buttons[taken // 3][taken % 3].description == "X"  # now you see it
    free = next(m for m in game.legal_moves(session.state) if session.state.board[m] == 0)
    board.click(*divmod(free, 3))
    assert session.events_text().startswith(f"you: {free}\n") or session.events_text() == f"you: {free}"


def test_the_agents_failed_phantom_tries_are_not_counted_out_to_you():
    """Its tries on your hidden marks keep its turn; you learn that it moved, never how many tries it took."""
    game = make_game("phantom_ttt")
    tries = 0  # the agent's failed tries seen over the games (each turn's agent moves beyond the first)
    for seed in range(6):
        board = play_board(game, make_agent("ismcts:iterations=20", seed=seed), human=0, seed=seed)
        session = board.session
        for move in (4, 0, 8, 2, 6, 1, 3, 5, 7):
            if session.over:
                break
            if not session.your_turn() or move not in game.legal_moves(session.state):
                continue
            before = len(session.events)
            board.click(*divmod(move, 3))
            tries += max(0, sum(e.who == "agent" for e in session.events[before:]) - 1)
            if not session.over:
                assert session.events_text().count("moved (hidden from you)") <= 1, session.events_text()
    assert tries > 0  # the agent did fail tries in these games, so the test saw them said once
