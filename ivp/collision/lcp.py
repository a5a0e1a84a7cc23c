"""The several-contact normal solve's solvers (ivp-contacts 5.5): Gauss
elimination, and the complementarity problem x >= 0, w = A x - b >= 0,
x_i w_i = 0 (IVP_Linear_Constraint_Solver::init_and_solve_lc) by principal
pivoting in IVP's order, which decides who carries the load of a statically
indeterminate set, so it is kept literally. The active sub-system's
elimination is kept from step to step and updated as the active set
changes, as IVP updates its factorisation, with the numbers of one made
afresh (a joining row is eliminated by the kept steps; the columns from
the first step it or a leaving row would change are made again). IVP's
test every 7 steps is kept, and a failed test, too long a step or too many
zero steps restart the solve from the active set turned by one place (5.5's
permutation)."""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from .constants import GAUSS_MATRIX_EPS, LCP_MAX_STEP_LEN, LCP_MAX_STEPS, LCP_SOLVER_EPS, LCP_TEST_EPS, LCP_TEST_EVERY

UNPROCESSED = 0
ACTIVE = 1
INACTIVE = 2
PIV, SWAP, COL = 0, 1, 2        # the factorisation's rows of K
SIZE, RANK, DONE = 0, 1, 2      # fac: places in it, steps, columns kept
ONE = np.uint64(1)


def solve_lcp(A, b, k: int):
    """5.5's LCP for a symmetric A (normalised) and desired speeds b, the
    first ``k`` variables active at the start: x, or None on failure."""
    ok, x = lcp_k(np.ascontiguousarray(A, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64), k)
    return x if ok else None


@kernel
def _pivot_row(M, r, c, n):
    """5.5's pivot of column c among rows r to n - 1: the first with the
    largest |element|, a NaN first."""
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
    return p


@kernel
def _pivot_to(M, r, c, j0, eps) -> bool:
    """5.5's pivot of column c at or below row r swapped into row r from
    column j0 on; False when it is below eps (the column is skipped)."""
    p = _pivot_row(M, r, c, M.shape[0])
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
def _eliminate(LU, K, fac, c, na):
    """Column c's step of 5.5's Gauss on A_aa's first na rows and columns in
    LU: the pivot (at or below the rank's row) swapped up, the rows below
    it eliminated, their multipliers kept in column c; a column whose pivot
    is below GAUSS_MATRIX_EPS skipped. K[PIV, c] the pivot's row (-1:
    skipped), K[SWAP, r] the row swapped with row r, K[COL, r] its column."""
    r = fac[RANK]
    K[PIV, c] = -1
    p = _pivot_row(LU, r, c, na)
    if abs(LU[p, c]) < GAUSS_MATRIX_EPS:
        return
    K[PIV, c] = r
    K[SWAP, r] = p
    K[COL, r] = c
    _row_ops(LU, K, c, c, na, True)
    fac[RANK] = r + 1


@kernel
def _row_ops(LU, K, c, j0, na, new):
    """Column c's step on LU's columns j0 to na - 1: rows K[PIV, c] and
    K[SWAP, that row] swapped, each row below less its multiplier (made and
    kept in column c when ``new``, else the kept one) times the pivot row.
    Unsigned indices: numba then drops its negative-index wrap from the
    loops (2.5 times faster)."""
    r = np.uint64(K[PIV, c])
    p = np.uint64(K[SWAP, K[PIV, c]])
    cu = np.uint64(c)
    n = np.uint64(na)
    for j in range(np.uint64(j0), n):
        t = LU[r, j]
        LU[r, j] = LU[p, j]
        LU[p, j] = t
    piv = LU[r, cu]
    js = max(np.uint64(j0), cu + ONE)
    for k in range(r + ONE, n):
        f = LU[k, cu]
        if new:
            f = f / piv
            LU[k, cu] = f
        if f != 0.0:
            for j in range(js, n):
                LU[k, j] = LU[k, j] - f * LU[r, j]


@kernel
def _add_row(A, order, LU, K, fac):
    """The next active (order[m], m = fac[SIZE]) joins the factorisation:
    its row eliminated by the steps of the kept columns (fac[DONE]), the
    same numbers as made afresh, up to the first column whose pivot it would
    have been (the kept columns end there)."""
    m = fac[SIZE]
    i = order[m]
    done = fac[DONE]
    row = np.empty(done)
    for q in range(done):
        row[q] = A[i, order[q]]
    for c in range(done):
        v = row[c]
        r = K[PIV, c]
        if r < 0:
            if not abs(v) < GAUSS_MATRIX_EPS:
                done = c
                break
            continue
        if not abs(v) <= abs(LU[r, c]):
            done = c
            break
        f = v / LU[r, c]
        row[c] = f
        if f != 0.0:
            for j in range(np.uint64(c) + ONE, np.uint64(fac[DONE])):
                row[j] = row[j] - f * LU[r, j]
    for q in range(done):
        LU[m, q] = row[q]
    fac[DONE] = done
    fac[SIZE] = m + 1


