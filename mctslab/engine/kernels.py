"""The compiled parts of the engine: the UCT loop on a game's compiled rules (Numba).

Imported only when Numba is installed (see :mod:`mctslab.engine`). Every function is
``@njit(cache=CACHE)``: compiled on first use, then loaded from Numba's cache (``__pycache__``
next to this file, or ``NUMBA_CACHE_DIR``) by later processes. Where Numba has nowhere to
write its cache (a read-only install and no writable ``NUMBA_CACHE_DIR``), :data:`CACHE` is
False: one warning says so, and each process compiles the kernels again (a few seconds).

A position is an int64 vector ``st`` (the game's :meth:`~mctslab.games.CompiledEncoding.compiled_state`):

* ``st[0]``: the result, -1 while playing, 0 if X (player 0) won, 1 if O won, 2 drawn;
* ``st[1]``: the player to move;
* ``st[2:]``: the game's own fields (see each game's ``compiled_state``).

The kernels name no game: their first argument ``rules`` is the game's
:class:`~mctslab.games.compiled.CompiledGame` (:meth:`~mctslab.games.base.Game.compiled`),
whose compiled ``legal``, ``apply`` and ``rollout`` they call through
:mod:`mctslab.engine.game_rules` (inlined: Numba compiles each kernel once per game file), with
the game's constants ``prm`` (int64 vector) and ``tab`` (int64 table).

The tree is a set of parallel arrays of *slots*. When a node is first expanded, it gets
a block of consecutive slots, one per legal move (``first[node]`` is the first slot,
``nlegal[node]`` their number); its children are created one per iteration, in the
order of the block, and the slots not yet created hold the untried moves. A random
untried move is swapped to the front of the untried part and becomes the next child,
so, as in :meth:`mctslab.agents.uct.UCT.expand`, each untried move is equally likely.

Speed (measured against a C reference of the same search, ``python -m mctslab bench --c``):
the helpers are inlined (``inline="always"``), the random draw is emitted in place
(:func:`_random`: xorshift64*, a load, five integer operations and a store; see
:mod:`mctslab.games._jit`), the
helpers get borrowed array views (:func:`_borrow`: no reference counting per ply), the
scratch arrays belong to the caller, and ``sqrt(ln n)`` and ``1 / sqrt(n)`` come from a
table filled as first needed (:func:`_sqrt_log`). None of this changes a result: the C
reference builds the same trees (``tests/test_c_reference.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic

from ..games._jit import ix as _ix
from ..games._jit import rand as _random
from ..games._jit import seed as _seed_thread
from .game_rules import _writable, borrowed_view, game_apply, game_legal, game_rollout


def _probe():  # pragma: no cover - never called: asking Numba to cache it finds a cache directory or not
    return 0


def _cache_usable() -> bool:
    """Whether Numba can cache this module's kernels (asking costs no compilation); warns once if not."""
    try:
        njit(cache=True)(_probe)
    except RuntimeError as err:  # Numba: "cannot cache function ...: no locator available for file ..."
        warnings.warn(
            f"the compiled engine runs without Numba's cache ({err}): each process compiles its kernels again;"
            " set NUMBA_CACHE_DIR to a writable directory to keep them",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    return True


CACHE = _cache_usable()
"""Whether the kernels are cached on disk (False, with one warning, where Numba cannot write a cache)."""


@intrinsic
def _borrow(typingctx, array):
    """A view of ``array`` that holds no reference (its meminfo is null).

    Every array a helper receives is counted in and out (an atomic add each way, a large
    part of a ply's cost in the kernels); a borrowed view makes those counts no-ops. Only
    for arrays that outlive the whole call: the kernels' arguments, never an array they make.
    """
    return array(array), borrowed_view


SCRATCH = 416
"""Length of the kernels' scratch array: a position (up to 32 fields), 128 moves, a path of 256 slots."""
ROOTS = 1 << 16
"""Visit counts below this have their ``sqrt(ln n)`` and ``1 / sqrt(n)`` kept in a table (:func:`_sqrt_log`)."""


@njit(cache=CACHE, inline="always")
def _sqrt_log(roots, n):
    """``np.sqrt(np.log(n))`` (the same double), from ``roots[0, n]``, computed when first asked (0: not yet)."""
    if n >= ROOTS:
        return np.sqrt(np.log(n))
    v = roots[0, _ix(n)]
    if v == 0.0:  # n = 1 stays 0.0 and is computed again: the same value
        v = np.sqrt(np.log(n))
        roots[0, _ix(n)] = v
    return v


@njit(cache=CACHE, inline="always")
def _inv_sqrt(roots, n):
    """``1.0 / np.sqrt(n)`` (the same double), from ``roots[1, n]``, computed when first asked."""
    if n >= ROOTS:
        return 1.0 / np.sqrt(n)
    v = roots[1, _ix(n)]
    if v == 0.0:
        v = 1.0 / np.sqrt(n)
        roots[1, _ix(n)] = v
    return v


ONGOING, DRAWN = -1, 2
_NO_MARKS = np.zeros((2, 1), dtype=np.int8)
"""The ``played`` table of a rollout that marks nothing (``mark`` False: never written; the branch is compiled away)."""

# -- the game's rules (mctslab.engine.game_rules: the game's own compiled functions, inlined)


@njit(cache=CACHE, inline="always")
def apply_move(rules, prm, tab, st, move):
    """Play ``move`` in ``st`` (in place)."""
    game_apply(rules, prm, tab, st, move)


@njit(cache=CACHE, inline="always")
def legal_moves(rules, prm, tab, st, out):
    """Write the legal moves of ``st`` into ``out``, ascending; return their number (0 when over)."""
    if st[0] != ONGOING:
        return 0
    return game_legal(rules, prm, tab, st, out)


@njit(cache=CACHE, inline="always")
def rollout(rules, prm, tab, st, buf, limit):
    """A uniformly random playout from ``st`` (changed); the result, a cut after ``limit`` moves a draw."""
    if st[0] != ONGOING:
        return st[0]
    return game_rollout(rules, prm, tab, st, buf, limit, _NO_MARKS, False)


# -- RAVE (mctslab.engine.rave): UCT with AMAF statistics, as mctslab.agents.rave.Rave.
#    Its playouts are the games' rollouts above with ``mark`` on: they also set played[p, m] = 1
#    for each move m that player p plays (the "played" table of AMAF), with the same draws
#    (tests/test_rave_compiled.py checks that they build the UCT kernel's tree when beta is 0).


@njit(cache=CACHE, inline="always")
def rollout_marking(rules, prm, tab, st, buf, limit, played):
    """:func:`rollout` (the same draws, the same result) that also sets ``played[p, m] = 1`` for every move played."""
    if st[0] != ONGOING:
        return st[0]
    return game_rollout(rules, prm, tab, st, buf, limit, played, True)


@njit(cache=CACHE, inline="always")
def _beta(betas, k, n):
    """Gelly and Silver's ``sqrt(k / (3 n + k))``, from ``betas[n]``, computed when first asked (0: not yet)."""
    if n >= betas.shape[0]:
        return np.sqrt(k / (3 * n + k))
    v = betas[_ix(n)]
    if v == 0.0:
        v = np.sqrt(k / (3 * n + k))
        betas[_ix(n)] = v
    return v


@njit(cache=CACHE, inline="always")
def _back_up_slot(slot, result, player, visits, wins2, mean, isq, roots):
    """UCT's backup at one slot: a visit, the playout's half points for ``player`` (who made the slot's move; win 2,
    draw 1), then ``mean`` and ``isq`` from the new counts (:func:`_iterations` and :func:`_rave_backup`)."""
    visits[slot] += 1
    if result == player:
        wins2[slot] += 2
    elif result == DRAWN:
        wins2[slot] += 1
    mean[slot] = wins2[slot] / (2.0 * visits[slot])
    isq[slot] = _inv_sqrt(roots, visits[slot])


@njit(cache=CACHE, inline="always")
def _rave_backup(mover0, depth, result, path, move, first, nexp, visits, wins2, mean, isq, amv, amw2, mix, played,
                 roots, betas, k):  # fmt: skip
    # From the leaf up: the node's own statistics (as uct), then AMAF for each created child whose
    # (player, move) was played below the node (playout, then the tree moves below), then the node's move joins.
    # A child's mix changes only with its mean or AMAF mean: recomputed here, after both (the path's children
    # are among the AMAF updates: their own move was played below their parent).
    for d in range(depth, -1, -1):
        slot = _ix(path[_ix(d)])
        player = (mover0 + d + 1) & 1  # who made the slot's move; its children's moves are the other player's
        _back_up_slot(slot, result, player, visits, wins2, mean, isq, roots)
        f = first[slot]
        if f >= 0:
            mover = _ix(1 - player)
            half = 2 if result == 1 - player else (1 if result == DRAWN else 0)
            for i in range(f, f + nexp[slot]):
                j = _ix(i)
                if played[mover, _ix(move[j])]:
                    amv[j] += 1
                    amw2[j] += half
                    b = _beta(betas, k, visits[j])
                    mix[j] = (1.0 - b) * mean[j] + b * (amw2[j] / (2.0 * amv[j]))
        if d > 0:
            played[_ix(player), _ix(move[slot])] = 1


@njit(cache=CACHE)
def seed(value):
    """Seed this thread's generator, the engine's xorshift64* (:mod:`mctslab.games._jit`; one per thread)."""
    _seed_thread(value)


@njit(cache=CACHE)
def random_results(rules, prm, tab, root_st, playouts, limit, scratch):
    """Counts of ``playouts`` random playouts from ``root_st``: [X wins, O wins, draws].

    ``scratch``: an int64 array of at least :data:`SCRATCH` (the position and the moves being drawn).
    """
    counts = np.zeros(3, dtype=np.int64)
    prm, tab = _borrow(prm), _borrow(tab)
    st, buf = _borrow(scratch[: root_st.shape[0]]), _borrow(scratch[32:160])
    for _ in range(playouts):
        st[:] = root_st
        counts[rollout(rules, prm, tab, st, buf, limit)] += 1
    return counts


@njit(cache=CACHE)
def replay(rules, prm, tab, st, moves, legal, states, scratch):
    """Play ``moves`` from ``st`` (changed) with the game's compiled rules, for :mod:`mctslab.engine.check`.

    Before each move and after the last, row ``i`` of ``legal`` gets the number of legal moves
    then the moves, and row ``i`` of ``states`` the position vector.
    """
    buf = _borrow(scratch[32:160])
    for i in range(moves.shape[0] + 1):
        n = legal_moves(rules, prm, tab, st, buf)
        legal[i, 0] = n
        for j in range(n):
            legal[i, 1 + j] = buf[j]
        states[i, :] = st
        if i < moves.shape[0]:
            apply_move(rules, prm, tab, st, moves[i])


@njit(cache=CACHE)
def fill_roots(roots):
    """Fill every entry of the table of :func:`_sqrt_log` and :func:`_inv_sqrt` (n from 1 to :data:`ROOTS` - 1).

    Root parallelism (:mod:`mctslab.engine.parallel`) calls it before its threads start: the
    searches then only read the shared table (and store, for n = 1, the 0.0 it already holds).
    The values are the kernels' own (the same helpers), bit for bit.
    """
    roots = _borrow(roots)
    for n in range(1, ROOTS):
        _sqrt_log(roots, n)
        _inv_sqrt(roots, n)


# -- MCTS-Solver (Winands, Bjornsson and Saito 2008, with proven draws): mctslab.agents.solver.Solver on
#    the arrays. proven[slot]: UNPROVEN (-1) while unknown, else the slot's game-theoretic value for the
#    player who made its move, in half points as wins2 counts them (0 loss, 1 draw, 2 win).

UNPROVEN = -1
_PROVEN_BONUS = np.array([0.0, -np.inf, 0.0, np.inf])
"""Added to a child's UCB1 value in selection, by ``proven + 1``: a proven loss -inf, a proven win +inf, else 0."""


@njit(cache=CACHE, inline="always")
def _solver_prove(first, nlegal, nexp, proven, slot):
    """:func:`mctslab.agents.solver.prove` on the arrays: True if ``slot`` is proven (now or before).

    One child proven won (for the player to move at ``slot``) proves it lost for its own
    player; else, once every legal move has a child and all are proven, its value is the
    opposite of the best of theirs. A slot never expanded is left alone (terminals are
    proven when created).
    """
    if proven[slot] >= 0:
        return True
    f = first[slot]
    ne = nexp[slot]
    if f < 0 or ne == 0:
        return False
    complete = ne == nlegal[slot]
    best = -1
    for j in range(f, f + ne):
        p = proven[j]
        if p < 0:
            complete = False
        elif p == 2:  # one winning move proves the slot
            best = 2
            complete = True
            break
        elif p > best:
            best = p
    if not complete:
        return False
    proven[slot] = 2 - best
    return True


# -- UCB1, written once for the compiled engine (as mctslab.ucb.ucb1 and mctslab.agents.rules.UCB1.descend):
#    ``mean + c * sqrt(ln N / n)`` factored as ``mean + (c * sqrt(ln N)) * (1 / sqrt(n))``, the first factor
#    once per parent (:func:`_ucb1_scale`), the second kept on each child (``isq``); every kernel selects
#    with :func:`_select`.

PLAIN, RAVE, SOLVER, LEAF, TREE = 0, 1, 2, 3, 4
"""The search modes: the selection value, what a playout is and how it is backed up.

``PLAIN``: UCB1 on ``mean``, one random playout, UCT's backup. ``RAVE``: UCB1 on ``mix``, a playout
that marks its moves, :func:`_rave_backup`. ``SOLVER``: UCB1 plus the proven bonus, descent
stopped at a proven slot, a proven leaf's exact result, UCT's backup then the proofs
(:func:`_solver_prove`). ``LEAF``: UCB1 on ``mean``, ``k`` playouts of the new leaf at once
(:func:`_leaf_playouts`), their counts backed up together. ``TREE``: UCB1 on ``mean`` with the
other threads' virtual losses (:func:`uct_tree`). :func:`_iterations` runs the first four; each
kernel passes its mode as a constant: the compiler keeps only that mode's code, so each runs as
fast as a loop written for it."""


@njit(cache=CACHE, inline="always")
def _ucb1_scale(c, roots, n):
    """UCB1's exploration factor at a parent of ``n`` visits: ``c * sqrt(ln n)`` (0 for ``n <= 1``)."""
    return c * _sqrt_log(roots, n if n > 1 else 1)


@njit(cache=CACHE, inline="always")
def _ucb1(mean, scale, isq):
    """UCB1, :func:`mctslab.ucb.ucb1` factored: ``mean + scale * isq``, ``scale`` from :func:`_ucb1_scale`, ``isq``
    the child's ``1 / sqrt(n)`` (``inf`` unvisited)."""
    return mean + scale * isq


@njit(cache=CACHE, inline="always")
def _select(mode, f, nl, scale, mean, isq, mix, proven, visits, wins2, vloss, roots):
    """The child of slots ``f`` .. ``f + nl - 1`` with the highest UCB1 value (:func:`_ucb1`), the first on a tie.

    The value is ``mode``'s: UCB1 on ``mean`` (``PLAIN``, ``LEAF``), on ``mix`` (``RAVE``), plus
    the proven bonus (``SOLVER``: a proven win ``+inf``, a proven loss ``-inf``, added from a
    table, not branched on), or (``TREE``) with the other threads' pending virtual losses: a
    child with ``vloss[j]`` virtual visits counts them as losses, mean ``wins2 / (2 (visits +
    vloss))``, ``isq`` ``1 / sqrt(visits + vloss)`` (with none pending, ``PLAIN``'s value, bit
    for bit). The arrays a mode does not read are typed stand-ins.
    """
    best = f
    best_value = -np.inf
    for j in range(f, f + nl):
        s = _ix(j)
        if mode == RAVE:
            value = _ucb1(mix[s], scale, isq[s])
        elif mode == SOLVER:
            value = _ucb1(mean[s], scale, isq[s]) + _PROVEN_BONUS[proven[s] + 1]
        elif mode == TREE:
            v = vloss[s]
            if v == 0:
                value = _ucb1(mean[s], scale, isq[s])
            else:
                nj = visits[s] + v
                value = _ucb1(wins2[s] / (2.0 * nj), scale, _inv_sqrt(roots, nj))
        else:
            value = _ucb1(mean[s], scale, isq[s])
        if value > best_value:
            best = j
            best_value = value
    return best


# -- tree and leaf parallelism
# Atomic operations on one array element (LLVM's atomicrmw, cmpxchg and atomic load/store; on
# x86-64 a lock-prefixed instruction for the read-modify-writes, a plain mov for the loads and
# stores, which only stops the compiler from moving other memory accesses across them).
# Used by the shared-tree kernel (uct_tree) and the leaf-parallel kernels (uct_leaf,
# leaf_worker); see mctslab.engine.shared_tree for the races they leave and why they are safe.


_X86 = __import__("platform").machine().lower() in ("x86_64", "amd64", "i386", "i686")


def _element_pointer(context, builder, signature, args):
    """A pointer to ``args[0][args[1]]`` (no bounds check), for the atomic intrinsics below."""
    from numba.core import cgutils

    array_type = signature.args[0]
    array = context.make_array(array_type)(context, builder, value=args[0])
    index = context.cast(builder, args[1], signature.args[1], types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, array, [index], wraparound=False)


@intrinsic
def _atomic_add(typingctx, array, index, value):
    """``array[index] += value`` as one atomic step (ordering ``acq_rel``); returns the old value."""

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature, args)
        value = context.cast(builder, args[2], signature.args[2], signature.args[0].dtype)
        return builder.atomic_rmw("add", pointer, value, "acq_rel")

    return array.dtype(array, index, value), codegen


