"""The collision system: the environment's collision hooks (ivp-contacts 1).
Inside a PSI the friction systems run as the units' controllers
(friction.py); after integration (1.2 steps 4-6) each awake body's nearby
pieces get a mindist whose next event before the next PSI is queued
(mindist.py); an event under 1.1 cm runs the impact (1.3, 4: impact.py),
which makes or reuses the pair's contact point (5.2)."""

from __future__ import annotations

import math
from itertools import compress
from operator import attrgetter

import numpy as np

from ..core import MT_NOT_SIM
from ..fp import f32
from ..freeze import revive_sim_unit
from ..step.unit_pass import planned_psi
from .awake import AwakeSet, SteadyBalls
from .broadphase import BROAD_MARGIN, MovableSpheres, ball_pairs_meet_k, fixed_boxes_k
from .constants import COLL_DIST
from .contact_points import ContactPoints
from .events import CollisionEvent
from .features import front_normal
from .impact import ImpactSystem, rescue_addon, solve_single_impact, synchronize
from .material import material_of, may_collide
from .mindist import HINT_BIG_DELAY, HINT_NOW, HINT_SMALL_DELAY, Mindist, SoupPairs, pair_order, update_events
from .mindist_batches import PiecePack, recalc_all, recalc_quiet_groups
from .mindist_search import core_pose, hull_holds
from ..state.layout import BOUND
from .shapes import Shape

SOUP_QUERY_MARGIN = 0.25     # a grid query is reused while the body stays inside it


BALL_KEY = ("b", 0)             # a ball's one piece
_BALL = attrgetter("ball")
_MDS = attrgetter("mds")
_MINDISTS = attrgetter("mindists")


