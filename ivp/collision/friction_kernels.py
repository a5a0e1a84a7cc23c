"""Compiled pieces of the friction system (ivp-contacts 5), shared by its
object path (friction.py), its passes (friction_passes.py) and the unit pass
(ivp.step.kernels.run_units_k: a ball's one resting contact point on its
rows, :func:`point_update_row` and :func:`point_friction_row`)."""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from ..kmath import f32_k, push_core_k, rot_mul_v_k, rot_t_mul_v_k, vcross, vdot, vsub
from .constants import (DESCENDING_SPEEDUP, ENERGY_GAIN_ALLOWANCE, FRICTION_DIST, GAUSS_MATRIX_EPS, INEQUALITY_EPS,
                        MAX_ADHESION_GAUSS, MAX_DISTANCE_FOR_FRICTION, MAX_ENERGY_DESTROY, MUTUAL_FIXED_FACTOR,
                        NEGATIVE_PULL_LIMIT, NORMAL_SPEEDUP, P_FLOAT_RES)
from ..state.layout import (BROKEN, FRESH, GAP, IMPACTS, INV_I, INV_M, INV_VM, INV_VM_NO_DIR, LAST_GAP, LAST_N,
                            LAST_TIME, M_POS, M_R, MU, NO_LAST_N, NORMAL, POINT, PRESSURE, R_CS, R_CS1, RECHECK,
                            ROT_SPEED, RXN, RXN1, SIDE1, SPAN, SPEED, T0, T1, X0, X1)
from .feature_kernels import edge_edge, point_edge, point_face, point_point, unit_k, vert
from .lcp import gauss_solve_k, lcp_k

BALL_SIDE = 3                  # a side's kind code for a ball (0 P, 1 K, 2 F as the feature kernels)


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
def _pair_geometry_k(kind0, d0, kind1, d1, check):
    """features.pair_geometry on packed sides (kinds 0 P, 1 K, 2 F, 3 ball; d
    four points: F a, b, c and its outward normal, K its ends, P / ball the
    point): (gap known, gap, n, p, t0, broken). Parallel edges: gap unknown."""
    if kind1 == 2:
        gap, n, p, t0, broken = point_face(d0[0], d1[0], d1[1], d1[2], d1[3], check)
        return True, gap, n, p, t0, broken
    if kind0 != 1 and kind1 == 1:
        gap, n, p, t0, broken = point_edge(d0[0], d1[0], d1[1], check)
        return True, gap, n, p, t0, broken
    if kind0 != 1:
        gap, n, p, t0, broken = point_point(d0[0], d1[0])
        return True, gap, n, p, t0, broken
    k0 = d0[0]
    k1 = d0[1]
    ok, gap, n_ok, n, pk, sk, sl = edge_edge(k0, k1, d1[0], d1[1])
    if not ok:
        return False, 0.0, (1.0, 0.0, 0.0), k0, (0.0, 1.0, 0.0), True
    broken = check and not (0.0 <= sk <= 1.0 and 0.0 <= sl <= 1.0)
    if not n_ok:                        # touching parallel-ish edges of no length: a fixed normal
        n = (0.0, 1.0, 0.0)
    return True, gap, n, pk, (k1[0] - k0[0], k1[1] - k0[1], k1[2] - k0[2]), broken


@kernel
def _lever(R, pos, v, w, ii, im, p, n):
    """5.3 per movable side: the lever r (core axes, f32), r x n in core axes,
    the surface speed at r and the side's 1/m + (r x n)^2 / I."""
    q = rot_t_mul_v_k(R, (p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]))
    r = (f32_k(q[0]), f32_k(q[1]), f32_k(q[2]))
    c = vcross(r, rot_t_mul_v_k(R, n))
    o = rot_mul_v_k(R, vcross(w, r))
    s = (v[0] + o[0], v[1] + o[1], v[2] + o[2])
    return r, c, s, im + c[0] * c[0] * ii[0] + c[1] * c[1] * ii[1] + c[2] * c[2] * ii[2]


