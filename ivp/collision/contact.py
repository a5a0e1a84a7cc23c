"""Contact points and the three contact controllers (surfaces-and-contacts 4).

* :class:`ContactPair` (priority 2000, one per touching object pair): the
  geometry of every contact point of the pair and its friction spring. It
  links the pair's movable cores, so touching movable bodies share a sim unit
  (spec 4, dynamics 10.0).
* :class:`FrictionController` (600) and :class:`NormalController` (0): one
  instance per collision system, attached to every core that has contacts;
  each call handles the contacts of one sim unit.
"""

from __future__ import annotations

import math

from ..controllers.base import Controller
from .bodies import Side, k_apply, k_matrix, relative_velocity
from .geometry import (
    CONTACT_DROP_DISTANCE,
    FRICTION_DISTANCE,
    HANDOVER_COS,
    basis_from_normal,
    tangent_from_edge,
)

NORMAL_K_NEAR = 1.0          # 1/s, gap <= 0.02 (spec 4, controller 0)
NORMAL_K_FAR = 20.0          # 1/s, gap > 0.02
PGS_MAX_ITERATIONS = 30
PGS_TOLERANCE = 1e-7         # N s; stop when no impulse changes more
GEOMETRY_MARGIN = 0.01       # features a little beyond the drop distance are still seen


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

    def make_sides(self, m0, m1) -> None:
        """The movable sides at the poses m0, m1 the geometry was taken at."""
        p = self.point_ws
        pair = self.pair
        self.side0 = None if pair.fixed0 else Side(pair.core0, m0[0], _sub(p, m0[1]))
        self.side1 = None if pair.fixed1 else Side(pair.core1, m1[0], _sub(p, m1[1]))


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
        for c in self.contacts:
            if c.broken:
                continue
            c.make_sides(m0, m1)
            dt = t - c.last_time
            c.last_time = t
            c.age += 1
            ux, uy, uz = relative_velocity(c.side0, c.side1)
            sx, sy, sz = c.spring
            sx -= ux * dt
            sy -= uy * dt
            sz -= uz * dt
            nx, ny, nz = c.normal_ws
            d = sx * nx + sy * ny + sz * nz
            c.spring = (sx - d * nx, sy - d * ny, sz - d * nz)


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


class FrictionController(Controller):
    """Priority 600: tangential friction of the contacts of a unit (spec 4)."""

    priority = 600

    def __init__(self, system):
        self.system = system

    def get_controlled_cores(self) -> list:
        return []

    def core_is_going_to_be_deleted_event(self, core) -> None:
        self.system.detach_core(core)

    def do_simulation_controller(self, ev, cores) -> None:
        rows = [(c, p.mu) for p in self.system.pairs_of_cores(cores) for c in p.contacts if not c.broken]
        if rows:
            solve_friction(rows, ev.delta_time)


class Velocities:
    """The world velocities (v, w) of the cores a solve touches, as mutable
    float lists, so iterations run in plain floats; pushes land at the end."""

    __slots__ = ("state",)

    def __init__(self):
        self.state = {}

    def of(self, side):
        key = id(side.core)
        v = self.state.get(key)
        if v is None:
            sp = side.core.speed
            w = side.core.rot_speed
            R = side.R
            v = [sp[0], sp[1], sp[2],
                 R[0] * w[0] + R[1] * w[1] + R[2] * w[2],
                 R[3] * w[0] + R[4] * w[1] + R[5] * w[2],
                 R[6] * w[0] + R[7] * w[1] + R[8] * w[2]]
            self.state[key] = v
        return v


def _point_velocity(v, r):
    rx, ry, rz = r
    return (v[0] + v[4] * rz - v[5] * ry, v[1] + v[5] * rx - v[3] * rz, v[2] + v[3] * ry - v[4] * rx)


def _apply(v, side, ix, iy, iz) -> None:
    """Velocity change of one side for the world impulse (ix, iy, iz) at its point."""
    m = side.inv_mass
    v[0] += ix * m
    v[1] += iy * m
    v[2] += iz * m
    dw = side.angular_response(ix, iy, iz)
    v[3] += dw[0]
    v[4] += dw[1]
    v[5] += dw[2]


