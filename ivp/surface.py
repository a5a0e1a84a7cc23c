"""Compact surfaces of polygon bodies (surfaces-and-contacts 1; dynamics 2.4, open question 1):
convex hulls and flat two-sided triangles (each face of a concave mesh, a
3-point "hull"), with what object creation reads: the mass centre, the
unit-mass rotation inertia (IVP's sqrt combination), the radius and the
quantised radius deviation."""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from .fp import f32
from .limits import MAX_SURFACE_PIECES, MAX_VERTEX, check


@dataclass
class ConvexPiece:
    """A closed convex hull: f32-valued vertices and outward triangles."""

    vertices: np.ndarray          # (n, 3) float64 holding f32 values
    faces: np.ndarray             # (m, 3) int, counter-clockwise seen from outside


@dataclass
class TriangleSoup:
    """Flat two-sided triangles, each its own piece (a concave mesh)."""

    vertices: np.ndarray          # (n, 3) float64 holding f32 values
    faces: np.ndarray             # (m, 3) int


@dataclass
class CompactSurface:
    """Spec 2.4's surface manager: geometry plus the values object creation reads."""

    name: str
    convex: list = field(default_factory=list)      # ConvexPiece
    soups: list = field(default_factory=list)       # TriangleSoup
    mass_center: tuple = (0.0, 0.0, 0.0)
    unit_rot_inertia: tuple = (1.0, 1.0, 1.0)
    radius: float = 0.0
    radius_dev_factor: int = 1
    is_flat: bool = False

    def get_mass_center(self):
        """Surface manager vtable +4."""
        return self.mass_center

    def get_rotation_inertia(self):
        """Surface manager vtable +0xc: unit-mass inertia about the mass centre."""
        return self.unit_rot_inertia

    def get_radius_and_radius_dev_to_given_center(self, center):
        """Surface manager vtable +8 (surfaces-and-contacts 1, 'at a given centre')."""
        mc = self.mass_center
        s = math.sqrt((mc[0] - center[0]) ** 2 + (mc[1] - center[1]) ** 2 + (mc[2] - center[2]) ** 2)
        return self.radius + s, self.radius_dev_factor * self.radius / 250.0 + s

    def all_vertices(self) -> np.ndarray:
        parts = [p.vertices for p in self.convex] + [s.vertices for s in self.soups]
        return np.concatenate(parts) if parts else np.zeros((0, 3))

    def oriented_triangles(self) -> np.ndarray:
        """(k, 3, 3) every face of every piece; a flat triangle is a two-sided piece
        whose front and back faces follow each other, as in a ledge."""
        tris = [p.vertices[p.faces] for p in self.convex]
        for s in self.soups:
            t = s.vertices[s.faces]
            tris.append(np.stack((t, t[:, [0, 2, 1]]), axis=1).reshape(-1, 3, 3))
        return np.concatenate(tris) if tris else np.zeros((0, 3, 3))


def _as_points(points, name: str) -> np.ndarray:
    try:
        p = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"surface {name!r}: the points are not an (n, 3) array of numbers ({exc})") from None
    if p.ndim != 2 or p.shape[1] != 3:
        raise ValueError(f"surface {name!r}: expected an (n, 3) array of points, got shape {p.shape}")
    with np.errstate(over="ignore"):
        single = p.astype(np.float32)
    if not np.all(np.isfinite(single)):
        raise ValueError(f"surface {name!r}: a vertex is NaN, infinite or beyond the f32 range")
    if len(p) and np.abs(p).max() > MAX_VERTEX:
        raise ValueError(f"surface {name!r}: a vertex coordinate {np.abs(p).max():g} is above {MAX_VERTEX:g} "
                         f"(limit MAX_VERTEX, docs/ivp.md)")
    return single.astype(np.float64)


