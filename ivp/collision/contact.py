"""Contact points and the three contact controllers (surfaces-and-contacts 4).

* :class:`ContactPair` (priority 2000, one per touching object pair): the
  geometry of every contact point of the pair and its friction spring. It
  links the pair's movable cores, so touching movable bodies share a sim unit
  (spec 4, dynamics 10.0).
* :class:`FrictionController` (600) and :class:`NormalController` (0): one
  instance per collision system, attached to every core that has contacts;
  each call solves the contacts of one sim unit (solver.py).
"""

from __future__ import annotations

import math

from ..controllers.base import Controller
from .bodies import Side, inv_inertia_world, relative_velocity
from .geometry import CONTACT_DROP_DISTANCE, HANDOVER_COS, basis_from_normal, tangent_from_edge
from .solver import solve_friction, solve_normal

GEOMETRY_MARGIN = 0.01       # features a little beyond the drop distance are still seen
EASE_EVERY_NTH_PSI = 5       # spec 4: springs of a pair eased toward their mean every 5th PSI
EASE_MIN_DISTANCE = 1e-3     # points closer than this define no line


class ContactPoint:
    """Spec 4: two features in touch, with the friction spring, mu, N, gap."""

    __slots__ = ("pair", "anchor", "support", "point_ws", "normal_ws", "gap", "normal_force",
                 "spring", "last_time", "broken", "edge", "t0", "t1", "side0", "side1", "age")

    def __init__(self, pair, cand, t: float):
        self.pair = pair
        self.spring = (0.0, 0.0, 0.0)
        self.normal_force = 0.0
        self.last_time = t
        self.broken = False
        self.age = 0
        self.side0 = None
        self.side1 = None
        self.set_geometry(cand)

    @property
    def obj0(self):
        return self.pair.obj0

    @property
    def obj1(self):
        return self.pair.obj1

    def __repr__(self) -> str:
        return (f"<ContactPoint {self.obj0.name!r}-{self.obj1.name!r} {self.anchor}/{self.support} "
                f"gap={self.gap:.4f} N={self.normal_force:.3f}>")

    def set_geometry(self, cand) -> None:
        """Take the features, point, normal and gap of a candidate (spec 4: the
        first tangent is the face's first edge, the second n x t0)."""
        self.anchor = cand.anchor
        self.support = cand.support
        self.point_ws = cand.point
        self.normal_ws = cand.normal
        self.gap = cand.gap
        self.edge = cand.edge
        if cand.edge is None:
            self.t0, self.t1 = basis_from_normal(cand.normal)
        else:
            self.t0, self.t1 = tangent_from_edge(cand.normal, cand.edge)

    def make_sides(self, m0, m1, iw0=None, iw1=None) -> None:
        """The movable sides at the poses m0, m1 the geometry was taken at
        (``iw0``/``iw1``: the cores' world inverse inertias there, if known)."""
        p = self.point_ws
        pair = self.pair
        self.side0 = None if pair.fixed0 else Side(pair.core0, m0[0], _sub(p, m0[1]), iw0)
        self.side1 = None if pair.fixed1 else Side(pair.core1, m1[0], _sub(p, m1[1]), iw1)


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


class ContactPair(Controller):
    """Priority 2000: the geometry and springs of the contact points of one pair."""

    priority = 2000
    links_cores = True

    def __init__(self, system, obj0, obj1, mu: float, e: float):
        self.system = system
        self.obj0 = obj0
        self.obj1 = obj1
        self.core0 = obj0.core
        self.core1 = obj1.core
        self.fixed0 = obj0.core.physical_unmoveable
        self.fixed1 = obj1.core.physical_unmoveable
        # every movable side a ball: the normal passes through the centres (solver.py)
        self.balls = (obj0.is_ball or self.fixed0) and (obj1.is_ball or self.fixed1)
        self.mu = mu
        self.e = e
        self.contacts = []
        self.psi_done = -1

    def get_controlled_cores(self) -> list:
        return [c for c in (self.core0, self.core1) if not c.physical_unmoveable]

    def core_is_going_to_be_deleted_event(self, core) -> None:
        self.system.remove_pair(self)

    def do_simulation_controller(self, ev, cores) -> None:
        """Friction controller 2000: recompute every contact's geometry and spring."""
        env = ev.environment
        if self.psi_done == env.psi_count:
            return
        self.psi_done = env.psi_count
        m0 = self.core0.m_world_f_core_last_psi
        m1 = self.core1.m_world_f_core_last_psi
        cands = self.system.pair_candidates(self, m0, m1, CONTACT_DROP_DISTANCE + GEOMETRY_MARGIN)
        match_contacts(self.contacts, cands)
        t = env.current_time
        iw0 = None if self.fixed0 else inv_inertia_world(self.core0, m0[0])
        iw1 = None if self.fixed1 else inv_inertia_world(self.core1, m1[0])
        for c in self.contacts:
            if c.broken:
                continue
            c.make_sides(m0, m1, iw0, iw1)
            dt = t - c.last_time
            c.last_time = t
            c.age += 1
            ux, uy, uz = relative_velocity(c.side0, c.side1)
            sx, sy, sz = c.spring
            sx -= ux * dt
            sy -= uy * dt
            sz -= uz * dt
            c.spring = _tangent(sx, sy, sz, c.normal_ws)
        if env.psi_count % EASE_EVERY_NTH_PSI == 0:
            ease_springs([c for c in self.contacts if not c.broken])