@kernel
def contact_update_k(kind0, d0, kind1, d1, check, flip_test, last_n, x0, x1,
                     mov0, R0, pos0, v0, w0, ii0, im0, mov1, R1, pos1, v1, w1, ii1, im1, span, du):
    """5.3 recalc_friction_s_vals (ContactPoint.update) on packed sides and the
    cores' fields: (gap, n, p, t0, t1, r0, r1, rxn0, rxn1, inv_vm, broken, span).
    ``flip_test``: an edge pair with a previous normal (crossed edges flip it)."""
    known, gap, n, p, t0, broken = _pair_geometry_k(kind0, d0, kind1, d1, check)
    if not known:                       # parallel edges (5.3)
        gap = 0.023
    elif flip_test and n[0] * last_n[0] + n[1] * last_n[1] + n[2] * last_n[2] < 0.0:
        n = (-n[0], -n[1], -n[2])       # the edges crossed: penetration
        gap = -gap
    if x0 != 0.0:
        p = (p[0] + n[0] * x0, p[1] + n[1] * x0, p[2] + n[2] * x0)
    gap = gap - x0 - x1
    gap = f32_k(gap if gap > 0.0 else 0.0)
    k = math.sqrt(vdot(t0, t0))
    t0 = (t0[0] / k, t0[1] / k, t0[2] / k) if k > 0.0 else (1.0, 0.0, 0.0)
    t1 = vcross(n, t0)
    inv_vm = 0.0
    r0 = c0 = s0 = r1 = c1 = s1 = (0.0, 0.0, 0.0)
    if mov0:
        r0, c0, s0, a = _lever(R0, pos0, v0, w0, ii0, im0, p, n)
        inv_vm += a
    if mov1:
        r1, c1, s1, a = _lever(R1, pos1, v1, w1, ii1, im1, p, n)
        inv_vm += a
    sa = span[0]
    sb = span[1]
    if du != 0.0:
        u = (s0[0] - s1[0], s0[1] - s1[1], s0[2] - s1[2])
        sa, sb = f32_k(sa - vdot(u, t0) * du), f32_k(sb - vdot(u, t1) * du)
    return gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, (sa, sb)


@kernel
def _tangent_side(R, pos, p, t0, t1, ii, im, v, w):
    """5.6 per movable side: its terms of K00, K01, K11 and of the speeds
    along t0, t1, with the levers a_i = R^T (rel x t_i), rel = p - pos (f32)."""
    rel = (f32_k(p[0] - pos[0]), f32_k(p[1] - pos[1]), f32_k(p[2] - pos[2]))
    a0 = rot_t_mul_v_k(R, vcross(rel, t0))
    a1 = rot_t_mul_v_k(R, vcross(rel, t1))
    return (ii[0] * a0[0] * a0[0] + ii[1] * a0[1] * a0[1] + ii[2] * a0[2] * a0[2] + im,
            ii[0] * a0[0] * a1[0] + ii[1] * a0[1] * a1[1] + ii[2] * a0[2] * a1[2],
            ii[0] * a1[0] * a1[0] + ii[1] * a1[1] * a1[1] + ii[2] * a1[2] * a1[2] + im,
            vdot(w, a0) + vdot(v, t0), vdot(w, a1) + vdot(v, t1))


@kernel
def _tangent_push(R, v, w, ii, im, r, sign, x0, x1, t0, t1):
    """5.6's push of one side: the impulse sign (x0 t0 + x1 t1), stored f32, at r."""
    imp = (f32_k(sign * (x0 * t0[0] + x1 * t1[0])), f32_k(sign * (x0 * t0[1] + x1 * t1[1])),
           f32_k(sign * (x0 * t0[2] + x1 * t1[2])))
    return push_core_k(v, w, ii, im, r, rot_t_mul_v_k(R, imp), imp)