def _friction_rows(rows, vel: Velocities, dt: float) -> list:
    """Spec 4, controller 600, per contact: limit the spring to what friction
    can undo in one PSI (N mu inv_virtual_mass dt^2); the row keeps the 2x2
    tangent response K (symmetric), the target a = s/dt - u and the cap N mu dt."""
    out = []
    for c, mu in rows:
        s0 = c.side0
        s1 = c.side1
        K = k_matrix([s for s in (s0, s1) if s is not None])
        t0 = c.t0
        t1 = c.t1
        kt0 = k_apply(K, t0)
        kt1 = k_apply(K, t1)
        k00 = kt0[0] * t0[0] + kt0[1] * t0[1] + kt0[2] * t0[2]
        k01 = kt1[0] * t0[0] + kt1[1] * t0[1] + kt1[2] * t0[2]
        k11 = kt1[0] * t1[0] + kt1[1] * t1[1] + kt1[2] * t1[2]
        limit = c.normal_force * mu * dt            # the largest impulse friction gives
        sx, sy, sz = c.spring
        sa = sx * t0[0] + sy * t0[1] + sz * t0[2]
        sb = sx * t1[0] + sy * t1[1] + sz * t1[2]
        slen = math.sqrt(sa * sa + sb * sb)
        if slen > 0.0:
            ea = sa / slen
            eb = sb / slen
            max_len = limit * (ea * ea * k00 + 2.0 * ea * eb * k01 + eb * eb * k11) * dt
            if slen > max_len:
                k = max_len / slen
                sa *= k
                sb *= k
                c.spring = (t0[0] * sa + t1[0] * sb, t0[1] * sa + t1[1] * sb, t0[2] * sa + t1[2] * sb)
        det = k00 * k11 - k01 * k01
        if limit <= 0.0 or det <= 1e-30:
            continue
        parts = [(vel.of(s), s, sign) for s, sign in ((s0, 1.0), (s1, -1.0)) if s is not None]
        out.append([c, t0, t1, sa / dt, sb / dt, k00, k01, k11, det, limit, parts, 0.0, 0.0])
    return out


def _normal_rows(contacts, vel: Velocities) -> list:
    """Spec 4, controller 0, per contact: the separation speed to reach,
    (0.02 - gap) k with k = 1/s, or 20/s beyond 0.02, and the normal response."""
    out = []
    for c in contacts:
        nx, ny, nz = c.normal_ws
        gap = c.gap
        k = NORMAL_K_FAR if gap > FRICTION_DISTANCE else NORMAL_K_NEAR
        a = 0.0
        parts = []
        for side, sign in ((c.side0, -1.0), (c.side1, 1.0)):
            if side is not None:
                dv = side.response(nx, ny, nz)
                a += dv[0] * nx + dv[1] * ny + dv[2] * nz
                parts.append((vel.of(side), side, sign))
        if a > 0.0:
            out.append([c, nx, ny, nz, (FRICTION_DISTANCE - gap) * k, a, parts, 0.0])
    return out


def _normal_step(row) -> float:
    """One Gauss-Seidel step of a normal row (impulse >= 0); returns the change."""
    _, nx, ny, nz, target, a, parts, old = row
    w = 0.0
    for v, side, sign in parts:
        p = _point_velocity(v, side.r)
        w += sign * (p[0] * nx + p[1] * ny + p[2] * nz)
    new = max(old + (target - w) / a, 0.0)
    d = new - old
    if d != 0.0:
        row[7] = new
        for v, side, sign in parts:
            _apply(v, side, sign * nx * d, sign * ny * d, sign * nz * d)
    return abs(d)


