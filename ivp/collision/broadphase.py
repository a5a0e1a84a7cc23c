"""Broad phase among movable bodies on bounding spheres (surfaces-and-contacts 6.3).

An awake body's sphere is swept over the PSI (the caller makes it); a
sleeping body does not move, so its sphere (centre at its pose, radius
upper_limit_radius) is kept in numpy arrays between PSIs and only the awake
rows are replaced each PSI. Pairs come from a uniform grid in numpy: every
sphere is entered into the (at most 8) cells its box touches, spheres sharing
a cell are candidates, and the exact sphere test keeps the overlapping ones.
"""

from __future__ import annotations

import math

import numpy as np

DENSE_LIMIT = 4096           # awake x all sphere tests below this go in one broadcast
_CELL_BITS = 21              # cell coordinates are packed modulo 2^21 per axis
_CELL_MASK = (1 << _CELL_BITS) - 1
_CORNERS = np.array([(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.int64).T


class MovableSpheres:
    """Rows of bounding spheres, one per movable shape of ``shapes`` (the
    system's list, which add/remove keep)."""

    def __init__(self, shapes: list):
        self.shapes = shapes
        self.row = {}
        self.center = np.zeros((0, 3))
        self.radius = np.zeros(0)
        self.dirty = False

    def add(self, shape) -> None:
        self.shapes.append(shape)
        self.dirty = True

    def remove(self, shape) -> None:
        self.shapes.remove(shape)
        self.dirty = True

    def rest(self, shape) -> None:
        """A shape fell asleep: its sphere is where its core stopped."""
        k = self.row.get(shape.serial)
        if k is not None and not self.dirty:
            core = shape.obj.core
            self.center[k] = core.m_world_f_core_last_psi[1]
            self.radius[k] = core.upper_limit_radius

    def _rebuild(self) -> None:
        self.row = {s.serial: k for k, s in enumerate(self.shapes)}
        cores = [s.obj.core for s in self.shapes]
        self.center = np.array([c.m_world_f_core_last_psi[1] for c in cores], dtype=float).reshape(-1, 3)
        self.radius = np.array([c.upper_limit_radius for c in cores], dtype=float)
        self.dirty = False

    def pairs(self, awake, centers, radii) -> list:
        """(awake shape, other movable shape) whose spheres overlap, each pair
        once; ``centers``/``radii`` are the awake shapes' swept spheres."""
        if len(self.shapes) < 2:
            return []
        if self.dirty:
            self._rebuild()
        rows = np.array([self.row[s.serial] for s in awake], dtype=np.int64)
        C = self.center.copy()
        R = self.radius.copy()
        C[rows] = centers
        R[rows] = radii
        i, j = sphere_pairs(C, R, rows)
        shapes = self.shapes
        return [(shapes[a], shapes[b]) for a, b in zip(i.tolist(), j.tolist())]


class PoseGrid:
    """The movable shapes by the cell of their core's current centre
    (m_world_f_core_last_psi), for "who is near this body" (reviving a body
    pulls in its resting partners, spec 4). Cells are twice the largest
    radius plus ``reach``, so a query looks into its 27 neighbour cells.
    Valid while no core moves: the owner drops it when a unit has run."""

    def __init__(self, shapes: list, reach: float):
        self.reach = reach
        cores = [s.obj.core for s in shapes]
        self.cell = 2.0 * (max(c.upper_limit_radius for c in cores) + reach) if cores else 1.0
        h = self.cell
        self.cells = {}
        for k, (shape, core) in enumerate(zip(shapes, cores)):
            p = core.m_world_f_core_last_psi[1]
            key = (math.floor(p[0] / h), math.floor(p[1] / h), math.floor(p[2] / h))
            self.cells.setdefault(key, []).append((k, shape))

    def near(self, core) -> list:
        """The shapes (in the system's order) whose centres may lie within
        core.upper_limit_radius + reach + their own radius of core's centre."""
        p = core.m_world_f_core_last_psi[1]
        h = self.cell
        kx = math.floor(p[0] / h)
        ky = math.floor(p[1] / h)
        kz = math.floor(p[2] / h)
        found = []
        cells = self.cells
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    lst = cells.get((kx + dx, ky + dy, kz + dz))
                    if lst is not None:
                        found.extend(lst)
        found.sort(key=_first)
        return [s for _, s in found]


def _first(entry):
    return entry[0]


def sphere_pairs(C, R, awake_rows):
    """Row pairs (i, j), i awake, whose spheres (C, R) overlap; an awake-awake
    pair appears once. Exact: |c_i - c_j| <= r_i + r_j."""
    M = len(R)
    A = len(awake_rows)
    if A * M <= DENSE_LIMIT:
        d = C[awake_rows][:, None, :] - C[None, :, :]
        reach = R[awake_rows][:, None] + R[None, :]
        hit = np.einsum("ijk,ijk->ij", d, d) <= reach * reach
        rank = np.full(M, -1, dtype=np.int64)
        rank[awake_rows] = np.arange(A)
        hit &= (rank[None, :] < 0) | (rank[None, :] > np.arange(A)[:, None])
        a, j = np.nonzero(hit)
        return awake_rows[a], j
    is_awake = np.zeros(M, dtype=bool)
    is_awake[awake_rows] = True
    a, b = _grid_candidates(C, R)
    keep = is_awake[a] | is_awake[b]
    a = a[keep]
    b = b[keep]
    d = C[a] - C[b]
    reach = R[a] + R[b]
    keep = np.einsum("ij,ij->i", d, d) <= reach * reach
    a = a[keep]
    b = b[keep]
    swap = ~is_awake[a]                      # the awake one first
    return np.where(swap, b, a), np.where(swap, a, b)


def _cell_keys(x, y, z):
    """Integer cell coordinates packed into one int64 (modulo 2^21 per axis:
    distinct cells of one key only add candidates, the sphere test sorts them out)."""
    return ((x & _CELL_MASK) << (2 * _CELL_BITS)) | ((y & _CELL_MASK) << _CELL_BITS) | (z & _CELL_MASK)


def _grid_candidates(C, R):
    """Row pairs (a < b) sharing a grid cell, cells twice the largest radius
    (so a sphere's box touches at most 2 cells per axis). A pair sharing
    several cells is kept in the lowest cell both touch only."""
    h = 2.0 * float(R.max())
    if h <= 0.0:
        h = 1.0
    lo = np.floor((C - R[:, None]) / h).astype(np.int64)
    hi = np.floor((C + R[:, None]) / h).astype(np.int64)
    lx, ly, lz = lo[:, 0:1], lo[:, 1:2], lo[:, 2:3]
    cx, cy, cz = _CORNERS
    valid = (hi[:, 0:1] >= lx + cx) & (hi[:, 1:2] >= ly + cy) & (hi[:, 2:3] >= lz + cz)   # M x 8
    keys = _cell_keys(lx + cx, ly + cy, lz + cz)[valid]
    rows = np.nonzero(valid)[0]
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    n = len(ks)
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(ks[1:], ks[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], n)
    count = ends[np.cumsum(first) - 1] - np.arange(n) - 1           # partners after each entry in its cell
    total = int(count.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    ip = np.repeat(np.arange(n), count)
    jp = ip + 1 + np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    a = rows[order[ip]]
    b = rows[order[jp]]
    low = np.maximum(lo[a], lo[b])
    keep = ks[ip] == _cell_keys(low[:, 0], low[:, 1], low[:, 2])
    a = a[keep]
    b = b[keep]
    return np.minimum(a, b), np.maximum(a, b)
