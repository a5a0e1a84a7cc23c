"""The collision system: the environment's collision hooks (surfaces-and-contacts 6).

Per PSI (spec 6): the contact controllers run inside the sim units (2000,
600, 0); after integration a collision pass finds, for every awake body,
the features whose gap falls below 0.01 within the PSI, brings the pair to
the time of impact, resolves the impact there (spec 5), creates the contact
point and integrates the pushed cores on to the next PSI.
"""

from __future__ import annotations

import math

import numpy as np

from .. import umath
from ..fp import f32, f32v
from .bodies import Side
from .broadphase import MovableSpheres, PoseGrid
from .contact import ContactPair, ContactPoint, FrictionController, NormalController
from .geometry import (
    COLLISION_DISTANCE,
    CONTACT_DROP_DISTANCE,
    HANDOVER_COS,
    IMPACT_SYSTEM_RANGE,
)
from .impact import resolve_impact
from .material import material_of, may_collide, pair_friction_elasticity
from .narrow import ball_ball, ball_piece, piece_piece
from .shapes import Shape

MAX_IMPACT_PUSHES = 5000      # spec 5 step 8
SOUP_QUERY_MARGIN = 0.25      # a grid query is reused while the body stays inside it
TOUCHING_IMPACT_SPEED = 0.24  # m/s: slower new features of a touching pair need no impact


class CollisionEvent:
    """Post-collision (spec 5 step 9): the closing speed before the impact."""

    __slots__ = ("obj0", "obj1", "point_ws", "normal_ws", "speed", "time")

    def __init__(self, obj0, obj1, point_ws, normal_ws, speed, time):
        self.obj0 = obj0
        self.obj1 = obj1
        self.point_ws = point_ws
        self.normal_ws = normal_ws
        self.speed = speed
        self.time = time


class ContactEvent:
    """Friction created / deleted (spec 5 step 9): a contact point's birth or death."""

    __slots__ = ("obj0", "obj1", "point_ws", "normal_ws", "contact", "time")

    def __init__(self, contact, time):
        self.contact = contact
        self.obj0 = contact.obj0
        self.obj1 = contact.obj1
        self.point_ws = contact.point_ws
        self.normal_ws = contact.normal_ws
        self.time = time


class UnitContacts:
    """A unit's pairs and live contacts in one PSI, and the normal rows the
    friction solve prepared for the normal solve."""

    __slots__ = ("key", "pairs", "contacts", "prepared")

    def __init__(self, key, pairs, contacts):
        self.key = key
        self.pairs = pairs
        self.contacts = contacts
        self.prepared = None


def _pair_order(a: Shape, b: Shape):
    """obj0 first: balls before polygons, movable before fixed, then creation order."""
    ka = (not a.is_ball, a.obj.core.physical_unmoveable, a.serial)
    kb = (not b.is_ball, b.obj.core.physical_unmoveable, b.serial)
    return (a, b) if ka <= kb else (b, a)


def end_pose(core, dt: float):
    """The pose at the next PSI after integration (dynamics 8.2)."""
    p = core.pos_world_f_core_last_psi
    d = core.delta_world_f_core_psis
    return (umath.quat_to_matrix(core.q_world_f_core_next_psi),
            (p[0] + d[0] * dt, p[1] + d[1] * dt, p[2] + d[2] * dt))


def reintegrate(core, ts: float, dt: float) -> None:
    """Integrate a core pushed at ts (0 <= ts <= dt after its PSI) on to the
    next PSI: the old motion up to ts, the new velocities after it."""
    rem = dt - ts
    d = core.delta_world_f_core_psis
    s = core.speed
    core.delta_world_f_core_psis = f32v((d[0] * ts + s[0] * rem) / dt, (d[1] * ts + s[1] * rem) / dt,
                                        (d[2] * ts + s[2] * rem) / dt)
    q_at = umath.quat_slerp(core.q_world_f_core_last_psi, core.q_world_f_core_next_psi, ts / dt)
    Q = umath.quat_from_rot_sin(core.rot_speed, rem)
    core.q_world_f_core_next_psi = umath.quat_normalize_iter(umath.quat_mul(q_at, Q))
    core.current_speed = f32(math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]))


