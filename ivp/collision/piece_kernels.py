"""The compiled kernels of the closest-feature search between two convex
pieces (ivp-contacts 3.3) and of their sorted pair's geometry (5.3), with the
arrays a piece is searched by (built once per piece and pose). Features as in
``feature_kernels``.
"""

from __future__ import annotations

import math

import numpy as np

from ..jit import kernel
from ..kmath import vdot, vsub
from .feature_kernels import (
    EDGE_BOUND_SLACK,
    SEPARATION_TOL,
    TIE_ABS,
    TIE_FACTOR,
    edge_edge,
    face_k,
    face_range,
    nearest_on,
    normals,
    point_edge,
    point_face,
    point_point,
    vert,
)


@kernel
def _separates(n, p, gap, VA, VB) -> bool:
    """An edge pair is a closest pair of two convex pieces only if its normal
    (A's edge -> B's edge) separates them: A behind the plane through A's
    point, B in front of the one through B's (crossed edges of overlapping
    pieces fail; the vertex candidates measure that penetration)."""
    ha = vdot(n, p) + SEPARATION_TOL
    for i in range(VA.shape[0]):
        if vdot(n, vert(VA, i)) > ha:
            return False
    hb = ha + gap - 2.0 * SEPARATION_TOL
    for i in range(VB.shape[0]):
        if vdot(n, vert(VB, i)) < hb:
            return False
    return True


@kernel
def _inside(m, N) -> bool:
    """Whether point m is inside a hull (behind every face plane, by
    SEPARATION_TOL): N its normals rows (feature_kernels.normals: unit
    normal, face centroid)."""
    for f in range(N.shape[0]):
        if (N[f, 0] * (m[0] - N[f, 3]) + N[f, 1] * (m[1] - N[f, 4])
                + N[f, 2] * (m[2] - N[f, 5])) > SEPARATION_TOL:
            return False
    return True


@kernel
def _edge_pair_sign(n, pk, gap, VA, NA, VB, NB, flat):
    """Whether an interior edge pair (common perpendicular n from A's edge
    at pk to B's, length gap) is a closest pair of two convex pieces, and its
    signed distance (3.3; 3.5: "signed distance between the two edge
    lines"). Apart: n separates them (_separates). Crossed edges of two
    hulls that overlap only where the edges cross (no vertex of either
    inside the other, as a box sinking into a box yawed against it): the
    pair's distance is -gap along -n if the two edges are the pieces'
    supports along that axis and the midpoint of the perpendicular is
    inside both hulls (they do overlap there: edges crossed apart, as two
    bars one over the other, are no such pair); A's edge then lies gap
    deep in B along it, B's in A. A two-sided triangle (no inside) keeps
    the unsigned rule."""
    if _separates(n, pk, gap, VA, VB):
        return True, gap
    if flat:
        return False, gap
    u = (-n[0], -n[1], -n[2])
    if not _separates(u, pk, -gap, VA, VB):
        return False, gap
    h = 0.5 * gap
    m = (pk[0] + n[0] * h, pk[1] + n[1] * h, pk[2] + n[2] * h)
    if _inside(m, NA) and _inside(m, NB):
        return True, -gap
    return False, gap


@kernel
def pieces_closest(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev):
    """:func:`pieces_closest_fresh`'s distance and features."""
    d, f, _ = pieces_closest_fresh(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev)
    return d, f


