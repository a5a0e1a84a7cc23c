"""Closest features of two convex pieces (ivp-contacts 3.3) and the geometry
of one feature pair (5.3).

A feature is ``(kind, index)`` of a piece: ``("P", i)`` vertex i, ``("K", (i, j))``
the edge i-j (i < j), ``("F", f)`` triangle f of the piece (for a two-sided
triangle piece f = 0 is the front, f = 1 the back), ``("B", 0)`` a ball.
A feature pair is sorted (3.1): the lower dimension first (B, P before K
before F); for ball pairs the ball is side 0.

:func:`pair_geometry` is the one place that turns two features in world
coordinates into the gap, the normal n (side 0 -> side 1), the point on
side 0 and the first tangent; the mindist measurement (3.3), the event
search (3.5) and the contact point update (5.3) all use it.

The searches (:func:`ball_piece_closest`, :func:`piece_piece_closest`) are
compiled kernels (``ivp.jit``) over a piece's arrays (:func:`kernel_arrays`,
built once per piece and pose);
inside them a feature is three ints ``(kind, i, j)``: kind 0 = P (vertex i),
1 = K (edge i < j), 2 = F (face i), -1 = none.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from .constants import REAL_COLL_DIST
from ..umath import cross, dot, sub

TIE_FACTOR = 1.0 + 1e-12        # a candidate must be better by this factor (3.3 FF reduction)
TIE_ABS = 1e-12                 # and by this much (metres), so a resting corner keeps its feature
LINE_PARALLEL = 1e-24           # |K x L|^2 below this: parallel edges (5.3)
DEGENERATE = 1e-10
SEPARATION_TOL = 1e-9           # metres: a KK normal may graze the pieces by this much
INTRUSION_DEPTH = REAL_COLL_DIST    # a vertex or ball centre deeper in a hull is INTRUSION; touching
                                    # bodies measure -1e-17 and are not (the port's reading of 3.3's walk)
EDGE_BOUND_SLACK = 1e-9         # relative: a lower bound (face plane, edge spheres) is trusted past this

KIND_CODE = {"P": 0, "K": 1, "F": 2}
NO_FEATURE = (-1, -1, -1)


# --- vector helpers of the kernels (3-tuples of floats) ---------------------------------

@kernel
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel
def _unit_k(v):
    """v / |v| and whether |v| exceeds DEGENERATE."""
    d = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if d <= DEGENERATE:
        return False, (0.0, 0.0, 0.0)
    return True, (v[0] / d, v[1] / d, v[2] / d)


def _unit(v):
    ok, n = _unit_k(v)
    return n if ok else None


@kernel(inline=True)
def _vert(V, i):
    return (V[i, 0], V[i, 1], V[i, 2])


# --- one triangle ------------------------------------------------------------------------

@kernel
def _triangle_region(p, a, b, c):
    """Voronoi region of p's projection on triangle (a, b, c): (kind, e0, e1,
    closest point); kind 0 vertex e0, 1 edge e0-e1, 2 face (triangle indices 0-2)."""
    ab = _sub(b, a)
    ac = _sub(c, a)
    ap = _sub(p, a)
    d1 = _dot(ab, ap)
    d2 = _dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return 0, 0, -1, a
    bp = _sub(p, b)
    d3 = _dot(ab, bp)
    d4 = _dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return 0, 1, -1, b
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3)
        return 1, 0, 1, (a[0] + ab[0] * v, a[1] + ab[1] * v, a[2] + ab[2] * v)
    cp = _sub(p, c)
    d5 = _dot(ab, cp)
    d6 = _dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return 0, 2, -1, c
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6)
        return 1, 0, 2, (a[0] + ac[0] * w, a[1] + ac[1] * w, a[2] + ac[2] * w)
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 1, 1, 2, (b[0] + (c[0] - b[0]) * w, b[1] + (c[1] - b[1]) * w, b[2] + (c[2] - b[2]) * w)
    den = va + vb + vc
    if den == 0.0:
        return 0, 0, -1, a
    v = vb / den
    w = vc / den
    return 2, -1, -1, (a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w, a[2] + ab[2] * v + ac[2] * w)


def triangle_region(p, a, b, c):
    """Where p projects on triangle (a, b, c): ("F", None), ("K", edge) with the
    edge as a vertex-index pair of the triangle, or ("P", vertex index), and the
    closest point (Voronoi regions of the triangle)."""
    kind, e0, e1, q = _triangle_region(p, a, b, c)
    if kind == 2:
        return "F", None, q
    if kind == 1:
        return "K", (e0, e1), q
    return "P", e0, q


@kernel
def projects_inside(q, a, b, c, n) -> bool:
    """5.3's validity test of a point over face F: its projection lies inside."""
    if _dot(_cross(_sub(b, a), _sub(q, a)), n) < 0.0:
        return False
    if _dot(_cross(_sub(c, b), _sub(q, b)), n) < 0.0:
        return False
    return not _dot(_cross(_sub(a, c), _sub(q, c)), n) < 0.0


