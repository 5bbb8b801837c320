"""The compiled parts of the engine: game rules on int64 vectors and the UCT loop (Numba).

Imported only when Numba is installed (see :mod:`mctslab.engine`). Every function is
``@njit(cache=CACHE)``: compiled on first use, then loaded from Numba's cache (``__pycache__``
next to this file, or ``NUMBA_CACHE_DIR``) by later processes. Where Numba has nowhere to
write its cache (a read-only install and no writable ``NUMBA_CACHE_DIR``), :data:`CACHE` is
False: one warning says so, and each process compiles the kernels again (a few seconds).

A position is an int64 vector ``st`` (the game's :meth:`~mctslab.games.base.Game.compiled_state`):

* ``st[0]``: the result, -1 while playing, 0 if X (player 0) won, 1 if O won, 2 drawn;
* ``st[1]``: the player to move;
* ``st[2:]``: the game's own fields (see each game's ``compiled_state``).

Games are told apart by ``kind`` (:data:`TICTACTOE`, :data:`CONNECT4`, :data:`ULTIMATE`);
their constants are an int64 vector ``prm`` and an int64 table ``tab`` built once per
game by :func:`mctslab.engine.tables`.

The tree is a set of parallel arrays of *slots*. When a node is first expanded, it gets
a block of consecutive slots, one per legal move (``first[node]`` is the first slot,
``nlegal[node]`` their number); its children are created one per iteration, in the
order of the block, and the slots not yet created hold the untried moves. A random
untried move is swapped to the front of the untried part and becomes the next child,
so, as in :meth:`mctslab.agents.uct.UCT.expand`, each untried move is equally likely.

Speed (measured against a C reference of the same search, ``python -m mctslab bench --c``):
the helpers are inlined (``inline="always"``), the random draw is emitted in place
(:func:`_random`: Numba's own generator, the same numbers as ``np.random.random()``), the
helpers get borrowed array views (:func:`_borrow`: no reference counting per ply), the
scratch arrays belong to the caller, and ``sqrt(ln n)`` and ``1 / sqrt(n)`` come from a
table filled as first needed (:func:`_sqrt_log`). None of this changes a result: the C
reference builds the same trees (``tests/test_c_reference.py``).
"""

# Inside @njit, Numba supports NumPy's legacy np.random functions (its own per-thread
# generator), not np.random.Generator: hence the legacy calls.
# ruff: noqa: NPY002
from __future__ import annotations

import warnings

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic

try:  # Numba's own draw from its per-thread np.random state, emitted inline (np.random.random() is a call)
    from numba.cpython.randomimpl import get_next_double, get_state_ptr
except ImportError:  # pragma: no cover - a Numba without these internals: the same numbers through the call
    get_next_double = None


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

if get_next_double is not None:

    @intrinsic
    def _random(typingctx):
        """``np.random.random()`` inline: the same MT19937 state, the same double from two 32-bit draws."""

        def codegen(context, builder, signature, args):
            return get_next_double(context, builder, get_state_ptr(context, builder, "np"))

        return types.float64(), codegen

else:  # pragma: no cover

    @njit(cache=CACHE, inline="always")
    def _random():
        return np.random.random()


@intrinsic
def _borrow(typingctx, array):
    """A view of ``array`` that holds no reference (its meminfo is null).

    Every array a helper receives is counted in and out (an atomic add each way, a large
    part of a ply's cost in the kernels); a borrowed view makes those counts no-ops. Only
    for arrays that outlive the whole call: the kernels' arguments, never an array they make.
    """

    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, value=args[0])
        view = context.make_array(signature.return_type)(context, builder)
        context.populate_array(
            view, data=source.data, shape=source.shape, strides=source.strides, itemsize=source.itemsize, meminfo=None
        )
        return view._getvalue()

    return array(array), codegen


TICTACTOE, CONNECT4, ULTIMATE = 0, 1, 2
SCRATCH = 416
"""Length of the kernels' scratch array: a position (up to 32 fields), 128 moves, a path of 256 slots."""
ROOTS = 1 << 16
"""Visit counts below this have their ``sqrt(ln n)`` and ``1 / sqrt(n)`` kept in a table (:func:`_sqrt_log`)."""


