"""Broad phase among movable bodies on bounding spheres (surfaces-and-contacts 6.3).
An awake body's sphere is swept over the PSI; a sleeping body's (at its
pose, radius upper_limit_radius) stays in the arrays between PSIs. A uniform
grid gives the spheres sharing a cell (each in the at most 8 cells its box
touches), the exact sphere test keeps the overlapping pairs."""

from __future__ import annotations

import math

import numpy as np

from .. import jit
from ..jit import kernel
from ..state.layout import BOUND, CUR_SPEED, M_POS, MAX_SURF_ROT, RADIUS
from .constants import COLL_DIST, HULL_LOOK_AHEAD_PSIS

BROAD_MARGIN = 0.05          # m: pieces this much beyond an event's reach still get a mindist
DENSE_LIMIT = 4096           # awake x all sphere tests below this go in one broadcast
_CELL_BITS = 21              # cell coordinates are packed modulo 2^21 per axis
_CELL_MASK = (1 << _CELL_BITS) - 1
_CORNERS = np.array([(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.int64).T


@kernel
def fixed_boxes_k(S, rows, LO, HI, dt):
    """The broad-phase values of the bodies at ``rows`` of the body table S
    against the fixed bodies' boxes LO, HI (m, 3): centre C, radius + reach,
    reach (1.2: coll_dist, the hull look-ahead at current_speed +
    max_surface_rot_speed, the broad margin) and that speed; ``hit``, which
    box each body's sphere of every piece (BOUND) meets, and ``near`` the
    bodies (in order) that meet some box."""
    n = rows.shape[0]
    m = LO.shape[0]
    C = np.empty((n, 3))
    out = np.empty((n, 3))                  # radius + reach, reach, speed
    hit = np.zeros((n, m), dtype=np.bool_)
    near = np.empty(n, dtype=np.int64)
    k_near = 0
    for k in range(n):
        r = rows[k]
        speed = S[r, CUR_SPEED] + S[r, MAX_SURF_ROT]
        reach = COLL_DIST + HULL_LOOK_AHEAD_PSIS * dt * speed + BROAD_MARGIN
        out[k, 0] = S[r, RADIUS] + reach
        out[k, 1] = reach
        out[k, 2] = speed
        rr = S[r, BOUND] + reach
        for a in range(3):
            C[k, a] = S[r, M_POS + a]
        any_hit = False
        for j in range(m):
            miss = False
            for a in range(3):
                if C[k, a] + rr < LO[j, a] or C[k, a] - rr > HI[j, a]:
                    miss = True
            if not miss:
                hit[k, j] = True
                any_hit = True
        if any_hit:
            near[k_near] = k
            k_near += 1
    return C, out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy(), near[:k_near].copy(), hit


class MovableSpheres:
    """Rows of bounding spheres, one per movable shape of ``shapes`` (the
    system's list, which add/remove keep)."""

    def __init__(self, shapes: list):
        self.shapes = shapes
        self.row = {}
        self.center = np.zeros((0, 3))
        self.radius = np.zeros(0)
        self.dirty = False
        self.version = 0

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
        self.version += 1

    def pairs(self, aw, centers, radii) -> list:
        """(awake shape, other movable shape) whose spheres overlap, each pair
        once; ``aw`` is the PSI's AwakeSet, ``centers``/``radii`` the awake
        shapes' swept spheres."""
        i, j, _ = self.pair_rows(aw, centers, radii)
        shapes = self.shapes
        return [(shapes[a], shapes[b]) for a, b in zip(i.tolist(), j.tolist())]

    def pair_rows(self, aw, centers, radii):
        """:meth:`pairs` as rows of ``shapes`` (i awake, j), and each row's
        index in ``aw.shapes`` (-1: not awake)."""
        if len(self.shapes) < 2:
            none = np.empty(0, dtype=np.int64)
            return none, none, none
        if self.dirty:
            self._rebuild()
        version, rows = aw.sphere_rows
        if version != self.version:
            rows = np.array([self.row[s.serial] for s in aw.shapes], dtype=np.int64)
            aw.sphere_rows = (self.version, rows)
        if jit.ENABLED and rows.shape[0] * len(self.shapes) <= DENSE_LIMIT:
            return _dense_rows_k(self.center, self.radius, rows, centers, radii)
        C = self.center.copy()
        R = self.radius.copy()
        C[rows] = centers
        R[rows] = radii
        i, j = sphere_pairs(C, R, rows)
        awake_k = np.full(len(self.shapes), -1, dtype=np.int64)
        awake_k[rows] = np.arange(rows.shape[0])
        return i, j, awake_k


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
        found.sort(key=lambda e: e[0])
        return [s for _, s in found]


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
    if jit.ENABLED:
        return _grid_pairs_k(C, R, is_awake, _cell_size(R))
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


def _cell_size(R) -> float:
    h = 2.0 * float(R.max())
    return h if h > 0.0 else 1.0


def _grid_candidates(C, R):
    """Row pairs (a < b) sharing a grid cell, cells twice the largest radius
    (so a sphere's box touches at most 2 cells per axis). A pair sharing
    several cells is kept in the lowest cell both touch only."""
    h = _cell_size(R)
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


@kernel
def _cell_key_k(x, y, z):
    return ((x & _CELL_MASK) << (2 * _CELL_BITS)) | ((y & _CELL_MASK) << _CELL_BITS) | (z & _CELL_MASK)


@kernel
def _compact_k(V):
    """A field's masked values mapped to 0..span-1 in the same order: the
    low half (non-negative cells) from its minimum, then the high half
    (negative cells, wrapped by the mask) from its minimum. Returns span."""
    half = 1 << (_CELL_BITS - 1)
    lo0, lo1, hi0, hi1 = half, -1, 1 << _CELL_BITS, half - 1
    for v in V:
        if v < half:
            lo0 = min(lo0, v)
            lo1 = max(lo1, v)
        else:
            hi0 = min(hi0, v)
            hi1 = max(hi1, v)
    n_lo = lo1 - lo0 + 1 if lo1 >= 0 else 0
    for i in range(V.shape[0]):
        V[i] = V[i] - lo0 if V[i] < half else n_lo + V[i] - hi0
    return n_lo + (hi1 - hi0 + 1 if hi1 >= half else 0)


@kernel
def _cell_order_k(X, Y, Z):
    """The stable argsort of the packed cell keys of (X, Y, Z) (each masked to
    21 bits): np.argsort(_cell_keys(...), kind="stable"). Each field is made
    compact (:func:`_compact_k`, in place), the fields mixed into one key (the
    same order), and the keys sorted by counting: in one pass when they span
    at most a few times their number, else by LSD radix with 11-bit digits."""
    n = X.shape[0]
    order = np.arange(n)
    if n < 2:
        return order
    ry = _compact_k(Y)
    rz = _compact_k(Z)
    top = _compact_k(X) * ry * rz - 1     # < 2^63: each span is at most 2^21
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        key[i] = (X[i] * ry + Y[i]) * rz + Z[i]
    width = 11
    if top < max(4 * n, 4096):
        width = 1
        while (1 << width) <= top:
            width += 1
    mask = (1 << width) - 1
    tmp = np.empty(n, dtype=np.int64)
    count = np.empty(mask + 2, dtype=np.int64)
    shift = 0
    while top >> shift > 0:
        count[:] = 0
        for i in range(n):
            count[((key[order[i]] >> shift) & mask) + 1] += 1
        for d in range(mask + 1):
            count[d + 1] += count[d]
        for i in range(n):
            d = (key[order[i]] >> shift) & mask
            tmp[count[d]] = order[i]
            count[d] += 1
        order, tmp = tmp, order
        shift += width
    return order


@kernel
def _grid_pairs_k(C, R, is_awake, h):
    """sphere_pairs' grid branch compiled: :func:`_grid_candidates` (the same
    cells, the same stable order of keys, each pair once in its lowest
    shared cell), then the awake and exact sphere tests, the awake row first:
    the same pairs in the same order."""
    M = R.shape[0]
    lo = np.empty((M, 3), dtype=np.int64)
    hi = np.empty((M, 3), dtype=np.int64)
    for m in range(M):
        for x in range(3):
            lo[m, x] = np.int64(math.floor((C[m, x] - R[m]) / h))
            hi[m, x] = np.int64(math.floor((C[m, x] + R[m]) / h))
    keys = np.empty(8 * M, dtype=np.int64)
    rows = np.empty(8 * M, dtype=np.int64)
    X = np.empty(8 * M, dtype=np.int64)
    Y = np.empty(8 * M, dtype=np.int64)
    Z = np.empty(8 * M, dtype=np.int64)
    n = 0
    for m in range(M):
        for c in range(8):
            cx = lo[m, 0] + (c >> 2)
            cy = lo[m, 1] + ((c >> 1) & 1)
            cz = lo[m, 2] + (c & 1)
            if hi[m, 0] >= cx and hi[m, 1] >= cy and hi[m, 2] >= cz:
                keys[n] = _cell_key_k(cx, cy, cz)
                X[n] = cx & _CELL_MASK
                Y[n] = cy & _CELL_MASK
                Z[n] = cz & _CELL_MASK
                rows[n] = m
                n += 1
    order = _cell_order_k(X[:n], Y[:n], Z[:n])
    none = np.empty(0, dtype=np.int64)
    k = _cell_pairs_k(C, R, is_awake, lo, keys, rows, order, n, none, none)
    out_a = np.empty(k, dtype=np.int64)
    out_b = np.empty(k, dtype=np.int64)
    if k:
        _cell_pairs_k(C, R, is_awake, lo, keys, rows, order, n, out_a, out_b)
    return out_a, out_b


@kernel
def _dense_rows_k(center, radius, awake_rows, centers, radii):
    """MovableSpheres.pair_rows for a small set, compiled: the awake rows'
    spheres (centers, radii) put in for theirs, sphere_pairs' broadcast
    branch (each awake row against every row, an awake-awake pair from the
    earlier awake row only: the same pairs in the same order, the same sphere
    test) and each row's index among the awake (-1: not awake)."""
    M = radius.shape[0]
    A = awake_rows.shape[0]
    rank = np.full(M, -1, dtype=np.int64)
    for a in range(A):
        rank[awake_rows[a]] = a
    out_i = np.empty(A * M, dtype=np.int64)
    out_j = np.empty(A * M, dtype=np.int64)
    k = 0
    for a in range(A):
        r = awake_rows[a]
        for j in range(M):
            b = rank[j]
            if 0 <= b <= a:
                continue
            if b < 0:
                d0 = centers[a, 0] - center[j, 0]
                d1 = centers[a, 1] - center[j, 1]
                d2 = centers[a, 2] - center[j, 2]
                rr = radii[a] + radius[j]
            else:
                d0 = centers[a, 0] - centers[b, 0]
                d1 = centers[a, 1] - centers[b, 1]
                d2 = centers[a, 2] - centers[b, 2]
                rr = radii[a] + radii[b]
            if d0 * d0 + d1 * d1 + d2 * d2 <= rr * rr:
                out_i[k] = r
                out_j[k] = j
                k += 1
    return out_i[:k].copy(), out_j[:k].copy(), rank


@kernel
def ball_pairs_meet_k(i, j, awake_k, radius, centers, reach):
    """Per pair of rows (i awake, j) their indices among the awake, whether
    both are awake balls (``radius``: each awake one's ball radius, -1 not a
    ball) and whether those balls' spheres grown by both reaches meet."""
    n = i.shape[0]
    ki = np.empty(n, dtype=np.int64)
    kj = np.empty(n, dtype=np.int64)
    balls = np.zeros(n, dtype=np.bool_)
    meet = np.zeros(n, dtype=np.bool_)
    for q in range(n):
        a = awake_k[i[q]]
        b = awake_k[j[q]]
        ki[q] = a
        kj[q] = b
        if b >= 0 and radius[a] >= 0.0 and radius[b] >= 0.0:
            balls[q] = True
            d0 = centers[b, 0] - centers[a, 0]
            d1 = centers[b, 1] - centers[a, 1]
            d2 = centers[b, 2] - centers[a, 2]
            rr = (radius[a] + radius[b]) + (reach[a] + reach[b])
            meet[q] = d0 * d0 + d1 * d1 + d2 * d2 <= rr * rr
    return ki, kj, balls, meet


@kernel
def _cell_pairs_k(C, R, is_awake, lo, keys, rows, order, n, out_a, out_b):
    """_grid_pairs_k's pairs of the cells: counted, and written to out_a /
    out_b when they are not empty (the count first, then the arrays of that
    length: no array grows inside the loop)."""
    fill = out_a.shape[0] > 0
    k = 0
    g = 0
    while g < n:
        key = keys[order[g]]
        e = g + 1
        while e < n and keys[order[e]] == key:
            e += 1
        for ip in range(g, e):
            ra = rows[order[ip]]
            for jp in range(ip + 1, e):
                rb = rows[order[jp]]
                if _cell_key_k(max(lo[ra, 0], lo[rb, 0]), max(lo[ra, 1], lo[rb, 1]), max(lo[ra, 2], lo[rb, 2])) != key:
                    continue
                a = min(ra, rb)
                b = max(ra, rb)
                if not (is_awake[a] or is_awake[b]):
                    continue
                d0 = C[a, 0] - C[b, 0]
                d1 = C[a, 1] - C[b, 1]
                d2 = C[a, 2] - C[b, 2]
                rr = R[a] + R[b]
                if d0 * d0 + d1 * d1 + d2 * d2 <= rr * rr:
                    if fill:
                        if is_awake[a]:
                            out_a[k] = a
                            out_b[k] = b
                        else:
                            out_a[k] = b
                            out_b[k] = a
                    k += 1
        g = e
    return k