class CollisionSystem:
    """``env.collision``: shapes, pairs, contacts, impacts, listeners."""

    def __init__(self, env):
        self.environment = env
        self.movable = []
        self.spheres = MovableSpheres(self.movable)
        self._pose_grid = None
        self._unit = UnitContacts(None, [], [])
        self.contacts_changed = 0
        self.fixed = []
        self.pairs = {}
        self.serial = 0
        self.friction_controller = FrictionController(self)
        self.normal_controller = NormalController(self)
        self.listeners_collision = []
        self.listeners_contact = []
        self._fixed_bounds = None

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
        for listener, obj in list(listeners):
            if obj is None or obj is ev.obj0 or obj is ev.obj1:
                getattr(listener, method)(ev)

    def contacts(self):
        """Every current contact point."""
        for pair in list(self.pairs.values()):
            yield from pair.contacts

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
        if obj.core.physical_unmoveable:
            self.fixed.append(shape)
            self._fixed_bounds = None
        else:
            self.spheres.add(shape)
            self._pose_grid = None

    def object_deleted(self, obj) -> None:
        shape = obj.collision_data
        if shape is None:
            return
        for pair in list(shape.pairs.values()):
            other = pair.obj1 if pair.obj0 is obj else pair.obj0
            self.remove_pair(pair)
            if not other.core.physical_unmoveable and not other.deleted:
                other.wake()
        if obj.core.physical_unmoveable:
            self.fixed.remove(shape)
        else:
            self.spheres.remove(shape)
            self._pose_grid = None
        self._fixed_bounds = None
        obj.collision_data = None

    def object_frozen(self, obj) -> None:
        """Contacts stay while a unit sleeps (they wake with it); the body's
        bounding sphere stays where it stopped."""
        if obj.collision_data is not None:
            self.spheres.rest(obj.collision_data)

    def object_revived(self, obj) -> None:
        """Nothing to do: grid queries are reused by position, not by time."""

    def begin_psi(self) -> None:
        """Nothing to prepare: the contact controllers work inside the units."""

    def update_after_controllers(self, sim_unit) -> None:
        """A unit has run and its cores moved: the pose grid is stale (the
        mindist recalculation of 6.3 has no other counterpart here)."""
        self._pose_grid = None

    def revive_partners(self, core) -> bool:
        """Spec 4: a revived body pulls in its movable resting partners within
        0.045 (contact points, so the units merge). True when a unit changed."""
        changed = False
        for obj in core.objects:
            shape = obj.collision_data
            if shape is None:
                continue
            c = core.m_world_f_core_last_psi[1]
            reach = core.upper_limit_radius + CONTACT_DROP_DISTANCE
            if self._pose_grid is None:
                self._pose_grid = PoseGrid(self.movable, CONTACT_DROP_DISTANCE)
            for other in self._pose_grid.near(core):
                oc = other.obj.core
                if other is shape or oc.sim_unit_of_core is core.sim_unit_of_core:
                    continue
                a, b = _pair_order(shape, other)
                if self.pairs.get((a.serial, b.serial)) is not None or not may_collide(a.obj, b.obj):
                    continue
                p = oc.m_world_f_core_last_psi[1]
                r = reach + oc.upper_limit_radius
                if (p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2 + (p[2] - c[2]) ** 2 > r * r:
                    continue
                m0 = a.obj.core.m_world_f_core_last_psi
                m1 = b.obj.core.m_world_f_core_last_psi
                cands = self._candidates(a, b, m0, m1, CONTACT_DROP_DISTANCE)
                if not cands:
                    continue
                pair = self._get_pair(a, b)
                t = self.environment.current_time
                for cand in cands:
                    self._add_contact(pair, cand, m0, m1, t)
                changed = True
        return changed

    # --- pairs and contacts ------------------------------------------------------------

    def _get_pair(self, a: Shape, b: Shape) -> ContactPair:
        """The pair's controller, created (and its movable cores' units merged) on demand."""
        key = (a.serial, b.serial)
        pair = self.pairs.get(key)
        if pair is None:
            mu, e = pair_friction_elasticity(a.obj, b.obj)
            pair = ContactPair(self, a.obj, b.obj, mu, e)
            self.pairs[key] = pair
            a.pairs[b.serial] = pair
            b.pairs[a.serial] = pair
            mgr = self.environment.sim_unit_manager
            for core in pair.get_controlled_cores():
                if self.friction_controller not in core.controllers_of_core:
                    mgr.add_controller_to_core(self.friction_controller, core)
                    mgr.add_controller_to_core(self.normal_controller, core)
            mgr.add_controller(pair)
        return pair

    def _add_contact(self, pair, cand, m0, m1, t) -> ContactPoint:
        c = ContactPoint(pair, cand, t)
        c.make_sides(m0, m1)
        pair.contacts.append(c)
        self.contacts_changed += 1
        self._fire(self.listeners_contact, "event_friction_created", ContactEvent(c, t))
        return c

    def delete_contact(self, c: ContactPoint) -> None:
        pair = c.pair
        self.contacts_changed += 1
        if c in pair.contacts:
            pair.contacts.remove(c)
            self._fire(self.listeners_contact, "event_friction_deleted",
                       ContactEvent(c, self.environment.current_time))
        if not pair.contacts:
            self.remove_pair(pair)

    def remove_pair(self, pair: ContactPair) -> None:
        """The pair's last contact is gone: detach it (its unit may split)."""
        a = pair.obj0.collision_data
        b = pair.obj1.collision_data
        if self.pairs.pop((a.serial, b.serial), None) is None:
            return
        self.contacts_changed += 1
        for c in list(pair.contacts):
            pair.contacts.remove(c)
            self._fire(self.listeners_contact, "event_friction_deleted",
                       ContactEvent(c, self.environment.current_time))
        a.pairs.pop(b.serial, None)
        b.pairs.pop(a.serial, None)
        self.environment.sim_unit_manager.remove_controller(pair)
        for shape in (a, b):
            if not shape.pairs:
                self.detach_core(shape.obj.core)

    def detach_core(self, core) -> None:
        """Take the shared friction and normal controllers off a core."""
        for ctrl in (self.friction_controller, self.normal_controller):
            if ctrl in core.controllers_of_core:
                core.controllers_of_core.remove(ctrl)
                core.sim_unit_of_core.remove_controller_core(ctrl, core)

    def unit_contacts(self, ev, cores) -> "UnitContacts":
        """The pairs of a unit's cores and their live contacts, gathered once per
        unit and PSI for controllers 600 and 0 (while no contact comes or goes)."""
        key = (ev.sim_unit, ev.environment.psi_count, self.contacts_changed)
        if self._unit.key != key:
            pairs = self.pairs_of_cores(cores)
            self._unit = UnitContacts(key, pairs, [c for p in pairs for c in p.contacts if not c.broken])
        return self._unit

    def pairs_of_cores(self, cores) -> list:
        """The pairs touching any of the cores, each once, in a stable order."""
        seen = set()
        out = []
        for core in cores:
            for obj in core.objects:
                shape = obj.collision_data
                if shape is None:
                    continue
                for pair in shape.pairs.values():
                    if id(pair) not in seen:
                        seen.add(id(pair))
                        out.append(pair)
        return out

    # --- narrow phase dispatch ------------------------------------------------------------

    def pair_candidates(self, pair, m0, m1, rng) -> list:
        return self._candidates(pair.obj0.collision_data, pair.obj1.collision_data, m0, m1, rng)

    def _candidates(self, a: Shape, b: Shape, m0, m1, rng, side_ref=None) -> list:
        """Every feature pair of a and b closer than rng at the poses m0, m1
        (``side_ref``: where ball a's centre was at the PSI, for two-sided faces)."""
        out = []
        c0 = m0[1]
        if a.is_ball:
            r = a.radius
            if b.is_ball:
                cand = ball_ball(c0, r, m1[1], b.radius, rng)
                return [cand] if cand is not None else out
            for k, piece in enumerate(b.pieces_at(m1)):
                pc = piece.center
                reach = piece.radius + r + rng
                if (pc[0] - c0[0]) ** 2 + (pc[1] - c0[1]) ** 2 + (pc[2] - c0[2]) ** 2 <= reach * reach:
                    cand = ball_piece(c0, r, piece, rng, ("p", k), side_ref)
                    if cand is not None:
                        out.append(cand)
            grid = b.grid
            if grid is not None:
                out += grid.ball_candidates(c0, r, rng, self._soup_ids(a, b, c0, r + rng), side_ref)
            return out
        pa = a.pieces_at(m0)
        pb = b.pieces_at(m1)
        seen = set()
        for i, PA in enumerate(pa):
            akey = _piece_key(i)
            for j, PB in enumerate(pb):
                if _spheres_apart(PA, PB, rng):
                    continue
                _extend_unique(out, seen, piece_piece(PA, PB, akey, _piece_key(j), rng))
            grid = b.grid
            if grid is not None:
                for t in self._soup_ids(a, b, PA.center, PA.radius + rng):
                    PB = grid.piece(t)
                    if _spheres_apart(PA, PB, rng):
                        continue
                    _extend_unique(out, seen, piece_piece(PA, PB, akey, _soup_key(grid, t), rng))
        return out

    def _soup_ids(self, a: Shape, b: Shape, c, r) -> list:
        """Triangles of b's grid near the sphere (c, r), from a query reused while
        the sphere stays inside the (enlarged) sphere it was made for."""
        cached = a.soup_cache.get(b.serial)
        if cached is not None:
            qc, qr, ids = cached
            d = math.sqrt((c[0] - qc[0]) ** 2 + (c[1] - qc[1]) ** 2 + (c[2] - qc[2]) ** 2)
            if d + r <= qr:
                return ids
        qr = r + SOUP_QUERY_MARGIN
        ids = b.grid.query(c[0], c[1], c[2], qr)
        a.soup_cache[b.serial] = (c, qr, ids)
        return ids

    # --- the collision pass after integration --------------------------------------------------

    def _fixed_boxes(self):
        if self._fixed_bounds is None:
            if self.fixed:
                self._fixed_bounds = (np.array([s.lo for s in self.fixed]), np.array([s.hi for s in self.fixed]))
            else:
                self._fixed_bounds = (np.zeros((0, 3)), np.zeros((0, 3)))
        return self._fixed_bounds

    def after_integration(self, cores) -> None:
        """Spec 6.3: broad phase on swept bounding spheres, narrow phase at the
        next PSI's poses, impacts at their time within the PSI."""
        env = self.environment
        dt = env.delta_PSI_time
        awake = []
        for core in cores:
            for obj in core.objects:
                if obj.collision_data is not None:
                    awake.append(obj.collision_data)
        if not awake:
            return
        poses = {}
        centers = []
        radii = []
        for s in awake:
            core = s.obj.core
            m = end_pose(core, dt)
            poses[s.serial] = m
            p0 = core.pos_world_f_core_last_psi
            p1 = m[1]
            half = 0.5 * math.sqrt((p1[0] - p0[0]) ** 2 + (p1[1] - p0[1]) ** 2 + (p1[2] - p0[2]) ** 2)
            centers.append(((p0[0] + p1[0]) * 0.5, (p0[1] + p1[1]) * 0.5, (p0[2] + p1[2]) * 0.5))
            radii.append(core.upper_limit_radius + half + CONTACT_DROP_DISTANCE)
        cand_pairs = []
        lo, hi = self._fixed_boxes()
        C = np.array(centers)
        Rr = np.array(radii)
        if len(lo):
            hit = np.all((C[:, None, :] + Rr[:, None, None] >= lo[None]) &
                         (C[:, None, :] - Rr[:, None, None] <= hi[None]), axis=2)
            for i, j in zip(*np.nonzero(hit)):
                cand_pairs.append((awake[i], self.fixed[j]))
        cand_pairs.extend(self.spheres.pairs(awake, centers, radii))
        impacts = []
        for s, other in cand_pairs:
            a, b = _pair_order(s, other)
            if not may_collide(a.obj, b.obj):
                continue
            m0 = poses.get(a.serial) or a.obj.core.m_world_f_core_last_psi
            m1 = poses.get(b.serial) or b.obj.core.m_world_f_core_last_psi
            pair = self.pairs.get((a.serial, b.serial))
            side_ref = a.obj.core.pos_world_f_core_last_psi if a.is_ball else None
            for cand in self._candidates(a, b, m0, m1, COLLISION_DISTANCE, side_ref):
                if pair is not None and _covered(pair, cand):
                    continue
                s0 = None if a.obj.core.physical_unmoveable else Side(a.obj.core, m0[0], _sub(cand.point, m0[1]))
                s1 = None if b.obj.core.physical_unmoveable else Side(b.obj.core, m1[0], _sub(cand.point, m1[1]))
                vn = _separation_speed(s0, s1, cand.normal)
                if vn < 0.0:
                    ts = dt - (COLLISION_DISTANCE - cand.gap) / -vn
                    ts = min(max(ts, 0.0), dt)
                    back = -vn * (dt - ts)              # the gap at the time of impact
                    cand.gap += back
                    n = cand.normal
                    p = cand.point
                    cand.point = (p[0] - n[0] * back * 0.5, p[1] - n[1] * back * 0.5, p[2] - n[2] * back * 0.5)
                else:
                    ts = 0.0
                impacts.append((ts, a.serial, b.serial, len(impacts), a, b, cand, m0, m1))
        if impacts:
            impacts.sort(key=lambda x: x[:4])
            self._run_impacts(impacts, dt)

    def _run_impacts(self, impacts, dt: float) -> None:
        """Spec 5: each impact at its time, its contact point, the post-collision
        event, then the propagation through the pushed bodies' contacts."""
        env = self.environment
        t = env.current_time
        pushes = 0
        for ts, _, _, _, a, b, cand, m0, m1 in impacts:
            if a.obj.deleted or b.obj.deleted or a.obj.collision_data is None or b.obj.collision_data is None:
                continue
            pair = self.pairs.get((a.serial, b.serial))
            if pair is not None and _covered(pair, cand):
                continue
            touching = pair is not None
            pair = self._get_pair(a, b)
            c = self._add_contact(pair, cand, m0, m1, t)
            if touching and -_separation_speed(c.side0, c.side1, c.normal_ws) < TOUCHING_IMPACT_SPEED:
                continue        # a new feature of a resting pair: the normal solve takes it
            speed = resolve_impact(c.side0, c.side1, c.normal_ws, c.gap, pair.mu, pair.e, dt)
            pushes += 1
            pushed = [s.core for s in (c.side0, c.side1) if s is not None]
            for core in pushed:
                reintegrate(core, ts, dt)
            self._fire(self.listeners_collision, "event_post_collision",
                       CollisionEvent(pair.obj0, pair.obj1, c.point_ws, c.normal_ws, speed, t + ts))
            pushes = self._propagate(pushed, ts, dt, pushes)

    def _propagate(self, pushed, ts: float, dt: float, pushes: int) -> int:
        """Spec 5 step 8: contacts of pushed bodies within 0.22 that would close
        below 0.01 within a PSI get an impact too (at most 5000 pushes)."""
        queue = list(pushed)
        while queue and pushes < MAX_IMPACT_PUSHES:
            core = queue.pop()
            for obj in core.objects:
                shape = obj.collision_data
                if shape is None:
                    continue
                for pair in list(shape.pairs.values()):
                    for c in pair.contacts:
                        if c.broken or c.gap >= IMPACT_SYSTEM_RANGE or (c.side0 is None and c.side1 is None):
                            continue
                        vn = _separation_speed(c.side0, c.side1, c.normal_ws)
                        if vn >= 0.0 or c.gap + vn * dt >= COLLISION_DISTANCE:
                            continue
                        resolve_impact(c.side0, c.side1, c.normal_ws, max(c.gap, COLLISION_DISTANCE),
                                       pair.mu, pair.e, dt)
                        pushes += 1
                        for s in (c.side0, c.side1):
                            if s is not None:
                                reintegrate(s.core, ts, dt)
                                if s.core is not core:
                                    queue.append(s.core)
                        if pushes >= MAX_IMPACT_PUSHES:
                            return pushes
        return pushes


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _separation_speed(s0, s1, n) -> float:
    """(v1 - v0) . n at the contact point, pending pushes included."""
    vx = vy = vz = 0.0
    if s1 is not None:
        vx, vy, vz = s1.velocity(True)
    if s0 is not None:
        a = s0.velocity(True)
        vx -= a[0]
        vy -= a[1]
        vz -= a[2]
    return vx * n[0] + vy * n[1] + vz * n[2]


def _covered(pair, cand) -> bool:
    """A candidate of a feature already held by a contact point of the pair
    (same anchor, normal within 30 degrees) needs no impact."""
    nx, ny, nz = cand.normal
    for c in pair.contacts:
        if c.anchor == cand.anchor:
            m = c.normal_ws
            if m[0] * nx + m[1] * ny + m[2] * nz >= HANDOVER_COS:
                return True
    return False


def _spheres_apart(A, B, rng) -> bool:
    a = A.center
    b = B.center
    r = A.radius + B.radius + rng
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2 > r * r


def _extend_unique(out, seen, cands) -> None:
    for c in cands:
        key = (c.anchor, c.support)
        if key not in seen:
            seen.add(key)
            out.append(c)


def _piece_key(k: int):
    """Feature keys of piece k of a body: vertices, edges and the piece itself."""
    return lambda x: ("p", k, x)


def _soup_key(grid, t: int):
    """Feature keys of grid triangle t: vertices and edges by the mesh's vertex
    indices (shared with the neighbours), the face by the triangle."""
    f = grid.faces[t]

    def key(x):
        if x is None:
            return ("t", t)
        if isinstance(x, tuple):
            i, j = f[x[0]], f[x[1]]
            return ("s", min(i, j), max(i, j))
        return ("s", f[x])
    return key
