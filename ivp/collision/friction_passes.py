"""The passes of a friction system of several points (ivp-contacts 5.3-5.8),
each over the whole system in arrays: point updates and anti-energy sums
(5.3), energy damping (5.8), tangential friction (5.6), easing (5.7), the
normal solve (5.5). Core states come from and go back to the body table
(:func:`_core_states`, :func:`_put_columns`), point fields to the contact
table (the layout's SLOTS)."""

from __future__ import annotations

import math
from operator import attrgetter

import numpy as np

from ..jit import kernel
from ..kmath import f32_k, vdot
from ..state.layout import (BROKEN, FRESH, GAP, IMPACTS, INV_VM, INV_VM_NO_DIR, LAST_GAP, LAST_N, LAST_TIME, M_POS,
                            M_R, MU, NEG_PULL, NO_LAST_N, NORMAL, POINT, PRESSURE, R_CS, R_CS1, RECHECK, ROT_SPEED,
                            ROT_SPEED_CHANGE, RXN, RXN1, SPAN, SPEED, SPEED_CHANGE, T0, T1)
from .constants import MAX_DISTANCE_FOR_FRICTION, MAX_FRICTION_MATRIX
from .friction_kernels import (contact_update_system_k, damp_system_k, moving_sides_k, normal_system_k,
                               tangential_system_k, vec3)

_ANTI = attrgetter("integrated_anti_energy")
_ROW = attrgetter("row")
_STATE_COLUMNS = (M_R, 9), (M_POS, 3), (SPEED, 3), (ROT_SPEED, 3), (SPEED_CHANGE, 3), (ROT_SPEED_CHANGE, 3)
_SPEEDS = (SPEED, ROT_SPEED)
_PENDING = (SPEED_CHANGE, ROT_SPEED_CHANGE)


def _rows_of(fs, lay):
    """(the layout's cores' rows in the body table, its movable cores'
    rows), kept with the layout."""
    kept = fs._rows
    if kept is not None and kept[0] is lay:
        return kept[1]
    rows = np.fromiter(map(_ROW, lay.cores), dtype=np.int64, count=len(lay.cores))
    out = rows, rows[lay.MOV]
    fs._rows = (lay, out)
    return out


def _core_states(fs, lay, pending: bool = False) -> tuple:
    """The layout's cores' R, position, speed and rotation speed as (n, 9),
    (n, 3), (n, 3), (n, 3) arrays for the system passes, from their rows of
    the body table at once; with ``pending`` also their pending changes
    (speed_change, rot_speed_change), two more (n, 3)."""
    S = fs.collision.environment.bodies.rows
    rows = _rows_of(fs, lay)[0]
    return tuple(S[rows, at:at + n] for at, n in _STATE_COLUMNS[:6 if pending else 4])


def _put_columns(fs, lay, columns, values) -> None:
    """The movable cores' fields at ``columns`` (of the body table) from
    their rows of ``values`` (one (n, 3) array per column; None: zero)."""
    S = fs.collision.environment.bodies.rows
    mov = _rows_of(fs, lay)[1]
    for at, X in zip(columns, values):
        S[mov, at:at + 3] = 0.0 if X is None else X[lay.MOV]


def damp_system(fs, damp: float) -> None:
    """The energy handle's 5.8 in a multi-contact system: per core pair in
    the system's order, integrated_anti_energy times ``damp``, and while it
    is not negative, destroy_mutual_energy of that much (at most
    MAX_ENERGY_DESTROY of the pair's relative kinetic energy) by opposite
    pending pushes along the relative velocity and angular velocity, the
    energy removed taken off (one pass: friction_kernels.damp_system_k)."""
    lay = fs.layout()
    R, _, V, W, SC, WC = _core_states(fs, lay, pending=True)
    pairs = lay.pairs[::-1]
    anti = np.fromiter(map(_ANTI, pairs), dtype=np.float64, count=len(pairs))
    damp_system_k(lay.PC, anti, damp, lay.MOV, R, V, W, SC, WC, lay.II, lay.IM, lay.M, lay.RI)
    for pair, e in zip(pairs, anti.tolist()):
        pair.integrated_anti_energy = e
    _put_columns(fs, lay, _PENDING, (SC, WC))