@intrinsic
def _atomic_cas(typingctx, array, index, expected, value):
    """If ``array[index] == expected``, set it to ``value``, as one atomic step; True when it was set."""

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature, args)
        dtype = signature.args[0].dtype
        old = context.cast(builder, args[2], signature.args[2], dtype)
        new = context.cast(builder, args[3], signature.args[3], dtype)
        return builder.extract_value(builder.cmpxchg(pointer, old, new, "acq_rel", "monotonic"), 1)

    return types.boolean(array, index, expected, value), codegen


@intrinsic
def _load_acquire(typingctx, array, index):
    """``array[index]``, read after every write that the thread which stored it made before (acquire)."""

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature, args)
        return builder.load_atomic(pointer, "acquire", signature.args[0].dtype.bitwidth // 8)

    return array.dtype(array, index), codegen


@intrinsic
def _store_release(typingctx, array, index, value):
    """``array[index] = value``, seen by other threads only after this thread's earlier writes (release)."""

    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature, args)
        dtype = signature.args[0].dtype
        value = context.cast(builder, args[2], signature.args[2], dtype)
        builder.store_atomic(value, pointer, "release", dtype.bitwidth // 8)
        return context.get_dummy_value()

    return types.none(array, index, value), codegen


@intrinsic
def _pause(typingctx):
    """The CPU's spin-wait hint (x86 ``pause``; nothing on other machines): a waiting thread spins more gently."""

    def codegen(context, builder, signature, args):
        if _X86:  # LLVM's intrinsic for the instruction (inline assembly cannot be emitted here)
            from llvmlite import ir
            from numba.core import cgutils

            builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                        "llvm.x86.sse2.pause"), [])  # fmt: skip
        return context.get_dummy_value()

    return types.none(), codegen


