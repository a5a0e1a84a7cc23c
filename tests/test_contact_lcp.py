"""The multi-contact normal solve (ivp-contacts 5.5): Gauss elimination
(lcp.gauss_solve_k), the complementarity solver in IVP's pivoting order
(lcp.solve_lcp) on hand-made problems, and the weight a stack carries."""

import math

import numpy as np
import pytest

from ivp import Environment
from ivp.collision import Material, lcp
from ivp.collision.constants import GAUSS_MATRIX_EPS
from test_collision_scenes import box, floor, run

G = 20.0
DT = 1.0 / 66.0


def cube_corner_matrix(corners, mass=1.0, side=1.0):
    """A = J M^-1 J^T of upward contacts at the given corners of a cube resting
    on fixed ground: 1/m + (r_i x n) . I^-1 (r_j x n), with IVP's cube inertia
    sqrt(2) s^2 / 12 m on every axis (surfaces-and-contacts 1)."""
    inv_i = 12.0 / (math.sqrt(2.0) * side * side * mass)
    n = np.array([0.0, 1.0, 0.0])
    arms = [np.cross(np.array(r), n) for r in corners]
    return np.array([[1.0 / mass + inv_i * (a @ b) for b in arms] for a in arms])


BOTTOM = [(x, -0.5, z) for x in (-0.5, 0.5) for z in (-0.5, 0.5)]


def test_one_contact_closing_gets_the_impulse_that_stops_it():
    # a 2 kg ball to be sped apart by 1 m/s: x = m v (diagonal 1/m)
    (x,) = lcp.solve_lcp(np.array([[0.5]]), np.array([1.0]), 0)
    assert x == 2.0


def test_a_separating_contact_gets_no_impulse():
    A = np.array([[1.0, 0.2], [0.2, 1.0]])
    b = np.array([1.0, -2.0])                     # the second separates even after the first pushes
    x = lcp.solve_lcp(A, b, 2)
    assert x[1] == 0.0
    assert x[0] == pytest.approx(1.0, rel=1e-12)


def test_indeterminate_corners_load_in_ivps_pivoting_order():
    # A box on four coplanar corners: A is singular (3 degrees of freedom along
    # the normal), every corner is to be held. 5.5 drives the corners in list
    # order from no active one, and the first three take the weight; a
    # centred load on three corners of a square puts nothing on the corner
    # between the other two (moments about the centre), so it ends on the
    # diagonal pair (-x, +z), (+x, -z), half each, and corner 3 is at its
    # target without an impulse.
    A = cube_corner_matrix(BOTTOM)
    assert np.linalg.matrix_rank(A) == 3
    b = np.full(4, G * DT)
    x = lcp.solve_lcp(A, b, 0)
    half = G * DT / (A[1, 1] + A[1, 2])
    assert x[0] == 0.0 and x[3] == 0.0
    assert x[1:3] == pytest.approx([half, half], rel=1e-12)
    assert A @ x - b == pytest.approx(np.zeros(4), abs=1e-12)     # all four at their target
    # the same box with the other diagonal listed first: that one carries it
    corners = [BOTTOM[0], BOTTOM[3], BOTTOM[1], BOTTOM[2]]
    A = cube_corner_matrix(corners)
    x = lcp.solve_lcp(A, b, 0)
    half = G * DT / (A[0, 0] + A[0, 1])
    assert x[0:2] == pytest.approx([half, half], rel=1e-12)
    assert x[2:].tolist() == [0.0, 0.0]


def test_a_start_on_a_singular_set_keeps_the_first_independent_contacts():
    # every corner seen from both bodies (identical rows), all eight active at
    # the start: Gauss skips the dependent columns (their x 0), the three first
    # corners take the load as above
    A = cube_corner_matrix(BOTTOM + BOTTOM)
    b = np.full(8, G * DT)
    x = lcp.solve_lcp(A, b, 8)
    half = G * DT / (A[1, 1] + A[1, 2])
    assert x[0] == pytest.approx(0.0, abs=1e-12)
    assert x[1:3] == pytest.approx([half, half], rel=1e-12)
    assert x[3:].tolist() == [0.0] * 5


def random_problem(seed: int):
    """Contacts between three rigid bodies (random Jacobians, random positive
    definite inverse masses), often more contacts than degrees of freedom, and
    a b that x = x0 >= 0 makes feasible (A x0 - b = r >= 0)."""
    rs = np.random.default_rng(seed)
    n = int(rs.integers(4, 30))
    J = np.zeros((n, 18))
    for i in range(n):
        for b in rs.choice(3, size=int(rs.integers(1, 3)), replace=False):
            J[i, 6 * b:6 * b + 6] = rs.normal(size=6)
    Minv = np.zeros((18, 18))
    for b in range(3):
        L = rs.normal(size=(6, 6))
        Minv[6 * b:6 * b + 6, 6 * b:6 * b + 6] = L @ L.T + 0.1 * np.eye(6)
    A = J @ Minv @ J.T
    x0 = np.where(rs.random(n) < 0.5, rs.random(n), 0.0)
    r = np.where(rs.random(n) < 0.5, rs.random(n), 0.0)
    return A, A @ x0 - r, x0, int(rs.integers(0, n))


