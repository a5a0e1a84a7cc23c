"""The shapes of a PSI's awake cores (issue 11): :class:`AwakeSet`, kept with
the lane's plan while it holds (their cores' rows of the body table are
what the broad phase reads), and the balls' steady records
(:class:`SteadyBalls`) by which after_integration (ivp-contacts 1.2 steps
4-6) skips the balls whose fixed neighbours and events are as they were."""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from .constants import COLL_DIST, HULL_LOOK_AHEAD_PSIS
from .mindist_search import HULL_SLACK
from .shapes import Shape

class AwakeSet:
    """The shapes of a PSI's awake cores, in order: their cores' rows of the
    body table, those that may have mindists, the index of each serial, and
    their rows in the movable spheres (kept for one version); and the balls'
    steady records (:class:`SteadyBalls`: made when first needed, carried to
    the next set)."""

    __slots__ = ("shapes", "rows", "with_mindists", "with_mindists_k", "index_of", "sphere_rows", "steady",
                 "_ball_radii")

    def __init__(self, cores):
        shapes = []
        rows = []
        for core in cores:
            for obj in core.objects:
                s = obj.collision_data
                if s is not None:
                    rows.append(core.row)
                    shapes.append(s)
        self.shapes = shapes
        self.rows = np.array(rows, dtype=np.int64)
        # the bodies whose mindists a pass may drop: one with none now gets none before the
        # pass unless its first is made (CollisionSystem._mindist: :meth:`may_drop`)
        self.with_mindists = [k for k, s in enumerate(shapes) if s.mindists]
        self.with_mindists_k = np.array(self.with_mindists, dtype=np.int64)
        self.index_of = {s.serial: k for k, s in enumerate(shapes)}
        self.sphere_rows = (-1, None)
        self.steady = None
        self._ball_radii = None

    def may_drop(self, shape: Shape) -> None:
        """The shape, if it is one of the set, has its first mindist: a later
        pass looks at its mindists (``with_mindists`` stays in order; one
        that has none again is passed over)."""
        k = self.index_of.get(shape.serial)
        if k is None or self.shapes[k] is not shape:
            return
        i = bisect_left(self.with_mindists, k)
        if i == len(self.with_mindists) or self.with_mindists[i] != k:
            self.with_mindists.insert(i, k)
            self.with_mindists_k = np.array(self.with_mindists, dtype=np.int64)

    def ball_radii(self):
        """Each shape's ball radius (-1: not a ball), made when first asked for."""
        if self._ball_radii is None:
            self._ball_radii = np.array([s.radius if s.is_ball else -1.0 for s in self.shapes], dtype=np.float64)
        return self._ball_radii


