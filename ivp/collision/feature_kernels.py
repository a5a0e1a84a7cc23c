"""The compiled kernels (ivp.jit) of the closest-feature search (ivp-contacts
3.3) and of the pair geometry (5.3), over a piece's arrays (:func:`kernel_arrays`:
vertices, triangles, edges, two-sidedness, face plane, face normals, edge
midpoints and half lengths) and 3-tuples of floats. Inside them a feature is
three ints ``(kind, i, j)``: kind 0 = P (vertex i), 1 = K (edge i < j), 2 = F
(face i), -1 = none. ``features`` wraps them for the rest of the engine.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from ..kmath import vcross, vdot, vsub

TIE_FACTOR = 1.0 + 1e-12        # a candidate must be better by this factor (3.3 FF reduction)
TIE_ABS = 1e-12                 # and by this much (metres), so a resting corner keeps its feature
LINE_PARALLEL = 1e-24           # |K x L|^2 below this: parallel edges (5.3)
DEGENERATE = 1e-10
SEPARATION_TOL = 1e-9           # metres: a KK normal may graze the pieces by this much
EDGE_BOUND_SLACK = 1e-9         # relative: a lower bound (face plane, edge spheres) is trusted past this


@kernel
def unit_k(v):
    """v / |v| and whether |v| exceeds DEGENERATE."""
    d = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if d <= DEGENERATE:
        return False, (0.0, 0.0, 0.0)
    return True, (v[0] / d, v[1] / d, v[2] / d)


@kernel
def vert(V, i):
    return (V[i, 0], V[i, 1], V[i, 2])


@kernel
def triangle_region_k(p, a, b, c):
    """Voronoi region of p's projection on triangle (a, b, c): (kind, e0, e1,
    closest point); kind 0 vertex e0, 1 edge e0-e1, 2 face (triangle indices 0-2)."""
    ab = vsub(b, a)
    ac = vsub(c, a)
    ap = vsub(p, a)
    d1 = vdot(ab, ap)
    d2 = vdot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return 0, 0, -1, a
    bp = vsub(p, b)
    d3 = vdot(ab, bp)
    d4 = vdot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return 0, 1, -1, b
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3)
        return 1, 0, 1, (a[0] + ab[0] * v, a[1] + ab[1] * v, a[2] + ab[2] * v)
    cp = vsub(p, c)
    d5 = vdot(ab, cp)
    d6 = vdot(ac, cp)
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


@kernel
def projects_inside(q, a, b, c, n) -> bool:
    """5.3's validity test of a point over face F: its projection lies inside."""
    if vdot(vcross(vsub(b, a), vsub(q, a)), n) < 0.0:
        return False
    if vdot(vcross(vsub(c, b), vsub(q, b)), n) < 0.0:
        return False
    return not vdot(vcross(vsub(a, c), vsub(q, c)), n) < 0.0


@kernel
def _point_line(q, k0, k1):
    """5.3's point-edge distance and whether q projects outside the edge."""
    e = vsub(k1, k0)
    w = vsub(q, k0)
    cc = vcross(e, w)
    e2 = vdot(e, e)
    c2 = vdot(cc, cc)
    gap = math.sqrt(c2 / e2) if e2 > 0.0 else math.sqrt(vdot(w, w))
    broken = False
    if e2 > 0.0:
        s = vdot(e, w) / e2
        broken = s < 0.0 or s > 1.0
    return gap, broken


