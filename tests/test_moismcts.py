"""MO-ISMCTS keeps one tree per player, each descended by the moves as its owner sees them."""

from __future__ import annotations

from mctslab import make_agent, make_game
from mctslab.games.kuhn import BET, PASS


def test_phantom_trees_see_the_opponents_moves_as_their_owner_does():
    game = make_game("phantom_ttt")
    x_tree, o_tree = make_agent("moismcts:iterations=400", seed=0).search(game, game.initial_state())
    # O sees nothing of X's first mark: one branch in O's tree, under it O's own nine tries.
    assert len(o_tree.children) == 1
    (seen,) = o_tree.children.values()
    assert {key for key, _ in seen.children} == {"act"} and len(seen.children) == 9
    # X's tree: a branch per X action; under it, O's move as X sees it (an unseen mark, or a revealed try).
    assert {key for key in x_tree.children} == {("act", cell) for cell in range(9)}
    for child in x_tree.children.values():
        assert all(kind == "see" for kind, _ in child.children)
        assert len(child.children) < 9  # the opponent's nine tries are not told apart
    assert sum(c.visits for c in x_tree.children.values()) == 400


def test_kuhn_trees_separate_the_bets_but_not_the_hidden_card():
    game = make_game("kuhn")
    state = game.state_from_moves([1, 0])  # player 0 holds the Queen
    p0_tree, p1_tree = make_agent("moismcts:iterations=300", seed=1).search(game, state)
    assert set(p0_tree.children) == {("act", PASS), ("act", BET)}
    # Player 1's tree: its own card (the Jack or the King in the worlds sampled) and player 0's bet, as it sees them.
    assert all(kind == "see" for kind, _ in p1_tree.children)
    assert {(view[0], view[2]) for _, view in p1_tree.children} == {(c, (m,)) for c in (0, 2) for m in (PASS, BET)}
    # Player 1's decisions are made in its own tree, on its own card: with the King after a bet it calls.
    king_facing_bet = p1_tree.children[("see", (2, 2, (BET,)))]
    assert set(king_facing_bet.children) == {("act", PASS), ("act", BET)}
    call, fold = king_facing_bet.children[("act", BET)], king_facing_bet.children[("act", PASS)]
    assert call.visits > fold.visits and call.mean() > fold.mean()
    # Player 0's tree sees player 1's answer to a check, not player 1's card: two branches.
    assert len(p0_tree.children[("act", PASS)].children) == 2