_SCHED_YIELD = __import__("sys").platform != "win32"
"""Whether the C library's ``sched_yield`` can be called (POSIX); elsewhere a waiting thread only spins."""


@intrinsic
def _yield_cpu(typingctx):
    """Give the core to another runnable thread (``sched_yield``): a waiting thread stops taking the core
    from the thread it waits for when there are more threads than free cores."""

    def codegen(context, builder, signature, args):
        if _SCHED_YIELD:
            from llvmlite import ir
            from numba.core import cgutils

            builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []),
                                                        "sched_yield"), [])  # fmt: skip
        return context.get_dummy_value()

    return types.none(), codegen


SPINS = 100
"""Spins (with the ``pause`` hint, some 40 ns each on recent x86) before a waiting thread yields the core at every
further check: a few microseconds, more than a hand-over between two idle cores takes; with 2000 a leaf cost
70-120 us when the two threads shared one core (``taskset -c 0``), with 100 it costs 5-11 us."""


@njit(cache=CACHE, inline="always")
def _wait_a_little(spins):
    """One step of a wait: spin gently for :data:`SPINS` steps, then yield the core each step; the new count."""
    if spins < SPINS:
        _pause()
    else:
        _yield_cpu()
    return spins + 1


@njit(cache=CACHE, inline="always")
def _claim_slots(info, n, capacity):
    """Reserve ``n`` consecutive slots (``info[0]`` advanced by a compare-and-swap); the first, or -1 when full."""
    while True:
        used = _load_acquire(info, 0)
        if used + n > capacity:
            return -1
        if _atomic_cas(info, 0, used, used + n):
            return used


