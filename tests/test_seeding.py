"""One way to derive seeds: every child seed in mctslab is the one ``SeedSequence.spawn`` would give."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mctslab import play
from mctslab.seeding import child_generators, child_seed, child_seeds, make_rng, seed_sequence
from mctslab.tournament import game_seed


def _state(seq: np.random.SeedSequence) -> list[int]:
    return seq.generate_state(4).tolist()


def test_child_seed_follows_repeated_spawn_without_changing_the_parent():
    parent = np.random.SeedSequence(9)
    spawned = np.random.SeedSequence(9).spawn(5)
    assert _state(child_seed(parent, (3,))) == _state(spawned[3])
    assert _state(child_seed(9, (3,))) == _state(spawned[3])
    grandchild = np.random.SeedSequence(9).spawn(4)[2].spawn(7)[6]
    assert _state(child_seed(9, (2, 6))) == _state(grandchild)
    assert parent.n_children_spawned == 0
    assert _state(child_seed(parent, (3,))) == _state(child_seed(parent, (3,)))


def test_child_seeds_and_generators_are_the_first_children():
    spawned = np.random.SeedSequence(4).spawn(3)
    assert [_state(s) for s in child_seeds(4, 3)] == [_state(s) for s in spawned]
    assert child_seeds(4, 0) == []
    draws = [g.random() for g in child_generators(4, 3)]
    assert draws == [np.random.default_rng(s).random() for s in spawned]


def test_a_generator_seed_is_consumed_a_seed_sequence_is_not():
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    assert _state(seed_sequence(a)) == _state(seed_sequence(b))
    assert _state(seed_sequence(a)) != _state(seed_sequence(np.random.default_rng(3)))  # a moved on
    seq = np.random.SeedSequence(11)
    assert seed_sequence(seq) is seq


def test_the_old_names_are_the_one_implementation():
    assert play.child_seeds is child_seeds
    assert _state(game_seed(5, (1, 2))) == _state(child_seed(5, (1, 2)))


def test_make_rng():
    assert make_rng(7).random() == random.Random(7).random()
    r = random.Random(1)
    assert make_rng(r) is r
    seq = np.random.SeedSequence(3)
    assert make_rng(seq).random() == make_rng(np.random.SeedSequence(3)).random()
    assert make_rng(np.int64(7)).random() == random.Random(7).random()
    assert make_rng(np.random.default_rng(2)).random() == make_rng(np.random.default_rng(2)).random()


@pytest.mark.parametrize("bad", ["1", 1.0, True, object()])
def test_a_seed_of_the_wrong_kind_is_a_type_error_that_lists_the_kinds(bad):
    for derive in (make_rng, seed_sequence, lambda s: child_seed(s, (0,))):
        with pytest.raises(TypeError, match="seed must be an int >= 0, a numpy SeedSequence"):
            derive(bad)


def test_a_negative_seed_is_a_value_error():
    for derive in (make_rng, seed_sequence, lambda s: child_seeds(s, 2)):
        with pytest.raises(ValueError, match="seed must be an integer >= 0"):
            derive(-3)
    with pytest.raises(ValueError, match="n must be an integer >= 0, got -1"):
        child_seeds(1, -1)