def convex_piece(points, name: str = "surface"):
    """The convex hull of a point set (exact duplicates dropped), f32 vertices.

    Exactly 3 distinct points make a flat two-sided triangle (returned as a
    TriangleSoup); fewer, collinear or coplanar point sets are a ValueError.
    """
    p = np.unique(_as_points(points, name), axis=0)
    if len(p) == 3:
        n = np.cross(p[1] - p[0], p[2] - p[0])
        if float(n @ n) <= 0.0:
            raise ValueError(f"surface {name!r}: the 3 points of a convex piece are collinear")
        return TriangleSoup(p, np.array([[0, 1, 2]]))
    if len(p) < 3:
        raise ValueError(f"surface {name!r}: a convex piece needs at least 3 distinct points, got {len(p)}")
    try:
        hull = ConvexHull(p)
    except QhullError as exc:
        raise ValueError(f"surface {name!r}: degenerate convex hull (all {len(p)} points coplanar "
                         f"or collinear; a convex body needs 4 non-coplanar points)") from exc
    used = np.unique(hull.simplices)
    remap = -np.ones(len(p), dtype=np.int64)
    remap[used] = np.arange(len(used))
    verts = p[used]
    faces = remap[hull.simplices]
    # Orient every face outward (Qhull's simplices are not consistently wound).
    tri = verts[faces]
    nrm = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    flip = np.einsum("ij,ij->i", nrm, hull.equations[:, :3]) < 0.0
    faces[flip] = faces[flip][:, [0, 2, 1]]
    return ConvexPiece(verts, faces)


DEGENERATE_SIN2 = 1e-12        # a face is degenerate when |sin| of its sharpest corner is at most 1e-6


def usable_faces(points, faces) -> np.ndarray:
    """Which faces ((m, 3) indices into the (n, 3) ``points``) are not
    degenerate, as an (m,) bool array: |e1 x e2|^2 > DEGENERATE_SIN2 * |e_max|^4
    (e1, e2 two edges, e_max the longest). A degenerate face has no usable
    normal; a concave mesh drops such faces."""
    tri = np.asarray(points, dtype=np.float64)[np.asarray(faces, dtype=np.int64)]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area2 = np.einsum("ij,ij->i", n, n)
    e = tri - tri[:, [1, 2, 0]]
    emax2 = np.einsum("ijk,ijk->ij", e, e).max(axis=1)
    return area2 > DEGENERATE_SIN2 * emax2 * emax2


def triangle_soup(vertices, faces, name: str = "surface") -> TriangleSoup:
    """A concave mesh: every face its own two-sided triangle; degenerate faces dropped.

    Dropped faces are reported by a warning naming the mesh; a mesh with no
    usable face is a ValueError.
    """
    v = _as_points(vertices, name)
    f = np.asarray(faces, dtype=np.int64)
    if f.ndim != 2 or f.shape[1] != 3:
        raise ValueError(f"surface {name!r}: faces must be an (m, 3) array of vertex indices")
    if len(f) and (f.min() < 0 or f.max() >= len(v)):
        raise ValueError(f"surface {name!r}: a face refers to a vertex that does not exist")
    ok = usable_faces(v, f)
    dropped = int(len(f) - ok.sum())
    if dropped == len(f):
        raise ValueError(f"surface {name!r}: the mesh has no usable (non-degenerate) face")
    if dropped:
        warnings.warn(f"surface {name!r}: dropped {dropped} degenerate triangle(s)", stacklevel=2)
    return TriangleSoup(v, f[ok])


def build_surface(name: str, convex_point_sets=(), concave_meshes=()) -> CompactSurface:
    """Build a compact surface from convex point sets and concave (vertices, faces)
    meshes, at most MAX_SURFACE_PIECES of them together (ivp.limits)."""
    over = MAX_SURFACE_PIECES + 1               # read no more than that from an iterator
    convex_point_sets = list(itertools.islice(convex_point_sets, over))
    concave_meshes = list(itertools.islice(concave_meshes, over))
    check(f"surface {name!r}: the number of pieces", len(convex_point_sets) + len(concave_meshes),
          high="MAX_SURFACE_PIECES")
    surf = CompactSurface(name=name)
    for pts in convex_point_sets:
        piece = convex_piece(pts, name)
        (surf.soups if isinstance(piece, TriangleSoup) else surf.convex).append(piece)
    for verts, faces in concave_meshes:
        surf.soups.append(triangle_soup(verts, faces, name))
    if not surf.convex and not surf.soups:
        raise ValueError(f"surface {name!r}: no geometry")
    _compute_mass_properties(surf)
    return surf


