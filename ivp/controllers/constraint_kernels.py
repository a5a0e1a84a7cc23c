"""Spec 12.5-12.6: the constraint solver's compiled passes: one
constraint's rows, error and response (solve_step), a run of constraints in
order (solve_run_k) and on the body table's rows (solve_rows_k), and a
joint unit's PSI on those rows (unit_psi_k).
constraint.py holds the templates and controllers that call them."""

from __future__ import annotations

import math

import numpy as np

from .. import umath
from ..fp import hexf32
from ..jit import kernel
from ..kmath import (f32_k, f32v_k, mat_mul_point_k, matrix_to_quat_k, push_core_k, rot_mul_k, rot_mul_v_k,
                     rot_push_core_cs_k, rot_t_mul_v_k, rot_transpose_k, surface_speed_k, vcross, vsub)
from ..step.kernels import gravity_rows_k, unit_calm_k, unit_head_k
from ..state.layout import INV_I, INV_M, M_POS, M_R, ROT_SPEED, SPEED

ROT_ERR_C3_F = hexf32("3e75c28f")              # 0.24f (12.6)
ROT_ERR_C5_F = hexf32("3f147ae1")              # 0.58f (12.6)
AXIS_FREE = 0
AXIS_FIXED = 1
AXIS_LIMITED = 2
AXIS_ACTIVE = 1                                # bit 0 of a runtime axis type (12.5)
ZERO3 = (0.0, 0.0, 0.0)
IDENTITY_R = umath.IDENTITY_R


@kernel
def solve_rows_k(S, slots, fixed, IR, IA, RR, RA, NL, RO, AR, AA, TY, LO, HI, F, dt, i_dt, eps):
    """A ConstraintRun's 12.6 solves in order (solve_run_k) on the body
    table S: the run's cores' states gathered from their rows (``slots``;
    a fixed core's, slot -1, from ``fixed``), the pushed speeds written
    back into the rows."""
    R = fixed.copy()
    m = slots.shape[0]
    for i in range(m):
        k = slots[i]
        if k >= 0:
            for j in range(9):
                R[i, j] = S[k, M_R + j]
            for j in range(3):
                R[i, 9 + j] = S[k, M_POS + j]
                R[i, 12 + j] = S[k, SPEED + j]
                R[i, 15 + j] = S[k, ROT_SPEED + j]
                R[i, 18 + j] = S[k, INV_I + j]
            R[i, 21] = S[k, INV_M]
            R[i, 22] = 1.0
    pushed = np.zeros(m, dtype=np.bool_)
    solve_run_k(IR, IA, R, RR, RA, NL, RO, AR, AA, TY, LO, HI, F, dt, i_dt, eps, pushed)
    for i in range(m):
        k = slots[i]
        if pushed[i] and k >= 0:
            for j in range(3):
                S[k, SPEED + j] = R[i, 12 + j]
                S[k, ROT_SPEED + j] = R[i, 15 + j]


@kernel
def unit_psi_k(S, rows, slots, fixed, flags, t, valve, countdown, seed, gx, gy, gz, fct, IR, IA, RR, RA, NL, RO,
               AR, AA, TY, LO, HI, F, dt, i_dt, eps):
    """do_sim_unit_PSI (6.3) of a unit of joints on lane rows: each core's
    begin of the PSI (step.kernels.begin_row, last core first), the flags and
    count-down (step.kernels.unit_flags), gravity (step.kernels.gravity_row), the run's solve
    (:func:`solve_rows_k`), and at a sleep test each core's calm state
    (10.2). Returns (all calm, count-down, seed)."""
    test_sleep, countdown, seed = unit_head_k(S, rows, flags, t, valve, countdown, seed)
    gravity_rows_k(S, rows, gx, gy, gz)
    solve_rows_k(S, slots, fixed, IR, IA, RR, RA, NL, RO, AR, AA, TY, LO, HI, F, dt, i_dt, eps)
    calm = test_sleep and unit_calm_k(S, rows, t, fct)
    return calm, countdown, seed


