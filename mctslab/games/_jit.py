"""What a game's compiled rules draw and index with (needs Numba; imported only by a game's ``rules()``).

:func:`rand` is Numba's own ``np.random.random()`` (its per-thread MT19937 generator, which
the compiled engine seeds before each search) emitted in place, and :func:`ix` an index the
compiler knows is never negative; see :mod:`mctslab.games.compiled` for the interface.
"""

# Inside @njit, Numba supports NumPy's legacy np.random functions (its own per-thread
# generator), not np.random.Generator: hence the legacy call.
# ruff: noqa: NPY002
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic

__all__ = ["ix", "njit", "rand"]

try:  # Numba's own draw from its per-thread np.random state, emitted inline (np.random.random() is a call)
    from numba.cpython.randomimpl import get_next_double, get_state_ptr
except ImportError:  # pragma: no cover - a Numba without these internals: the same numbers through the call
    get_next_double = None

if get_next_double is not None:

    @intrinsic
    def rand(typingctx):
        """``np.random.random()`` inline: the same MT19937 state, the same double from two 32-bit draws."""

        def codegen(context, builder, signature, args):
            return get_next_double(context, builder, get_state_ptr(context, builder, "np"))

        return types.float64(), codegen

else:  # pragma: no cover

    @njit(inline="always")
    def rand():
        """``np.random.random()``."""
        return np.random.random()


@njit(inline="always")
def ix(i):
    """``i`` (never negative) as an unsigned index: Numba then drops its test for a negative index.

    Numba reads ``a[i]`` with a signed ``i`` as Python does (``i < 0`` counts from the end), a
    compare and select on every access; on unsigned indices it emits a plain load. Used on the
    playouts' accesses, where that test was up to a tenth of the time; the values are the same.
    """
    return np.uint64(i)
