"""Broad phase among movable bodies (surfaces-and-contacts 6.3): the numpy sphere
pairs and the pose grid find exactly what a test of every pair finds."""

import itertools
import math

import numpy as np
import pytest

from ivp import MT_NOT_SIM, Environment
from ivp.collision import Material
from ivp.collision.broadphase import PoseGrid, sphere_pairs
from ivp.collision.constants import COLL_DIST
from ivp.collision.system import BROAD_MARGIN
from test_collision_scenes import ball, box, floor, run


def brute_force(C, R, awake):
    """Every pair (i awake) with |c_i - c_j| <= r_i + r_j, awake-awake pairs once."""
    out = set()
    awake = set(awake)
    for i, j in itertools.combinations(range(len(R)), 2):
        if (i in awake or j in awake) and math.dist(C[i], C[j]) <= R[i] + R[j]:
            out.add((i, j))
    return out


@pytest.mark.parametrize("n,n_awake,seed", [(30, 30, 1), (40, 10, 2), (300, 300, 3), (400, 37, 4)])
def test_sphere_pairs_are_exactly_the_overlapping_ones(n, n_awake, seed):
    # small sets go through one broadcast, large ones through the grid
    rnd = np.random.default_rng(seed)
    C = rnd.uniform(-12.0, 12.0, (n, 3))
    C[: n // 4] = np.round(C[: n // 4])                      # some on cell borders
    R = rnd.uniform(0.2, 1.5, n)
    awake = np.sort(rnd.choice(n, n_awake, replace=False))
    i, j = sphere_pairs(C, R, awake)
    assert set(i.tolist()) <= set(awake.tolist())             # the awake one comes first
    got = [tuple(sorted(p)) for p in zip(i.tolist(), j.tolist())]
    assert len(got) == len(set(got))                          # each pair once
    assert set(got) == brute_force(C, R, awake.tolist())


def test_sphere_pairs_far_apart_and_touching_exactly():
    C = np.array([(0.0, 0.0, 0.0), (2.0, 0.0, 0.0), (1e6, 0.0, 0.0), (-1e6, 5.0, 0.0)])
    R = np.array([1.0, 1.0, 1.0, 1.0])
    i, j = sphere_pairs(C, R, np.arange(4))
    assert sorted(zip(i.tolist(), j.tolist())) == [(0, 1)]     # touching counts, far ones do not


def test_pose_grid_returns_every_body_within_reach_in_creation_order():
    env = Environment()
    rnd = np.random.default_rng(7)
    bodies = [ball(env, tuple(p), radius=0.5, name=f"b{k}") if k % 2 else box(env, tuple(p), name=f"b{k}")
              for k, p in enumerate(rnd.uniform(-6.0, 6.0, (60, 3)))]
    movable = [b.collision_data for b in bodies]
    grid = PoseGrid(movable, 0.045)
    for b in bodies:
        core = b.core
        near = grid.near(core)
        assert near == sorted(near, key=movable.index)
        for other in bodies:
            oc = other.core
            reach = core.upper_limit_radius + 0.045 + oc.upper_limit_radius
            if math.dist(core.m_world_f_core_last_psi[1], oc.m_world_f_core_last_psi[1]) <= reach:
                assert other.collision_data in near


def test_a_sleeping_body_is_found_where_it_stopped():
    # b slides off, stops far from where it was made and falls asleep; a (made
    # before, asleep all along) then runs into it there: equal masses, e = 1,
    # a stops and b takes its speed
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env, (10.0, 0.0, 0.0), radius=1.0, name="b", speed_damp_factor=1.0, material=Material(0.0, 1.0))
    a = ball(env, (-10.0, 0.0, 0.0), radius=1.0, name="a", material=Material(0.0, 1.0))
    b.async_add_speed_object_ws((6.0, 0.0, 0.0))
    run(env, 6.5)
    assert b.core.movement_state == MT_NOT_SIM
    xb = b.core.m_world_f_core_last_psi[1][0]
    assert xb > 15.0                  # a sphere left at 10 would be behind a when they meet
    a.async_add_speed_object_ws((8.0, 0.0, 0.0))
    xs = []
    run(env, 4.0, lambda e: xs.append(a.core.pos_world_f_core_last_psi[0]))
    assert max(xs) < xb - 2.0 + 0.05
    assert b.core.pos_world_f_core_last_psi[0] > xb + 0.5


def test_a_grid_query_far_larger_than_the_floor_walks_only_the_occupied_cells():
    # issue 15: a 1e30-sized body looped over 1e60 cells; the query range is
    # clamped to the triangles' box, and a sphere covering it sees every triangle
    env = Environment()
    grid = floor(env, n=10).collision_data.grid
    assert grid.query(0.0, 0.0, 0.0, 1e30) == list(range(len(grid)))
    assert grid.query(1e30, 0.0, 0.0, 1.0) == []
    with pytest.raises(ValueError, match="not finite"):
        grid.query(0.0, math.nan, 0.0, 1.0)