@njit(cache=CACHE, inline="always")
def _sqrt_log(roots, n):
    """``np.sqrt(np.log(n))`` (the same double), from ``roots[0, n]``, computed when first asked (0: not yet)."""
    if n >= ROOTS:
        return np.sqrt(np.log(n))
    v = roots[0, n]
    if v == 0.0:  # n = 1 stays 0.0 and is computed again: the same value
        v = np.sqrt(np.log(n))
        roots[0, n] = v
    return v


@njit(cache=CACHE, inline="always")
def _inv_sqrt(roots, n):
    """``1.0 / np.sqrt(n)`` (the same double), from ``roots[1, n]``, computed when first asked."""
    if n >= ROOTS:
        return 1.0 / np.sqrt(n)
    v = roots[1, n]
    if v == 0.0:
        v = 1.0 / np.sqrt(n)
        roots[1, n] = v
    return v


ONGOING, DRAWN = -1, 2

# -- tic-tac-toe: st[2] X's stones, st[3] O's (bit = cell); prm = (n, k, cells, full);
#    tab[cell, 0] = number of winning lines through cell, tab[cell, 1 + j] = their masks.


@njit(cache=CACHE, inline="always")
def _ttt_completes(tab, stones, cell):
    for j in range(tab[cell, 0]):
        m = tab[cell, 1 + j]
        if stones & m == m:
            return True
    return False


@njit(cache=CACHE, inline="always")
def _ttt_apply(prm, tab, st, move):
    p = st[1]
    st[2 + p] |= 1 << move
    if _ttt_completes(tab, st[2 + p], move):
        st[0] = p
    elif st[2] | st[3] == prm[3]:
        st[0] = DRAWN
    st[1] = 1 - p


@njit(cache=CACHE, inline="always")
def _ttt_legal(prm, st, out):
    occupied = st[2] | st[3]
    n = 0
    for cell in range(prm[2]):
        if not (occupied >> cell) & 1:
            out[n] = cell
            n += 1
    return n


@njit(cache=CACHE, inline="always")
def _ttt_rollout(prm, tab, st, buf, limit):
    n = _ttt_legal(prm, st, buf)  # the pool of empty cells
    p = st[1]
    mine = st[2 + p]
    theirs = st[3 - p]
    for _ in range(min(n, limit)):
        i = int(_random() * n)
        cell = buf[i]
        n -= 1
        buf[i] = buf[n]
        mine |= 1 << cell
        if _ttt_completes(tab, mine, cell):
            return p
        mine, theirs = theirs, mine
        p = 1 - p
    return DRAWN


# -- Connect Four: st[2], st[3] the bitboards of mctslab.games.connect4 (column c owns
#    bits c * (rows + 1) ..., bottom up); prm = (rows, cols, k, rows + 1, full, plan length);
#    tab[d, j]: the j-th shift of direction d's run test (vertical, horizontal, diagonals).


@njit(cache=CACHE, inline="always")
def _c4_four(bits, h):
    # Four in a row on a board of column height h: runs of 2, then of 4, along each direction.
    a = bits & (bits >> 1)
    b = bits & (bits >> h)
    c = bits & (bits >> (h + 1))
    d = bits & (bits >> (h - 1))
    return ((a & (a >> 2)) | (b & (b >> (2 * h))) | (c & (c >> (2 * h + 2))) | (d & (d >> (2 * h - 2)))) != 0


@njit(cache=CACHE, inline="always")
def _c4_won(prm, tab, bits):
    if prm[5] == 2 and tab[0, 1] == 2:  # k = 4 (the shifts 1, 2): the run test with shifts the compiler sees
        return _c4_four(bits, 7) if prm[3] == 7 else _c4_four(bits, prm[3])  # 7: the standard board's height
    for d in range(4):
        m = bits
        for j in range(prm[5]):
            m &= m >> tab[d, j]
        if m:
            return True
    return False