@kernel
def _row_state(S, i):
    """_side_state of a run's core row i (columns: R, position, speed,
    rotation speed, inverse inertia, inverse mass, moving), or of no core (i < 0)."""
    if i < 0:
        return (False, IDENTITY_R, ZERO3, ZERO3, ZERO3, ZERO3, 0.0)
    R = (S[i, 0], S[i, 1], S[i, 2], S[i, 3], S[i, 4], S[i, 5], S[i, 6], S[i, 7], S[i, 8])
    return (S[i, 22] != 0.0, R, (S[i, 9], S[i, 10], S[i, 11]), (S[i, 12], S[i, 13], S[i, 14]),
            (S[i, 15], S[i, 16], S[i, 17]), (S[i, 18], S[i, 19], S[i, 20]), S[i, 21])


@kernel
def _put_speeds(S, i, v, w, pushed):
    for k in range(3):
        S[i, 12 + k] = v[k]
        S[i, 15 + k] = w[k]
    pushed[i] = True


@kernel
def solve_run_k(IR, IA, S, RR, RA, NL, RO, AR, AA, TY, LO, HI, F, dt, i_dt, eps, pushed):
    """ConstraintRun's pass: for each constraint k in order, solve_step on
    its cores' rows of S (IR / IA, -1: no core) with its frames, anchors,
    axis types, borders and factors (F: damp, force, limit); a solved
    constraint's speeds into the rows of its moving cores (``pushed``)."""
    for k in range(IR.shape[0]):
        r = IR[k]
        a = IA[k]
        move_r, R_r, pos_r, v_r, w_r, ii_r, im_r = _row_state(S, r)
        move_a, R_a, pos_a, v_a, w_a, ii_a, im_a = _row_state(S, a)
        rr = (RR[k, 0], RR[k, 1], RR[k, 2], RR[k, 3], RR[k, 4], RR[k, 5], RR[k, 6], RR[k, 7], RR[k, 8])
        ra = (RA[k, 0], RA[k, 1], RA[k, 2], RA[k, 3], RA[k, 4], RA[k, 5], RA[k, 6], RA[k, 7], RA[k, 8])
        state, lam, cs_a, v_r, w_r, v_a, w_a = solve_step(
            move_r, R_r, pos_r, v_r, w_r, ii_r, im_r, move_a, R_a, pos_a, v_a, w_a, ii_a, im_a, rr, ra, NL[k],
            (RO[k, 0], RO[k, 1], RO[k, 2]), (AR[k, 0], AR[k, 1], AR[k, 2]), (AA[k, 0], AA[k, 1], AA[k, 2]),
            TY[k], LO[k], HI[k], dt, F[k, 0], F[k, 1], i_dt, F[k, 2], eps, True)
        if state != SOLVED:
            continue
        if move_r:
            _put_speeds(S, r, v_r, w_r, pushed)
        if move_a:
            _put_speeds(S, a, v_a, w_a, pushed)


@kernel
def angular_error(cs_a, r_acs, n, rot_order):
    """Spec 12.6: the rotation of A's constraint frame in R's (Rcs_f_Acs =
    CsA . m_acs_f_acore^T), by the number n of locked rotation axes in
    rot_order (fixed, then limited, then free)."""
    if n == 0:
        return (0.0, 0.0, 0.0)
    Q = rot_mul_k(cs_a, rot_transpose_k(r_acs))
    if n == 3:
        return _quat_error(matrix_to_quat_k(Q))
    o0, o1, o2 = rot_order
    e = np.zeros(3)
    if n == 2:
        # A's free axis in Rcs. Beyond the spec: the sign s makes the formula
        # right for an odd axis order too (Ballance only has (0, 1, 2)).
        b = (Q[o2], Q[3 + o2], Q[6 + o2])
        even = (o0 == 0 and o1 == 1) or (o0 == 1 and o1 == 2) or (o0 == 2 and o1 == 0)
        s = 1.0 if even else -1.0
        e[o0] = -s * math.atan2(b[o1], b[o2])
        e[o1] = s * math.atan2(b[o0], b[o2])
        return (e[0], e[1], e[2])
    # n == 1, beyond the spec (outlined only): the twist of A about the one
    # locked axis, from the relative quaternion.
    q = matrix_to_quat_k(Q)
    if q[3] < 0.0:
        q = (-q[0], -q[1], -q[2], -q[3])
    e[o0] = 2.0 * math.atan2(q[o0], q[3])
    return (e[0], e[1], e[2])