@pytest.mark.skipif(not __import__("ivp.jit", fromlist=["ENABLED"]).ENABLED, reason="the compiled grid needs numba")
@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_grid_gives_the_numpy_grids_pairs_in_its_order(seed):
    """Centres on both sides of 0 (cells wrapped by the key mask), some on
    cell borders, equal radii (many equal keys): the same pairs, in the same
    order, awake one first."""
    from ivp.collision.broadphase import _cell_size, _grid_candidates, _grid_pairs_k
    rnd = np.random.default_rng(seed)
    n = 3000
    C = rnd.normal(size=(n, 3)) * (4.0, 8.0, 12.0)[seed % 3]
    C[: n // 3] = np.round(C[: n // 3])
    R = rnd.uniform(0.05, 2.0, n) if seed % 2 else np.full(n, 0.75)
    is_awake = rnd.random(n) < 0.3
    a, b = _grid_candidates(C, R)
    keep = is_awake[a] | is_awake[b]
    a, b = a[keep], b[keep]
    keep = ((C[a] - C[b]) ** 2).sum(axis=1) <= (R[a] + R[b]) ** 2
    a, b = a[keep], b[keep]
    swap = ~is_awake[a]
    i, j = _grid_pairs_k(C, R, is_awake, _cell_size(R))
    assert len(a) > 20
    assert i.tolist() == np.where(swap, b, a).tolist() and j.tolist() == np.where(swap, a, b).tolist()


@pytest.mark.skipif(not __import__("ivp.jit", fromlist=["ENABLED"]).ENABLED, reason="the compiled pairs need numba")
@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_small_set_gives_the_numpy_broadcasts_pairs_in_its_order(seed):
    """Small sets (awake x all within DENSE_LIMIT), the awake rows in any
    order with their swept spheres put in: the same pairs as sphere_pairs'
    broadcast, in its order, and each row's index among the awake."""
    from ivp.collision.broadphase import DENSE_LIMIT, _dense_rows_k
    rnd = np.random.default_rng(seed)
    n = 60
    C = np.round(rnd.normal(size=(n, 3)) * 3.0, 1)
    R = np.round(rnd.uniform(0.1, 2.0, n), 1)
    awake = rnd.permutation(n)[: 10 + 8 * seed]
    assert len(awake) * n <= DENSE_LIMIT
    centers = C[awake] + rnd.normal(size=(len(awake), 3)) * 0.3
    radii = R[awake] + 0.2
    swept_C = C.copy()
    swept_R = R.copy()
    swept_C[awake] = centers
    swept_R[awake] = radii
    a, b = sphere_pairs(swept_C, swept_R, awake)
    i, j, rank = _dense_rows_k(C, R, awake, centers, radii)
    assert len(a) > 20
    assert i.tolist() == a.tolist() and j.tolist() == b.tolist()
    want = np.full(n, -1)
    want[awake] = np.arange(len(awake))
    assert rank.tolist() == want.tolist()


@pytest.mark.skipif(not __import__("ivp.jit", fromlist=["ENABLED"]).ENABLED, reason="the compiled sort needs numba")
def test_the_cell_order_is_the_stable_sort_of_the_packed_keys():
    from ivp.collision.broadphase import _CELL_MASK, _cell_keys, _cell_order_k
    rnd = np.random.default_rng(7)
    for span in (1, 3, 40, 3000, 1 << 20, 1 << 22):
        for n in (1, 2, 50, 4000):
            X, Y, Z = (rnd.integers(-span, span, n) for _ in range(3))
            want = np.argsort(_cell_keys(X, Y, Z), kind="stable")
            assert _cell_order_k(X & _CELL_MASK, Y & _CELL_MASK, Z & _CELL_MASK).tolist() == want.tolist()


def test_movable_pairs_get_a_mindist_exactly_when_their_spheres_grown_by_the_reach_meet():
    # resting balls (no speed: the reach is coll_dist + the margin on each side) in
    # a row at gaps just inside and just outside twice that, one pair in one
    # collision group, and a box at the end (its pieces' spheres tested one by one)
    env = Environment(gravity=(0.0, 0.0, 0.0))
    reach = COLL_DIST + BROAD_MARGIN
    gaps = [2 * reach - 1e-6, 2 * reach + 1e-6, 2 * reach - 1e-6, 0.5 * reach, 2 * reach - 1e-6, 2 * reach + 1e-6]
    groups = ["", "", "", "g", "g", "", ""]
    x = 0.0
    balls = []
    for k, group in enumerate(groups):
        balls.append(ball(env, (x, 0.0, 0.0), radius=0.5, name=f"b{k}", group=group))
        if k < len(gaps):
            x += 1.0 + gaps[k]
    blk = box(env, (x + 1.0 + 0.5 * reach, 0.0, 0.0), size=(1.0, 1.0, 1.0))   # half a reach from b6
    for b in balls + [blk]:
        b.wake()
    env.simulate(2 * env.delta_PSI_time)         # the pairs a wake made are measured again, or dropped
    pairs = {frozenset((md.a.obj.name, md.b.obj.name)) for md in env.collision.mindists()}
    assert pairs == {frozenset(p) for p in (("b0", "b1"), ("b2", "b3"), ("b4", "b5"), ("b6", "box"))}


def test_the_fixed_boxes_met_are_those_within_the_bodys_reach():
    """A ball (r 0.5, at rest: reach = coll_dist + the broad margin) among
    fixed balls (r 1) whose boxes start 0.4 and 0.7 from its centre along x,
    end 0.5 from it along -x, and lie 3 away along y: the broad phase finds
    the boxes within 0.5 + reach (0.56) and no other, its reach and the
    bodies that meet some box."""
    from ivp.collision.awake import AwakeSet
    env = Environment()
    for name, p in (("near", (1.4, 0.0, 0.0)), ("far", (1.7, 0.0, 0.0)), ("behind", (-1.5, 0.0, 0.0)),
                    ("above", (0.0, 4.0, 0.0))):
        ball(env, p, radius=1.0, name=name, physical_unmoveable=True)
    moving = ball(env, (0.0, 0.0, 0.0), radius=0.5, name="moving")
    lone = ball(env, (0.0, 0.0, 9.0), radius=0.5, name="lone")
    C, radius_reach, reach, speed, near, hit = env.collision._broad_phase(AwakeSet([moving.core, lone.core]),
                                                                          env.delta_PSI_time)
    assert reach.tolist() == [COLL_DIST + BROAD_MARGIN] * 2 and speed.tolist() == [0.0, 0.0]
    assert radius_reach.tolist() == [0.5 + COLL_DIST + BROAD_MARGIN] * 2
    assert C.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 9.0]]
    assert hit.tolist() == [[True, False, True, False], [False] * 4]
    assert near.tolist() == [0]