@njit(cache=CACHE, inline="always")
def _c4_apply(prm, tab, st, move):
    p = st[1]
    occupied = st[2] | st[3]
    height = prm[3]
    column = ((1 << prm[0]) - 1) << (move * height)
    bit = (occupied + (1 << (move * height))) & column
    st[2 + p] |= bit
    if _c4_won(prm, tab, st[2 + p]):
        st[0] = p
    elif occupied | bit == prm[4]:
        st[0] = DRAWN
    st[1] = 1 - p


@njit(cache=CACHE, inline="always")
def _c4_legal(prm, st, out):
    occupied = st[2] | st[3]
    n = 0
    for c in range(prm[1]):
        if not (occupied >> (c * prm[3] + prm[0] - 1)) & 1:
            out[n] = c
            n += 1
    return n


@njit(cache=CACHE, inline="always")
def _c4_rollout(prm, tab, st, buf, limit):
    n = _c4_legal(prm, st, buf)  # the pool of open columns
    p = st[1]
    mine = st[2 + p]
    theirs = st[3 - p]
    rows, height = prm[0], prm[3]
    four = prm[5] == 2 and tab[0, 1] == 2
    occupied = mine | theirs
    steps = 0
    while n > 0 and steps < limit:
        i = int(_random() * n)
        c = buf[i]
        bit = (occupied + (1 << (c * height))) & (((1 << rows) - 1) << (c * height))
        occupied |= bit
        mine |= bit
        if (occupied >> (c * height + rows - 1)) & 1:  # the column is full now
            n -= 1
            buf[i] = buf[n]
        if four:
            won = _c4_four(mine, 7) if height == 7 else _c4_four(mine, height)
        else:
            won = _c4_won(prm, tab, mine)
        if won:
            return p
        mine, theirs = theirs, mine
        p = 1 - p
        steps += 1
    return DRAWN


# -- Ultimate tic-tac-toe (and Fractio): st[2 + b] X's stones on local board b (9 bits),
#    st[11 + b] O's, st[20] boards X won, st[21] boards O won, st[22] decided boards,
#    st[23] the board the mover is sent to (-1: anywhere); prm = (local win ends game,);
#    tab[0, m] = 1 when the 9-bit set m holds a line, tab[1, m] its number of cells,
#    tab[2 + i, m] its i-th cell (ascending).


@njit(cache=CACHE, inline="always")
def _ut_apply(prm, tab, st, move):
    p = st[1]
    board = move // 9
    cell = move - 9 * board
    k = 2 + 9 * p + board
    st[k] |= 1 << cell
    if tab[0, st[k]]:
        st[20 + p] |= 1 << board
        st[22] |= 1 << board
        if prm[0] or tab[0, st[20 + p]]:
            st[0] = p
    if st[2 + board] | st[11 + board] == 511:
        st[22] |= 1 << board
    st[1] = 1 - p
    if st[0] != ONGOING:
        st[23] = -1
    elif st[22] == 511:
        st[0] = DRAWN
        st[23] = -1
    elif (st[22] >> cell) & 1:
        st[23] = -1
    else:
        st[23] = cell


@njit(cache=CACHE, inline="always")
def _ut_legal(st, out):
    n = 0
    forced = st[23]
    for board in range(9):
        if (forced >= 0 and board != forced) or (st[22] >> board) & 1:
            continue
        occupied = st[2 + board] | st[11 + board]
        for cell in range(9):
            if not (occupied >> cell) & 1:
                out[n] = 9 * board + cell
                n += 1
    return n