@kernel
def _point_line(q, k0, k1):
    """5.3's point-edge distance and whether q projects outside the edge."""
    e = _sub(k1, k0)
    w = _sub(q, k0)
    cc = _cross(e, w)
    e2 = _dot(e, e)
    c2 = _dot(cc, cc)
    gap = math.sqrt(c2 / e2) if e2 > 0.0 else math.sqrt(_dot(w, w))
    broken = False
    if e2 > 0.0:
        s = _dot(e, w) / e2
        broken = s < 0.0 or s > 1.0
    return gap, broken


@kernel
def _edge_edge(k0, k1, l0, l1):
    """5.3's edge-edge measure: (not parallel, gap, n known, n, point on K, sk, sl)."""
    ek = _sub(k1, k0)
    el = _sub(l1, l0)
    cr = _cross(ek, el)
    a = _dot(ek, ek)
    e = _dot(el, el)
    bb = _dot(ek, el)
    den = a * e - bb * bb                       # |K x L|^2
    if den <= LINE_PARALLEL * a * e or a == 0.0 or e == 0.0:
        return False, 0.0, False, cr, k0, 0.0, 0.0
    r = _sub(k0, l0)
    c = _dot(ek, r)
    f = _dot(el, r)
    sk = (bb * f - c * e) / den
    sl = (a * f - bb * c) / den
    pk = (k0[0] + ek[0] * sk, k0[1] + ek[1] * sk, k0[2] + ek[2] * sk)
    pl = (l0[0] + el[0] * sl, l0[1] + el[1] * sl, l0[2] + el[2] * sl)
    d = _sub(pl, pk)
    gap = math.sqrt(_dot(d, d))
    if gap > DEGENERATE:
        ok, n = _unit_k(d)
    else:
        ok, n = _unit_k(cr)
    return True, gap, ok, n, pk, sk, sl


class Geometry:
    """5.3's per-update data of one feature pair: gap (radii subtracted, may be
    negative under penetration), n (unit, side 0 -> side 1), p (on side 0's
    feature, before moving it to a ball's surface), t0 (first tangent) and
    whether the pair is no longer valid (``broken``)."""

    __slots__ = ("gap", "n", "p", "t0", "broken")

    def __init__(self, gap, n, p, t0, broken):
        self.gap = gap
        self.n = n
        self.p = p
        self.t0 = t0
        self.broken = broken


def face_data(piece, f):
    """Triangle f of a piece as (a, b, c, outward unit normal)."""
    V = piece.verts
    if piece.two_sided:
        a, b, c = V
        p = piece.planes[0]
        if f == 0:
            return a, b, c, (p[0], p[1], p[2])
        return a, c, b, (-p[0], -p[1], -p[2])
    i, j, k = piece.tris[f]
    n = _unit(cross(sub(V[j], V[i]), sub(V[k], V[i])))
    return V[i], V[j], V[k], n


def feature_points(piece, feat):
    """World data of a polygon feature: a point (P), an edge (K) or a face (F)."""
    kind, idx = feat
    if kind == "P":
        return piece.verts[idx]
    if kind == "K":
        return piece.verts[idx[0]], piece.verts[idx[1]]
    return face_data(piece, idx)