@kernel
def _factorised(A, order, na, LU, K, fac):
    """LU of the first na actives (5.5's Gauss on A_aa, kept and updated as
    IVP updates its factorisation): the rows added since joined, then the
    columns from the kept ones on made again from A through the kept steps
    and eliminated; the same numbers as made afresh."""
    while fac[SIZE] < na:
        _add_row(A, order, LU, K, fac)
    c0 = fac[DONE]
    if c0 == na:
        return
    for p in range(na):
        for q in range(np.uint64(c0), np.uint64(na)):
            LU[p, q] = A[np.uint64(order[p]), np.uint64(order[q])]
    fac[RANK] = 0
    for c in range(c0):
        if K[PIV, c] >= 0:
            fac[RANK] = K[PIV, c] + 1
            _row_ops(LU, K, c, c0, na, False)
    for c in range(c0, na):
        _eliminate(LU, K, fac, c, na)
    fac[DONE] = na


@kernel
def _forget(LU, K, fac, p):
    """Active place p (below fac[SIZE]) leaves the order: its row leaves
    the factorisation, which keeps the columns before p up to the first
    step that moved that row."""
    m = fac[SIZE]
    done = min(p, fac[DONE])
    steps = 0
    for c in range(done):
        r = K[PIV, c]
        if r >= 0:
            if K[SWAP, r] == p:
                done = c
                break
            steps += 1
    for q in range(p, m - 1):
        for c in range(done):
            LU[q, c] = LU[q + 1, c]
    for r in range(steps):
        if K[SWAP, r] > p:
            K[SWAP, r] -= 1
    fac[RANK] = steps
    fac[DONE] = done
    fac[SIZE] = m - 1


@kernel
def _solve(LU, K, fac, rhs):
    """A_aa y = rhs with the factorisation: 5.5's Gauss, same pivots, skipped
    columns and zero-row test, as elimination (each kept step's swap and
    multipliers) and back substitution."""
    na = fac[SIZE]
    v = rhs.copy()
    for c in range(na):
        if K[PIV, c] < 0:
            continue
        r = np.uint64(K[PIV, c])
        p = np.uint64(K[SWAP, K[PIV, c]])
        t = v[r]
        v[r] = v[p]
        v[p] = t
        for k in range(r + ONE, np.uint64(na)):
            f = LU[k, np.uint64(c)]
            if f != 0.0:
                v[k] = v[k] - f * v[r]
    y = np.zeros(na)
    for k in range(fac[RANK], na):
        if abs(v[k]) >= 1e-6:
            return False, y
    for k in range(fac[RANK] - 1, -1, -1):
        c = np.uint64(K[COL, k])
        s = v[k]
        for j in range(c + ONE, np.uint64(na)):
            s -= LU[k, j] * y[j]
        y[c] = s / LU[k, c]
    return True, y


@kernel
def _refactorise(A, b, x, w, state, order, na, LU, K, fac):
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
    _factorised(A, order, na, LU, K, fac)
    ok, y = _solve(LU, K, fac, rhs)
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
def _remove_at(order, na, p, LU, K, fac):
    """Active place p leaves the order (the others keep theirs); the new count."""
    if p < fac[SIZE]:
        _forget(LU, K, fac, p)
    for q in range(p, na - 1):
        order[q] = order[q + 1]
    return na - 1


@kernel
def _deactivate(state, order, na, i, LU, K, fac):
    """Active i becomes inactive; the new count."""
    state[i] = INACTIVE
    for p in range(na):
        if order[p] == i:
            return _remove_at(order, na, p, LU, K, fac)
    return na


@kernel
def _drop_small(x, state, order, na, LU, K, fac):
    """The actives whose x fell below the solver's zero become inactive (x = 0)."""
    p = 0
    while p < na:
        i = order[p]
        if x[i] < LCP_SOLVER_EPS:
            x[i] = 0.0
            state[i] = INACTIVE
            na = _remove_at(order, na, p, LU, K, fac)
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
    LU = np.empty((n, n))
    K = np.empty((3, n), dtype=np.int64)
    fac = np.zeros(3, dtype=np.int64)
    # the start: the first k active, a negative one dropped (to be processed) until none is
    while na > 0:
        rhs = np.empty(na)
        for p in range(na):
            rhs[p] = b[order[p]]
        _factorised(A, order, na, LU, K, fac)
        ok, y = _solve(LU, K, fac, rhs)
        if not ok:
            na = 0
            fac[:] = 0
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
        na = _remove_at(order, na, neg, LU, K, fac)
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
        _factorised(A, order, na, LU, K, fac)
        ok, d = _solve(LU, K, fac, col)
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
            if not _restart(A, b, x, w, state, order, na, LU, K, fac):
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
            na = _deactivate(state, order, na, limit, LU, K, fac)
        else:
            if step > LCP_SOLVER_EPS:
                na = _drop_small(x, state, order, na, LU, K, fac)
            na = _activate(w, state, order, na, limit)
        if steps % LCP_TEST_EVERY == 0 and not _residual_ok(A, b, x, w, state):
            if not _restart(A, b, x, w, state, order, na, LU, K, fac):
                return False, x


@kernel
def _restart(A, b, x, w, state, order, na, LU, K, fac):
    """Solve again from the active set, its order turned by one place."""
    if na > 1:
        fac[DONE] = 0
        first = order[0]
        for p in range(na - 1):
            order[p] = order[p + 1]
        order[na - 1] = first
    return _refactorise(A, b, x, w, state, order, na, LU, K, fac)