@pytest.mark.parametrize("seed", range(20))
def test_random_problems_are_solved_complementarily(seed):
    A, b, x0, k = random_problem(seed)
    x = lcp.solve_lcp(A, b, k)
    w = A @ x - b
    scale = np.abs(b).max()
    assert x.min() >= 0.0
    assert w.min() >= -1e-6 * scale
    assert np.abs(x * w).max() <= 1e-6 * scale * max(x.max(), 1.0)
    # and so the minimum of 1/2 x A x - b x over x >= 0: no worse than x0
    assert 0.5 * x @ A @ x - b @ x <= 0.5 * x0 @ A @ x0 - b @ x0 + 1e-9 * scale


@pytest.mark.parametrize("seed", range(5))
def test_the_start_changes_the_path_not_the_speeds(seed):
    # with more contacts than degrees of freedom x is not unique, A x is
    A, b, _, _ = random_problem(seed)
    n = len(b)
    cold = lcp.solve_lcp(A, b, 0)
    warm = lcp.solve_lcp(A, b, n)
    assert A @ warm == pytest.approx(A @ cold, abs=1e-6 * np.abs(b).max())


def test_fails_when_no_impulse_can_open_a_contact():
    # a closing contact whose impulse moves nothing: no step limits the drive
    assert lcp.solve_lcp(np.array([[0.0]]), np.array([1.0]), 0) is None


def gauss(A, b):
    ok, x = lcp.gauss_solve_k(np.array(A, dtype=float), np.array(b, dtype=float), GAUSS_MATRIX_EPS)
    return x if ok else None


def test_gauss_solves_a_regular_system_with_pivoting():
    A = np.array([[1e-3, 2.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 3.0]])
    b = np.array([1.0, 2.0, 3.0])
    x = gauss(A, b)
    assert A @ x == pytest.approx(b, abs=1e-12)


def test_gauss_skips_a_dependent_column_and_fails_on_an_inconsistent_row():
    # two equal contacts (a box corner held twice): the second column has no
    # pivot above 1e-9 after the first, its x is 0, the rows stay consistent
    A = np.array([[1.0, 1.0], [1.0, 1.0]])
    assert gauss(A, [2.0, 2.0]).tolist() == [2.0, 0.0]
    assert gauss(A, [2.0, 3.0]) is None


def resting_stack(n: int, seconds: float):
    env = Environment(gravity=(0.0, -G, 0.0))
    floor(env)
    boxes = [box(env, (0.0, 0.52 + 1.02 * i, 0.0), name=f"box{i}", material=Material(0.7, 0.3))
             for i in range(n)]
    for b in boxes:
        b.wake()
    run(env, seconds)
    return env, boxes


def interface_forces(env, boxes) -> list:
    """Per box, the sum of the normal forces N of its contacts with what is below it."""
    below = [0.0] * len(boxes)
    for c in env.collision.contacts():
        below[max(boxes.index(o) for o in (c.obj0, c.obj1) if o in boxes)] += c.normal_force
    return below


def test_stack_of_three_carries_the_weight_above_each_interface():
    # each PSI the normal solve cancels that PSI's gravity (5.4), so the forces
    # under box k add up to the weight of the boxes from k up
    env, boxes = resting_stack(3, 1.0)
    forces = interface_forces(env, boxes)
    for k, f in enumerate(forces):
        assert f == pytest.approx((3 - k) * 1.0 * G, rel=0.05)


@pytest.mark.parametrize("seed", range(6))
def test_the_kept_elimination_is_the_one_made_afresh(seed):
    # 5.5 solves the active set at every step; the solver keeps its
    # elimination and updates it as places join at the end and leave
    # anywhere: after each change it must be bit for bit the one made from
    # scratch (same pivots, skipped columns, multipliers, solutions). The
    # rank-deficient A (repeated contact rows, as the corners of a stack)
    # makes skipped columns and rows that would take a kept pivot.
    rng = np.random.default_rng(seed)
    n = 24
    J = rng.integers(-2, 3, size=(n, 8)).astype(float)
    J[5] = J[2]
    A = J @ J.T / 10.0
    rhs = rng.normal(size=n)
    order = rng.permutation(n)
    LU = np.empty((n, n))
    K = np.empty((3, n), dtype=np.int64)
    fac = np.zeros(3, dtype=np.int64)
    na = 0
    for _ in range(60):
        if na and rng.random() < 0.4:
            p = int(rng.integers(0, na))
            rest = np.delete(order[:na], p)
            na = lcp._remove_at(order, na, p, LU, K, fac)
            assert list(order[:na]) == list(rest)
        elif na < n:
            na += 1
        lcp._factorised(A, order, na, LU, K, fac)
        kept = lcp._solve(LU, K, fac, rhs[:na])
        LU0 = np.empty((n, n))
        K0 = np.empty((3, n), dtype=np.int64)
        fac0 = np.zeros(3, dtype=np.int64)
        lcp._factorised(A, order, na, LU0, K0, fac0)
        fresh = lcp._solve(LU0, K0, fac0, rhs[:na])
        assert list(fac) == list(fac0) == [na, fac0[1], na]
        assert np.array_equal(LU[:na, :na], LU0[:na, :na])
        assert list(K[0, :na]) == list(K0[0, :na])
        assert kept[0] == fresh[0] and kept[1].tobytes() == fresh[1].tobytes()
