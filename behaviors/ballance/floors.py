"""Floor heights under points: vertical rays cast down on a level's floor triangles.

The floors of a Ballance level do not move, so their triangles are put in
world axes once and bucketed by a square grid over X and Z (a triangle goes
into every cell its bounding rectangle overlaps). A query looks up the cells
of its points and tests every point against the union of those cells'
triangles at once with numpy: a point is over a triangle when its barycentric
coordinates in the triangle's X-Z projection are all >= 0, and the height
there is the plane's. Triangles seen edge-on from above (walls) are left out.
"""

from __future__ import annotations

import math

import numpy as np

_EDGE_ON = 1e-9          # |2 x area| of a projection below this: a wall, no floor


def entity_triangles(entities) -> np.ndarray:
    """(n, 3, 3) world-space corners of the entities' mesh triangles."""
    out = [np.zeros((0, 3, 3))]
    for e in entities:
        mesh = e.mesh
        if mesh is None or len(mesh.faces) == 0:
            continue
        m = np.asarray(e.get_world_matrix().as_array(), dtype=np.float64)
        v = np.asarray(mesh.vertices, dtype=np.float64) @ m[:3, :3] + m[3, :3]      # row vectors, CK layout
        out.append(v[np.asarray(mesh.faces)])
    return np.concatenate(out)


class FloorHeights:
    """The highest floor below each of some points, from triangles (n, 3, 3)."""

    def __init__(self, triangles, cell: float = 8.0):
        if not cell > 0.0:
            raise ValueError(f"FloorHeights: cell must be > 0, got {cell!r}")
        t = np.asarray(triangles, dtype=np.float64).reshape(-1, 3, 3)
        a, e1, e2 = t[:, 0], t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]
        det = e1[:, 0] * e2[:, 2] - e1[:, 2] * e2[:, 0]
        keep = np.abs(det) > _EDGE_ON
        t = t[keep]
        tri = np.hstack([a[keep], e1[keep], e2[keep], 1.0 / det[keep, None]])     # (n, 10)
        self.cell = float(cell)
        lo = np.floor(t[:, :, (0, 2)].min(axis=1) / cell).astype(np.int64)
        hi = np.floor(t[:, :, (0, 2)].max(axis=1) / cell).astype(np.int64)
        nx, nz = hi[:, 0] - lo[:, 0] + 1, hi[:, 1] - lo[:, 1] + 1
        owner = np.repeat(np.arange(len(t)), nx * nz)
        k = np.arange(len(owner)) - np.repeat(np.cumsum(nx * nz) - nx * nz, nx * nz)   # index within its block
        cells = np.stack([lo[owner, 0] + k % nx[owner], lo[owner, 1] + k // nx[owner]], axis=1)
        order = np.lexsort((cells[:, 1], cells[:, 0]))
        cells = cells[order]
        self.data = tri[owner[order]]               # each cell's triangles together
        first = np.flatnonzero(np.r_[True, (cells[1:] != cells[:-1]).any(axis=1)])
        ends = np.r_[first[1:], len(cells)]
        self.spans = {(int(x), int(z)): (int(s), int(e)) for (x, z), s, e in zip(cells[first], first, ends)}

    def below(self, points) -> np.ndarray:
        """For each point (m, 3): the height of the highest floor at or below it
        on its vertical, or NaN where there is none."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        c = self.cell
        cells = {(math.floor(x / c), math.floor(z / c)) for x, z in p[:, (0, 2)].tolist()}
        spans = [self.spans[k] for k in cells if k in self.spans]
        if not spans:
            return np.full(len(p), np.nan)
        d = np.concatenate([self.data[s:e] for s, e in spans])         # a triangle may come twice: harmless
        dx = p[:, 0, None] - d[:, 0]
        dz = p[:, 2, None] - d[:, 2]
        u = (dx * d[:, 8] - dz * d[:, 6]) * d[:, 9]
        v = (d[:, 3] * dz - d[:, 5] * dx) * d[:, 9]
        y = d[:, 1] + u * d[:, 4] + v * d[:, 7]
        hit = (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (y <= p[:, 1, None])
        y = np.where(hit, y, -np.inf).max(axis=1)
        return np.where(np.isfinite(y), y, np.nan)