@kernel
def _constraint_rows(move_r, R_r, pos_r, v_r, w_r, ii_r, im_r, move_a, R_a, pos_a, v_a, w_a, ii_a, im_a,
                     rr, r_acs, n_locked, rot_order, anchor_r, anchor_a, types, low, high,
                     dt, damp_factor, force_factor, i_dt, lf):
    """Spec 12.6 up to the solve: the errors and relative velocities of the
    six axes in R's constraint frame, the desired change on each active axis
    (limits switched on and off by the predicted error; ``types`` keeps the
    switch), and the response matrix of the active axes. Returns (active axes,
    rhs, M, CsA)."""
    cs_w = rot_mul_k(rr, rot_transpose_k(R_r))                  # Rcs_f_world
    cs_a = rot_mul_k(cs_w, R_a)                                 # Rcs_f_Acore
    e_rot = angular_error(cs_a, r_acs, n_locked, rot_order)
    p_r = mat_mul_point_k((R_r, pos_r), anchor_r)
    p_a = mat_mul_point_k((R_a, pos_a), anchor_a)
    zero = (0.0, 0.0, 0.0)
    s_r = surface_speed_k(R_r, v_r, w_r, anchor_r) if move_r else zero
    s_a = surface_speed_k(R_a, v_a, w_a, anchor_a) if move_a else zero
    err = rot_mul_v_k(cs_w, vsub(p_a, p_r))
    relv = vsub(rot_mul_v_k(cs_w, s_a), rot_mul_v_k(cs_w, s_r))
    relw = vsub(rot_mul_v_k(cs_a, w_a) if move_a else zero, rot_mul_v_k(rr, w_r) if move_r else zero)
    err6 = (err[0], err[1], err[2], e_rot[0], e_rot[1], e_rot[2])
    rel6 = (relv[0], relv[1], relv[2], relw[0], relw[1], relw[2])
    k = dt * damp_factor
    g = -force_factor * i_dt
    rhs = np.empty(6)
    active = np.empty(6, dtype=np.int64)
    n = 0
    for i in range(6):
        b = err6[i] + k * rel6[i]
        t = types[i]
        if t & AXIS_LIMITED:
            if b < low[i]:
                t |= AXIS_ACTIVE
                b = dt * rel6[i] + (err6[i] - low[i]) * lf
            elif b > high[i]:
                t |= AXIS_ACTIVE
                b = dt * rel6[i] + (err6[i] - high[i]) * lf
            else:
                t &= ~AXIS_ACTIVE
            types[i] = t
        if t & AXIS_ACTIVE:
            rhs[n] = f32_k(b) * g
            active[n] = i
            n += 1
    M = response_matrix(active[:n], move_r, anchor_r, ii_r, im_r, R_r, rr, move_a, anchor_a, ii_a, im_a, R_a,
                         cs_a, cs_w)
    return active[:n], rhs[:n], M, cs_a


NOTHING_ACTIVE = 0
SOLVE_FAILED = 1
SOLVED = 2


