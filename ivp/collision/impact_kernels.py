"""The single-impact solver (ivp-contacts 4.3-4.6) as a compiled kernel
(ivp.jit): the compression steps inside the friction cone, the frictionless
restitution and the rescue push on two trial bodies given as floats, in the
order of operations of the solver's description. A trial body is (fixed, R,
r, v, w, im, ii): rotation of its core, lever arm in core coordinates, trial
velocities (pending pushes included, 4.2), inverse mass and inverse rotation
inertia; a fixed one is never pushed and moves nowhere.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from ..state import layout as L
from ..fp import ANOMALY_V_FACTOR, ANOMALY_W_FACTOR
from ..kmath import f32_k, f32v_k, rot_mul_v_k, rot_t_mul_v_k, vcross, vdot
from ..umath import IDENTITY_R, ZERO
from .constants import (
    COLL_DETECT_MIN_INV_TIME,
    COMPRESSION_STEP_LIMIT,
    FIXED_VIRTUAL_MASS_FACTOR,
    IMPACT_EPS,
    IMPACT_STEP_FRACTION,
    INV_HALF_CONSERVATION_STEPS,
    MAX_DISTANCE_FOR_IMPACT_SYSTEM,
    MIN_COLL_DISTS,
    MIN_VERTICAL_SPEED_AT_COLLISION,
    MINIMUM_FRICTION_DIST,
    ROT_MAX_UNCERTAINTY,
    SAFETY_FACTOR_FOR_DELAY,
    SPEED_ADDON_SYSTEM_IMPACT,
)


@kernel
def lever_speed(fixed, R, r, v, w):
    """v + R (w x r) at the lever point (a fixed body's: zero)."""
    if fixed:
        return ZERO
    o = rot_mul_v_k(R, vcross(w, r))
    return (v[0] + o[0], v[1] + o[1], v[2] + o[2])


@kernel
def impulse_change(R, r, im, ii, J, d):
    """(dv, dw) of the impulse J d at the lever point (4.4 push)."""
    t = vcross(r, rot_t_mul_v_k(R, d))
    return ((J * d[0] * im, J * d[1] * im, J * d[2] * im),
            (J * ii[0] * t[0], J * ii[1] * t[1], J * ii[2] * t[2]))


@kernel
def _lever_change(R, r, im, ii, J, d):
    """The lever point's speed change from the impulse J d: dv + R (dw x r)."""
    dv, dw = impulse_change(R, r, im, ii, J, d)
    o = rot_mul_v_k(R, vcross(dw, r))
    return (dv[0] + o[0], dv[1] + o[1], dv[2] + o[2])


@kernel
def _point_response(R, r, im, ii, d):
    """|speed change of the lever point| per unit impulse along d."""
    x = _lever_change(R, r, im, ii, 1.0, d)
    return math.sqrt(vdot(x, x))


@kernel
def _push(fixed, R, r, im, ii, v, w, J, d):
    """A trial body pushed by J d: its new (v, w) and the change (for undo)."""
    if fixed:
        return v, w, ZERO, ZERO
    dv, dw = impulse_change(R, r, im, ii, J, d)
    return (v[0] + dv[0], v[1] + dv[1], v[2] + dv[2]), (w[0] + dw[0], w[1] + dw[1], w[2] + dw[2]), dv, dw


@kernel
def _undo(v, w, dv, dw):
    """The last push taken back (a fixed body's change is zero)."""
    return (v[0] - dv[0], v[1] - dv[1], v[2] - dv[2]), (w[0] - dw[0], w[1] - dw[1], w[2] - dw[2])


@kernel
def approx_cos(phi):
    """4.4: 1 - phi^2/2 + phi^4/24, stored f32."""
    p2 = phi * phi
    return f32_k(1.0 - p2 * 0.5 + p2 * p2 / 24.0)


@kernel
def _normalize(v):
    d = math.sqrt(vdot(v, v))
    if d == 0.0:
        return v
    return (v[0] / d, v[1] / d, v[2] / d)


@kernel
def direction(u, N, cos_c, sin_c):
    """4.4 direction(u, N): u's direction, clipped to the friction cone around -N."""
    d = _normalize(u)
    c = vdot(d, N)
    if c > 0.0:
        return d
    if c > -cos_c:
        t = _normalize((d[0] - c * N[0], d[1] - c * N[1], d[2] - c * N[2]))
        return (sin_c * t[0] - cos_c * N[0], sin_c * t[1] - cos_c * N[1], sin_c * t[2] - cos_c * N[2])
    return d


@kernel
def _rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb):
    """The relative velocity of B's lever point against A's."""
    b = lever_speed(fb, Rb, rb, vb, wb)
    a = lever_speed(fa, Ra, ra, va, wa)
    return (b[0] - a[0], b[1] - a[1], b[2] - a[2])