@kernel
def _point_face(q, a, b, c, g, check):
    """5.3 point (side 0) against face (a, b, c) with outward normal g:
    (gap, n, p, t0, broken)."""
    gap = _dot(g, _sub(q, a))
    broken = check and not projects_inside(q, a, b, c, g)
    return gap, (-g[0], -g[1], -g[2]), q, _sub(b, a), broken


@kernel
def _point_edge(q, k0, k1, check):
    """5.3 point (side 0) against edge k0-k1: (gap, n, p, t0, broken)."""
    gap, outside = _point_line(q, k0, k1)
    e = _sub(k1, k0)
    cc = _cross(e, _sub(q, k0))
    e2 = _dot(e, e)
    if e2 <= 0.0 or _dot(cc, cc) / e2 <= 1e-10:
        t0 = (1.0, 0.0, 0.0)
    else:
        ok, t0 = _unit_k(cc)
    ok, n = _unit_k(_cross(e, t0))
    if not ok:
        n = (0.0, 1.0, 0.0)
    return gap, n, q, t0, check and outside


@kernel
def _point_point(q, r):
    """5.3 point (side 0) against point r: (gap, n, p, t0, False)."""
    d = _sub(r, q)
    gap = math.sqrt(_dot(d, d))
    ok, n = _unit_k(d)
    if not ok:
        n = (0.0, 1.0, 0.0)
    t0 = _cross(n, (1.0, 0.0, 0.0)) if n[0] * n[0] < 0.9 else _cross(n, (0.0, 0.0, 1.0))
    return gap, n, q, t0, False


def front_normal(piece, c):
    """The outward normal of the piece's face that the point c is most in
    front of (a two-sided triangle: its side facing c); 3.3's intrusion push."""
    if piece.two_sided:
        p = piece.planes[0]
        s = 1.0 if p[0] * c[0] + p[1] * c[1] + p[2] * c[2] - p[3] >= 0.0 else -1.0
        return (s * p[0], s * p[1], s * p[2])
    best = None
    best_h = -math.inf
    for f in range(len(piece.tris)):
        a, b, cc, n = face_data(piece, f)
        h = dot(n, sub(c, a))
        if h > best_h:
            best_h = h
            best = n
    return best


def pair_geometry(kind0, d0, kind1, d1, check: bool) -> Geometry:
    """5.3 for the feature pair (side 0 data d0, side 1 data d1); ``check``:
    the validity test (the point still projects into F, onto K; KK interior)."""
    if kind1 == "F":
        a, b, c, g = d1
        return Geometry(*_point_face(d0, a, b, c, g, check))
    if kind0 != "K" and kind1 == "K":
        return Geometry(*_point_edge(d0, d1[0], d1[1], check))
    if kind0 != "K":
        return Geometry(*_point_point(d0, d1))
    (k0, k1), (l0, l1) = d0, d1
    ok, gap, n_ok, n, pk, sk, sl = _edge_edge(k0, k1, l0, l1)
    if not ok:
        return Geometry(None, (1.0, 0.0, 0.0), k0, (0.0, 1.0, 0.0), True)
    broken = check and not (0.0 <= sk <= 1.0 and 0.0 <= sl <= 1.0)
    return Geometry(gap, n if n_ok else None, pk, sub(k1, k0), broken)


# --- the closest-feature search (3.3), compiled --------------------------------------------

@kernel
def _normals(V, T, two, pl):
    """The outward unit normals of a piece's faces (face_data's n), once per search."""
    if two:
        N = np.empty((2, 3))
        for k in range(3):
            N[0, k] = pl[k]
            N[1, k] = -pl[k]
        return N
    N = np.empty((T.shape[0], 3))
    for f in range(T.shape[0]):
        a = _vert(V, T[f, 0])
        ok, n = _unit_k(_cross(_sub(_vert(V, T[f, 1]), a), _sub(_vert(V, T[f, 2]), a)))
        N[f, 0] = n[0]
        N[f, 1] = n[1]
        N[f, 2] = n[2]
    return N