@njit(cache=CACHE, inline="always")
def _half_points(result, player):
    """A playout's reward for ``player`` in half points: win 2, draw 1, loss 0."""
    if result == player:
        return 2
    if result == DRAWN:
        return 1
    return 0


@njit(cache=CACHE, inline="always")
def _expand_shared(rules, prm, tab, st, buf, node, vl, move, first, nlegal, nexp, visits, wins2, mean, isq, vloss, lock,
                   ends, info, capacity):  # fmt: skip
    """Under ``node``'s lock (held by the caller): give it its block if it has none, then create a random untried child.

    Returns the child, -1 when the node is fully expanded (by other threads meanwhile), or -2
    when no block could be reserved (the tree is full). The child's arrays are written before
    ``nexp[node]`` is published (release): a thread that reads the count (acquire) sees them.
    """
    f = first[node]
    if f < 0:
        n = legal_moves(rules, prm, tab, st, buf)
        f = _claim_slots(info, n, capacity)
        if f < 0:
            return -2
        for j in range(n):
            move[f + j] = buf[j]
        nlegal[node] = n
        nexp[node] = 0
        _store_release(first, node, f)
    ne = nexp[node]
    nl = nlegal[node]
    if ne >= nl:
        return -1
    i = ne + int(_random() * (nl - ne))
    child = f + ne
    m = move[f + i]
    move[f + i] = move[child]
    move[child] = m
    first[child] = -1
    visits[child] = 0
    wins2[child] = 0
    mean[child] = 0.5
    isq[child] = np.inf
    vloss[child] = vl
    lock[child] = 0
    ends[child] = 0
    _store_release(nexp, node, ne + 1)
    return child


