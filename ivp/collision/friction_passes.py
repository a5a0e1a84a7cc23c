"""The passes of a friction system of several points (ivp-contacts 5.3-5.8),
each one compiled call over the whole system: point updates and anti-energy
sums (5.3), energy damping (5.8), tangential friction (5.6), easing (5.7),
the normal solve (5.5). Each pass reads its cores' states from the body
table and writes them back there, its points' fields from and to the
contact table and its core pairs' from and to the system's pair table (the
rows of :class:`SystemArrays`); no per-point Python runs in them."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..jit import kernel
from ..kmath import f32_k, vdot
from ..state.layout import (ANTI, BROKEN, EASE, GAP, INV_VM, INV_VM_NO_DIR, LAST_GAP, LAST_N, LAST_TIME, M_POS, M_R,
                            MU, NEG_PULL, NO_LAST_N, NORMAL, POINT, PRESSURE, R_CS, R_CS1, RECHECK, ROT_SPEED,
                            ROT_SPEED_CHANGE, RXN, RXN1, SPAN, SPEED, SPEED_CHANGE, T0, T1)
from .constants import EASE_EVERY_NTH_PSI, MAX_DISTANCE_FOR_FRICTION, MAX_FRICTION_MATRIX
from .feature_kernels import vert
from .friction_kernels import (BALL_SIDE, _row9, contact_update_k, damp_system_k, moving_sides_k, normal_system_k,
                               put_update, single_normal_k, tangential_k, vec3)


class SystemArrays(NamedTuple):
    """A friction system's shape for the passes, made with its layout
    (FrictionSystem.layout): its cores (rows of the body table, movable,
    inv_rot_inertia, inv_mass, mass, rot_inertia), its core pairs last to
    first (PR their rows of the pair table; points starts[p] to starts[p +
    1] - 1 of the points), the points in that order (I their sides' cores as
    indices of the cores, slots their rows of the contact table), and PC
    each pair's cores, the pairs first to last."""
    rows: np.ndarray
    MOV: np.ndarray
    II: np.ndarray
    IM: np.ndarray
    M: np.ndarray
    RI: np.ndarray
    starts: np.ndarray
    I: np.ndarray
    slots: np.ndarray
    PR: np.ndarray
    PC: np.ndarray


@kernel
def _core_states(S, rows):
    """The cores' R, position, speed and rotation speed from their rows of
    the body table S, as (n, 9), (n, 3), (n, 3), (n, 3) arrays."""
    return (np.ascontiguousarray(S[rows, M_R:M_R + 9]), np.ascontiguousarray(S[rows, M_POS:M_POS + 3]),
            np.ascontiguousarray(S[rows, SPEED:SPEED + 3]), np.ascontiguousarray(S[rows, ROT_SPEED:ROT_SPEED + 3]))


@kernel
def _pending(S, rows):
    """The cores' pending changes (speed_change, rot_speed_change), (n, 3) each."""
    return (np.ascontiguousarray(S[rows, SPEED_CHANGE:SPEED_CHANGE + 3]),
            np.ascontiguousarray(S[rows, ROT_SPEED_CHANGE:ROT_SPEED_CHANGE + 3]))


@kernel
def _put(S, K, at, X, zero):
    """The movable cores' three columns from ``at`` of the body table S:
    their rows of X, or zero."""
    for i in range(K.rows.shape[0]):
        if K.MOV[i]:
            for j in range(3):
                S[K.rows[i], at + j] = 0.0 if zero else X[i, j]


def update_system(fs, env, now: float, sums: bool) -> None:
    """The energy handle's 5.3: every point's ContactPoint.update at ``now``,
    its last_gap_len the new gap, and with ``sums`` (a system of several
    points) each core pair's positive sum of N (last gap - gap) over its
    points added to its integrated_anti_energy (:func:`update_pass_k`). Side
    data that only ContactPoint.side_data makes (a two-sided triangle that
    moves) is made here first."""
    lay = fs.layout()
    sides, moving = fs.side_columns(lay)
    E = np.array([_packed(lay.cps[q].side_data(i)) for q, i in moving], dtype=np.float64).reshape(len(moving), 13)
    EAT = np.array(moving, dtype=np.int64).reshape(len(moving), 2)
    update_pass_k(env.bodies.rows, env.contacts.rows, fs.pair_table.rows, lay.K, sides, E, EAT, now, sums)