@kernel
def edge_edge(k0, k1, l0, l1):
    """5.3's edge-edge measure: (not parallel, gap, n known, n, point on K, sk, sl)."""
    ek = vsub(k1, k0)
    el = vsub(l1, l0)
    cr = vcross(ek, el)
    a = vdot(ek, ek)
    e = vdot(el, el)
    bb = vdot(ek, el)
    den = a * e - bb * bb                       # |K x L|^2
    if den <= LINE_PARALLEL * a * e or a == 0.0 or e == 0.0:
        return False, 0.0, False, cr, k0, 0.0, 0.0
    r = vsub(k0, l0)
    c = vdot(ek, r)
    f = vdot(el, r)
    sk = (bb * f - c * e) / den
    sl = (a * f - bb * c) / den
    pk = (k0[0] + ek[0] * sk, k0[1] + ek[1] * sk, k0[2] + ek[2] * sk)
    pl = (l0[0] + el[0] * sl, l0[1] + el[1] * sl, l0[2] + el[2] * sl)
    d = vsub(pl, pk)
    gap = math.sqrt(vdot(d, d))
    if gap > DEGENERATE:
        ok, n = unit_k(d)
    else:
        ok, n = unit_k(cr)
    return True, gap, ok, n, pk, sk, sl


@kernel
def point_face(q, a, b, c, g, check):
    """5.3 point (side 0) against face (a, b, c) with outward normal g:
    (gap, n, p, t0, broken)."""
    gap = vdot(g, vsub(q, a))
    broken = check and not projects_inside(q, a, b, c, g)
    return gap, (-g[0], -g[1], -g[2]), q, vsub(b, a), broken


@kernel
def point_edge(q, k0, k1, check):
    """5.3 point (side 0) against edge k0-k1: (gap, n, p, t0, broken)."""
    gap, outside = _point_line(q, k0, k1)
    e = vsub(k1, k0)
    cc = vcross(e, vsub(q, k0))
    e2 = vdot(e, e)
    if e2 <= 0.0 or vdot(cc, cc) / e2 <= 1e-10:
        t0 = (1.0, 0.0, 0.0)
    else:
        ok, t0 = unit_k(cc)
    ok, n = unit_k(vcross(e, t0))
    if not ok:
        n = (0.0, 1.0, 0.0)
    return gap, n, q, t0, check and outside


@kernel
def point_point(q, r):
    """5.3 point (side 0) against point r: (gap, n, p, t0, False)."""
    d = vsub(r, q)
    gap = math.sqrt(vdot(d, d))
    ok, n = unit_k(d)
    if not ok:
        n = (0.0, 1.0, 0.0)
    t0 = vcross(n, (1.0, 0.0, 0.0)) if n[0] * n[0] < 0.9 else vcross(n, (0.0, 0.0, 1.0))
    return gap, n, q, t0, False