CLAIM = 16
"""Iterations a tree-parallel thread claims from the shared budget at once (fewer atomic adds on one shared line)."""


# uct_tree keeps its own loop (its selection is _select's, TREE): joined to _iterations as a fifth mode, every
# kernel of that loop typed and compiled the shared tree's atomics and locked expansion too (Numba types every
# branch before the compiler drops the dead ones), and `python -m mctslab.engine.warm` from an empty cache took
# 329 s of CPU instead of 220 to 228 s (two runs; issue 39, 2026-11-30). Measured since (branch wt-loop-joined):
# the branches of other modes are pruned before typing (no atomics in uct's types); the cost is Numba copying
# the inlined IR (inline_ir deep-copies a callee twice) of every mode's steps. A loop made per mode (a closure on
# the mode, so pruning precedes the steps' inlining) made the warm-up neutral (259 s vs 264 s, run side by side)
# but plain UCT ran 0.51-0.53 of C on tic-tac-toe and 0.68-0.73 on Connect Four (0.86-0.91 and 0.90-0.96 here).
# fmt: off
@njit(cache=CACHE, nogil=True)
def uct_tree(
    rules, prm, tab, root_st, root, c, limit, budget, vl, move, first, nlegal, nexp, visits, wins2, mean, isq,
    vloss, lock, ends, info, work, scratch, roots,
):
    # fmt: on
    """Tree parallelism: up to ``budget`` UCT iterations on a tree that other threads search at once.

    As :func:`uct`, with: ``vl`` virtual visits (losses) added to every node of the path
    below the root while it is descended (``vloss``) and taken off at the backup; a node is expanded only
    by the thread holding its lock (``lock[node]`` 0 -> 1 by compare-and-swap; a thread that
    finds it held simulates from the node instead); slots reserved by compare-and-swap on
    ``info[0]``; visits, half points, ``vloss`` and ``ends`` (playouts that ended at the
    slot) updated by atomic adds; ``mean`` and ``isq`` stored from the counts just updated
    (racy: see :mod:`mctslab.engine.shared_tree`). Every thread claims its iterations from
    ``work[0]``, :data:`CLAIM` at a time, all together exactly ``work[1]``. ``scratch`` is the thread's
    own. Stops, as :func:`uct`, when fewer than ``info[3]`` slots are free (iterations claimed
    and not run are given back to ``work[0]``). Returns the
    iterations this call did. With one thread it builds :func:`uct`'s tree, bit for bit.
    """
    prm, tab, roots = _borrow(prm), _borrow(tab), _borrow(roots)
    move, first, nlegal, nexp = _borrow(move), _borrow(first), _borrow(nlegal), _borrow(nexp)
    visits, wins2, mean, isq = _borrow(visits), _borrow(wins2), _borrow(mean), _borrow(isq)
    vloss, lock, ends, info = _borrow(vloss), _borrow(lock), _borrow(ends), _borrow(info)
    st, buf, path = _borrow(scratch[: root_st.shape[0]]), _borrow(scratch[32:160]), _borrow(scratch[160:416])
    capacity = move.shape[0]
    mover0 = root_st[1]
    done = 0
    mine = 0  # iterations this thread claimed and has not run yet
    while done < budget and _load_acquire(info, 0) + info[3] <= capacity:
        if mine == 0:  # claim CLAIM iterations at once: one atomic add on the shared counter per CLAIM iterations
            t = _atomic_add(work, 0, CLAIM)
            mine = min(CLAIM, work[1] - t)
            if mine < CLAIM:  # past the budget: give back what is not taken
                _atomic_add(work, 0, -(CLAIM - max(mine, 0)))
            if mine <= 0:
                mine = 0
                break
        mine -= 1
        st[:] = root_st
        node = root
        depth = 0
        path[0] = root  # no virtual loss at the root: no thread chooses it (and it is the most shared line)
        while True:
            f = _load_acquire(first, node)
            nl = nlegal[node] if f >= 0 else 0
            if f < 0 or _load_acquire(nexp, node) < nl:
                if st[0] != ONGOING or not _atomic_cas(lock, node, 0, 1):
                    break  # a terminal leaf, or another thread is expanding it: simulated from here
                child = _expand_shared(rules, prm, tab, st, buf, node, vl, move, first, nlegal, nexp, visits, wins2,
                                       mean, isq, vloss, lock, ends, info, capacity)  # fmt: skip
                _store_release(lock, node, 0)
                if child == -2:
                    break  # the tree is full: simulated from here (the caller grows the arrays)
                if child >= 0:
                    apply_move(rules, prm, tab, st, move[child])
                    depth += 1
                    path[depth] = child
                    break
                f = first[node]  # fully expanded by other threads meanwhile: select
                nl = nlegal[node]
            if nl == 0:
                break
            # the parent's count: its visits plus the *other* threads' virtual visits (this thread's own, vl, taken
            # off; the root gets none)
            n = visits[node] + vloss[node] - (vl if depth > 0 else 0)
            node = _select(TREE, f, nl, _ucb1_scale(c, roots, n), mean, isq, _NONEF, _NONE8, visits, wins2, vloss,
                           roots)  # fmt: skip
            _atomic_add(vloss, node, vl)
            apply_move(rules, prm, tab, st, move[node])
            depth += 1
            path[depth] = node
        result = rollout(rules, prm, tab, st, buf, limit)
        _atomic_add(ends, path[depth], 1)
        r = _half_points(result, (mover0 + 1) & 1)
        _atomic_add(visits, root, 1)  # the root's mean and isq are read by no selection: stored by settle()
        _atomic_add(wins2, root, r)
        for d in range(1, depth + 1):
            slot = path[d]
            r = _half_points(result, (mover0 + d + 1) & 1)
            n = _atomic_add(visits, slot, 1) + 1
            w = _atomic_add(wins2, slot, r) + r
            _atomic_add(vloss, slot, -vl)
            mean[slot] = w / (2.0 * n)
            isq[slot] = _inv_sqrt(roots, n)
        if depth > info[1]:
            info[1] = depth
        done += 1
    if mine > 0:  # claimed, not run: back to the shared counter (this or another thread runs them)
        _atomic_add(work, 0, -mine)
    _atomic_add(info, 2, done)
    return done


