"""Racioppo 2020's notebook code, transcribed: the procedure that made its published numbers.

These are Racioppo's (2020) functions as his notebook prints them, with these changes
only: randomness comes from a ``numpy.random.Generator`` argument ``rng`` instead of the
global ``np.random`` (so runs are seeded); the tournament functions return their counts
instead of printing percentages; mutable default arguments are gone; the end-of-move
win check, written out in each game function, is one helper (``_won``); the windowed
move choice is a function (``f_Window_Move``) so a single position can be tested; and
``np.argsort`` is asked for the stable sort that numpy used for short arrays in 2020
(an insertion sort below 17 elements; newer numpy may use a SIMD sort that is not
stable). The logic, defects included, is his; each defect is marked ``# DEFECT name:``
with the name it has in :data:`mctslab.course.reproduction.agent.DEFECTS`.

This code is slow (about 0.1 ms per random move, in numpy) and is here to be read and
to be the oracle that the fast :class:`~mctslab.agents.RacioppoMonteCarlo`
is tested against; do not use it for experiments.

Source: Racioppo 2020, "Monte Carlo Tree Search: A Review", notebook
"Monte Carlo Tree Search for Tic-Tac-Toe", cells In [4] to In [9], In [21], In [150],
In [165] and In [178].
"""

from __future__ import annotations

import numpy as np


def f_Rand_i(n, x_moves, o_moves, rng):
    """Racioppo 2020, In [4]: play a random game from the position ``x_moves``, ``o_moves``; return the winner."""
    pos_i = list(range(n**2))  # List of all possible moves
    prev_moves = x_moves + o_moves  # List of all previous moves
    pos_i = list(np.delete(pos_i, prev_moves))  # Remove previous moves from possible moves

    v = np.zeros(n**2)
    v[x_moves] = 1
    v[o_moves] = -1

    M_i = np.reshape(v, [n, n])  # Reshape the list to a matrix

    # DEFECT check: the position handed in (after the test move) is never looked at; the
    # first check comes after the first random move, and a full board is a draw unseen.
    Winner_i = 0
    for i in np.arange(np.shape(pos_i)[0]):
        move = rng.choice(pos_i)  # Choose a random move from the possibilities
        idx = pos_i.index(move)
        del pos_i[idx]
        # DEFECT turn: the mover is decided by the loop counter, so every playout starts
        # with X, even right after X's own test move.
        if np.mod(i, 2) == 0:
            v[move] = 1
            x_moves.append(move)
        else:
            v[move] = -1
            o_moves.append(move)

        # Check if someone won:
        M_i = np.reshape(v, [n, n])  # Reshape the list to a matrix
        # DEFECT check: X's lines are looked at first, so an O line already on the board
        # loses to an X line made by this random move.
        if n in M_i.sum(axis=1) or n in M_i.sum(axis=0) or np.trace(M_i) == n or np.trace(np.fliplr(M_i)) == n:
            Winner_i = 1
            break
        elif -n in M_i.sum(axis=1) or -n in M_i.sum(axis=0) or np.trace(M_i) == -n or np.trace(np.fliplr(M_i)) == -n:
            Winner_i = -1
            break

    return x_moves, o_moves, M_i, Winner_i


def f_Append_Test_Move(x_moves, o_moves, test_move, n):
    """Racioppo 2020, In [5]: append ``test_move`` to the moves of the player whose turn it is."""
    # Create copies to append the test value to:
    x_moves_test = list(np.empty_like(x_moves))
    o_moves_test = list(np.empty_like(o_moves))
    x_moves_test[:] = x_moves
    o_moves_test[:] = o_moves

    # If it's x's turn, append the test move to the list of x_moves
    # (x went first)
    if len(x_moves) <= len(o_moves):
        x_moves_test += [test_move]
    # If it's o's turn, append the test move to the list of o_moves
    else:
        o_moves_test += [test_move]

    return x_moves_test, o_moves_test


def f_Branch_from_test_move(x_moves, o_moves, test_move, rng, n=3, it=100):
    """Racioppo 2020, In [6]: X wins minus O wins over ``it`` random games after ``test_move``."""
    x_moves_test, o_moves_test = f_Append_Test_Move(x_moves, o_moves, test_move, n)
    count = 0
    for _ in np.arange(it):
        x_moves_i = list(np.empty_like(x_moves_test))
        o_moves_i = list(np.empty_like(o_moves_test))
        x_moves_i[:] = x_moves_test
        o_moves_i[:] = o_moves_test
        _, _, _, Winner_i = f_Rand_i(n, x_moves_i, o_moves_i, rng)
        count += Winner_i

    return count


