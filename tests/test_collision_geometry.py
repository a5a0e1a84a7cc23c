"""Closest features (ivp-contacts 3.3) and the geometry of a feature pair (5.3)."""

import math
import random

import numpy as np
import pytest

from ivp.collision.features import ball_piece_measure, feature_points, pair_geometry, piece_piece_closest
from ivp.collision.feature_kernels import _vertex_triangle, face_k, nearest_on, triangle_region_k
from ivp.collision.shapes import TriangleGrid, hull_piece, triangle_piece
from ivp.surface import convex_piece
from test_collision_scenes import box_points, grid_mesh

A = (0.0, 0.0, 0.0)
B = (2.0, 0.0, 0.0)
C = (0.0, 0.0, 2.0)


@pytest.mark.parametrize("p,q,kind,e0,e1", [
    ((0.5, 3.0, 0.5), (0.5, 0.0, 0.5), 2, None, None),     # face
    ((1.0, 1.0, -1.0), (1.0, 0.0, 0.0), 1, 0, 1),          # beyond edge AB
    ((2.0, 1.0, 2.0), (1.0, 0.0, 1.0), 1, 1, 2),           # beyond the hypotenuse BC
    ((-1.0, 0.5, -1.0), A, 0, 0, None),                    # vertex A
    ((3.0, 0.0, -0.5), B, 0, 1, None),                     # vertex B
])
def test_triangle_regions(p, q, kind, e0, e1):
    k, i, j, got = triangle_region_k(p, A, B, C)
    assert k == kind
    assert e0 is None or i == e0
    assert e1 is None or j == e1
    assert got == pytest.approx(q)


def ball_piece_closest(c, piece, prev):
    return ball_piece_measure(c, piece, prev)[0]


def tri():
    # A, C, B: counter-clockwise seen from above, so the front face is up
    return triangle_piece(A, C, B)


def test_ball_over_a_triangle_is_bf_with_the_face_normal_and_the_surface_point():
    piece = tri()
    c = (0.5, 1.03, 0.5)
    f = ball_piece_closest(c, piece, None)
    assert f == ("F", 0)
    g = pair_geometry("B", c, "F", feature_points(piece, f), True)
    assert g.gap - 1.0 == pytest.approx(0.03)                 # radius 1 subtracted later
    assert g.n == pytest.approx((0.0, -1.0, 0.0))             # ball (side 0) towards the face
    assert not g.broken


def test_ball_below_a_two_sided_triangle_sees_its_back_face():
    piece = tri()
    c = (0.5, -1.02, 0.5)
    f = ball_piece_closest(c, piece, None)
    assert f == ("F", 1)
    g = pair_geometry("B", c, "F", feature_points(piece, f), True)
    assert g.gap == pytest.approx(1.02) and g.n == pytest.approx((0.0, 1.0, 0.0))


def test_ball_past_an_edge_is_bk_and_a_centre_leaving_its_face_breaks_bf():
    piece = tri()
    c = (1.0, 0.6, -0.8)
    f = ball_piece_closest(c, piece, None)
    assert f[0] == "K"
    g = pair_geometry("B", c, "K", feature_points(piece, f), True)
    assert g.gap == pytest.approx(1.0)
    assert g.n == pytest.approx((0.0, -0.6, 0.8))            # from the centre to the edge
    # the face's geometry with the validity check (5.3): the centre's
    # projection is outside the triangle, the contact point is broken
    g = pair_geometry("B", c, "F", feature_points(piece, ("F", 0)), True)
    assert g.broken


def test_ball_ball_and_point_point():
    g = pair_geometry("B", (0.0, 0.0, 0.0), "B", (3.0, 4.0, 0.0), False)
    assert g.gap == pytest.approx(5.0)
    assert g.n == pytest.approx((0.6, 0.8, 0.0))


def test_ball_against_a_cube_face_corner_and_inside():
    cp = convex_piece(box_points(2.0, 2.0, 2.0))
    cube = hull_piece(cp.vertices, cp.faces)
    c = (0.3, 3.0, 0.1)                          # off the top face's diagonal edge
    f = ball_piece_closest(c, cube, None)
    assert f[0] == "F"
    g = pair_geometry("B", c, "F", feature_points(cube, f), True)
    assert g.gap == pytest.approx(2.0)
    corner = ball_piece_closest((2.0, 2.0, 2.0), cube, None)
    assert corner[0] == "P" and cube.verts[corner[1]] == pytest.approx((1.0, 1.0, 1.0))
    inside = ball_piece_closest((0.0, 0.8, 0.0), cube, None)
    g = pair_geometry("B", (0.0, 0.8, 0.0), "F", feature_points(cube, inside), False)
    assert g.gap == pytest.approx(-0.2)                       # the least penetrated face, behind it
    assert g.n == pytest.approx((0.0, -1.0, 0.0))


def cube(size, y, tilt=0.0):
    cp = convex_piece(box_points(size, size, size))
    c, s = math.cos(tilt), math.sin(tilt)
    R = (c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)                 # about z
    return hull_piece(cp.vertices, cp.faces).transformed((R, (0.0, y, 0.0)))


