"""3.5's event search compiled (ivp.jit) for a ball against another ball,
or against a feature of a body whose pose does not change before the next
PSI (a fixed body, or a frozen one): mindist.event_search with
Mindist.value_function's ball branch inlined, the same operations in the
same order.

A core's pose at t is dynamics 4.1's, from its Core.pose_parts (``B`` the
ball's, ``B1`` the other's: the centre moved linearly from the last PSI,
the rotation slerped; a fixed or frozen core's the last PSI's). The other
side is ``kind`` 3 (a ball), or 0 P, 1 K, 2 F with the feature's world
points in the rows of ``D`` (F: a, b, c and the outward normal; K: the
ends; P: the point).
"""

from __future__ import annotations

import math

from ..jit import kernel
from ..kmath import quat_slerp_k, quat_to_matrix_k, rot_mul_v_k, rot_t_mul_v_k
from ..states import MT_NOT_SIM
from .constants import EVENT_RASTER, EVENT_RASTER_STEPS, ROOT_MAX_ITERATIONS, ROOT_TOLERANCE
from .feature_kernels import point_edge, point_face, point_point


@kernel
def _centre(t, B):
    """core.centre_at on a core's pose parts B = (t_last, state, q_last,
    q_next, i_dt, p, d, m)."""
    dt = t - B[0]
    if B[1] < MT_NOT_SIM and dt != 0.0:
        p = B[5]
        d = B[6]
        return (p[0] + d[0] * dt, p[1] + d[1] * dt, p[2] + d[2] * dt)
    return B[7][1]


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
def _gap(t, kind, D, B, B1):
    """pair_geometry's gap at t of the ball's centre against the other side."""
    q = _centre(t, B)
    if kind == 3:
        return point_point(q, _centre(t, B1))[0]
    a = (D[0, 0], D[0, 1], D[0, 2])
    if kind == 2:
        return point_face(q, a, (D[1, 0], D[1, 1], D[1, 2]), (D[2, 0], D[2, 1], D[2, 2]),
                          (D[3, 0], D[3, 1], D[3, 2]), False)[0]
    if kind == 1:
        return point_edge(q, a, (D[1, 0], D[1, 1], D[1, 2]), False)[0]
    return point_point(q, a)[0]


@kernel
def _value(t, kind, D, B, B1, q0_cs, q1_cs, u_cs, offset):
    """value_function's ball branch at t: F the gap; K the gap, or the virtual
    plane plus offset when smaller; P the gap, or the plane when 1.2 times it
    is smaller (the plane: the ball's point q0_cs and the other's point q1_cs
    carried by their poses, along the other's direction u_cs)."""
    g = _gap(t, kind, D, B, B1)
    if kind == 2:
        return g
    R0, v0 = _pose(t, B)
    R1, o1 = _pose(t, B1)
    a = rot_mul_v_k(R0, q0_cs)
    b = rot_mul_v_k(R1, q1_cs)
    dd = rot_mul_v_k(R1, u_cs)
    p = ((v0[0] + a[0] - o1[0] - b[0]) * dd[0] + (v0[1] + a[1] - o1[1] - b[1]) * dd[1]
         + (v0[2] + a[2] - o1[2] - b[2]) * dd[2])
    if kind == 1:
        x = p + offset
        return x if x < g else g
    return p if 1.2 * p < g else g


