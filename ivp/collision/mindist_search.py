"""The event search of a mindist (ivp-contacts 3.5): the first time before the
next PSI at which the pair's gap reaches coll_dist, found in one compiled pass
(event_kernels) for two pieces and for a ball against a ball, a body whose pose
stays or a moving hull, else by the raster search on the pair's value function."""

from __future__ import annotations

import math

import numpy as np

from ..states import MT_NOT_SIM
from ..fp import f32
from .constants import (COLL_DIST, EVENT_RASTER, EVENT_RASTER_STEPS, HULL_LOOK_AHEAD_PSIS, NEAR_NOW, NOT_APPROACHING_EPS,
                        ROOT_MAX_ITERATIONS, ROOT_TOLERANCE)
from .event_kernels import BALL as BALL_SIDE_KIND, MOVING as MOVING_KIND, ball_event_search_k, piece_event_search_k
from .features import KIND_CODE, NO_FEATURE, world_feature

HULL_SLACK = 1e-9               # hull_holds' margin for rounding (relative to the gap; absolute below 1)
HULL_RADIUS_MARGIN = 1.0 + 1e-6     # upper_limit_radius is stored f32 (rounded to nearest)
NO_POINTS = np.zeros((0, 3))
# ball_event_search_k's other side when it is no moving hull: a piece of nothing
NO_PIECE = (np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), np.zeros((0, 2), dtype=np.int64), False,
             np.zeros(4), np.zeros((0, 7)), np.zeros((0, 3)), np.zeros(0), (0.0, 0.0, 0.0), False)


def core_pose(core, t: float, poses=None):
    """The core's pose at t (dynamics 4.1; fixed and frozen cores their static pose).
    ``poses``: the poses at t a pass has made, per core; a core's is made once
    and given again (the same values, and Shape.piece_world keeps the pieces
    it moved to it)."""
    if poses is None:
        return core.get_m_world_f_core_PSI(t)
    m = poses.get(core)
    if m is None:
        m = poses[core] = core.get_m_world_f_core_PSI(t)
    return m


def hull_holds(env, md, t: float, memo=None) -> bool:
    """3.4 for a pair in hull mode (``md.hull``: its gap and both cores' poses
    when update_events put it there): whether its gap at t is surely still
    beyond the look-ahead, so that measuring it and update_events would queue
    nothing. The gap can have shrunk by no more than both bodies have moved
    (:func:`moved_bound`), and a pose read at t, not a speed budget, bounds
    that: a push, an impact or a teleport is in it. ``memo``: what the pairs
    tested at t in one pass share, kept between the calls (per core its
    look_values, their sum and its pose at t; per core and earlier pose its
    move), the same values as read again."""
    gap, c0, m0, c1, m1 = md.hull
    if memo is None:
        memo = {}
    k0 = memo.get(c0)
    if k0 is None:
        ms, cs = c0.look_values()
        k0 = memo[c0] = (ms + cs, ms, cs, core_pose(c0, t))
    k1 = memo.get(c1)
    if k1 is None:
        ms, cs = c1.look_values()
        k1 = memo[c1] = (ms + cs, ms, cs, core_pose(c1, t))
    room = gap - look_ahead_limit(env, k0[0] + k1[1] + k1[2])        # look_ahead's sum, in its order
    for c, m0, m in ((c0, m0, k0[3]), (c1, m1, k1[3])):
        if m is not m0:
            key = (c, id(m0))
            b = memo.get(key)
            if b is None:
                b = memo[key] = moved_bound(c, m0, m)
            room -= b
    return room > HULL_SLACK * (1.0 + abs(gap))


def moved_bound(core, m0, m) -> float:
    """How far a point of the core's object can be from where it was at pose m0
    when the core is at pose m: |v - v0| + |R - R0| (Frobenius) times the
    object's upper_limit_radius (a point at u from the centre moves by
    (R - R0) u + (v - v0))."""
    if m is m0:
        return 0.0
    (R, v), (S, v0) = m, m0
    x, y, z = v[0] - v0[0], v[1] - v0[1], v[2] - v0[2]
    a, b, c, d, e, f, g, h, k = (R[0] - S[0], R[1] - S[1], R[2] - S[2], R[3] - S[3], R[4] - S[4], R[5] - S[5],
                                 R[6] - S[6], R[7] - S[7], R[8] - S[8])
    dr = a * a + b * b + c * c + d * d + e * e + f * f + g * g + h * h + k * k
    return math.sqrt(x * x + y * y + z * z) + math.sqrt(dr) * float(core.upper_limit_radius) * HULL_RADIUS_MARGIN