def test_a_tilted_box_names_its_lowest_corner():
    floor = triangle_piece((-5.0, 0.0, -5.0), (-5.0, 0.0, 10.0), (10.0, 0.0, -5.0))
    box = cube(1.0, 0.8, tilt=0.1)
    fa, fb, d = piece_piece_closest(box, floor, None)
    low = min(box.verts, key=lambda v: v[1])
    assert fa[0] == "P" and box.verts[fa[1]] == pytest.approx(low)
    assert fb[0] == "F"
    assert d == pytest.approx(low[1])


def test_a_level_box_keeps_the_corner_it_had():
    # 3.3's tie rule: four corners at one height, the previous pair stays
    floor = triangle_piece((-5.0, 0.0, -5.0), (-5.0, 0.0, 10.0), (10.0, 0.0, -5.0))
    box = cube(1.0, 0.53)
    first = piece_piece_closest(box, floor, None)
    corners = [i for i, v in enumerate(box.verts) if abs(v[1] - 0.03) < 1e-12]
    assert len(corners) == 4
    for i in corners:
        prev = (("P", i), first[1])
        assert piece_piece_closest(box, floor, prev)[:2] == prev


def test_crossed_edges_give_an_edge_edge_pair():
    # two thin bars crossing at right angles, 0.02 apart
    bar_x = convex_piece([(x, y, z) for x in (-1, 1) for y in (0.0, 0.1) for z in (-0.05, 0.05)])
    bar_z = convex_piece([(x, y, z) for x in (-0.05, 0.05) for y in (-0.12, -0.02) for z in (-1, 1)])
    X = hull_piece(bar_x.vertices, bar_x.faces)
    Z = hull_piece(bar_z.vertices, bar_z.faces)
    fa, fb, d = piece_piece_closest(X, Z, None)
    assert fa[0] == "K" and fb[0] == "K"
    assert d == pytest.approx(0.02)
    g = pair_geometry("K", feature_points(X, fa), "K", feature_points(Z, fb), True)
    assert g.n == pytest.approx((0.0, -1.0, 0.0)) and not g.broken


def test_grid_query_finds_every_triangle_within_reach_and_few_others():
    V, F = grid_mesh(30, 30.0)
    rnd = np.random.default_rng(3)
    V = V + rnd.normal(0.0, 0.05, V.shape)
    grid = TriangleGrid(V, F)
    tris = [tuple(map(tuple, t)) for t in V[F].tolist()]
    random.seed(5)
    for _ in range(50):
        p = (random.uniform(-16, 16), random.uniform(-1, 1), random.uniform(-16, 16))
        r = random.uniform(0.1, 3.0)
        near = [i for i, (a, b, c) in enumerate(tris) if math.dist(p, triangle_region_k(p, a, b, c)[3]) <= r]
        got = grid.query(*p, r)
        assert set(near) <= set(got)
        assert got == sorted(got)
        assert len(got) <= len(near) + 12 + 4 * r * r    # triangles of 1 m cells grazing the sphere


def _point_segments(P, A, B):
    """Distances from points P (n, 3) to segments A-B (m, 3 each): (n, m)."""
    d = B - A
    w = P[:, None, :] - A[None, :, :]
    dd = np.maximum((d * d).sum(axis=1), 1e-300)
    t = np.clip((w * d[None]).sum(axis=2) / dd, 0.0, 1.0)
    return np.linalg.norm(w - t[..., None] * d[None], axis=2)


