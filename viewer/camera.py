"""Cameras, and the one conversion from the Virtools frame to OpenGL's.

Virtools is left-handed with Y up; a camera looks along its own +Z (Dir), with
+Y up and +X to the right (glue-and-content 4). Matrices here follow VxMatrix:
row vectors, rows 0-2 the local X, Y, Z axes in world coordinates, row 3 the
position. OpenGL's eye space is right-handed and looks along -Z, so the only
change of frame is the Z flip in `gl_view`; everything before it (meshes, world
matrices, lighting, picking) stays in Virtools coordinates.

This module is plain numpy so that it is testable without a display.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# glue-and-content 3, "Camera": horizontal field of view 58 degrees at 4:3, near 3, far 1200.
FOV_H_DEG = 58.0
REFERENCE_ASPECT = 4.0 / 3.0
NEAR = 3.0
FAR = 1200.0

_FLIP_Z = np.diag([1.0, 1.0, -1.0, 1.0])


def _normalized(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    n = float(np.linalg.norm(v))
    if not math.isfinite(n) or n == 0.0:
        raise ValueError(f"camera: cannot normalise the vector {tuple(v)}")
    return v / n


def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """The world matrix (VxMatrix layout) of a camera at `eye` looking at `target`.

    Left-handed: right = up x dir, true up = dir x right.
    """
    eye = np.asarray(eye, dtype=np.float64)
    d = _normalized(np.asarray(target, dtype=np.float64) - eye)
    r = np.cross(np.asarray(up, dtype=np.float64), d)
    if np.linalg.norm(r) < 1e-9:               # looking straight along `up`
        r = np.cross((0.0, 0.0, 1.0), d)
    r = _normalized(r)
    u = np.cross(d, r)
    m = np.identity(4)
    m[0, :3], m[1, :3], m[2, :3], m[3, :3] = r, u, d, eye
    return m


def gl_view(camera_world) -> np.ndarray:
    """The OpenGL view matrix (column-vector convention) of a Virtools camera.

    The inverse of the camera's world matrix takes a world point to the camera's
    frame (row vectors); transposed it acts on column vectors; flipping Z turns
    the left-handed looking-along-+Z frame into GL's right-handed -Z one. This is
    the viewer's only change of handedness.
    """
    inverse = np.linalg.inv(np.asarray(camera_world, dtype=np.float64))
    return _FLIP_Z @ inverse.T


@dataclass(frozen=True)
class Lens:
    """Field of view and clip planes; the default is Ballance's camera."""
    fov_h_deg: float = FOV_H_DEG
    near: float = NEAR
    far: float = FAR

    def __post_init__(self):
        if not (0.0 < self.fov_h_deg < 180.0 and 0.0 < self.near < self.far):
            raise ValueError(f"camera: bad lens (fov {self.fov_h_deg} deg, near {self.near}, far {self.far})")

    def tan_half_fov(self, aspect: float) -> tuple[float, float]:
        """Tangents of the half horizontal and vertical fields of view for an aspect ratio.

        At 4:3 the horizontal field is fov_h_deg (58 in glue-and-content 3);
        other aspects keep that vertical extent and widen or narrow horizontally.
        """
        if not aspect > 0.0:
            raise ValueError(f"camera: aspect ratio must be positive, got {aspect}")
        tan_y = math.tan(math.radians(self.fov_h_deg) / 2.0) / REFERENCE_ASPECT
        return tan_y * aspect, tan_y

    def perspective(self, aspect: float) -> np.ndarray:
        """OpenGL's perspective projection."""
        tan_x, tan_y = self.tan_half_fov(aspect)
        near, far = self.near, self.far
        p = np.zeros((4, 4))
        p[0, 0] = 1.0 / tan_x
        p[1, 1] = 1.0 / tan_y
        p[2, 2] = (far + near) / (near - far)
        p[2, 3] = 2.0 * far * near / (near - far)
        p[3, 2] = -1.0
        return p

    def widened(self, distortion: float, aspect: float) -> "Lens":
        """This lens as the game's sky sees it (issue 42; the TT Sky
        behaviour's pre-render callback): the horizontal field at ``aspect``,
        fov, widened to fov + (pi - fov) * distortion (distortion at most 1),
        the aspect kept."""
        if not 0.0 <= distortion < 1.0:
            raise ValueError(f"camera: the sky's distortion {distortion} is not in [0, 1)")
        fov = 2.0 * math.atan(self.tan_half_fov(aspect)[0])
        tan_x = math.tan((fov + (math.pi - fov) * distortion) / 2.0)
        fov_ref = 2.0 * math.atan(tan_x / aspect * REFERENCE_ASPECT)     # tan_half_fov's field at 4:3
        return Lens(math.degrees(fov_ref), self.near, self.far)

    def pixel_ray(self, camera_world, aspect: float, x_ndc: float, y_ndc: float):
        """The world ray (origin, unit direction) through a point of the image.

        `x_ndc`, `y_ndc` run from -1 (left, bottom) to 1 (right, top).
        """
        m = np.asarray(camera_world, dtype=np.float64)
        tan_x, tan_y = self.tan_half_fov(aspect)
        d = x_ndc * tan_x * m[0, :3] + y_ndc * tan_y * m[1, :3] + m[2, :3]
        return m[3, :3].copy(), _normalized(d)


BALLANCE_LENS = Lens()


class OrbitCamera:
    """A free camera orbiting a target point; it also flies by moving the target.

    Yaw turns about the world Y axis (0 looks along +Z), pitch tilts down.
    """

    MIN_DISTANCE = 1.0
    MAX_PITCH = math.radians(89.0)

    def __init__(self, target=(0.0, 0.0, 0.0), distance: float = 60.0,
                 yaw: float = 0.0, pitch: float = math.radians(30.0)):
        self.target = np.asarray(target, dtype=np.float64).copy()
        self.distance = float(distance)
        self.yaw = float(yaw)
        self.pitch = float(pitch)

    def direction(self) -> np.ndarray:
        cp = math.cos(self.pitch)
        return np.array([math.sin(self.yaw) * cp, -math.sin(self.pitch), math.cos(self.yaw) * cp])

    def world_matrix(self) -> np.ndarray:
        return look_at(self.target - self.distance * self.direction(), self.target)

    def rotate(self, d_yaw: float, d_pitch: float) -> None:
        self.yaw += d_yaw
        self.pitch = min(max(self.pitch + d_pitch, -self.MAX_PITCH), self.MAX_PITCH)

    def zoom(self, factor: float) -> None:
        self.distance = max(self.distance * factor, self.MIN_DISTANCE)

    def move(self, right: float, up: float, forward: float) -> None:
        """Move the target along the camera's own axes (fly, pan)."""
        m = self.world_matrix()
        self.target += right * m[0, :3] + up * m[1, :3] + forward * m[2, :3]

    def frame(self, centre, radius: float) -> None:
        """Aim at a sphere and back off until it fits the view."""
        self.target = np.asarray(centre, dtype=np.float64).copy()
        tan_x, tan_y = BALLANCE_LENS.tan_half_fov(REFERENCE_ASPECT)
        half = math.atan(min(tan_x, tan_y))
        self.distance = max(float(radius) / math.sin(half), self.MIN_DISTANCE)
