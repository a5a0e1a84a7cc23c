"""Collision shapes built from a body's compact surface (surfaces-and-contacts 1, 6.3).

* a ball is its centre and radius (the object's extra radius);
* a convex piece is a closed hull: vertices, outward planes (coplanar hull
  triangles merged), its true edges and its triangles;
* every concave face is its own flat two-sided triangle piece;
* a fixed body's triangles live in world space in a :class:`TriangleGrid`, a
  uniform grid built once, so a query near a ball costs a few dictionary
  look-ups however large the level is.
"""

from __future__ import annotations

import math

import numpy as np

from .. import umath
from ..jit import kernel
from ..real_object import OBJECT_BALL
from .feature_kernels import triangle_planes
from .piece_kernels import kernel_arrays, moved_arrays

PLANE_MERGE_EPS = 1e-6      # hull triangles closer than this in normal and offset share a plane
BOUNDS_PAD = 1e-9           # relative: a fixed body's box is this much larger than its spheres
GRID_MAX_CELLS = 512        # a triangle spanning more cells goes to the grid's "big" list


class Piece:
    """A convex piece in one frame (core or world coordinates). ``planes``:
    outward (nx, ny, nz, d), n.x <= d inside: a hull's merged faces (a moved
    hull carries none) or a two-sided triangle's plane (its side chosen per
    pair). ``center``/``radius`` bound the vertices (``sphere`` when known)."""

    __slots__ = ("_verts", "planes", "edges", "tris", "two_sided", "center", "radius",
                 "vertex_ids", "index_arrays", "_kernel_data")

    def __init__(self, verts, planes, edges, tris, two_sided, vertex_ids=None, sphere=None,
                 index_arrays=None):
        self._verts = verts
        self.index_arrays = index_arrays
        self._kernel_data = None
        self.planes = planes
        self.edges = edges
        self.tris = tris
        self.two_sided = two_sided
        self.vertex_ids = vertex_ids
        if sphere is not None:
            self.center, self.radius = sphere
            return
        n = len(verts)
        cx = sum(v[0] for v in verts) / n
        cy = sum(v[1] for v in verts) / n
        cz = sum(v[2] for v in verts) / n
        self.center = (cx, cy, cz)
        self.radius = max(math.sqrt((v[0] - cx) ** 2 + (v[1] - cy) ** 2 + (v[2] - cz) ** 2)
                          for v in verts)

    @property
    def verts(self) -> list:
        """The vertices as tuples (a moved piece makes them from its array when first asked)."""
        if self._verts is None:
            self._verts = [tuple(v) for v in self._kernel_data[0].tolist()]
        return self._verts

    def transformed(self, m) -> "Piece":
        """The piece in the frame of the matrix m = (R, vv) (0.1: world = R local + vv),
        its kernel arrays moved in one compiled pass."""
        R, vv = m
        V0, T, E = self.kernel_data()[:3]
        planes = [_transform_plane(R, vv, self.planes[0])] if self.two_sided else None
        pl = _kernel_plane(planes, self.two_sided)
        p = Piece(None, planes, self.edges, self.tris, self.two_sided, self.vertex_ids,
                  (umath.mat_mul_point(m, self.center), self.radius), (T, E))
        V, N, M, H = moved_arrays(V0, T, E, self.two_sided, pl, R, vv)
        p._kernel_data = (V, T, E, self.two_sided, pl, N, M, H)
        return p

    def kernel_data(self):
        """The piece as the closest-feature kernels read it (piece_kernels.kernel_arrays), built once."""
        if self._kernel_data is None:
            if self.index_arrays is None:
                self.index_arrays = (np.array(self.tris, dtype=np.int64).reshape(-1, 3),
                                     np.array(self.edges, dtype=np.int64).reshape(-1, 2))
            T, E = self.index_arrays
            pl = _kernel_plane(self.planes, self.two_sided)
            self._kernel_data = kernel_arrays(self.verts, T, E, self.two_sided, pl)
        return self._kernel_data