def _packed(side) -> tuple:
    """A side_data answer as its 13 columns."""
    k, (a, b, c, d) = side
    return (k, *a, *b, *c, *d)


@kernel
def update_pass_k(S, P, Q, K, sides, E, EAT, now, sums):
    """update_system's pass, per core pair last to first and its points in
    order (the updates do not depend on one another): the point's sides
    from ``sides`` (FrictionSystem.side_columns; the movable hull sides
    moved from their core frame by moving_sides_k; side i of point q from E
    where EAT names (q, i); a ball side's point its core's position), its
    inputs from its row of the contact table P (the validity test when
    rechecked or side 0 a ball, an edge pair's last normal, the extra radii,
    span and the time since its last update), contact_update_k on its cores'
    rows of the body table S, the results into its row (put_update, its
    last gap the new one, recheck off); with ``sums``, each pair's positive
    sum of N (last gap - gap) into its row of the pair table Q."""
    S26, L, AT, X, edges = sides
    R, POS, V, W = _core_states(S, K.rows)
    F = S26.copy()
    moving_sides_k(L, AT, R, POS, F)
    for e in range(EAT.shape[0]):
        o = 13 * EAT[e, 1]
        for j in range(13):
            F[EAT[e, 0], o + j] = E[e, j]
    for q in range(K.PR.shape[0]):
        e = 0.0
        for k in range(K.starts[q], K.starts[q + 1]):
            c = K.slots[k]
            i0 = K.I[k, 0]
            i1 = K.I[k, 1]
            f = F[k]
            k0 = int(f[0])
            k1 = int(f[13])
            a0 = vert(POS, i0) if k0 == BALL_SIDE else (f[1], f[2], f[3])
            a1 = vert(POS, i1) if k1 == BALL_SIDE else (f[14], f[15], f[16])
            gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, span = contact_update_k(
                k0, (a0, (f[4], f[5], f[6]), (f[7], f[8], f[9]), (f[10], f[11], f[12])),
                k1, (a1, (f[17], f[18], f[19]), (f[20], f[21], f[22]), (f[23], f[24], f[25])),
                P[c, RECHECK] != 0.0 or X[k, 2] != 0.0, edges[k] and P[c, NO_LAST_N] == 0.0, vec3(P, c, LAST_N),
                X[k, 0], X[k, 1],
                K.MOV[i0], _row9(R, i0), vert(POS, i0), vert(V, i0), vert(W, i0), vert(K.II, i0), K.IM[i0],
                K.MOV[i1], _row9(R, i1), vert(POS, i1), vert(V, i1), vert(W, i1), vert(K.II, i1), K.IM[i1],
                (P[c, SPAN], P[c, SPAN + 1]), now - P[c, LAST_TIME])
            e += P[c, PRESSURE] * (P[c, LAST_GAP] - gap)
            put_update(P, c, now, gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, span)
            P[c, LAST_GAP] = gap
            P[c, RECHECK] = 0.0
        if sums and e > 0.0:
            Q[K.PR[q], ANTI] += e


def damp_system(fs, damp: float) -> None:
    """The energy handle's 5.8 in a multi-contact system: per core pair in
    the system's order, integrated_anti_energy times ``damp``, and while it
    is not negative, destroy_mutual_energy of that much (at most
    MAX_ENERGY_DESTROY of the pair's relative kinetic energy) by opposite
    pending pushes along the relative velocity and angular velocity, the
    energy removed taken off (:func:`damp_pass_k`)."""
    damp_pass_k(fs.collision.environment.bodies.rows, fs.pair_table.rows, fs.layout().K, damp)