@kernel
def tangential_k(span, L, N, mu, dt, t0, t1, p, mov0, R0, pos0, v0, w0, ii0, im0,
                 mov1, R1, pos1, v1, w1, ii1, im1, r0, r1):
    """5.6 for one contact point with spring limit L (friction_passes.tangential_pass_k):
    (span, clipped, v0, w0, v1, w1, spring-energy gain)."""
    sa = span[0]
    sb = span[1]
    s2 = sa * sa + sb * sb
    clipped = False
    if s2 > L * L + P_FLOAT_RES:
        s = math.sqrt(s2)
        k = L / s
        sa, sb = f32_k(sa * k), f32_k(sb * k)
        clipped = True
    cap = N * mu * dt
    if cap < P_FLOAT_RES:
        return (sa, sb), clipped, v0, w0, v1, w1, 0.0
    K00 = K01 = K11 = 0.0
    u0 = u1 = 0.0
    if mov0:
        k00, k01, k11, s0, s1 = _tangent_side(R0, pos0, p, t0, t1, ii0, im0, v0, w0)
        K00, K01, K11 = K00 + k00, K01 + k01, K11 + k11
        u0, u1 = u0 + 1.0 * s0, u1 + 1.0 * s1
    if mov1:
        k00, k01, k11, s0, s1 = _tangent_side(R1, pos1, p, t0, t1, ii1, im1, v1, w1)
        K00, K01, K11 = K00 + k00, K01 + k01, K11 + k11
        u0, u1 = u0 + -1.0 * s0, u1 + -1.0 * s1
    ok, x0, x1 = spring_impulse(K00, K01, K11, sa, sb, u0, u1, dt, cap)
    if not ok:
        return (sa, sb), clipped, v0, w0, v1, w1, 0.0
    if mov0:
        v0, w0 = _tangent_push(R0, v0, w0, ii0, im0, r0, 1.0, x0, x1, t0, t1)
    if mov1:
        v1, w1 = _tangent_push(R1, v1, w1, ii1, im1, r1, -1.0, x0, x1, t0, t1)
    return (sa, sb), clipped, v0, w0, v1, w1, 0.5 * math.sqrt((x0 * x0 + x1 * x1) * dt * dt * s2)


@kernel
def single_normal_k(gap, inv_vm, n, dt, mov0, R0, v0, w0, ii0, im0, r0, c0, mov1, R1, v1, w1, ii1, im1, r1, c1):
    """5.5 for a system of one contact point: the impulse j = desired(gap,
    closing) / inv_vm, desired = closing + (0.02 - gap) k, closing = (v0 n +
    w0 c0) - (v1 n + w1 c1) (c a side's r x n); side 0 pushed by -j n at r0,
    side 1 by +j n at r1 (ContactPoint.apply_impulse), when j > 0. Returns
    (N = f32(j / dt) or 0, v0, w0, v1, w1)."""
    closing = 0.0
    if mov0:
        closing += v0[0] * n[0] + v0[1] * n[1] + v0[2] * n[2] + w0[0] * c0[0] + w0[1] * c0[1] + w0[2] * c0[2]
    if mov1:
        closing += -(v1[0] * n[0] + v1[1] * n[1] + v1[2] * n[2] + w1[0] * c1[0] + w1[1] * c1[1] + w1[2] * c1[2])
    ks = NORMAL_SPEEDUP if gap <= FRICTION_DIST else DESCENDING_SPEEDUP
    j = (closing + (FRICTION_DIST - gap) * ks) / inv_vm if inv_vm > 0.0 else 0.0
    if j <= 0.0:
        return 0.0, v0, w0, v1, w1
    if mov0:
        k = -j
        imp = (f32_k(n[0] * k), f32_k(n[1] * k), f32_k(n[2] * k))
        v0, w0 = push_core_k(v0, w0, ii0, im0, r0, rot_t_mul_v_k(R0, imp), imp)
    if mov1:
        imp = (f32_k(n[0] * j), f32_k(n[1] * j), f32_k(n[2] * j))
        v1, w1 = push_core_k(v1, w1, ii1, im1, r1, rot_t_mul_v_k(R1, imp), imp)
    return f32_k(j * (1.0 / dt)), v0, w0, v1, w1


@kernel
def core_row(S, k):
    """A core's R, position, speed, rotation speed, inverse inertia and mass
    from row k of the body table."""
    R = (S[k, M_R], S[k, M_R + 1], S[k, M_R + 2], S[k, M_R + 3], S[k, M_R + 4], S[k, M_R + 5], S[k, M_R + 6],
         S[k, M_R + 7], S[k, M_R + 8])
    return (R, (S[k, M_POS], S[k, M_POS + 1], S[k, M_POS + 2]), (S[k, SPEED], S[k, SPEED + 1], S[k, SPEED + 2]),
            (S[k, ROT_SPEED], S[k, ROT_SPEED + 1], S[k, ROT_SPEED + 2]),
            (S[k, INV_I], S[k, INV_I + 1], S[k, INV_I + 2]), S[k, INV_M])


@kernel
def vec3(P, c, at):
    return P[c, at], P[c, at + 1], P[c, at + 2]