@njit(cache=CACHE)
def settle(visits, wins2, mean, isq, used, roots):
    """Store every visited slot's ``mean`` and ``isq`` again from its counts (after the threads have joined).

    During a shared-tree search a slot's ``mean`` may be stored from an older pair of counts
    than the last (a lost update; see :mod:`mctslab.engine.shared_tree`): this puts every one
    back to ``wins2 / (2 visits)`` and ``1 / sqrt(visits)``, the values :func:`uct` keeps.
    """
    roots = _borrow(roots)
    for s in range(used):
        n = visits[s]
        if n > 0:
            mean[s] = wins2[s] / (2.0 * n)
            isq[s] = _inv_sqrt(roots, n)


LEAF_GENERATION, LEAF_FINISHED, LEAF_STOP = 0, 1, 2
"""The leaf-parallel control array ``ctl``: the leaf's number (published by the selecting thread),
how many workers have finished its playout, and 1 when the workers are to return."""


@njit(cache=CACHE, nogil=True)
def leaf_worker(rules, prm, tab, k, seen, ctl, leaf_st, results, limit, scratch):
    """Leaf parallelism's worker ``k`` (1 to K - 1): one playout of every leaf the selecting thread publishes.

    Spins until ``ctl[LEAF_GENERATION]`` moves past ``seen`` (a new leaf in ``leaf_st``), plays
    one random playout from it with this thread's generator, writes the result to
    ``results[k]`` and counts itself in ``ctl[LEAF_FINISHED]``; returns (the leaves played)
    when ``ctl[LEAF_STOP]`` is set. So worker ``k`` draws, from its own seeded generator,
    exactly the ``k``-th playout of every leaf, whatever the threads' timing.
    """
    prm, tab = _borrow(prm), _borrow(tab)
    ctl, leaf_st, results = _borrow(ctl), _borrow(leaf_st), _borrow(results)
    st, buf = _borrow(scratch[: leaf_st.shape[0]]), _borrow(scratch[32:160])
    played = 0
    spins = 0
    while True:
        g = _load_acquire(ctl, LEAF_GENERATION)
        if g == seen:
            if _load_acquire(ctl, LEAF_STOP):
                return played
            spins = _wait_a_little(spins)
            continue
        spins = 0
        seen = g
        st[:] = leaf_st
        results[k] = rollout(rules, prm, tab, st, buf, limit)
        _atomic_add(ctl, LEAF_FINISHED, 1)
        played += 1


@njit(cache=CACHE, inline="always")
def _leaf_playouts(rules, prm, tab, st, buf, limit, k, ctl, leaf_st, results, counts):
    """The K playouts of one leaf: K - 1 by the workers, one here; ``counts`` = [X wins, O wins, draws].

    Returns False when told to stop while waiting (nothing is counted then).
    """
    counts[0] = 0
    counts[1] = 0
    counts[2] = 0
    if st[0] != ONGOING or k == 1:  # a finished game (every playout its result), or no worker
        counts[rollout(rules, prm, tab, st, buf, limit)] += k
        return True
    leaf_st[:] = st
    _store_release(ctl, LEAF_FINISHED, 0)
    _atomic_add(ctl, LEAF_GENERATION, 1)
    counts[rollout(rules, prm, tab, st, buf, limit)] += 1
    spins = 0
    while _load_acquire(ctl, LEAF_FINISHED) < k - 1:
        if _load_acquire(ctl, LEAF_STOP):
            return False
        spins = _wait_a_little(spins)
    for j in range(1, k):
        counts[results[j]] += 1
    return True


# -- the search loop: one loop for UCT, RAVE, MCTS-Solver and leaf parallelism (each a mode of it)