@kernel
def _rescue_push(fa, Ra, ra, ima, iia, va, wa, fb, Rb, rb, imb, iib, vb, wb, N, rescue, panic):
    """4.6 rescue_push(-N, panic): at least the rescue speed of separation;
    the new (va, wa, vb, wb)."""
    sep = vdot(_rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb), N)
    if panic and sep > 0.0:
        sep = 0.0
    want = rescue - sep
    if want < 0.0:
        return va, wa, vb, wb
    k = 0.0                             # s (change of s N) . N for B (s = 1), then A (s = -1)
    if not fb:
        k += vdot(_lever_change(Rb, rb, imb, iib, 1.0, N), N)
    if not fa:
        k -= vdot(_lever_change(Ra, ra, ima, iia, -1.0, N), N)
    J = want / (k + 1e-15)
    if J < 0.0:
        return va, wa, vb, wb
    vb, wb, _, _ = _push(fb, Rb, rb, imb, iib, vb, wb, J, N)
    va, wa, _, _ = _push(fa, Ra, ra, ima, iia, va, wa, -J, N)
    return va, wa, vb, wb


@kernel
def impact_solve(fa, Ra, ra, va, wa, ima, iia, fb, Rb, rb, vb, wb, imb, iib, N, mu, e, addon, system_pushes):
    """4.3-4.6 for trial bodies A and B (N from A to B): (u before the
    impact, A's and B's new v and w, vm_A, vm_B, the rescue speed, delaying)."""
    u = _rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb)
    u_before = u
    used_e = 1.0 - (1.0 - e) / (INV_HALF_CONSERVATION_STEPS * system_pushes + 1.0)
    rescue = (MIN_VERTICAL_SPEED_AT_COLLISION + addon) * SAFETY_FACTOR_FOR_DELAY
    minus_N = (-N[0], -N[1], -N[2])
    if fb:
        vm_A = 1.0 / _point_response(Ra, ra, ima, iia, minus_N)
        vm_B = FIXED_VIRTUAL_MASS_FACTOR * vm_A
    else:
        vm_B = 1.0 / _point_response(Rb, rb, imb, iib, N)
        vm_A = FIXED_VIRTUAL_MASS_FACTOR * vm_B if fa else 1.0 / _point_response(Ra, ra, ima, iia, minus_N)
    un = vdot(u, N)
    delaying = True
    if un > -IMPACT_EPS:
        va, wa, vb, wb = _rescue_push(fa, Ra, ra, ima, iia, va, wa, fb, Rb, rb, imb, iib, vb, wb, N, rescue, True)
        if system_pushes > 10:
            delaying = False
        return u_before, va, wa, vb, wb, vm_A, vm_B, rescue, delaying
    J0 = 2.0 * vm_A * vm_B / (vm_A + vm_B) * (-un)
    step = IMPACT_STEP_FRACTION * J0
    se = math.sqrt(used_e)
    tan_c = mu * (1.0 + se)
    phi = math.atan(tan_c)
    cos_c = approx_cos(phi)
    sin_c = cos_c * tan_c
    vn = -un
    give = vn * se + SPEED_ADDON_SYSTEM_IMPACT * math.sqrt(system_pushes)
    d = direction(u, N, cos_c, sin_c)
    count = 0
    while vn > 0.0 and count < COMPRESSION_STEP_LIMIT:
        count += 1
        va, wa, _, _ = _push(fa, Ra, ra, ima, iia, va, wa, step, d)
        vb, wb, _, _ = _push(fb, Rb, rb, imb, iib, vb, wb, -step, d)
        u = _rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb)
        vn = -vdot(u, N)
        d = direction(u, N, cos_c, sin_c)
    # 4.5 restitution, frictionless
    give += vn
    if give > 0.0 and count != COMPRESSION_STEP_LIMIT:
        va, wa, dva, dwa = _push(fa, Ra, ra, ima, iia, va, wa, 1.0, minus_N)
        vb, wb, dvb, dwb = _push(fb, Rb, rb, imb, iib, vb, wb, -1.0, minus_N)
        s1 = vdot(_rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb), N)
        ds = s1 + vn
        J = give / ds if abs(ds) > 1e-4 else 0.0
        va, wa = _undo(va, wa, dva, dwa)
        vb, wb = _undo(vb, wb, dvb, dwb)
        va, wa, _, _ = _push(fa, Ra, ra, ima, iia, va, wa, J, minus_N)
        vb, wb, _, _ = _push(fb, Rb, rb, imb, iib, vb, wb, -J, minus_N)
    va, wa, vb, wb = _rescue_push(fa, Ra, ra, ima, iia, va, wa, fb, Rb, rb, imb, iib, vb, wb, N, rescue, False)
    return u_before, va, wa, vb, wb, vm_A, vm_B, rescue, delaying