@kernel
def put_update(P, c, t, gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, span):
    """contact_update_k's results at time t into row c of the contact table P:
    the block of 5.3's results (n is last_n from now on, the
    impact data cleared)."""
    P[c, GAP] = gap
    for i in range(3):
        P[c, NORMAL + i] = n[i]
        P[c, LAST_N + i] = n[i]
        P[c, POINT + i] = p[i]
        P[c, T0 + i] = t0[i]
        P[c, T1 + i] = t1[i]
        P[c, R_CS + i] = r0[i]
        P[c, R_CS1 + i] = r1[i]
        P[c, RXN + i] = c0[i]
        P[c, RXN1 + i] = c1[i]
    P[c, NO_LAST_N] = 0.0
    P[c, INV_VM] = inv_vm
    P[c, BROKEN] = 1.0 if broken else 0.0
    P[c, SPAN] = span[0]
    P[c, SPAN + 1] = span[1]
    P[c, LAST_TIME] = t
    P[c, IMPACTS] = 0.0
    P[c, FRESH] = 0.0


@kernel
def point_update_row(S, k, P, c, t):
    """The energy handle's 5.3 for a system of one point, row c of the
    contact table P, whose side 0 is the ball of row k of the body table S
    and side 1 a fixed body (its feature in the row's SIDE1 columns):
    ContactPoint.update (a ball: the validity test every update) and the
    fields put_update writes, into the point's row, last_gap_len
    the gap."""
    R, pos, v, w, ii, im = core_row(S, k)
    a = SIDE1
    zero = (0.0, 0.0, 0.0)
    gap, n, p, t0, t1, r, r1, rxn, c1, inv_vm, broken, span = contact_update_k(
        BALL_SIDE, (pos, zero, zero, zero), int(P[c, a]),
        (vec3(P, c, a + 1), vec3(P, c, a + 4), vec3(P, c, a + 7), vec3(P, c, a + 10)), True, False, zero,
        P[c, X0], P[c, X1], True, R, pos, v, w, ii, im, False, R, pos, zero, zero, zero, 0.0,
        (P[c, SPAN], P[c, SPAN + 1]), t - P[c, LAST_TIME])
    put_update(P, c, t, gap, n, p, t0, t1, r, r1, rxn, c1, inv_vm, broken, span)
    P[c, LAST_GAP] = gap
    P[c, RECHECK] = 0.0


@kernel
def point_friction_row(S, k, P, c, dt):
    """The dynamic and static handles of a system of one point
    (:func:`point_update_row`'s, updated at this PSI): 5.6 with the spring
    limit N mu inv_virt_mass dt^2 (tangential_k), then 5.5
    (single_normal_k), on the core's row and the point's. Returns whether
    5.9 deletes the point (its gap past MAX_DISTANCE_FOR_FRICTION, or
    broken)."""
    R, pos, v, w, ii, im = core_row(S, k)
    zero = (0.0, 0.0, 0.0)
    N = P[c, PRESSURE]
    mu = P[c, MU]
    r = vec3(P, c, R_CS)
    (sa, sb), clipped, v, w, _, _, _ = tangential_k(
        (P[c, SPAN], P[c, SPAN + 1]), N * mu * P[c, INV_VM_NO_DIR] * dt * dt, N, mu, dt, vec3(P, c, T0),
        vec3(P, c, T1), vec3(P, c, POINT), True, R, pos, v, w, ii, im, False, R, pos, zero, zero, zero, 0.0, r, zero)
    gap = P[c, GAP]
    N, v, w, _, _ = single_normal_k(gap, P[c, INV_VM], vec3(P, c, NORMAL), dt, True, R, v, w, ii, im, r,
                                    vec3(P, c, RXN), False, R, zero, zero, zero, 0.0, zero, zero)
    for i in range(3):
        S[k, SPEED + i] = v[i]
        S[k, ROT_SPEED + i] = w[i]
    P[c, SPAN] = sa
    P[c, SPAN + 1] = sb
    P[c, RECHECK] = 1.0 if clipped else 0.0
    P[c, PRESSURE] = N
    return gap >= MAX_DISTANCE_FOR_FRICTION or P[c, BROKEN] != 0.0


@kernel
def _row9(A, i):
    """Row i of an (n, 9) array (a rotation) as a tuple."""
    return (A[i, 0], A[i, 1], A[i, 2], A[i, 3], A[i, 4], A[i, 5], A[i, 6], A[i, 7], A[i, 8])


