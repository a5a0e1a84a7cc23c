"""Closest features of two convex pieces (ivp-contacts 3.3) and the geometry
of one feature pair (5.3), in plain floats.

A feature is ``(kind, index)`` of a piece: ``("P", i)`` vertex i, ``("K", (i, j))``
the edge i-j (i < j), ``("F", f)`` triangle f of the piece (for a two-sided
triangle piece f = 0 is the front, f = 1 the back), ``("B", 0)`` a ball.
A feature pair is sorted (3.1): the lower dimension first (B, P before K
before F); for ball pairs the ball is side 0.

:func:`pair_geometry` is the one place that turns two features in world
coordinates into the gap, the normal n (side 0 -> side 1), the point on
side 0 and the first tangent; the mindist measurement (3.3), the event
search (3.5) and the contact point update (5.3) all use it.
"""

from __future__ import annotations

import math

TIE_FACTOR = 1.0 + 1e-12        # a candidate must be better by this factor (3.3 FF reduction)
TIE_ABS = 1e-12                 # and by this much (metres), so a resting corner keeps its feature
LINE_PARALLEL = 1e-24           # |K x L|^2 below this: parallel edges (5.3)
DEGENERATE = 1e-10

KIND_RANK = {"B": 0, "P": 0, "K": 1, "F": 2}


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _unit(v):
    d = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if d <= DEGENERATE:
        return None
    return (v[0] / d, v[1] / d, v[2] / d)


def triangle_region(p, a, b, c):
    """Where p projects on triangle (a, b, c): ("F", None), ("K", edge) with the
    edge as a vertex-index pair of the triangle, or ("P", vertex index), and the
    closest point (Voronoi regions of the triangle)."""
    ab = _sub(b, a)
    ac = _sub(c, a)
    ap = _sub(p, a)
    d1 = _dot(ab, ap)
    d2 = _dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return "P", 0, a
    bp = _sub(p, b)
    d3 = _dot(ab, bp)
    d4 = _dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return "P", 1, b
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3)
        return "K", (0, 1), (a[0] + ab[0] * v, a[1] + ab[1] * v, a[2] + ab[2] * v)
    cp = _sub(p, c)
    d5 = _dot(ab, cp)
    d6 = _dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return "P", 2, c
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6)
        return "K", (0, 2), (a[0] + ac[0] * w, a[1] + ac[1] * w, a[2] + ac[2] * w)
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return "K", (1, 2), (b[0] + (c[0] - b[0]) * w, b[1] + (c[1] - b[1]) * w, b[2] + (c[2] - b[2]) * w)
    den = va + vb + vc
    if den == 0.0:
        return "P", 0, a
    v = vb / den
    w = vc / den
    return "F", None, (a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w, a[2] + ab[2] * v + ac[2] * w)


def projects_inside(q, a, b, c, n) -> bool:
    """5.3's validity test of a point over face F: its projection lies inside."""
    for p0, p1 in ((a, b), (b, c), (c, a)):
        if _dot(_cross(_sub(p1, p0), _sub(q, p0)), n) < 0.0:
            return False
    return True


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
    n = _unit(_cross(_sub(V[j], V[i]), _sub(V[k], V[i])))
    return V[i], V[j], V[k], n


def feature_points(piece, feat):
    """World data of a polygon feature: a point (P), an edge (K) or a face (F)."""
    kind, idx = feat
    if kind == "P":
        return piece.verts[idx]
    if kind == "K":
        return piece.verts[idx[0]], piece.verts[idx[1]]
    return face_data(piece, idx)


