"""What a game's compiled rules draw and index with (needs Numba; imported only by a game's ``rules()``).

:func:`rand` is the compiled engine's random draw: xorshift64* (Vigna 2016: shifts 12, 25 and
27, then a multiply by ``0x2545F4914F6CDD1D``; the top 53 bits of the product make a double in
[0, 1)), emitted in place, on a 64-bit state kept per thread. :func:`seed` sets this thread's
state to splitmix64 of a 32-bit seed (:func:`seed_state`: Steele, Lea and Flood 2014, with the
constants of Vigna's ``splitmix64.c``), so one seed
gives one stream, whichever thread draws it. :func:`python_draws` is the same generator in plain
Python, for tests and for the C reference (``mctslab/bench/c/uct.c`` draws the same numbers).
:func:`ix` is an index the compiler knows is never negative; see :mod:`mctslab.games.compiled`
for the interface.

The state lives in the 64 bits of Numba's own per-thread ``np.random`` state (the words
``mt[1]`` and ``mt[2]`` of its MT19937 table): Numba keeps that struct per thread and hands
out its address with a call that the compiler hoists out of loops, so the draw is a load, five
integer operations and a store. Nothing else in the engine draws from ``np.random`` inside
compiled code (calling ``np.random`` there would draw from, and disturb, the same words).

Until 2026-11-30 the engine drew from Numba's MT19937 itself (``np.random.random()``: two 32-bit
draws per double); xorshift64* gives the same searches other numbers, for less work per draw
(``python -m mctslab bench --c``'s ``C MT`` column: C's time on MT19937 over its time on xorshift64*).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

try:  # Numba's per-thread np.random state (its struct's address, a call hoisted out of loops)
    from numba.cpython.randomimpl import get_array_ptr, get_state_ptr
except ImportError as err:  # pragma: no cover - a Numba without these internals
    raise ImportError(f"the compiled engine needs Numba's per-thread random state (numba>=0.59): {err}") from err

__all__ = ["MASK", "ix", "njit", "python_draws", "rand", "seed", "seed_state"]

MASK = (1 << 64) - 1
_MULTIPLIER = 0x2545F4914F6CDD1D
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_I64 = ir.IntType(64)


def seed_state(value: int) -> int:
    """The generator's state for seed ``value`` (0 to 2**32 - 1): splitmix64's first output from ``value``.

    Never 0 (xorshift's one dead state; splitmix64 gives 0 for no 32-bit seed, and 0 would be
    replaced by the golden ratio constant).
    """
    z = (value + _GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * _MIX1) & MASK
    z = ((z ^ (z >> 27)) * _MIX2) & MASK
    z ^= z >> 31
    return z or _GOLDEN


def python_draws(value: int, n: int) -> list[float]:
    """The first ``n`` numbers :func:`rand` draws after :func:`seed` (``value``), computed in plain Python."""
    x, out = seed_state(value), []
    for _ in range(n):
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        out.append((((x * _MULTIPLIER) & MASK) >> 11) / 9007199254740992.0)
    return out


def _const(value: int) -> ir.Constant:
    return ir.Constant(_I64, value - (1 << 64) if value >= 1 << 63 else value)


def _state(context, builder):
    """A pointer to this thread's 64-bit state: ``mt[1]`` and ``mt[2]`` of Numba's np.random struct (8-aligned)."""
    words = get_array_ptr(builder, get_state_ptr(context, builder, "np"))
    return builder.bitcast(cgutils.gep_inbounds(builder, words, 0, 1), _I64.as_pointer())


@intrinsic
def rand(typingctx):
    """A double in [0, 1) from this thread's xorshift64* (see the module's docstring), emitted in place."""

    def codegen(context, builder, signature, args):
        state = _state(context, builder)
        x = builder.load(state, align=8)
        x = builder.xor(x, builder.lshr(x, _const(12)))
        x = builder.xor(x, builder.shl(x, _const(25)))
        x = builder.xor(x, builder.lshr(x, _const(27)))
        builder.store(x, state, align=8)
        top = builder.lshr(builder.mul(x, _const(_MULTIPLIER)), _const(11))
        return builder.fmul(builder.uitofp(top, ir.DoubleType()), ir.Constant(ir.DoubleType(), 2.0**-53))

    return types.float64(), codegen


@intrinsic
def _seed(typingctx, value):
    """Set this thread's state to splitmix64 of ``value`` (an integer; its low 64 bits): :func:`seed_state`."""
    if not isinstance(value, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        z = context.cast(builder, args[0], signature.args[0], types.uint64)
        z = builder.add(z, _const(_GOLDEN))
        z = builder.mul(builder.xor(z, builder.lshr(z, _const(30))), _const(_MIX1))
        z = builder.mul(builder.xor(z, builder.lshr(z, _const(27))), _const(_MIX2))
        z = builder.xor(z, builder.lshr(z, _const(31)))
        zero = builder.icmp_unsigned("==", z, _const(0))
        z = builder.select(zero, _const(_GOLDEN), z)
        builder.store(z, _state(context, builder), align=8)
        return context.get_dummy_value()

    return types.void(value), codegen


@njit(inline="always")
def seed(value):
    """Seed this thread's generator with ``value`` (0 to 2**32 - 1): the next :func:`rand` draws start its stream."""
    _seed(value)


@njit(inline="always")
def ix(i):
    """``i`` (never negative) as an unsigned index: Numba then drops its test for a negative index.

    Numba reads ``a[i]`` with a signed ``i`` as Python does (``i < 0`` counts from the end), a
    compare and select on every access; on unsigned indices it emits a plain load. Used on the
    playouts' accesses, where that test was up to a tenth of the time; the values are the same.
    """
    return np.uint64(i)