@kernel
def ball_event_search_k(kind, D, B, B1, offset, thr, real, dev, t_now, t_max):
    """event_search for the ball: (True, t) of the first t in [t_now, t_max)
    at which the value reaches thr, or (False, 0)."""
    q0_cs = (0.0, 0.0, 0.0)
    q1_cs = (0.0, 0.0, 0.0)
    u_cs = (0.0, 0.0, 0.0)
    if kind != 2:                       # _moving_plane(c0, q, c1, w, c1, -n, t_now)
        q = _centre(t_now, B)
        if kind == 3:
            gap, n, _, _, _ = point_point(q, _centre(t_now, B1))
        elif kind == 1:
            gap, n, _, _, _ = point_edge(q, (D[0, 0], D[0, 1], D[0, 2]), (D[1, 0], D[1, 1], D[1, 2]), False)
        else:
            gap, n, _, _, _ = point_point(q, (D[0, 0], D[0, 1], D[0, 2]))
        w = (q[0] + n[0] * gap, q[1] + n[1] * gap, q[2] + n[2] * gap)
        R, v = _pose(t_now, B)
        q0_cs = rot_t_mul_v_k(R, (q[0] - v[0], q[1] - v[1], q[2] - v[2]))
        R1, o1 = _pose(t_now, B1)
        q1_cs = rot_t_mul_v_k(R1, (w[0] - o1[0], w[1] - o1[1], w[2] - o1[2]))
        u_cs = rot_t_mul_v_k(R1, (-n[0], -n[1], -n[2]))
    v_now = _value(t_now, kind, D, B, B1, q0_cs, q1_cs, u_cs, offset)
    if v_now > thr:
        return _first_crossing(kind, D, B, B1, q0_cs, q1_cs, u_cs, offset, thr, dev, t_now, v_now, t_now, t_max)
    t0 = t_now
    v0 = v_now
    while t0 < t_max:
        s = (v0 - real) / dev
        step = s if s > 0.0 else 0.0            # max(0.0, s)
        if t0 + step > t_max:
            step = t_max - t0 + 1e-8
        r = int(step * 200.0)
        if r < 1:
            r = 1
        t1 = t0 + r * EVENT_RASTER
        v1 = _value(t1, kind, D, B, B1, q0_cs, q1_cs, u_cs, offset)
        if v1 > thr:
            if t1 > t_max:
                return False, 0.0
            return _first_crossing(kind, D, B, B1, q0_cs, q1_cs, u_cs, offset, thr, dev, t1, v1, t_now, t_max)
        if v1 <= v_now:
            return True, t0
        t0 = t1
        v0 = v1
    return False, 0.0


@kernel
def _round_half_even(x) -> int:
    """Python's round(x) for a float."""
    r = math.floor(x)
    f = x - r
    if f > 0.5 or (f == 0.5 and r % 2.0 != 0.0):
        r += 1.0
    return int(r)


@kernel
def _first_crossing(kind, D, B, B1, q0_cs, q1_cs, u_cs, offset, thr, dev, t0, v0, t_now, t_max):
    """mindist._first_crossing on the ball's value."""
    if v0 <= thr:
        return True, t0
    k = _round_half_even((t0 - t_now) * 200.0)
    while True:
        step = (v0 - thr) / dev
        if t0 + step > t_max:
            return False, 0.0
        step *= 2.0
        if t0 + step > t_max:
            step = t_max - t0 + 1e-8
        n = int(step * 200.0)
        if n < 1:
            n = 1
        t1 = t0 + n * EVENT_RASTER
        k += n
        v1 = _value(t1, kind, D, B, B1, q0_cs, q1_cs, u_cs, offset)
        if v1 <= thr:
            t = _root(kind, D, B, B1, q0_cs, q1_cs, u_cs, offset, thr, t0, v0, t1, v1)
            if t > t_max:
                return False, 0.0
            return True, t
        if k >= EVENT_RASTER_STEPS:
            return False, 0.0
        t0 = t1
        v0 = v1


@kernel
def _root(kind, D, B, B1, q0_cs, q1_cs, u_cs, offset, thr, t0, v0, t1, v1):
    """mindist._root on the ball's value."""
    c = 0
    while True:
        if v1 == v0:
            return t0
        tt = t0 + (thr - v0) * (t1 - t0) / (v1 - v0)
        if c % 4 == 3:
            if c > ROOT_MAX_ITERATIONS:
                return t0
            tt += ((t0 - tt) + (t1 - tt)) * 0.375
        v = _value(tt, kind, D, B, B1, q0_cs, q1_cs, u_cs, offset)
        if abs(v - thr) < ROOT_TOLERANCE:
            return tt
        if v >= thr:
            t0 = tt
            v0 = v
        else:
            t1 = tt
            v1 = v
        c += 1