# fmt: off
@njit(cache=CACHE, inline="always")
def _iterations(
    mode, rules, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq, info,
    scratch, roots, k, amv, amw2, mix, played, betas, proven, ctl, leaf_st, results,
):
    # fmt: on
    """Up to ``budget`` iterations of the search ``mode`` (:data:`PLAIN`, :data:`RAVE`, :data:`SOLVER`, :data:`LEAF`).

    Each iteration: select (the highest value, the first child on a tie) and expand (a random
    untried move becomes the next child) from ``root``, simulate, back up. Stops early when
    fewer than ``info[3]`` free slots are left. The arguments a mode does not use are typed
    stand-ins, never read. Returns the iterations done.
    """
    st, buf, path = _borrow(scratch[: root_st.shape[0]]), _borrow(scratch[32:160]), _borrow(scratch[160:416])
    capacity = move.shape[0]
    mover0 = root_st[1]
    width = played.shape[1]
    counts = np.zeros(3 if mode == LEAF else 0, dtype=np.int64)
    done = 0
    while done < budget and info[0] + info[3] <= capacity:
        st[:] = root_st
        if mode == RAVE:
            for j in range(width):  # the played table cleared (a loop: the slice assignment costs more)
                played[0, _ix(j)] = 0
                played[1, _ix(j)] = 0
        node = root
        depth = 0
        path[0] = root
        while mode != SOLVER or proven[_ix(node)] < 0:  # the solver stops at a proven slot
            u = _ix(node)
            f = first[u]
            if f < 0:
                if st[0] != ONGOING:
                    break  # a terminal leaf: simulated as it is
                f = info[0]
                n = legal_moves(rules, prm, tab, st, buf)
                for j in range(n):
                    move[_ix(f + j)] = buf[j]
                first[u] = f
                nlegal[u] = n
                nexp[u] = 0
                info[0] = f + n
            ne = nexp[u]
            nl = nlegal[u]
            if ne < nl:  # expand: a random untried move becomes the next child
                i = _ix(f + ne + int(_random() * (nl - ne)))
                child = f + ne
                q = _ix(child)
                m = move[i]
                move[i] = move[q]
                move[q] = m
                nexp[u] = ne + 1
                first[q] = -1
                visits[q] = 0
                wins2[q] = 0
                mean[q] = 0.5
                isq[q] = np.inf
                if mode == RAVE:
                    amv[q] = 0
                    amw2[q] = 0
                    mix[q] = 0.5
                apply_move(rules, prm, tab, st, m)
                depth += 1
                path[_ix(depth)] = child
                if mode == SOLVER:
                    if st[0] == ONGOING:
                        proven[q] = UNPROVEN
                    else:  # a terminal child: proven with its result, for the player who made the move
                        player = (mover0 + depth + 1) & 1
                        proven[q] = 2 if st[0] == player else (1 if st[0] == DRAWN else 0)
                break
            if nl == 0:
                break
            # select: the child with the highest UCB1 value, the first one on a tie
            node = _select(mode, f, nl, _ucb1_scale(c, roots, visits[u]), mean, isq, mix, proven, visits, wins2,
                           visits, roots)  # fmt: skip (vloss: a stand-in, read by TREE only)
            apply_move(rules, prm, tab, st, move[_ix(node)])
            depth += 1
            path[_ix(depth)] = node
        # simulate
        result = DRAWN
        if mode == LEAF:
            if not _leaf_playouts(rules, prm, tab, st, buf, limit, k, ctl, leaf_st, results, counts):
                break  # told to stop while waiting: not backed up
        elif mode == RAVE:
            result = rollout_marking(rules, prm, tab, st, buf, limit, played)
        elif mode == SOLVER and proven[_ix(path[_ix(depth)])] >= 0:  # a proven leaf backs up its exact result
            p = proven[_ix(path[_ix(depth)])]
            player = (mover0 + depth + 1) & 1
            result = player if p == 2 else (DRAWN if p == 1 else 1 - player)
        else:
            result = rollout(rules, prm, tab, st, buf, limit)
        # back up
        if mode == RAVE:
            _rave_backup(mover0, depth, result, path, move, first, nexp, visits, wins2, mean, isq, amv, amw2, mix,
                         played, roots, betas, k)  # fmt: skip
        elif mode == LEAF:
            for d in range(depth + 1):
                slot = _ix(path[_ix(d)])
                player = (mover0 + d + 1) & 1
                visits[slot] += k
                wins2[slot] += 2 * counts[player] + counts[DRAWN]
                mean[slot] = wins2[slot] / (2.0 * visits[slot])
                isq[slot] = _inv_sqrt(roots, visits[slot])
        else:
            for d in range(depth + 1):
                slot = _ix(path[_ix(d)])
                player = (mover0 + d + 1) & 1  # who made the slot's move (the root: the opponent)
                _back_up_slot(slot, result, player, visits, wins2, mean, isq, roots)
            if mode == SOLVER:
                for d in range(depth - 1, -1, -1):  # the proofs, from the leaf's parent up, while they hold
                    if not _solver_prove(first, nlegal, nexp, proven, path[_ix(d)]):
                        break
        if depth > info[1]:
            info[1] = depth
        done += 1
    info[2] += done
    return done


_NONE8 = np.zeros(0, dtype=np.int8)
_NONE32 = np.zeros(0, dtype=np.int32)
_NONE64 = np.zeros(0, dtype=np.int64)
_NONEF = np.zeros(0, dtype=np.float64)
"""Typed stand-ins for the arrays a mode does not use (constants: never read or written)."""


# fmt: off
@njit(cache=CACHE, nogil=True)
def uct(
    rules, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq, info,
    scratch, roots,
):
    # fmt: on
    """Run up to ``budget`` UCT iterations from slot ``root`` (position ``root_st``): :func:`_iterations`, ``PLAIN``.

    Stops early when fewer than ``info[3]`` free slots are left (the caller grows the
    arrays and calls again). ``info`` = [slots used, deepest node, iterations done (total),
    slots needed for one block]. ``wins2`` counts rewards in half points (win 2, draw 1)
    for the player who made the slot's move; ``mean`` and ``isq`` (``1 / sqrt(visits)``)
    are kept for selection. ``scratch``: an int64 array of at least :data:`SCRATCH` (the
    position, the moves being drawn, the path). ``roots``: a float64 array (2, :data:`ROOTS`),
    zeros or filled by earlier calls: ``sqrt(ln n)`` and ``1 / sqrt(n)`` as they are first
    needed (``log`` was a tenth of the time). Returns the iterations done by this call.

    Compiled with ``nogil=True`` (it touches no Python object): threads searching separate
    trees run at once (root parallelism, :mod:`mctslab.engine.parallel`); the flag changes no result.
    """
    prm, tab, roots = _borrow(prm), _borrow(tab), _borrow(roots)
    return _iterations(
        PLAIN, rules, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq,
        info, scratch, roots, 1, _writable(_NONE32), _writable(_NONE32), _writable(_NONEF), _writable(_NO_MARKS),
        _writable(_NONEF), _writable(_NONE8), _writable(_NONE64), _writable(_NONE64), _writable(_NONE64),
    )  # fmt: skip


