"""3.5's event search compiled (ivp.jit): mindist_search.event_search's raster,
bracket and root on Mindist.value_function's values, the same operations
in the same order, for a ball against another ball, against a feature of
a body whose pose does not change before the next PSI (a fixed body, or a
frozen one) or against a feature of a moving convex hull, and for two
convex pieces.

A core's pose at t is dynamics 4.1's, from its Core.pose_parts (the centre
moved linearly from the last PSI, the rotation slerped; a fixed or frozen
core's the last PSI's). A search runs on :func:`_value` of its context
``ctx`` = (kind, D, PA, BA, PB, BB, none, B0, B1, Bu, q0_cs, q1_cs, u_cs,
offset): kind 0-3 a ball (:func:`_gap` reads kind and D; BA the ball's
pose parts, BB the other's; PA unused), MOVING + 0-2 a ball against a
moving hull's feature (PB the hull as :func:`piece_at` reads it, D the
feature's indices: :func:`_feature_at`), PIECES two pieces (PA, PB as :func:`piece_at`
reads them, BA, BB their cores' pose parts, ``none`` the kernels' no
previous features); the virtual plane's points q0_cs on core B0 and q1_cs
on B1, its direction u_cs on Bu (:func:`_plane`), and a ball's edge offset.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from ..kmath import f32_k, mat_mul_point_k, quat_slerp_k, quat_to_matrix_k, rot_mul_v_k, rot_t_mul_v_k
from ..state.layout import DELTA, I_DT, M_POS, M_R, POS, Q_LAST, Q_NEXT, STATE, T_LAST
from ..states import MT_NOT_SIM
from .constants import EVENT_RASTER, EVENT_RASTER_STEPS, NEAR_NOW, ROOT_MAX_ITERATIONS, ROOT_TOLERANCE
from .feature_kernels import normals, point_edge, point_face, point_point, unit_k
from .piece_kernels import edge_spheres, moved_vertices, pieces_closest

BALL = 3                        # a search context's kind: a ball against a ball (0-2: KIND_CODE's P, K, F)
PIECES = 4                      # two convex pieces
MOVING = 5                      # 5-7: a ball against a moving hull's P, K, F


@kernel
def centre_k(t, B):
    """core.centre_at on a core's pose parts B = (t_last, state, q_last,
    q_next, i_dt, p, d, m)."""
    dt = t - B[0]
    if B[1] < MT_NOT_SIM and dt != 0.0:
        p = B[5]
        d = B[6]
        return (p[0] + d[0] * dt, p[1] + d[1] * dt, p[2] + d[2] * dt)
    return B[7][1]


@kernel
def row_pose_parts(S, r):
    """Core.pose_parts of the core at row r of the body table S."""
    return (S[r, T_LAST], int(S[r, STATE]), (S[r, Q_LAST], S[r, Q_LAST + 1], S[r, Q_LAST + 2], S[r, Q_LAST + 3]),
            (S[r, Q_NEXT], S[r, Q_NEXT + 1], S[r, Q_NEXT + 2], S[r, Q_NEXT + 3]), S[r, I_DT],
            (S[r, POS], S[r, POS + 1], S[r, POS + 2]), (S[r, DELTA], S[r, DELTA + 1], S[r, DELTA + 2]),
            ((S[r, M_R], S[r, M_R + 1], S[r, M_R + 2], S[r, M_R + 3], S[r, M_R + 4], S[r, M_R + 5], S[r, M_R + 6],
              S[r, M_R + 7], S[r, M_R + 8]), (S[r, M_POS], S[r, M_POS + 1], S[r, M_POS + 2])))


@kernel
def _pose(t, B):
    """core.pose_at on a core's pose parts."""
    dt = t - B[0]
    if B[1] < MT_NOT_SIM and dt != 0.0:
        p = B[5]
        d = B[6]
        return quat_to_matrix_k(quat_slerp_k(B[2], B[3], B[4] * dt)), (p[0] + d[0] * dt, p[1] + d[1] * dt,
                                                                         p[2] + d[2] * dt)
    return B[7]


@kernel
def _plane_at(t_now, B0, q0, B1, q1, Bu, u):
    """mindist._moving_plane's body-fixed parts: q0 on core B0, q1 on B1 and
    the direction u on Bu, from their world values at t_now."""
    R, v = _pose(t_now, B0)
    q0_cs = rot_t_mul_v_k(R, (q0[0] - v[0], q0[1] - v[1], q0[2] - v[2]))
    R, v = _pose(t_now, B1)
    q1_cs = rot_t_mul_v_k(R, (q1[0] - v[0], q1[1] - v[1], q1[2] - v[2]))
    u_cs = rot_t_mul_v_k(_pose(t_now, Bu)[0], u)
    return q0_cs, q1_cs, u_cs


