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
NORMAL_ITERATIONS = 30       # Gauss-Seidel sweeps of controller 0
FRICTION_ITERATIONS = 10     # and of controller 600 (its normal rows only shape the friction)
PGS_TOLERANCE = 1e-6         # N s; stop when no impulse changes more
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


def _jacobian(vel: Velocities, side, sign: float, dx: float, dy: float, dz: float):
    """One side of a row along the world direction d: the side's velocity list,
    J = sign (d, r x d) and the velocity change per unit row impulse, M^-1 J."""
    rx, ry, rz = side.r
    ax = sign * (ry * dz - rz * dy)
    ay = sign * (rz * dx - rx * dz)
    az = sign * (rx * dy - ry * dx)
    I = side.iw
    m = side.inv_mass * sign
    return (vel.of(side), sign * dx, sign * dy, sign * dz, ax, ay, az, m * dx, m * dy, m * dz,
            I[0] * ax + I[1] * ay + I[2] * az, I[3] * ax + I[4] * ay + I[5] * az,
            I[6] * ax + I[7] * ay + I[8] * az)


def _row_speed(parts) -> float:
    """J . (v, w) summed over the row's sides."""
    w = 0.0
    for v, lx, ly, lz, ax, ay, az, _, _, _, _, _, _ in parts:
        w += lx * v[0] + ly * v[1] + lz * v[2] + ax * v[3] + ay * v[4] + az * v[5]
    return w


def _row_apply(parts, d: float) -> None:
    """(v, w) += M^-1 J d for the row's sides."""
    for v, _, _, _, _, _, _, mx, my, mz, wx, wy, wz in parts:
        v[0] += mx * d
        v[1] += my * d
        v[2] += mz * d
        v[3] += wx * d
        v[4] += wy * d
        v[5] += wz * d


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
        sides = [(s, sign) for s, sign in ((s0, 1.0), (s1, -1.0)) if s is not None]
        parts0 = [_jacobian(vel, s, sign, *t0) for s, sign in sides]
        parts1 = [_jacobian(vel, s, sign, *t1) for s, sign in sides]
        out.append([c, parts0, parts1, sa / dt, sb / dt, k00, k01, k11, det, limit, 0.0, 0.0])
    return out


def _normal_rows(contacts, vel: Velocities, dt: float, warm: bool) -> list:
    """Spec 4, controller 0, per contact: the separation speed to reach,
    (0.02 - gap) k with k = 1/s, or 20/s beyond 0.02, the normal response
    and the separation speed before any impulse.

    With ``warm`` the iteration starts from last PSI's impulse N dt, which
    changes where Gauss-Seidel starts, not the solution: a tall stack then
    converges over the PSIs instead of sagging (controller 0 only: started
    warm, the friction pass's helper rows let a stack of ten rock)."""
    out = []
    for c in contacts:
        nx, ny, nz = c.normal_ws
        gap = c.gap
        k = NORMAL_K_FAR if gap > FRICTION_DISTANCE else NORMAL_K_NEAR
        parts = [_jacobian(vel, side, sign, nx, ny, nz)
                 for side, sign in ((c.side0, -1.0), (c.side1, 1.0)) if side is not None]
        a = sum(p[1] * p[7] + p[2] * p[8] + p[3] * p[9] + p[4] * p[10] + p[5] * p[11] + p[6] * p[12]
                for p in parts)
        if a > 0.0:
            out.append([c, parts, (FRICTION_DISTANCE - gap) * k, a, 0.0, _row_speed(parts)])
    if warm:
        for row in out:
            c = row[0]
            if c.normal_force > 0.0:
                row[4] = c.normal_force * dt
                _row_apply(row[1], row[4])
    return out


def _normal_step(row) -> float:
    """One Gauss-Seidel step of a normal row (impulse >= 0); returns the change."""
    _, parts, target, a, old, _ = row
    new = old + (target - _row_speed(parts)) / a
    if new < 0.0:
        new = 0.0
    d = new - old
    if d == 0.0:
        return 0.0
    row[4] = new
    _row_apply(parts, d)
    return d if d > 0.0 else -d


def _friction_step(row) -> float:
    """One Gauss-Seidel step of a friction row: the 2x2 solve for a, the
    accumulated impulse capped at N mu dt (then along a: kinetic friction
    opposes the slip, not K's lever-arm coupling); returns the change."""
    _, parts0, parts1, ta, tb, k00, k01, k11, det, limit, pa, pb = row
    aa = ta - _row_speed(parts0)
    ab = tb - _row_speed(parts1)
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
    row[10] = na
    row[11] = nb
    _row_apply(parts0, da)
    _row_apply(parts1, db)
    return max(abs(da), abs(db))


def _gauss_seidel(normal_rows, friction_rows, iterations: int) -> None:
    """Projected Gauss-Seidel over the rows (one pass when there is one row)."""
    n = len(normal_rows) + len(friction_rows)
    for _ in range(iterations if n > 1 else 1):
        change = 0.0
        for row in normal_rows:
            d = _normal_step(row)
            if d > change:
                change = d
        for row in friction_rows:
            d = _friction_step(row)
            if d > change:
                change = d
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
    normal_rows = _normal_rows([c for c, _ in rows], vel, dt, False) if len(friction_rows) > 1 else []
    _gauss_seidel(normal_rows, friction_rows, FRICTION_ITERATIONS)
    for row in friction_rows:
        c = row[0]
        pa = row[10]
        pb = row[11]
        t0 = c.t0
        t1 = c.t1
        ix = t0[0] * pa + t1[0] * pb
        iy = t0[1] * pa + t1[1] * pb
        iz = t0[2] * pa + t1[2] * pb
        if c.side0 is not None:
            c.side0.push(ix, iy, iz)
        if c.side1 is not None:
            c.side1.push(-ix, -iy, -iz)


class NormalController(UnitContactController):
    """Priority 0: the normal forces of a unit's contacts, solved together (spec 4)."""

    priority = 0

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
    (projected Gauss-Seidel from last PSI's impulses, with the energy-gain
    check), one contact in closed form. N = impulse / dt."""
    warm = len(rows) > 1
    normal_rows = _normal_rows(rows, Velocities(), dt, warm)
    _gauss_seidel(normal_rows, [], NORMAL_ITERATIONS)
    if warm and energy_gain(normal_rows) > 0.0:
        normal_rows = _normal_rows(rows, Velocities(), dt, False)
        _gauss_seidel(normal_rows, [], NORMAL_ITERATIONS)
    for c in rows:
        c.normal_force = 0.0
    for row in normal_rows:
        c = row[0]
        lam = row[4]
        c.normal_force = lam / dt
        if lam > 0.0:
            nx, ny, nz = c.normal_ws
            if c.side0 is not None:
                c.side0.push(-nx * lam, -ny * lam, -nz * lam)
            if c.side1 is not None:
                c.side1.push(nx * lam, ny * lam, nz * lam)


def energy_gain(normal_rows) -> float:
    """Spec 4's energy-gain check: the kinetic energy the impulses add beyond
    the work they do at the target speeds, sum of lam (w_before + w_after) / 2
    - lam target (impulses lam change the energy by lam (w_before + w_after) / 2).

    This is the complementarity problem's objective 1/2 lam A lam + lam (w - t);
    Gauss-Seidel from zero impulses only lowers it, so a solution that leaves
    it above zero (a warm start that did not converge) gave energy the targets
    never asked for and is solved again from zero.
    """
    gain = 0.0
    for _, parts, target, _, lam, before in normal_rows:
        if lam != 0.0:
            gain += lam * (0.5 * (before + _row_speed(parts)) - target)
    return gain