# --- 4.6, 4.8 the impact system's loop --------------------------------------------------------
# A core's row (CF: floats, CI: ints) and a contact point's row (PF, PI), as
# ImpactSystem lays them out for impact_system_loop_k.
SPEED, ROT_SPEED, SPEED_CHANGE, ROT_SPEED_CHANGE, ROT = 0, 3, 6, 9, 12   # CF columns (3, 3, 3, 3, 9 wide)
INV_MASS, INV_ROT_INERTIA, UPPER_LIMIT_RADIUS, SURFACE_TURN, CORE_FLOATS = 21, 22, 25, 26, 27
FIXED, TEMP_UNMOVABLE, KNOWN, PUSHED, IMPACTS, COUNTED, CHANGED, PUSHED_AGAIN, CORE_INTS = range(9)  # CI
NORMAL, GAP, LEVER0, LEVER1, RXN0, RXN1, MU, E, REACHED, ADDON, POINT_FLOATS = 0, 3, 4, 7, 10, 13, 16, 17, 18, 19, 20
CORE0, CORE1, BALL0, BALL1, FRESH, SYSTEM_IMPACTS, POINT_INTS = range(7)        # PI columns
# impact_system_loop_k's answers
LOOP_DONE, LOOP_UNKNOWN_CORE, LOOP_AFTER_IMPACT, LOOP_OVER_LIMIT = range(4)


@kernel
def rescue_addon_k(gap, idt, turn0, rotating0, turn1, rotating1):
    """4.6 get_rescue_speed_impact: catch up a gap below 1 cm within a PSI,
    plus each rotating (movable, non-ball) side's surface_turn_k per PSI; doubled."""
    a = 0.0
    if gap < MIN_COLL_DISTS:
        a = (MIN_COLL_DISTS - gap) * idt
    if rotating0:
        a += turn0 * idt
    if rotating1:
        a += turn1 * idt
    return 2.0 * a


@kernel
def surface_turn_k(w, upper_limit_radius):
    """4.6: the worst-case surface rotation of a core turning at w within
    1/200 s (the angle at most 0.5 rad): (1 - cos angle) upper_limit_radius."""
    a2 = min(vdot(w, w) / (COLL_DETECT_MIN_INV_TIME * COLL_DETECT_MIN_INV_TIME),
             ROT_MAX_UNCERTAINTY * ROT_MAX_UNCERTAINTY)
    return (1.0 - math.cos(math.sqrt(a2))) * upper_limit_radius


@kernel
def core_in_k(S, row, CF, c):
    """ImpactSystem's floats of a movable core (Rows.refresh) from its row
    of the body table S into row c of CF: the speeds and pending changes
    (the motion block), R, the inverse mass and inertia, upper_limit_radius
    and its surface_turn_k."""
    for j in range(L.MOTION_END):
        CF[c, SPEED + j] = S[row, L.SPEED + j]
    for j in range(9):
        CF[c, ROT + j] = S[row, L.M_R + j]
    CF[c, INV_MASS] = S[row, L.INV_M]
    for j in range(3):
        CF[c, INV_ROT_INERTIA + j] = S[row, L.INV_I + j]
    CF[c, UPPER_LIMIT_RADIUS] = S[row, L.RADIUS]
    CF[c, SURFACE_TURN] = surface_turn_k((S[row, L.ROT_SPEED], S[row, L.ROT_SPEED + 1], S[row, L.ROT_SPEED + 2]),
                                         S[row, L.RADIUS])


