"""Notebook 00's exercise check: accepts the misère rule, explains wrong ones, never raises."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from machine_load import CpuClock

from mctslab.course.exercises.misere import check_misere
from mctslab.games.base import Game


class Count(NamedTuple):
    total: int
    player: int


class TwentyOne(Game):
    """Notebook 00's game: say 1-3 more than the last number; whoever says the target wins."""

    def __init__(self, target=21):
        self.target = target
        self.spec = f"twentyone:target={target}"

    def initial_state(self):
        return Count(0, 0)

    def to_move(self, state):
        return state.player

    def legal_moves(self, state):
        return tuple(step for step in (1, 2, 3) if state.total + step <= self.target)

    def apply(self, state, move):
        return Count(state.total + move, 1 - state.player)

    def is_terminal(self, state):
        return state.total == self.target

    def winner(self, state):
        return 1 - state.player if self.is_terminal(state) else None

    def render(self, state):
        return f"{state.total} said; player {state.player} to speak"


class Misere(TwentyOne):
    def winner(self, state):
        return state.player if self.is_terminal(state) else None


class Stub(TwentyOne):
    def winner(self, state):
        raise NotImplementedError("exercise: your code here")


class AlwaysZero(TwentyOne):
    def winner(self, state):
        return 0 if self.is_terminal(state) else None


class TooEarly(TwentyOne):
    def winner(self, state):
        return state.player


class Broken(TwentyOne):
    def winner(self, state):
        return state.total / 0


def test_the_misere_rule_passes_and_reports_the_solver():
    report = check_misere(Misere)
    assert report.startswith("passed:")
    assert "loses with target 21" in report and "wins with target 22" in report


def test_the_stub_is_not_written_yet():
    assert check_misere(Stub).startswith("not written yet:")


def test_wrong_rules_are_explained_without_the_answer():
    normal = check_misere(TwentyOne)
    assert normal.startswith("not yet:") and "whoever says the target loses" in normal
    assert check_misere(AlwaysZero).startswith("not yet:")
    assert "still going" in check_misere(TooEarly)
    for report in (normal, check_misere(AlwaysZero), check_misere(TooEarly)):
        assert "first player" not in report  # who wins from the start is the student's to find


def test_an_error_in_the_answer_is_one_line():
    report = check_misere(Broken)
    assert report.startswith("not yet: your code raised ZeroDivisionError")


@pytest.mark.load
def test_a_misere_game_that_never_answers_is_stopped_at_the_limit(monkeypatch):

    from mctslab.course.exercises import misere

    class Endless:  # a student's winner() that loops forever
        def __init__(self, target):
            self.target = target

        def state_from_moves(self, moves):
            while True:
                moves = list(moves)

    monkeypatch.setattr(misere, "CHECK_SECONDS", 0.3)
    with CpuClock() as clock:
        verdict = check_misere(Endless)
    assert verdict.startswith("not yet: your game did not answer within 0.3 s of CPU time"), verdict
    assert clock.seconds < 0.3 + 2, clock.seconds


def test_the_stub_message_does_not_name_the_method_to_override():
    class Stub:
        def __init__(self, target):
            raise NotImplementedError("your code here")

    verdict = check_misere(Stub)
    assert verdict.startswith("not written yet:") and "winner" not in verdict
