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
        t, a, e1, e2, det = t[keep], a[keep], e1[keep], e2[keep], det[keep]
        self.a, self.e1, self.e2, self.inv_det = a, e1, e2, 1.0 / det
        self.cell = float(cell)
        lo = np.floor(t[:, :, (0, 2)].min(axis=1) / cell).astype(np.int64)
        hi = np.floor(t[:, :, (0, 2)].max(axis=1) / cell).astype(np.int64)
        nx, nz = hi[:, 0] - lo[:, 0] + 1, hi[:, 1] - lo[:, 1] + 1
        owner = np.repeat(np.arange(len(t)), nx * nz)
        k = np.arange(len(owner)) - np.repeat(np.cumsum(nx * nz) - nx * nz, nx * nz)   # index within its block
        cx = lo[owner, 0] + k % nx[owner]
        cz = lo[owner, 1] + k // nx[owner]
        keys = self._key(cx, cz)
        order = np.argsort(keys, kind="stable")
        self.keys, starts = np.unique(keys[order], return_index=True)
        self.starts = np.append(starts, len(order))
        self.members = owner[order]

    @staticmethod
    def _key(cx, cz):
        return (np.asarray(cx, np.int64) << 32) + (np.asarray(cz, np.int64) & 0xFFFFFFFF)

    def candidates(self, xz) -> np.ndarray:
        """The triangles in the cells of the points (m, 2), each once."""
        keys = np.unique(self._key(*np.floor(xz / self.cell).astype(np.int64).T))
        i = np.searchsorted(self.keys, keys)
        i = i[(i < len(self.keys)) & (self.keys[np.minimum(i, len(self.keys) - 1)] == keys)]
        if len(i) == 0:
            return np.zeros(0, np.int64)
        return np.unique(np.concatenate([self.members[self.starts[j]:self.starts[j + 1]] for j in i]))

    def below(self, points) -> np.ndarray:
        """For each point (m, 3): the height of the highest floor at or below it
        on its vertical, or NaN where there is none."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        out = np.full(len(p), np.nan)
        c = self.candidates(p[:, (0, 2)])
        if len(c) == 0:
            return out
        a, e1, e2, inv = self.a[c], self.e1[c], self.e2[c], self.inv_det[c]
        dx = p[:, None, 0] - a[None, :, 0]
        dz = p[:, None, 2] - a[None, :, 2]
        u = (dx * e2[None, :, 2] - dz * e2[None, :, 0]) * inv
        v = (e1[None, :, 0] * dz - e1[None, :, 2] * dx) * inv
        y = a[None, :, 1] + u * e1[None, :, 1] + v * e2[None, :, 1]
        hit = (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (y <= p[:, None, 1])
        y = np.where(hit, y, -np.inf).max(axis=1)
        return np.where(np.isfinite(y), y, np.nan)