@kernel
def points_in_k(P, slots, CI, PF, PI, at):
    """ImpactSystem's rows at, at + 1, ... of PF and PI (their cores' rows
    and ball flags already in PI) from the points' rows ``slots`` of the
    contact table P: n, gap, both sides' r_cs and r x n (zero for a fixed
    side), mu, e, distance_reached_in_time, rescue_speed_addon, the test's
    freshness and impacts_while_system."""
    for q in range(slots.shape[0]):
        k = slots[q]
        i = at + q
        fixed0 = CI[PI[i, CORE0], FIXED] != 0
        fixed1 = CI[PI[i, CORE1], FIXED] != 0
        for j in range(3):
            PF[i, NORMAL + j] = P[k, L.NORMAL + j]
            PF[i, LEVER0 + j] = 0.0 if fixed0 else P[k, L.R_CS + j]
            PF[i, LEVER1 + j] = 0.0 if fixed1 else P[k, L.R_CS1 + j]
            PF[i, RXN0 + j] = 0.0 if fixed0 else P[k, L.RXN + j]
            PF[i, RXN1 + j] = 0.0 if fixed1 else P[k, L.RXN1 + j]
        PF[i, GAP] = P[k, L.GAP]
        PF[i, MU] = P[k, L.MU]
        PF[i, E] = P[k, L.ELASTICITY]
        PF[i, REACHED] = P[k, L.REACHED]
        PF[i, ADDON] = P[k, L.ADDON]
        PI[i, FRESH] = 1 if P[k, L.FRESH] != 0.0 else 0
        PI[i, SYSTEM_IMPACTS] = int(P[k, L.IMPACTS])


@kernel
def points_out_k(P, slots, PF, PI):
    """What the loop changed of the points (their test, impacts_while_system,
    distance_reached_in_time and rescue_speed_addon) into their rows
    ``slots`` of the contact table P; a slot -1 (a point deleted during the
    loop) is skipped."""
    for q in range(slots.shape[0]):
        k = slots[q]
        if k < 0:
            continue
        P[k, L.FRESH] = 1.0 if PI[q, FRESH] != 0 else 0.0
        P[k, L.IMPACTS] = PI[q, SYSTEM_IMPACTS]
        P[k, L.REACHED] = PF[q, REACHED]
        P[k, L.ADDON] = PF[q, ADDON]


@kernel
def _v3(A, i, j):
    return (A[i, j], A[i, j + 1], A[i, j + 2])


@kernel
def _put3(A, i, j, v):
    A[i, j] = v[0]
    A[i, j + 1] = v[1]
    A[i, j + 2] = v[2]


@kernel
def _rot(CF, c):
    return (CF[c, ROT], CF[c, ROT + 1], CF[c, ROT + 2], CF[c, ROT + 3], CF[c, ROT + 4], CF[c, ROT + 5],
            CF[c, ROT + 6], CF[c, ROT + 7], CF[c, ROT + 8])


@kernel
def _unmovable(CI, c):
    """Fixed, or temporarily unmovable (4.7: past max_collisions_per_psi, at
    rest for the rest of the PSI): the solver pushes it no more (4.2's fixed
    core), so its impact count stops there and bounds the PSI's impacts."""
    return CI[c, FIXED] != 0 or CI[c, TEMP_UNMOVABLE] != 0