def ease_springs(contacts) -> None:
    """Spec 4: the springs of two contact points of a pair, along the line
    joining the points, are pulled to their mean. Opposite parts along that
    line only strain the body (equal and opposite forces on one line: no net
    force, no torque) and would use up the friction limit; their sum stays.

    Every two points whose normals agree within 30 degrees (points of one
    face) are eased, in list order; the line is taken in the tangent plane of
    their mean normal.
    """
    for i, a in enumerate(contacts):
        na = a.normal_ws
        pa = a.point_ws
        for b in contacts[i + 1:]:
            nb = b.normal_ws
            if na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2] < HANDOVER_COS:
                continue
            mx = na[0] + nb[0]
            my = na[1] + nb[1]
            mz = na[2] + nb[2]
            pb = b.point_ws
            dx = pb[0] - pa[0]
            dy = pb[1] - pa[1]
            dz = pb[2] - pa[2]
            k = (dx * mx + dy * my + dz * mz) / (mx * mx + my * my + mz * mz)
            dx -= k * mx
            dy -= k * my
            dz -= k * mz
            l2 = dx * dx + dy * dy + dz * dz
            if l2 < EASE_MIN_DISTANCE * EASE_MIN_DISTANCE:
                continue
            k = 1.0 / math.sqrt(l2)
            dx *= k
            dy *= k
            dz *= k
            sa = a.spring
            sb = b.spring
            ka = sa[0] * dx + sa[1] * dy + sa[2] * dz
            kb = sb[0] * dx + sb[1] * dy + sb[2] * dz
            m = 0.5 * (ka + kb)
            a.spring = _tangent(sa[0] + (m - ka) * dx, sa[1] + (m - ka) * dy, sa[2] + (m - ka) * dz, na)
            b.spring = _tangent(sb[0] + (m - kb) * dx, sb[1] + (m - kb) * dy, sb[2] + (m - kb) * dz, nb)


def _tangent(x, y, z, n):
    """(x, y, z) without its part along the unit normal n."""
    d = x * n[0] + y * n[1] + z * n[2]
    return (x - d * n[0], y - d * n[1], z - d * n[2])


def match_contacts(contacts, cands) -> None:
    """Give every contact the nearest candidate of its anchor feature whose
    normal is within 30 degrees of its own (its own features win ties): a ball
    crossing the seam between two triangles is handed over to the next one
    without losing its spring. A contact with no such candidate broke."""
    claimed = set()
    for c in contacts:
        best = None
        best_gap = math.inf
        nx, ny, nz = c.normal_ws
        own = c.support
        for k, cand in enumerate(cands):
            if k in claimed or cand.anchor != c.anchor:
                continue
            m = cand.normal
            if m[0] * nx + m[1] * ny + m[2] * nz < HANDOVER_COS:
                continue
            g = cand.gap - (1e-9 if cand.support == own else 0.0)
            if g < best_gap:
                best_gap = g
                best = k
        if best is None:
            c.broken = True
        else:
            claimed.add(best)
            c.set_geometry(cands[best])


class UnitContactController(Controller):
    """One instance per collision system, attached to every core with contacts;
    a call handles the contacts of the unit's cores. Links no cores itself."""

    def __init__(self, system):
        self.system = system

    def get_controlled_cores(self) -> list:
        return []

    def core_is_going_to_be_deleted_event(self, core) -> None:
        self.system.detach_core(core)


class FrictionController(UnitContactController):
    """Priority 600: tangential friction of the contacts of a unit (spec 4)."""

    priority = 600

    def do_simulation_controller(self, ev, cores) -> None:
        unit = self.system.unit_contacts(ev, cores)
        if unit.contacts:
            unit.prepared = solve_friction([(c, c.pair.mu) for c in unit.contacts], ev.delta_time)


class NormalController(UnitContactController):
    """Priority 0: the normal forces of a unit's contacts, solved together (spec 4)."""

    priority = 0

    def do_simulation_controller(self, ev, cores) -> None:
        unit = self.system.unit_contacts(ev, cores)
        if unit.contacts:
            solve_normal(unit.contacts, ev.delta_time, unit.prepared)
        for p in unit.pairs:
            for c in list(p.contacts):
                if c.broken or c.gap >= CONTACT_DROP_DISTANCE:
                    self.system.delete_contact(c)
