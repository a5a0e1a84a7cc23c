"""Distances and closest features in plain floats (surfaces-and-contacts 3, 4).

Vectors are 3-tuples; the hot paths unpack to local floats.
"""

from __future__ import annotations

import math

# Spec 3: distances in metres (surface gaps, radii subtracted).
COLLISION_DISTANCE = 0.010      # an impact happens below this gap
FRICTION_DISTANCE = 0.020       # rest gap of the normal solve
CONTACT_DROP_DISTANCE = 0.045   # a contact point is deleted at or beyond this gap
IMPACT_SYSTEM_RANGE = 0.220     # contacts considered when propagating an impact
RESCUE_SPEED = 0.02             # m/s, times RESCUE_FACTOR
RESCUE_FACTOR = 1.2

# Handover of a contact between features whose normals differ by less than
# this angle (cos 30 degrees): see CollisionSystem and DESIGN's deviations.
HANDOVER_COS = 0.8660254037844387

REGION_FACE = 0
REGION_EDGE = 1
REGION_VERTEX = 2


def closest_on_triangle(px, py, pz, a, b, c):
    """Closest point of triangle (a, b, c) to p and its region (face, edge, vertex).

    Ericson's Voronoi-region walk, in plain floats.
    """
    ax, ay, az = a
    abx = b[0] - ax
    aby = b[1] - ay
    abz = b[2] - az
    acx = c[0] - ax
    acy = c[1] - ay
    acz = c[2] - az
    apx = px - ax
    apy = py - ay
    apz = pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        return a, REGION_VERTEX
    bpx = px - b[0]
    bpy = py - b[1]
    bpz = pz - b[2]
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    if d3 >= 0.0 and d4 <= d3:
        return b, REGION_VERTEX
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3)
        return (ax + abx * v, ay + aby * v, az + abz * v), REGION_EDGE
    cpx = px - c[0]
    cpy = py - c[1]
    cpz = pz - c[2]
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    if d6 >= 0.0 and d5 <= d6:
        return c, REGION_VERTEX
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6)
        return (ax + acx * w, ay + acy * w, az + acz * w), REGION_EDGE
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        bx, by, bz = b
        return (bx + (c[0] - bx) * w, by + (c[1] - by) * w, bz + (c[2] - bz) * w), REGION_EDGE
    denom = 1.0 / (va + vb + vc)
    v = vb * denom
    w = vc * denom
    return (ax + abx * v + acx * w, ay + aby * v + acy * w, az + abz * v + acz * w), REGION_FACE


def segment_params(p1, q1, p2, q2):
    """Parameters (s, t) of the closest points of segments p1q1 and p2q2, or None
    when they are parallel (Ericson 5.1.9 without the clamping: the caller wants
    interior solutions only)."""
    d1x = q1[0] - p1[0]
    d1y = q1[1] - p1[1]
    d1z = q1[2] - p1[2]
    d2x = q2[0] - p2[0]
    d2y = q2[1] - p2[1]
    d2z = q2[2] - p2[2]
    rx = p1[0] - p2[0]
    ry = p1[1] - p2[1]
    rz = p1[2] - p2[2]
    a = d1x * d1x + d1y * d1y + d1z * d1z
    e = d2x * d2x + d2y * d2y + d2z * d2z
    b = d1x * d2x + d1y * d2y + d1z * d2z
    c = d1x * rx + d1y * ry + d1z * rz
    f = d2x * rx + d2y * ry + d2z * rz
    den = a * e - b * b
    if den <= 1e-12 * a * e:
        return None
    s = (b * f - c * e) / den
    t = (a * f - b * c) / den
    return s, t


def basis_from_normal(n):
    """Two unit tangents t0, t1 = n x t0 perpendicular to the unit normal n."""
    nx, ny, nz = n
    if abs(nx) < 0.57735:
        # t0 = normalize(x_axis - n nx)
        tx, ty, tz = 1.0 - nx * nx, -nx * ny, -nx * nz
    else:
        tx, ty, tz = -ny * nx, 1.0 - ny * ny, -ny * nz
    k = 1.0 / math.sqrt(tx * tx + ty * ty + tz * tz)
    tx *= k
    ty *= k
    tz *= k
    return (tx, ty, tz), (ny * tz - nz * ty, nz * tx - nx * tz, nx * ty - ny * tx)


def tangent_from_edge(n, e):
    """Spec 4: the first tangent is the face's first edge direction (made
    perpendicular to n), the second n x t0; falls back to basis_from_normal."""
    nx, ny, nz = n
    d = e[0] * nx + e[1] * ny + e[2] * nz
    tx = e[0] - d * nx
    ty = e[1] - d * ny
    tz = e[2] - d * nz
    l2 = tx * tx + ty * ty + tz * tz
    if l2 < 1e-20:
        return basis_from_normal(n)
    k = 1.0 / math.sqrt(l2)
    tx *= k
    ty *= k
    tz *= k
    return (tx, ty, tz), (ny * tz - nz * ty, nz * tx - nx * tz, nx * ty - ny * tx)