@kernel
def moving_sides_k(L, AT, R, POS, F):
    """ContactPoint.side_data of movable hull sides from their points in the
    core frame: L[r] the kind (0 P, 1 K, 2 F) and up to three points (P, K's
    ends, F's corners), each moved as R p + v (umath.mat_mul_point's order,
    as Piece.transformed moves them), a face's normal the unit of
    (b - a) x (c - a) as features.face_data makes it, unused points zero;
    written into F[AT[r, 0]] from column AT[r, 1], AT[r, 2] the core's row
    of R and POS."""
    for r in range(L.shape[0]):
        q = AT[r, 0]
        o = AT[r, 1]
        c = AT[r, 2]
        kind = L[r, 0]
        F[q, o] = kind
        for j in range(4):
            for k in range(3):
                F[q, o + 1 + 3 * j + k] = 0.0
        for j in range(int(kind) + 1):
            x = L[r, 1 + 3 * j]
            y = L[r, 2 + 3 * j]
            z = L[r, 3 + 3 * j]
            for k in range(3):
                F[q, o + 1 + 3 * j + k] = R[c, 3 * k] * x + R[c, 3 * k + 1] * y + R[c, 3 * k + 2] * z + POS[c, k]
        if kind == 2.0:
            a = (F[q, o + 1], F[q, o + 2], F[q, o + 3])
            b = (F[q, o + 4], F[q, o + 5], F[q, o + 6])
            cc = (F[q, o + 7], F[q, o + 8], F[q, o + 9])
            _, n = unit_k(vcross(vsub(b, a), vsub(cc, a)))
            for k in range(3):
                F[q, o + 10 + k] = n[k]


@kernel
def _max_k(v):
    """numpy's max of a vector (a NaN wins)."""
    m = v[0]
    for i in range(1, v.shape[0]):
        if math.isnan(v[i]) or v[i] > m:
            m = v[i]
            if math.isnan(m):
                break
    return m


@kernel
def _kinetic_energy_k(MOV, V, W, SC, WC, M, RI) -> float:
    """5.5's energy check: the movable cores' 1/2 m v^2 + 1/2 I w^2 summed in
    order, the pending changes included."""
    e = 0.0
    for c in range(MOV.shape[0]):
        if not MOV[c]:
            continue
        vx, vy, vz = V[c, 0] + SC[c, 0], V[c, 1] + SC[c, 1], V[c, 2] + SC[c, 2]
        wx, wy, wz = W[c, 0] + WC[c, 0], W[c, 1] + WC[c, 1], W[c, 2] + WC[c, 2]
        e += 0.5 * M[c] * (vx * vx + vy * vy + vz * vz)
        e += 0.5 * (RI[c, 0] * wx * wx + RI[c, 1] * wy * wy + RI[c, 2] * wz * wz)
    return e


@kernel
def _async_push_k(SC, WC, c, R, ii, im, p_cs, imp):
    """Core.async_push_core (spec 5) of core c: the world impulse imp at
    lever p_cs into its pending changes SC, WC (push_core's arithmetic on them)."""
    sc, wc = push_core_k(vert(SC, c), vert(WC, c), ii, im, p_cs, rot_t_mul_v_k(R, imp), imp)
    for a in range(3):
        SC[c, a] = sc[a]
        WC[c, a] = wc[a]


@kernel
def _axis_inertia_k(R, I, a_ws) -> float:
    """5.8's rotational 'mass' |I (.) axis|, the axis in core axes."""
    a = rot_t_mul_v_k(R, a_ws)
    return math.sqrt((I[0] * a[0]) ** 2 + (I[1] * a[1]) ** 2 + (I[2] * a[2]) ** 2)


