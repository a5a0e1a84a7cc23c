"""The normal solve's complementarity problem, solved exactly
(surfaces-and-contacts 4, controller 0: "several contacts are solved together
as a small complementarity problem (impulses >= 0)").

For a group of coupled contacts with contact-space matrix A = J M^-1 J^T and
q = separation speed before the solve - target, find impulses lam >= 0 whose
speeds w = A lam + q are >= 0, with lam_i w_i = 0 (a contact pushes only while
it would close faster than its target). A is symmetric positive semi-definite;
redundant contacts (the four coplanar corners of a box, a corner held from
both bodies) make it singular. Its diagonal is raised by a tiny fraction, so
redundant contacts share their load and the problem becomes strictly convex:
minimise f = 1/2 lam A lam + q lam over lam >= 0.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel

REGULARISATION = 1e-6     # A's diagonal raised by this fraction: a pushing contact ends 1e-6 of its own push short
SPEED_TOLERANCE = 1e-9    # m/s: a contact closing slower than this is at its target
FIRST_GUESSES = 3         # free sets corrected in both directions at once before lam moves
MAX_SOLVES = 40           # linear solves before giving up (the caller falls back to Gauss-Seidel)


def solve_lcp(A, q, free):
    """The impulses lam >= 0 with A lam + q >= 0 and lam (A lam + q) = 0 for a
    symmetric positive semi-definite A, starting from the contacts ``free``
    (a bool array: those expected to push, e.g. last PSI's); None when the
    solves ran out.

    Primal active set (Lawson and Hanson's method for non-negative least
    squares, on a quadratic): lam stays >= 0 and f never rises. Each round
    solves A_FF z_F = -q_F on the free set F. If some z_i <= 0, lam moves
    toward z until the first of them reaches zero, and those leave F.
    Otherwise lam = z, and the contacts outside F that still close join it:
    all at once while f keeps falling, else only the fastest closing one
    (which makes f fall). While lam is still zero, any F is a valid start:
    the first few wrong guesses are corrected both ways at once (block
    principal pivoting), which usually needs a single further round.
    """
    n = len(q)
    A = A + np.diag(np.diag(A) * REGULARISATION)
    lam = np.zeros(n)
    free = free.copy()
    guesses = FIRST_GUESSES
    last_f = np.inf
    for _ in range(MAX_SOLVES):
        z = _solve_free(A, q, free)
        if z is None:
            return None
        low = np.flatnonzero(free & (z <= 0.0))
        if len(low):
            if guesses and not lam.any():
                guesses -= 1
                closing = ~free & (A @ z + q < -SPEED_TOLERANCE)
                free[low] = False
                free |= closing
                continue
            at_zero = low[lam[low] == 0.0]
            if len(at_zero):
                free[at_zero] = False
                continue
            ratio = lam[low] / (lam[low] - z[low])
            step = ratio.min()
            lam += step * (z - lam)
            stop = low[ratio <= step]
            lam[stop] = 0.0
            free[stop] = False
            continue
        lam = z
        w = A @ lam + q
        closing = ~free & (w < -SPEED_TOLERANCE)
        if not closing.any():
            return lam
        f = 0.5 * (q @ lam)                   # f at the optimum on F, where A_FF lam_F = -q_F
        if f < last_f:
            free |= closing
        else:
            free[np.argmin(np.where(free, np.inf, w))] = True
        last_f = f
    return None


def _solve_free(A, q, free):
    """z with A_FF z_F = -q_F on the free set F and 0 elsewhere (None when
    A_FF is not positive definite)."""
    ok, z = _cholesky_solve(A, q, free)
    return z if ok else None


@kernel
def _cholesky_solve(A, q, free):
    """A_FF z_F = -q_F by Cholesky on the free rows and columns only, in a
    fixed order of operations (the same bits on every machine and thread
    count, unlike a threaded LAPACK); (False, _) when a pivot is not > 0."""
    n = q.shape[0]
    idx = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if free[i]:
            idx[k] = i
            k += 1
    z = np.zeros(n)
    L = np.zeros((k, k))
    for j in range(k):
        s = A[idx[j], idx[j]]
        for p in range(j):
            s -= L[j, p] * L[j, p]
        if not s > 0.0:
            return False, z
        d = math.sqrt(s)
        L[j, j] = d
        for i in range(j + 1, k):
            s = A[idx[i], idx[j]]
            for p in range(j):
                s -= L[i, p] * L[j, p]
            L[i, j] = s / d
    y = np.empty(k)
    for i in range(k):
        s = -q[idx[i]]
        for p in range(i):
            s -= L[i, p] * y[p]
        y[i] = s / L[i, i]
    for i in range(k - 1, -1, -1):
        s = y[i]
        for p in range(i + 1, k):
            s -= L[p, i] * z[idx[p]]
        z[idx[i]] = s / L[i, i]
    return True, z
