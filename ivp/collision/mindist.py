"""Mindists: tracked pairs of nearby convex pieces, their measurement and
their collision events (ivp-contacts 3).

A mindist holds one convex piece of each of two objects (a ball is one
piece). Measuring it (3.3) finds the sorted closest feature pair and the gap;
after each PSI and after each impact it predicts the first time before the
next PSI at which the gap reaches coll_dist (3.5) and queues an event for it
in the time manager; the event re-measures the pair and, when the gap is
below coll_dist + 0.001, runs the impact (3.6, impact.py).
"""

from __future__ import annotations

import math
from operator import attrgetter

import numpy as np

from ..jit import kernel
from ..state.layout import AXIS, CUR_SPEED, M_POS, MAX_SURF_ROT, SPEED, T_LAST
from ..states import MT_NOT_SIM
from ..umath import rot_mul_v, rot_t_mul_v
from .constants import (
    COLL_DIST,
    EVENT_RASTER,
    EVENT_RASTER_STEPS,
    HULL_LOOK_AHEAD_PSIS,
    MINDIST_CHANGE_FORCE_DIST,
    NEAR_NOW,
    NOT_APPROACHING_EPS,
    REAL_COLL_DIST,
    ROOT_MAX_ITERATIONS,
    ROOT_TOLERANCE,
)
from .event_kernels import BALL as BALL_SIDE_KIND, MOVING as MOVING_KIND, ball_event_search_k, piece_event_search_k
from .feature_kernels import ball_triangles_measure, balls_measure
from .piece_kernels import hull_triangles_measure
from .features import (
    BEHIND_TRIANGLE_DEPTH,
    INTRUSION_DEPTH,
    KIND_CODE,
    NO_FEATURE,
    Geometry,
    ball_piece_measure,
    code_of,
    feature_of,
    feature_points,
    pair_geometry,
    piece_piece_closest,
    piece_piece_measure,
    prev_codes,
)

FEW_CENTRES = 8                 # _centres reads the rows of more cores at once
NO_POINTS = np.zeros((0, 3))
# ball_event_search_k's other side when it is no moving hull: a piece of nothing
_NO_PIECE = (np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), np.zeros((0, 2), dtype=np.int64), False,
             np.zeros(4), np.zeros((0, 7)), np.zeros((0, 3)), np.zeros(0), (0.0, 0.0, 0.0), False)
_LANE_SLOT = attrgetter("lane_slot")
QUIET_GROUP = 4                 # quiet_pairs tests a ball's pairs of a pass at once from this many
HULL_SLACK = 1e-9               # hull_holds' margin for rounding (relative to the gap; absolute below 1)
HULL_RADIUS_MARGIN = 1.0 + 1e-6     # upper_limit_radius is stored f32 (rounded to nearest)

HINT_NOW = 0
HINT_SMALL_DELAY = 1
HINT_BIG_DELAY = 2

COLL_TYPE_COLLISION = 0x00      # the low nibble of a real collision event (0.3)
BALL = ("B", 0)                 # a ball's one feature


class Side:
    """One side of a mindist or contact point: the shape, its piece key and the
    feature (kind, index) on that piece."""

    __slots__ = ("shape", "piece_key", "feature")

    def __init__(self, shape, piece_key, feature):
        self.shape = shape
        self.piece_key = piece_key
        self.feature = feature

    def same_as(self, other) -> bool:
        """5.2 is_same_as: same object, piece and feature (an edge in either direction)."""
        return (self.shape is other.shape and self.piece_key == other.piece_key
                and self.feature == other.feature)


def core_pose(core, t: float):
    """The core's pose at t (dynamics 4.1; fixed and frozen cores their static pose)."""
    return core.get_m_world_f_core_PSI(t)


def world_feature(side: Side, m):
    """The side's feature in world coordinates for its core pose m."""
    shape = side.shape
    if shape.is_ball:
        return m[1]
    return feature_points(shape.piece_world(side.piece_key, m), side.feature)


def side_geometry(s0: Side, m0, s1: Side, m1, check: bool):
    """pair_geometry of two sides at the core poses m0, m1."""
    return pair_geometry(s0.feature[0], world_feature(s0, m0), s1.feature[0], world_feature(s1, m1), check)


