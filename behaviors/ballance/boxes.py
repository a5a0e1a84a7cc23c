"""Oriented boxes for Ballance's triggers (the death cubes, the fan column).

The original tests the ball's oriented bounding box against each box (a
box-box intersection), not the ball's centre. A box here is its world centre,
three unit axes and the half extents along them; two boxes intersect unless a
separating axis exists among the 15 candidates (the 3 + 3 face normals and the
9 edge cross products).
"""

from __future__ import annotations

import itertools
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
    mesh's local bounding box, a unit cube without a mesh), scale included.
    The axes are the world matrix's rows (a zero's sign may differ from
    ``transform_vector``'s: the tests below take absolute values)."""
    if lo is None:
        lo, hi = entity.get_bounding_box(local=True) if entity.mesh is not None else UNIT_CUBE
    centre = entity.transform(tuple((lo[i] + hi[i]) * 0.5 for i in range(3)))
    axes, half = [], []
    for i, (unit, v) in enumerate(zip(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), entity.world_axes())):
        n = math.sqrt(_dot(v, v))
        axes.append(tuple(c / n for c in v) if n > 0.0 else unit)
        half.append((hi[i] - lo[i]) * 0.5 * n)
    return OrientedBox(tuple(centre), tuple(axes), tuple(half))


class KeptBoxes:
    """``box_of`` for entities that seldom move (the death boxes): a box is
    made again only when its entity's world matrix or mesh changed."""

    def __init__(self):
        self._kept = {}

    def __getstate__(self) -> dict:
        """Empty: the boxes are a memo, made again on demand (a snapshot's hash
        does not depend on which boxes were asked for)."""
        return {"_kept": {}}

    def box(self, entity) -> OrientedBox:
        token = entity.world_token()
        kept = self._kept.get(entity)
        if kept is None or kept[0] is not token or kept[1] is not entity.mesh:
            kept = self._kept[entity] = (token, entity.mesh, box_of(entity))
        return kept[2]


def _edge_axes(a: OrientedBox, b: OrientedBox):
    """The cross products of an axis of ``a`` and one of ``b``, the parallel pairs left out."""
    for u in a.axes:
        for v in b.axes:
            c = _cross(u, v)
            if _dot(c, c) > PARALLEL_EPS:
                yield c


def boxes_intersect(a: OrientedBox, b: OrientedBox) -> bool:
    """Separating-axis test of two oriented boxes (touching counts as
    intersecting). Per candidate axis: |d . axis| against the sum over each
    box's three axes of half extent x |box axis . axis|, the dot products
    summed in x, y, z order (written out: every frame tests the ball
    against each death box)."""
    (cx, cy, cz), (ex, ey, ez) = a.centre, b.centre
    dx, dy, dz = ex - cx, ey - cy, ez - cz
    (a0x, a0y, a0z), (a1x, a1y, a1z), (a2x, a2y, a2z) = a.axes
    (b0x, b0y, b0z), (b1x, b1y, b1z), (b2x, b2y, b2z) = b.axes
    ha0, ha1, ha2 = a.half
    hb0, hb1, hb2 = b.half
    for x, y, z in itertools.chain(a.axes, b.axes, _edge_axes(a, b)):      # the edges' only if no face separates
        ra = (ha0 * abs(a0x * x + a0y * y + a0z * z) + ha1 * abs(a1x * x + a1y * y + a1z * z)
              + ha2 * abs(a2x * x + a2y * y + a2z * z))
        rb = (hb0 * abs(b0x * x + b0y * y + b0z * z) + hb1 * abs(b1x * x + b1y * y + b1z * z)
              + hb2 * abs(b2x * x + b2y * y + b2z * z))
        if abs(dx * x + dy * y + dz * z) > ra + rb:
            return False
    return True


def entities_intersect(a, b) -> bool:
    """Do the oriented bounding boxes of two entities intersect?"""
    return boxes_intersect(box_of(a), box_of(b))