def _friction_step(row) -> float:
    """One Gauss-Seidel step of a friction row: the 2x2 solve for a, the
    accumulated impulse capped at N mu dt (then along a: kinetic friction
    opposes the slip, not K's lever-arm coupling); returns the change."""
    _, t0, t1, ta, tb, k00, k01, k11, det, limit, parts, pa, pb = row
    ux = uy = uz = 0.0
    for v, side, sign in parts:
        p = _point_velocity(v, side.r)
        ux += sign * p[0]
        uy += sign * p[1]
        uz += sign * p[2]
    aa = ta - (ux * t0[0] + uy * t0[1] + uz * t0[2])
    ab = tb - (ux * t1[0] + uy * t1[1] + uz * t1[2])
    na = pa + (k11 * aa - k01 * ab) / det
    nb = pb + (k00 * ab - k01 * aa) / det
    if na * na + nb * nb > limit * limit:
        kk = 2.0 / (k00 + k11)
        na = pa + aa * kk
        nb = pb + ab * kk
        k = limit / math.sqrt(na * na + nb * nb)
        na *= k
        nb *= k
    da = na - pa
    db = nb - pb
    if da == 0.0 and db == 0.0:
        return 0.0
    row[11] = na
    row[12] = nb
    ix = t0[0] * da + t1[0] * db
    iy = t0[1] * da + t1[1] * db
    iz = t0[2] * da + t1[2] * db
    for v, side, sign in parts:
        _apply(v, side, sign * ix, sign * iy, sign * iz)
    return max(abs(da), abs(db))


def _gauss_seidel(normal_rows, friction_rows) -> None:
    """Projected Gauss-Seidel over the rows (one pass when there is one row)."""
    n = len(normal_rows) + len(friction_rows)
    for _ in range(PGS_MAX_ITERATIONS if n > 1 else 1):
        change = 0.0
        for row in normal_rows:
            change = max(change, _normal_step(row))
        for row in friction_rows:
            change = max(change, _friction_step(row))
        if change < PGS_TOLERANCE:
            break


def solve_friction(rows, dt: float) -> None:
    """Spec 4, controller 600: the tangential impulses that cancel the springs
    within the PSI, each capped at N mu dt (N from the last PSI), pushed at once.

    Several contacts are solved together with their normal rows, whose
    impulses are then dropped (controller 0 applies the normal forces): so a
    sliding box feels mu N in full instead of friction merely tipping it.
    """
    vel = Velocities()
    friction_rows = _friction_rows(rows, vel, dt)
    normal_rows = _normal_rows([c for c, _ in rows], vel) if len(friction_rows) > 1 else []
    _gauss_seidel(normal_rows, friction_rows)
    for row in friction_rows:
        c, t0, t1 = row[0], row[1], row[2]
        pa = row[11]
        pb = row[12]
        ix = t0[0] * pa + t1[0] * pb
        iy = t0[1] * pa + t1[1] * pb
        iz = t0[2] * pa + t1[2] * pb
        if c.side0 is not None:
            c.side0.push(ix, iy, iz)
        if c.side1 is not None:
            c.side1.push(-ix, -iy, -iz)


class NormalController(Controller):
    """Priority 0: the normal forces of a unit's contacts, solved together (spec 4)."""

    priority = 0

    def __init__(self, system):
        self.system = system

    def get_controlled_cores(self) -> list:
        return []

    def core_is_going_to_be_deleted_event(self, core) -> None:
        self.system.detach_core(core)

    def do_simulation_controller(self, ev, cores) -> None:
        pairs = self.system.pairs_of_cores(cores)
        rows = [c for p in pairs for c in p.contacts if not c.broken]
        if rows:
            solve_normal(rows, ev.delta_time)
        for p in pairs:
            for c in list(p.contacts):
                if c.broken or c.gap >= CONTACT_DROP_DISTANCE:
                    self.system.delete_contact(c)


def solve_normal(rows, dt: float) -> None:
    """Spec 4, controller 0: impulses >= 0 that bring every contact's separation
    speed to its target; several contacts as a complementarity problem
    (projected Gauss-Seidel), one contact in closed form. N = impulse / dt."""
    normal_rows = _normal_rows(rows, Velocities())
    _gauss_seidel(normal_rows, [])
    for c in rows:
        c.normal_force = 0.0
    for row in normal_rows:
        c = row[0]
        lam = row[7]
        c.normal_force = lam / dt
        if lam > 0.0:
            nx, ny, nz = c.normal_ws
            if c.side0 is not None:
                c.side0.push(-nx * lam, -ny * lam, -nz * lam)
            if c.side1 is not None:
                c.side1.push(nx * lam, ny * lam, nz * lam)