@njit(cache=CACHE, inline="always")
def _ut_rollout(prm, tab, st, buf, limit):
    # The move is drawn without listing the legal moves: tab[1, m] counts the cells of the
    # 9-bit set m, tab[2 + i, m] is its i-th cell; "anywhere" walks the open boards in order,
    # so the i-th legal move in ascending order is drawn, each with probability 1 / n.
    steps = 0
    while st[0] == ONGOING:
        if steps >= limit:
            return DRAWN
        board = st[23]
        if board >= 0:
            free = 511 & ~(st[2 + board] | st[11 + board])
            i = int(_random() * tab[1, free])
        else:
            total = 0
            for b in range(9):
                if not (st[22] >> b) & 1:
                    total += tab[1, 511 & ~(st[2 + b] | st[11 + b])]
            i = int(_random() * total)
            free = 0
            for b in range(9):
                if not (st[22] >> b) & 1:
                    free = 511 & ~(st[2 + b] | st[11 + b])
                    if i < tab[1, free]:
                        board = b
                        break
                    i -= tab[1, free]
        # _ut_apply(prm, tab, st, 9 * board + cell) written out: even inlined, a helper taking arrays leaves calls
        # to Numba's reference counting (no-ops on borrowed views) around it, and Ultimate's playouts run 15% slower
        cell = tab[2 + i, free]
        p = st[1]
        k = 2 + 9 * p + board
        st[k] |= 1 << cell
        if tab[0, st[k]]:
            st[20 + p] |= 1 << board
            st[22] |= 1 << board
            if prm[0] or tab[0, st[20 + p]]:
                st[0] = p
        if st[2 + board] | st[11 + board] == 511:
            st[22] |= 1 << board
        st[1] = 1 - p
        if st[0] != ONGOING:
            st[23] = -1
        elif st[22] == 511:
            st[0] = DRAWN
            st[23] = -1
        elif (st[22] >> cell) & 1:
            st[23] = -1
        else:
            st[23] = cell
        steps += 1
    return st[0]


# -- dispatch ---------------------------------------------------------------------


@njit(cache=CACHE, inline="always")
def apply_move(kind, prm, tab, st, move):
    """Play ``move`` in ``st`` (in place)."""
    if kind == TICTACTOE:
        _ttt_apply(prm, tab, st, move)
    elif kind == CONNECT4:
        _c4_apply(prm, tab, st, move)
    else:
        _ut_apply(prm, tab, st, move)


@njit(cache=CACHE, inline="always")
def legal_moves(kind, prm, st, out):
    """Write the legal moves of ``st`` into ``out``, ascending; return their number (0 when over)."""
    if st[0] != ONGOING:
        return 0
    if kind == TICTACTOE:
        return _ttt_legal(prm, st, out)
    if kind == CONNECT4:
        return _c4_legal(prm, st, out)
    return _ut_legal(st, out)


@njit(cache=CACHE, inline="always")
def rollout(kind, prm, tab, st, buf, limit):
    """A uniformly random playout from ``st`` (changed); the result, a cut after ``limit`` moves a draw."""
    if st[0] != ONGOING:
        return st[0]
    if kind == TICTACTOE:
        return _ttt_rollout(prm, tab, st, buf, limit)
    if kind == CONNECT4:
        return _c4_rollout(prm, tab, st, buf, limit)
    return _ut_rollout(prm, tab, st, buf, limit)


# -- RAVE (mctslab.engine.rave): UCT with AMAF statistics, as mctslab.agents.rave.Rave.
#    The playouts below are the games' rollouts above, each draw the same, that also mark
#    played[p, m] = 1 for each move m that player p plays (the "played" table of AMAF).


@njit(cache=CACHE, inline="always")
def _ttt_rollout_marking(prm, tab, st, buf, limit, played):
    n = _ttt_legal(prm, st, buf)
    p = st[1]
    mine = st[2 + p]
    theirs = st[3 - p]
    for _ in range(min(n, limit)):
        i = int(_random() * n)
        cell = buf[i]
        n -= 1
        buf[i] = buf[n]
        played[p, cell] = 1
        mine |= 1 << cell
        if _ttt_completes(tab, mine, cell):
            return p
        mine, theirs = theirs, mine
        p = 1 - p
    return DRAWN