@kernel
def damp_pass_k(S, Q, K, damp):
    """damp_system's pass: friction_kernels.damp_system_k on the cores'
    rows of the body table S (their pending changes written back) and the
    pairs' rows of the pair table Q."""
    R, _, V, W = _core_states(S, K.rows)
    SC, WC = _pending(S, K.rows)
    m = K.PR.shape[0]
    anti = np.empty(m)
    for q in range(m):
        anti[q] = Q[K.PR[m - 1 - q], ANTI]
    damp_system_k(K.PC, anti, damp, K.MOV, R, V, W, SC, WC, K.II, K.IM, K.M, K.RI)
    for q in range(m):
        Q[K.PR[m - 1 - q], ANTI] = anti[q]
    _put(S, K, SPEED_CHANGE, SC, False)
    _put(S, K, ROT_SPEED_CHANGE, WC, False)


def tangential_system(fs, env, dt: float, gains: bool) -> None:
    """5.6 for every point of a friction system, per core pair last to
    first: the spring limit (sum of N mu inv_virt_mass_no_dir times dt^2),
    then its points last to first, clipped spans and rechecks into the rows;
    with ``gains`` (a system of several points) the positive spring-energy
    gains into the pair's integrated_anti_energy (:func:`tangential_pass_k`)."""
    tangential_pass_k(env.bodies.rows, env.contacts.rows, fs.pair_table.rows, fs.layout().K, dt, gains)


@kernel
def tangential_pass_k(S, P, Q, K, dt, gains):
    """tangential_system's pass: per core pair, its spring limit L summed
    over its points forwards, then friction_kernels.tangential_k of its
    points backwards on their rows of the contact table P (a clipped span
    and its recheck written back) and the cores' rows of the body table S
    (the speeds carried from point to point, written back at the end); with
    ``gains``, the positive gains into the pair's row of the pair table Q.
    Without them (one point) L is the point's own product: -0.0 + x is x,
    0.0 + -0.0 is not."""
    R, POS, V, W = _core_states(S, K.rows)
    for q in range(K.PR.shape[0]):
        a = K.starts[q]
        b = K.starts[q + 1]
        L = 0.0 if gains else -0.0
        for k in range(a, b):
            c = K.slots[k]
            L += P[c, PRESSURE] * P[c, MU] * P[c, INV_VM_NO_DIR]
        L = L * dt * dt
        for k in range(b - 1, a - 1, -1):
            c = K.slots[k]
            i0 = K.I[k, 0]
            i1 = K.I[k, 1]
            span, clipped, v0, w0, v1, w1, gain = tangential_k(
                (P[c, SPAN], P[c, SPAN + 1]), L, P[c, PRESSURE], P[c, MU], dt, vec3(P, c, T0), vec3(P, c, T1),
                vec3(P, c, POINT),
                K.MOV[i0], _row9(R, i0), vert(POS, i0), vert(V, i0), vert(W, i0), vert(K.II, i0), K.IM[i0],
                K.MOV[i1], _row9(R, i1), vert(POS, i1), vert(V, i1), vert(W, i1), vert(K.II, i1), K.IM[i1],
                vec3(P, c, R_CS), vec3(P, c, R_CS1))
            if clipped:
                P[c, SPAN] = span[0]
                P[c, SPAN + 1] = span[1]
                P[c, RECHECK] = 1.0
            for j in range(3):
                if K.MOV[i0]:
                    V[i0, j] = v0[j]
                    W[i0, j] = w0[j]
                if K.MOV[i1]:
                    V[i1, j] = v1[j]
                    W[i1, j] = w1[j]
            if gains and gain > 0.0:
                Q[K.PR[q], ANTI] += gain
    _put(S, K, SPEED, V, False)
    _put(S, K, ROT_SPEED, W, False)


def ease_system(fs) -> None:
    """5.7 after the tangential friction: each core pair's count-down to its
    next easing, and the easing of those whose count-down ran out
    (:func:`ease_pass_k`)."""
    ease_pass_k(fs.collision.environment.contacts.rows, fs.pair_table.rows, fs.layout().K)


@kernel
def ease_pass_k(P, Q, K):
    """ease_system's pass: per core pair, last to first, next_ease_nr_psi
    counted down in its row of the pair table Q; at zero it starts again at
    EASE_EVERY_NTH_PSI and the pair's points are eased (ease_k, their
    side-0 cores told apart by their indices)."""
    m = K.PR.shape[0]
    due = np.zeros(m, dtype=np.bool_)
    for q in range(m):
        r = K.PR[q]
        Q[r, EASE] -= 1.0
        if Q[r, EASE] <= 0.0:
            Q[r, EASE] = EASE_EVERY_NTH_PSI
            due[q] = True
    ease_k(P, K.slots, K.starts, K.I[:, 0].copy(), due)