class CollisionSystem(ContactPoints):
    """``env.collision``: shapes, mindists, contact points, impacts, listeners."""

    def __init__(self, env):
        self.environment = env
        self.movable = []
        self.spheres = MovableSpheres(self.movable)
        self.fixed = []
        self.serial = 0
        self.systems = {}               # friction systems, in creation order (a dict as an ordered set)
        self.contact_points = {}         # (serial, serial) -> contact points of the object pair
        self.listeners_collision = []
        self.listeners_contact = []
        self.psi_stamp = 0
        self._pose_grid = None
        self._boxes = None              # the fixed shapes' boxes, the enabled ones, who may collide (_fixed_boxes)
        self._steady = None             # the last PSI's SteadyBalls, carried to a new AwakeSet
        self.piece_pack = PiecePack()   # the pieces of the piece pair passes, packed

    # --- listeners and queries -------------------------------------------------

    def add_listener_collision(self, listener, obj=None) -> None:
        """listener.event_post_collision(ev) after every impact (of ``obj``, or all)."""
        self.listeners_collision.append((listener, obj))

    def remove_listener_collision(self, listener, obj=None) -> None:
        self.listeners_collision.remove((listener, obj))

    def add_listener_contact(self, listener, obj=None) -> None:
        """listener.event_friction_created(ev) / event_friction_deleted(ev)."""
        self.listeners_contact.append((listener, obj))

    def remove_listener_contact(self, listener, obj=None) -> None:
        self.listeners_contact.remove((listener, obj))

    def _fire(self, listeners, method: str, ev) -> None:
        """7.1: global listeners first (last registered first), then side 0's
        object's, then side 1's."""
        for want in (None, ev.obj0, ev.obj1):
            for listener, obj in reversed(list(listeners)):
                if obj is want:
                    getattr(listener, method)(ev)

    def contacts(self):
        """Every current contact point."""
        for fs in list(self.systems):
            yield from fs.contacts

    def mindists(self):
        """Every mindist (each once)."""
        seen = set()
        for s in self.movable:
            for md in s.mindists.values():
                if id(md) not in seen:
                    seen.add(id(md))
                    yield md

    # --- environment hooks ---------------------------------------------------------

    def object_created(self, obj) -> None:
        """Build the object's shape (a bad material is an error; the object goes)."""
        try:
            material_of(obj)
        except TypeError:
            self.environment.delete_object(obj)
            raise
        if not obj.collision_enabled:
            return
        self.serial += 1
        shape = Shape(obj, self.serial)
        obj.collision_data = shape
        self.environment.sim_unit_manager.changed((obj.core.sim_unit_of_core,))
        self.write_bound(obj.core)
        if obj.core.physical_unmoveable:
            self.fixed.append(shape)
            self._boxes = None
        else:
            self.spheres.add(shape)
            self._pose_grid = None

    def object_deleted(self, obj) -> None:
        """5.9: silent deletion of the object's contact points (partners are not
        woken); its mindists go."""
        shape = obj.collision_data
        if shape is None:
            return
        for md in list(shape.mindists.values()):
            self._drop_mindist(md)
        for key in [k for k in self.contact_points if shape.serial in k]:
            for cp in list(self.contact_points.get(key, ())):
                self.delete_contact(cp, silent=True)
        if obj.core.physical_unmoveable:
            self.fixed.remove(shape)
            self._boxes = None
        else:
            self.spheres.remove(shape)
            self._pose_grid = None
        obj.collision_data = None
        self.environment.sim_unit_manager.changed((obj.core.sim_unit_of_core,))
        self.write_bound(obj.core)

    def write_bound(self, core) -> None:
        """The core's BOUND column: the radius about its centre of a sphere
        holding every piece's bounding sphere (rigid in the core frame), a
        little enlarged, a conservative stand-in for the pieces in the broad
        phase's box test (:meth:`_broad_phase`)."""
        c = core.m_world_f_core_last_psi[1]
        b = 0.0
        for obj in core.objects:
            s = obj.collision_data
            if s is None:
                continue
            for _, p, r in self._piece_spheres(s):
                b = max(b, math.sqrt((p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2 + (p[2] - c[2]) ** 2) + r)
        core._bodies.rows[core.row, BOUND] = b * (1.0 + 1e-9) + 1e-9

    def core_deleted(self, core) -> None:
        """A friction system's controller learns of a deleted core: its contact
        points go silently (object_deleted has normally done this already)."""
        fs = core.friction_system
        if fs is None:
            return
        for cp in list(fs.core_contacts.get(core, ())):
            self.delete_contact(cp, silent=True)

    def object_frozen(self, obj) -> None:
        """6.2: contact points stay; mindists with fixed and frozen partners go."""
        shape = obj.collision_data
        if shape is None:
            return
        self.spheres.rest(shape)
        for md in list(shape.mindists.values()):
            other = md.b if md.a is shape else md.a
            oc = other.obj.core
            if oc.physical_unmoveable or oc.movement_state == MT_NOT_SIM:
                self._drop_mindist(md)

    def object_revived(self, obj) -> None:
        """Mindists are rebuilt by the next broad-phase pass (3.2)."""

    def begin_psi(self) -> None:
        """Nothing to prepare: the friction systems work inside the units."""

    def update_after_controllers(self, sim_unit) -> None:
        """A unit has run and its cores moved: the pose grid is stale."""
        self._pose_grid = None

    # --- 3.2 mindists ----------------------------------------------------------------------

    def _mindist(self, a: Shape, ka, b: Shape, kb) -> Mindist:
        key = (a.serial, ka, b.serial, kb)
        md = a.mindists.get(key)
        if md is None:
            md = Mindist(a, ka, b, kb)
            a.mindists[key] = md
            b.mindists[key] = md
            lane = self.environment.lane
            aw = None if lane is None or lane.plan is None else lane.plan.awake
            if aw is not None:          # the kept set's bodies whose mindists a pass may drop
                for s in (a, b):
                    if len(s.mindists) == 1:
                        aw.may_drop(s)
        return md

    def _drop_mindist(self, md: Mindist) -> None:
        md.alive = False
        md.event = None
        if md.kb[0] == "t":             # a member of the ball's group (SoupPairs) with that soup: not kept
            kept = md.a.soup_pairs.get(md.b.serial)
            if kept is not None and md in kept[2].mds:
                md.a.md_version += 1
        key = (md.a.serial, md.ka, md.b.serial, md.kb)
        md.a.mindists.pop(key, None)
        md.b.mindists.pop(key, None)

    def _soup_keys(self, a: Shape, b: Shape, c, r) -> list:
        """Piece keys of the triangles of b's grid near the sphere (c, r), from a
        query reused while the sphere stays inside the (enlarged) sphere it was made for."""
        cached = a.soup_cache.get(b.serial)
        if cached is not None:
            qc, qr, keys = cached
            d = (c[0] - qc[0], c[1] - qc[1], c[2] - qc[2])
            if math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + r <= qr:       # SteadyBalls.holds's test
                return keys
        qr = r + SOUP_QUERY_MARGIN
        keys = [("t", t) for t in b.grid.query(c[0], c[1], c[2], qr)]
        if cached is not None and keys == cached[2]:
            keys = cached[2]            # the same triangles: the group made with them is kept (_take_soup)
        a.soup_cache[b.serial] = (c, qr, keys)
        return keys

    def _piece_spheres(self, shape: Shape):
        """(key, centre, radius) of a movable shape's pieces at its PSI pose."""
        m = shape.obj.core.m_world_f_core_last_psi
        if shape.is_ball:
            return [(BALL_KEY, m[1], shape.radius)]
        return shape.piece_spheres_at(m)

    def _fixed_pieces(self, shape: Shape, fixed: Shape, c, r):
        """Keys of the fixed shape's pieces whose bounding spheres meet (c, r)."""
        out = []
        if fixed.is_ball:
            fc = fixed.obj.core.m_world_f_core_last_psi[1]
            rr = r + fixed.radius
            if (fc[0] - c[0]) ** 2 + (fc[1] - c[1]) ** 2 + (fc[2] - c[2]) ** 2 <= rr * rr:
                out.append(BALL_KEY)
            return out
        for k, p in enumerate(fixed.world_pieces):
            rr = r + p.radius
            pc = p.center
            if (pc[0] - c[0]) ** 2 + (pc[1] - c[1]) ** 2 + (pc[2] - c[2]) ** 2 <= rr * rr:
                out.append(("p", k))
        if fixed.grid is not None:
            out += self._soup_keys(shape, fixed, c, r)
        return out

    def _take_soup(self, ball: Shape, soup: Shape, c, r, measured, stamp, k: int):
        """The ball's mindists with the soup's triangles near (c, r), in the
        order :meth:`_fixed_pieces` gives them, as one :class:`SoupPairs`
        entry of ``measured``, kept while the soup query and the ball's
        mindists stay (then returned, else None); a new group takes the pairs the ball
        has and makes the others (HINT_NOW, 3.2). ``k``: the ball's index in the awake set."""
        keys = self._soup_keys(ball, soup, c, r)
        if not keys:
            return None
        kept = ball.soup_pairs.get(soup.serial)
        if kept is not None and kept[0] is keys and kept[1] == ball.md_version:
            sp = kept[2]
        else:
            mds = []
            fresh = []
            for kf in keys:
                md = ball.mindists.get((ball.serial, BALL_KEY, soup.serial, kf))
                if md is None:
                    fresh.append(len(mds))
                    md = self._mindist(ball, BALL_KEY, soup, kf)
                mds.append(md)
            sp = SoupPairs(ball, soup, keys, mds, fresh)
            ball.soup_pairs[soup.serial] = (keys, ball.md_version, sp)
        sp.mark_seen(stamp)
        measured.append((sp, k))
        return sp if kept is not None and kept[2] is sp else None

    @staticmethod
    def _take_held(steady, near, holds, quiet, stamp: int):
        """The per-piece loop's answer for the balls of ``near`` whose steady
        record holds, at once: their groups seen (SoupPairs.mark_seen; a
        ball whose group is all its mindists is marked in the returned mask
        of shapes, for the pass's drop test, instead of its all_seen), and
        the measured entries of those not quiet (in order); returned after
        the rest of near."""
        m = holds[near]
        held = near[m]
        sp = steady.sp
        groups = list(map(sp.__getitem__, held.tolist()))
        n = len(groups)
        whole = (np.fromiter(map(len, map(_MDS, groups)), dtype=np.int64, count=n)
                 == np.fromiter(map(len, map(_MINDISTS, map(_BALL, groups))), dtype=np.int64, count=n))
        for g in compress(groups, (~whole).tolist()):
            g.mark_seen(stamp)
        seen_all = np.zeros(holds.shape[0], dtype=bool)
        seen_all[held[whole]] = True
        return near[~m], [(sp[k], k) for k in held[~quiet[held]].tolist()], seen_all

    def after_integration(self, cores) -> None:
        """1.2 steps 4-6: the mindists of every awake body (new ones for pieces
        that could reach coll_dist before the next PSI, none for pieces far
        away), measured at the PSI time, their next events queued."""
        env = self.environment
        dt = env.delta_PSI_time
        self.psi_stamp += 1
        stamp = self.psi_stamp
        plan = planned_psi(env)
        aw = None if plan is None else plan.awake
        if aw is None:
            aw = AwakeSet(cores)
            if plan is not None:
                plan.awake = aw
            last = self._steady
            if last is not None and last.count:
                aw.steady = last.carried(aw)
        awake = aw.shapes
        if not awake:
            return
        t = env.current_time
        centers, radii, reach_arr, speeds, near, hit = self._broad_phase(aw, dt)
        reach_of = reach_arr.tolist()
        # each body's centre and current_speed + max_surface_rot_speed (fixed in
        # this pass) as floats, made for the first ball the loop below meets
        at = speed_of = None
        measured = []
        hull_memo = {}
        spheres = {}                    # each movable hull's piece spheres, made once for the pass

        def take(s, ks, o, ko) -> None:
            """The pair's mindist (new ones measured with HINT_NOW), once per PSI."""
            a, b = pair_order(s, o)
            ka, kb = (ks, ko) if a is s else (ko, ks)
            key = (a.serial, ka, b.serial, kb)
            md = a.mindists.get(key)
            new = md is None
            if new:
                md = self._mindist(a, ka, b, kb)
            if md.seen != stamp:
                md.seen = stamp
                if md.hull is not None and hull_holds(env, md, t, hull_memo):
                    return                  # 3.4: in hull mode, not measured
                measured.append((md, HINT_NOW if new else HINT_SMALL_DELAY))

        _, _, epos, enabled, ELO, EHI, fixed_of = self._fixed_boxes()
        ej = None                       # the enabled fixed bodies whose box each body meets, for many at once
        if near.shape[0] > 1:
            ek, ej = np.nonzero(hit[:, epos])
            ej = ej.tolist()
            starts = [0] + np.cumsum(np.bincount(ek, minlength=len(awake))).tolist()
        steady = aw.steady
        holds = None if steady is None else steady.holds(enabled, ELO, EHI, centers, reach_arr)
        held = ()
        seen_all = None
        if holds is not None:
            at = centers.tolist()
            speed_of = speeds.tolist()
            quiet = steady.quiet(holds, centers, speeds, dt)
            near, held, seen_all = self._take_held(steady, near, holds, quiet, stamp)
        near = near.tolist()
        ei = 0
        next_k = held[0][1] if held else len(awake)
        for k in near:
            if k > next_k:                  # the held balls' entries before k, in order
                while ei < len(held) and held[ei][1] < k:
                    measured.append(held[ei])
                    ei += 1
                next_k = held[ei][1] if ei < len(held) else len(awake)
            s = awake[k]
            o = s.obj
            # the fixed bodies whose box the sphere of every piece meets (the others: every test misses)
            meets = None
            if o.collision_enabled and not o.nocoll_group:
                fixed, fpos = enabled, epos     # may_collide's answer for every fixed body
                if ej is not None:
                    meets = ej[starts[k]:starts[k + 1]]
            else:
                alike = (bool(o.collision_enabled), o.nocoll_group[:8], bool(o.core.physical_unmoveable))
                some = fixed_of.get(alike)
                if some is None:
                    fpos = [j for j, f in enumerate(self.fixed) if may_collide(o, f.obj)]
                    some = fixed_of[alike] = ([self.fixed[j] for j in fpos], np.array(fpos, dtype=np.int64))
                fixed, fpos = some
            if meets is None:
                meets = np.flatnonzero(hit[k, fpos]).tolist()
            reach = reach_of[k]
            if s.is_ball and at is None:
                at = centers.tolist()
                speed_of = speeds.tolist()
            hits = 0
            kept = None
            if not s.is_ball and s not in spheres:
                spheres[s] = self._piece_spheres(s)
            for ks, c, r in (((BALL_KEY, at[k], s.radius),) if s.is_ball else spheres[s]):
                rr = r + reach
                for j in meets:
                    f = fixed[j]
                    lo = f.lo
                    hi = f.hi
                    if (c[0] + rr < lo[0] or c[0] - rr > hi[0] or c[1] + rr < lo[1] or c[1] - rr > hi[1]
                            or c[2] + rr < lo[2] or c[2] - rr > hi[2]):
                        continue            # the sphere misses the fixed body's box
                    hits += 1
                    if s.is_ball and not f.world_pieces and f.grid is not None:
                        sp = self._take_soup(s, f, c, rr, measured, stamp, k)
                        kept = (sp, j) if sp is not None else None
                        continue
                    for kf in self._fixed_pieces(s, f, c, rr):
                        take(s, ks, f, kf)
            if kept is not None and hits == 1 and fixed is enabled:
                if steady is None:
                    steady = aw.steady = SteadyBalls(aw)
                    steady.fixed = enabled
                steady.record(k, s, *kept)
            elif steady is not None:
                steady.forget(k)
        measured.extend(held[ei:])
        self._steady = steady
        for s, ks, o, ko in self._movable_pairs(aw, centers, reach_arr, reach_of, radii, spheres):
            take(s, ks, o, ko)
        mds = [md for md, _ in measured]
        self._update_events(mds, [how for _, how in measured], recalc_all(mds, t), True, centers, speed_of, steady)
        todo = aw.with_mindists
        if seen_all is not None:
            k = aw.with_mindists_k
            todo = k[~seen_all[k]].tolist()
        for k in todo:
            s = awake[k]
            if not s.mindists or s.all_seen == stamp:
                continue
            for md in [md for md in s.mindists.values() if md.seen != stamp]:
                self._drop_mindist(md)

    def _movable_pairs(self, aw, centers, reach_arr, reach_of, radii, spheres) -> list:
        """(s, ks, o, ko) of the movable pairs the broad phase finds (in its
        order) that may collide, each pair of their pieces whose spheres,
        grown by both bodies' reach (one not awake: coll_dist + the margin),
        meet; the sphere test of the pairs of two awake balls made at once.
        ``spheres``: the shapes' piece spheres the pass has made (more are added)."""
        i, j, awake_k = self.spheres.pair_rows(aw, centers, radii)
        if i.shape[0] == 0:
            return []
        ki, kj, balls, meet = ball_pairs_meet_k(i, j, awake_k, aw.ball_radii(), centers, reach_arr)
        shapes = self.spheres.shapes
        found = []
        for a, b, ka, kb, ball_pair, m in zip(i.tolist(), j.tolist(), ki.tolist(), kj.tolist(), balls.tolist(),
                                              meet.tolist()):
            if ball_pair and not m:
                continue
            s = shapes[a]
            o = shapes[b]
            if not may_collide(s.obj, o.obj):
                continue
            if ball_pair:
                found.append((s, BALL_KEY, o, BALL_KEY))
                continue
            reach = reach_of[ka] + (COLL_DIST + BROAD_MARGIN if kb < 0 else reach_of[kb])
            for x in (s, o):
                if x not in spheres:
                    spheres[x] = self._piece_spheres(x)
            for ks, c, r in spheres[s]:
                for ko, oc, orad in spheres[o]:
                    rr = r + orad + reach
                    d = (oc[0] - c[0], oc[1] - c[1], oc[2] - c[2])
                    if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= rr * rr:
                        found.append((s, ks, o, ko))
        return found

    def _fixed_boxes(self):
        """The fixed shapes' boxes (``fixed``'s order) as (m, 3) arrays, the enabled ones' positions, shapes
        and boxes, and may_collide's fixed bodies per body's (enabled, group, unmovable): made again when a
        fixed shape comes or goes (an object's collision_enabled and nocoll_group never change)."""
        if self._boxes is None:
            LO = np.array([f.lo for f in self.fixed], dtype=np.float64).reshape(-1, 3)
            HI = np.array([f.hi for f in self.fixed], dtype=np.float64).reshape(-1, 3)
            epos = np.array([j for j, f in enumerate(self.fixed) if f.obj.collision_enabled], dtype=np.int64)
            self._boxes = (LO, HI, epos, [self.fixed[j] for j in epos.tolist()], LO[epos], HI[epos], {})
        return self._boxes

    def _broad_phase(self, aw, dt):
        """The awake bodies' broad-phase values from their body rows in one pass
        (fixed_boxes_k), which fixed boxes each one's piece spheres (BOUND)
        meet, as an (awake, fixed) bool array, and the indices in
        ``aw.shapes`` of the bodies that meet some box."""
        return fixed_boxes_k(self.environment.bodies.rows, aw.rows, *self._fixed_boxes()[:2], dt)

    def update_events_of_cores(self, cores) -> None:
        """4.9: every exact pair of the pushed cores re-measured at t, its
        events recomputed (one on the invalid list waits for its retry, 3.3):
        a ball's kept groups whose members are all linked to them measured
        whole (recalc_quiet_groups) while none has an event to queue or
        search, else each pair on its own."""
        t = self.environment.current_time
        mds, groups = self._exact_pairs(cores, t, True)
        if groups and not recalc_quiet_groups(groups, t):
            mds, _ = self._exact_pairs(cores, t, False)
        # measured at once (a measurement reads poses only, which the pushes
        # of intruded pairs leave alone: they are pending speed changes)
        self._update_events(mds, [HINT_BIG_DELAY] * len(mds), recalc_all(mds, t), False)

    def _exact_pairs(self, cores, t: float, whole: bool):
        """The cores' pairs in order, each once, not on the invalid list and
        not held in hull mode (3.4), and (``whole``) apart from them the
        members of each ball's kept SoupPairs linked to it as a whole."""
        env = self.environment
        seen = set()
        mds = []
        groups = []
        memo = {}
        for core in cores:
            for obj in core.objects:
                shape = obj.collision_data
                if shape is None:
                    continue
                kept = ()
                if whole and shape.soup_pairs:
                    v, n = shape.md_version, shape.soup_measures
                    kept = [sp for _, version, sp in shape.soup_pairs.values()
                            if version == v and not sp.relink and sp.measures == n and sp.batch is not None]
                    groups += kept
                for md in shape.mindists.values():
                    if id(md) not in seen and not md.intrusion and not (type(md._batch) is SoupPairs
                                                                         and md._batch in kept):
                        seen.add(id(md))
                        if md.hull is None or not hull_holds(env, md, t, memo):    # 3.4: only the exact ones
                            mds.append(md)
        return mds, groups

    def _update_events(self, mds, hows, quiets, allow_hull: bool, centers=None, speed_of=None, steady=None) -> None:
        """update_events of each measured entry (``hows``: the hint, or a
        SoupPairs' ball's index), an intruded pair on the invalid list first;
        the pairs recalc_all answered quiet (``quiets``) get no event at once
        (the intrusion pushes are pending speed changes: they leave what its
        tests read alone)."""
        env = self.environment
        for md, how, quiet in zip(mds, hows, quiets):
            if type(md) is SoupPairs:
                md.update_events(env, speed_of[how])      # never intruded (two-sided triangles)
                if md.hull and steady is not None:
                    steady.went_to_hull(how, md, centers[how])
                continue
            if md.intrusion:
                self.intruded(md)
            if quiet:
                md.event = None             # as update_events' early returns
                md.hull = None
            else:
                update_events(env, md, allow_hull, how)

    # --- 3.3 intrusion ----------------------------------------------------------------------

    def intruded(self, md: Mindist) -> None:
        """3.3 INTRUSION: the pair is on the invalid list (no events; it is
        measured again after each PSI) and the anomaly manager's
        inter-penetration handler pushes the bodies apart, once per PSI."""
        env = self.environment
        if md.intrusion_psi == env.psi_count:
            return
        md.intrusion_psi = env.psi_count
        b, kb = md.b, md.kb
        ca, cb = md.a.obj.core, b.obj.core
        if ca.physical_unmoveable:
            b, kb, ca, cb = md.a, md.ka, cb, ca
        normal = None
        if cb.physical_unmoveable:
            t = env.current_time
            normal = front_normal(b.piece_world(kb, core_pose(cb, t)), core_pose(ca, t)[1])
        env.anomaly_manager.inter_penetration(env, ca, cb, normal)

    # --- 4.1 the impact ---------------------------------------------------------------------

    def do_impact(self, md: Mindist) -> None:
        """4.1 do_impact at the event time: revive frozen sides, bring both
        cores to t, the contact point, the impact, its propagation and the
        post-collision event."""
        env = self.environment
        t = env.current_time
        c0, c1 = md.cores
        for core in (c0, c1):
            if not core.physical_unmoveable and core.movement_state == MT_NOT_SIM:
                revive_sim_unit(env, core.sim_unit_of_core)
        if md.side0 is None or not md.alive:
            return
        synced = []
        for core in (c0, c1):
            if not core.physical_unmoveable:
                synchronize(core, t)
                synced.append(core)
        keep_unit = c0.sim_unit_of_core if c1.physical_unmoveable else c1.sim_unit_of_core
        cp, _ = self.get_or_create_contact_point(md, keep_unit, t)
        if not cp.alive:
            return                          # a friction-created listener deleted a side
        pair = cp.pair
        dt_since = t - pair.last_impact_time_pair
        pair.last_impact_time_pair = t
        addon = rescue_addon(env, cp)
        u, pushed = solve_single_impact(env, cp, addon, 0)
        speed = (-u[0], -u[1], -u[2]) if cp.core1.physical_unmoveable else u
        if ImpactSystem(env, self, cp.system, t).run(cp, pushed, synced):
            self._drop_mindist(md)          # 8.2: the original's rule (our broad phase may re-create it next PSI)
        self._fire(self.listeners_collision, "event_post_collision",
                   CollisionEvent(cp, speed, t, f32(dt_since)))
