"""Closest features and the grid index, against hand-computed distances."""

import math
import random

import numpy as np
import pytest

from ivp.collision.geometry import (
    REGION_EDGE,
    REGION_FACE,
    REGION_VERTEX,
    closest_on_triangle,
    tangent_from_edge,
)
from ivp.collision.narrow import ball_ball, ball_hull, ball_triangle, piece_piece
from ivp.collision.shapes import TriangleGrid, hull_piece, triangle_piece
from ivp.surface import convex_piece
from test_collision_scenes import box_points, grid_mesh

A = (0.0, 0.0, 0.0)
B = (2.0, 0.0, 0.0)
C = (0.0, 0.0, 2.0)
UP = (0.0, 1.0, 0.0)


@pytest.mark.parametrize("p,q,region", [
    ((0.5, 3.0, 0.5), (0.5, 0.0, 0.5), REGION_FACE),
    ((1.0, 1.0, -1.0), (1.0, 0.0, 0.0), REGION_EDGE),       # beyond edge AB
    ((2.0, 1.0, 2.0), (1.0, 0.0, 1.0), REGION_EDGE),        # beyond the hypotenuse
    ((-1.0, 0.5, -1.0), A, REGION_VERTEX),
    ((3.0, 0.0, -0.5), B, REGION_VERTEX),
])
def test_closest_point_on_triangle_and_its_region(p, q, region):
    got, reg = closest_on_triangle(*p, A, B, C)
    assert got == pytest.approx(q)
    assert reg == region


def test_ball_triangle_face_normal_inside_edge_direction_outside():
    cand = ball_triangle((0.5, 1.03, 0.5), 1.0, A, B, C, UP, 0.1, "t")
    assert cand.gap == pytest.approx(0.03)
    assert cand.normal == pytest.approx((0.0, -1.0, 0.0))      # ball (obj0) towards the triangle
    assert cand.point == pytest.approx((0.5, 0.015, 0.5))
    # below the two-sided triangle: the other face
    cand = ball_triangle((0.5, -1.02, 0.5), 1.0, A, B, C, UP, 0.1, "t")
    assert cand.gap == pytest.approx(0.02) and cand.normal == pytest.approx((0.0, 1.0, 0.0))
    # past edge AB: the normal points from the edge to the centre
    c = (1.0, 0.6, -0.8)
    cand = ball_triangle(c, 0.95, A, B, C, UP, 0.1, "t")
    assert cand.gap == pytest.approx(1.0 - 0.95)
    assert cand.normal == pytest.approx((0.0, -0.6, 0.8))
    assert ball_triangle((0.5, 2.0, 0.5), 1.0, A, B, C, UP, 0.1, "t") is None


def test_ball_ball_gap_and_normal():
    cand = ball_ball((0.0, 0.0, 0.0), 1.0, (3.0, 4.0, 0.0), 2.0, 5.0)
    assert cand.gap == pytest.approx(2.0)
    assert cand.normal == pytest.approx((0.6, 0.8, 0.0))
    assert cand.point == pytest.approx((0.6 * 2.0, 0.8 * 2.0, 0.0))


def test_ball_against_a_cube_face_edge_corner_and_inside():
    cp = convex_piece(box_points(2.0, 2.0, 2.0))
    cube = hull_piece(cp.vertices, cp.faces)
    assert len(cube.planes) == 6 and len(cube.edges) == 12
    assert ball_hull((0.0, 3.0, 0.0), 1.5, cube, 1.0, "p").gap == pytest.approx(0.5)
    corner = ball_hull((2.0, 2.0, 2.0), 1.0, cube, 1.0, "p")
    assert corner.gap == pytest.approx(math.sqrt(3) - 1.0)
    assert corner.normal == pytest.approx(tuple(-1 / math.sqrt(3) for _ in range(3)))
    inside = ball_hull((0.0, 0.8, 0.0), 0.5, cube, 1.0, "p")
    assert inside.gap == pytest.approx(-0.2 - 0.5)
    assert inside.normal == pytest.approx((0.0, -1.0, 0.0))


