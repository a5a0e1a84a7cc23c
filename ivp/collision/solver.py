"""The friction (600) and normal (0) solves of a unit's contacts, in plain floats
(surfaces-and-contacts 4).

A row is a direction at a contact (the normal, or a tangent) with its
Jacobian parts: per movable side, the side's velocity list (world v, w), J =
sign (d, r x d) and M^-1 J, flattened into one tuple

    (v0, J0[6], MJ0[6], v1, J1[6], MJ1[6])

with v1 None when only one side moves. A ball's contact normal runs through
its centre (r x n = 0), so the normal row of a contact whose movable sides are
all balls is linear: (v0, J0[3], MJ0[3], v1, J1[3], MJ1[3]). The projected
Gauss-Seidel sweeps run over these tuples in local floats; the exact normal
solve gathers them into the contact-space matrix (numpy, lcp.py). The
impulses land on the cores (push_core) at the end.
"""

from __future__ import annotations

import math

import numpy as np

from .geometry import FRICTION_DISTANCE
from .lcp import solve_lcp

NORMAL_K_NEAR = 1.0          # 1/s, gap <= 0.02 (spec 4, controller 0)
NORMAL_K_FAR = 20.0          # 1/s, gap > 0.02
NORMAL_ITERATIONS = 30       # Gauss-Seidel sweeps of controller 0
EXACT_CONTACTS = (12, 100)   # controller 0 solves a unit with this many contacts exactly (solve_normal)
FRICTION_ITERATIONS = 10     # and of controller 600 (its normal rows only shape the friction)
PGS_TOLERANCE = 1e-6         # N s; stop when no impulse changes more


class Velocities:
    """The world velocities (v, w) of the cores a solve touches, as mutable
    float lists, so iterations run in plain floats; pushes land at the end."""

    __slots__ = ("state",)

    def __init__(self):
        self.state = {}

    def of(self, side):
        entry = self.state.get(id(side.core))
        if entry is None:
            entry = self.state[id(side.core)] = ([0.0] * 6, side.core, side.R)
            _load(*entry)
        return entry[0]

    def reload(self) -> None:
        """Every list again from its core (after the pushes of a solve landed)."""
        for entry in self.state.values():
            _load(*entry)


def _load(v, core, R) -> None:
    sp = core.speed
    w = core.rot_speed
    v[0] = sp[0]
    v[1] = sp[1]
    v[2] = sp[2]
    v[3] = R[0] * w[0] + R[1] * w[1] + R[2] * w[2]
    v[4] = R[3] * w[0] + R[4] * w[1] + R[5] * w[2]
    v[5] = R[6] * w[0] + R[7] * w[1] + R[8] * w[2]


