"""Turning a body with the mouse (issue 43): Ctrl + right drag (viewer/window.py).

A `Twist` is the rotational twin of the session's `Drag`: a critically
damped angular spring pulls the body's orientation towards a target that the
mouse turns about the camera's axes: alpha = omega^2 theta - 2 omega w, with
theta the rotation vector from the body's orientation to the target's and w
its angular velocity (world), clamped to TWIST_MAX_ALPHA, times the body's
inertia in its principal (core) axes. The torque goes in as a couple, two
opposite forces 1 m either side of the mass centre, through the same Physics
Impulse block as the pull, so no net force acts and the centre moves on as
it would have.
"""

from __future__ import annotations

import math

import numpy as np

TWIST_OMEGA = 6.0           # 1/s: the angular spring's angular frequency
TWIST_MAX_OMEGA_DT = 0.5    # omega x frame time at most (stable at long frames)
TWIST_MAX_ALPHA = 200.0     # rad/s^2: the most the spring asks
TWIST_AXIS_LENGTH = 3.0     # metres of the target's axes as drawn


def rotation(axis, angle: float) -> np.ndarray:
    """The 3x3 matrix turning by `angle` radians about the unit `axis` (Rodrigues)."""
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.identity(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """Axis x angle of a rotation matrix (angle in 0 .. pi)."""
    c = min(max((np.trace(R) - 1.0) / 2.0, -1.0), 1.0)
    angle = math.acos(c)
    v = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    s = np.linalg.norm(v)
    if angle < 1e-9:
        return v / 2.0
    if s < 1e-9:                        # a half turn: the axis from the symmetric part
        axis = np.sqrt(np.maximum((np.diag(R) + 1.0) / 2.0, 0.0))
        i = int(np.argmax(axis))
        axis = (R[:, i] + np.identity(3)[:, i]) / (2.0 * axis[i])
        return axis / np.linalg.norm(axis) * angle
    return v / s * angle


def core_rotation(core) -> np.ndarray:
    """The core's rotation at its last PSI as a 3x3 matrix (core -> world)."""
    return np.asarray(core.m_world_f_core_last_psi[0], dtype=np.float64).reshape(3, 3)


class Twist:
    """An angular spring between a body and a target orientation (world, 3x3),
    which `turn` rotates; `pushes` gives a frame's couple."""

    def __init__(self, entity, core):
        self.entity = entity
        self.target = core_rotation(core)

    def turn(self, axis, angle: float) -> None:
        """Rotate the target by `angle` radians about a world axis."""
        self.target = rotation(np.asarray(axis, dtype=np.float64), angle) @ self.target

    def torque(self, core, dt: float) -> np.ndarray:
        """The world torque for a frame of `dt` simulated seconds."""
        omega = min(TWIST_OMEGA, TWIST_MAX_OMEGA_DT / dt)
        R = core_rotation(core)
        theta = rotation_vector(self.target @ R.T)
        w = R @ np.asarray(core.rot_speed, dtype=np.float64)
        alpha = omega * omega * theta - 2.0 * omega * w
        size = float(np.linalg.norm(alpha))
        if size == 0.0 or not math.isfinite(size):
            return np.zeros(3)
        alpha *= min(1.0, TWIST_MAX_ALPHA / size)
        return R @ (np.asarray(core.rot_inertia, dtype=np.float64) * (R.T @ alpha))

    def pushes(self, core, dt: float) -> list:
        """[(world force, world point)]: the couple 2 r x F = torque, r 1 m
        from the mass centre perpendicular to the torque."""
        tau = self.torque(core, dt)
        size = float(np.linalg.norm(tau))
        if size == 0.0:
            return []
        centre = np.asarray(core.m_world_f_core_last_psi[1], dtype=np.float64)
        r = np.cross(tau, (1.0, 0.0, 0.0) if abs(tau[0]) < 0.9 * size else (0.0, 1.0, 0.0))
        r /= np.linalg.norm(r)
        force = np.cross(tau, r) / 2.0
        return [(force, centre + r), (-force, centre - r)]

    def marks(self, lines, colour) -> None:
        """The target's axes from the mass centre."""
        centre = np.asarray(self.entity.get_world_matrix().as_array()[3, :3], dtype=np.float64)
        for i in range(3):
            lines.add(centre, centre + TWIST_AXIS_LENGTH * self.target[:, i], colour)