def test_the_grid_query_is_every_triangle_whose_cells_and_sphere_meet_the_sphere():
    """TriangleGrid.query (grid_query_k) against its definition tried on every
    triangle: a big one (too many cells), or one with a cell of its box in
    the sphere's cell range (clamped to the triangles' box), whose bounding
    sphere meets the sphere; spheres of every size, inside, beside and far
    outside a bumpy floor with one huge triangle."""
    from ivp.collision.shapes import TriangleGrid
    from test_collision_scenes import grid_mesh
    rnd = np.random.default_rng(7)
    V, F = grid_mesh(10, 20.0)
    V = V + rnd.normal(0.0, 0.3, V.shape)
    V = np.concatenate([V, [[-400.0, -1.0, -400.0], [400.0, -1.0, -400.0], [0.0, 2.0, 400.0]]])
    F = np.concatenate([F, [[len(V) - 3, len(V) - 2, len(V) - 1]]])
    grid = TriangleGrid(V, F)
    assert grid.big == [len(F) - 1]
    h = grid.cell
    tri = V[F]
    cells_lo = np.floor(tri.min(axis=1) / h)
    cells_hi = np.floor(tri.max(axis=1) / h)
    S = np.array(grid.sphere)
    spheres = [(tuple(rnd.uniform(-30.0, 30.0, 3)), float(rnd.choice([0.05, 0.7, 3.0, 30.0]))) for _ in range(300)]
    spheres += [((1e30, 0.0, 0.0), 1.0), ((0.0, -1e30, 0.0), 5.0), ((0.0, 0.0, 0.0), 1e30), ((0.5, 3.0, 0.5), 0.0)]
    for c, r in spheres:
        a = np.floor(np.maximum(np.array(c) - r, grid.lo) / h)
        b = np.floor(np.minimum(np.array(c) + r, grid.hi) / h)
        cells_meet = ((cells_lo <= b) & (cells_hi >= a)).all(axis=1)
        cells_meet[grid.big] = True
        d = S[:, :3] - np.array(c)
        sphere_meets = (d * d).sum(axis=1) <= (r + S[:, 3]) ** 2
        assert grid.query(*c, r) == np.flatnonzero(cells_meet & sphere_meets).tolist(), (c, r)