def _kernel_plane(planes, two_sided: bool):
    """The kernels' plane slot: a two-sided triangle's plane; for a hull (unused)
    its own zero array, not a shared one, so a restored world holds the same
    graph as the one it was saved from."""
    return np.array(planes[0], dtype=np.float64) if two_sided else np.zeros(4)


def _transform_plane(R, vv, p):
    n = umath.rot_mul_v(R, (p[0], p[1], p[2]))
    return (n[0], n[1], n[2], p[3] + n[0] * vv[0] + n[1] * vv[1] + n[2] * vv[2])


def hull_piece(vertices, faces) -> Piece:
    """A closed convex hull (faces outward, counter-clockwise) as a Piece."""
    verts = [tuple(float(x) for x in v) for v in vertices]
    tris = [tuple(int(i) for i in f) for f in faces]
    planes = []
    face_plane = []
    for a, b, c in tris:
        n = umath.cross(umath.sub(verts[b], verts[a]), umath.sub(verts[c], verts[a]))
        n = umath.scale(n, 1.0 / umath.length(n))
        d = umath.dot(n, verts[a])
        for k, p in enumerate(planes):
            if abs(p[0] - n[0]) + abs(p[1] - n[1]) + abs(p[2] - n[2]) < PLANE_MERGE_EPS \
                    and abs(p[3] - d) < PLANE_MERGE_EPS * (1.0 + abs(d)):
                face_plane.append(k)
                break
        else:
            face_plane.append(len(planes))
            planes.append((n[0], n[1], n[2], d))
    # true edges: shared by triangles of two different planes
    owner = {}
    for t, (a, b, c) in enumerate(tris):
        for i, j in ((a, b), (b, c), (c, a)):
            owner.setdefault((min(i, j), max(i, j)), []).append(face_plane[t])
    edges = [e for e, ps in owner.items() if len(set(ps)) > 1]
    return Piece(verts, planes, edges, tris, False)


def triangle_piece(a, b, c, vertex_ids=None) -> Piece:
    """A flat two-sided triangle as a Piece (every concave face, spec 1)."""
    verts = [a, b, c]
    n = umath.cross(umath.sub(b, a), umath.sub(c, a))
    n = umath.scale(n, 1.0 / umath.length(n))
    return Piece(verts, [(n[0], n[1], n[2], umath.dot(n, a))],
                 [(0, 1), (1, 2), (2, 0)], [(0, 1, 2)], True, vertex_ids)


@kernel
def _gather(tris, mark, found, m):
    """grid_query_k's set: the triangles ``tris`` not yet marked, marked and
    put in ``found`` from m on; the count after them."""
    for t in tris:
        if not mark[t]:
            mark[t] = True
            found[m] = t
            m += 1
    return m


