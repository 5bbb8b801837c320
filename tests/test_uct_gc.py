"""UCT pauses Python's cycle collector during a search, and always puts it back as it was."""

from __future__ import annotations

import gc
import threading

import pytest

from mctslab import UCT, make_game
from mctslab.agents.uct import Node, cycle_collector_paused
from mctslab.games.tictactoe import TicTacToe


class Watched(TicTacToe):
    """Tic-tac-toe that records whether the collector is on during each playout."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__()
        self.seen: list[bool] = []
        self.fail_after = fail_after

    def rollout(self, state, rng, max_moves=None):
        self.seen.append(gc.isenabled())
        if self.fail_after is not None and len(self.seen) > self.fail_after:
            raise RuntimeError("playout failed")
        return super().rollout(state, rng, max_moves)


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("budget", [{"iterations": 50}, {"seconds": 0.01}])
def test_paused_during_the_search_and_restored_after(collector_on, budget):
    game = Watched()
    UCT(seed=0, **budget).search(game, game.initial_state())
    assert game.seen and not any(game.seen)
    assert gc.isenabled()


def test_left_off_if_it_was_off(collector_on):
    gc.disable()
    game = Watched()
    UCT(iterations=20, seed=0).search(game, game.initial_state())
    assert not gc.isenabled()


def test_restored_when_the_search_raises(collector_on):
    game = Watched(fail_after=5)
    with pytest.raises(RuntimeError, match="playout failed"):
        UCT(iterations=50, seed=0).search(game, game.initial_state())
    assert len(game.seen) == 6 and not any(game.seen)
    assert gc.isenabled()


def test_overlapping_searches_restore_only_when_the_last_ends(collector_on):
    with cycle_collector_paused():
        with cycle_collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer search is still running
    assert gc.isenabled()


def test_threads_searching_at_once_leave_the_collector_on(collector_on):
    game = make_game("tictactoe")
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def search(seed: int) -> None:
        try:
            barrier.wait()
            for _ in range(5):
                UCT(iterations=200, seed=seed).search(game, game.initial_state())
        except BaseException as error:  # reported below, in the main thread
            errors.append(error)

    threads = [threading.Thread(target=search, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert gc.isenabled()


def test_the_tree_is_collected_once_the_search_is_over(collector_on):
    def live_nodes() -> int:
        return sum(isinstance(obj, Node) for obj in gc.get_objects())

    gc.collect()
    before = live_nodes()
    game = make_game("tictactoe")
    root = UCT(iterations=300, seed=0).search(game, game.initial_state())
    assert live_nodes() - before == root.size() > 100
    del root  # parent <-> child links are cycles: only the collector frees them
    gc.collect()
    assert live_nodes() == before