def _compute_mass_properties(surf: CompactSurface) -> None:
    """Mass centre, unit inertia, radius and radius deviation (surfaces-and-contacts 1)."""
    tris = surf.oriented_triangles()
    p0, p1, p2 = tris[:, 0], tris[:, 1], tris[:, 2]
    n = np.cross(p1 - p0, p2 - p0)
    det = np.einsum("ij,ij->i", n, p0)
    qsum = float(np.einsum("ij,ij->", n, n))
    mterm = det[:, None] * 0.25 * (p0 + p1 + p2)
    # f32 accumulation, in the original's order
    sum_det = 0.0
    sx = sy = sz = 0.0
    for d, (mx, my, mz) in zip(det.tolist(), mterm.tolist()):
        sum_det = f32(sum_det + d)
        sx = f32(sx + mx)
        sy = f32(sy + my)
        sz = f32(sz + mz)
    verts = surf.all_vertices()
    closed = sum_det > math.sqrt(qsum) ** 3 * 1e-9
    if closed:
        c = np.array([sx / sum_det, sy / sum_det, sz / sum_det])
        moments = _central_second_moments(tris, c)
        closed = moments is not None
    if not closed:
        lo = verts.min(axis=0)
        hi = verts.max(axis=0)
        c = (lo + hi) * 0.5
        r = float(np.linalg.norm(hi - lo)) * 0.5
        surf.is_flat = True
        surf.mass_center = (float(c[0]), float(c[1]), float(c[2]))
        surf.unit_rot_inertia = (r * r / 2.0,) * 3
    else:
        surf.mass_center = (float(c[0]), float(c[1]), float(c[2]))
        a, b, cc = moments
        surf.unit_rot_inertia = (math.sqrt(b * b + cc * cc), math.sqrt(a * a + cc * cc),
                                 math.sqrt(a * a + b * b))
    surf.radius = float(np.sqrt(((verts - c) ** 2).sum(axis=1)).max())
    # radius deviation: distance of each face's vertices from the line through
    # the mass centre along the face normal
    nn = n / np.maximum(np.linalg.norm(n, axis=1), 1e-300)[:, None]
    dev = 0.0
    for k in range(3):
        d = tris[:, k] - c
        along = np.einsum("ij,ij->i", d, nn)
        perp = d - along[:, None] * nn
        dev = max(dev, float(np.sqrt((perp ** 2).sum(axis=1)).max()))
    unit = surf.radius / 250.0
    surf.radius_dev_factor = int(1 + dev / unit) if unit > 0 else 1


def _central_second_moments(tris: np.ndarray, c: np.ndarray):
    """<x^2>, <y^2>, <z^2> of the enclosed volume about c, by tetrahedra from c;
    None when the pieces enclose no volume (f32 noise made the sum look closed)."""
    a = tris[:, 0] - c
    b = tris[:, 1] - c
    d = tris[:, 2] - c
    det = np.einsum("ij,ij->i", a, np.cross(b, d))
    vol = det.sum() / 6.0
    if not vol > 1e-9 * np.abs(det).sum() / 6.0:
        return None
    s = a + b + d
    integ = (det[:, None] * (a * a + b * b + d * d + s * s)).sum(axis=0) / 120.0
    m = integ / vol
    return float(m[0]), float(m[1]), float(m[2])


class BallSurface:
    """The static ball manager (0x10076380): a ball's mass centre is its centre."""

    def get_mass_center(self):
        return (0.0, 0.0, 0.0)


BALL_SURFACE = BallSurface()