@kernel(inline=True)
def _face(V, T, two, N, f):
    """face_data in kernel form: a, b, c, outward unit normal and the piece's
    vertex indices of a, b, c."""
    n = (N[f, 0], N[f, 1], N[f, 2])
    if two:
        if f == 0:
            return _vert(V, 0), _vert(V, 1), _vert(V, 2), n, 0, 1, 2
        return _vert(V, 0), _vert(V, 2), _vert(V, 1), n, 0, 2, 1
    i = T[f, 0]
    j = T[f, 1]
    k = T[f, 2]
    return _vert(V, i), _vert(V, j), _vert(V, k), n, i, j, k


@kernel
def _face_range(two, pl, point):
    """The faces of a piece that may be nearest to things around ``point``: a
    two-sided triangle shows the side the point is on, a hull all faces
    (-1: all)."""
    if two:
        if pl[0] * point[0] + pl[1] * point[1] + pl[2] * point[2] - pl[3] >= 0.0:
            return 0
        return 1
    return -1


@kernel
def _vertex_triangle(v, a, b, c, n, ia, ib, ic, f):
    """Vertex v against face f (a, b, c, normal n, vertex indices): (signed
    distance or distance, feature of the piece)."""
    kind, e0, e1, q = _triangle_region(v, a, b, c)
    if kind == 2:
        return _dot(n, _sub(v, a)), 2, f, -1
    d = _sub(v, q)
    dist = math.sqrt(_dot(d, d))
    tri = (ia, ib, ic)
    if kind == 1:
        i = tri[e0]
        j = tri[e1]
        return dist, 1, min(i, j), max(i, j)
    return dist, 0, tri[e0], -1


@kernel(inline=True)
def _nearest_on(v, V, T, two, N, side):
    """A vertex against a piece: the least signed distance over its faces whose
    region holds the projection (negative when behind every face of a hull)."""
    best_d = math.inf
    bk, bi, bj = -1, -1, -1
    behind = -math.inf
    behind_f = -1
    f0, f1 = (side, side + 1) if two else (0, T.shape[0])
    for f in range(f0, f1):
        a, b, c, n, ia, ib, ic = _face(V, T, two, N, f)
        h = _dot(n, _sub(v, a))
        if h > behind:
            behind = h
            behind_f = f
        if abs(h) > best_d + EDGE_BOUND_SLACK * (1.0 + abs(h)):
            continue                     # the plane is farther than the best: so is the face
        d, k, i, j = _vertex_triangle(v, a, b, c, n, ia, ib, ic, f)
        if k == 2 and d < 0.0 and not two:
            continue
        if d < best_d:
            best_d = d
            bk, bi, bj = k, i, j
    if not two and behind < 0.0:
        return behind, 2, behind_f, -1
    return best_d, bk, bi, bj


@kernel
def _prev_distance(c, V, T, two, N, kind, i, j):
    """The ball centre's distance to its previous feature, and whether that
    feature still holds the centre's projection."""
    if kind == 2:
        a, b, cc, n, ia, ib, ic = _face(V, T, two, N, i)
        if not projects_inside(c, a, b, cc, n):
            return False, 0.0
        return True, _dot(n, _sub(c, a))
    if kind == 1:
        gap, outside = _point_line(c, _vert(V, i), _vert(V, j))
        return not outside, gap
    d = _sub(c, _vert(V, i))
    return True, math.sqrt(_dot(d, d))