@kernel
def normals(V, T, two, pl):
    """The outward unit normals of a piece's faces (face_data's n), once per
    search; a hull's rows also hold each face's centroid and the radius about
    it of a sphere holding the face (columns 3-5 and 6: nearest_on's bound)."""
    if two:
        N = np.empty((2, 3))
        for k in range(3):
            N[0, k] = pl[k]
            N[1, k] = -pl[k]
        return N
    N = np.empty((T.shape[0], 7))
    for f in range(T.shape[0]):
        a = vert(V, T[f, 0])
        b = vert(V, T[f, 1])
        c = vert(V, T[f, 2])
        ok, n = unit_k(vcross(vsub(b, a), vsub(c, a)))
        N[f, 0] = n[0]
        N[f, 1] = n[1]
        N[f, 2] = n[2]
        m = ((a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0, (a[2] + b[2] + c[2]) / 3.0)
        N[f, 3] = m[0]
        N[f, 4] = m[1]
        N[f, 5] = m[2]
        r2 = max(vdot(vsub(a, m), vsub(a, m)), vdot(vsub(b, m), vsub(b, m)), vdot(vsub(c, m), vsub(c, m)))
        N[f, 6] = math.sqrt(r2) * (1.0 + 1e-12)
    return N


@kernel
def face_k(V, T, two, N, f):
    """face_data in kernel form: a, b, c, outward unit normal and the piece's
    vertex indices of a, b, c."""
    if two:
        return triangle_side(vert(V, 0), vert(V, 1), vert(V, 2), (N[0, 0], N[0, 1], N[0, 2]), f)
    i = T[f, 0]
    j = T[f, 1]
    k = T[f, 2]
    return vert(V, i), vert(V, j), vert(V, k), (N[f, 0], N[f, 1], N[f, 2]), i, j, k


@kernel
def triangle_side(v0, v1, v2, n0, f):
    """face_k of a two-sided triangle (v0, v1, v2) with front normal n0: side
    f's corners, outward normal and vertex indices (the back: reversed, -n0)."""
    if f == 0:
        return v0, v1, v2, n0, 0, 1, 2
    return v0, v2, v1, (-n0[0], -n0[1], -n0[2]), 0, 2, 1


@kernel
def face_range(two, pl, point):
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
    kind, e0, e1, q = triangle_region_k(v, a, b, c)
    if kind == 2:
        return vdot(n, vsub(v, a)), 2, f, -1
    d = vsub(v, q)
    dist = math.sqrt(vdot(d, d))
    tri = (ia, ib, ic)
    if kind == 1:
        i = tri[e0]
        j = tri[e1]
        return dist, 1, min(i, j), max(i, j)
    return dist, 0, tri[e0], -1


@kernel
def nearest_on(v, V, T, two, N, side):
    """A vertex against a piece: the least signed distance over its faces whose
    region holds the projection (negative when behind every face of a hull),
    and the feature of the first face reaching it (a two-sided triangle: its
    shown side ``side``)."""
    if two:
        a, b, c, n, ia, ib, ic = face_k(V, T, True, N, side)
        d, k, i, j = _vertex_triangle(v, a, b, c, n, ia, ib, ic, side)
        if d < math.inf:
            return d, k, i, j
        return math.inf, -1, -1, -1
    return _nearest_on_hull(v, V, T, N)


@kernel
def _nearest_on_hull(v, V, T, N):
    """nearest_on for a hull. Its planes are walked first: a vertex below
    every one is inside, else the distance to the face of the highest plane
    bounds the least one, and a face whose plane or bounding sphere
    (normals' columns 3-6) is farther than the bound or the best so far is
    skipped: it cannot reach the least distance, so the result is the one of
    a walk over every face."""
    behind = -math.inf
    behind_f = -1
    for f in range(T.shape[0]):
        h = vdot((N[f, 0], N[f, 1], N[f, 2]), vsub(v, vert(V, T[f, 0])))
        if h > behind:
            behind = h
            behind_f = f
    if behind < 0.0:
        return behind, 2, behind_f, -1
    a, b, c, n, ia, ib, ic = face_k(V, T, False, N, behind_f)
    bound = _vertex_triangle(v, a, b, c, n, ia, ib, ic, behind_f)[0]
    best_d = math.inf
    bk, bi, bj = -1, -1, -1
    for f in range(T.shape[0]):
        a, b, c, n, ia, ib, ic = face_k(V, T, False, N, f)
        h = vdot(n, vsub(v, a))
        lim = bound if bound < best_d else best_d
        if abs(h) > lim + EDGE_BOUND_SLACK * (1.0 + abs(h)):
            continue                     # the plane is farther than the best: so is the face
        e = (v[0] - N[f, 3], v[1] - N[f, 4], v[2] - N[f, 5])
        lower = math.sqrt(vdot(e, e)) - N[f, 6]
        if lower > lim + EDGE_BOUND_SLACK * (1.0 + abs(lower)):
            continue                     # so is its bounding sphere
        d, k, i, j = _vertex_triangle(v, a, b, c, n, ia, ib, ic, f)
        if k == 2 and d < 0.0:
            continue
        if d < best_d:
            best_d = d
            bk, bi, bj = k, i, j
    return best_d, bk, bi, bj


@kernel
def _feature_distance(c, kind, a, b, cc, n):
    """The ball centre's distance to a feature (face a, b, cc with normal n;
    edge a-b; vertex a), and whether the feature holds the centre's projection."""
    if kind == 2:
        if not projects_inside(c, a, b, cc, n):
            return False, 0.0
        return True, vdot(n, vsub(c, a))
    if kind == 1:
        gap, outside = _point_line(c, a, b)
        return not outside, gap
    d = vsub(c, a)
    return True, math.sqrt(vdot(d, d))


@kernel
def _feature_geometry(c, kind, a, b, cc, n):
    """5.3's geometry of the ball centre against a feature given as in
    :func:`_feature_distance`: (gap, n, p, t0, broken)."""
    if kind == 2:
        return point_face(c, a, b, cc, n, False)
    if kind == 1:
        return point_edge(c, a, b, False)
    return point_point(c, a)


@kernel
def _hull_feature(V, T, N, kind, i, j):
    """A hull's feature (kind, i, j) as _feature_distance's points."""
    if kind == 2:
        a, b, cc, n, ia, ib, ic = face_k(V, T, False, N, i)
        return a, b, cc, n
    a = vert(V, i)
    return a, vert(V, j) if kind == 1 else a, a, a


@kernel
def _corner(v0, v1, v2, i):
    """A triangle's vertex i (-1, no feature: the last, as an array's V[-1])."""
    if i == 0:
        return v0
    return v1 if i == 1 else v2


@kernel
def triangle_feature(v0, v1, v2, n0, kind, i, j):
    """A two-sided triangle's feature (kind, i, j) as _feature_distance's points."""
    if kind == 2:
        a, b, cc, n, ia, ib, ic = triangle_side(v0, v1, v2, n0, i)
        return a, b, cc, n
    a = _corner(v0, v1, v2, i)
    return a, _corner(v0, v1, v2, j) if kind == 1 else a, a, a


@kernel
def _kept(c, best, kind, i, j, feature):
    """3.3's tie: the previous feature (kind, i, j; ``feature``: its points) is
    kept when it still holds the centre's projection within the tie of the best."""
    if kind >= 0 and (kind, i, j) != (best[1], best[2], best[3]):
        a, b, cc, n = feature
        ok, keep = _feature_distance(c, kind, a, b, cc, n)
        if ok and keep <= best[0] * TIE_FACTOR + TIE_ABS:
            return kind, i, j
    return best[1], best[2], best[3]


@kernel
def _ball_closest_hull(c, V, T, N, prev):
    """3.3's BF / BK / BP for a ball centre c against a hull (the ball on
    side 0); a centre inside it sees its least penetrated face."""
    best_d = math.inf
    bk, bi, bj = -1, -1, -1
    inside = True
    for f in range(T.shape[0]):
        a, b, cc, n, ia, ib, ic = face_k(V, T, False, N, f)
        if vdot(n, vsub(c, a)) > 0.0:
            inside = False
        d, k, i, j = _vertex_triangle(c, a, b, cc, n, ia, ib, ic, f)
        if k == 2 and d < 0.0:
            continue                     # behind this hull face: another face is nearer
        if d < best_d:
            best_d = d
            bk, bi, bj = k, i, j
    if inside:
        best_h = -math.inf
        for f in range(T.shape[0]):
            a, b, cc, n, ia, ib, ic = face_k(V, T, False, N, f)
            h = vdot(n, vsub(c, a))
            if h > best_h:
                best_h = h
                bk, bi, bj = 2, f, -1
    return _kept(c, (best_d, bk, bi, bj), prev[0], prev[1], prev[2],
                 _hull_feature(V, T, N, prev[0], prev[1], prev[2]))


@kernel
def ball_triangle_measure(c, v0, v1, v2, pl, prev):
    """3.3 and 5.3 for a ball centre c and a two-sided triangle (v0, v1, v2)
    with plane pl, all in floats: the centre sees the side it is on; the
    closest feature (kind, i, j) and its geometry (gap, n, p, t0, broken)."""
    n0 = (pl[0], pl[1], pl[2])
    side = 0 if pl[0] * c[0] + pl[1] * c[1] + pl[2] * c[2] - pl[3] >= 0.0 else 1    # face_range
    a, b, cc, n, ia, ib, ic = triangle_side(v0, v1, v2, n0, side)
    d, k, i, j = _vertex_triangle(c, a, b, cc, n, ia, ib, ic, side)
    best = (d, k, i, j) if d < math.inf else (math.inf, -1, -1, -1)
    kind, i, j = _kept(c, best, prev[0], prev[1], prev[2],
                       triangle_feature(v0, v1, v2, n0, prev[0], prev[1], prev[2]))
    a, b, cc, n = triangle_feature(v0, v1, v2, n0, kind, i, j)
    return (kind, i, j), _feature_geometry(c, kind, a, b, cc, n)


@kernel
def ball_measure(c, V, T, two, pl, N, prev):
    """3.3 for a ball centre c and a piece in one pass: the closest feature
    (kind, i, j) and its 5.3 geometry (gap, n, p, t0, broken)."""
    if two:
        return ball_triangle_measure(c, vert(V, 0), vert(V, 1), vert(V, 2), (pl[0], pl[1], pl[2], pl[3]), prev)
    kind, i, j = _ball_closest_hull(c, V, T, N, prev)
    a, b, cc, n = _hull_feature(V, T, N, kind, i, j)
    return (kind, i, j), _feature_geometry(c, kind, a, b, cc, n)


@kernel
def ball_triangles_measure(C, tris, prev, GV, GPL):
    """ball_triangle_measure for many ball centres C (k, 3) against two-sided
    triangles ``tris`` of a grid (GV: vertices, GPL: planes, per triangle),
    with their previous features ``prev`` (k, 3): features (k, 3) and
    geometry rows (gap, n, p, t0)."""
    k = tris.shape[0]
    F = np.empty((k, 3), dtype=np.int64)
    G = np.empty((k, 10))
    for q in range(k):
        t = tris[q]
        f, g = ball_triangle_measure(vert(C, q), (GV[t, 0, 0], GV[t, 0, 1], GV[t, 0, 2]),
                                     (GV[t, 1, 0], GV[t, 1, 1], GV[t, 1, 2]), (GV[t, 2, 0], GV[t, 2, 1], GV[t, 2, 2]),
                                     (GPL[t, 0], GPL[t, 1], GPL[t, 2], GPL[t, 3]), (prev[q, 0], prev[q, 1], prev[q, 2]))
        gap, n, p, t0, broken = g
        for j in range(3):
            F[q, j] = f[j]
            G[q, 1 + j] = n[j]
            G[q, 4 + j] = p[j]
            G[q, 7 + j] = t0[j]
        G[q, 0] = gap
    return F, G


@kernel
def balls_measure(C0, C1):
    """point_point (5.3) of ball centres C0[q] (side 0) and C1[q]: the
    geometry rows (gap, n, p, t0) of ball-ball pairs."""
    k = C0.shape[0]
    G = np.empty((k, 10))
    for q in range(k):
        gap, n, p, t0, broken = point_point(vert(C0, q), vert(C1, q))
        G[q, 0] = gap
        for j in range(3):
            G[q, 1 + j] = n[j]
            G[q, 4 + j] = p[j]
            G[q, 7 + j] = t0[j]
    return G


@kernel
def triangle_planes(GV):
    """Each triangle's (n, n.a) as triangle_piece makes it (umath's order:
    n = (b - a) x (c - a) scaled by 1 / |n|), and its front and back normals."""
    k = GV.shape[0]
    PL = np.empty((k, 4))
    GN = np.empty((k, 2, 3))
    for t in range(k):
        a = vert(GV[t], 0)
        n = vcross(vsub(vert(GV[t], 1), a), vsub(vert(GV[t], 2), a))
        s = 1.0 / math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
        n = (n[0] * s, n[1] * s, n[2] * s)
        for j in range(3):
            PL[t, j] = n[j]
            GN[t, 0, j] = n[j]
            GN[t, 1, j] = -n[j]
        PL[t, 3] = vdot(n, a)
    return PL, GN
