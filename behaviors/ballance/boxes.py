"""Oriented boxes for Ballance's triggers (the death cubes, the fan column).

The original tests the ball's oriented bounding box against each box (a
box-box intersection), not the ball's centre. A box here is its world centre,
three unit axes and the half extents along them; two boxes intersect unless a
separating axis exists among the 15 candidates (the 3 + 3 face normals and the
9 edge cross products).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

UNIT_CUBE = ((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5))   # the box of an entity without a mesh
PARALLEL_EPS = 1e-12                                 # |a x b|^2 below this: a parallel pair, no axis


@dataclass(frozen=True)
class OrientedBox:
    centre: tuple
    axes: tuple          # three unit vectors
    half: tuple          # half extents along them


def _dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def box_of(entity, lo=None, hi=None) -> OrientedBox:
    """The world box of the local box ``lo``..``hi`` of an entity (default: its
    mesh's local bounding box, a unit cube without a mesh), scale included."""
    if lo is None:
        lo, hi = entity.get_bounding_box(local=True) if entity.mesh is not None else UNIT_CUBE
    centre = entity.transform(tuple((lo[i] + hi[i]) * 0.5 for i in range(3)))
    axes, half = [], []
    for i, unit in enumerate(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))):
        v = entity.transform_vector(unit)
        n = math.sqrt(_dot(v, v))
        axes.append(tuple(c / n for c in v) if n > 0.0 else unit)
        half.append((hi[i] - lo[i]) * 0.5 * n)
    return OrientedBox(tuple(centre), tuple(axes), tuple(half))


def _radius(box: OrientedBox, axis) -> float:
    return sum(box.half[i] * abs(_dot(box.axes[i], axis)) for i in range(3))


def boxes_intersect(a: OrientedBox, b: OrientedBox) -> bool:
    """Separating-axis test of two oriented boxes (touching counts as intersecting)."""
    d = tuple(b.centre[i] - a.centre[i] for i in range(3))
    candidates = list(a.axes) + list(b.axes)
    for u in a.axes:
        for v in b.axes:
            c = _cross(u, v)
            if _dot(c, c) > PARALLEL_EPS:
                candidates.append(c)
    for axis in candidates:
        if abs(_dot(d, axis)) > _radius(a, axis) + _radius(b, axis):
            return False
    return True


def entities_intersect(a, b) -> bool:
    """Do the oriented bounding boxes of two entities intersect?"""
    return boxes_intersect(box_of(a), box_of(b))