@kernel
def _ball_closest(c, V, T, two, pl, N, prev):
    """3.3's BF / BK / BP for a ball centre c against a convex piece (the ball
    on side 0); a centre behind a two-sided triangle sees the back face, a
    centre inside a hull its least penetrated face."""
    best_d = math.inf
    bk, bi, bj = -1, -1, -1
    inside = not two
    side = _face_range(two, pl, c)
    f0, f1 = (side, side + 1) if two else (0, T.shape[0])
    for f in range(f0, f1):
        a, b, cc, n, ia, ib, ic = _face(V, T, two, N, f)
        if _dot(n, _sub(c, a)) > 0.0:
            inside = False
        d, k, i, j = _vertex_triangle(c, a, b, cc, n, ia, ib, ic, f)
        if k == 2 and d < 0.0 and not two:
            continue                     # behind this hull face: another face is nearer
        if d < best_d:
            best_d = d
            bk, bi, bj = k, i, j
    if inside:
        best_h = -math.inf
        for f in range(T.shape[0]):
            a, b, cc, n, ia, ib, ic = _face(V, T, two, N, f)
            h = _dot(n, _sub(c, a))
            if h > best_h:
                best_h = h
                bk, bi, bj = 2, f, -1
    if prev[0] >= 0 and (prev[0], prev[1], prev[2]) != (bk, bi, bj):
        ok, keep = _prev_distance(c, V, T, two, N, prev[0], prev[1], prev[2])
        if ok and keep <= best_d * TIE_FACTOR + TIE_ABS:
            return prev
    return bk, bi, bj


@kernel
def _ball_measure(c, V, T, two, pl, N, prev):
    """3.3 for a ball centre c and a piece in one pass: the closest feature
    (kind, i, j) and its 5.3 geometry (gap, n, p, t0, broken)."""
    kind, i, j = _ball_closest(c, V, T, two, pl, N, prev)
    if kind == 2:
        a, b, cc, n, ia, ib, ic = _face(V, T, two, N, i)
        return (kind, i, j), _point_face(c, a, b, cc, n, False)
    if kind == 1:
        return (kind, i, j), _point_edge(c, _vert(V, i), _vert(V, j), False)
    return (kind, i, j), _point_point(c, _vert(V, i))


@kernel
def ball_triangles_measure(C, tris, prev, GV, GPL, GN):
    """_ball_measure for many ball centres C (k, 3) against two-sided
    triangles ``tris`` of a grid (GV: vertices, GPL: planes, GN: front and
    back normals, per triangle), with their previous features ``prev`` (k, 3):
    features (k, 3) and geometry rows (gap, n, p, t0)."""
    k = tris.shape[0]
    F = np.empty((k, 3), dtype=np.int64)
    G = np.empty((k, 10))
    T1 = np.zeros((1, 3), dtype=np.int64)
    T1[0, 1] = 1
    T1[0, 2] = 2
    for q in range(k):
        t = tris[q]
        f, g = _ball_measure((C[q, 0], C[q, 1], C[q, 2]), GV[t], T1, True, GPL[t], GN[t],
                             (prev[q, 0], prev[q, 1], prev[q, 2]))
        gap, n, p, t0, broken = g
        for j in range(3):
            F[q, j] = f[j]
            G[q, 1 + j] = n[j]
            G[q, 4 + j] = p[j]
            G[q, 7 + j] = t0[j]
        G[q, 0] = gap
    return F, G


@kernel
def triangle_planes(GV):
    """Each triangle's (n, n.a) as triangle_piece makes it (umath's order:
    n = (b - a) x (c - a) scaled by 1 / |n|), and its front and back normals."""
    k = GV.shape[0]
    PL = np.empty((k, 4))
    GN = np.empty((k, 2, 3))
    for t in range(k):
        a = _vert(GV[t], 0)
        n = _cross(_sub(_vert(GV[t], 1), a), _sub(_vert(GV[t], 2), a))
        s = 1.0 / math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
        n = (n[0] * s, n[1] * s, n[2] * s)
        for j in range(3):
            PL[t, j] = n[j]
            GN[t, 0, j] = n[j]
            GN[t, 1, j] = -n[j]
        PL[t, 3] = _dot(n, a)
    return PL, GN


@kernel(inline=True)
def _separates(n, p, gap, VA, VB) -> bool:
    """An edge pair is a closest pair of two convex pieces only if its normal
    (A's edge -> B's edge) separates them: A behind the plane through A's
    point, B in front of the one through B's (crossed edges of overlapping
    pieces fail; the vertex candidates measure that penetration)."""
    ha = _dot(n, p) + SEPARATION_TOL
    for i in range(VA.shape[0]):
        if _dot(n, _vert(VA, i)) > ha:
            return False
    hb = ha + gap - 2.0 * SEPARATION_TOL
    for i in range(VB.shape[0]):
        if _dot(n, _vert(VB, i)) < hb:
            return False
    return True