def pair_geometry(kind0, d0, kind1, d1, check: bool) -> Geometry:
    """5.3 for the feature pair (side 0 data d0, side 1 data d1); ``check``:
    the validity test (the point still projects into F, onto K; KK interior)."""
    if kind1 == "F":
        a, b, c, g = d1
        q0 = d0
        gap = _dot(g, _sub(q0, a))
        broken = check and not projects_inside(q0, a, b, c, g)
        return Geometry(gap, (-g[0], -g[1], -g[2]), q0, _sub(b, a), broken)
    if kind0 != "K" and kind1 == "K":
        k0, k1 = d1
        q0 = d0
        e = _sub(k1, k0)
        w = _sub(q0, k0)
        cc = _cross(e, w)
        e2 = _dot(e, e)
        c2 = _dot(cc, cc)
        gap = math.sqrt(c2 / e2) if e2 > 0.0 else math.sqrt(_dot(w, w))
        if e2 <= 0.0 or c2 / e2 <= 1e-10:
            t0 = (1.0, 0.0, 0.0)
        else:
            t0 = _unit(cc)
        n = _unit(_cross(e, t0)) or (0.0, 1.0, 0.0)
        broken = False
        if check and e2 > 0.0:
            s = _dot(e, w) / e2
            broken = s < 0.0 or s > 1.0
        return Geometry(gap, n, q0, t0, broken)
    if kind0 != "K":
        q0 = d0
        d = _sub(d1, q0)
        gap = math.sqrt(_dot(d, d))
        n = _unit(d) or (0.0, 1.0, 0.0)
        t0 = _cross(n, (1.0, 0.0, 0.0)) if n[0] * n[0] < 0.9 else _cross(n, (0.0, 0.0, 1.0))
        return Geometry(gap, n, q0, t0, False)
    (k0, k1), (l0, l1) = d0, d1
    ek = _sub(k1, k0)
    el = _sub(l1, l0)
    cr = _cross(ek, el)
    a = _dot(ek, ek)
    e = _dot(el, el)
    bb = _dot(ek, el)
    den = a * e - bb * bb                       # |K x L|^2
    if den <= LINE_PARALLEL * a * e or a == 0.0 or e == 0.0:
        return Geometry(None, (1.0, 0.0, 0.0), k0, (0.0, 1.0, 0.0), True)
    r = _sub(k0, l0)
    c = _dot(ek, r)
    f = _dot(el, r)
    sk = (bb * f - c * e) / den
    sl = (a * f - bb * c) / den
    pk = (k0[0] + ek[0] * sk, k0[1] + ek[1] * sk, k0[2] + ek[2] * sk)
    pl = (l0[0] + el[0] * sl, l0[1] + el[1] * sl, l0[2] + el[2] * sl)
    d = _sub(pl, pk)
    gap = math.sqrt(_dot(d, d))
    n = _unit(d) if gap > DEGENERATE else _unit(cr)
    broken = check and not (0.0 <= sk <= 1.0 and 0.0 <= sl <= 1.0)
    return Geometry(gap, n, pk, ek, broken)


# --- the closest-feature search (3.3) -------------------------------------------------------

def _vertex_triangle(v, piece, f, signed_side):
    """The features of vertex v against face f: (distance, feature of the piece, kind)."""
    a, b, c, n = face_data(piece, f)
    kind, idx, q = triangle_region(v, a, b, c)
    if kind == "F":
        return _dot(n, _sub(v, a)) if signed_side else abs(_dot(n, _sub(v, a))), ("F", f)
    d = _sub(v, q)
    dist = math.sqrt(_dot(d, d))
    if kind == "K":
        tri = _tri_indices(piece, f)
        i, j = tri[idx[0]], tri[idx[1]]
        return dist, ("K", (min(i, j), max(i, j)))
    return dist, ("P", _tri_indices(piece, f)[idx])


def _tri_indices(piece, f):
    if piece.two_sided:
        return (0, 1, 2) if f == 0 else (0, 2, 1)
    return piece.tris[f]


def _faces_towards(piece, point):
    """The faces of a piece that may be nearest to things around ``point``: a
    two-sided triangle shows the side the point is on, a hull all faces."""
    if piece.two_sided:
        p = piece.planes[0]
        return (0,) if p[0] * point[0] + p[1] * point[1] + p[2] * point[2] - p[3] >= 0.0 else (1,)
    return range(len(piece.tris))