# fmt: off
@njit(cache=CACHE, nogil=True)
def rave_uct(
    rules, prm, tab, root_st, root, c, k, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq,
    amv, amw2, mix, info, scratch, played, roots, betas,
):
    # fmt: on
    """Run up to ``budget`` RAVE iterations from slot ``root``: :func:`_iterations`, ``RAVE``.

    The arguments of :func:`uct`, and: ``k``, the equivalence parameter (> 0); ``amv`` and
    ``amw2`` (int32), per slot, the AMAF visits and half points of the slot's move; ``mix``
    (float64), per slot, ``(1 - beta) * mean + beta * amaf_mean`` with
    ``beta = sqrt(k / (3 visits + k))``, kept as ``mean`` is (selection reads it, then adds
    ``c * sqrt(ln N) / sqrt(n)``, as :class:`mctslab.agents.rave.RaveRule`; the first child on a
    tie); ``played``, an int8 array (2, moves) cleared each iteration; ``betas``, a float64 array
    of beta by visits, filled as first needed (zeros for a new ``k``). The AMAF update is
    :meth:`mctslab.agents.rave.Rave.backpropagate`'s.
    """
    prm, tab, roots, betas = _borrow(prm), _borrow(tab), _borrow(roots), _borrow(betas)
    move, first, nexp, visits = _borrow(move), _borrow(first), _borrow(nexp), _borrow(visits)
    wins2, mean, isq, played = _borrow(wins2), _borrow(mean), _borrow(isq), _borrow(played)
    amv, amw2, mix = _borrow(amv), _borrow(amw2), _borrow(mix)
    return _iterations(
        RAVE, rules, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq,
        info, scratch, roots, k, amv, amw2, mix, played, betas, _writable(_NONE8), _writable(_NONE64),
        _writable(_NONE64), _writable(_NONE64),
    )  # fmt: skip


# fmt: off
@njit(cache=CACHE, nogil=True)
def solver_uct(
    rules, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq, info,
    scratch, roots, proven,
):
    # fmt: on
    """Run up to ``budget`` MCTS-Solver iterations from slot ``root``: :func:`_iterations`, ``SOLVER``.

    The arguments of :func:`uct`, and ``proven`` (int8, a slot's proven value in half
    points for the player who made its move, :data:`UNPROVEN` while unknown; the root's
    set by the caller). Each iteration: the descent stops at a proven slot, and a child
    proven won for the chooser scores ``+inf``, proven lost ``-inf`` (:class:`SolverRule`;
    a proven draw keeps UCB1); a new child whose position is over is proven with its result;
    step 3, the leaf's proven result if it has one (no random number drawn), else a random
    playout; step 4, :func:`uct`'s statistics on the path, then every slot above the leaf is
    proven in turn (:func:`_solver_prove`) until one cannot be. Returns the iterations done
    by this call; ``nogil=True`` as :func:`uct`.
    """
    prm, tab, roots, info = _borrow(prm), _borrow(tab), _borrow(roots), _borrow(info)
    move, first, nlegal, nexp = _borrow(move), _borrow(first), _borrow(nlegal), _borrow(nexp)
    visits, wins2, mean, isq, proven = _borrow(visits), _borrow(wins2), _borrow(mean), _borrow(isq), _borrow(proven)
    return _iterations(
        SOLVER, rules, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq,
        info, scratch, roots, 1, _writable(_NONE32), _writable(_NONE32), _writable(_NONEF), _writable(_NO_MARKS),
        _writable(_NONEF), proven, _writable(_NONE64), _writable(_NONE64), _writable(_NONE64),
    )  # fmt: skip


# fmt: off
@njit(cache=CACHE, nogil=True)
def uct_leaf(
    rules, prm, tab, root_st, root, c, limit, budget, k, move, first, nlegal, nexp, visits, wins2, mean, isq, info,
    scratch, roots, ctl, leaf_st, results,
):
    # fmt: on
    """Leaf parallelism: up to ``budget`` iterations of :func:`uct`, each simulating its new leaf ``k`` times at once.

    :func:`_iterations`, ``LEAF``: selection and expansion are :func:`uct`'s, in this (the
    selecting) thread; the leaf is published to the ``k - 1`` :func:`leaf_worker` threads,
    which play one playout each while this thread plays one; the ``k`` results are backed up
    together (visits ``+= k``). An iteration stopped while waiting (``ctl[LEAF_STOP]``) is not
    backed up. With ``k = 1`` it is :func:`uct`, bit for bit. Returns the iterations (leaves)
    done by this call.
    """
    prm, tab, roots = _borrow(prm), _borrow(tab), _borrow(roots)
    ctl, leaf_st, results = _borrow(ctl), _borrow(leaf_st), _borrow(results)
    return _iterations(
        LEAF, rules, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq,
        info, scratch, roots, k, _writable(_NONE32), _writable(_NONE32), _writable(_NONEF), _writable(_NO_MARKS),
        _writable(_NONEF), _writable(_NONE8), ctl, leaf_st, results,
    )  # fmt: skip
