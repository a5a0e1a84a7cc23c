"""Compiled pieces of the friction system (ivp-contacts 5), shared by its
object path (friction.py) and the resting-contact kernel (single_contact.py)."""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from ..kmath import f32_k, push_core_k, rot_mul_v_k, rot_t_mul_v_k, vcross, vdot
from .constants import P_FLOAT_RES
from .feature_kernels import edge_edge, point_edge, point_face, point_point, vert


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
def _tangent_levers(R, pos, p, t0, t1):
    """5.6 per movable side: R^T (rel x t0), R^T (rel x t1) with rel = p - pos (f32)."""
    rel = (f32_k(p[0] - pos[0]), f32_k(p[1] - pos[1]), f32_k(p[2] - pos[2]))
    return rot_t_mul_v_k(R, vcross(rel, t0)), rot_t_mul_v_k(R, vcross(rel, t1))


@kernel
def _tangent_push(R, v, w, ii, im, r, sign, x0, x1, t0, t1):
    """5.6's push of one side: the impulse sign (x0 t0 + x1 t1), stored f32, at r."""
    imp = (f32_k(sign * (x0 * t0[0] + x1 * t1[0])), f32_k(sign * (x0 * t0[1] + x1 * t1[1])),
           f32_k(sign * (x0 * t0[2] + x1 * t1[2])))
    return push_core_k(v, w, ii, im, r, rot_t_mul_v_k(R, imp), imp)