def update_system(fs, env, now: float) -> None:
    """The energy handle's 5.3 in a multi-contact system: every point's
    ContactPoint.update at ``now``, its last_gap_len the new gap, and each core
    pair's positive sum of N (last gap - gap) over its points added to its
    integrated_anti_energy (one pass: friction_kernels.contact_update_system_k).
    The points' inputs are read from their rows of the contact table and the
    new fields go into them, in one pass each (system_inputs_k, system_results_k)."""
    lay = fs.layout()
    cores, cps, starts, I, MOV, II, IM, _, _, pairs, _, _, slots = lay
    R, POS, V, W = _core_states(fs, lay)
    S, moving, edges, L, AT, X = fs.side_columns(lay)
    n = len(cps)
    F = np.empty((n, 38))
    F[:, :26] = S
    moving_sides_k(L, AT, R, POS, F)
    for q, i in moving:
        k, (a, b, c, d) = cps[q].side_data(i)
        F[q, 13 * i:13 * i + 13] = (k, *a, *b, *c, *d)
    P = env.contacts.rows
    system_inputs_k(P, slots, X, edges, now, F)
    O = np.empty((n, 29))
    anti = np.empty(len(pairs))
    contact_update_system_k(starts, I, F, MOV, R, POS, V, W, II, IM, O, anti)
    fs._updated = (lay, env.psi_count, O)
    system_results_k(P, slots, O, MOV, I, now)
    for pair, e in zip(pairs, anti.tolist()):
        if e > 0.0:
            pair.integrated_anti_energy += e


@kernel
def system_inputs_k(P, slots, X, edges, now, F):
    """A several-point system's update inputs (update_system's F columns
    26-37) from its points' rows of the contact table P: recheck (or side 0
    a ball, X's third column), an edge pair's kept normal, the last normal
    (zero when none), the extra radii (X), span_s, now - last_time, N,
    last_gap_len."""
    for q in range(slots.shape[0]):
        k = slots[q]
        F[q, 26] = 1.0 if P[k, RECHECK] != 0.0 or X[q, 2] != 0.0 else 0.0
        F[q, 27] = 1.0 if edges[q] and P[k, NO_LAST_N] == 0.0 else 0.0
        for j in range(3):
            F[q, 28 + j] = P[k, LAST_N + j]
        F[q, 31] = X[q, 0]
        F[q, 32] = X[q, 1]
        F[q, 33] = P[k, SPAN]
        F[q, 34] = P[k, SPAN + 1]
        F[q, 35] = now - P[k, LAST_TIME]
        F[q, 36] = P[k, PRESSURE]
        F[q, 37] = P[k, LAST_GAP]


@kernel
def system_results_k(P, slots, O, MOV, I, now):
    """The fields put_update writes of a several-point system's update (its
    rows O, friction_kernels.contact_update_system_k) into the points' rows
    of the contact table P, recheck off and last_gap_len the gap; a fixed
    side's levers zero."""
    for q in range(slots.shape[0]):
        k = slots[q]
        m0 = MOV[I[q, 0]]
        m1 = MOV[I[q, 1]]
        P[k, GAP] = O[q, 0]
        P[k, LAST_GAP] = O[q, 0]
        for j in range(3):
            P[k, NORMAL + j] = O[q, 1 + j]
            P[k, LAST_N + j] = O[q, 1 + j]
            P[k, POINT + j] = O[q, 4 + j]
            P[k, T0 + j] = O[q, 7 + j]
            P[k, T1 + j] = O[q, 10 + j]
            P[k, R_CS + j] = O[q, 13 + j] if m0 else 0.0
            P[k, R_CS1 + j] = O[q, 16 + j] if m1 else 0.0
            P[k, RXN + j] = O[q, 19 + j] if m0 else 0.0
            P[k, RXN1 + j] = O[q, 22 + j] if m1 else 0.0
        P[k, NO_LAST_N] = 0.0
        P[k, INV_VM] = O[q, 25]
        P[k, BROKEN] = 1.0 if O[q, 26] != 0.0 else 0.0
        P[k, SPAN] = O[q, 27]
        P[k, SPAN + 1] = O[q, 28]
        P[k, LAST_TIME] = now
        P[k, RECHECK] = 0.0
        P[k, IMPACTS] = 0.0
        P[k, FRESH] = 0.0


def tangential_system(fs, env, dt: float) -> list:
    """5.6 for every point of a multi-contact system, per core pair last to
    first: the spring limit (sum of N mu inv_virt_mass_no_dir times dt^2),
    then its points last to first, the positive spring-energy gains into the
    pair's integrated_anti_energy (friction_kernels.tangential_system_k),
    clipped spans and rechecks into the rows. Returns the pairs in order."""
    lay = fs.layout()
    cores, cps, starts, I, MOV, II, IM, _, _, pairs, _, _, slots = lay
    R, POS, V, W = _core_states(fs, lay)
    P = env.contacts.rows
    O = fs.updated_rows(lay, env.psi_count)
    F = np.empty((len(cps), 20))
    F[:, 0:3] = P[slots][:, (PRESSURE, MU, INV_VM_NO_DIR)]
    if O is None:
        F[:, 3:5] = P[slots, SPAN:SPAN + 2]
        F[:, 5:11] = P[slots, T0:T1 + 3]
        F[:, 11:14] = P[slots, POINT:POINT + 3]
        F[:, 14:20] = P[slots, R_CS:R_CS1 + 3]
    else:
        F[:, 3:5] = O[:, 27:29]                 # span_s
        F[:, 5:11] = O[:, 7:13]                 # t0, t1
        F[:, 11:14] = O[:, 4:7]                 # p
        F[:, 14:20] = _lever_columns(O, MOV, I, 13)
    anti = np.fromiter(map(_ANTI, pairs), dtype=np.float64, count=len(pairs))
    SPAN_OUT = np.empty((len(cps), 2))
    CLIP = np.zeros(len(cps), dtype=np.bool_)
    tangential_system_k(starts, I, F, MOV, R, POS, V, W, II, IM, anti, dt, SPAN_OUT, CLIP)
    clipped = slots[CLIP]
    P[clipped, SPAN:SPAN + 2] = SPAN_OUT[CLIP]
    P[clipped, RECHECK] = 1.0
    _put_columns(fs, lay, _SPEEDS, (V, W))
    for pair, e in zip(pairs, anti.tolist()):
        pair.integrated_anti_energy = e
    return pairs