class Mindist:
    """3.1: two pieces (``a``: shape and piece key, ``b`` likewise; a ball is
    always ``a``), the last measurement (sorted sides, gap = len_numerator,
    contact_plane) and the queued event.

    A measurement made in a batch (:func:`recalc_all`) keeps only its gap and
    its row of the batch (``_batch``: the pass's geometry and feature codes);
    the sides, geometry and previous feature are made from them when first read.
    A member of a :class:`SoupPairs` is linked to it (``_batch`` the group,
    ``_row`` its index there): its gap and row are the group's last pass, so a
    pass writes nothing per member."""

    __slots__ = ("a", "ka", "b", "kb", "_side0", "_side1", "_len", "_geom", "sum_extra_radius",
                 "coll_type", "event", "alive", "seen", "_prev", "_prev_code", "_batch", "_row", "intrusion",
                 "intrusion_psi", "hull")

    def __init__(self, a, ka, b, kb):
        self.a = a
        self.ka = ka
        self.b = b
        self.kb = kb
        self._side0 = None
        self._side1 = None
        self._len = math.inf
        self._geom = None
        self.sum_extra_radius = float(a.obj.extra_radius) + float(b.obj.extra_radius)
        self.coll_type = COLL_TYPE_COLLISION
        self.event = None
        self.alive = True
        self.seen = 0
        self._prev = None
        self._prev_code = NO_FEATURE
        self._batch = None
        self._row = 0
        self.intrusion = False          # 3.3's INTRUSION: the pair is on the invalid list
        self.intrusion_psi = -1         # the PSI whose anomaly push it last had
        self.hull = None                # in 3.4's hull mode: (gap, core 0, its pose, core 1, its pose)

    @property
    def len_numerator(self) -> float:
        """3.1's gap less both extra radii (a linked member's: its group's)."""
        b = self._batch
        if type(b) is SoupPairs:
            return b.L[b.start + self._row]
        return self._len

    @len_numerator.setter
    def len_numerator(self, value: float) -> None:
        if type(self._batch) is SoupPairs:
            self._unbatch()                 # its own value now: it leaves the group's link
        self._len = value

    @property
    def prev_code(self):
        """The previous feature pair as the kernels' ints (a ball pair: side 1's three)."""
        b = self._batch
        if type(b) is tuple:
            return tuple(b[1][self._row].tolist())
        if type(b) is SoupPairs:
            return tuple(b.batch[1][b.offset + self._row].tolist())
        if b is not None:
            self._unbatch()
        return self._prev_code

    def _unbatch(self) -> None:
        """The batch row as sides, geometry and previous feature (the ball on side 0)."""
        b = self._batch
        if type(b) is tuple:
            self._unbatch_ball_row(b, self._row)
        else:
            b.unbatch(self)

    def _unbatch_ball_row(self, batch, row: int) -> None:
        """A ball pass's row (G, F)[row] as the pair's sides, geometry and previous feature."""
        G, F = batch
        g = G[row].tolist()
        f = self._prev_code = tuple(F[row].tolist())
        self._len = g[0] - self.sum_extra_radius
        self._batch = None
        fb = feature_of(f[0], f[1], f[2])
        self._prev = fb
        if self._side0 is None:
            self._side0 = Side(self.a, self.ka, BALL)
        s1 = self._side1
        if s1 is None or s1.feature != fb:
            self._side1 = Side(self.b, self.kb, fb)
        self._geom = Geometry(g[0], (g[1], g[2], g[3]), (g[4], g[5], g[6]), (g[7], g[8], g[9]), False)

    @property
    def side0(self):
        if self._batch is not None:
            self._unbatch()
        return self._side0

    @property
    def side1(self):
        if self._batch is not None:
            self._unbatch()
        return self._side1

    @property
    def geom(self):
        if self._batch is not None:
            self._unbatch()
        return self._geom

    @property
    def normal(self):
        """geom.n, read from a batched pair's row without making its sides and geometry."""
        b = self._batch
        if b is None:
            return self._geom.n
        if type(b) is tuple:
            return _ball_row_normal(b[0], self._row)
        return b.normal_of(self._row)

    @property
    def prev(self):
        if self._batch is not None:
            self._unbatch()
        return self._prev

    def _measured(self, s0, s1, g, prev, prev_code=NO_FEATURE) -> None:
        """recalc's results (``prev_code``: a ball pair's feature in kernel ints)."""
        self._batch = None
        self._side0 = s0
        self._side1 = s1
        self._geom = g
        self._prev = prev
        self._prev_code = prev_code

    @property
    def cores(self):
        b = self._batch
        if b is not None:                       # a batched pair: the ball (a) is side 0, or as its row says
            if type(b) is PieceBatch and b.swapped[self._row]:
                return self.b.obj.core, self.a.obj.core
            return self.a.obj.core, self.b.obj.core
        return self._side0.shape.obj.core, self._side1.shape.obj.core

    def recalc(self, t: float) -> None:
        """3.3: the closest features and the gap at time t."""
        a = self.a
        b = self.b
        if self.kb[0] == "t":
            a.soup_measures += 1            # a SoupPairs of a's keeps no codes past this
        ma = core_pose(a.obj.core, t)
        mb = core_pose(b.obj.core, t)
        if a.is_ball:
            s0 = Side(a, self.ka, BALL)
            if b.is_ball:
                s1 = Side(b, self.kb, BALL)
                g = side_geometry(s0, ma, s1, mb, False)
                self._measured(s0, s1, g, None)
                self.intrusion = False
            else:
                piece = b.piece_world(self.kb, mb)
                fb, g = ball_piece_measure(ma[1], piece, self.prev)
                self._measured(s0, Side(b, self.kb, fb), g, fb, code_of(fb))
                self.intrusion = not piece.two_sided and fb[0] == "F" and g.gap < -INTRUSION_DEPTH  # in the hull
        else:
            pa = a.piece_world(self.ka, ma)
            pb = b.piece_world(self.kb, mb)
            fa, fb, swapped, g, self.intrusion = piece_piece_measure(pa, pb, self.prev)
            if g.gap is None:                   # parallel edges: 5.3's degenerate value
                g.gap = 0.0
            if swapped:
                self._measured(Side(b, self.kb, fb), Side(a, self.ka, fa), g, (fa, fb))
            else:
                self._measured(Side(a, self.ka, fa), Side(b, self.kb, fb), g, (fa, fb))
        self.len_numerator = g.gap - self.sum_extra_radius

    # --- 3.5 events ------------------------------------------------------------------

    def value_function(self, t_now: float):
        """3.5's collision value f(t) on the poses at t, for a search from t_now.

        With a ball, the current features' value: BF the signed plane
        distance; BK the line distance, or the distance from a virtual plane
        through the edge (fixed on the edge's body, perpendicular to the
        direction at t_now, offset 0.5 (coll_dist + sum_extra)) when smaller,
        so a ball that passes the edge within one raster step is not missed;
        BP / BB the point distance, or its projection on the direction at
        t_now when 1.2 times the projection is smaller (signed: 3.5 says "in
        magnitude", but |projection| <= distance always, so only the sign
        lets a ball that passes straight through a vertex be seen). Between
        two polygons: the closest features searched again at t, so a feature
        change (3.5's sector events: a tipping box's next corner) is found
        with the crossing (3.5 notes that this gives the same impacts); where
        the pieces are apart at t but the virtual plane of the features at
        t_now (for a vertex and a face, 3.5's signed plane distance) is
        negative, the box has passed through the feature between two raster
        steps and the plane's value is taken, so it is seen.

        event_search runs the compiled forms of this (event_kernels), tested
        against it; itself it searches a ball against a moving polygon."""
        a = self.a
        if not a.is_ball:
            b = self.b

            def closest(t):
                return piece_piece_closest(a.piece_world(self.ka, core_pose(a.obj.core, t)),
                                           b.piece_world(self.kb, core_pose(b.obj.core, t)), None)[2]

            d0 = closest(t_now)
            s0 = self.side0
            s1 = self.side1
            g0 = self.geom
            q = g0.p                                            # side 0's closest point at t_now
            w = (q[0] + g0.n[0] * d0, q[1] + g0.n[1] * d0, q[2] + g0.n[2] * d0)   # side 1's
            on_face = s0 if s0.feature[0] == "F" and s1.feature[0] != "F" else s1
            plane = _moving_plane(s0.shape.obj.core, q, s1.shape.obj.core, w, on_face.shape.obj.core,
                                  (-g0.n[0], -g0.n[1], -g0.n[2]), t_now)

            def value(t):
                d = closest(t)
                if d > 0.0:
                    v = plane(t)
                    if v < 0.0:                             # passed through the feature's plane
                        return v
                return d
            return value
        s0 = self.side0
        s1 = self.side1
        c0, c1 = self.cores
        ball1 = s1.shape.is_ball

        def gap(t):                     # a ball side reads its centre alone
            return side_geometry(s0, (None, c0.centre_at(t)), s1,
                                 (None, c1.centre_at(t)) if ball1 else core_pose(c1, t), False)

        k1 = s1.feature[0]
        if k1 == "F":
            return lambda t: gap(t).gap
        g0 = gap(t_now)
        d0 = g0.gap
        q = g0.p                                                        # the centre at t_now
        w = (q[0] + g0.n[0] * d0, q[1] + g0.n[1] * d0, q[2] + g0.n[2] * d0)   # the feature's point
        plane = _moving_plane(c0, q, c1, w, c1, (-g0.n[0], -g0.n[1], -g0.n[2]), t_now)
        offset = 0.5 * (COLL_DIST + self.sum_extra_radius)
        if k1 == "K":
            return lambda t: min(gap(t).gap, plane(t) + offset)

        def point(t):
            d = gap(t).gap
            p = plane(t)
            return p if 1.2 * p < d else d
        return point

    def bounds(self):
        """3.5: (threshold, real bound) of the value function."""
        k1 = self.side1.feature[0]
        sx = self.sum_extra_radius
        thr = COLL_DIST + sx
        if not self.a.is_ball:
            return thr, REAL_COLL_DIST + 0.5 * sx
        if k1 == "K":
            return thr, REAL_COLL_DIST + 0.9 * sx
        return thr, REAL_COLL_DIST + 0.5 * sx


