"""Overlays of measured quantities (issue 43): contact forces as arrows scaled
by their magnitude, mass centres and inertia boxes (line segments, no pyglet).

A contact's arrow is the normal force on its movable side (side 0 when both
are): from the point, N x scale long, along -n on side 0 and +n on side 1
(n points from side 0 to side 1, ivp-contacts 1); N is the normal force of
the last solve (ContactPoint.normal_force, ivp-contacts 5.1:
now_friction_pressure = impulse x idt, newtons). The scale cycles through
CONTACT_SCALES. A body's inertia box is the uniform box of its
mass with its principal inertias (the core's axes are the principal ones:
ivp-dynamics, ivp_object_init_core): for a box of half extents a, b, c, I_x = m (b^2 + c^2) / 3,
so a^2 = 3 (I_y + I_z - I_x) / (2 m); a ball of radius r (I = 0.4 m r^2)
has the box of half extent r sqrt(0.6). The mass centre is the core's origin.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ivp import umath

from .overlays import Lines

CONTACT_FORCE = (0.3, 0.5, 1.0, 1.0)
MASS_CENTRE = (1.0, 1.0, 1.0, 1.0)
INERTIA_BOX = (0.6, 1.0, 0.4, 1.0)
CONTACT_SCALES = (0.003, 0.01, 0.03, 0.1, 0.3)     # metres of arrow per newton
BOX_EDGES = [(i, j) for i, j in itertools.combinations(range(8), 2) if bin(i ^ j).count("1") == 1]


def contact_force(c) -> np.ndarray:
    """The normal force (world, N) the contact puts on its movable side (side 0 when both are)."""
    sign = 1.0 if c.core0.physical_unmoveable else -1.0
    return np.asarray(c.normal_ws, dtype=np.float64) * (sign * c.normal_force)


def contact_forces(lines: Lines, contacts, scale: float) -> None:
    """Each contact's normal force as an arrow from its point, `scale` metres per newton."""
    for c in contacts:
        if c.normal_force > 0.0:
            lines.arrow(np.asarray(c.point_ws, dtype=np.float64), contact_force(c) * scale, CONTACT_FORCE)


def inertia_half_extents(mass: float, inertia) -> np.ndarray:
    """Half extents (core axes) of the uniform box with this mass and these
    principal inertias; 0 along an axis where the inertias admit no box."""
    i = np.asarray(inertia, dtype=np.float64)
    sq = 1.5 / mass * (i.sum() - 2.0 * i)            # 3 (I_y + I_z - I_x) / (2 m) for each axis
    return np.sqrt(np.maximum(sq, 0.0))


def mass_marks(lines: Lines, bodies, t: float) -> None:
    """A cross at each movable body's mass centre and its inertia box."""
    for b in bodies:
        core = b.core
        if core.physical_unmoveable or not math.isfinite(core.mass) or core.mass <= 0.0:
            continue
        pose = core.get_m_world_f_core_PSI(t)
        lines.cross(pose[1], MASS_CENTRE)
        h = inertia_half_extents(core.mass, core.rot_inertia)
        corners = [umath.mat_mul_point(pose, (sx * h[0], sy * h[1], sz * h[2]))
                   for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-1.0, 1.0)]
        lines.add([corners[i] for i, _ in BOX_EDGES], [corners[j] for _, j in BOX_EDGES], INERTIA_BOX)