@kernel
def _destroy_mutual_energy_k(x, y, wanted, MOV, R, V, W, SC, WC, II, IM, M, RI) -> float:
    """5.8 destroy_mutual_energy for the pair of cores x, y (the pair's
    order): up to ``wanted`` (at most MAX_ENERGY_DESTROY) of their relative
    kinetic energy removed by opposite pending pushes (into SC, WC) along
    the relative velocity and angular velocity; the energy removed."""
    if not MOV[y]:
        x, y = y, x
    if not MOV[y]:
        return 0.0
    fixed = not MOV[x]
    Ry = _row9(R, y)
    Rx = _row9(R, x)
    vx = (0.0, 0.0, 0.0) if fixed else vert(V, x)
    dv = (V[y, 0] - vx[0], V[y, 1] - vx[1], V[y, 2] - vx[2])
    wy = rot_mul_v_k(Ry, vert(W, y))
    wx = (0.0, 0.0, 0.0) if fixed else rot_mul_v_k(Rx, vert(W, x))
    dw = (wy[0] - wx[0], wy[1] - wx[1], wy[2] - wx[2])
    p = math.sqrt(vdot(dv, dv))
    q = math.sqrt(vdot(dw, dw))
    u = (1.0, 0.0, 0.0)
    a = (1.0, 0.0, 0.0)
    E = 0.0
    ev = kv = ew = kw = 0.0
    if p > 0.0:
        u = (dv[0] / p, dv[1] / p, dv[2] / p)
        mu_y = M[y]
        mu_x = MUTUAL_FIXED_FACTOR * mu_y if fixed else M[x]
        kv = 1.0 / mu_x + 1.0 / mu_y
        ev = 0.5 * p * p / kv
        E += ev
    if q > 0.0:
        a = (dw[0] / q, dw[1] / q, dw[2] / q)
        mu_y = _axis_inertia_k(Ry, vert(RI, y), a)
        mu_x = MUTUAL_FIXED_FACTOR * mu_y if fixed else _axis_inertia_k(Rx, vert(RI, x), a)
        kw = 1.0 / mu_x + 1.0 / mu_y
        ew = 0.5 * q * q / kw
        E += ew
    if E <= 0.0:
        return 0.0
    D = MAX_ENERGY_DESTROY * E
    if not D < wanted:
        D = wanted
    frac = D / E
    for part in range(2):
        sp = p if part == 0 else q
        if not sp > 0.0:
            continue
        k = kv if part == 0 else kw
        e = ev if part == 0 else ew
        d = u if part == 0 else a
        J = (sp - math.sqrt(abs(sp * sp - 2.0 * k * frac * e))) / k
        for c, sign in ((y, -1.0), (x, 1.0)):
            if not MOV[c]:
                continue
            imp = (d[0] * J * sign, d[1] * J * sign, d[2] * J * sign)
            Rc = _row9(R, c)
            if part == 0:
                _async_push_k(SC, WC, c, Rc, vert(II, c), IM[c], (0.0, 0.0, 0.0), imp)
            else:
                t = rot_t_mul_v_k(Rc, imp)
                for j in range(3):
                    WC[c, j] = f32_k(WC[c, j] + II[c, j] * t[j])
    return D


@kernel
def damp_system_k(PC, anti, damp, MOV, R, V, W, SC, WC, II, IM, M, RI):
    """The multi-contact energy handle's 5.8 over the core pairs PC (the
    system's order): each pair's integrated_anti_energy anti damped, and
    while not negative, that much mutual energy destroyed by pending pushes."""
    for q in range(PC.shape[0]):
        anti[q] *= damp
        if anti[q] >= 0.0:
            anti[q] -= _destroy_mutual_energy_k(PC[q, 0], PC[q, 1], anti[q], MOV, R, V, W, SC, WC, II, IM, M, RI)