def _moving_plane(c0, q0, c1, q1, cu, u, t_now: float):
    """3.5's virtual plane: f(t) = (q0(t) - q1(t)) . u(t), where q0 moves with
    core c0, q1 with c1 and the unit direction u (q1 -> q0 at t_now) with cu,
    all from their world values at t_now. For a point and a face it is the
    point's signed distance from the face's plane; it goes negative when a
    fast body passes the feature between two raster steps."""
    def body(c, x):
        R, v = core_pose(c, t_now)
        return rot_t_mul_v(R, (x[0] - v[0], x[1] - v[1], x[2] - v[2]))

    q0_cs = body(c0, q0)
    q1_cs = body(c1, q1)
    u_cs = rot_t_mul_v(core_pose(cu, t_now)[0], u)

    def f(t):
        R0, v0 = core_pose(c0, t)
        R1, v1 = core_pose(c1, t)
        a = rot_mul_v(R0, q0_cs)
        b = rot_mul_v(R1, q1_cs)
        d = rot_mul_v(core_pose(cu, t)[0], u_cs)
        return ((v0[0] + a[0] - v1[0] - b[0]) * d[0] + (v0[1] + a[1] - v1[1] - b[1]) * d[1]
                + (v0[2] + a[2] - v1[2] - b[2]) * d[2])
    return f


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


def hull_holds(env, md: Mindist, t: float, memo=None) -> bool:
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


def _ball_row_normal(G, row: int):
    """The normal of a ball pass's geometry row."""
    return tuple(G[row, 1:4].tolist())


def update_events(env, md: Mindist, allow_hull: bool, hint: int) -> None:
    """3.5 update_exact_mindist_events: queue md's next event before the next PSI."""
    md.event = None
    md.hull = None
    if md.intrusion:                    # on the invalid list: no events until measurable (3.3)
        return
    c0, c1 = md.cores
    wc, limit = look_ahead(env, c0, c1)
    gap = md.len_numerator
    if gap > limit:
        if allow_hull and not (md.a.is_ball and (md.b.is_ball or md.kb[0] == "t")):   # not a ball's batches
            t = env.current_time
            md.hull = (gap, c0, core_pose(c0, t), c1, core_pose(c1, t))
        return
    dt = env.delta_PSI_time
    n = md.normal
    s0, a0, m0 = c0.event_values()
    s1, a1, m1 = c1.event_values()
    proj = (s0[0] - s1[0]) * n[0] + (s0[1] - s1[1]) * n[1] + (s0[2] - s1[2]) * n[2]
    mcs = proj
    for a, m in ((a0, m0), (a1, m1)):
        k = n[0] * a[0] + n[1] * a[1] + n[2] * a[2]
        mcs += math.sqrt(max(1.001 - k * k, 0.0)) * m
    if mcs < NOT_APPROACHING_EPS:
        return
    t_now = env.current_time
    t_max = env.time_of_next_psi
    if gap >= COLL_DIST + (t_max - t_now) * mcs:
        return
    t_ev = event_search(md, mcs, t_now, t_max)
    if t_ev is None:
        return
    if t_ev - t_now < NEAR_NOW:
        if hint == HINT_NOW:
            t_ev = t_now
        else:
            m = gap - REAL_COLL_DIST
            if hint == HINT_BIG_DELAY:
                t_ev = t_now + (m / wc + 1e-4 * dt if m >= 1e-12 and wc > 0.0 else 1e-3 * dt)
            else:
                t_ev = t_now + (0.1 * m / wc + 1e-7 * dt if m >= 1e-12 and wc > 0.0 else 1e-5 * dt)
            if t_ev >= t_max:
                return
    ev = MindistEvent(md)
    md.event = ev
    if type(md._batch) is SoupPairs:
        md._batch.armed = True
        md._batch.hull = False
    md.coll_type = COLL_TYPE_COLLISION
    env.time_manager.insert(ev, t_ev)