@kernel
def solve_step(move_r, R_r, pos_r, v_r, w_r, ii_r, im_r, move_a, R_a, pos_a, v_a, w_a, ii_a, im_a,
                rr, r_acs, n_locked, rot_order, anchor_r, anchor_a, types, low, high,
                dt, damp_factor, force_factor, i_dt, lf, eps, push):
    """Spec 12.6 in one pass: :func:`_constraint_rows`, :func:`_lin_solve`, the
    impulses of the six axes (lam: the active ones' solution, 0 on the
    others) and, with ``push``, both sides' speeds after them (else their
    speeds unchanged). Returns (NOTHING_ACTIVE, SOLVE_FAILED or SOLVED, lam,
    CsA, R's speed and rotation speed, A's)."""
    active, rhs, M, cs_a = _constraint_rows(move_r, R_r, pos_r, v_r, w_r, ii_r, im_r, move_a, R_a, pos_a,
                                            v_a, w_a, ii_a, im_a, rr, r_acs, n_locked, rot_order,
                                            anchor_r, anchor_a, types, low, high, dt, damp_factor,
                                            force_factor, i_dt, lf)
    lam = np.zeros(6)
    if active.shape[0] == 0:
        return NOTHING_ACTIVE, lam, cs_a, v_r, w_r, v_a, w_a
    ok, x = _lin_solve(M, rhs, eps)
    if not ok:
        return SOLVE_FAILED, lam, cs_a, v_r, w_r, v_a, w_a
    for k in range(active.shape[0]):
        lam[active[k]] = x[k]
    if push:
        if move_r:
            v_r, w_r = push_side(v_r, w_r, ii_r, im_r, anchor_r, rr, R_r, lam, 1.0)
        if move_a:
            v_a, w_a = push_side(v_a, w_a, ii_a, im_a, anchor_a, cs_a, R_a, lam, -1.0)
    return SOLVED, lam, cs_a, v_r, w_r, v_a, w_a


@kernel
def push_side(speed, rot_speed, ii, im, anchor, cs_f_core, R_world, lam, sign):
    """Spec 12.6's impulses on one side: sign lam_t at the anchor and sign
    lam_r about it, from Rcs to core axes by cs_f_core (+0x70 for R, CsA for
    A). Returns the new (speed, rot_speed)."""
    lt = (sign * lam[0], sign * lam[1], sign * lam[2])
    lr = (sign * lam[3], sign * lam[4], sign * lam[5])
    imp = f32v_k(rot_t_mul_v_k(cs_f_core, lt))
    speed, rot_speed = push_core_k(speed, rot_speed, ii, im, anchor, imp, f32v_k(rot_mul_v_k(R_world, imp)))
    return speed, rot_push_core_cs_k(rot_speed, ii, f32v_k(rot_t_mul_v_k(cs_f_core, lr)))


@kernel
def _side_response(anchor, ii, im, rw, a, sign, cs_f_core, cs_w):
    """Spec 12.6, one body's part of a response column: the test impulse
    sign e_a at the anchor (translation axis a < 3: 0x1000ca80 then 0x1000bf90)
    or about it (rotation: 0x1000cb20 with k = 1, speed dw x anchor), as the
    anchor's velocity change and the rotation-speed change in Rcs.
    cs_f_core is +0x70 for R and CsA for A; rw the core's world rotation."""
    k = a % 3
    se = (sign * (1.0 if k == 0 else 0.0), sign * (1.0 if k == 1 else 0.0), sign * (1.0 if k == 2 else 0.0))
    d_core = f32v_k(rot_t_mul_v_k(cs_f_core, se))
    if a < 3:
        imp_ws = f32v_k(rot_t_mul_v_k(cs_w, se))
        c = f32v_k(vcross(anchor, d_core))
        dw = (f32_k(ii[0] * c[0]), f32_k(ii[1] * c[1]), f32_k(ii[2] * c[2]))
        dv = (f32_k(imp_ws[0] * im), f32_k(imp_ws[1] * im), f32_k(imp_ws[2] * im))
        r = rot_mul_v_k(rw, vcross(dw, anchor))
        lin = rot_mul_v_k(cs_w, f32v_k((dv[0] + r[0], dv[1] + r[1], dv[2] + r[2])))
    else:
        dw = f32v_k((ii[0] * d_core[0] * 1.0, ii[1] * d_core[1] * 1.0, ii[2] * d_core[2] * 1.0))
        # quirk kept: A's side is rotated by CsA, R's by +0x70
        lin = rot_mul_v_k(cs_f_core, vcross(dw, anchor))
    return lin, rot_mul_v_k(cs_f_core, dw)