@kernel
def _pieces_closest(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev):
    """3.3 for two convex pieces over the candidates in order: A's vertices
    against B's faces, B's vertices against A's faces, then the interior,
    separating edge-edge pairs. A candidate replaces the best when better by
    the tie factor (or nearer and negative); the previous pair ``prev``
    (6 ints: A's feature, B's) is kept at its first candidate within the tie
    of the best. Returns (distance, A's feature, B's feature)."""
    have = False
    best_d = 0.0
    best = (-1, -1, -1, -1, -1, -1)
    m0 = math.inf
    m1 = math.inf
    m2 = math.inf
    nm = 0
    side_b = _face_range(twoB, plB, cA)
    side_a = _face_range(twoA, plA, cB)
    for i in range(VA.shape[0]):
        d, k, fi, fj = _nearest_on(_vert(VA, i), VB, TB, twoB, NB, side_b)
        cand = (0, i, -1, k, fi, fj)
        if not have or d * TIE_FACTOR + TIE_ABS < best_d or (d < best_d and d < 0.0):
            have = True
            best_d = d
            best = cand
        if cand == prev:
            m0 = d
            nm = 1
    for j in range(VB.shape[0]):
        d, k, fi, fj = _nearest_on(_vert(VB, j), VA, TA, twoA, NA, side_a)
        cand = (k, fi, fj, 0, j, -1)
        if not have or d * TIE_FACTOR + TIE_ABS < best_d or (d < best_d and d < 0.0):
            have = True
            best_d = d
            best = cand
        if cand == prev:
            if nm == 0:
                m0 = d
            else:
                m1 = d
            nm += 1
    for ea in range(EA.shape[0]):
        k0 = _vert(VA, EA[ea, 0])
        k1 = _vert(VA, EA[ea, 1])
        ma = ((k0[0] + k1[0]) * 0.5, (k0[1] + k1[1]) * 0.5, (k0[2] + k1[2]) * 0.5)
        dk = _sub(k1, k0)
        ha = 0.5 * math.sqrt(_dot(dk, dk))
        for eb in range(EB.shape[0]):
            cand = (1, min(EA[ea, 0], EA[ea, 1]), max(EA[ea, 0], EA[ea, 1]),
                    1, min(EB[eb, 0], EB[eb, 1]), max(EB[eb, 0], EB[eb, 1]))
            if cand != prev and _edges_apart(k0, k1, ma, ha, _vert(VB, EB[eb, 0]), _vert(VB, EB[eb, 1]),
                                             _vert(MB, eb), HB[eb], best_d):
                continue                 # farther than the best for sure: cannot win
            ok, d, n_ok, n, pk, sk, sl = _edge_edge(k0, k1, _vert(VB, EB[eb, 0]), _vert(VB, EB[eb, 1]))
            if not ok or not (0.0 <= sk <= 1.0 and 0.0 <= sl <= 1.0) or not n_ok:
                continue
            if not _separates(n, pk, d, VA, VB):
                continue
            if d * TIE_FACTOR + TIE_ABS < best_d or (d < best_d and d < 0.0):
                best_d = d
                best = cand
            if cand == prev:
                if nm == 0:
                    m0 = d
                elif nm == 1:
                    m1 = d
                else:
                    m2 = d
                nm += 1
    lim = best_d * TIE_FACTOR + TIE_ABS
    if nm > 0 and m0 <= lim:
        return m0, prev
    if nm > 1 and m1 <= lim:
        return m1, prev
    if nm > 2 and m2 <= lim:
        return m2, prev
    return best_d, best


