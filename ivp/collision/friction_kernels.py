"""Compiled pieces of the friction system (ivp-contacts 5), shared by its
object path (friction.py) and the resting-contact kernel (single_contact.py)."""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel


@kernel
def spring_impulse(K00, K01, K11, sa, sb, u0, u1, dt, cap):
    """5.6: the tangential impulse x with K x = span / dt - u (K the 2 x 2
    response along t0, t1), shortened to length cap; (False, 0, 0) when K is singular."""
    idt = 1.0 / dt
    a0 = sa * idt - u0
    a1 = sb * idt - u1
    det = K00 * K11 - K01 * K01
    if det == 0.0:
        return False, 0.0, 0.0
    x0 = (K11 * a0 - K01 * a1) / det
    x1 = (K00 * a1 - K01 * a0) / det
    xl = math.sqrt(x0 * x0 + x1 * x1)
    if xl > cap:
        k = cap / xl
        x0 *= k
        x1 *= k
    return True, x0, x1


@kernel
def response_matrix_k(N, IDX, S, C, IC, IM):
    """5.5's response matrix from per-contact arrays: N (n, 3) normals; per
    side (n, 2): IDX the movable core's number (-1: fixed), S its sign, C its
    r x n (n, 2, 3), IC inv_rot_inertia (.) C, IM its inverse mass. For each
    pair, each core of contact i (side 0 first) that contact j also moves adds
    s_i s_j (n_i . n_j / m + IC_i . C_j)."""
    n = N.shape[0]
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            s = 0.0
            for a in range(2):
                k = IDX[i, a]
                if k < 0:
                    continue
                for b in range(2):
                    if IDX[j, b] != k:
                        continue
                    dn = N[i, 0] * N[j, 0] + N[i, 1] * N[j, 1] + N[i, 2] * N[j, 2]
                    dc = IC[i, a, 0] * C[j, b, 0] + IC[i, a, 1] * C[j, b, 1] + IC[i, a, 2] * C[j, b, 2]
                    s += S[i, a] * S[j, b] * (dn * IM[i, a] + dc)
                    break
            A[i, j] = s
            A[j, i] = s
    return A


@kernel
def gauss_solve_k(A, b, eps):
    """5.5's Gauss elimination with column pivoting (friction.gauss_solve):
    (True, x), or (False, zeros) when a zero row keeps a right side of 1e-6 or more."""
    n = b.shape[0]
    M = np.empty((n, n + 1))
    for i in range(n):
        for j in range(n):
            M[i, j] = A[i, j]
        M[i, n] = b[i]
    row_of_col = np.full(n, -1, dtype=np.int64)
    r = 0
    for c in range(n):
        if r >= n:
            break
        p = r
        best = abs(M[r, c])
        if not math.isnan(best):
            for i in range(r + 1, n):
                v = abs(M[i, c])
                if math.isnan(v) or v > best:
                    p = i
                    best = v
                    if math.isnan(v):
                        break
        if abs(M[p, c]) < eps:
            continue
        if p != r:
            for j in range(n + 1):
                t = M[r, j]
                M[r, j] = M[p, j]
                M[p, j] = t
        piv = M[r, c]
        for j in range(n + 1):
            M[r, j] = M[r, j] / piv
        for k in range(n):
            f = M[k, c]
            if k != r and f != 0.0:
                for j in range(n + 1):
                    M[k, j] = M[k, j] - f * M[r, j]
        row_of_col[c] = r
        r += 1
    x = np.zeros(n)
    for k in range(r, n):
        if abs(M[k, n]) >= 1e-6:
            return False, x
    for c in range(n):
        if row_of_col[c] >= 0:
            x[c] = M[row_of_col[c], n]
    return True, x