@kernel
def ease_k(P, slots, starts, K0, due):
    """5.7 per core pair that is ``due``: in its points with parallel normals, the spring
    components along the line joining two points are pulled towards their
    mean, each by 1 / n of the pair's n points (sgn -1 where the points'
    side-0 cores differ: K0, a key per point); then span_s = (f32(sa + dv .
    t0), f32(sb + dv . t1)) with each point's change dv (zero for a point
    with no partner). Pair q's points are rows starts[q] to starts[q + 1] -
    1 of ``slots``, their rows of the contact table P; a pair's values are
    all read before its new spans are written."""
    for q in range(starts.shape[0] - 1):
        if not due[q]:
            continue
        a0 = starts[q]
        n = starts[q + 1] - a0
        f = 1.0 / (n + 1e-10)
        D = np.zeros((n, 3))
        for i in range(n - 1):
            r = slots[a0 + i]
            na = vec3(P, r, NORMAL)
            pa = vec3(P, r, POINT)
            for j in range(i + 1, n):
                s = slots[a0 + j]
                pb = vec3(P, s, POINT)
                if abs(abs(vdot(na, vec3(P, s, NORMAL))) - 1.0) >= 1e-3:
                    continue
                sgn = 1.0 if K0[a0 + j] == K0[a0 + i] else -1.0
                c = (pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2])
                cl = math.sqrt(vdot(c, c))
                if cl == 0.0:
                    continue
                c = (c[0] / cl, c[1] / cl, c[2] / cl)
                ka = vdot(c, _spring_world(P, s))
                kb = sgn * vdot(c, _spring_world(P, r))
                mean = 0.5 * (ka + kb)
                for k in range(3):
                    D[j, k] += f * (mean - ka) * c[k]
                    D[i, k] += f * sgn * (mean - kb) * c[k]
        for i in range(n):
            r = slots[a0 + i]
            dv = (D[i, 0], D[i, 1], D[i, 2])
            sa = P[r, SPAN]
            sb = P[r, SPAN + 1]
            P[r, SPAN] = f32_k(sa + vdot(dv, vec3(P, r, T0)))
            P[r, SPAN + 1] = f32_k(sb + vdot(dv, vec3(P, r, T1)))


@kernel
def _spring_world(P, r):
    """The spring of the point at row r in world space: sa t0 + sb t1."""
    sa = P[r, SPAN]
    sb = P[r, SPAN + 1]
    return (sa * P[r, T0] + sb * P[r, T1], sa * P[r, T0 + 1] + sb * P[r, T1 + 1],
            sa * P[r, T0 + 2] + sb * P[r, T1 + 2])


# --- 5.5 several contacts -----------------------------------------------------------------

def normal_solve_multi(fs, env, dt: float, idt: float) -> None:
    """5.5 do_friction_system: the sort, deletion and the panic here; the
    solve (Gauss on the active set, else the LCP), the async impulses and
    the energy check in one pass (:func:`normal_pass_k`). The sort and the
    deletion test read the points' rows of the contact table."""
    col = fs.collision
    table = env.contacts
    T = table.rows
    slots = table.slots(fs.contacts)
    order = np.argsort(T[slots, NEG_PULL], kind="stable")        # by has_negative_pull_since, stable
    fs.contacts[:] = [fs.contacts[q] for q in order.tolist()]
    cps = list(fs.contacts)
    slots = slots[order]
    G = T[slots][:, (GAP, BROKEN)].tolist()
    dead = [q for q, (gap, broken) in enumerate(G) if gap >= MAX_DISTANCE_FOR_FRICTION or broken != 0.0]
    for q in dead:
        col.delete_contact(cps[q])
    if dead:
        cps = list(fs.contacts)
        slots = table.slots(cps)
    if not cps:
        return
    lay = fs.layout()
    S = env.bodies.rows
    if len(cps) > MAX_FRICTION_MATRIX:
        for core in fs.movable:
            core.fast_piling_allowed = True
        S[lay.K.rows[lay.K.MOV], SPEED:ROT_SPEED + 3] = 0.0
        return
    row = lay.row
    order = np.fromiter(map(row.__getitem__, cps), dtype=np.int64, count=len(cps))
    normal_pass_k(S, T, lay.K, order, slots, math.sqrt(sum(c * c for c in env.gravity)), idt)


