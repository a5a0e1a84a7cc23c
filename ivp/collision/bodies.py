"""Velocities, inverse-mass matrices and pushes at a contact point, in plain floats.

A contact side is (core, R, r): the core, its rotation (core -> world) at the
pose the geometry was taken at, and the contact point relative to the mass
centre (world axes). Fixed cores are never pushed and add nothing to K.
"""

from __future__ import annotations

from ..fp import f32v


def inv_inertia_world(core, R):
    """R diag(inv_rot_inertia) R^T as a row-major 9-tuple."""
    a, b, c = core.inv_rot_inertia
    r0, r1, r2, r3, r4, r5, r6, r7, r8 = R
    x00 = r0 * r0 * a + r1 * r1 * b + r2 * r2 * c
    x01 = r0 * r3 * a + r1 * r4 * b + r2 * r5 * c
    x02 = r0 * r6 * a + r1 * r7 * b + r2 * r8 * c
    x11 = r3 * r3 * a + r4 * r4 * b + r5 * r5 * c
    x12 = r3 * r6 * a + r4 * r7 * b + r5 * r8 * c
    x22 = r6 * r6 * a + r7 * r7 * b + r8 * r8 * c
    return (x00, x01, x02, x01, x11, x12, x02, x12, x22)


class Side:
    """One movable body at a contact: inverse mass, world inverse inertia, lever arm."""

    __slots__ = ("core", "R", "r", "inv_mass", "iw", "p_cs")

    def __init__(self, core, R, r, iw=None):
        self.core = core
        self.R = R
        self.r = r
        self.inv_mass = core.inv_mass
        self.iw = inv_inertia_world(core, R) if iw is None else iw
        self.p_cs = None

    def velocity(self, pending: bool = False):
        """Velocity of the contact point (world); with ``pending`` the async
        pushes not yet committed are included (spec 5.2)."""
        c = self.core
        vx, vy, vz = c.speed
        wx, wy, wz = c.rot_speed
        if pending:
            s = c.speed_change
            w = c.rot_speed_change
            vx += s[0]
            vy += s[1]
            vz += s[2]
            wx += w[0]
            wy += w[1]
            wz += w[2]
        R = self.R
        ox = R[0] * wx + R[1] * wy + R[2] * wz
        oy = R[3] * wx + R[4] * wy + R[5] * wz
        oz = R[6] * wx + R[7] * wy + R[8] * wz
        rx, ry, rz = self.r
        return (vx + oy * rz - oz * ry, vy + oz * rx - ox * rz, vz + ox * ry - oy * rx)

    def response(self, dx, dy, dz):
        """Velocity change of the contact point per unit impulse along d."""
        rx, ry, rz = self.r
        cx = ry * dz - rz * dy
        cy = rz * dx - rx * dz
        cz = rx * dy - ry * dx
        I = self.iw
        ax = I[0] * cx + I[1] * cy + I[2] * cz
        ay = I[3] * cx + I[4] * cy + I[5] * cz
        az = I[6] * cx + I[7] * cy + I[8] * cz
        m = self.inv_mass
        return (dx * m + ay * rz - az * ry, dy * m + az * rx - ax * rz, dz * m + ax * ry - ay * rx)

    def push(self, ix, iy, iz) -> None:
        """Spec 5 push_core (immediate) of the world impulse at the contact point."""
        R = self.R
        p_cs = self.p_cs
        if p_cs is None:
            rx, ry, rz = self.r
            p_cs = self.p_cs = (R[0] * rx + R[3] * ry + R[6] * rz, R[1] * rx + R[4] * ry + R[7] * rz,
                                R[2] * rx + R[5] * ry + R[8] * rz)
        imp = f32v(ix, iy, iz)
        imp_cs = (R[0] * imp[0] + R[3] * imp[1] + R[6] * imp[2], R[1] * imp[0] + R[4] * imp[1] + R[7] * imp[2],
                  R[2] * imp[0] + R[5] * imp[1] + R[8] * imp[2])
        self.core.push_core(p_cs, imp_cs, imp)


def k_matrix(sides):
    """Spec 4: the contact's 3x3 inverse-mass matrix, sum over the movable sides
    of (1/m) delta + [r]x^T invI [r]x (symmetric), as a row-major 9-tuple."""
    k = [0.0] * 9
    for s in sides:
        for j, (dx, dy, dz) in enumerate(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))):
            rx, ry, rz = s.response(dx, dy, dz)
            k[j] += rx
            k[3 + j] += ry
            k[6 + j] += rz
    return k


def k_apply(k, d):
    return (k[0] * d[0] + k[1] * d[1] + k[2] * d[2],
            k[3] * d[0] + k[4] * d[1] + k[5] * d[2],
            k[6] * d[0] + k[7] * d[1] + k[8] * d[2])


def relative_velocity(s0, s1, pending: bool = False):
    """v0 - v1 at the contact point (either side may be None: a fixed body)."""
    if s0 is None:
        ax = ay = az = 0.0
    else:
        ax, ay, az = s0.velocity(pending)
    if s1 is not None:
        bx, by, bz = s1.velocity(pending)
        ax -= bx
        ay -= by
        az -= bz
    return ax, ay, az