def _lever_columns(O, MOV, I, at: int):
    """Both sides' three columns of update_system's rows O from ``at`` (r_cs
    at 13, r x n at 19), zero for a side that does not move (ContactPoint
    keeps None there, which the passes read as zero)."""
    out = O[:, at:at + 6].copy()
    out[~MOV[I[:, 0]], 0:3] = 0.0
    out[~MOV[I[:, 1]], 3:6] = 0.0
    return out


def ease_pairs(fs, pairs) -> None:
    """5.7 of each core pair (due this PSI), in their points' rows of the
    contact table at once (ease_k)."""
    cps = [cp for pair in pairs for cp in pair.contacts]
    if not cps:
        return
    starts = np.zeros(len(pairs) + 1, dtype=np.int64)
    np.cumsum([len(pair.contacts) for pair in pairs], out=starts[1:])
    keys = {}
    K0 = np.fromiter([keys.setdefault(id(cp.core0), len(keys)) for cp in cps], dtype=np.int64, count=len(cps))
    table = fs.collision.environment.contacts
    ease_k(table.rows, table.slots(cps), starts, K0)


@kernel
def ease_k(P, slots, starts, K0):
    """5.7 per core pair: in its points with parallel normals, the spring
    components along the line joining two points are pulled towards their
    mean, each by 1 / n of the pair's n points (sgn -1 where the points'
    side-0 cores differ: K0, a key per point); then span_s = (f32(sa + dv .
    t0), f32(sb + dv . t1)) with each point's change dv (zero for a point
    with no partner). Pair q's points are rows starts[q] to starts[q + 1] -
    1 of ``slots``, their rows of the contact table P; a pair's values are
    all read before its new spans are written."""
    for q in range(starts.shape[0] - 1):
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
    the energy check in one pass (friction_kernels.normal_system_k). The
    sort, the deletion test, the history and the new N read and write the
    points' rows of the contact table."""
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
    if len(cps) > MAX_FRICTION_MATRIX:
        for core in fs.movable:
            core.fast_piling_allowed = True
        _put_columns(fs, lay, _SPEEDS, (None, None))
        return
    R, _, V, W, SC, WC = _core_states(fs, lay, pending=True)
    row = lay.row
    rows = list(map(row.__getitem__, cps))
    I = lay.I[rows]
    O = fs.updated_rows(lay, env.psi_count)
    if O is None:
        P = np.ascontiguousarray(T[slots][:, _SOLVE_COLUMNS])     # C order, as the other branch: one compiled version
    else:
        O = O[rows]
        P = np.empty((len(cps), 17))
        P[:, 0] = O[:, 0]                       # gap
        P[:, 1] = O[:, 25]                      # inv_vm
        P[:, 2:5] = O[:, 1:4]                   # n
        P[:, 5:11] = _lever_columns(O, lay.MOV, I, 19)
        P[:, 11:17] = _lever_columns(O, lay.MOV, I, 13)
    H = T[slots, NEG_PULL].astype(np.int64)
    NP = np.empty(len(cps))
    g = math.sqrt(sum(c * c for c in env.gravity))
    done = normal_system_k(I, lay.MOV, R, V, W, SC, WC, lay.II, lay.IM, lay.M, lay.RI, P, H, g, idt, NP)
    if done == 0:
        return
    T[slots, NEG_PULL] = H
    T[slots, PRESSURE] = NP
    if done == 1:
        _put_columns(fs, lay, _SPEEDS + _PENDING, (V, W, None, None))
    else:
        _put_columns(fs, lay, _PENDING, (None, None))


# the normal solve's point columns (normal_system_k's P): gap, inv_vm, n, both
# sides' r x n, both sides' r_cs
_SOLVE_COLUMNS = np.array([GAP, INV_VM, *range(NORMAL, NORMAL + 3), *range(RXN, RXN1 + 3), *range(R_CS, R_CS1 + 3)],
                          dtype=np.int64)