@kernel
def response_matrix(active, has_r, anchor_r, ii_r, im_r, rw_r, rr, has_a, anchor_a, ii_a, im_a, rw_a,
                     cs_a, cs_w):
    """response_matrix's columns: A's part (sign -1, rotated by CsA), minus
    R's (sign +1, by +0x70), rows and columns on the active axes."""
    n = active.shape[0]
    M = np.empty((n, n))
    col = np.zeros(6)
    for c in range(n):
        a = active[c]
        for k in range(6):
            col[k] = 0.0
        if has_a:
            lin, ang = _side_response(anchor_a, ii_a, im_a, rw_a, a, -1.0, cs_a, cs_w)
            for k in range(3):
                col[k] = lin[k]
                col[3 + k] = ang[k]
        if has_r:
            lin, ang = _side_response(anchor_r, ii_r, im_r, rw_r, a, 1.0, rr, cs_w)
            for k in range(3):
                col[k] = col[k] - lin[k]
                col[3 + k] = col[3 + k] - ang[k]
        for r in range(n):
            M[r, c] = col[active[r]]
    return M


@kernel
def _quat_error(q):
    """Spec 12.6, three locked rotations: e_i = 2 q_i + 0.24f q_i^3 + 0.58f q_i^5
    (e.x from (f32)q.x), negated when q.w < 0."""
    e = np.zeros(3)
    for i in range(3):
        qi = f32_k(q[i]) if i == 0 else q[i]
        q3 = qi * qi * qi
        e[i] = 2.0 * qi + ROT_ERR_C3_F * q3 + ROT_ERR_C5_F * q3 * qi * qi
    if q[3] < 0.0:
        return (-e[0], -e[1], -e[2])
    return (e[0], e[1], e[2])


@kernel
def _lin_solve(A, rhs, eps):
    """0x10033e50: Gaussian elimination with the original's pivoting and
    epsilons, on arrays (A and rhs are modified). Returns (solved, x): not
    solved when the system is singular and inconsistent (the caller then
    applies nothing)."""
    n = rhs.shape[0]
    for i in range(n):
        # 0x10033f80: the pivot is the largest |A[r][i]|, r > i scanned from the
        # bottom, that is strictly larger than the diagonal (and than any
        # candidate found before it)
        best = abs(A[i, i])
        pos = -1
        for r in range(n - 1, i, -1):
            h = abs(A[r, i])
            if h > best:
                best = h
                pos = r
        if pos >= 0:
            for c in range(n):
                A[i, c], A[pos, c] = A[pos, c], A[i, c]
            rhs[i], rhs[pos] = rhs[pos], rhs[i]
        pivot = A[i, i]
        if abs(pivot) < eps:
            continue
        inv = -1.0 / pivot
        for j in range(i + 1, n):
            f = A[j, i]
            if abs(f) > eps:
                f *= inv
                for c in range(i, n):
                    A[j, c] += f * A[i, c]
                rhs[j] += f * rhs[i]
    # 0x10034030: back substitution
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = rhs[i]
        for k in range(i + 1, n):
            s -= A[i, k] * x[k]
        if abs(A[i, i]) >= eps:
            x[i] = s / A[i, i]
        elif abs(s) < eps * 1000.0:
            x[i] = 0.0
        else:
            return False, x
    return True, x
