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

from ..umath import rot_mul_v, rot_t_mul_v
from .constants import (
    COLL_DIST,
    MINDIST_CHANGE_FORCE_DIST,
    NEAR_NOW,
    REAL_COLL_DIST,
)
from .features import (
    INTRUSION_DEPTH,
    NO_FEATURE,
    Geometry,
    ball_piece_measure,
    code_of,
    feature_of,
    pair_geometry,
    piece_piece_closest,
    piece_piece_measure,
    world_feature,
)
from .mindist_search import EVENT_AT, EVENT_BEYOND, EVENT_NOT_MADE, core_pose, look_ahead_limit, update_search

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


def side_geometry(s0: Side, m0, s1: Side, m1, check: bool):
    """pair_geometry of two sides at the core poses m0, m1."""
    return pair_geometry(s0.feature[0], world_feature(s0, m0), s1.feature[0], world_feature(s1, m1), check)


def pair_order(a, b):
    """3.1: a ball pair puts the ball first (two balls: the later one); other
    pairs keep creation order (the features decide the sides at each measurement)."""
    if a.is_ball != b.is_ball:
        return (a, b) if a.is_ball else (b, a)
    if a.is_ball:
        return (a, b) if a.serial > b.serial else (b, a)
    return (a, b) if a.serial < b.serial else (b, a)


def _unbatched(field: str):
    """A Mindist property reading ``field``, made from the pair's pass row first when it has one."""
    read = attrgetter(field)

    def get(md):
        if md._batch is not None:
            md._unbatch()
        return read(md)
    return property(get)


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
        self.hull = None                # in 3.4's hull mode: (gap, core 0, its pose, core 1, its pose, both as a row)

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
        """A ball pass's row (G, F, events)[row] as the pair's sides, geometry and previous feature."""
        G, F = batch[0], batch[1]
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

    side0 = _unbatched("_side0")
    side1 = _unbatched("_side1")
    geom = _unbatched("_geom")
    prev = _unbatched("_prev")

    @property
    def normal(self):
        """geom.n, read from a batched pair's row without making its sides and geometry."""
        b = self._batch
        if b is None:
            return self._geom.n
        if type(b) is tuple:
            return ball_row_normal(b[0], self._row)
        return b.normal_of(self._row)

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

    def recalc(self, t: float, poses=None) -> None:
        """3.3: the closest features and the gap at time t (``poses``: core_pose's)."""
        a = self.a
        b = self.b
        if self.kb[0] == "t":
            a.soup_measures += 1            # a SoupPairs of a's keeps no codes past this
        ma = core_pose(a.obj.core, t, poses)
        mb = core_pose(b.obj.core, t, poses)
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


def ball_row_normal(G, row: int):
    """The normal of a ball pass's geometry row."""
    return tuple(G[row, 1:4].tolist())


def _made_event(b, q: int, t_now: float, t_max: float):
    """update_search's answer for the pair at row q of its pass ``b`` (a
    ball pass (G, F, events), a SoupPairs' slice of one, a PieceBatch) when
    the pass made it for t_now and t_max (used once), else None."""
    if type(b) is SoupPairs:
        q += b.offset
        b = b.batch
    if type(b) is tuple:
        ev = b[2]
    elif type(b) is PieceBatch:
        ev = b.events
    else:
        return None
    if ev is None:
        return None
    what, T, W, t, t_end = ev
    k = what[q]
    if k == EVENT_NOT_MADE or t != t_now or t_end != t_max:
        return None
    what[q] = EVENT_NOT_MADE
    return k, (float(T[q]) if k == EVENT_AT else None), float(W[q])