@kernel
def pieces_closest_fresh(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev):
    """3.3 for two convex pieces over the candidates in order: A's vertices
    against B's faces, B's vertices against A's faces, then the interior,
    separating edge-edge pairs. A candidate replaces the best when better by
    the tie factor (or nearer and negative); the previous pair ``prev``
    (6 ints: A's feature, B's) is kept at its first candidate within the tie
    of the best. Two hulls that overlap with no vertex inside the other
    (only their edges cross) are measured by their crossed edge pairs
    (_edge_pair_sign), the least overlap of them, negative: the distance
    goes through 0 as they start to overlap, where the vertices alone would
    jump to the nearest vertex outside (a box sinking into a box yawed
    against it). Returns (distance, A's and B's features, the distance
    with no previous pair): the pairs measured only because they are the
    previous one cannot become the best (their bounds say so), so the walk
    with no previous pair differs only in the kept pair and in crossed
    edges the previous pair alone adds, tracked apart (``have_xn``, ``x_dn``)."""
    have = False
    best_d = 0.0
    best = (-1, -1, -1, -1, -1, -1)
    m0 = math.inf
    m1 = math.inf
    m2 = math.inf
    nm = 0
    have_x = False
    x_d = 0.0
    x_best = best
    x_prev = -math.inf
    have_xn = False
    x_dn = 0.0
    side_b = face_range(twoB, plB, cA)
    side_a = face_range(twoA, plA, cB)
    low_a = _lower_bounds(VA, VB, TB, twoB, NB, side_b, cB)
    low_b = _lower_bounds(VB, VA, TA, twoA, NA, side_a, cA)
    rB = _reach(VB, cB)
    for i in range(VA.shape[0]):
        if have and not (prev[0] == 0 and prev[1] == i) and _beyond(low_a[i], best_d):
            continue                     # this vertex cannot come nearer than the best
        d, k, fi, fj = nearest_on(vert(VA, i), VB, TB, twoB, NB, side_b)
        cand = (0, i, -1, k, fi, fj)
        if not have or d * TIE_FACTOR + TIE_ABS < best_d or (d < best_d and d < 0.0):
            have = True
            best_d = d
            best = cand
        if cand == prev:
            m0 = d
            nm = 1
    for j in range(VB.shape[0]):
        if have and not (prev[3] == 0 and prev[4] == j) and _beyond(low_b[j], best_d):
            continue
        d, k, fi, fj = nearest_on(vert(VB, j), VA, TA, twoA, NA, side_a)
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
        k0 = vert(VA, EA[ea, 0])
        k1 = vert(VA, EA[ea, 1])
        ma = ((k0[0] + k1[0]) * 0.5, (k0[1] + k1[1]) * 0.5, (k0[2] + k1[2]) * 0.5)
        dk = vsub(k1, k0)
        ha = 0.5 * math.sqrt(vdot(dk, dk))
        # every edge of B farther than the best (B lies in its sphere, or in its plane, a triangle):
        # only the previous pair is measured
        lower = _point_segment(cB, k0, k1) - rB
        if twoB:
            lower = max(lower, _off_plane(low_a[EA[ea, 0]], low_a[EA[ea, 1]]))
        a0 = min(EA[ea, 0], EA[ea, 1])
        a1 = max(EA[ea, 0], EA[ea, 1])
        prev_here = prev[0] == 1 and prev[3] == 1 and prev[1] == a0 and prev[2] == a1
        edge_far = _beyond(lower, best_d)
        if edge_far and not prev_here:
            continue
        for eb in range(EB.shape[0]):
            cand = (1, a0, a1, 1, min(EB[eb, 0], EB[eb, 1]), max(EB[eb, 0], EB[eb, 1]))
            far = ((twoA and _beyond(_off_plane(low_b[EB[eb, 0]], low_b[EB[eb, 1]]), best_d))
                   or _edges_apart(k0, k1, ma, ha, vert(VB, EB[eb, 0]), vert(VB, EB[eb, 1]),
                                   vert(MB, eb), HB[eb], best_d))
            if far and not (prev_here and cand == prev):
                continue                 # farther than the best for sure: cannot win
            far = far or edge_far        # the walk with no previous pair skips it
            ok, d, n_ok, n, pk, sk, sl = edge_edge(k0, k1, vert(VB, EB[eb, 0]), vert(VB, EB[eb, 1]))
            if not ok or not (0.0 <= sk <= 1.0 and 0.0 <= sl <= 1.0) or not n_ok:
                continue
            sep, d = _edge_pair_sign(n, pk, d, VA, NA, VB, NB, twoA or twoB)
            if not sep:
                continue
            if d < 0.0:                  # crossed edges: the least overlap of them (_edge_pair_sign)
                if not have_x or d > x_d * TIE_FACTOR + TIE_ABS:
                    have_x = True
                    x_d = d
                    x_best = cand
                if not far and (not have_xn or d > x_dn * TIE_FACTOR + TIE_ABS):
                    have_xn = True
                    x_dn = d
                if cand == prev:
                    x_prev = d
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
    fresh = x_dn if have_xn and not (have and best_d < 0.0) else best_d
    if have_x and not (have and best_d < 0.0):
        # the hulls overlap though no vertex is inside the other: the
        # crossed edges with the least overlap are the closest pair (the
        # previous pair kept within the tie)
        if x_prev * TIE_FACTOR + TIE_ABS >= x_d:
            return x_prev, prev, fresh
        return x_d, x_best, fresh
    lim = best_d * TIE_FACTOR + TIE_ABS
    if nm > 0 and m0 <= lim:
        return m0, prev, fresh
    if nm > 1 and m1 <= lim:
        return m1, prev, fresh
    if nm > 2 and m2 <= lim:
        return m2, prev, fresh
    return best_d, best, fresh