def look_ahead(env, c0, c1):
    """3.5: the two cores' worst surface speed wc and the gap beyond which a
    pair of them gets no event before the next PSI."""
    m0, s0 = c0.look_values()
    m1, s1 = c1.look_values()
    wc = m0 + s0 + m1 + s1
    return wc, look_ahead_limit(env, wc)


def look_ahead_limit(env, wc: float) -> float:
    """look_ahead's gap for the worst surface speed wc."""
    return COLL_DIST + env.delta_PSI_time * wc * HULL_LOOK_AHEAD_PSIS


# update_events' tests before its event time (update_search; mindist_batches.piece_pairs_k):
# none made, the gap beyond the look-ahead, not approaching (or not before
# the next PSI), searched with no event, searched with an event
EVENT_NOT_MADE, EVENT_BEYOND, EVENT_QUIET, EVENT_NONE, EVENT_AT = range(5)


def update_search(env, md, t_now: float, t_max: float):
    """update_events' look-ahead, closing-speed bound and search: (one of
    EVENT_BEYOND, EVENT_QUIET, EVENT_NONE, EVENT_AT, the event time or None,
    the worst surface speed wc)."""
    c0, c1 = md.cores
    wc, limit = look_ahead(env, c0, c1)
    gap = md.len_numerator
    if gap > limit:
        return EVENT_BEYOND, None, wc
    n = md.normal
    s0, a0, m0 = c0.event_values()
    s1, a1, m1 = c1.event_values()
    proj = (s0[0] - s1[0]) * n[0] + (s0[1] - s1[1]) * n[1] + (s0[2] - s1[2]) * n[2]
    mcs = proj
    for a, m in ((a0, m0), (a1, m1)):
        k = n[0] * a[0] + n[1] * a[1] + n[2] * a[2]
        mcs += math.sqrt(max(1.001 - k * k, 0.0)) * m
    if mcs < NOT_APPROACHING_EPS or gap >= COLL_DIST + (t_max - t_now) * mcs:
        return EVENT_QUIET, None, wc
    t_ev = event_search(md, mcs, t_now, t_max)
    return (EVENT_NONE if t_ev is None else EVENT_AT), t_ev, wc


def event_search(md, dev: float, t_now: float, t_max: float):
    """3.5 find_first_t_for_value_coll: the first t in [t_now, t_max) at which
    the value reaches the threshold, or None; two pieces, and a ball against
    a ball, a body whose pose stays or a moving hull, in one compiled pass
    (event_kernels)."""
    thr, real = md.bounds()
    base = md.a.obj.core.environment.time_manager.base_time
    if not md.a.is_ball:
        s0, s1 = md.side0, md.side1
        g = md.geom
        face = s0 if s0.feature[0] == "F" and s1.feature[0] != "F" else s1
        a, b = md.a, md.b
        found, t = piece_event_search_k(
            math.nan, piece_arg(a, md.ka), a.obj.core.pose_parts(), piece_arg(b, md.kb), b.obj.core.pose_parts(),
            NO_FEATURE + NO_FEATURE, tuple(0 if s.shape is a and s.piece_key == md.ka else 1 for s in (s0, s1, face)),
            g.p, g.n, thr, real, dev, t_now, t_max, base)
        return t if found else None
    kind, D, P1 = _ball_search_kind(md)
    if kind is None:
        return raster_search(md.value_function(t_now), thr, real, dev, t_now, t_max, base)
    c0, c1 = md.side0.shape.obj.core, md.side1.shape.obj.core
    found, t = ball_event_search_k(kind, D, c0.pose_parts(), c1.pose_parts(), P1,
                                   0.5 * (COLL_DIST + md.sum_extra_radius), thr, real, dev, t_now, t_max, base)
    return t if found else None


def piece_arg(shape, key):
    """piece_event_search_k's side: a piece's kernel arrays, centre and whether
    it moves with its core (else it is in world space: a grid's triangle or a
    fixed shape's piece)."""
    if key[0] == "t" or shape.world_pieces is not None:
        p = shape.piece_world(key, None)
        return (*p.kernel_data(), p.center, False)
    p = shape.pieces[key[1]]
    return (*p.kernel_data(), p.center, True)