def update_events(env, md: Mindist, allow_hull: bool, hint: int) -> None:
    """3.5 update_exact_mindist_events: queue md's next event before the next PSI."""
    md.event = None
    md.hull = None
    if md.intrusion:                    # on the invalid list: no events until measurable (3.3)
        return
    t_now = env.current_time
    t_max = env.time_of_next_psi
    made = _made_event(md._batch, md._row, t_now, t_max)
    what, t_ev, wc = update_search(env, md, t_now, t_max) if made is None else made
    gap = md.len_numerator
    if what == EVENT_BEYOND:
        if allow_hull and not (md.a.is_ball and (md.b.is_ball or md.kb[0] == "t")):   # not a ball's batches
            c0, c1 = md.cores
            m0, m1 = core_pose(c0, t_now), core_pose(c1, t_now)
            md.hull = (gap, c0, m0, c1, m1, np.array((*m0[0], *m0[1], *m1[0], *m1[1])))
        return
    if t_ev is None:
        return
    if t_ev - t_now < NEAR_NOW:
        if hint == HINT_NOW:
            t_ev = t_now
        else:
            dt = env.delta_PSI_time
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
    member has had an event or left the link since (awake.SteadyBalls.quiet)."""

    __slots__ = ("ball", "soup", "mds", "core", "tris", "sum_extra", "batch", "offset", "measures", "L",
                 "start", "least", "relink", "armed", "hull", "fresh")

    def __init__(self, ball, soup, keys, mds, fresh):
        self.ball = ball
        self.soup = soup
        self.mds = mds
        self.core = ball.obj.core
        self.tris = np.fromiter([k[1] for k in keys], dtype=np.int64, count=len(keys))
        self.sum_extra = mds[0].sum_extra_radius
        self.batch = None               # the last pass (G, F, events) and the first row of this group in it
        self.offset = 0
        self.measures = -1              # the ball's soup_measures at that pass
        self.L = None
        self.start = 0
        self.least = math.inf
        self.relink = True
        self.armed = True
        self.hull = False
        self.fresh = fresh              # the members made with the group (update_events' HINT_NOW, 3.2)

    def normal_of(self, q: int):
        return ball_row_normal(self.batch[0], self.offset + q)

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

    def update_events(self, env, speed: float) -> None:
        """update_events of each pair (HINT_NOW for the members made with
        the group, else HINT_SMALL_DELAY); a pair beyond the look-ahead only
        has its event cleared, as update_events does (``speed``: the ball's
        current_speed + max_surface_rot_speed, as look_ahead adds them). A
        group with no event whose least gap is beyond the look-ahead goes to
        hull mode. A pair whose pass answer is no event gets that at once."""
        c1 = self.soup.obj.core
        limit = look_ahead_limit(env, speed + c1.max_surface_rot_speed + c1.current_speed)
        fresh = self.fresh
        self.fresh = ()
        self.hull = self.least > limit and not self.armed     # no member has an event, and none is searched
        if self.hull:
            return
        mds = self.mds
        if self.armed:                              # else no member has an event to clear
            for md in mds:
                md.event = None
        o, L, s = self.offset, self.L, self.start
        what = self.batch[2][0]
        W = what[o:o + len(mds)].tolist()
        armed, used = False, []
        for q, md in enumerate(mds):
            if L[s + q] > limit:
                continue
            if W[q] == EVENT_NOT_MADE or W[q] == EVENT_AT:
                update_events(env, md, True, HINT_NOW if q in fresh else HINT_SMALL_DELAY)
                armed = armed or md.event is not None
            else:
                used.append(o + q)
        what[used] = EVENT_NOT_MADE                 # as _made_event: each answer used once
        self.armed = armed


class PieceBatch:
    """One pass of hull_triangles_measure (a piece against a grid's
    triangles): each pair's row of features (A's, B's: also its previous
    features at the next pass), whether its sides are swapped, and its
    geometry; the sides and geometry are made from the row when first read."""

    __slots__ = ("F", "swapped", "G", "events")

    def __init__(self, F, swapped, G):
        self.F = F
        self.swapped = swapped
        self.G = G
        self.events = None              # the pass's update_search answers (mindist_batches.piece_pairs_k)

    def _before_snapshot(self) -> None:
        """The pass's kept answers are no part of a snapshot or a state hash
        (a cache: update_events searches again, to the same bits; rows it
        leaves unread hold no value)."""
        self.events = None

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