@kernel
def _pair_of_pieces(V0, T0, two0, N0, f0, V1, T1, two1, N1, f1):
    """pair_geometry (no validity check) of the sorted feature pair: f0 of the
    side-0 piece, f1 of the side-1 piece, as (gap known, gap, n known, n, p,
    t0, broken)."""
    if f1[0] == 2:
        a, b, c, n, ia, ib, ic = face_k(V1, T1, two1, N1, f1[1])
        gap, nn, p, t0, broken = point_face(vert(V0, f0[1]), a, b, c, n, False)
        return True, gap, True, nn, p, t0, broken
    if f1[0] == 1 and f0[0] != 1:
        gap, nn, p, t0, broken = point_edge(vert(V0, f0[1]), vert(V1, f1[1]), vert(V1, f1[2]), False)
        return True, gap, True, nn, p, t0, broken
    if f0[0] != 1:
        gap, nn, p, t0, broken = point_point(vert(V0, f0[1]), vert(V1, f1[1]))
        return True, gap, True, nn, p, t0, broken
    k0 = vert(V0, f0[1])
    k1 = vert(V0, f0[2])
    ok, gap, n_ok, n, pk, sk, sl = edge_edge(k0, k1, vert(V1, f1[1]), vert(V1, f1[2]))
    if not ok:
        return False, 0.0, True, (1.0, 0.0, 0.0), k0, (0.0, 1.0, 0.0), True
    if n_ok and not (two0 or two1):
        sep, d = _edge_pair_sign(n, pk, gap, V0, N0, V1, N1, False)
        if sep and d < 0.0:             # crossed edges (pieces_closest): n from side 0 into side 1
            return True, d, True, (-n[0], -n[1], -n[2]), pk, vsub(k1, k0), False
    return True, gap, n_ok, n, pk, vsub(k1, k0), False


@kernel
def pieces_measure(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev):
    """:func:`pieces_measure_fresh` less the distance with no previous pair."""
    d, f, sw, g, _ = pieces_measure_fresh(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev)
    return d, f, sw, g


@kernel
def pieces_measure_fresh(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev):
    """3.3 for two pieces and the 5.3 geometry of the pair sorted (3.1: the
    lower dimension on side 0; B's feature first when it is lower); last,
    the distance pieces_closest finds with no previous pair (where 3.5's
    search starts)."""
    d, f, fresh = pieces_closest_fresh(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB, prev)
    fa = (f[0], f[1], f[2])
    fb = (f[3], f[4], f[5])
    if fb[0] < fa[0]:
        return d, f, True, _pair_of_pieces(VB, TB, twoB, NB, fb, VA, TA, twoA, NA, fa), fresh
    return d, f, False, _pair_of_pieces(VA, TA, twoA, NA, fa, VB, TB, twoB, NB, fb), fresh


@kernel
def _dist(p, q):
    d = vsub(p, q)
    return math.sqrt(vdot(d, d))


@kernel
def _reach(V, c):
    """The radius about c of a sphere holding every vertex of V."""
    r = 0.0
    for i in range(V.shape[0]):
        r = max(r, _dist(vert(V, i), c))
    return r