@kernel(inline=True)
def _quiet_row(G, r, gap, V, v, limit, horizon):
    """update_events' tests before its search for a pair measured in a pass
    (its normal G's row r, its len_numerator ``gap``; V's row v: the cores'
    speed difference, side 0's rotation axis and max_surface_rot_speed, side
    1's; ``limit`` the look-ahead, ``horizon`` the time to the next PSI), the
    same operations in the same order: True where it returns with no event
    (the gap beyond the look-ahead, the pair not approaching, or too far for
    its closing speed before the next PSI)."""
    if gap > limit:
        return True
    n0 = G[r, 1]
    n1 = G[r, 2]
    n2 = G[r, 3]
    mcs = V[v, 0] * n0 + V[v, 1] * n1 + V[v, 2] * n2
    for a in (3, 7):
        k = n0 * V[v, a] + n1 * V[v, a + 1] + n2 * V[v, a + 2]
        x = 1.001 - k * k
        if 0.0 > x:                 # max(x, 0.0)
            x = 0.0
        mcs += math.sqrt(x) * V[v, a + 3]
    return mcs < NOT_APPROACHING_EPS or gap >= COLL_DIST + horizon * mcs


@kernel
def quiet_rows_k(G, rows, gaps, V, limit, horizon, Q):
    """_quiet_row of pairs of one ball and one fixed body measured in a ball
    pass (G's ``rows``, their gaps; V one row, ``limit`` theirs): Q True
    where update_events returns with no event."""
    for q in range(rows.shape[0]):
        Q[q] = _quiet_row(G, rows[q], gaps[q], V, 0, limit, horizon)


@kernel
def quiet_ball_pairs_k(G, gaps, V, limits, horizon, Q):
    """_quiet_row of each pair of two balls of a balls_measure pass (G's rows,
    each pair's own V row and look-ahead limit)."""
    for q in range(G.shape[0]):
        Q[q] = _quiet_row(G, q, gaps[q], V, q, limits[q], horizon)


def quiet_pairs(env, mds) -> list:
    """Per entry of mds, True where update_events would queue no event, found
    by :func:`quiet_rows_k` at once for the pairs of a ball and a grid's
    triangles measured in one ball pass, QUIET_GROUP or more of one ball in
    it, and for the pairs of two balls of one balls_measure pass
    (BallPairBatch.quiet); False for the others (SoupPairs entries among them)."""
    out = [False] * len(mds)
    groups = {}
    pairs = {}
    for i, md in enumerate(mds):
        if type(md) is Mindist:
            b = md._batch
            if type(b) is BallPairBatch:
                p = pairs.get(id(b))
                if p is None:
                    p = pairs[id(b)] = (b, [], [])
                p[1].append(i)
                p[2].append(md._row)
            elif type(b) is tuple:
                g = groups.get((id(b), md.a))
                if g is None:
                    g = groups[(id(b), md.a)] = (b, md, [], [], [])
                g[2].append(i)
                g[3].append(md._row)
                g[4].append(md._len)
    horizon = env.time_of_next_psi - env.current_time
    for b, md, at, rows, gaps in groups.values():
        if len(at) >= QUIET_GROUP:
            c0, c1 = md.cores
            _, limit = look_ahead(env, c0, c1)
            s0, a0, m0 = c0.event_values()
            s1, a1, m1 = c1.event_values()
            V = np.array((s0[0] - s1[0], s0[1] - s1[1], s0[2] - s1[2], *a0, m0, *a1, m1), dtype=np.float64)[None]
            Q = np.empty(len(at), dtype=np.bool_)
            quiet_rows_k(b[0], np.array(rows, dtype=np.int64), np.array(gaps), V, limit, horizon, Q)
            for i, quiet in zip(at, Q.tolist()):
                out[i] = quiet
    for b, at, rows in pairs.values():
        Q = b.quiet(env, horizon)[rows]
        for i, quiet in zip(at, Q.tolist()):
            out[i] = quiet
    return out