@kernel
def _pair_of_pieces(V0, T0, two0, N0, f0, V1, T1, two1, N1, f1):
    """pair_geometry (no validity check) of the sorted feature pair: f0 of the
    side-0 piece, f1 of the side-1 piece, as (gap known, gap, n known, n, p,
    t0, broken)."""
    if f1[0] == 2:
        a, b, c, n, ia, ib, ic = _face(V1, T1, two1, N1, f1[1])
        gap, nn, p, t0, broken = _point_face(_vert(V0, f0[1]), a, b, c, n, False)
        return True, gap, True, nn, p, t0, broken
    if f1[0] == 1 and f0[0] != 1:
        gap, nn, p, t0, broken = _point_edge(_vert(V0, f0[1]), _vert(V1, f1[1]), _vert(V1, f1[2]), False)
        return True, gap, True, nn, p, t0, broken
    if f0[0] != 1:
        gap, nn, p, t0, broken = _point_point(_vert(V0, f0[1]), _vert(V1, f1[1]))
        return True, gap, True, nn, p, t0, broken
    k0 = _vert(V0, f0[1])
    k1 = _vert(V0, f0[2])
    ok, gap, n_ok, n, pk, sk, sl = _edge_edge(k0, k1, _vert(V1, f1[1]), _vert(V1, f1[2]))
    if not ok:
        return False, 0.0, True, (1.0, 0.0, 0.0), k0, (0.0, 1.0, 0.0), True
    return True, gap, n_ok, n, pk, _sub(k1, k0), False


@kernel
def _pieces_measure(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev):
    """3.3 for two pieces and the 5.3 geometry of the pair sorted (3.1: the
    lower dimension on side 0; B's feature first when it is lower)."""
    d, f = _pieces_closest(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev)
    fa = (f[0], f[1], f[2])
    fb = (f[3], f[4], f[5])
    if fb[0] < fa[0]:
        return d, f, True, _pair_of_pieces(VB, TB, twoB, NB, fb, VA, TA, twoA, NA, fa)
    return d, f, False, _pair_of_pieces(VA, TA, twoA, NA, fa, VB, TB, twoB, NB, fb)


@kernel
def _point_segment(m, p, q):
    """The distance from point m to the segment p-q."""
    e = _sub(q, p)
    w = _sub(m, p)
    ee = _dot(e, e)
    t = 0.0 if ee <= 0.0 else min(1.0, max(0.0, _dot(w, e) / ee))
    d = (w[0] - t * e[0], w[1] - t * e[1], w[2] - t * e[2])
    return math.sqrt(_dot(d, d))


@kernel
def _edges_apart(k0, k1, mk, hk, l0, l1, ml, hl, best_d):
    """Whether segments K and L (midpoints m, half lengths h) are surely
    farther apart than best_d: their bounding spheres are, or the shorter
    one's sphere is from the other segment."""
    slack = EDGE_BOUND_SLACK * (1.0 + abs(best_d))
    dm = _sub(mk, ml)
    lower = math.sqrt(_dot(dm, dm)) - hk - hl
    if lower > best_d + slack * (1.0 + abs(lower)):
        return True
    if hl <= hk:
        lower = _point_segment(ml, k0, k1) - hl
    else:
        lower = _point_segment(mk, l0, l1) - hk
    return lower > best_d + slack * (1.0 + abs(lower))


@kernel
def _edge_spheres(V, E):
    """Each edge's midpoint and half length: bounding spheres for the edge-pair bound."""
    M = np.empty((E.shape[0], 3))
    H = np.empty(E.shape[0])
    for e in range(E.shape[0]):
        p = _vert(V, E[e, 0])
        q = _vert(V, E[e, 1])
        for k in range(3):
            M[e, k] = (p[k] + q[k]) * 0.5
        d = _sub(q, p)
        H[e] = 0.5 * math.sqrt(_dot(d, d))
    return M, H


def kernel_arrays(verts, T, E, two, pl):
    """A piece as the searches read it: vertices (n, 3), triangles, edges,
    two-sidedness, the face plane (two-sided), face normals, edge midpoints
    and half lengths."""
    V = np.array(verts, dtype=np.float64).reshape(-1, 3)
    M, H = _edge_spheres(V, E)
    return V, T, E, two, pl, _normals(V, T, two, pl), M, H