@kernel
def _plane(t, B0, B1, Bu, q0_cs, q1_cs, u_cs):
    """mindist._moving_plane's f(t): (q0(t) - q1(t)) . u(t)."""
    R0, v0 = _pose(t, B0)
    R1, v1 = _pose(t, B1)
    a = rot_mul_v_k(R0, q0_cs)
    b = rot_mul_v_k(R1, q1_cs)
    d = rot_mul_v_k(_pose(t, Bu)[0], u_cs)
    return ((v0[0] + a[0] - v1[0] - b[0]) * d[0] + (v0[1] + a[1] - v1[1] - b[1]) * d[1]
            + (v0[2] + a[2] - v1[2] - b[2]) * d[2])


# --- a ball ----------------------------------------------------------------------------

@kernel
def _feature_at(t, kind, D, P, B):
    """features.world_feature at t of a moving hull's feature (kind MOVING +
    0 P, 1 K, 2 F; D[0]: its vertex indices, or the face's), the piece moved
    to its core's pose at t as Shape.piece_world moves it: the rows _gap
    reads (F: a, b, c and features.face_data's unit normal of (b - a) x (c - a))."""
    W = piece_at(t, P, B, False)[0]
    T = P[1]
    out = np.zeros((4, 3))
    if kind == MOVING + 2:
        f = int(D[0, 0])
        a = (W[T[f, 0], 0], W[T[f, 0], 1], W[T[f, 0], 2])
        b = (W[T[f, 1], 0], W[T[f, 1], 1], W[T[f, 1], 2])
        c = (W[T[f, 2], 0], W[T[f, 2], 1], W[T[f, 2], 2])
        u = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
        v = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
        n = unit_k((u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]))[1]
        for j in range(3):
            out[0, j] = a[j]
            out[1, j] = b[j]
            out[2, j] = c[j]
            out[3, j] = n[j]
        return out
    for r in range(2 if kind == MOVING + 1 else 1):
        i = int(D[0, r])
        for j in range(3):
            out[r, j] = W[i, j]
    return out


@kernel
def _gap(t, kind, D, B, B1, P1):
    """pair_geometry's gap at t of the ball's centre against the other side:
    ``kind`` BALL, or 0 P, 1 K, 2 F with the feature's world points in
    the rows of D (F: a, b, c and the outward normal; K: the ends; P: the
    point), or MOVING + 0-2 with the moving hull P1's feature (_feature_at)."""
    if kind >= MOVING:
        D = _feature_at(t, kind, D, P1, B1)
        kind -= MOVING
    q = centre_k(t, B)
    if kind == BALL:
        return point_point(q, centre_k(t, B1))[0]
    a = (D[0, 0], D[0, 1], D[0, 2])
    if kind == 2:
        return point_face(q, a, (D[1, 0], D[1, 1], D[1, 2]), (D[2, 0], D[2, 1], D[2, 2]),
                          (D[3, 0], D[3, 1], D[3, 2]), False)[0]
    if kind == 1:
        return point_edge(q, a, (D[1, 0], D[1, 1], D[1, 2]), False)[0]
    return point_point(q, a)[0]


@kernel
def _value(t, ctx):
    """Mindist.value_function at t. A ball: F the gap; K the gap, or the
    virtual plane plus offset when smaller; P and a ball the gap, or the
    plane when 1.2 times it is smaller (the plane: the ball's centre against
    the other side's closest point, along the other's direction). Two pieces:
    the closest distance, or the plane's value where the pieces are apart
    but the plane is negative."""
    kind, D, PA, BA, PB, BB, none, B0, B1, Bu, q0_cs, q1_cs, u_cs, offset = ctx
    if kind == PIECES:
        return _piece_value(t, _closest(t, PA, BA, PB, BB, none), ctx)
    g = _gap(t, kind, D, BA, BB, PB)
    if kind >= MOVING:
        kind -= MOVING
    if kind == 2:
        return g
    p = _plane(t, B0, B1, Bu, q0_cs, q1_cs, u_cs)
    if kind == 1:
        x = p + offset
        return x if x < g else g
    return p if 1.2 * p < g else g


