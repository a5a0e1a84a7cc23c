"""Debug overlays as coloured line segments in world coordinates (no pyglet).

Each overlay reads the physics of the session's context: contact points and
normals, bounding spheres (core radius around the mass centre), joint anchors
and frames, and force arrows. Sleeping bodies are tinted by the colour hook.
"""

from __future__ import annotations

import math

import numpy as np

from ivp import umath
from ivp.controllers import ForceController

CONTACT = (1.0, 0.9, 0.1, 1.0)
SPHERE = (0.2, 1.0, 1.0, 0.6)
ANCHOR = (1.0, 0.3, 1.0, 1.0)
AXES = ((1.0, 0.2, 0.2, 1.0), (0.2, 1.0, 0.2, 1.0), (0.3, 0.4, 1.0, 1.0))
FORCE = (1.0, 0.5, 0.0, 1.0)
DRAG = (1.0, 1.0, 1.0, 1.0)
ASLEEP_TINT = (0.35, 0.40, 0.75)
SELECTED_TINT = (1.0, 0.85, 0.2)

CIRCLE_SEGMENTS = 24
NORMAL_LENGTH = 2.0
AXIS_LENGTH = 3.0
FORCE_SCALE = 10.0          # world units per unit of impulse per PSI
MARK = 0.4                  # half size of the point crosses


class Lines:
    """Accumulates segments (k, 2, 3) and their colours (k, 4)."""

    def __init__(self):
        self._segments: list[np.ndarray] = []
        self._colours: list[np.ndarray] = []

    def add(self, starts, ends, colour) -> None:
        starts = np.asarray(starts, dtype=np.float64).reshape(-1, 3)
        ends = np.asarray(ends, dtype=np.float64).reshape(-1, 3)
        self._segments.append(np.stack([starts, ends], axis=1))
        self._colours.append(np.tile(np.asarray(colour, dtype=np.float64), (len(starts), 1)))

    def arrow(self, start, vec, colour) -> None:
        """A segment from `start` along `vec` with a head a quarter of its length."""
        start = np.asarray(start, dtype=np.float64)
        vec = np.asarray(vec, dtype=np.float64)
        end = start + vec
        self.add(start, end, colour)
        n = np.linalg.norm(vec)
        if n > 0.0:
            side = np.cross(vec, (0.0, 1.0, 0.0) if abs(vec[1]) < 0.9 * n else (1.0, 0.0, 0.0))
            side *= 0.15 * n / np.linalg.norm(side)
            back = end - 0.25 * vec
            self.add([end, end], [back + side, back - side], colour)

    def cross(self, points, colour, size: float = MARK) -> None:
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        for axis in np.identity(3) * size:
            self.add(points - axis, points + axis, colour)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if not self._segments:
            return np.zeros((0, 2, 3)), np.zeros((0, 4))
        return np.concatenate(self._segments), np.concatenate(self._colours)


def tint(colour, towards, amount: float = 0.6) -> tuple:
    r, g, b, a = colour
    k = 1.0 - amount
    return (r * k + towards[0] * amount, g * k + towards[1] * amount, b * k + towards[2] * amount, a)


def _core_pose(core, t: float):
    return core.get_m_world_f_core_PSI(t)


def bounding_spheres(lines: Lines, bodies, t: float) -> None:
    """Three great circles of radius upper_limit_radius around each mass centre."""
    if not bodies:
        return
    centres = np.array([_core_pose(b.core, t)[1] for b in bodies])
    radii = np.array([b.core.upper_limit_radius for b in bodies])
    a = np.linspace(0.0, 2.0 * math.pi, CIRCLE_SEGMENTS + 1)
    c, s = np.cos(a), np.sin(a)
    zero = np.zeros_like(a)
    for ring in (np.stack([c, s, zero], 1), np.stack([c, zero, s], 1), np.stack([zero, c, s], 1)):
        pts = centres[:, None, :] + radii[:, None, None] * ring[None, :, :]     # (n, k+1, 3)
        lines.add(pts[:, :-1].reshape(-1, 3), pts[:, 1:].reshape(-1, 3), SPHERE)


def controllers(env) -> list:
    """Every controller of the environment's sim units, once each."""
    seen = {}
    mgr = env.sim_unit_manager
    for unit in list(mgr.active) + list(mgr.frozen):
        for entry in unit.entries:
            seen.setdefault(id(entry.controller), entry.controller)
    return list(seen.values())


def force_arrows(lines: Lines, ctrls, t: float) -> None:
    """Each glue force (impulse per PSI) as an arrow from its point of application."""
    for ctrl in ctrls:
        if not isinstance(ctrl, ForceController):
            continue
        start = np.array(umath.mat_mul_point(_core_pose(ctrl.core, t), ctrl.point))
        lines.arrow(start, np.asarray(ctrl.force) * FORCE_SCALE, FORCE)


def _world_point(obj, p_core, t: float):
    if obj is None:                       # anchored to the world
        return np.asarray(p_core, dtype=np.float64)
    return np.array(umath.mat_mul_point(_core_pose(obj.core, t), p_core))


def joint_marks(lines: Lines, ctrls, t: float) -> None:
    """Spring anchors joined by a line; constraint anchors with the constraint's axes.

    Springs hold two `anchors` (spec 12.1-12.2); constraints keep their anchors
    in core coordinates with R's constraint frame `m_rcs_f_rcore` (12.5).
    """
    for ctrl in ctrls:
        if hasattr(ctrl, "anchors"):
            ends = [_world_point(a.object, a.core_pos, t) for a in ctrl.anchors]
            lines.cross(ends, ANCHOR)
            lines.add(ends[0], ends[1], ANCHOR)
        elif hasattr(ctrl, "m_rcs_f_rcore"):
            p_r = _world_point(ctrl.obj_r, ctrl.anchor_r, t)
            p_a = _world_point(ctrl.obj_a, ctrl.anchor_a, t)
            lines.cross([p_r, p_a], ANCHOR)
            rot_world = umath.IDENTITY_R if ctrl.obj_r is None else _core_pose(ctrl.obj_r.core, t)[0]
            cs_f_world = umath.rot_mul(ctrl.m_rcs_f_rcore[0], umath.rot_transpose(rot_world))
            for i, colour in enumerate(AXES):
                axis = np.asarray(cs_f_world[3 * i:3 * i + 3])      # row i: the frame's axis i in world
                lines.add(p_r, p_r + AXIS_LENGTH * axis, colour)


def contact_marks(lines: Lines, contacts) -> None:
    """A cross at each contact point and its normal."""
    for c in contacts:
        p = np.asarray(c.point_ws, dtype=np.float64)
        lines.cross(p, CONTACT)
        lines.add(p, p + NORMAL_LENGTH * np.asarray(c.normal_ws, dtype=np.float64), CONTACT)