def ball_piece_closest(c, piece, prev):
    """3.3's BF / BK / BP for a ball centre c against a convex piece (the ball
    on side 0); a centre behind a two-sided triangle sees the back face, a
    centre inside a hull its least penetrated face."""
    best = None
    best_d = math.inf
    inside = not piece.two_sided
    for f in _faces_towards(piece, c):
        a, b, cc, n = face_data(piece, f)
        h = _dot(n, _sub(c, a))
        if h > 0.0:
            inside = False
        d, feat = _vertex_triangle(c, piece, f, True)
        if feat[0] == "F" and d < 0.0 and not piece.two_sided:
            continue                     # behind this hull face: another face is nearer
        if d < best_d:
            best_d = d
            best = feat
    if inside:
        best = None
        best_h = -math.inf
        for f in range(len(piece.tris)):
            a, b, cc, n = face_data(piece, f)
            h = _dot(n, _sub(c, a))
            if h > best_h:
                best_h = h
                best = ("F", f)
    if prev is not None and prev != best and prev[1] is not None:
        keep = _prev_distance(c, piece, prev)
        if keep is not None and keep <= best_d * TIE_FACTOR + TIE_ABS:
            best = prev
    return best


def _prev_distance(c, piece, feat):
    kind, idx = feat
    if kind == "F":
        a, b, cc, n = face_data(piece, idx)
        if not projects_inside(c, a, b, cc, n):
            return None
        return _dot(n, _sub(c, a))
    if kind == "K":
        g = pair_geometry("B", c, "K", feature_points(piece, feat), True)
        return None if g.broken else g.gap
    v = piece.verts[idx]
    d = _sub(c, v)
    return math.sqrt(_dot(d, d))


def piece_piece_closest(A, B, prev):
    """3.3 for two convex pieces: the nearest of A's vertices against B's faces,
    B's vertices against A's faces and interior edge-edge pairs (a vertex
    behind a face it projects on counts negative; edge pairs are unsigned). The previous pair
    (``prev``: (fa, fb) in A/B terms) is kept unless another is strictly better.

    Returns (feature of A, feature of B, distance)."""
    cands = []
    fb_faces = _faces_towards(B, A.center)
    fa_faces = _faces_towards(A, B.center)
    for i, v in enumerate(A.verts):
        d, feat = _nearest_on(v, B, fb_faces)
        cands.append((d, ("P", i), feat))
    for j, v in enumerate(B.verts):
        d, feat = _nearest_on(v, A, fa_faces)
        cands.append((d, feat, ("P", j)))
    VA = A.verts
    VB = B.verts
    for ea in A.edges:
        for eb in B.edges:
            g = pair_geometry("K", (VA[ea[0]], VA[ea[1]]), "K", (VB[eb[0]], VB[eb[1]]), True)
            if g.gap is None or g.broken or not _separates(g, VA, VB):
                continue
            cands.append((g.gap, ("K", _edge(ea)), ("K", _edge(eb))))
    best = None
    for cand in cands:
        if best is None or cand[0] * TIE_FACTOR + TIE_ABS < best[0] or (
                cand[0] < best[0] and cand[0] < 0.0):
            best = cand
    if prev is not None:
        for cand in cands:
            if (cand[1], cand[2]) == prev and cand[0] <= best[0] * TIE_FACTOR + TIE_ABS:
                best = cand
                break
    return best[1], best[2], best[0]


SEPARATION_TOL = 1e-9          # metres: a KK normal may graze the pieces by this much


def _separates(g, VA, VB) -> bool:
    """An edge pair is a closest pair of two convex pieces only if its normal
    (A's edge -> B's edge) separates them: A behind the plane through A's
    point, B in front of the one through B's (crossed edges of overlapping
    pieces fail; the vertex candidates measure that penetration)."""
    n = g.n
    ha = _dot(n, g.p) + SEPARATION_TOL
    for v in VA:
        if _dot(n, v) > ha:
            return False
    hb = ha + g.gap - 2.0 * SEPARATION_TOL
    for v in VB:
        if _dot(n, v) < hb:
            return False
    return True


def _edge(e):
    return (min(e), max(e))


def _nearest_on(v, piece, faces):
    """A vertex against a piece: the least signed distance over its faces whose
    region holds the projection (negative when behind every face of a hull)."""
    best_d = math.inf
    best = None
    behind = -math.inf
    behind_f = None
    for f in faces:
        a, b, c, n = face_data(piece, f)
        h = _dot(n, _sub(v, a))
        if h > behind:
            behind = h
            behind_f = f
        d, feat = _vertex_triangle(v, piece, f, True)
        if feat[0] == "F" and d < 0.0 and not piece.two_sided:
            continue
        if d < best_d:
            best_d = d
            best = feat
    if not piece.two_sided and behind < 0.0:
        return behind, ("F", behind_f)
    return best_d, best