@kernel
def _coll_distances(CF, CI, PF, PI, rows, count, reached, idt, dt):
    """4.8 calc_coll_distance of the points rows[:count]: the gap left after
    one PSI at the current speeds (closing speed of 5.5 plus half the rescue
    addon), into PF and ``reached``; marks their tests fresh. One call for
    them all: a kernel call passing arrays costs more than a test."""
    for i in range(count):
        k = rows[i]
        PI[k, FRESH] = 1
        gap = PF[k, GAP]
        if gap > MAX_DISTANCE_FOR_IMPACT_SYSTEM:
            PF[k, REACHED] = reached[k] = 1e20
            continue
        c0 = PI[k, CORE0]
        c1 = PI[k, CORE1]
        m0 = CI[c0, FIXED] == 0
        m1 = CI[c1, FIXED] == 0
        addon = rescue_addon_k(gap, idt, CF[c0, SURFACE_TURN], m0 and PI[k, BALL0] == 0,
                               CF[c1, SURFACE_TURN], m1 and PI[k, BALL1] == 0)
        PF[k, ADDON] = addon
        n = (PF[k, NORMAL], PF[k, NORMAL + 1], PF[k, NORMAL + 2])
        s = 0.0
        if m0:
            s += _side_closing((CF[c0, SPEED], CF[c0, SPEED + 1], CF[c0, SPEED + 2]),
                               (CF[c0, ROT_SPEED], CF[c0, ROT_SPEED + 1], CF[c0, ROT_SPEED + 2]), n,
                               (PF[k, RXN0], PF[k, RXN0 + 1], PF[k, RXN0 + 2]))
        if m1:
            s -= _side_closing((CF[c1, SPEED], CF[c1, SPEED + 1], CF[c1, SPEED + 2]),
                               (CF[c1, ROT_SPEED], CF[c1, ROT_SPEED + 1], CF[c1, ROT_SPEED + 2]), n,
                               (PF[k, RXN1], PF[k, RXN1 + 1], PF[k, RXN1 + 2]))
        PF[k, REACHED] = reached[k] = gap - (s + 0.5 * addon) * dt


@kernel
def _side_closing(v, w, n, rxn):
    """One side's share of 5.5's closing speed: v n + w (r x n)_cs."""
    return v[0] * n[0] + v[1] * n[1] + v[2] * n[2] + w[0] * rxn[0] + w[1] * rxn[1] + w[2] * rxn[2]


@kernel
def _points_of_cores(PI, nc):
    """The rows of each core's points (core c's: idx[start[c]:start[c + 1]],
    in row order), for marking a pushed core's tests stale."""
    m = PI.shape[0]
    start = np.zeros(nc + 1, dtype=np.int64)
    for k in range(m):
        start[PI[k, CORE0] + 1] += 1
        if PI[k, CORE1] != PI[k, CORE0]:
            start[PI[k, CORE1] + 1] += 1
    for c in range(nc):
        start[c + 1] += start[c]
    fill = start[:nc].copy()
    idx = np.empty(start[nc], dtype=np.int64)
    for k in range(m):
        c0 = PI[k, CORE0]
        c1 = PI[k, CORE1]
        idx[fill[c0]] = k
        fill[c0] += 1
        if c1 != c0:
            idx[fill[c1]] = k
            fill[c1] += 1
    return start, idx


