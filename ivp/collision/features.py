"""Closest features of two convex pieces (ivp-contacts 3.3) and the geometry
of one feature pair (5.3).

A feature is ``(kind, index)``: ``("P", i)`` vertex i, ``("K", (i, j))`` the
edge i-j (i < j), ``("F", f)`` triangle f (of a two-sided triangle piece,
0 the front, 1 the back), ``("B", 0)`` a ball. A pair is sorted (3.1): the
lower dimension first; of a ball pair the ball is side 0.
:func:`pair_geometry` turns two world features into the gap, the normal
(side 0 -> 1), the point on side 0 and the first tangent, for 3.3, 3.5 and
5.3 alike. The searches run as compiled kernels (``feature_kernels``) over
``Piece.kernel_data``; this module turns their codes back into tuples."""

from __future__ import annotations

import math

from ..umath import cross, dot, sub
from .constants import REAL_COLL_DIST
from .feature_kernels import ball_measure, edge_edge, point_edge, point_face, point_point, unit_k
from .piece_kernels import pieces_closest, pieces_measure

INTRUSION_DEPTH = REAL_COLL_DIST    # a vertex or ball centre deeper in a hull is INTRUSION; touching
                                    # bodies measure -1e-17 and are not (the port's reading of 3.3's walk)
# A vertex this far behind a two-sided triangle (on the far side from its piece's
# centre) straddles the triangle: a body placed through a thin floor or wall, which
# impacts cannot push out (each would run the impact system to its 5000-push limit,
# PSI after PSI). The port's bound: a predicted impact leaves millimetres, and a
# shallower bound lets a body tipped over a seam fall through (benchmarks/fuzz_contacts.py).
BEHIND_TRIANGLE_DEPTH = 0.1
KIND_CODE = {"P": 0, "K": 1, "F": 2}
NO_FEATURE = (-1, -1, -1)


def _unit(v):
    ok, n = unit_k(v)
    return n if ok else None


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
        return Geometry(*point_face(d0, a, b, c, g, check))
    if kind0 != "K" and kind1 == "K":
        return Geometry(*point_edge(d0, d1[0], d1[1], check))
    if kind0 != "K":
        return Geometry(*point_point(d0, d1))
    (k0, k1), (l0, l1) = d0, d1
    ok, gap, n_ok, n, pk, sk, sl = edge_edge(k0, k1, l0, l1)
    if not ok:
        return Geometry(None, (1.0, 0.0, 0.0), k0, (0.0, 1.0, 0.0), True)
    broken = check and not (0.0 <= sk <= 1.0 and 0.0 <= sl <= 1.0)
    return Geometry(gap, n if n_ok else None, pk, sub(k1, k0), broken)


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
    """3.3's BF / BK / BP for a ball centre c against a convex piece (``prev``,
    the last feature or None, is kept within the tie of the best) and the
    pair's Geometry (the ball on side 0)."""
    V, T, E, two, pl, N, M, H = piece.kernel_data()
    f, g = ball_measure(c, V, T, two, pl, N, NO_FEATURE if prev is None else _code(prev))
    return feature_of(f[0], f[1], f[2]), Geometry(*g)


def code_of(feat):
    """A feature tuple (or None) as the kernels' three ints."""
    return NO_FEATURE if feat is None else _code(feat)


def piece_piece_measure(A, B, prev):
    """:func:`piece_piece_closest`'s features of A and B, whether the sorted
    pair puts B's feature on side 0, the pair's Geometry, and whether the
    pieces intrude (3.3: a vertex inside a hull, deeper than INTRUSION_DEPTH; a
    vertex behind a two-sided triangle is measured, signed, as IVP's walk
    does on the triangle's back, and intrudes deeper than BEHIND_TRIANGLE_DEPTH)."""
    VA, TA, EA, twoA, plA, NA, _, _ = A.kernel_data()
    VB, TB, EB, twoB, plB, NB, MB, HB = B.kernel_data()
    d, f, swapped, (gap_ok, gap, n_ok, n, p, t0, broken) = pieces_measure(
        VA, TA, EA, twoA, plA, NA, A.center, VB, TB, EB, twoB, plB, NB, MB, HB, B.center, prev_codes(prev))
    face_piece = A if f[0] == 2 else B
    intrusion = d < (-BEHIND_TRIANGLE_DEPTH if face_piece.two_sided else -INTRUSION_DEPTH)
    return (feature_of(f[0], f[1], f[2]), feature_of(f[3], f[4], f[5]), swapped,
            Geometry(gap if gap_ok else None, n if n_ok else None, p, t0, broken), intrusion)


def prev_codes(prev):
    """A piece pair's previous features (fa, fb), or None, as the kernels' six ints."""
    return NO_FEATURE + NO_FEATURE if prev is None else _code(prev[0]) + _code(prev[1])


def piece_piece_closest(A, B, prev):
    """3.3 for two convex pieces: the nearest of A's vertices against B's faces,
    B's vertices against A's faces and interior edge-edge pairs (a vertex
    behind a face it projects on counts negative; edge pairs are unsigned). The previous pair
    (``prev``: (fa, fb) in A/B terms) is kept unless another is strictly better.

    Returns (feature of A, feature of B, distance)."""
    VA, TA, EA, twoA, plA, NA, _, _ = A.kernel_data()
    VB, TB, EB, twoB, plB, NB, MB, HB = B.kernel_data()
    d, f = pieces_closest(VA, TA, EA, twoA, plA, NA, A.center, VB, TB, EB, twoB, plB, NB, MB, HB, B.center,
                           prev_codes(prev))
    return feature_of(f[0], f[1], f[2]), feature_of(f[3], f[4], f[5]), d


def world_feature(side, m):
    """The side's feature in world coordinates for its core pose m."""
    shape = side.shape
    if shape.is_ball:
        return m[1]
    return feature_points(shape.piece_world(side.piece_key, m), side.feature)