def event_search(md: Mindist, dev: float, t_now: float, t_max: float):
    """3.5 find_first_t_for_value_coll: the first t in [t_now, t_max) at which
    the value reaches the threshold, or None; two pieces, and a ball against
    a ball, a body whose pose stays or a moving hull, in one compiled pass
    (event_kernels)."""
    thr, real = md.bounds()
    if not md.a.is_ball:
        s0, s1 = md.side0, md.side1
        g = md.geom
        face = s0 if s0.feature[0] == "F" and s1.feature[0] != "F" else s1
        a, b = md.a, md.b
        found, t = piece_event_search_k(
            _piece_arg(a, md.ka), a.obj.core.pose_parts(), _piece_arg(b, md.kb), b.obj.core.pose_parts(),
            NO_FEATURE + NO_FEATURE, tuple(0 if s.shape is a and s.piece_key == md.ka else 1 for s in (s0, s1, face)),
            g.p, g.n, thr, real, dev, t_now, t_max)
        return t if found else None
    kind, D, P1 = _ball_search_kind(md)
    if kind is None:
        return raster_search(md.value_function(t_now), thr, real, dev, t_now, t_max)
    c0, c1 = md.side0.shape.obj.core, md.side1.shape.obj.core
    found, t = ball_event_search_k(kind, D, c0.pose_parts(), c1.pose_parts(), P1,
                                   0.5 * (COLL_DIST + md.sum_extra_radius), thr, real, dev, t_now, t_max)
    return t if found else None


def _piece_arg(shape, key):
    """piece_event_search_k's side: a piece's kernel arrays, centre and whether
    it moves with its core (else it is in world space: a grid's triangle or a
    fixed shape's piece)."""
    if key[0] == "t" or shape.world_pieces is not None:
        p = shape.piece_world(key, None)
        return (*p.kernel_data(), p.center, False)
    p = shape.pieces[key[1]]
    return (*p.kernel_data(), p.center, True)


def _ball_search_kind(md: Mindist):
    """(kind, D, P1) of ball_event_search_k's other side for a ball's pair md
    it takes, else (None, None, None): the other side a ball; a feature
    whose core's pose stays (at or beyond MT_NOT_SIM): its world points; a
    feature of a moving convex hull: MOVING + its kind, its vertex indices
    (or the face's) and the hull (event_kernels._feature_at). P1 is an empty
    side but for a moving hull."""
    s1 = md.side1
    shape = s1.shape
    if shape.is_ball:
        return BALL_SIDE_KIND, NO_POINTS, _NO_PIECE
    c1 = shape.obj.core
    f, idx = s1.feature
    if c1.movement_state < MT_NOT_SIM:
        if shape.world_pieces is not None or s1.piece_key[0] != "p" or shape.pieces[s1.piece_key[1]].two_sided:
            return None, None, None
        D = np.zeros((1, 3))
        D[0, :2 if f == "K" else 1] = idx
        return MOVING_KIND + KIND_CODE[f], D, _piece_arg(shape, s1.piece_key)
    D = world_feature(s1, c1.m_world_f_core_last_psi)
    return KIND_CODE[f], np.array((D,) if f == "P" else D, dtype=np.float64), _NO_PIECE


def raster_search(f, thr: float, real: float, dev: float, t_now: float, t_max: float):
    """event_search on the value function f (threshold thr, real bound real,
    closing speed dev): the raster from t_now by the gap over the speed, then
    :func:`_first_crossing`."""
    v_now = f(t_now)
    if v_now > thr:
        return _first_crossing(f, thr, dev, t_now, v_now, t_now, t_max)
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
            return None if t1 > t_max else _first_crossing(f, thr, dev, t1, v1, t_now, t_max)
        if v1 <= v_now:
            return t0
        t0 = t1
        v0 = v1
    return None


def _first_crossing(f, thr, dev, t0, v0, t_now, t_max):
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
            t = _root(f, thr, t0, v0, t1, v1)
            return None if t > t_max else t
        if k >= EVENT_RASTER_STEPS:
            return None
        t0 = t1
        v0 = v1


def _root(f, thr, t0, v0, t1, v1):
    """3.5's secant with a safeguard towards the midpoint every 4th step."""
    c = 0
    while True:
        if v1 == v0:
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