@kernel
def ball_event_search_k(kind, D, B, B1, P1, offset, thr, real, dev, t_now, t_max, base):
    """event_search for a ball (pose parts B) against the other side (B1;
    kind, D and the moving hull P1 as :func:`_gap` reads them): (True, t)
    of the first t in [t_now, t_max) at which the value reaches thr, or
    (False, 0); ``base`` the time manager's base time (:func:`_settled`)."""
    q0_cs = (0.0, 0.0, 0.0)
    q1_cs = (0.0, 0.0, 0.0)
    u_cs = (0.0, 0.0, 0.0)
    fk = kind - MOVING if kind >= MOVING else kind
    if fk != 2:                         # _moving_plane(c0, q, c1, w, c1, -n, t_now)
        W = _feature_at(t_now, kind, D, P1, B1) if kind >= MOVING else D
        q = centre_k(t_now, B)
        if fk == BALL:
            gap, n, _, _, _ = point_point(q, centre_k(t_now, B1))
        elif fk == 1:
            gap, n, _, _, _ = point_edge(q, (W[0, 0], W[0, 1], W[0, 2]), (W[1, 0], W[1, 1], W[1, 2]), False)
        else:
            gap, n, _, _, _ = point_point(q, (W[0, 0], W[0, 1], W[0, 2]))
        w = (q[0] + n[0] * gap, q[1] + n[1] * gap, q[2] + n[2] * gap)
        q0_cs, q1_cs, u_cs = _plane_at(t_now, B, q, B1, w, B1, (-n[0], -n[1], -n[2]))
    ctx = (kind, D, P1, B, P1, B1, (-1, -1, -1, -1, -1, -1), B, B1, B1, q0_cs, q1_cs, u_cs, offset)
    return _search(ctx, _value(t_now, ctx), thr, real, dev, t_now, t_max, base)


# --- two convex pieces -------------------------------------------------------------------

@kernel
def piece_at(t, P, B, spheres):
    """Shape.piece_world's kernel arrays and centre of a piece at t: P = (V,
    T, E, two, pl, N, M, H, centre, moving); a moving one's are its local
    ones, moved to the core's pose at t as Piece.transformed moves them.
    ``spheres``: its edge spheres are read (pieces_closest reads side B's
    only); else a moving piece's local ones stand in, unmoved."""
    V, T, E, two, pl, N, M, H, c, moving = P
    if not moving:
        return V, T, E, two, pl, N, M, H, c
    R, vv = _pose(t, B)
    wpl = np.zeros(4)
    if two:
        n = rot_mul_v_k(R, (pl[0], pl[1], pl[2]))
        wpl[0] = n[0]
        wpl[1] = n[1]
        wpl[2] = n[2]
        wpl[3] = pl[3] + n[0] * vv[0] + n[1] * vv[1] + n[2] * vv[2]
    W = moved_vertices(V, R, vv)
    if spheres:
        M, H = edge_spheres(W, E)
    return W, T, E, two, wpl, normals(W, T, two, wpl), M, H, mat_mul_point_k((R, vv), c)


@kernel
def _closest(t, PA, BA, PB, BB, none):
    """value_function's closest(t): pieces_closest of the two pieces at t."""
    VA, TA, EA, twoA, plA, NA, _, _, cA = piece_at(t, PA, BA, False)
    VB, TB, EB, twoB, plB, NB, MB, HB, cB = piece_at(t, PB, BB, True)
    return pieces_closest(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, none)[0]


@kernel
def _piece_value(t, d, ctx):
    """The polygon value at t from the pieces' closest distance d there: d,
    or the virtual plane's value where d is positive but the plane is negative."""
    if d > 0.0:
        v = _plane(t, ctx[7], ctx[8], ctx[9], ctx[10], ctx[11], ctx[12])
        if v < 0.0:
            return v
    return d


@kernel
def piece_event_search_k(d0, PA, BA, PB, BB, none, sides, q, n, thr, real, dev, t_now, t_max, base):
    """event_search for two convex pieces (PA, PB as :func:`piece_at` reads
    them, BA, BB their cores' pose parts; ``none`` the kernels' no previous
    features): the plane through the sides' closest points at t_now (q on
    side 0, normal n), ``sides`` the pieces (0 A, 1 B) of side 0, side 1 and
    the face the plane's direction is fixed on; ``base`` as ball_event_search_k's.
    ``d0``: the pieces' closest distance at t_now with no previous pair, when
    the caller measured it (piece_kernels.pieces_measure_fresh), else NaN."""
    if d0 != d0:
        d0 = _closest(t_now, PA, BA, PB, BB, none)
    B0 = BA if sides[0] == 0 else BB
    B1 = BA if sides[1] == 0 else BB
    Bu = BA if sides[2] == 0 else BB
    w = (q[0] + n[0] * d0, q[1] + n[1] * d0, q[2] + n[2] * d0)
    q0_cs, q1_cs, u_cs = _plane_at(t_now, B0, q, B1, w, Bu, (-n[0], -n[1], -n[2]))
    ctx = (PIECES, np.zeros((0, 3)), PA, BA, PB, BB, none, B0, B1, Bu, q0_cs, q1_cs, u_cs, 0.0)
    return _search(ctx, _piece_value(t_now, d0, ctx), thr, real, dev, t_now, t_max, base)  # closest(t_now) is d0


