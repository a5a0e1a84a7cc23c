"""The several-contact normal solve's solvers (ivp-contacts 5.5): Gauss
elimination, and the complementarity problem x >= 0, w = A x - b >= 0,
x_i w_i = 0 (IVP_Linear_Constraint_Solver::init_and_solve_lc) by principal
pivoting in IVP's order, which decides who carries the load of a statically
indeterminate set, so it is kept literally. The active sub-system is solved
afresh at each step (IVP updates a factorisation); IVP's test every 7 steps
is kept, and a failed test, too long a step or too many zero steps restart
the solve from the active set turned by one place (5.5's permutation)."""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from .constants import GAUSS_MATRIX_EPS, LCP_MAX_STEP_LEN, LCP_MAX_STEPS, LCP_SOLVER_EPS, LCP_TEST_EPS, LCP_TEST_EVERY

UNPROCESSED = 0
ACTIVE = 1
INACTIVE = 2


def solve_lcp(A, b, k: int):
    """5.5's LCP for a symmetric A (normalised) and desired speeds b, the
    first ``k`` variables active at the start: x, or None on failure."""
    ok, x = lcp_k(np.ascontiguousarray(A, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64), k)
    return x if ok else None


@kernel
def _pivot_to(M, r, c, j0, eps) -> bool:
    """5.5's pivot of column c at or below row r (the largest |element|, a
    NaN first), swapped into row r from column j0 on; False when it is below
    eps (the column is skipped)."""
    n = M.shape[0]
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
        return False
    if p != r:
        for j in range(j0, M.shape[1]):
            t = M[r, j]
            M[r, j] = M[p, j]
            M[p, j] = t
    return True


@kernel
def _zero_rows_hold(M, r) -> bool:
    """5.5: the rows from r on (no pivot left) hold only if their right side
    (the last column) is below 1e-6."""
    n = M.shape[0]
    for k in range(r, n):
        if abs(M[k, M.shape[1] - 1]) >= 1e-6:
            return False
    return True


@kernel
def gauss_solve_k(A, b, eps):
    """5.5's Gauss elimination with column pivoting (the several-contact
    solve's first try, on the active set): (True, x), or (False, zeros) when a zero row keeps a right side of 1e-6 or more."""
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
        if not _pivot_to(M, r, c, 0, eps):
            continue
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
    if not _zero_rows_hold(M, r):
        return False, x
    for c in range(n):
        if row_of_col[c] >= 0:
            x[c] = M[row_of_col[c], n]
    return True, x


@kernel
def _active_solve(A, order, na, rhs):
    """A_aa y = rhs (rhs per active, in ``order``): 5.5's Gauss (the same
    pivots, skipped columns and zero-row test) as elimination below the
    pivots and back substitution, a third of Gauss-Jordan's work."""
    M = np.empty((na, na + 1))
    for p in range(na):
        for q in range(na):
            M[p, q] = A[order[p], order[q]]
        M[p, na] = rhs[p]
    col_of_row = np.empty(na, dtype=np.int64)
    r = 0
    for c in range(na):
        if r >= na:
            break
        if not _pivot_to(M, r, c, c, GAUSS_MATRIX_EPS):
            continue
        piv = M[r, c]
        for k in range(r + 1, na):
            f = M[k, c] / piv
            if f != 0.0:
                for j in range(c, na + 1):
                    M[k, j] = M[k, j] - f * M[r, j]
        col_of_row[r] = c
        r += 1
    y = np.zeros(na)
    if not _zero_rows_hold(M, r):
        return False, y
    for k in range(r - 1, -1, -1):
        c = col_of_row[k]
        s = M[k, na]
        for j in range(c + 1, na):
            s -= M[k, j] * y[j]
        y[c] = s / M[k, c]
    return True, y


@kernel
def _refactorise(A, b, x, w, state, order, na):
    """x of the actives from A_aa x_a = b_a - (A x)_a over the others' x, and
    w = A x - b (0 on the actives); False when the sub-system fails."""
    n = b.shape[0]
    rhs = np.empty(na)
    for p in range(na):
        i = order[p]
        s = b[i]
        for m in range(n):
            if state[m] != ACTIVE and x[m] != 0.0:
                s -= A[i, m] * x[m]
        rhs[p] = s
    ok, y = _active_solve(A, order, na, rhs)
    if not ok:
        return False
    for p in range(na):
        x[order[p]] = y[p]
    _speeds(A, b, x, w, state)
    return True


@kernel
def _speeds(A, b, x, w, state):
    """w = A x - b, held at 0 on the actives."""
    n = b.shape[0]
    for i in range(n):
        if state[i] == ACTIVE:
            w[i] = 0.0
        else:
            s = 0.0
            for m in range(n):
                if x[m] != 0.0:
                    s += A[i, m] * x[m]
            w[i] = s - b[i]


@kernel
def _residual_ok(A, b, x, w, state) -> bool:
    """The every-7-steps test: |A x - b| <= 1e-4 on the actives and w equal
    to A x - b (within 1e-4) on the others."""
    n = b.shape[0]
    for i in range(n):
        s = 0.0
        for m in range(n):
            if x[m] != 0.0:
                s += A[i, m] * x[m]
        r = s - b[i]
        if state[i] == ACTIVE:
            if abs(r) > LCP_TEST_EPS:
                return False
        elif abs(r - w[i]) > LCP_TEST_EPS:
            return False
    return True