@kernel
def impact_system_loop_k(CF, CI, PF, PI, forced, n, limit, idt, dt, max_velocity, max_w, max_collisions):
    """4.8 loop_once over the rows until the loop needs Python or ends: find
    the contact point that reaches below minimum_friction_dist soonest (pairs
    newest first, a pair's points last first: the rows from the last; stale
    tests recomputed), solve its impact (4.2-4.7) and mark the tests of the
    cores pushed again stale.
    ``forced``: a contact point chosen before the caller synchronised its cores.
    Returns (answer, the contact point, loops so far, the cores pushed (-1: none)):
    LOOP_DONE none left; LOOP_UNKNOWN_CORE the best one has a core to
    synchronise first; LOOP_AFTER_IMPACT the impact pushed a core for the first
    time or past max_collisions (the caller adds its pairs or calls the anomaly manager);
    LOOP_OVER_LIMIT more than ``limit`` loops.

    A point of two unmovable cores is passed over (neither fixed nor
    temporarily unmovable changes inside a call); the tests to recompute
    are listed as they go stale (a test depends on its own point and the
    cores only, so the order of recomputing is free) and the reached
    distances kept in one array, so a loop touches the stale points, not
    every row's data."""
    m = PF.shape[0]
    start, idx = _points_of_cores(PI, CF.shape[0])
    skip = np.empty(m, dtype=np.bool_)
    reached = np.empty(m)
    stale = np.empty(m, dtype=np.int64)
    ns = 0
    for k in range(m):
        skip[k] = _unmovable(CI, PI[k, CORE0]) and _unmovable(CI, PI[k, CORE1])
        reached[k] = np.inf if skip[k] else PF[k, REACHED]
        if not skip[k] and PI[k, FRESH] == 0:
            stale[ns] = k
            ns += 1
    while True:
        best = forced
        forced = -1
        if best < 0:
            _coll_distances(CF, CI, PF, PI, stale, ns, reached, idt, dt)
            ns = 0
            best_d = MINIMUM_FRICTION_DIST
            for k in range(m - 1, -1, -1):          # the rows are oldest pair first
                if reached[k] < best_d:
                    best = k
                    best_d = reached[k]
            if best < 0:
                return LOOP_DONE, -1, n, -1, -1
            for c in (PI[best, CORE0], PI[best, CORE1]):
                if CI[c, FIXED] == 0 and CI[c, KNOWN] == 0:
                    return LOOP_UNKNOWN_CORE, best, n, -1, -1
        PI[best, SYSTEM_IMPACTS] += 1
        _, p0, p1 = _impact(CF, CI, PF, PI, best, PF[best, ADDON], PI[best, SYSTEM_IMPACTS], max_velocity, max_w)
        n += 1
        tail = False
        for p in (p0, p1):
            if p < 0:
                continue
            if CI[p, PUSHED] == 0 or (CI[p, IMPACTS] > max_collisions and CI[p, TEMP_UNMOVABLE] == 0):
                tail = True
            if CI[p, PUSHED] != 0:
                CI[p, PUSHED_AGAIN] = 1
                for i in range(start[p], start[p + 1]):
                    k = idx[i]
                    if PI[k, FRESH] != 0:
                        PI[k, FRESH] = 0
                        if not skip[k]:
                            stale[ns] = k
                            ns += 1
        if tail:
            return LOOP_AFTER_IMPACT, best, n, p0, p1
        if n > limit:
            return LOOP_OVER_LIMIT, best, n, -1, -1


@kernel
def _trial(CF, CI, c, r):
    """4.2 core c's trial body (fixed, R, r, v, w, im, ii): pending pushes
    included; a temporarily unmovable core's is a fixed one (_unmovable)."""
    if _unmovable(CI, c):
        return True, IDENTITY_R, ZERO, ZERO, ZERO, 0.0, ZERO
    s = _v3(CF, c, SPEED)
    ds = _v3(CF, c, SPEED_CHANGE)
    w = _v3(CF, c, ROT_SPEED)
    dw = _v3(CF, c, ROT_SPEED_CHANGE)
    return (False, _rot(CF, c), r, (s[0] + ds[0], s[1] + ds[1], s[2] + ds[2]),
            (w[0] + dw[0], w[1] + dw[1], w[2] + dw[2]), CF[c, INV_MASS], _v3(CF, c, INV_ROT_INERTIA))


@kernel
def impact_of_point_k(CF, CI, PF, PI, k, addon, system_pushes, max_velocity, max_w):
    """4.2-4.7 on contact point k (solve_single_impact): (u before the impact,
    the cores pushed, in order, -1: none)."""
    return _impact(CF, CI, PF, PI, k, addon, system_pushes, max_velocity, max_w)