def _ball_search_kind(md):
    """(kind, D, P1) of ball_event_search_k's other side for a ball's pair md
    it takes, else (None, None, None): the other side a ball; a feature
    whose core's pose stays (at or beyond MT_NOT_SIM): its world points; a
    feature of a moving convex hull: MOVING + its kind, its vertex indices
    (or the face's) and the hull (event_kernels._feature_at). P1 is an empty
    side but for a moving hull."""
    s1 = md.side1
    shape = s1.shape
    if shape.is_ball:
        return BALL_SIDE_KIND, NO_POINTS, NO_PIECE
    c1 = shape.obj.core
    f, idx = s1.feature
    if c1.movement_state < MT_NOT_SIM:
        if shape.world_pieces is not None or s1.piece_key[0] != "p" or shape.pieces[s1.piece_key[1]].two_sided:
            return None, None, None
        D = np.zeros((1, 3))
        D[0, :2 if f == "K" else 1] = idx
        return MOVING_KIND + KIND_CODE[f], D, piece_arg(shape, s1.piece_key)
    D = world_feature(s1, c1.m_world_f_core_last_psi)
    return KIND_CODE[f], np.array((D,) if f == "P" else D, dtype=np.float64), NO_PIECE


def raster_search(f, thr: float, real: float, dev: float, t_now: float, t_max: float, base: float):
    """event_search on the value function f (threshold thr, real bound real,
    closing speed dev; ``base`` the time manager's base time, :func:`_settled`):
    the raster from t_now by the gap over the speed, then :func:`_first_crossing`."""
    v_now = f(t_now)
    if v_now > thr:
        return _first_crossing(f, thr, dev, t_now, v_now, t_now, t_max, base)
    t0 = t_now
    v0 = v_now
    while t0 < t_max:
        step = max(0.0, (v0 - real) / dev)
        if t0 + step > t_max:
            step = t_max - t0 + 1e-8
        n = max(1, int(step * 200.0))
        t1 = t0 + n * EVENT_RASTER
        v1 = f(t1)
        if v1 > thr:
            return None if t1 > t_max else _first_crossing(f, thr, dev, t1, v1, t_now, t_max, base)
        if v1 <= v_now:
            return t0
        t0 = t1
        v0 = v1
    return None


def _first_crossing(f, thr, dev, t0, v0, t_now, t_max, base):
    """3.5: bracket the crossing on the 1/200 s raster (at most 20 steps from
    t_now), then find the root."""
    if v0 <= thr:
        return t0
    k = int(round((t0 - t_now) * 200.0))
    while True:
        step = (v0 - thr) / dev
        if t0 + step > t_max:
            return None
        step *= 2.0
        if t0 + step > t_max:
            step = t_max - t0 + 1e-8
        n = max(1, int(step * 200.0))
        t1 = t0 + n * EVENT_RASTER
        k += n
        v1 = f(t1)
        if v1 <= thr:
            t = _root(f, thr, t0, v0, t1, v1, t_now, t_max, base)
            return None if t > t_max else t
        if k >= EVENT_RASTER_STEPS:
            return None
        t0 = t1
        v0 = v1


def _root(f, thr, t0, v0, t1, v1, t_now, t_max, base):
    """3.5's secant with a safeguard towards the midpoint every 4th step,
    stopped once the bracket is :func:`_settled`."""
    c = 0
    while True:
        if v1 == v0 or _settled(t0, t1, t_now, t_max, base):
            return t0
        tt = t0 + (thr - v0) * (t1 - t0) / (v1 - v0)
        if c % 4 == 3:
            if c > ROOT_MAX_ITERATIONS:
                return t0
            tt += ((t0 - tt) + (t1 - tt)) * 0.375
        v = f(tt)
        if abs(v - thr) < ROOT_TOLERANCE:
            return tt
        if v >= thr:
            t0, v0 = tt, v
        else:
            t1, v1 = tt, v
        c += 1


def _settled(t0, t1, t_now, t_max, base) -> bool:
    """event_kernels._settled: the bracket [t0, t1] queues at one f32 offset
    from base (dynamics 11.1) and decides 3.5's "now" and t_max alike."""
    g = 256.0 * 2.220446049250313e-16 * max(abs(t0), abs(t1))
    lo = t0 - g
    hi = t1 + g
    return (f32(lo - base) == f32(hi - base) and (lo - t_now < NEAR_NOW) == (hi - t_now < NEAR_NOW)
            and (lo > t_max) == (hi > t_max))