@kernel
def _lower_bounds(V, W, TW, twoW, NW, side, cW):
    """For each vertex of V, a lower bound of its nearest_on distance to piece
    W: a two-sided triangle's signed height over its shown face (the value
    itself where the vertex projects on it, else a distance at least as
    large), a hull's bounding sphere distance (inside the hull, the value's
    depth is less than the sphere's)."""
    low = np.empty(V.shape[0])
    if twoW:
        a, b, c, n, ia, ib, ic = face_k(W, TW, twoW, NW, side)
        for i in range(V.shape[0]):
            low[i] = vdot(n, vsub(vert(V, i), a))
        return low
    r = _reach(W, cW)
    for i in range(V.shape[0]):
        low[i] = _dist(vert(V, i), cW) - r
    return low


@kernel
def _off_plane(h0, h1):
    """A lower bound of the distance from a segment to a triangle's edges,
    from its ends' signed heights over the triangle's plane."""
    if h0 > 0.0 and h1 > 0.0:
        return min(h0, h1)
    if h0 < 0.0 and h1 < 0.0:
        return min(-h0, -h1)
    return 0.0


@kernel
def _beyond(lower, best_d) -> bool:
    """A lower bound of a candidate's distance is surely past the best (the
    candidate could not replace it: _edges_apart's slack)."""
    return lower > best_d + EDGE_BOUND_SLACK * (1.0 + abs(best_d)) * (1.0 + abs(lower))


@kernel
def _point_segment(m, p, q):
    """The distance from point m to the segment p-q."""
    e = vsub(q, p)
    w = vsub(m, p)
    ee = vdot(e, e)
    t = 0.0 if ee <= 0.0 else min(1.0, max(0.0, vdot(w, e) / ee))
    d = (w[0] - t * e[0], w[1] - t * e[1], w[2] - t * e[2])
    return math.sqrt(vdot(d, d))


@kernel
def _edges_apart(k0, k1, mk, hk, l0, l1, ml, hl, best_d):
    """Whether segments K and L (midpoints m, half lengths h) are surely
    farther apart than best_d: their bounding spheres are, or the shorter
    one's sphere is from the other segment."""
    slack = EDGE_BOUND_SLACK * (1.0 + abs(best_d))
    dm = vsub(mk, ml)
    lower = math.sqrt(vdot(dm, dm)) - hk - hl
    if lower > best_d + slack * (1.0 + abs(lower)):
        return True
    if hl <= hk:
        lower = _point_segment(ml, k0, k1) - hl
    else:
        lower = _point_segment(mk, l0, l1) - hk
    return lower > best_d + slack * (1.0 + abs(lower))


@kernel
def edge_spheres(V, E):
    """Each edge's midpoint and half length: bounding spheres for the edge-pair bound."""
    M = np.empty((E.shape[0], 3))
    H = np.empty(E.shape[0])
    for e in range(E.shape[0]):
        p = vert(V, E[e, 0])
        q = vert(V, E[e, 1])
        for k in range(3):
            M[e, k] = (p[k] + q[k]) * 0.5
        d = vsub(q, p)
        H[e] = 0.5 * math.sqrt(vdot(d, d))
    return M, H


def kernel_arrays(verts, T, E, two, pl):
    """A piece as the searches read it: vertices (n, 3), triangles, edges,
    two-sidedness, the face plane (two-sided), face normals, edge midpoints
    and half lengths."""
    V = np.array(verts, dtype=np.float64).reshape(-1, 3)
    M, H = edge_spheres(V, E)
    return V, T, E, two, pl, normals(V, T, two, pl), M, H


@kernel
def moved_vertices(V, R, vv):
    """The vertices V in the frame m = (R, vv): R v + vv (in umath.mat_mul_point's order)."""
    W = np.empty_like(V)
    for i in range(V.shape[0]):
        x = V[i, 0]
        y = V[i, 1]
        z = V[i, 2]
        W[i, 0] = R[0] * x + R[1] * y + R[2] * z + vv[0]
        W[i, 1] = R[3] * x + R[4] * y + R[5] * z + vv[1]
        W[i, 2] = R[6] * x + R[7] * y + R[8] * z + vv[2]
    return W


@kernel
def moved_arrays(V, T, E, two, pl, R, vv):
    """A piece's kernel arrays in the frame m = (R, vv): its moved vertices,
    then normals and edge spheres of them (``pl``: the moved plane of a
    two-sided triangle)."""
    W = moved_vertices(V, R, vv)
    M, H = edge_spheres(W, E)
    return W, normals(W, T, two, pl), M, H


