"""Seeds in, random number generators out: the one place randomness is created.

Everything random in mctslab takes ``seed=``, a :data:`Seed`: an int >= 0, a
:class:`numpy.random.SeedSequence`, an existing generator (:class:`random.Random` or
:class:`numpy.random.Generator`), or ``None`` for fresh entropy. Nothing in mctslab
touches the global random state.

Child seeds are always derived the same way, as ``SeedSequence.spawn`` would (the
``k``-th child of ``S`` is ``SeedSequence(S).spawn(n)[k]``), but from the parent's
*key* rather than with ``spawn``, so the parent is not changed and the same parent
always gives the same children:

* :func:`child_seed` ``(S, key)``: the seed at a spawn path, e.g. game ``i`` of pairing
  ``p`` of a tournament is ``child_seed(S, (p, i))``;
* :func:`child_seeds` ``(S, n)``: its first ``n`` children (the two players of a game);
* :func:`child_generators` ``(S, n)``: NumPy generators for ``n`` independent streams
  (a bandit experiment's arms, policy and recommendations).

So a tournament gives the same games on any number of worker processes: a game's seed
depends on its place in the schedule, never on a worker id.

A uniformly random index below ``n`` is drawn everywhere as
``floor(rng.random() * n)``: one call into the generator, and ``math.floor`` gives
the same integer as ``int`` for a non-negative float at about half the cost (``int``
is a type call). ``rng.randrange(n)`` is exact too but several times slower.
"""

from __future__ import annotations

import numbers
import random
from collections.abc import Sequence

import numpy as np

from .validation import non_negative_int

__all__ = ["Seed", "child_generators", "child_seed", "child_seeds", "make_rng", "seed_sequence"]

Seed = int | np.random.SeedSequence | random.Random | np.random.Generator | None
"""What ``seed=`` accepts anywhere in mctslab (tournaments, which write their seed in
their results file, take only an int or a ``SeedSequence``)."""

_KINDS = "an int >= 0, a numpy SeedSequence, a random.Random, a numpy Generator or None"


def _check_int(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be {_KINDS}, got {seed!r} (a {type(seed).__name__})")
    return non_negative_int("seed", seed, hint=" (or a numpy SeedSequence, a generator or None)")


def seed_sequence(seed: Seed = None) -> np.random.SeedSequence:
    """``seed`` as a :class:`numpy.random.SeedSequence` (a ``SeedSequence`` is returned as it is).

    An int ``s`` gives ``SeedSequence(s)``; ``None`` fresh entropy. A generator is
    *consumed* (four 63-bit draws for a NumPy ``Generator``, 128 bits for a
    ``random.Random``), as any use of it would be.

    Raises:
        TypeError: for any other kind of seed (a ``bool`` is not an int).
        ValueError: for a negative int.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=4).tolist())
    if isinstance(seed, random.Random):
        return np.random.SeedSequence(seed.getrandbits(128))
    return np.random.SeedSequence(_check_int(seed))


def child_seed(seed: Seed, key: Sequence[int]) -> np.random.SeedSequence:
    """The seed at spawn path ``key`` below ``seed``, as repeated ``SeedSequence.spawn`` gives it.

    ``child_seed(S, (i,))`` equals ``SeedSequence(S).spawn(N)[i]`` for any ``N > i``, and
    ``child_seed(S, (p, i))`` equals ``SeedSequence(S).spawn(P)[p].spawn(N)[i]``; so adding
    games to a tournament does not change the games already played. ``seed`` itself is
    not changed (``spawn`` would advance its counter).

    Args:
        seed: the parent (see :func:`seed_sequence`).
        key: the spawn path: integers >= 0, e.g. ``(index,)`` or ``(pair, index)``.

    Returns:
        A new :class:`numpy.random.SeedSequence`.
    """
    root = seed_sequence(seed)
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key), pool_size=root.pool_size)


def child_seeds(seed: Seed, n: int) -> list[np.random.SeedSequence]:
    """The ``n`` child seeds of ``seed``: those ``SeedSequence(seed).spawn(n)`` gives.

    Unlike :meth:`numpy.random.SeedSequence.spawn`, this does not advance the parent's
    spawn counter, so calling it twice with the same ``SeedSequence`` gives the same
    children (a game replayed from its seed is the same game).

    Args:
        seed: the parent (see :func:`seed_sequence`).
        n: how many children, >= 0.

    Raises:
        TypeError, ValueError: for a bad seed or ``n``.
    """
    n = non_negative_int("n", n)
    root = seed_sequence(seed)
    return [child_seed(root, (k,)) for k in range(n)]


def child_generators(seed: Seed, n: int) -> list[np.random.Generator]:
    """``n`` independent NumPy generators from one seed: ``default_rng`` of each of :func:`child_seeds`.

    The same seed gives the same generators; a ``Generator`` passed as the seed is
    consumed, a ``SeedSequence`` is not.
    """
    return [np.random.default_rng(child) for child in child_seeds(seed, n)]


def make_rng(seed: Seed = None) -> random.Random:
    """A :class:`random.Random` built from ``seed`` (used as it is if it is one already).

    ``random.Random`` rather than a NumPy generator because the search draws one small
    integer at a time, where it is several times faster. An int seeds it directly
    (``random.Random(seed)``); a ``SeedSequence`` through 128 bits of its state.

    Raises:
        TypeError: for any other kind of seed (a ``bool`` is not an int).
        ValueError: for a negative int.
    """
    if isinstance(seed, random.Random):
        return seed
    if seed is None:
        return random.Random(int(np.random.SeedSequence().generate_state(1, np.uint64)[0]))
    if isinstance(seed, np.random.Generator):
        seed = seed_sequence(seed)
    if isinstance(seed, np.random.SeedSequence):
        words = seed.generate_state(4, np.uint32)
        return random.Random(int.from_bytes(words.tobytes(), "little"))
    return random.Random(_check_int(seed))