class SoupPairs:
    """A ball's mindists with the triangles of one soup near it, kept as one
    group while the soup query and the ball's mindists stay the same
    (CollisionSystem._take_soup): measured as one slice of the grid's kernel
    pass, their previous features kept between PSIs as that slice of codes.
    The members are linked to the group (Mindist): their rows are the slice
    of ``batch`` from ``offset``, their gaps the pass's gaps ``L`` from
    ``start`` (the least of them ``least``); ``relink`` when a member left the
    link since (made its sides), ``armed`` when a member may have an event.
    ``hull``: the group is in 3.4's hull mode: the last update_events queued
    and searched nothing (the least gap beyond the look-ahead), and no
    member has had an event or left the link since (system.SteadyBalls.quiet)."""

    __slots__ = ("ball", "soup", "mds", "core", "tris", "sum_extra", "batch", "offset", "measures", "L",
                 "start", "least", "relink", "armed", "hull")

    def __init__(self, ball, soup, keys, mds):
        self.ball = ball
        self.soup = soup
        self.mds = mds
        self.core = ball.obj.core
        self.tris = np.fromiter([k[1] for k in keys], dtype=np.int64, count=len(keys))
        self.sum_extra = mds[0].sum_extra_radius
        self.batch = None               # the last pass (G, F) and the first row of this group in it
        self.offset = 0
        self.measures = -1              # the ball's soup_measures at that pass
        self.L = None
        self.start = 0
        self.least = math.inf
        self.relink = True
        self.armed = True
        self.hull = False

    def normal_of(self, q: int):
        return _ball_row_normal(self.batch[0], self.offset + q)

    def unbatch(self, md: Mindist) -> None:
        """A member's row as its sides and geometry: it leaves the group's link."""
        self.relink = True
        self.hull = False
        md._unbatch_ball_row(self.batch, self.offset + md._row)

    def passed(self, batch, offset: int, L, start: int, least: float) -> None:
        """The group measured as ``batch``'s rows from ``offset`` (``L``: the
        pass's gaps less the extra radii, its members' from ``start``): a
        member that left the link since the last pass (measured or read on
        its own) is linked again."""
        self.batch = batch
        self.offset = offset
        self.L = L
        self.start = start
        self.least = least
        measures = self.ball.soup_measures
        if self.relink or self.measures != measures:
            self.link()
        self.measures = measures

    def mark_seen(self, stamp: int) -> None:
        """The members seen by the collision pass ``stamp``: when they are all
        the ball's mindists, the ball's every one (and any made later in the pass)."""
        ball = self.ball
        if len(self.mds) == len(ball.mindists):
            ball.all_seen = stamp
        else:
            for md in self.mds:
                md.seen = stamp

    def link(self) -> None:
        """Every member linked to the group (``armed`` as their events say)."""
        armed = False
        for q, md in enumerate(self.mds):
            md._batch = self
            md._row = q
            armed = armed or md.event is not None
        self.armed = armed
        self.relink = False

    def previous_codes(self):
        """The pairs' previous features: the last pass's codes, but a pair's own
        where it was measured on its own since (it left the pass's batch)."""
        mds = self.mds
        b = self.batch
        if b is None:
            return np.array([md.prev_code for md in mds], dtype=np.int64).reshape(len(mds), 3)
        prev = b[1][self.offset:self.offset + len(mds)]
        if self.measures != self.ball.soup_measures:
            prev = prev.copy()
            for q, md in enumerate(mds):
                if md._batch is not self:
                    prev[q] = md.prev_code
        return prev

    def update_events(self, env, speed: float) -> None:
        """update_events(HINT_SMALL_DELAY) of each pair; a pair beyond the
        look-ahead only has its event cleared, as update_events does
        (``speed``: the ball's current_speed + max_surface_rot_speed, as
        look_ahead adds them). A group with no event whose least gap is
        beyond the look-ahead goes to hull mode."""
        c1 = self.soup.obj.core
        limit = look_ahead_limit(env, speed + c1.max_surface_rot_speed + c1.current_speed)
        mds = self.mds
        self.hull = False
        if self.armed:
            armed = False
            for md in mds:
                if md.len_numerator > limit:
                    if md.event is not None:
                        md.event = None
                else:
                    update_events(env, md, True, HINT_SMALL_DELAY)
                    armed = armed or md.event is not None
        elif self.least > limit:    # no member has an event, and none is searched
            self.hull = True
            return
        else:                       # no member has an event: those beyond the limit keep none
            armed = False
            L = self.L
            s = self.start
            for q in range(len(mds)):
                if L[s + q] <= limit:
                    md = mds[q]
                    update_events(env, md, True, HINT_SMALL_DELAY)
                    armed = armed or md.event is not None
        self.armed = armed


def recalc_all(items, t: float) -> None:
    """Mindist.recalc of each (they are independent of one another), the
    pairs of a ball and a grid's triangle (single or as SoupPairs) in one
    kernel pass per grid, those of another piece and a grid's triangles in
    one pass per piece and grid, the pairs of two balls in one pass."""
    groups = {}
    pieces = {}
    balls = []
    for it in items:
        if type(it) is SoupPairs:
            groups.setdefault(it.soup, ([], []))[1].append(it)
        elif it.kb[0] == "t":
            if it.a.is_ball:
                it.a.soup_measures += 1     # as recalc: a SoupPairs of a's keeps no codes past this
                groups.setdefault(it.b, ([], []))[0].append(it)
            else:
                pieces.setdefault((it.a, it.ka, it.b, False), []).append(it)
        elif it.ka[0] == "t":
            pieces.setdefault((it.b, it.kb, it.a, True), []).append(it)
        elif it.a.is_ball and it.b.is_ball:
            balls.append(it)
        else:
            it.recalc(t)
    if balls:
        _recalc_ball_pairs(balls, t)
    for shape, (single, soups) in groups.items():
        _recalc_ball_triangles(shape.grid, single, soups, t)
    for (shape, key, soup, tri_first), mds in pieces.items():
        _recalc_piece_triangles(shape, key, soup, tri_first, mds, t)


class BallPairBatch:
    """One pass of balls_measure: each ball-ball pair's geometry row; its
    sides and geometry are made from the row when first read. ``cores``:
    the pairs' side-0 cores, then their side-1 cores; ``L`` their
    len_numerators."""

    __slots__ = ("G", "cores", "L", "slots")

    def __init__(self, G, cores, L, slots):
        self.G = G
        self.cores = cores
        self.L = L
        self.slots = slots              # (env epoch, the cores' lane rows or None): _loaned_slots then

    def _before_snapshot(self) -> None:
        self.slots = (-1, None)         # its epoch means nothing in another process

    def quiet(self, env, horizon: float):
        """update_events' early returns of every pair at once (quiet_ball_pairs_k):
        a bool per row. Each core's look_ahead and event values (3.5) are read
        from its lane row when on loan (those rows at once), else from the core;
        the look-ahead limits made as look_ahead makes them, in its order."""
        cores = self.cores
        m = len(cores)
        T = np.empty((m, 8))            # speed, rotation axis, max_surface_rot_speed, current_speed
        lane = env.lane
        e, slots = self.slots
        if e != env.epoch.value:        # (a take or give-back since the pass)
            slots = _loaned_slots(cores)
        if slots is None:
            slots = np.full(m, -1, dtype=np.int64)
        on = slots >= 0
        if on.any():
            S = lane.rows[slots[on]]
            T[on, 0:3] = S[:, SPEED:SPEED + 3]
            T[on, 3:6] = S[:, AXIS:AXIS + 3]
            T[on, 6] = S[:, MAX_SURF_ROT]
            T[on, 7] = S[:, CUR_SPEED]
        for j in np.flatnonzero(~on).tolist():
            c = cores[j]
            s, a, ms = c.event_values()
            T[j] = (*s, *a, ms, c.look_values()[1])
        n = m // 2
        A = T[:n]
        B = T[n:]
        limits = COLL_DIST + (env.delta_PSI_time * (((A[:, 6] + A[:, 7]) + B[:, 6]) + B[:, 7])) * HULL_LOOK_AHEAD_PSIS
        V = np.empty((n, 11))
        V[:, 0:3] = A[:, 0:3] - B[:, 0:3]
        V[:, 3:7] = A[:, 3:7]
        V[:, 7:11] = B[:, 3:7]
        Q = np.empty(n, dtype=np.bool_)
        quiet_ball_pairs_k(self.G, self.L, V, limits, horizon, Q)
        return Q

    def normal_of(self, q: int):
        return _ball_row_normal(self.G, q)

    def unbatch(self, md: Mindist) -> None:
        """recalc's ball-ball branch's results from md's row."""
        g = self.G[md._row].tolist()
        md._measured(Side(md.a, md.ka, BALL), Side(md.b, md.kb, BALL),
                     Geometry(g[0], (g[1], g[2], g[3]), (g[4], g[5], g[6]), (g[7], g[8], g[9]), False), None)