@njit(cache=CACHE, inline="always")
def _c4_rollout_marking(prm, tab, st, buf, limit, played):
    n = _c4_legal(prm, st, buf)
    p = st[1]
    mine = st[2 + p]
    theirs = st[3 - p]
    rows, height = prm[0], prm[3]
    four = prm[5] == 2 and tab[0, 1] == 2
    occupied = mine | theirs
    steps = 0
    while n > 0 and steps < limit:
        i = int(_random() * n)
        c = buf[i]
        played[p, c] = 1
        bit = (occupied + (1 << (c * height))) & (((1 << rows) - 1) << (c * height))
        occupied |= bit
        mine |= bit
        if (occupied >> (c * height + rows - 1)) & 1:
            n -= 1
            buf[i] = buf[n]
        if four:
            won = _c4_four(mine, 7) if height == 7 else _c4_four(mine, height)
        else:
            won = _c4_won(prm, tab, mine)
        if won:
            return p
        mine, theirs = theirs, mine
        p = 1 - p
        steps += 1
    return DRAWN


@njit(cache=CACHE, inline="always")
def _ut_rollout_marking(prm, tab, st, buf, limit, played):
    steps = 0
    while st[0] == ONGOING:
        if steps >= limit:
            return DRAWN
        board = st[23]
        if board >= 0:
            free = 511 & ~(st[2 + board] | st[11 + board])
            i = int(_random() * tab[1, free])
        else:
            total = 0
            for b in range(9):
                if not (st[22] >> b) & 1:
                    total += tab[1, 511 & ~(st[2 + b] | st[11 + b])]
            i = int(_random() * total)
            free = 0
            for b in range(9):
                if not (st[22] >> b) & 1:
                    free = 511 & ~(st[2 + b] | st[11 + b])
                    if i < tab[1, free]:
                        board = b
                        break
                    i -= tab[1, free]
        cell = tab[2 + i, free]
        played[st[1], 9 * board + cell] = 1
        _ut_apply(prm, tab, st, 9 * board + cell)
        steps += 1
    return st[0]


@njit(cache=CACHE, inline="always")
def rollout_marking(kind, prm, tab, st, buf, limit, played):
    """:func:`rollout` (the same draws, the same result) that also sets ``played[p, m] = 1`` for every move played."""
    if st[0] != ONGOING:
        return st[0]
    if kind == TICTACTOE:
        return _ttt_rollout_marking(prm, tab, st, buf, limit, played)
    if kind == CONNECT4:
        return _c4_rollout_marking(prm, tab, st, buf, limit, played)
    return _ut_rollout_marking(prm, tab, st, buf, limit, played)


@njit(cache=CACHE, inline="always")
def _beta(betas, k, n):
    """Gelly and Silver's ``sqrt(k / (3 n + k))``, from ``betas[n]``, computed when first asked (0: not yet)."""
    if n >= betas.shape[0]:
        return np.sqrt(k / (3 * n + k))
    v = betas[n]
    if v == 0.0:
        v = np.sqrt(k / (3 * n + k))
        betas[n] = v
    return v


@njit(cache=CACHE, inline="always")
def _rave_backup(mover0, depth, result, path, move, first, nexp, visits, wins2, mean, isq, amv, amw2, amean, played,
                 roots):  # fmt: skip
    # From the leaf up: the node's own statistics (as uct), then AMAF for each created child whose
    # (player, move) was played below the node (playout, then the tree moves below), then the node's move joins.
    for d in range(depth, -1, -1):
        slot = path[d]
        player = (mover0 + d + 1) & 1  # who made the slot's move; its children's moves are the other player's
        visits[slot] += 1
        if result == player:
            wins2[slot] += 2
        elif result == DRAWN:
            wins2[slot] += 1
        mean[slot] = wins2[slot] / (2.0 * visits[slot])
        isq[slot] = _inv_sqrt(roots, visits[slot])
        f = first[slot]
        if f >= 0:
            mover = 1 - player
            half = 2 if result == mover else (1 if result == DRAWN else 0)
            for j in range(f, f + nexp[slot]):
                if played[mover, move[j]]:
                    amv[j] += 1
                    amw2[j] += half
                    amean[j] = amw2[j] / (2.0 * amv[j])
        if d > 0:
            played[player, move[slot]] = 1