@kernel
def tangential_k(span, L, N, mu, dt, t0, t1, p, mov0, R0, pos0, v0, w0, ii0, im0,
                 mov1, R1, pos1, v1, w1, ii1, im1, r0, r1):
    """5.6 for one contact point with spring limit L (friction.tangential_friction):
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
    a0 = a1 = b0 = b1 = (0.0, 0.0, 0.0)
    if mov0:
        a0, a1 = _tangent_levers(R0, pos0, p, t0, t1)
        K00 += ii0[0] * a0[0] * a0[0] + ii0[1] * a0[1] * a0[1] + ii0[2] * a0[2] * a0[2] + im0
        K01 += ii0[0] * a0[0] * a1[0] + ii0[1] * a0[1] * a1[1] + ii0[2] * a0[2] * a1[2]
        K11 += ii0[0] * a1[0] * a1[0] + ii0[1] * a1[1] * a1[1] + ii0[2] * a1[2] * a1[2] + im0
        u0 += 1.0 * (vdot(w0, a0) + vdot(v0, t0))
        u1 += 1.0 * (vdot(w0, a1) + vdot(v0, t1))
    if mov1:
        b0, b1 = _tangent_levers(R1, pos1, p, t0, t1)
        K00 += ii1[0] * b0[0] * b0[0] + ii1[1] * b0[1] * b0[1] + ii1[2] * b0[2] * b0[2] + im1
        K01 += ii1[0] * b0[0] * b1[0] + ii1[1] * b0[1] * b1[1] + ii1[2] * b0[2] * b1[2]
        K11 += ii1[0] * b1[0] * b1[0] + ii1[1] * b1[1] * b1[1] + ii1[2] * b1[2] * b1[2] + im1
        u0 += -1.0 * (vdot(w1, b0) + vdot(v1, t0))
        u1 += -1.0 * (vdot(w1, b1) + vdot(v1, t1))
    ok, x0, x1 = spring_impulse(K00, K01, K11, sa, sb, u0, u1, dt, cap)
    if not ok:
        return (sa, sb), clipped, v0, w0, v1, w1, 0.0
    if mov0:
        v0, w0 = _tangent_push(R0, v0, w0, ii0, im0, r0, 1.0, x0, x1, t0, t1)
    if mov1:
        v1, w1 = _tangent_push(R1, v1, w1, ii1, im1, r1, -1.0, x0, x1, t0, t1)
    return (sa, sb), clipped, v0, w0, v1, w1, 0.5 * math.sqrt((x0 * x0 + x1 * x1) * dt * dt * s2)


@kernel
def tangential_system_k(starts, I, F, MOV, R, POS, V, W, II, IM, anti, dt, SPAN, CLIP):
    """The multi-contact dynamic handle's 5.6 over a friction system's core
    pairs, in the handle's order: pair p's points are rows starts[p] to
    starts[p + 1] - 1 (in the pair's order: its spring limit L is summed
    forwards, the points run backwards). Per point: I its sides' cores, F its
    N, mu, inv_virt_mass_no_dir, span, t0, t1, p, r0, r1; per core (the
    system's): movable, R, position, speed V and rotation speed W (updated),
    inverse inertia and mass. Each pair's positive spring-energy gains go
    into anti[p]; each point's span and whether it was clipped into SPAN and
    CLIP."""
    for q in range(starts.shape[0] - 1):
        a = starts[q]
        b = starts[q + 1]
        L = 0.0
        for k in range(a, b):
            L += F[k, 0] * F[k, 1] * F[k, 2]
        L = L * dt * dt
        for k in range(b - 1, a - 1, -1):
            i0 = I[k, 0]
            i1 = I[k, 1]
            span, clipped, v0, w0, v1, w1, gain = tangential_k(
                (F[k, 3], F[k, 4]), L, F[k, 0], F[k, 1], dt, (F[k, 5], F[k, 6], F[k, 7]),
                (F[k, 8], F[k, 9], F[k, 10]), (F[k, 11], F[k, 12], F[k, 13]),
                MOV[i0], _row9(R, i0), vert(POS, i0), vert(V, i0), vert(W, i0), vert(II, i0), IM[i0],
                MOV[i1], _row9(R, i1), vert(POS, i1), vert(V, i1), vert(W, i1), vert(II, i1), IM[i1],
                (F[k, 14], F[k, 15], F[k, 16]), (F[k, 17], F[k, 18], F[k, 19]))
            SPAN[k, 0] = span[0]
            SPAN[k, 1] = span[1]
            CLIP[k] = clipped
            if MOV[i0]:
                for j in range(3):
                    V[i0, j] = v0[j]
                    W[i0, j] = w0[j]
            if MOV[i1]:
                for j in range(3):
                    V[i1, j] = v1[j]
                    W[i1, j] = w1[j]
            if gain > 0.0:
                anti[q] += gain


@kernel(inline=True)
def _row9(A, i):
    """Row i of an (n, 9) array (a rotation) as a tuple."""
    return (A[i, 0], A[i, 1], A[i, 2], A[i, 3], A[i, 4], A[i, 5], A[i, 6], A[i, 7], A[i, 8])


@kernel
def contact_update_system_k(starts, I, F, MOV, R, POS, V, W, II, IM, O, anti):
    """The multi-contact energy handle's 5.3 over a friction system's points
    (rows as tangential_system_k's; the updates do not depend on one
    another): per point, F its sides' kinds and packed points, the validity
    test, the edge-pair flip test and last normal, the extra radii, span and
    the time since its last update, N and its last gap; O gets
    contact_update_k's results (gap, n, p, t0, t1, r0, r1, rxn0, rxn1,
    inv_vm, broken, span). anti[p]: pair p's sum of N (last gap - gap) in
    its points' order."""
    for q in range(starts.shape[0] - 1):
        e = 0.0
        for k in range(starts[q], starts[q + 1]):
            i0 = I[k, 0]
            i1 = I[k, 1]
            f = F[k]
            gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, span = contact_update_k(
                int(f[0]), ((f[1], f[2], f[3]), (f[4], f[5], f[6]), (f[7], f[8], f[9]), (f[10], f[11], f[12])),
                int(f[13]), ((f[14], f[15], f[16]), (f[17], f[18], f[19]), (f[20], f[21], f[22]),
                             (f[23], f[24], f[25])),
                f[26] != 0.0, f[27] != 0.0, (f[28], f[29], f[30]), f[31], f[32],
                MOV[i0], _row9(R, i0), vert(POS, i0), vert(V, i0), vert(W, i0), vert(II, i0), IM[i0],
                MOV[i1], _row9(R, i1), vert(POS, i1), vert(V, i1), vert(W, i1), vert(II, i1), IM[i1],
                (f[33], f[34]), f[35])
            o = O[k]
            o[0] = gap
            for j in range(3):
                o[1 + j] = n[j]
                o[4 + j] = p[j]
                o[7 + j] = t0[j]
                o[10 + j] = t1[j]
                o[13 + j] = r0[j]
                o[16 + j] = r1[j]
                o[19 + j] = c0[j]
                o[22 + j] = c1[j]
            o[25] = inv_vm
            o[26] = 1.0 if broken else 0.0
            o[27] = span[0]
            o[28] = span[1]
            e += f[36] * (f[37] - gap)
        anti[q] = e
