"""VxMath: the Virtools matrix convention (glue-and-content 4; DESIGN "Frames and units").

A VxMatrix is 4 x 4 float32 with row vectors: ``world = local @ M``, rows 0, 1, 2
are the entity's right (X), up (Y) and direction (Z) axes scaled by its scale,
row 3 the translation. The memory layout is what OpenGL expects.

IVP matrices are column-vector (ivp spec 0.1): the rotation part of a VxMatrix is
the transpose of IVP's. Quaternions here are IVP's (x, y, z, w): the rotation
they describe maps an entity's local vectors to world, so an entity's quaternion
equals the one IVP gets at Physicalize (ivp spec 1.3).
"""

from __future__ import annotations

import math

import numpy as np

from ivp import umath


class VxMatrix:
    """A 4 x 4 float32 matrix, row-vector convention, translation in row 3."""

    __slots__ = ("_m",)

    def __init__(self, m=None):
        if m is None:
            self._m = np.identity(4, dtype=np.float32)
        else:
            a = np.array(m.as_array() if isinstance(m, VxMatrix) else m, dtype=np.float32)
            if a.shape != (4, 4):
                raise ValueError(f"VxMatrix: expected a 4 x 4 array, got shape {a.shape}")
            if not np.all(np.isfinite(a)):
                raise ValueError("VxMatrix: an entry is NaN or infinite")
            self._m = a

    def as_array(self) -> np.ndarray:
        """The (4, 4) float32 array itself (a view: writing to it changes the matrix)."""
        return self._m

    def copy(self) -> "VxMatrix":
        return VxMatrix(self._m)

    def __getitem__(self, i):
        return self._m[i]

    def __matmul__(self, other: "VxMatrix") -> "VxMatrix":
        """Composition: ``A @ B`` applies A first, then B (row vectors)."""
        return VxMatrix(self._m.astype(np.float64) @ other._m.astype(np.float64))

    def __eq__(self, other) -> bool:
        return isinstance(other, VxMatrix) and np.array_equal(self._m, other._m)

    def __repr__(self) -> str:
        rows = ", ".join("(" + ", ".join(f"{x:g}" for x in r) + ")" for r in self._m)
        return f"VxMatrix({rows})"

    def inverse(self) -> "VxMatrix":
        """The general inverse (entity matrices may carry scale)."""
        try:
            return VxMatrix(np.linalg.inv(self._m.astype(np.float64)))
        except np.linalg.LinAlgError:
            raise ValueError("VxMatrix: the matrix is singular (a zero scale?)") from None

    @property
    def position(self):
        return tuple(float(x) for x in self._m[3, :3])

    def axis(self, i: int):
        """Row i (0 right, 1 up, 2 direction) as floats, with its scale."""
        return tuple(float(x) for x in self._m[i, :3])

    def scale(self):
        """The length of each axis row."""
        return tuple(float(math.sqrt(sum(float(c) * float(c) for c in self._m[i, :3]))) for i in range(3))

    def transform_point(self, p):
        """p (row vector) . M, with the translation."""
        x, y, z = (float(c) for c in p)
        m = self._m
        return tuple(x * float(m[0, i]) + y * float(m[1, i]) + z * float(m[2, i]) + float(m[3, i])
                     for i in range(3))

    def transform_vector(self, v):
        """v . M3 (rotation and scale, no translation)."""
        x, y, z = (float(c) for c in v)
        m = self._m
        return tuple(x * float(m[0, i]) + y * float(m[1, i]) + z * float(m[2, i]) for i in range(3))


def quat_from_vx(M: VxMatrix, what: str = "entity matrix"):
    """Spec 1.3: the rotation Physicalize passes to IVP, from an entity matrix.

    IVP's quaternion formula (0x100191b0) on the transposed 3 x 3, after each
    axis row is divided by its length. Our reading of "for uniformly scaled
    matrices the result is the right rotation": exact for any scale along the
    entity's own axes; a sheared matrix (a child of a rotated, non-uniformly
    scaled parent) gives a rotation near, not equal to, the polar one. The core
    normalizes the quaternion again (spec 2.3). ``what`` names the matrix in
    the error of a zero scale.
    """
    a = M.as_array()[:3, :3].astype(np.float64)
    n = np.linalg.norm(a, axis=1)
    if not np.all(n > 1e-30):
        raise ValueError(f"{what} has a zero scale: no rotation can be taken from it")
    a = a / n[:, None]
    return umath.matrix_to_quat(tuple(float(a[c, r]) for r in range(3) for c in range(3)))


def rotation_matrix(axis, angle: float):
    """IVP rotation (column vectors, row-major) of ``angle`` radians about ``axis``."""
    a = umath.normalize_f64(tuple(float(c) for c in axis))
    if abs(umath.length(a) - 1.0) > 1e-6:
        raise ValueError(f"rotation axis {tuple(axis)} has zero length")
    h = angle * 0.5
    s = math.sin(h)
    return umath.quat_to_matrix((a[0] * s, a[1] * s, a[2] * s, math.cos(h)))