@kernel
def grid_query_k(packed, starts, tris, cells, big, SPH, box, x, y, z, r, h, lo, hi):
    """TriangleGrid.query on the grid's packed cells: the cells the sphere's
    box meets, clamped to the triangles' box (every cell of that range, or
    every occupied cell when the range is larger), their triangles and the
    big ones each once, ascending, kept where their bounding sphere meets
    the sphere. The range's ends are held within one cell of the occupied
    indices before they become integers (the same cells: those beyond
    are empty), so no sphere overflows them."""
    c = (x, y, z)
    a = np.empty(3, dtype=np.int64)
    b = np.empty(3, dtype=np.int64)
    for d in range(3):
        u = max(c[d] - r, lo[d]) / h
        v = min(c[d] + r, hi[d]) / h
        a[d] = math.floor(min(u, box[5 + d] + 1.0))
        b[d] = math.floor(max(v, box[d] - 1.0))
    n = SPH.shape[0]
    mark = np.zeros(n, dtype=np.bool_)
    found = np.empty(n, dtype=np.int64)
    m = _gather(big, mark, found, 0)
    if (b[0] - a[0] + 1) * (b[1] - a[1] + 1) * (b[2] - a[2] + 1) > packed.shape[0]:
        for q in range(packed.shape[0]):            # a sphere over most of the grid: walk the cells
            if (a[0] <= cells[q, 0] <= b[0] and a[1] <= cells[q, 1] <= b[1] and a[2] <= cells[q, 2] <= b[2]):
                m = _gather(tris[starts[q]:starts[q + 1]], mark, found, m)
    else:
        for i in range(a[0], b[0] + 1):
            for j in range(a[1], b[1] + 1):
                for k in range(a[2], b[2] + 1):
                    key = ((i - box[0]) * box[3] + (j - box[1])) * box[4] + (k - box[2])
                    q = np.searchsorted(packed, key)
                    if q < packed.shape[0] and packed[q] == key:
                        m = _gather(tris[starts[q]:starts[q + 1]], mark, found, m)
    ascending = np.sort(found[:m])
    out = np.empty(m, dtype=np.int64)
    k = 0
    for t in ascending:
        rr = r + SPH[t, 3]
        dx = SPH[t, 0] - x
        dy = SPH[t, 1] - y
        dz = SPH[t, 2] - z
        if dx * dx + dy * dy + dz * dz <= rr * rr:
            out[k] = t
            k += 1
    return out[:k]


class TriangleGrid:
    """World-space triangles of a fixed body in a uniform grid (built once):
    vertices, bounding sphere and vertex indices (shared edges recognised) per
    triangle; its two-sided piece made when a pair first asks for it."""

    def __init__(self, vertices: np.ndarray, faces: np.ndarray):
        tri = vertices[faces]
        self.last_pass = None           # (groups, triangles, counts, codes, ...) of the last ball pass (mindist_batches)
        cen = tri.mean(axis=1)
        rad = np.sqrt(((tri - cen[:, None, :]) ** 2).sum(axis=2)).max(axis=1)
        lo = tri.min(axis=1)
        hi = tri.max(axis=1)
        self.vertices = [tuple(v) for v in vertices.tolist()]
        self.faces = [tuple(f) for f in faces.tolist()]
        V = self.vertices
        self.a = [V[f[0]] for f in self.faces]
        self.b = [V[f[1]] for f in self.faces]
        self.c = [V[f[2]] for f in self.faces]
        self.sphere = [(x, y, z, r) for (x, y, z), r in zip(cen.tolist(), rad.tolist())]
        self.lo = tuple(float(v) for v in lo.min(axis=0))     # the triangles' box
        self.hi = tuple(float(v) for v in hi.max(axis=0))
        ext = (hi - lo).max(axis=1)
        self.cell = max(float(np.median(ext)) * 1.5, 1e-3)
        self.cells = {}
        self.big = []
        self._pieces = {}
        self._kernel_arrays = None
        h = self.cell
        ilo = np.floor(lo / h).astype(np.int64).tolist()
        ihi = np.floor(hi / h).astype(np.int64).tolist()
        cells = self.cells
        for t, (l, u) in enumerate(zip(ilo, ihi)):
            if (u[0] - l[0] + 1) * (u[1] - l[1] + 1) * (u[2] - l[2] + 1) > GRID_MAX_CELLS:
                self.big.append(t)
                continue
            for i in range(l[0], u[0] + 1):
                for j in range(l[1], u[1] + 1):
                    for k in range(l[2], u[2] + 1):
                        key = (i, j, k)
                        lst = cells.get(key)
                        if lst is None:
                            cells[key] = [t]
                        else:
                            lst.append(t)
        self._cell_arrays = self._packed_cells(np.asarray(self.sphere, dtype=np.float64).reshape(-1, 4))

    def _packed_cells(self, SPH):
        """The cells for :func:`grid_query_k`: each occupied cell's packed
        index (ascending), its triangles' slice of one array, its (i, j, k);
        the big list, the spheres and the index box (I0, J0, K0, NJ, NK, and
        the last indices)."""
        h = self.cell
        lo = [math.floor(v / h) for v in self.lo]
        hi = [math.floor(v / h) for v in self.hi]
        nj = hi[1] - lo[1] + 1
        nk = hi[2] - lo[2] + 1
        keys = sorted(self.cells)
        packed = np.array([((i - lo[0]) * nj + (j - lo[1])) * nk + (k - lo[2]) for i, j, k in keys], dtype=np.int64)
        lists = [self.cells[c] for c in keys]
        starts = np.zeros(len(keys) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(x) for x in lists])
        tris = np.array([t for x in lists for t in x], dtype=np.int64)
        box = np.array([*lo, nj, nk, *hi], dtype=np.int64)
        return (packed, starts, tris, np.array(keys, dtype=np.int64).reshape(-1, 3), np.array(self.big, dtype=np.int64),
                SPH, box)

    def __len__(self) -> int:
        return len(self.faces)

    def query(self, x: float, y: float, z: float, r: float) -> list:
        """Indices (ascending) of the triangles whose box and bounding sphere both
        meet the sphere (x, y, z, r): every triangle within r of the point, and few others."""
        if not math.isfinite(x + y + z + r):
            raise ValueError(f"triangle grid query: the sphere ({x}, {y}, {z}) r {r} is not finite")
        return grid_query_k(*self._cell_arrays, float(x), float(y), float(z), float(r), self.cell, self.lo, self.hi).tolist()

    def kernel_arrays(self):
        """Every triangle for the batched kernels (feature_kernels.ball_triangles_measure):
        vertices (n, 3, 3), planes (n, 4) and front/back normals (n, 2, 3), as
        each triangle's piece has them; built on first use."""
        if self._kernel_arrays is None:
            GV = np.array([(a, b, c) for a, b, c in zip(self.a, self.b, self.c)], dtype=np.float64)
            self._kernel_arrays = (GV, *triangle_planes(GV))
        return self._kernel_arrays

    def piece(self, t: int) -> Piece:
        """Triangle t as a two-sided world Piece (cached)."""
        p = self._pieces.get(t)
        if p is None:
            p = triangle_piece(self.a[t], self.b[t], self.c[t], self.faces[t])
            self._pieces[t] = p
        return p