def test_box_resting_on_a_triangle_gives_its_four_corner_features():
    cp = convex_piece(box_points(1.0, 1.0, 1.0))
    cube = hull_piece(cp.vertices, cp.faces)
    m = ((1, 0, 0, 0, 1, 0, 0, 0, 1), (0.0, 0.53, 0.0))
    world = cube.transformed(m)
    tri = triangle_piece((-5.0, 0.0, -5.0), (-5.0, 0.0, 10.0), (10.0, 0.0, -5.0))
    cands = piece_piece(world, tri, lambda x: ("a", x), lambda x: ("b", x), 0.045)
    assert len(cands) == 4
    for c in cands:
        assert c.gap == pytest.approx(0.03)
        assert c.normal == pytest.approx((0.0, -1.0, 0.0))
        assert c.anchor[0] == "v"


def test_crossed_edges_give_an_edge_edge_feature():
    # two thin bars crossing at right angles, 0.02 apart
    bar_x = convex_piece([(x, y, z) for x in (-1, 1) for y in (0.0, 0.1) for z in (-0.05, 0.05)])
    bar_z = convex_piece([(x, y, z) for x in (-0.05, 0.05) for y in (-0.12, -0.02) for z in (-1, 1)])
    X = hull_piece(bar_x.vertices, bar_x.faces)
    Z = hull_piece(bar_z.vertices, bar_z.faces)
    cands = piece_piece(X, Z, lambda x: ("x", x), lambda x: ("z", x), 0.045)
    assert [c.anchor[0] for c in cands] == ["e"] * len(cands) and cands
    for c in cands:
        assert c.gap == pytest.approx(0.02)
        assert c.normal == pytest.approx((0.0, -1.0, 0.0))


def test_grid_query_finds_every_triangle_within_reach_and_few_others():
    V, F = grid_mesh(30, 30.0)
    rnd = np.random.default_rng(3)
    V = V + rnd.normal(0.0, 0.05, V.shape)
    grid = TriangleGrid(V, F)
    tri = [tuple(map(tuple, t)) for t in V[F].tolist()]
    random.seed(5)
    for _ in range(50):
        p = (random.uniform(-16, 16), random.uniform(-1, 1), random.uniform(-16, 16))
        r = random.uniform(0.1, 3.0)
        near = []
        for i, (a, b, c) in enumerate(tri):
            q, _ = closest_on_triangle(*p, a, b, c)
            if math.dist(p, q) <= r:
                near.append(i)
        got = grid.query(*p, r)
        assert set(near) <= set(got)
        assert got == sorted(got)
        assert len(got) <= len(near) + 12 + 4 * r * r    # triangles of 1 m cells grazing the sphere


def test_first_tangent_is_the_first_edge_made_perpendicular():
    t0, t1 = tangent_from_edge((0.0, 1.0, 0.0), (2.0, 0.5, 0.0))
    assert t0 == pytest.approx((1.0, 0.0, 0.0))
    assert t1 == pytest.approx((0.0, 0.0, -1.0))            # n x t0


def test_grid_ball_candidates_match_ball_triangle_on_every_triangle():
    # the plane pre-tests only skip triangles ball_triangle would not return
    V, F = grid_mesh(6, 12.0)
    rnd = np.random.default_rng(11)
    V = V + rnd.normal(0.0, 0.3, V.shape)
    grid = TriangleGrid(V, F)
    ids = list(range(len(grid)))
    for _ in range(300):
        c = tuple(rnd.uniform((-7.0, -2.0, -7.0), (7.0, 2.0, 7.0)).tolist())
        ref = tuple(rnd.uniform((-7.0, -2.0, -7.0), (7.0, 2.0, 7.0)).tolist())
        r = float(rnd.uniform(0.1, 1.5))
        rng = float(rnd.choice([0.01, 0.055, 0.5]))
        for side_ref in (None, ref):
            want = [ball_triangle(c, r, grid.a[t], grid.b[t], grid.c[t], grid.normal[t], rng, ("t", t), side_ref)
                    for t in ids]
            want = [(w.support, w.gap, w.normal) for w in want if w is not None]
            got = [(g.support, g.gap, g.normal) for g in grid.ball_candidates(c, r, rng, ids, side_ref)]
            assert got == want