@kernel
def _impact(CF, CI, PF, PI, k, addon, system_pushes, max_velocity, max_w):
    """4.2-4.7 on contact point k: the solve in solver order (A fixed if side
    1 is, N from A to B), then the write-back; (u before the impact, the
    cores pushed, in order, -1: none); none if neither core can be pushed."""
    c0 = PI[k, CORE0]
    c1 = PI[k, CORE1]
    n = _v3(PF, k, NORMAL)
    if _unmovable(CI, c1):
        if _unmovable(CI, c0):
            return ZERO, -1, -1
        a, b, N = c1, c0, (-n[0], -n[1], -n[2])
        fa, Ra, ra, va, wa, ima, iia = _trial(CF, CI, c1, ZERO)
        fb, Rb, rb, vb, wb, imb, iib = _trial(CF, CI, c0, _v3(PF, k, LEVER0))
    else:
        a, b, N = c0, c1, n
        fa, Ra, ra, va, wa, ima, iia = _trial(CF, CI, c0, _v3(PF, k, LEVER0))
        fb, Rb, rb, vb, wb, imb, iib = _trial(CF, CI, c1, _v3(PF, k, LEVER1))
    u, va, wa, vb, wb, vm_a, vm_b, rescue, delaying = impact_solve(
        fa, Ra, ra, va, wa, ima, iia, fb, Rb, rb, vb, wb, imb, iib, N, PF[k, MU], PF[k, E], addon, system_pushes)
    # 4.7 anomaly clipping, the count, the delay test
    if not fa:
        va, wa = _clip(va, wa, max_velocity, max_w)
        _count(CI, a, 1)
    if not fb:
        vb, wb = _clip(vb, wb, max_velocity, max_w)
        _count(CI, b, 1)
    if vm_a > vm_b:
        x, fx, Rx, rx, vx, wx, y, fy, Ry, ry, vy, wy, y_is_b = a, fa, Ra, ra, va, wa, b, fb, Rb, rb, vb, wb, True
    else:
        x, fx, Rx, rx, vx, wx, y, fy, Ry, ry, vy, wy, y_is_b = b, fb, Rb, rb, vb, wb, a, fa, Ra, ra, va, wa, False
    if delaying and not fx:
        s = _v3(CF, x, SPEED)
        w = _v3(CF, x, ROT_SPEED)
        xs = lever_speed(fx, Rx, rx, s, w)
        ys = lever_speed(fy, Ry, ry, vy, wy)
        if y_is_b:
            rel = (ys[0] - xs[0], ys[1] - xs[1], ys[2] - xs[2])
        else:
            rel = (xs[0] - ys[0], xs[1] - ys[1], xs[2] - ys[2])
        closing = -vdot(rel, N)
        if closing < -rescue / SAFETY_FACTOR_FOR_DELAY:
            _set(CF, CI, y, fy, vy, wy)
            _put3(CF, x, SPEED_CHANGE, f32v_k((vx[0] - s[0], vx[1] - s[1], vx[2] - s[2])))
            _put3(CF, x, ROT_SPEED_CHANGE, f32v_k((wx[0] - w[0], wx[1] - w[1], wx[2] - w[2])))
            CI[x, CHANGED] = 1
            _count(CI, x, -1)
            return u, (-1 if fy else y), -1
    _set(CF, CI, a, fa, va, wa)
    _set(CF, CI, b, fb, vb, wb)
    if fa:
        return u, (-1 if fb else b), -1
    return u, a, (-1 if fb else b)


@kernel
def _count(CI, c, k):
    """4.7: impacts_since_last_PSI += k."""
    CI[c, IMPACTS] += k
    CI[c, COUNTED] = 1
    CI[c, CHANGED] = 1


@kernel
def _set(CF, CI, c, fixed, v, w):
    """4.7: a pushed core takes its trial velocities (stored f32), its pending changes cleared."""
    if fixed:
        return
    _put3(CF, c, SPEED, f32v_k(v))
    w = f32v_k(w)
    _put3(CF, c, ROT_SPEED, w)
    CF[c, SURFACE_TURN] = surface_turn_k(w, CF[c, UPPER_LIMIT_RADIUS])
    _put3(CF, c, SPEED_CHANGE, ZERO)
    _put3(CF, c, ROT_SPEED_CHANGE, ZERO)
    CI[c, CHANGED] = 1


@kernel
def _clip(v, w, max_velocity, max_w):
    """4.7: the anomaly limits of dynamics 9 on trial velocities."""
    v2 = vdot(v, v)
    if v2 > max_velocity * max_velocity:
        k = max_velocity * ANOMALY_V_FACTOR / math.sqrt(v2)
        v = (v[0] * k, v[1] * k, v[2] * k)
    w2 = vdot(w, w)
    if w2 > max_w * max_w:
        k = max_w * ANOMALY_W_FACTOR / math.sqrt(w2)
        w = (w[0] * k, w[1] * k, w[2] * k)
    return v, w