# fmt: off
@njit(cache=CACHE, nogil=True)
def rave_uct(
    kind, prm, tab, root_st, root, c, k, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq,
    amv, amw2, amean, info, scratch, played, roots, betas,
):
    # fmt: on
    """Run up to ``budget`` RAVE iterations from slot ``root``: :func:`uct` with AMAF statistics.

    The arguments of :func:`uct`, and: ``k``, the equivalence parameter (> 0); ``amv``,
    ``amw2`` (int32) and ``amean`` (float64), per slot, the AMAF visits, half points and
    mean (0.5 before any) of the slot's move; ``played``, an int8 array (2, moves) cleared
    each iteration; ``betas``, a float64 array of ``sqrt(k / (3 n + k))`` filled as first
    needed (zeros for a new ``k``). Selection maximises
    ``(1 - beta) * mean + beta * amean + c * sqrt(ln N) / sqrt(n)`` (the first child on a tie),
    as :class:`mctslab.agents.rave.RaveRule`; the AMAF update is
    :meth:`mctslab.agents.rave.Rave.backpropagate`'s.
    """
    prm, tab, roots, betas = _borrow(prm), _borrow(tab), _borrow(roots), _borrow(betas)
    st, buf, path = _borrow(scratch[: root_st.shape[0]]), _borrow(scratch[32:160]), _borrow(scratch[160:416])
    move, first, nexp, visits = _borrow(move), _borrow(first), _borrow(nexp), _borrow(visits)
    wins2, mean, isq, played = _borrow(wins2), _borrow(mean), _borrow(isq), _borrow(played)
    amv, amw2, amean = _borrow(amv), _borrow(amw2), _borrow(amean)
    capacity = move.shape[0]
    mover0 = root_st[1]
    done = 0
    while done < budget and info[0] + info[3] <= capacity:
        st[:] = root_st
        played[:, :] = 0
        node = root
        depth = 0
        path[0] = root
        while True:
            f = first[node]
            if f < 0:
                if st[0] != ONGOING:
                    break
                f = info[0]
                n = legal_moves(kind, prm, st, buf)
                for j in range(n):
                    move[f + j] = buf[j]
                first[node] = f
                nlegal[node] = n
                nexp[node] = 0
                info[0] = f + n
            ne = nexp[node]
            nl = nlegal[node]
            if ne < nl:
                i = ne + int(_random() * (nl - ne))
                child = f + ne
                m = move[f + i]
                move[f + i] = move[child]
                move[child] = m
                nexp[node] = ne + 1
                first[child] = -1
                visits[child] = 0
                wins2[child] = 0
                mean[child] = 0.5
                isq[child] = np.inf
                amv[child] = 0
                amw2[child] = 0
                amean[child] = 0.5
                apply_move(kind, prm, tab, st, m)
                depth += 1
                path[depth] = child
                break
            if nl == 0:
                break
            scale = c * _sqrt_log(roots, visits[node])
            best = f
            best_value = -np.inf
            for j in range(f, f + nl):
                b = _beta(betas, k, visits[j])
                value = (1.0 - b) * mean[j] + b * amean[j] + scale * isq[j]
                if value > best_value:
                    best = j
                    best_value = value
            node = best
            apply_move(kind, prm, tab, st, move[node])
            depth += 1
            path[depth] = node
        result = rollout_marking(kind, prm, tab, st, buf, limit, played)
        _rave_backup(mover0, depth, result, path, move, first, nexp, visits, wins2, mean, isq, amv, amw2, amean,
                     played, roots)  # fmt: skip
        if depth > info[1]:
            info[1] = depth
        done += 1
    info[2] += done
    return done


@njit(cache=CACHE)
def seed(value):
    """Seed Numba's random generator (one per thread, apart from NumPy's global one)."""
    np.random.seed(value)


@njit(cache=CACHE)
def random_results(kind, prm, tab, root_st, playouts, limit, scratch):
    """Counts of ``playouts`` random playouts from ``root_st``: [X wins, O wins, draws].

    ``scratch``: an int64 array of at least :data:`SCRATCH` (the position and the moves being drawn).
    """
    counts = np.zeros(3, dtype=np.int64)
    prm, tab = _borrow(prm), _borrow(tab)
    st, buf = _borrow(scratch[: root_st.shape[0]]), _borrow(scratch[32:160])
    for _ in range(playouts):
        st[:] = root_st
        counts[rollout(kind, prm, tab, st, buf, limit)] += 1
    return counts


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