@kernel
def moved_arrays(V, T, E, two, pl, R, vv):
    """A piece's kernel arrays in the frame m = (R, vv): vertices R v + vv (in
    umath.mat_mul_point's order), then normals and edge spheres of the moved
    vertices (``pl``: the moved plane of a two-sided triangle)."""
    W = np.empty_like(V)
    for i in range(V.shape[0]):
        x = V[i, 0]
        y = V[i, 1]
        z = V[i, 2]
        W[i, 0] = R[0] * x + R[1] * y + R[2] * z + vv[0]
        W[i, 1] = R[3] * x + R[4] * y + R[5] * z + vv[1]
        W[i, 2] = R[6] * x + R[7] * y + R[8] * z + vv[2]
    M, H = _edge_spheres(W, E)
    return W, _normals(W, T, two, pl), M, H


def _code(feat):
    """A feature tuple as the kernels' three ints."""
    kind, idx = feat
    if kind == "K":
        return KIND_CODE[kind], idx[0], idx[1]
    return KIND_CODE[kind], idx, -1


def feature_of(kind, i, j):
    """The kernels' three ints as a feature tuple (None for none)."""
    if kind == 1:
        return "K", (int(i), int(j))
    if kind < 0:
        return None
    return ("P", "K", "F")[kind], int(i)


def ball_piece_measure(c, piece, prev):
    """:func:`ball_piece_closest` and the pair's Geometry (the ball on side 0)."""
    V, T, E, two, pl, N, M, H = piece.kernel_data()
    f, g = _ball_measure(c, V, T, two, pl, N, NO_FEATURE if prev is None else _code(prev))
    return feature_of(f[0], f[1], f[2]), Geometry(*g)


def code_of(feat):
    """A feature tuple (or None) as the kernels' three ints."""
    return NO_FEATURE if feat is None else _code(feat)


def ball_piece_closest(c, piece, prev):
    """3.3's BF / BK / BP for a ball centre c against a convex piece; ``prev``
    (the last feature, or None) is kept within the tie of the best."""
    return ball_piece_measure(c, piece, prev)[0]


def piece_piece_measure(A, B, prev):
    """:func:`piece_piece_closest`'s features of A and B, whether the sorted
    pair puts B's feature on side 0, the pair's Geometry, and whether the
    pieces intrude (3.3: a vertex inside a hull, deeper than INTRUSION_DEPTH; a
    vertex behind a two-sided triangle is measured, signed, as IVP's walk
    does on the triangle's back)."""
    VA, TA, EA, twoA, plA, NA, MA, HA = A.kernel_data()
    VB, TB, EB, twoB, plB, NB, MB, HB = B.kernel_data()
    d, f, swapped, (gap_ok, gap, n_ok, n, p, t0, broken) = _pieces_measure(
        VA, TA, EA, twoA, plA, NA, A.center, VB, TB, EB, twoB, plB, NB, MB, HB, B.center, _prev_code(prev))
    face_piece = A if f[0] == 2 else B
    return (feature_of(f[0], f[1], f[2]), feature_of(f[3], f[4], f[5]), swapped,
            Geometry(gap if gap_ok else None, n if n_ok else None, p, t0, broken),
            d < -INTRUSION_DEPTH and not face_piece.two_sided)


def _prev_code(prev):
    return NO_FEATURE + NO_FEATURE if prev is None else _code(prev[0]) + _code(prev[1])


def piece_piece_closest(A, B, prev):
    """3.3 for two convex pieces: the nearest of A's vertices against B's faces,
    B's vertices against A's faces and interior edge-edge pairs (a vertex
    behind a face it projects on counts negative; edge pairs are unsigned). The previous pair
    (``prev``: (fa, fb) in A/B terms) is kept unless another is strictly better.

    Returns (feature of A, feature of B, distance)."""
    VA, TA, EA, twoA, plA, NA, MA, HA = A.kernel_data()
    VB, TB, EB, twoB, plB, NB, MB, HB = B.kernel_data()
    d, f = _pieces_closest(VA, TA, EA, twoA, plA, NA, A.center, VB, TB, EB, twoB, plB, NB, MB, HB, B.center,
                           _prev_code(prev))
    return feature_of(f[0], f[1], f[2]), feature_of(f[3], f[4], f[5]), d