@kernel
def normal_system_k(I, MOV, R, V, W, SC, WC, II, IM, M, RI, P, H, g, idt, NP):
    """5.5 do_friction_system after the sort and deletion, over the points
    in list order: I their sides' cores; P per point its gap, inv_vm, n,
    rxn and r_cs of both sides; H has_negative_pull_since (updated); per
    core (the system's): movable, R, V and W (committed into), SC and WC the
    pending changes, II, IM, mass M and rot_inertia RI. The Gauss solution
    of the active set when accepted, else the LCP's; the impulses as
    pending pushes, N into NP, then the energy check. Returns 0 when nothing
    was applied, 1 when the changes were committed, 2 when discarded."""
    n = P.shape[0]
    b = np.empty(n)
    for i in range(n):
        s = 0.0
        for side in range(2):
            c = I[i, side]
            if MOV[c]:
                u = (V[c, 0] * P[i, 2] + V[c, 1] * P[i, 3] + V[c, 2] * P[i, 4]
                     + W[c, 0] * P[i, 5 + 3 * side] + W[c, 1] * P[i, 6 + 3 * side] + W[c, 2] * P[i, 7 + 3 * side])
                s += u if side == 0 else -u
        gap = P[i, 0]
        rate = NORMAL_SPEEDUP if gap <= FRICTION_DIST else DESCENDING_SPEEDUP
        b[i] = s + (FRICTION_DIST - gap) * rate
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            s = 0.0
            for a in range(2):
                c = I[i, a]
                if not MOV[c]:
                    continue
                for e in range(2):
                    if I[j, e] != c:
                        continue
                    dn = P[i, 2] * P[j, 2] + P[i, 3] * P[j, 3] + P[i, 4] * P[j, 4]
                    ci = (P[i, 5 + 3 * a], P[i, 6 + 3 * a], P[i, 7 + 3 * a])
                    ic = (II[c, 0] * ci[0], II[c, 1] * ci[1], II[c, 2] * ci[2])
                    dc = ic[0] * P[j, 5 + 3 * e] + ic[1] * P[j, 6 + 3 * e] + ic[2] * P[j, 7 + 3 * e]
                    sa = -1.0 if a == 0 else 1.0
                    se = -1.0 if e == 0 else 1.0
                    s += sa * se * (dn * IM[c] + dc)
                    break
            A[i, j] = s
            A[j, i] = s
    da = _max_k(np.diag(A))
    db = _max_k(np.abs(b))
    if da <= 0.0:
        return 0
    if db == 0.0:
        db = 1.0
    An = A / da
    bn = b / db
    scale = db / da
    na = 0
    for i in range(n):
        if H[i] != 0:
            na += 1
    ok = False
    x = np.zeros(n)
    if na > 0:
        act = np.empty(na, dtype=np.int64)
        q = 0
        for i in range(n):
            if H[i] != 0:
                act[q] = i
                q += 1
        M_a = np.empty((na, na))
        b_a = np.empty(na)
        for p in range(na):
            b_a[p] = bn[act[p]]
            for q in range(na):
                M_a[p, q] = An[act[p], act[q]]
        ok, xa = gauss_solve_k(M_a, b_a, GAUSS_MATRIX_EPS)
        if ok:
            for p in range(na):
                x[act[p]] = xa[p]
            for p in range(na):
                i = act[p]
                if not x[i] * scale * P[i, 1] >= MAX_ADHESION_GAUSS * g:
                    ok = False
                    break
        if ok:
            for j in range(n):
                if H[j] != 0:
                    continue
                s = 0.0
                for i in range(n):
                    s += An[j, i] * x[i]
                if not s + INEQUALITY_EPS * abs(bn[j]) >= bn[j]:
                    ok = False
                    break
    if not ok:
        k = 0
        while k < n and H[k] < 0:
            k += 1
        ok, x = lcp_k(An, bn, k)
        if not ok:
            return 0
    before = _kinetic_energy_k(MOV, V, W, SC, WC, M, RI)
    for i in range(n):
        xi = x[i] * scale
        if xi > 0.0:
            H[i] = -1 if H[i] >= 0 else H[i] - 1
        elif xi == 0.0:
            H[i] = 0
        else:
            H[i] += 1
            if H[i] > NEGATIVE_PULL_LIMIT:
                H[i] = 0
        if xi != 0.0:
            for side in range(2):
                c = I[i, side]
                if MOV[c]:
                    sx = -xi if side == 0 else xi
                    _async_push_k(SC, WC, c, _row9(R, c), vert(II, c), IM[c],
                                  (P[i, 11 + 3 * side], P[i, 12 + 3 * side], P[i, 13 + 3 * side]),
                                  (f32_k(P[i, 2] * sx), f32_k(P[i, 3] * sx), f32_k(P[i, 4] * sx)))
        NP[i] = f32_k((0.0 if 0.0 > xi else xi) * idt)
    after = _kinetic_energy_k(MOV, V, W, SC, WC, M, RI)
    mass = 0.0
    for c in range(MOV.shape[0]):
        if MOV[c]:
            mass += M[c]
    if after > before + mass * ENERGY_GAIN_ALLOWANCE:
        return 2
    for c in range(MOV.shape[0]):
        if MOV[c]:
            for a in range(3):
                V[c, a] = f32_k(V[c, a] + SC[c, a])
                W[c, a] = f32_k(W[c, a] + WC[c, a])
    return 1