def _points_triangles(P, V, T):
    """Distances from points P to the triangles T of vertices V: (n, m)."""
    a, b, c = V[T[:, 0]], V[T[:, 1]], V[T[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    h = ((P[:, None, :] - a[None]) * n[None]).sum(axis=2)
    q = P[:, None, :] - h[..., None] * n[None]
    inside = np.ones(h.shape, dtype=bool)
    for v0, v1 in ((a, b), (b, c), (c, a)):
        inside &= (np.cross(v1 - v0, q - v0[None]) * n[None]).sum(axis=2) >= 0.0
    edges = np.minimum.reduce([_point_segments(P, u, v) for u, v in ((a, b), (b, c), (c, a))])
    return np.where(inside, np.abs(h), edges)


def _segments_segments(P0, P1, Q0, Q1):
    """Least distance between any segment P0-P1 and any Q0-Q1: the interior
    stationary point where it lies in the unit square, else the four sides'
    clamped projections (a convex quadratic's minimum on a square)."""
    e = (P1 - P0)[:, None, :]
    d = (Q1 - Q0)[None, :, :]
    r = P0[:, None, :] - Q0[None, :, :]
    a, b, c = (e * e).sum(axis=2), (e * d).sum(axis=2), (d * d).sum(axis=2)
    f, g = (e * r).sum(axis=2), (d * r).sum(axis=2)
    den = a * c - b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (b * g - c * f) / den
        t = (a * g - b * f) / den
    best = np.full(a.shape, np.inf)
    ok = (den > 1e-12) & (s >= 0.0) & (s <= 1.0) & (t >= 0.0) & (t <= 1.0)
    interior = np.linalg.norm(r + np.nan_to_num(s)[..., None] * e - np.nan_to_num(t)[..., None] * d, axis=2)
    best = np.where(ok, interior, best)
    best = np.minimum(best, _point_segments(P0, Q0, Q1))
    best = np.minimum(best, _point_segments(P1, Q0, Q1))
    best = np.minimum(best, _point_segments(Q0, P0, P1).T)
    best = np.minimum(best, _point_segments(Q1, P0, P1).T)
    return best


def _hull_distance(A, B):
    """The distance between two separated convex pieces, by brute force over
    every vertex-triangle and edge-edge pair."""
    VA, VB = np.array(A.verts), np.array(B.verts)
    TA, TB = np.array(A.tris), np.array(B.tris)
    EA, EB = np.array(A.edges), np.array(B.edges)
    return float(min(_points_triangles(VA, VB, TB).min(), _points_triangles(VB, VA, TA).min(),
                     _segments_segments(VA[EA[:, 0]], VA[EA[:, 1]], VB[EB[:, 0]], VB[EB[:, 1]]).min()))


@pytest.mark.parametrize("seed", range(4))
def test_a_big_hull_near_and_far_from_a_triangles_edges_gets_the_true_distance(seed):
    """A hull of many vertices (most of them and most of its edges farther from
    the other piece than the nearest pair: the search's sphere bounds skip
    them) over a triangle, beside its edges and corners, and over a box: the
    distance is the brute-force one, and the previous pair kept when given."""
    rnd = np.random.default_rng(seed)
    pts = rnd.normal(size=(60, 3))
    pts /= np.linalg.norm(pts, axis=1)[:, None]
    cp = convex_piece([tuple(p * 0.5) for p in pts])
    ball = hull_piece(cp.vertices, cp.faces)
    tri = triangle_piece((-3.0, 0.0, -3.0), (-3.0, 0.0, 4.0), (4.0, 0.0, -3.0))
    bx = convex_piece(box_points(1.0, 1.0, 1.0))
    box = hull_piece(bx.vertices, bx.faces)
    for k in range(16):
        x = rnd.uniform(-4.0, 5.0)
        z = rnd.uniform(-4.0, 5.0)
        y = rnd.uniform(0.55, 1.5)
        placed = ball.transformed(((1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (x, y, z)))
        for other in (tri, box.transformed(((1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (0.5, -1.0, 0.5)))):
            want = _hull_distance(placed, other)
            fa, fb, d = piece_piece_closest(placed, other, None)
            assert d == pytest.approx(want, abs=1e-7)
            assert piece_piece_closest(placed, other, (fa, fb)) == (fa, fb, d)
            fb2, fa2, d2 = piece_piece_closest(other, placed, None)
            assert d2 == pytest.approx(want, abs=1e-7)


def _nearest_on_every_face(v, V, T, N):
    """nearest_on for a hull as a walk over every face: the first face reaching
    the least distance, faces the vertex is behind not counted, and the
    highest plane when it is behind every one."""
    best = (math.inf, -1, -1, -1)
    behind, behind_f = -math.inf, -1
    for f in range(T.shape[0]):
        a, b, c, n, ia, ib, ic = face_k(V, T, False, N, f)
        h = sum(n[k] * (v[k] - a[k]) for k in range(3))
        if h > behind:
            behind, behind_f = h, f
        d, k, i, j = _vertex_triangle(v, a, b, c, n, ia, ib, ic, f)
        if k == 2 and d < 0.0:
            continue
        if d < best[0]:
            best = (d, k, i, j)
    if behind < 0.0:
        return behind, 2, behind_f, -1
    return best


@pytest.mark.parametrize("seed", range(3))
def test_a_vertex_against_a_hull_finds_what_a_walk_over_every_face_finds(seed):
    """nearest_on skips faces by the highest plane's distance and the faces'
    bounding spheres: points near and far, inside, over faces, edges and
    corners of a round hull and of a box (whose top face is two coplanar
    triangles: a point over their shared diagonal is a tie the first face
    wins) give the full walk's distance and feature."""
    rnd = np.random.default_rng(seed)
    pts = rnd.normal(size=(80, 3))
    pts /= np.linalg.norm(pts, axis=1)[:, None]
    rh = convex_piece([tuple(p) for p in pts])
    bx = convex_piece(box_points(2.0, 1.0, 2.0))
    for cp in (rh, bx):
        V, T, E, two, pl, N, M, H = hull_piece(cp.vertices, cp.faces).kernel_data()
        probes = [tuple(rnd.normal(size=3) * s) for s in (0.3, 1.0, 1.5, 4.0, 30.0) for _ in range(40)]
        probes += [tuple(V[i] * f) for i in range(V.shape[0]) for f in (1.0, 1.3)]
        probes += [(x, 0.5 + h, x) for x in (-0.5, 0.0, 0.25, 1.0) for h in (0.0, 0.2, 3.0)]   # the box's diagonal
        for v in probes:
            assert nearest_on(v, V, T, False, N, -1) == _nearest_on_every_face(v, V, T, N)