_NO_PART = (None, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
_NO_LINEAR_PART = (None, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def _part(vel: Velocities, side, sign: float, dx: float, dy: float, dz: float) -> tuple:
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


def _linear_part(vel: Velocities, side, sign: float, dx: float, dy: float, dz: float) -> tuple:
    """A ball's side of a normal row: J = sign d, M^-1 J = sign d / m."""
    m = side.inv_mass * sign
    return (vel.of(side), sign * dx, sign * dy, sign * dz, m * dx, m * dy, m * dz)


def _row(vel: Velocities, s0, sign0: float, s1, sign1: float, d, linear: bool = False) -> tuple:
    """The row along d: the first movable side's part, then the second's (or none)."""
    dx, dy, dz = d
    part, none = (_linear_part, _NO_LINEAR_PART) if linear else (_part, _NO_PART)
    if s0 is None:
        return part(vel, s1, sign1, dx, dy, dz) + none
    if s1 is None:
        return part(vel, s0, sign0, dx, dy, dz) + none
    return part(vel, s0, sign0, dx, dy, dz) + part(vel, s1, sign1, dx, dy, dz)


def _response(A, B) -> float:
    """J_A M^-1 J_B^T of two rows at one contact (same sides and layout): the
    speed change along A per unit impulse along B; _response(R, R) is R's
    diagonal, the inverse virtual mass."""
    if len(A) == 14:
        d = A[1] * B[4] + A[2] * B[5] + A[3] * B[6]
        if A[7] is not None:
            d += A[8] * B[11] + A[9] * B[12] + A[10] * B[13]
        return d
    d = A[1] * B[7] + A[2] * B[8] + A[3] * B[9] + A[4] * B[10] + A[5] * B[11] + A[6] * B[12]
    if A[13] is not None:
        d += A[14] * B[20] + A[15] * B[21] + A[16] * B[22] + A[17] * B[23] + A[18] * B[24] + A[19] * B[25]
    return d


def row_speed(R) -> float:
    """J . (v, w) summed over the row's sides."""
    v = R[0]
    if len(R) == 14:
        w = R[1] * v[0] + R[2] * v[1] + R[3] * v[2]
        u = R[7]
        if u is not None:
            w += R[8] * u[0] + R[9] * u[1] + R[10] * u[2]
        return w
    w = R[1] * v[0] + R[2] * v[1] + R[3] * v[2] + R[4] * v[3] + R[5] * v[4] + R[6] * v[5]
    u = R[13]
    if u is not None:
        w += R[14] * u[0] + R[15] * u[1] + R[16] * u[2] + R[17] * u[3] + R[18] * u[4] + R[19] * u[5]
    return w


def row_apply(R, d: float) -> None:
    """(v, w) += M^-1 J d for the row's sides."""
    half = len(R) // 2
    n = half // 2
    for b in (0, half):
        v = R[b]
        if v is not None:
            for k in range(n):
                v[k] += R[b + 1 + n + k] * d


def _friction_rows(rows, vel: Velocities, dt: float) -> list:
    """Spec 4, controller 600, per contact: limit the spring to what friction
    can undo in one PSI (N mu inv_virtual_mass dt^2); the row keeps the 2x2
    tangent response K (symmetric), the target a = s/dt - u and the cap N mu dt."""
    out = []
    for c, mu in rows:
        t0 = c.t0
        t1 = c.t1
        sx, sy, sz = c.spring
        limit = c.normal_force * mu * dt            # the largest impulse friction gives
        if limit <= 0.0:
            c.spring = (0.0, 0.0, 0.0)
            continue
        s0 = c.side0
        s1 = c.side1
        ra = _row(vel, s0, 1.0, s1, -1.0, t0)
        rb = _row(vel, s0, 1.0, s1, -1.0, t1)
        k00 = _response(ra, ra)
        k01 = _response(ra, rb)
        k11 = _response(rb, rb)
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
        if det > 1e-30:
            out.append([c, ra, rb, sa / dt, sb / dt, k00, k01, k11, det, limit, 0.0, 0.0])
    return out


def _normal_rows(contacts, vel: Velocities, dt: float, warm: bool) -> list:
    """Spec 4, controller 0, per contact: the separation speed to reach,
    (0.02 - gap) k with k = 1/s, or 20/s beyond 0.02, the normal row and (for
    the energy-gain check of a warm start) its separation speed before any
    impulse.

    With ``warm`` the iteration starts from last PSI's impulse N dt, which
    changes where Gauss-Seidel starts, not the solution: a tall stack then
    converges over the PSIs instead of sagging (controller 0 only: started
    warm, the friction pass's helper rows let a stack of ten rock)."""
    out = []
    for c in contacts:
        gap = c.gap
        k = NORMAL_K_FAR if gap > FRICTION_DISTANCE else NORMAL_K_NEAR
        linear = c.pair.balls
        R = _row(vel, c.side0, -1.0, c.side1, 1.0, c.normal_ws, linear)
        a = _response(R, R)
        if a > 0.0:
            out.append([c, R, (FRICTION_DISTANCE - gap) * k, a, 0.0, 0.0, linear])
    _start(out, dt, warm)
    return out


def _start(normal_rows, dt: float, warm: bool) -> None:
    """Impulses from zero, or (warm) from last PSI's N dt after noting each
    row's speed before any impulse (for the energy-gain check)."""
    for row in normal_rows:
        row[4] = 0.0
    if warm:
        for row in normal_rows:
            row[5] = row_speed(row[1])
        for row in normal_rows:
            c = row[0]
            if c.normal_force > 0.0:
                row[4] = c.normal_force * dt
                row_apply(row[1], row[4])


def _gauss_seidel(normal_rows, friction_rows, iterations: int) -> None:
    """Projected Gauss-Seidel over the rows (one pass when there is one row).

    A normal row's impulse stays >= 0; a friction row solves its 2x2 block
    for the tangent targets, its accumulated impulse capped at N mu dt (then
    along the targets: kinetic friction opposes the slip, not K's lever-arm
    coupling). Sweeps stop when no impulse changed by PGS_TOLERANCE.
    """
    n = len(normal_rows) + len(friction_rows)
    for _ in range(iterations if n > 1 else 1):
        change = 0.0
        for row in normal_rows:
            R = row[1]
            if row[6]:
                v, l0, l1, l2, m0, m1, m2, u, k0, k1, k2, n0, n1, n2 = R
                v0, v1, v2 = v[0], v[1], v[2]
                w = l0 * v0 + l1 * v1 + l2 * v2
                if u is not None:
                    u0, u1, u2 = u[0], u[1], u[2]
                    w += k0 * u0 + k1 * u1 + k2 * u2
            else:
                (v, l0, l1, l2, l3, l4, l5, m0, m1, m2, m3, m4, m5,
                 u, k0, k1, k2, k3, k4, k5, n0, n1, n2, n3, n4, n5) = R
                v0, v1, v2, v3, v4, v5 = v
                w = l0 * v0 + l1 * v1 + l2 * v2 + l3 * v3 + l4 * v4 + l5 * v5
                if u is not None:
                    u0, u1, u2, u3, u4, u5 = u
                    w += k0 * u0 + k1 * u1 + k2 * u2 + k3 * u3 + k4 * u4 + k5 * u5
            old = row[4]
            new = old + (row[2] - w) / row[3]
            if new < 0.0:
                new = 0.0
            d = new - old
            if d == 0.0:
                continue
            row[4] = new
            v[0] = v0 + m0 * d
            v[1] = v1 + m1 * d
            v[2] = v2 + m2 * d
            if u is not None:
                u[0] = u0 + n0 * d
                u[1] = u1 + n1 * d
                u[2] = u2 + n2 * d
            if not row[6]:
                v[3] = v3 + m3 * d
                v[4] = v4 + m4 * d
                v[5] = v5 + m5 * d
                if u is not None:
                    u[3] = u3 + n3 * d
                    u[4] = u4 + n4 * d
                    u[5] = u5 + n5 * d
            if d < 0.0:
                d = -d
            if d > change:
                change = d
        for row in friction_rows:
            _, ra, rb, ta, tb, k00, k01, k11, det, limit, pa, pb = row
            (v, l0, l1, l2, l3, l4, l5, m0, m1, m2, m3, m4, m5,
             u, k0, k1, k2, k3, k4, k5, n0, n1, n2, n3, n4, n5) = ra
            (_, e0, e1, e2, e3, e4, e5, f0, f1, f2, f3, f4, f5,
             _, g0, g1, g2, g3, g4, g5, h0, h1, h2, h3, h4, h5) = rb
            v0, v1, v2, v3, v4, v5 = v
            wa = l0 * v0 + l1 * v1 + l2 * v2 + l3 * v3 + l4 * v4 + l5 * v5
            wb = e0 * v0 + e1 * v1 + e2 * v2 + e3 * v3 + e4 * v4 + e5 * v5
            if u is not None:
                u0, u1, u2, u3, u4, u5 = u
                wa += k0 * u0 + k1 * u1 + k2 * u2 + k3 * u3 + k4 * u4 + k5 * u5
                wb += g0 * u0 + g1 * u1 + g2 * u2 + g3 * u3 + g4 * u4 + g5 * u5
            aa = ta - wa
            ab = tb - wb
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
                continue
            row[10] = na
            row[11] = nb
            v[0] = v0 + m0 * da + f0 * db
            v[1] = v1 + m1 * da + f1 * db
            v[2] = v2 + m2 * da + f2 * db
            v[3] = v3 + m3 * da + f3 * db
            v[4] = v4 + m4 * da + f4 * db
            v[5] = v5 + m5 * da + f5 * db
            if u is not None:
                u[0] = u0 + n0 * da + h0 * db
                u[1] = u1 + n1 * da + h1 * db
                u[2] = u2 + n2 * da + h2 * db
                u[3] = u3 + n3 * da + h3 * db
                u[4] = u4 + n4 * da + h4 * db
                u[5] = u5 + n5 * da + h5 * db
            if da < 0.0:
                da = -da
            if db < 0.0:
                db = -db
            if da > change:
                change = da
            if db > change:
                change = db
        if change < PGS_TOLERANCE:
            break


def solve_friction(rows, dt: float):
    """Spec 4, controller 600: the tangential impulses that cancel the springs
    within the PSI, each capped at N mu dt (N from the last PSI), pushed at once.

    Several contacts are solved together with their normal rows, whose
    impulses are then dropped (controller 0 applies the normal forces): so a
    sliding box feels mu N in full instead of friction merely tipping it.
    Returns those normal rows and their velocities, for solve_normal to
    start from (or None).
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
    return (vel, normal_rows) if normal_rows else None


def solve_normal(rows, dt: float, prepared=None) -> None:
    """Spec 4, controller 0: impulses >= 0 that bring every contact's separation
    speed to its target; several contacts as a complementarity problem, one
    contact in closed form. N = impulse / dt.

    A unit with EXACT_CONTACTS contacts (a stack, a small heap) is solved
    exactly (_solve_exact). Others, and one whose exact solve fails, are
    solved by projected Gauss-Seidel from last PSI's impulses, with the
    energy-gain check (solved again from zero when it fails): with fewer
    contacts the sweeps stop within their tolerance sooner than the exact
    solve's numpy calls return (about 0.1 ms); with more (a big heap, all
    its contacts coupled) each dense factorisation, O(n^3), outgrows the
    O(n) sweeps, and from about 128 rows OpenBLAS runs it multi-threaded
    and slower still.

    ``prepared``: what solve_friction returned for the same contacts in this
    PSI (the rows' geometry is the same; their velocities are read again)."""
    if prepared is None:
        vel = Velocities()
        normal_rows = _normal_rows(rows, vel, dt, False)
    else:
        vel, normal_rows = prepared
        vel.reload()
        _start(normal_rows, dt, False)
    if len(normal_rows) == 1:
        _gauss_seidel(normal_rows, [], 1)
    elif not EXACT_CONTACTS[0] <= len(normal_rows) <= EXACT_CONTACTS[1] or not _solve_exact(normal_rows):
        _start(normal_rows, dt, True)
        _gauss_seidel(normal_rows, [], NORMAL_ITERATIONS)
        if energy_gain(normal_rows) > 0.0:
            vel.reload()
            _start(normal_rows, dt, False)
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


def _contact_problem(normal_rows):
    """Spec 4: the rows' contact-space matrix A = J M^-1 J^T (A_ij: the speed
    change at contact i per unit impulse at contact j, summed over the
    movable bodies the two rows share) and their speeds J (v, w) now.

    Each row has a part (J, M^-1 J) per movable body, a ball's linear part
    padded with zero rotation; A sums J_p . (M^-1 J)_p' over the pairs of
    parts p, p' on one body."""
    index = {}
    velocities = []
    row_of = []
    body_of = []
    flat = []
    for i, row in enumerate(normal_rows):
        R = row[1]
        linear = row[6]
        for b in ((0, 7) if linear else (0, 13)):
            v = R[b]
            if v is None:
                continue
            k = index.get(id(v))
            if k is None:
                k = index[id(v)] = len(velocities)
                velocities.append(v)
            row_of.append(i)
            body_of.append(k)
            flat += R[b + 1:b + 4] + _NO_TURN + R[b + 4:b + 7] + _NO_TURN if linear else R[b + 1:b + 13]
    n = len(normal_rows)
    P = np.fromiter(flat, float, len(flat)).reshape(-1, 12)
    row_of = np.array(row_of)
    body_of = np.array(body_of)
    speed = np.bincount(row_of, (P[:, :6] * np.array(velocities)[body_of]).sum(axis=1), n)
    # pairs of parts on one body: sorted by body, each part with every part of its run
    order = np.argsort(body_of, kind="stable")
    b = body_of[order]
    run_start = np.searchsorted(b, b)
    run_length = np.searchsorted(b, b, "right") - run_start
    p = np.repeat(np.arange(len(b)), run_length)
    q = run_start[p] + np.arange(len(p)) - np.repeat(np.cumsum(run_length) - run_length, run_length)
    p = order[p]
    q = order[q]
    a = np.einsum("ij,ij->i", P[p, :6], P[q, 6:])
    A = np.bincount(row_of[p] * n + row_of[q], a, n * n).reshape(n, n)
    return A, speed


_NO_TURN = (0.0, 0.0, 0.0)


def _solve_exact(normal_rows) -> bool:
    """Spec 4: the rows' complementarity problem solved exactly (lcp.py) from
    the contacts that pushed in the last PSI; sets the rows' impulses. False
    (nothing set) when it fails.

    The rows are one problem: contacts between movable bodies merge their
    sim units, so a unit's contacts are coupled already (bodies linked only
    by a joint give blocks of A that do not couple, solved together). The
    energy-gain check holds by construction at an exact solution (the
    impulses add -1/2 lam A lam); it is kept against numerical failure."""
    A, speed = _contact_problem(normal_rows)
    q = speed - np.array([row[2] for row in normal_rows])
    free = np.array([row[0].normal_force > 0.0 for row in normal_rows])
    lam = solve_lcp(A, q, free)
    if lam is None or not lam @ (q + 0.5 * (A @ lam)) <= 0.0:
        return False
    for row, x in zip(normal_rows, lam.tolist()):
        row[4] = x
    return True


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
    for _, R, target, _, lam, before, _ in normal_rows:
        if lam != 0.0:
            gain += lam * (0.5 * (before + row_speed(R)) - target)
    return gain