class Shape:
    """The collision shape of one object (spec 6.3's per-object data).

    ``pieces`` are in core coordinates for movable bodies; a fixed body keeps
    them in world coordinates (``world_pieces``) with its triangles in
    ``grid``. ``lo``/``hi`` bound a fixed body in world space.
    """

    __slots__ = ("obj", "is_ball", "radius", "pieces", "world_pieces", "grid", "lo", "hi",
                 "serial", "mindists", "soup_cache", "soup_pairs", "md_version", "soup_measures", "all_seen", "_cache_key", "_cache",
                 "_spare_key", "_spare")

    def __init__(self, obj, serial: int):
        self.obj = obj
        self.serial = serial
        self.is_ball = obj.type == OBJECT_BALL
        self.radius = float(obj.extra_radius) if self.is_ball else 0.0
        self.pieces = []
        self.world_pieces = None
        self.grid = None
        self.mindists = {}
        self.soup_cache = {}
        self.soup_pairs = {}            # fixed serial -> (soup keys, md_version, mindist.SoupPairs)
        self.md_version = 0             # bumped when a member of one of its soup groups goes
        self.soup_measures = 0          # bumped when one of its pairs with a triangle is measured on its own
        self.all_seen = 0               # the collision system's stamp of a pass that saw every one of its mindists
        self._cache_key = None
        self._cache = {}
        self._spare_key = None
        self._spare = {}
        core = obj.core
        if not self.is_ball:
            m_core_f_object = obj.get_m_core_f_object()
            surf = obj.surface
            for cp in surf.convex:
                v = [umath.mat_mul_point(m_core_f_object, tuple(p)) for p in cp.vertices.tolist()]
                self.pieces.append(hull_piece(v, cp.faces))
            soups = []
            for s in surf.soups:
                v = np.array([umath.mat_mul_point(m_core_f_object, tuple(p)) for p in s.vertices.tolist()])
                soups.append((v, np.asarray(s.faces)))
            m = core.m_world_f_core_last_psi
            if core.physical_unmoveable:
                self.world_pieces = [p.transformed(m) for p in self.pieces]
                if soups:
                    R, vv = m
                    Rm = np.array(R).reshape(3, 3)
                    allv = []
                    allf = []
                    base = 0
                    for v, f in soups:
                        allv.append(v @ Rm.T + np.array(vv))
                        allf.append(f + base)
                        base += len(v)
                    self.grid = TriangleGrid(np.concatenate(allv), np.concatenate(allf))
            else:
                for v, f in soups:
                    vt = [tuple(x) for x in v.tolist()]
                    for a, b, c in f.tolist():
                        self.pieces.append(triangle_piece(vt[a], vt[b], vt[c]))
        if core.physical_unmoveable:
            self._fixed_bounds()

    def _fixed_bounds(self) -> None:
        """lo/hi: a box around every bounding sphere the broad phase tests
        (the ball, each piece's, each grid triangle's), a little enlarged, so a
        query sphere that misses the box misses them all."""
        if self.is_ball:
            spheres = np.array([(*self.obj.core.m_world_f_core_last_psi[1], self.radius)])
        else:
            spheres = np.array([(*p.center, p.radius) for p in self.world_pieces] +
                               (self.grid.sphere if self.grid is not None else []), dtype=np.float64)
        if len(spheres) == 0:
            self.lo, self.hi = (math.inf,) * 3, (-math.inf,) * 3
            return
        lo = (spheres[:, :3] - spheres[:, 3:]).min(axis=0)
        hi = (spheres[:, :3] + spheres[:, 3:]).max(axis=0)
        pad = BOUNDS_PAD * (1.0 + float(np.abs(lo).max()) + float(np.abs(hi).max()))
        self.lo = tuple(float(x) - pad for x in lo)    # plain floats: the broad phase reads them per sphere
        self.hi = tuple(float(x) + pad for x in hi)

    def piece_keys(self) -> list:
        """Keys of the convex pieces (a ball is one piece; a fixed soup's
        triangles are reached through its grid, keyed ("t", index))."""
        if self.is_ball:
            return [("b", 0)]
        return [("p", k) for k in range(len(self.pieces))]

    def piece_world(self, key, m):
        """The piece ``key`` in world space for the core pose m, kept for two
        poses: one asked for again (the PSI pose, which many pairs read) is not
        pushed out by the poses an event search asks for once."""
        if key[0] == "t":
            return self.grid.piece(key[1])
        if self.world_pieces is not None:
            return self.world_pieces[key[1]]
        if self._cache_key is not m:
            if self._spare_key is not m:        # a pose not asked for before: kept beside the other
                self._spare_key = m
                self._spare = {}
            else:                               # asked for again (the PSI pose, many pairs): kept first
                self._cache_key, self._cache, self._spare_key, self._spare = (
                    m, self._spare, self._cache_key, self._cache)
        cache = self._cache if self._cache_key is m else self._spare
        p = cache.get(key[1])
        if p is None:
            p = cache[key[1]] = self.pieces[key[1]].transformed(m)
        return p

    def piece_spheres_at(self, m) -> list:
        """(key, centre, radius) of each piece in world space for the core pose m."""
        if self.world_pieces is not None:
            return [(("p", k), p.center, p.radius) for k, p in enumerate(self.world_pieces)]
        return [(("p", k), umath.mat_mul_point(m, p.center), p.radius) for k, p in enumerate(self.pieces)]
