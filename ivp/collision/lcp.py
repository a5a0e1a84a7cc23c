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

import numpy as np
from scipy.linalg import lapack

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
    A_FF is not positive definite): A with the other rows and columns made
    those of the identity, by Cholesky (LAPACK posv; A is symmetric, so its
    transpose is the Fortran-ordered matrix posv wants)."""
    out = np.flatnonzero(~free)
    M = A.copy()
    M[out] = 0.0
    M[:, out] = 0.0
    M[out, out] = 1.0
    _, z, info = lapack.dposv(M.T, np.where(free, -q, 0.0), overwrite_a=True, overwrite_b=True)
    return None if info else z
