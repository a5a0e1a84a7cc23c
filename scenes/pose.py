"""Poses of the scene format: a position and a quaternion (x, y, z, w).

The quaternion maps an entity's local vectors to world (as ``bbglue.vxmath``
and IVP's Physicalize read it); a rotation by a positive angle about an axis
follows the right-hand rule in these coordinates, which in Virtools'
left-handed, Y-up display turns clockwise seen from the axis' tip.
Euler angles are extrinsic: order "xyz" turns about world X first, then world
Y, then world Z.
"""

from __future__ import annotations

import math

from ivp import umath

IDENTITY = ((0.0, 0.0, 0.0), umath.IDENTITY_Q)
EULER_ORDERS = ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx")
_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}


def axis_angle(axis, angle_rad: float):
    """The unit quaternion turning ``angle_rad`` about ``axis`` (not zero)."""
    n = umath.length(axis)
    if not n > 0.0:
        raise ValueError(f"rotation axis {tuple(axis)} has zero length")
    s = math.sin(angle_rad * 0.5) / n
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle_rad * 0.5))


def euler(angles_deg, order: str = "xyz"):
    """Extrinsic Euler angles in degrees, the first letter of ``order`` first."""
    q = umath.IDENTITY_Q
    for letter in order:
        a = angles_deg["xyz".index(letter)]
        q = umath.quat_mul(axis_angle(_AXES[letter], math.radians(a)), q)
    return q


def unit(q):
    """q scaled to length 1 (q not zero)."""
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def rotate(q, v):
    """v turned by q."""
    return umath.rot_mul_v(umath.quat_to_matrix(q), v)


def apply(pose, p):
    """The point p of a pose's frame, in the outer frame."""
    pos, q = pose
    r = rotate(q, p)
    return (r[0] + pos[0], r[1] + pos[1], r[2] + pos[2])


def compose(outer, inner):
    """The pose ``inner`` (given in ``outer``'s frame) in the frame outside ``outer``."""
    return apply(outer, inner[0]), unit(umath.quat_mul(outer[1], inner[1]))