def _recalc_ball_pairs(mds, t: float) -> None:
    """recalc's ball-ball branch for the pairs (same values) in one kernel
    pass: each keeps its gap and its row."""
    n = len(mds)
    cores = [md.a.obj.core for md in mds] + [md.b.obj.core for md in mds]
    slots = _loaned_slots(cores)
    if slots is not None and (slots >= 0).all():
        C = _unique_centres(cores, t, slots)    # all from the rows: a core named twice costs nothing
    else:
        C = _centres(cores, t)
    G = balls_measure(C[:n], C[n:])
    gaps = G[:, 0].tolist()
    L = [0.0] * n
    batch = BallPairBatch(G, cores, L, (cores[0].environment.epoch.value, slots))
    for q, md in enumerate(mds):
        md._batch = batch
        md._row = q
        L[q] = md.len_numerator = gaps[q] - md.sum_extra_radius
        md.intrusion = False
    batch.L = np.array(L)


class PieceBatch:
    """One pass of hull_triangles_measure (a piece against a grid's
    triangles): each pair's row of features (A's, B's: also its previous
    features at the next pass), whether its sides are swapped, and its
    geometry; the sides and geometry are made from the row when first read."""

    __slots__ = ("F", "swapped", "G")

    def __init__(self, F, swapped, G):
        self.F = F
        self.swapped = swapped
        self.G = G

    def normal_of(self, q: int):
        g = self.G[q]
        return (float(g[3]), float(g[4]), float(g[5])) if g[2] else None

    def unbatch(self, md: Mindist) -> None:
        """recalc's piece branch's results from md's row."""
        q = md._row
        f = self.F[q].tolist()
        g = self.G[q].tolist()
        fa = feature_of(f[0], f[1], f[2])
        fb = feature_of(f[3], f[4], f[5])
        geom = Geometry(g[1] if g[0] else 0.0, (g[3], g[4], g[5]) if g[2] else None, (g[6], g[7], g[8]),
                        (g[9], g[10], g[11]), bool(g[12]))
        if self.swapped[q]:
            md._measured(Side(md.b, md.kb, fb), Side(md.a, md.ka, fa), geom, (fa, fb))
        else:
            md._measured(Side(md.a, md.ka, fa), Side(md.b, md.kb, fb), geom, (fa, fb))


def _recalc_piece_triangles(shape, key, soup, tri_first: bool, mds, t: float) -> None:
    """recalc's piece branch for the pairs of piece ``key`` of ``shape`` with
    triangles of ``soup``'s grid (on side A when ``tri_first``), in one kernel
    pass (same values): each pair keeps its gap, intrusion and row."""
    piece = shape.piece_world(key, core_pose(shape.obj.core, t))
    V, T, E, two, pl, N, M, H = piece.kernel_data()
    k = len(mds)
    tris = np.fromiter([(md.ka if tri_first else md.kb)[1] for md in mds], dtype=np.int64, count=k)
    prev = _previous_codes(mds, 6, _piece_prev_code)
    grid = soup.grid
    GV, GPL, GN = grid.kernel_arrays()
    D, F, S, G = hull_triangles_measure(V, T, E, two, pl, N, M, H, piece.center, tris, prev, tri_first,
                                        GV, GPL, GN)
    batch = PieceBatch(F, S, G)
    # piece_piece_measure's intrusion: the vertex's distance against a face of
    # the triangle (two-sided) or of the piece
    face_on_a = F[:, 0] == 2
    face_two = face_on_a == tri_first if not two else np.ones(k, dtype=bool)
    intrudes = np.where(face_two, D < -BEHIND_TRIANGLE_DEPTH, D < -INTRUSION_DEPTH).tolist()
    gaps = np.where(G[:, 0] != 0.0, G[:, 1], 0.0).tolist()
    for q, md in enumerate(mds):
        md._batch = batch
        md._row = q
        md.len_numerator = gaps[q] - md.sum_extra_radius
        md.intrusion = intrudes[q]


def _previous_codes(mds, width: int = 3, own=lambda md: md.prev_code):
    """The pairs' previous features as an (n, width) array: the rows of the
    pass most of them were measured in, taken at once, and the others'
    ``own`` (width 3: a ball's pairs, side 1's feature; 6: a piece's with a
    grid's triangles, with :func:`_piece_prev_code`)."""
    prev = np.empty((len(mds), width), dtype=np.int64)
    b = next((md._batch for md in mds if md._batch is not None and type(md._batch) is not SoupPairs), None)
    at = []
    rows = []
    for q, md in enumerate(mds):
        if b is not None and md._batch is b:
            at.append(q)
            rows.append(md._row)
        else:
            prev[q] = own(md)
    if at:
        r0 = rows[0]
        if len(at) == len(mds) and rows == list(range(r0, r0 + len(rows))):
            return _pass_codes(b)[r0:r0 + len(rows)]      # the pass's rows in order: read as they are
        prev[at] = _pass_codes(b)[rows]
    return prev