def single_normal(fs, env, dt: float) -> bool:
    """5.5 for a system of one contact point (:func:`single_normal_pass_k`);
    whether the point is to be deleted (5.9)."""
    return single_normal_pass_k(env.bodies.rows, env.contacts.rows, fs.layout().K, dt)


@kernel
def single_normal_pass_k(S, P, K, dt):
    """single_normal's pass: friction_kernels.single_normal_k on the point's
    row of the contact table P and its cores' rows of the body table S, N
    and the movable cores' new speeds written back; whether its gap is at
    least MAX_DISTANCE_FOR_FRICTION or it is broken."""
    c = K.slots[0]
    i0 = K.I[0, 0]
    i1 = K.I[0, 1]
    R, _, V, W = _core_states(S, K.rows)
    N, v0, w0, v1, w1 = single_normal_k(
        P[c, GAP], P[c, INV_VM], vec3(P, c, NORMAL), dt,
        K.MOV[i0], _row9(R, i0), vert(V, i0), vert(W, i0), vert(K.II, i0), K.IM[i0], vec3(P, c, R_CS), vec3(P, c, RXN),
        K.MOV[i1], _row9(R, i1), vert(V, i1), vert(W, i1), vert(K.II, i1), K.IM[i1], vec3(P, c, R_CS1),
        vec3(P, c, RXN1))
    P[c, PRESSURE] = N
    for j in range(3):
        V[i0, j] = v0[j]
        W[i0, j] = w0[j]
        V[i1, j] = v1[j]
        W[i1, j] = w1[j]
    _put(S, K, SPEED, V, False)
    _put(S, K, ROT_SPEED, W, False)
    return P[c, GAP] >= MAX_DISTANCE_FOR_FRICTION or P[c, BROKEN] != 0.0


@kernel
def normal_pass_k(S, P, K, order, slots, g, idt):
    """normal_solve_multi's pass over the points in list order (``order``
    their indices in the system's points, ``slots`` their rows of the
    contact table P): friction_kernels.normal_system_k on the points' gap,
    inv_vm, n, both sides' r x n and r_cs and the cores' rows of the body
    table S; when it applied anything, has_negative_pull_since and N into
    the points' rows and the cores' speeds (when committed) and pending
    changes (zero) into theirs."""
    R, _, V, W = _core_states(S, K.rows)
    SC, WC = _pending(S, K.rows)
    n = slots.shape[0]
    I = np.empty((n, 2), dtype=np.int64)
    C = np.empty((n, 17))
    H = np.empty(n, dtype=np.int64)
    for q in range(n):
        k = slots[q]
        I[q, 0] = K.I[order[q], 0]
        I[q, 1] = K.I[order[q], 1]
        C[q, 0] = P[k, GAP]
        C[q, 1] = P[k, INV_VM]
        for j in range(3):
            C[q, 2 + j] = P[k, NORMAL + j]
        for j in range(6):
            C[q, 5 + j] = P[k, RXN + j]         # both sides' r x n
            C[q, 11 + j] = P[k, R_CS + j]       # both sides' r_cs
        H[q] = int(P[k, NEG_PULL])
    NP = np.empty(n)
    done = normal_system_k(I, K.MOV, R, V, W, SC, WC, K.II, K.IM, K.M, K.RI, C, H, g, idt, NP)
    if done == 0:
        return
    for q in range(n):
        P[slots[q], NEG_PULL] = H[q]
        P[slots[q], PRESSURE] = NP[q]
    if done == 1:
        _put(S, K, SPEED, V, False)
        _put(S, K, ROT_SPEED, W, False)
    _put(S, K, SPEED_CHANGE, SC, True)
    _put(S, K, ROT_SPEED_CHANGE, WC, True)
