"""Impacts (surfaces-and-contacts 5): compression inside the friction cone,
restitution to v_in sqrt(e), the rescue speed."""

from __future__ import annotations

import math

from .bodies import k_apply, k_matrix, relative_velocity
from .geometry import COLLISION_DISTANCE, RESCUE_FACTOR, RESCUE_SPEED

CLOSING_EPS = 1e-4           # step 3: not closing when v_rel . n > -1e-4
COMPRESSION_STEP = 0.1       # step 4: 10 % of the estimated normal impulse
COMPRESSION_MAX_STEPS = 100


def rotation_uncertainty(sides, dt: float) -> float:
    """Spec 5 step 6, the rotation part of the rescue addon: a surface turning
    at abs_omega moves off the straight line its contact point follows by
    1/2 abs_omega^2 dev dt^2 within a PSI (dev = the core's
    max_surface_deviation), a speed of 1/2 abs_omega max_surface_rot_speed dt
    (dynamics 8.3: max_surface_rot_speed = abs_omega dev). Balls have dev 0.
    """
    u = 0.0
    for s in sides:
        c = s.core
        u += c.abs_omega * c.max_surface_rot_speed
    return 0.5 * u * dt


def resolve_impact(s0, s1, n, gap: float, mu: float, e: float, dt: float) -> float:
    """Spec 5 steps 2-7 for one contact; returns the closing speed before it.

    ``s0``/``s1`` are the movable sides (None for a fixed body, which is never
    pushed); n points from body 0 to body 1. The impulse P acts on body 1,
    -P on body 0.
    """
    sides = [s for s in (s0, s1) if s is not None]
    if not sides:
        return 0.0
    K = k_matrix(sides)
    nx, ny, nz = n
    ux, uy, uz = relative_velocity(s0, s1, pending=True)
    ux, uy, uz = -ux, -uy, -uz                           # v1 - v0
    vn = ux * nx + uy * ny + uz * nz
    v_in = -vn
    kn = k_apply(K, n)
    nkn = kn[0] * nx + kn[1] * ny + kn[2] * nz
    px = py = pz = 0.0
    if vn < -CLOSING_EPS:
        # step 4: compression along -u clamped to the cone atan(mu (1 + sqrt e))
        cone = mu * (1.0 + math.sqrt(e))
        step = COMPRESSION_STEP * (-vn / nkn)
        K0, K1, K2, K3, K4, K5, K6, K7, K8 = K
        for _ in range(COMPRESSION_MAX_STEPS):
            dn = -(ux * nx + uy * ny + uz * nz)
            tx = -ux - dn * nx
            ty = -uy - dn * ny
            tz = -uz - dn * nz
            tl = math.sqrt(tx * tx + ty * ty + tz * tz)
            if tl > cone * dn:
                k = cone / tl if tl > 0.0 else 0.0
                dx, dy, dz = nx + tx * k, ny + ty * k, nz + tz * k
            else:
                dx, dy, dz = nx + tx / dn, ny + ty / dn, nz + tz / dn
            kx = K0 * dx + K1 * dy + K2 * dz                 # K d
            ky = K3 * dx + K4 * dy + K5 * dz
            kz = K6 * dx + K7 * dy + K8 * dz
            rate = kx * nx + ky * ny + kz * nz
            if rate <= 0.0:
                break
            s = min(step, -vn / rate)
            px += dx * s
            py += dy * s
            pz += dz * s
            ux += kx * s
            uy += ky * s
            uz += kz * s
            vn = ux * nx + uy * ny + uz * nz
            if vn >= 0.0:
                break
        # step 5: restitution along the normal
        target = v_in * math.sqrt(e)
        if vn < target:
            s = (target - vn) / nkn
            px += nx * s
            py += ny * s
            pz += nz * s
            vn = target
    # step 6: rescue speed, with the addons for a gap already below 0.01 and
    # for the rotation
    addon = (COLLISION_DISTANCE - gap) / dt if gap < COLLISION_DISTANCE else 0.0
    rescue = (RESCUE_SPEED + addon + rotation_uncertainty(sides, dt)) * RESCUE_FACTOR
    if vn < rescue:
        s = (rescue - vn) / nkn
        px += nx * s
        py += ny * s
        pz += nz * s
    if s1 is not None:
        s1.push(px, py, pz)
    if s0 is not None:
        s0.push(-px, -py, -pz)
    return max(v_in, 0.0)