# fmt: off
@njit(cache=CACHE, inline="always")
def _solver_descend(
    kind, prm, tab, st, buf, path, root, mover0, c, move, first, nlegal, nexp, visits, wins2, mean, isq, info, roots,
    proven,
):
    # fmt: on
    """Steps 1 and 2 of one iteration (:meth:`Solver.select`, :meth:`Solver.expand`); the depth reached in ``path``.

    As :func:`uct`'s descent, except: it stops at a proven slot; a child proven won for
    the chooser scores ``+inf``, proven lost ``-inf`` (:class:`SolverRule`; a proven draw
    keeps UCB1); a new child whose position is over is proven with its result.
    """
    node = root
    depth = 0
    path[0] = root
    while proven[node] < 0:
        f = first[node]
        if f < 0:
            if st[0] != ONGOING:
                break  # a terminal leaf (not reached: terminals are proven when created)
            f = info[0]
            n = legal_moves(kind, prm, st, buf)
            for j in range(n):
                move[f + j] = buf[j]
            first[node] = f
            nlegal[node] = n
            nexp[node] = 0
            info[0] = f + n
        ne = nexp[node]
        nl = nlegal[node]
        if ne < nl:  # expand: a random untried move becomes the next child
            i = ne + int(_random() * (nl - ne))
            child = f + ne
            m = move[f + i]
            move[f + i] = move[child]
            move[child] = m
            nexp[node] = ne + 1
            first[child] = -1
            visits[child] = 0
            wins2[child] = 0
            mean[child] = 0.5
            isq[child] = np.inf
            apply_move(kind, prm, tab, st, m)
            depth += 1
            path[depth] = child
            if st[0] == ONGOING:
                proven[child] = UNPROVEN
            else:  # a terminal child: proven with its result, for the player who made the move
                player = (mover0 + depth + 1) & 1
                proven[child] = 2 if st[0] == player else (1 if st[0] == DRAWN else 0)
            break
        if nl == 0:
            break
        # select: the highest value, the first one on a tie; proven won +inf, proven lost -inf, else UCB1
        scale = c * _sqrt_log(roots, visits[node])
        best = f
        best_value = -np.inf
        for j in range(f, f + nl):
            p = proven[j]
            if p == 2:
                value = np.inf
            elif p == 0:
                value = -np.inf
            else:
                value = mean[j] + scale * isq[j]
            if value > best_value:
                best = j
                best_value = value
        node = best
        apply_move(kind, prm, tab, st, move[node])
        depth += 1
        path[depth] = node
    return depth