def _pass_codes(batch):
    """A pass's feature code rows: a ball pass's (G, F), or a PieceBatch."""
    return batch.F if type(batch) is PieceBatch else batch[1]


def _piece_prev_code(md):
    """A piece pair's previous features (six ints): its row of a pass, or its own."""
    b = md._batch
    return prev_codes(md._prev) if b is None else b.F[md._row]


def _recalc_ball_triangles(grid, single, soups, t: float) -> None:
    """recalc's ball branch for pairs with one grid's triangles (same values):
    the single pairs' rows first, then each SoupPairs' slice; each pair keeps
    its gap and its row of the pass. When the pass is the last one's groups
    again (no single pair, each group's codes its slice of the last pass),
    the last pass's triangles and codes are its own."""
    n = len(single)
    last = grid.last_pass
    again = (not single and last is not None and last[0] == soups
             and all(sp.measures == sp.ball.soup_measures for sp in soups))
    if again:
        _, tris, counts, prev, extras, starts = last
        C = _unique_centres([sp.core for sp in soups], t)      # mostly one group per ball
    else:
        C = _centres([md.a.obj.core for md in single] + [sp.core for sp in soups], t)
        tris = [np.fromiter([md.kb[1] for md in single], dtype=np.int64, count=n)] if n else []
        prev = [_previous_codes(single)] if n else []
        for sp in soups:
            tris.append(sp.tris)
            prev.append(sp.previous_codes())
        tris = tris[0] if len(tris) == 1 else np.concatenate(tris)
        prev = prev[0] if len(prev) == 1 else np.concatenate(prev)
        counts = np.array([1] * n + [len(sp.mds) for sp in soups], dtype=np.int64)
        if soups:
            extras = np.repeat(np.array([sp.sum_extra for sp in soups]), counts[n:])
            starts = np.cumsum(counts[n:]) - counts[n:]
    GV, GPL, _ = grid.kernel_arrays()
    F, G = ball_triangles_measure(np.repeat(C, counts, axis=0) if soups else C, tris, prev, GV, GPL)
    grid.last_pass = (soups, tris, counts, F, extras, starts) if not single else None
    batch = (G, F)
    if single:
        gaps = G[:n, 0].tolist()
        for q, md in enumerate(single):
            md._batch = batch
            md._row = q
            md.len_numerator = gaps[q] - md.sum_extra_radius
            md.intrusion = False            # a two-sided triangle has a back: never intruded
    if not soups:
        return
    Ls = G[n:, 0] - extras
    L = Ls.tolist()
    least = np.minimum.reduceat(Ls, starts).tolist()
    if again:                           # the same groups at the same rows: linked already
        for sp, m in zip(soups, least):
            sp.batch = batch
            sp.L = L
            sp.least = m
            if sp.relink:
                sp.link()
        return
    for sp, s0, m in zip(soups, starts.tolist(), least):
        sp.passed(batch, n + s0, L, s0, m)


def _centres(cores, t: float):
    """The cores' centres at t (core_pose), as an (n, 3) array, each core's
    found once (a ball's pairs name its core many times): of more than a few
    cores, one on loan to the lane whose row is at t from its row (the same
    values, read at once), the others from core_pose."""
    index = {}
    at = [index.setdefault(id(c), len(index)) for c in cores]
    if len(index) < len(cores):
        unique = [None] * len(index)
        for c, k in zip(cores, at):
            unique[k] = c
        return _unique_centres(unique, t)[at]
    return _unique_centres(cores, t)


def _loaned_slots(cores):
    """The cores' lane rows (-1: not on loan) when the lane holds cores, else None."""
    lane = cores[0].environment.lane if cores else None
    if lane is None or not lane.cores:
        return None
    return np.fromiter(map(_LANE_SLOT, cores), dtype=np.int64, count=len(cores))


def _unique_centres(cores, t: float, slots=None):
    """_centres without looking for a core named twice (``slots``: the
    cores' _loaned_slots when known)."""
    if len(cores) <= FEW_CENTRES:
        return np.array([c.centre_at(t) for c in cores], dtype=np.float64).reshape(-1, 3)
    C = np.empty((len(cores), 3))
    done = np.zeros(len(cores), dtype=bool)
    lane = cores[0].environment.lane
    if slots is None and lane is not None and lane.cores:
        slots = _loaned_slots(cores)
    if slots is not None:
        k = np.flatnonzero(slots >= 0)
        if k.shape[0]:
            rows = slots[k]
            at_t = lane.rows[rows, T_LAST] == t
            C[k[at_t]] = lane.rows[rows[at_t], M_POS:M_POS + 3]
            done[k[at_t]] = True
    rest = np.flatnonzero(~done).tolist()
    if rest:
        C[rest] = [cores[i].centre_at(t) for i in rest]
    return C


class MindistEvent:
    """3.6 simulate_time_event: a queued mindist event (a newer one replaces it)."""

    __slots__ = ("md",)

    def __init__(self, md: Mindist):
        self.md = md

    def simulate_time_event(self, tm, env) -> None:
        md = self.md
        if md.event is not self or not md.alive:
            return
        md.event = None
        t = env.current_time
        md.recalc(t)
        if md.intrusion:                        # to the invalid list: no impact (3.6)
            env.collision.intruded(md)
            return
        if md.len_numerator < COLL_DIST + MINDIST_CHANGE_FORCE_DIST:
            env.collision.do_impact(md)
        else:
            update_events(env, md, False, HINT_BIG_DELAY)