class SteadyBalls:
    """The awake balls whose pairs with the fixed bodies were, at their last
    PSI, one kept SoupPairs (CollisionSystem._take_soup) of the one fixed
    body whose box their sphere met: while that holds (the same fixed bodies
    may collide, no member of the group gone, the sphere inside that box
    alone and its soup query, collision_enabled and nocoll_group as made), the per-piece
    loop of after_integration would take the same group, so it is taken at
    once, every ball tested in one pass (:meth:`holds`)."""

    __slots__ = ("aw", "sp", "f", "version", "qc", "qr", "radius", "fixed", "count", "hgap", "hc")

    def __init__(self, aw: AwakeSet):
        shapes = aw.shapes
        n = len(shapes)
        self.aw = aw
        self.sp = [None] * n
        self.f = np.full(n, -1, dtype=np.int64)
        self.version = np.full(n, -1, dtype=np.int64)
        self.qc = np.zeros((n, 3))
        self.qr = np.zeros(n)
        self.radius = np.array([s.radius if s.is_ball else 0.0 for s in shapes])
        self.hgap = np.zeros(n)             # a group's least gap and the ball's centre when it went to hull mode
        self.hc = np.zeros((n, 3))
        self.fixed = None               # the collision-enabled fixed shapes the records were made with
        self.count = 0

    def carried(self, aw: AwakeSet) -> "SteadyBalls":
        """The records for another awake set (each ball's own)."""
        out = SteadyBalls(aw)
        out.fixed = self.fixed
        index_of = self.aw.index_of
        old = np.fromiter((index_of.get(s.serial, -1) for s in aw.shapes), dtype=np.int64, count=len(aw.shapes))
        k = np.flatnonzero(old >= 0)
        j = old[k]
        out.f[k] = self.f[j]
        out.version[k] = self.version[j]
        out.qc[k] = self.qc[j]
        out.qr[k] = self.qr[j]
        out.hgap[k] = self.hgap[j]
        out.hc[k] = self.hc[j]
        sp = self.sp
        for kk, jj in zip(k.tolist(), j.tolist()):
            out.sp[kk] = sp[jj]
        out.count = sum(x is not None for x in out.sp)
        return out

    def record(self, k: int, ball: Shape, sp, f: int) -> None:
        """Shape k took ``sp`` of fixed body ``f`` (its index in ``fixed``) alone."""
        if self.sp[k] is None:
            self.count += 1
        self.sp[k] = sp
        self.f[k] = f
        self.version[k] = ball.md_version
        qc, qr, _ = ball.soup_cache[sp.soup.serial]
        self.qc[k] = qc
        self.qr[k] = qr

    def forget(self, k: int) -> None:
        if self.sp[k] is not None:
            self.count -= 1
            self.sp[k] = None
            self.f[k] = -1

    def holds(self, fixed, LO, HI, centers, reach):
        """Which records still hold (a bool array, one per shape), or None: the box tests
        (``fixed``'s boxes as arrays LO, HI) and the query test as the loop and
        _soup_keys make them."""
        if self.count == 0 or not fixed:
            return None
        if self.fixed != fixed:
            self.__init__(self.aw)
            self.fixed = fixed
            return None
        shapes = self.aw.shapes
        rr = (self.radius + reach)[:, None]
        P = centers[:, None, :]
        meet = ~((P[..., 0] + rr < LO[:, 0]) | (P[..., 0] - rr > HI[:, 0]) | (P[..., 1] + rr < LO[:, 1])
                 | (P[..., 1] - rr > HI[:, 1]) | (P[..., 2] + rr < LO[:, 2]) | (P[..., 2] - rr > HI[:, 2]))
        one = meet.sum(axis=1) == 1
        which = np.argmax(meet, axis=1)         # the box met, where it is the one
        d = centers - self.qc
        inside = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]) + rr[:, 0] <= self.qr
        version = np.fromiter((s.md_version for s in shapes), dtype=np.int64, count=len(shapes))
        return (self.f >= 0) & one & (which == self.f) & inside & (version == self.version)

    def went_to_hull(self, k: int, sp, centre) -> None:
        """Ball k's group ``sp`` went to hull mode at this pass, the ball at ``centre``."""
        if self.sp[k] is sp:
            self.hgap[k] = sp.least
            self.hc[k] = centre

    def quiet(self, holds, centers, speeds, dt: float):
        """Which held balls' groups stay in hull mode (3.4; SoupPairs.hull), a
        bool array, one per shape: the least gap less how far the ball's centre has
        moved (a ball's gap to a fixed triangle shrinks by no more) is still
        beyond this PSI's look-ahead (SoupPairs.update_events' limit), so
        their measurement and update_events would queue and search nothing.
        (A member's event or a member leaving the link ends the hull mode.)"""
        k = np.flatnonzero(holds)
        sp = self.sp
        k = k[np.fromiter((sp[i].hull for i in k.tolist()), dtype=bool, count=k.shape[0])]
        if not k.shape[0]:
            return np.zeros(len(holds), dtype=bool)
        gap = self.hgap[k]
        d = centers[k] - self.hc[k]
        moved = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2])
        c1 = [f.obj.core for f in self.fixed]
        w1 = np.array([c.max_surface_rot_speed + c.current_speed for c in c1])[self.f[k]]
        limit = COLL_DIST + dt * (speeds[k] + w1) * HULL_LOOK_AHEAD_PSIS
        out = np.zeros(len(holds), dtype=bool)
        out[k[gap - moved - limit > HULL_SLACK * (1.0 + np.abs(gap))]] = True
        return out