# fmt: off
@njit(cache=CACHE, nogil=True)
def solver_uct(
    kind, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq, info, scratch,
    roots, proven,
):
    # fmt: on
    """Run up to ``budget`` MCTS-Solver iterations from slot ``root``: :func:`uct` with proofs in ``proven``.

    The arguments of :func:`uct`, and ``proven`` (int8, a slot's proven value in half
    points for the player who made its move, :data:`UNPROVEN` while unknown; the root's
    set by the caller). Each iteration: :func:`_solver_descend`; step 3, the leaf's
    proven result if it has one (no random number drawn), else a random playout; step 4,
    :func:`uct`'s statistics on the path, then every slot above the leaf is proven in
    turn (:func:`_solver_prove`) until one cannot be. Returns the iterations done by this
    call; ``nogil=True`` as :func:`uct`.
    """
    prm, tab, roots, info = _borrow(prm), _borrow(tab), _borrow(roots), _borrow(info)
    move, first, nlegal, nexp = _borrow(move), _borrow(first), _borrow(nlegal), _borrow(nexp)
    visits, wins2, mean, isq, proven = _borrow(visits), _borrow(wins2), _borrow(mean), _borrow(isq), _borrow(proven)
    st, buf, path = _borrow(scratch[: root_st.shape[0]]), _borrow(scratch[32:160]), _borrow(scratch[160:416])
    capacity = move.shape[0]
    mover0 = root_st[1]
    done = 0
    while done < budget and info[0] + info[3] <= capacity:
        st[:] = root_st
        depth = _solver_descend(
            kind, prm, tab, st, buf, path, root, mover0, c, move, first, nlegal, nexp, visits, wins2, mean, isq, info,
            roots, proven,
        )  # fmt: skip
        p = proven[path[depth]]
        if p >= 0:  # a proven leaf backs up its exact result
            player = (mover0 + depth + 1) & 1
            result = player if p == 2 else (DRAWN if p == 1 else 1 - player)
        else:
            result = rollout(kind, prm, tab, st, buf, limit)
        for d in range(depth + 1):
            slot = path[d]
            player = (mover0 + d + 1) & 1  # who made the slot's move (the root: the opponent)
            visits[slot] += 1
            if result == player:
                wins2[slot] += 2
            elif result == DRAWN:
                wins2[slot] += 1
            mean[slot] = wins2[slot] / (2.0 * visits[slot])
            isq[slot] = _inv_sqrt(roots, visits[slot])
        for d in range(depth - 1, -1, -1):  # the proofs, from the leaf's parent up, while they hold
            if not _solver_prove(first, nlegal, nexp, proven, path[d]):
                break
        if depth > info[1]:
            info[1] = depth
        done += 1
    info[2] += done
    return done


# fmt: off
@njit(cache=CACHE, nogil=True)
def uct(
    kind, prm, tab, root_st, root, c, limit, budget, move, first, nlegal, nexp, visits, wins2, mean, isq, info, scratch,
    roots,
):
    # fmt: on
    """Run up to ``budget`` UCT iterations from slot ``root`` (position ``root_st``).

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
    st, buf, path = _borrow(scratch[: root_st.shape[0]]), _borrow(scratch[32:160]), scratch[160:416]
    capacity = move.shape[0]
    mover0 = root_st[1]
    done = 0
    while done < budget and info[0] + info[3] <= capacity:
        st[:] = root_st
        node = root
        depth = 0
        path[0] = root
        while True:
            f = first[node]
            if f < 0:
                if st[0] != ONGOING:
                    break  # a terminal leaf: simulated as it is
                f = info[0]
                n = legal_moves(kind, prm, st, buf)
                for j in range(n):
                    move[f + j] = buf[j]
                first[node] = f
                nlegal[node] = n
                nexp[node] = 0
                info[0] = f + n
            ne = nexp[node]
            nl = nlegal[node]
            if ne < nl:  # expand: a random untried move becomes the next child
                i = ne + int(_random() * (nl - ne))
                child = f + ne
                m = move[f + i]
                move[f + i] = move[child]
                move[child] = m
                nexp[node] = ne + 1
                first[child] = -1
                visits[child] = 0
                wins2[child] = 0
                mean[child] = 0.5
                isq[child] = np.inf
                apply_move(kind, prm, tab, st, m)
                depth += 1
                path[depth] = child
                break
            if nl == 0:
                break
            # select: the child with the highest UCB1 value, the first one on a tie
            scale = c * _sqrt_log(roots, visits[node])
            best = f
            best_value = -np.inf
            for j in range(f, f + nl):
                value = mean[j] + scale * isq[j]
                if value > best_value:
                    best = j
                    best_value = value
            node = best
            apply_move(kind, prm, tab, st, move[node])
            depth += 1
            path[depth] = node
        result = rollout(kind, prm, tab, st, buf, limit)
        for d in range(depth + 1):
            slot = path[d]
            player = (mover0 + d + 1) & 1  # who made the slot's move (the root: the opponent)
            visits[slot] += 1
            if result == player:
                wins2[slot] += 2
            elif result == DRAWN:
                wins2[slot] += 1
            mean[slot] = wins2[slot] / (2.0 * visits[slot])
            isq[slot] = _inv_sqrt(roots, visits[slot])
        if depth > info[1]:
            info[1] = depth
        done += 1
    info[2] += done
    return done
