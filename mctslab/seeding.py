"""Seeds in, random number generators out: the one place randomness is created.

Every random agent takes ``seed=``: an int, a :class:`numpy.random.SeedSequence`
(what tournaments spawn, one per game, so results do not depend on the number of
worker processes), an existing :class:`random.Random`, or ``None`` for fresh entropy.
Nothing in mctslab touches the global random state.

A uniformly random index below ``n`` is drawn everywhere as
``floor(rng.random() * n)``: one call into the generator, and ``math.floor`` gives
the same integer as ``int`` for a non-negative float at about half the cost (``int``
is a type call). ``rng.randrange(n)`` is exact too but several times slower.
"""

from __future__ import annotations

import random

import numpy as np

Seed = int | np.random.SeedSequence | random.Random | None


def make_rng(seed: Seed = None) -> random.Random:
    """A :class:`random.Random` built from ``seed`` (used as it is if it is one already).

    ``random.Random`` rather than a NumPy generator because the search draws one small
    integer at a time, where it is several times faster.

    Raises:
        TypeError: for any other kind of seed.
    """
    if isinstance(seed, random.Random):
        return seed
    if seed is None:
        return random.Random(int(np.random.SeedSequence().generate_state(1, np.uint64)[0]))
    if isinstance(seed, np.random.SeedSequence):
        words = seed.generate_state(4, np.uint32)
        return random.Random(int.from_bytes(words.tobytes(), "little"))
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return random.Random(int(seed))
    raise TypeError(f"seed must be an int, a numpy SeedSequence, a random.Random or None, not {type(seed).__name__}")