@kernel
def hull_triangles_measure(V, T, E, two, pl, N, M, H, c, tris, prev, tri_first, GV, GPL, GN):
    """pieces_measure of one moved piece (V ... c: its kernel arrays and
    centre) against triangles ``tris`` of a grid (as feature_kernels.
    ball_triangles_measure reads them), each as its triangle_piece is searched:
    on side A when ``tri_first`` (the mindist's first shape is the grid's),
    else on side B; ``prev`` (k, 6) the pairs' previous features in A/B terms.
    Returns the distances, features (k, 6), whether each pair is swapped, and
    geometry rows (gap known, gap, n known, n, p, t0, broken)."""
    k = tris.shape[0]
    D = np.empty(k)
    F = np.empty((k, 6), dtype=np.int64)
    S = np.empty(k, dtype=np.bool_)
    G = np.empty((k, 13))
    TT, ET = triangle_indices()
    # the triangles are two-sided (front and back normals). The constant True
    # makes numba compile pieces_measure once more for that argument (15 %
    # faster, 4 s longer to compile): for the usual order (the grid's body
    # made first); the other passes a run-time flag (the copy Python calls)
    two_t = GN.shape[1] == 2
    for q in range(k):
        VT, _, _, _, plT, NT, MT, HT, ct = grid_triangle(GV, GPL, GN, tris[q], TT, ET)
        pq = (prev[q, 0], prev[q, 1], prev[q, 2], prev[q, 3], prev[q, 4], prev[q, 5])
        if tri_first:
            d, f, sw, g = pieces_measure(VT, TT, ET, True, plT, NT, ct, V, T, E, two, pl, N, M, H, c, pq)
        else:
            d, f, sw, g = pieces_measure(V, T, E, two, pl, N, c, VT, TT, ET, two_t, plT, NT, MT, HT, ct, pq)
        put_measure(D, F, S, G, q, d, f, sw, g)
    return D, F, S, G


@kernel
def triangle_indices():
    """triangle_piece's triangle and edges as the kernels read them."""
    TT = np.zeros((1, 3), dtype=np.int64)
    TT[0, 1] = 1
    TT[0, 2] = 2
    ET = np.zeros((3, 2), dtype=np.int64)
    ET[0, 1] = 1
    ET[1, 0] = 1
    ET[1, 1] = 2
    ET[2, 0] = 2
    return TT, ET


@kernel
def grid_triangle(GV, GPL, GN, t, TT, ET):
    """Triangle t of a grid's kernel arrays (TriangleGrid.kernel_arrays) as
    its triangle_piece's kernel data (TT, ET: triangle_indices) and centre
    (Piece's: the vertices' mean, summed in their order)."""
    VT = GV[t]
    MT, HT = edge_spheres(VT, ET)
    ct = ((((0.0 + VT[0, 0]) + VT[1, 0]) + VT[2, 0]) / 3.0, (((0.0 + VT[0, 1]) + VT[1, 1]) + VT[2, 1]) / 3.0,
          (((0.0 + VT[0, 2]) + VT[1, 2]) + VT[2, 2]) / 3.0)
    return VT, TT, ET, True, GPL[t], GN[t], MT, HT, ct


@kernel
def put_measure(D, F, S, G, q, d, f, sw, g):
    """Row q of a pass's pieces_measure results: the distance, the features,
    whether swapped and the geometry row (gap known, gap, n known, n, p, t0,
    broken), as mindist.PieceBatch reads them."""
    gap_ok, gap, n_ok, n, p, t0, broken = g
    D[q] = d
    S[q] = sw
    for j in range(6):
        F[q, j] = f[j]
    G[q, 0] = 1.0 if gap_ok else 0.0
    G[q, 1] = gap
    G[q, 2] = 1.0 if n_ok else 0.0
    for j in range(3):
        G[q, 3 + j] = n[j]
        G[q, 6 + j] = p[j]
        G[q, 9 + j] = t0[j]
    G[q, 12] = 1.0 if broken else 0.0