@kernel
def _deactivate(state, order, na, i):
    """Active i leaves the active order (the others keep theirs); the new count."""
    q = 0
    for p in range(na):
        if order[p] != i:
            order[q] = order[p]
            q += 1
    state[i] = INACTIVE
    return q


@kernel
def _drop_small(x, state, order, na):
    """The actives whose x fell below the solver's zero become inactive (x = 0)."""
    p = 0
    while p < na:
        i = order[p]
        if x[i] < LCP_SOLVER_EPS:
            x[i] = 0.0
            na = _deactivate(state, order, na, i)
        else:
            p += 1
    return na


@kernel
def _activate(w, state, order, na, i):
    state[i] = ACTIVE
    w[i] = 0.0
    order[na] = i
    return na + 1


@kernel
def lcp_k(A, b, k):
    """5.5's LCP: (True, x) or (False, x) when it fails."""
    n = b.shape[0]
    x = np.zeros(n)
    w = -b
    state = np.zeros(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    na = k
    for p in range(k):
        order[p] = p
    # the start: the first k active, a negative one dropped (to be processed) until none is
    while na > 0:
        rhs = np.empty(na)
        for p in range(na):
            rhs[p] = b[order[p]]
        ok, y = _active_solve(A, order, na, rhs)
        if not ok:
            na = 0
            break
        neg = -1
        for p in range(na):
            if y[p] < 0.0:
                neg = p
                break
        if neg < 0:
            for p in range(na):
                x[order[p]] = y[p]
            break
        for p in range(neg, na - 1):
            order[p] = order[p + 1]
        na -= 1
    for p in range(na):
        state[order[p]] = ACTIVE
    _speeds(A, b, x, w, state)
    steps = 0
    zero_steps = 0
    dx = np.zeros(n)
    dw = np.zeros(n)
    while True:
        j = -1
        for i in range(n):
            if state[i] == UNPROCESSED:
                j = i
                break
        if j < 0:
            return True, x
        if abs(w[j]) < LCP_SOLVER_EPS:
            if abs(x[j]) < LCP_SOLVER_EPS:
                state[j] = INACTIVE
            else:
                na = _activate(w, state, order, na, j)
            continue
        if w[j] > 0.0:
            state[j] = INACTIVE
            continue
        if steps >= LCP_MAX_STEPS:
            return False, x
        steps += 1
        # the direction: x_j up by 1, the actives keeping w at 0
        col = np.empty(na)
        for p in range(na):
            col[p] = A[order[p], j]
        ok, d = _active_solve(A, order, na, col)
        if not ok:
            return False, x
        for i in range(n):
            dx[i] = 0.0
        dx[j] = 1.0
        for p in range(na):
            dx[order[p]] = -d[p]
        for i in range(n):
            if state[i] == ACTIVE:
                dw[i] = 0.0
            else:
                s = A[i, j]
                for p in range(na):
                    s += A[i, order[p]] * dx[order[p]]
                dw[i] = s
        step = np.inf
        limit = -1
        if -w[j] < LCP_MAX_STEP_LEN * dw[j]:
            step = -w[j] / dw[j]
            limit = j
        at_once = False
        for p in range(na):
            i = order[p]
            if dx[i] < -LCP_SOLVER_EPS:
                s = -x[i] / dx[i]
                if abs(s) < LCP_SOLVER_EPS and x[i] < LCP_SOLVER_EPS:
                    step = s
                    limit = i
                    at_once = True
                    break
                if s < step + LCP_SOLVER_EPS:
                    step = s
                    limit = i
        if not at_once:
            for i in range(n):
                if state[i] == INACTIVE and dw[i] < -LCP_SOLVER_EPS:
                    s = -w[i] / dw[i]
                    if s < step - LCP_SOLVER_EPS:
                        step = s
                        limit = i
        if limit < 0:
            return False, x
        if step < LCP_SOLVER_EPS:
            zero_steps += 1
        else:
            zero_steps = 0
        if step > LCP_MAX_STEP_LEN or zero_steps > n // 2 + 2:
            zero_steps = 0
            if not _restart(A, b, x, w, state, order, na):
                return False, x
            continue
        for i in range(n):
            x[i] += step * dx[i]
            w[i] += step * dw[i]
            if state[i] == INACTIVE and w[i] < 0.0:
                w[i] = 0.0
            elif state[i] == ACTIVE and x[i] < 0.0:
                x[i] = 0.0
        if state[limit] == ACTIVE:
            x[limit] = 0.0
            na = _deactivate(state, order, na, limit)
        else:
            if step > LCP_SOLVER_EPS:
                na = _drop_small(x, state, order, na)
            na = _activate(w, state, order, na, limit)
        if steps % LCP_TEST_EVERY == 0 and not _residual_ok(A, b, x, w, state):
            if not _restart(A, b, x, w, state, order, na):
                return False, x


@kernel
def _restart(A, b, x, w, state, order, na):
    """Solve again from the active set, its order turned by one place."""
    if na > 1:
        first = order[0]
        for p in range(na - 1):
            order[p] = order[p + 1]
        order[na - 1] = first
    return _refactorise(A, b, x, w, state, order, na)