def f_Monte_Carlo_Outcomes(pos, x_moves, o_moves, n, rng, it=100):
    """Racioppo 2020, In [7]: ``f_Branch_from_test_move`` for every move in ``pos`` (the array Count_v)."""
    pos_test = list(np.empty_like(pos))
    pos_test[:] = pos
    L = np.shape(pos_test)[0]
    Count_v = np.zeros(L)

    for l in np.arange(L):  # noqa: E741 - the paper's name
        test_move = pos_test[l]
        count = f_Branch_from_test_move(x_moves, o_moves, test_move, rng, n=n, it=it)
        Count_v[l] = count

    return Count_v


def _won(v, n):
    """The paper's end-of-move check: 1 if X has a line, -1 if O has, else 0 (X looked at first)."""
    M = np.reshape(v, [n, n])
    if n in M.sum(axis=1) or n in M.sum(axis=0) or np.trace(M) == n or np.trace(np.fliplr(M)) == n:
        return 1
    if -n in M.sum(axis=1) or -n in M.sum(axis=0) or np.trace(M) == -n or np.trace(np.fliplr(M)) == -n:
        return -1
    return 0


def f_Monte_Carlo_TTT(X_mode, O_mode, rng, n=3, it=100):
    """Racioppo 2020, In [8]: one game, X and O each Monte Carlo (mode 1) or random (mode 0)."""
    pos = list(range(n**2))  # List of possible moves
    v = np.zeros(n**2)
    x_moves = []
    o_moves = []
    Winner = 0  # Default to draw

    for i in np.arange(n**2):
        if np.mod(i, 2) == 0 and X_mode == 1:
            Count_v = f_Monte_Carlo_Outcomes(pos, x_moves, o_moves, n, rng, it)
            idx = np.argmax(Count_v)
        elif np.mod(i, 2) == 1 and O_mode == 1:
            Count_v = f_Monte_Carlo_Outcomes(pos, x_moves, o_moves, n, rng, it)
            idx = np.argmin(Count_v)
        else:
            idx = rng.choice(np.arange(np.shape(pos)[0]))

        new_move = pos[idx]
        del pos[idx]

        # Append the move to the list of moves:
        if np.mod(i, 2) == 0:
            x_moves += [new_move]
            v[new_move] = 1
        else:
            o_moves += [new_move]
            v[new_move] = -1

        Winner = _won(v, n)
        if Winner != 0:
            break

    return np.reshape(v, [n, n]), Winner


def f_Window_Move(i, pos, x_moves, o_moves, X_mode, O_mode, rng, n=3, window=1, it=100):
    """Racioppo 2020, In [178]: the move-choice block of ``f_Exp_Window_Monte_Carlo_TTT`` at ply ``i``; returns ``idx``.

    Moved out of the game loop, unchanged, so that a position can be tested on its own.
    """
    if np.mod(i, 2) == 0 and X_mode == 1:
        Count_v = f_Monte_Carlo_Outcomes(pos, x_moves, o_moves, n, rng, it)
        # If there are at least 4 possible moves remaining,
        # repeat the pure Monte Carlo search on the 4 best moves.
        # DEFECT threshold: X narrows with more than 4 moves, O (below) with at least 4.
        if np.shape(Count_v)[0] > 4 and window >= 2:
            idxs = np.flip(np.argsort(np.array(Count_v), kind="stable"))[0:4]
            pos_i = np.array(pos)[idxs]
            Count_v = f_Monte_Carlo_Outcomes(pos_i, x_moves, o_moves, n, rng, it)
            # If there are at least 2 possible moves remaining,
            # repeat the pure Monte Carlo search on the 2 best moves.
            if np.shape(Count_v)[0] > 2 and window >= 3:
                idxs2 = np.flip(np.argsort(np.array(Count_v), kind="stable"))[0:2]
                # DEFECT index: idxs2 indexes the 4 best (pos_i), but is applied to pos.
                pos_i = np.array(pos)[idxs2]
                Count_v = f_Monte_Carlo_Outcomes(pos_i, x_moves, o_moves, n, rng, it)
                idxk = np.argmax(Count_v)
                idxj = idxs2[idxk]
            else:
                idxj = np.argmax(Count_v)
            idx = idxs[idxj]
        else:
            idx = np.argmax(Count_v)
    elif np.mod(i, 2) == 1 and O_mode == 1:
        Count_v = f_Monte_Carlo_Outcomes(pos, x_moves, o_moves, n, rng, it)
        # If there are at least 4 possible moves remaining,
        # repeat the pure Monte Carlo search on the 4 best moves.
        if np.shape(Count_v)[0] >= 4 and window >= 2:
            idxs = np.argsort(np.array(Count_v), kind="stable")[0:4]
            pos_i = np.array(pos)[idxs]
            Count_v = f_Monte_Carlo_Outcomes(pos_i, x_moves, o_moves, n, rng, it)
            # If there are at least 2 possible moves remaining,
            # repeat the pure Monte Carlo search on the 2 best moves.
            if np.shape(Count_v)[0] >= 2 and window >= 3:
                idxs2 = np.argsort(np.array(Count_v), kind="stable")[0:2]
                # DEFECT index: the same slip on O's side.
                pos_i = np.array(pos)[idxs2]
                Count_v = f_Monte_Carlo_Outcomes(pos_i, x_moves, o_moves, n, rng, it)
                idxk = np.argmin(Count_v)
                idxj = idxs2[idxk]
            else:
                idxj = np.argmin(Count_v)
            idx = idxs[idxj]
        else:
            idx = np.argmin(Count_v)
    else:
        idx = rng.choice(np.arange(np.shape(pos)[0]))
    return idx


