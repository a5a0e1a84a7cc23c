"""Floor heights under points: vertical rays cast down on a level's floor triangles.

The floors of a Ballance level do not move, so their triangles are put in
world axes once and bucketed by a square grid over X and Z (a triangle goes
into every cell its bounding rectangle overlaps). Each triangle is kept as four
affine functions of a point (x, y, z): the barycentric coordinates u, v and
w = 1 - u - v of its X-Z projection, and the drop y - (the triangle's plane at
x, z). The point is over the triangle, at or above it, when all four are >= 0.
A query evaluates them for all its points on the triangles of the cells its
points' bounding rectangle covers, in one matrix product; the gathered
triangles of a rectangle are kept for the next queries (the ball moves little
from one frame to the next). Triangles seen edge-on from above (walls) are
left out.
"""

from __future__ import annotations

import math

import numpy as np

_EDGE_ON = 1e-9          # |2 x area| of a projection below this: a wall, no floor


def entity_triangles(entities, matrices=None) -> np.ndarray:
    """(n, 3, 3) world-space corners of the entities' mesh triangles, each
    entity at its world matrix or at ``matrices[name]`` (4 x 4, CK layout)."""
    out = [np.zeros((0, 3, 3))]
    for e in entities:
        mesh = e.mesh
        if mesh is None or len(mesh.faces) == 0:
            continue
        m = (matrices or {}).get(e.name)
        m = np.asarray(e.get_world_matrix().as_array() if m is None else m, dtype=np.float64)
        v = np.asarray(mesh.vertices, dtype=np.float64) @ m[:3, :3] + m[3, :3]      # row vectors, CK layout
        out.append(v[np.asarray(mesh.faces)])
    return np.concatenate(out)


class FloorHeights:
    """The highest floor below each of some points, from triangles (n, 3, 3)."""

    KEEP = 256                   # gathered rectangles kept (a level's few hundred metres of path)

    def __init__(self, triangles, cell: float = 8.0):
        if not cell > 0.0:
            raise ValueError(f"FloorHeights: cell must be > 0, got {cell!r}")
        t = np.asarray(triangles, dtype=np.float64).reshape(-1, 3, 3)
        a, e1, e2 = t[:, 0], t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]
        det = e1[:, 0] * e2[:, 2] - e1[:, 2] * e2[:, 0]
        keep = np.abs(det) > _EDGE_ON
        t, a, e1, e2, det = t[keep], a[keep], e1[keep], e2[keep], det[keep][:, None]
        # coefficients of (x, y, z, 1): u = ((x - ax) e2z - (z - az) e2x) / det,
        # v = ((z - az) e1x - (x - ax) e1z) / det, the plane ay + u e1y + v e2y
        zero = np.zeros(len(t))
        u = np.stack([e2[:, 2], zero, -e2[:, 0], a[:, 2] * e2[:, 0] - a[:, 0] * e2[:, 2]], axis=1) / det
        v = np.stack([-e1[:, 2], zero, e1[:, 0], a[:, 0] * e1[:, 2] - a[:, 2] * e1[:, 0]], axis=1) / det
        w = -u - v
        w[:, 3] += 1.0
        drop = -(u * e1[:, 1, None] + v * e2[:, 1, None])
        drop[:, 1] += 1.0
        drop[:, 3] -= a[:, 1]
        self.maps = np.stack([u, v, w, drop], axis=1)                         # (n, 4, 4)
        self.cell = float(cell)
        lo = np.floor(t[:, :, (0, 2)].min(axis=1) / cell).astype(np.int64)
        hi = np.floor(t[:, :, (0, 2)].max(axis=1) / cell).astype(np.int64)
        nx, nz = hi[:, 0] - lo[:, 0] + 1, hi[:, 1] - lo[:, 1] + 1
        owner = np.repeat(np.arange(len(t)), nx * nz)
        k = np.arange(len(owner)) - np.repeat(np.cumsum(nx * nz) - nx * nz, nx * nz)   # index within its block
        cells = np.stack([lo[owner, 0] + k % nx[owner], lo[owner, 1] + k // nx[owner]], axis=1)
        order = np.lexsort((cells[:, 1], cells[:, 0]))
        cells = cells[order]
        self.owners = owner[order]                 # each cell's triangles together
        first = np.flatnonzero(np.r_[True, (cells[1:] != cells[:-1]).any(axis=1)][:len(cells)])
        ends = np.r_[first[1:], len(cells)]
        self.spans = {(int(x), int(z)): (int(s), int(e)) for (x, z), s, e in zip(cells[first], first, ends)}
        self._gathered = {}

    def _rows(self, x0: int, x1: int, z0: int, z1: int) -> np.ndarray:
        """The (4 m, 4) functions of the m triangles in cells x0..x1 by z0..z1, each once."""
        key = (x0, x1, z0, z1)
        rows = self._gathered.get(key)
        if rows is None:
            if (x1 - x0 + 1) * (z1 - z0 + 1) <= len(self.spans):
                spans = [self.spans[(x, z)] for x in range(x0, x1 + 1) for z in range(z0, z1 + 1)
                         if (x, z) in self.spans]
            else:                                  # points far apart: fewer cells hold triangles
                spans = [se for (x, z), se in self.spans.items() if x0 <= x <= x1 and z0 <= z <= z1]
            which = np.unique(np.concatenate([self.owners[s:e] for s, e in spans] or [np.zeros(0, np.int64)]))
            rows = self.maps[which].reshape(-1, 4)
            if len(self._gathered) >= self.KEEP:
                self._gathered.clear()
            self._gathered[key] = rows
        return rows

    def below(self, points) -> np.ndarray:
        """For each point (m, 3): the height of the highest floor at or below it
        on its vertical, or NaN where there is none. A point is over a
        triangle when the least of its four functions is >= 0 (taken pairwise:
        a reduction over the middle axis costs more than the product)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if not np.isfinite(p).all():
            raise ValueError("FloorHeights.below: the points must be finite")
        if len(p) == 0:
            return np.zeros(0)
        c = self.cell
        xs, zs = p[:, 0].tolist(), p[:, 2].tolist()
        rows = self._rows(math.floor(min(xs) / c), math.floor(max(xs) / c),
                          math.floor(min(zs) / c), math.floor(max(zs) / c))
        uvwd = (rows[:, :3] @ p.T + rows[:, 3:]).reshape(-1, 4, len(p))      # (triangles, u v w drop, points)
        over = np.minimum(np.minimum(uvwd[:, 0], uvwd[:, 1]), np.minimum(uvwd[:, 2], uvwd[:, 3])) >= 0.0
        drop = np.where(over, uvwd[:, 3], np.inf).min(axis=0, initial=np.inf)
        return np.where(drop < np.inf, p[:, 1] - drop, np.nan)