# --- the search ----------------------------------------------------------------------------

@kernel
def _search(ctx, v_now, thr, real, dev, t_now, t_max, base):
    """mindist_search.raster_search on _value(t, ctx), v_now its value at t_now:
    (True, t) or (False, 0)."""
    if v_now > thr:
        return _first_crossing(ctx, thr, dev, t_now, v_now, t_now, t_max, base)
    t0 = t_now
    v0 = v_now
    while t0 < t_max:
        s = (v0 - real) / dev
        _, t1 = _raster_step(t0, s if s > 0.0 else 0.0, t_max)      # max(0.0, s)
        v1 = _value(t1, ctx)
        if v1 > thr:
            if t1 > t_max:
                return False, 0.0
            return _first_crossing(ctx, thr, dev, t1, v1, t_now, t_max, base)
        if v1 <= v_now:
            return True, t0
        t0 = t1
        v0 = v1
    return False, 0.0


@kernel
def _raster_step(t0, step, t_max):
    """The raster steps (at least one) of ``step`` from t0, the step cut to
    just past t_max, and the time reached."""
    if t0 + step > t_max:
        step = t_max - t0 + 1e-8
    n = int(step * 200.0)
    if n < 1:
        n = 1
    return n, t0 + n * EVENT_RASTER


@kernel
def _round_half_even(x) -> int:
    """Python's round(x) for a float."""
    r = math.floor(x)
    f = x - r
    if f > 0.5 or (f == 0.5 and r % 2.0 != 0.0):
        r += 1.0
    return int(r)


@kernel
def _first_crossing(ctx, thr, dev, t0, v0, t_now, t_max, base):
    """mindist._first_crossing on _value(t, ctx)."""
    if v0 <= thr:
        return True, t0
    k = _round_half_even((t0 - t_now) * 200.0)
    while True:
        step = (v0 - thr) / dev
        if t0 + step > t_max:
            return False, 0.0
        n, t1 = _raster_step(t0, 2.0 * step, t_max)
        k += n
        v1 = _value(t1, ctx)
        if v1 <= thr:
            t = _root(ctx, thr, t0, v0, t1, v1, t_now, t_max, base)
            if t > t_max:
                return False, 0.0
            return True, t
        if k >= EVENT_RASTER_STEPS:
            return False, 0.0
        t0 = t1
        v0 = v1


@kernel
def _settled(t0, t1, t_now, t_max, base) -> bool:
    """Whether every time of the root's bracket [t0, t1] (widened by 256
    f64 ulps) is queued at the same f32 offset from ``base`` (dynamics 11.1)
    and alike "now" or not and past t_max or not (3.5): any root in it acts
    as t0 does, so the search stops (a value with a jump at the crossing,
    as the closest distance of two pieces can have, never meets 3.5's
    tolerance and would take all 64 steps)."""
    g = 256.0 * 2.220446049250313e-16 * max(abs(t0), abs(t1))
    lo = t0 - g
    hi = t1 + g
    return (f32_k(lo - base) == f32_k(hi - base) and (lo - t_now < NEAR_NOW) == (hi - t_now < NEAR_NOW)
            and (lo > t_max) == (hi > t_max))


@kernel
def _root(ctx, thr, t0, v0, t1, v1, t_now, t_max, base):
    """mindist._root on _value(t, ctx)."""
    c = 0
    while True:
        if v1 == v0 or _settled(t0, t1, t_now, t_max, base):
            return t0
        tt = t0 + (thr - v0) * (t1 - t0) / (v1 - v0)
        if c % 4 == 3:
            if c > ROOT_MAX_ITERATIONS:
                return t0
            tt += ((t0 - tt) + (t1 - tt)) * 0.375
        v = _value(tt, ctx)
        if abs(v - thr) < ROOT_TOLERANCE:
            return tt
        if v >= thr:
            t0 = tt
            v0 = v
        else:
            t1 = tt
            v1 = v
        c += 1