def f_Exp_Window_Monte_Carlo_TTT(X_mode, O_mode, rng, n=3, window=1, it=100):
    """Racioppo 2020, In [178]: one game with the windowed search (window 1: all moves; 2: best 4; 3: best 2)."""
    pos = list(range(n**2))  # List of possible moves
    v = np.zeros(n**2)
    x_moves = []
    o_moves = []
    Winner = 0  # Default to draw

    for i in np.arange(n**2):
        idx = f_Window_Move(i, pos, x_moves, o_moves, X_mode, O_mode, rng, n=n, window=window, it=it)

        new_move = pos[idx]
        del pos[idx]

        # Append the move to the list of moves:
        if np.mod(i, 2) == 0:
            x_moves += [new_move]
            v[new_move] = 1
        else:
            o_moves += [new_move]
            v[new_move] = -1

        Winner = _won(v, n)
        if Winner != 0:
            break

    return np.reshape(v, [n, n]), Winner


def f_Play_N_Games(X_mode, O_mode, rng, n=3, it=100, N=100, window=None):
    """Racioppo 2020, In [9] and In [165]: ``N`` games; returns ``(X wins, O wins, draws)`` instead of printing %.

    ``window=None`` plays ``f_Monte_Carlo_TTT`` (In [9]); a window plays
    ``f_Exp_Window_Monte_Carlo_TTT`` (In [165], ``f_Play_N_Games2``).
    """
    Win_Count = []
    for _ in np.arange(N):
        if window is None:
            _, Winner = f_Monte_Carlo_TTT(X_mode=X_mode, O_mode=O_mode, rng=rng, n=n, it=it)
        else:
            _, Winner = f_Exp_Window_Monte_Carlo_TTT(X_mode=X_mode, O_mode=O_mode, rng=rng, n=n, window=window, it=it)
        Win_Count.append(Winner)
    Win_Count = np.array(Win_Count)
    return int(np.sum(Win_Count == 1)), int(np.sum(Win_Count == -1)), int(np.sum(Win_Count == 0))


def centre_opening_rate(rng, n=3, it=100, iterations=100):
    """Racioppo 2020, In [21]: the fraction of ``iterations`` trials in which X's first move is the centre."""
    counter = 0
    pos = list(range(n**2))
    for _ in np.arange(iterations):
        x_moves = []
        o_moves = []
        Count_v = f_Monte_Carlo_Outcomes(pos, x_moves, o_moves, n, rng, it)
        idx = np.argmax(Count_v)
        new_move = pos[idx]
        if new_move == 4:
            counter += 1
    return counter / iterations


def centre_held_at_end(rng, it=10, iterz=100):
    """Racioppo 2020, In [150]: meant to measure X's centre opening; counts games X *ends* holding the centre.

    DEFECT centre: ``M[1,1] == 1`` looks at the final board of a whole Monte Carlo vs Monte
    Carlo game, where X also gets the centre later in the game; and the published output
    ``57.0`` cannot be ``count/iterz`` (at most 1.0): it is ``count``, the number of games.
    """
    count = 0
    for _ in np.arange(iterz):
        M, _ = f_Exp_Window_Monte_Carlo_TTT(X_mode=1, O_mode=1, rng=rng, n=3, it=it)
        if M[1, 1] == 1:
            count += M[1, 1]
    return count / iterz
