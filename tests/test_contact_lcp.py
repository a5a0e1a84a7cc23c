"""The multi-contact normal solve (ivp-contacts 5.5): Gauss elimination on the
active set (friction.gauss_solve), the complementarity solver behind it
(lcp.solve_lcp) on hand-made problems, and the weight a stack carries."""

import math

import numpy as np
import pytest

from ivp import Environment
from ivp.collision import Material, friction, lcp
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
    # a 2 kg ball closing at 1 m/s: lam = m v (diagonal 1/m), up to the 1e-6 regularisation
    (lam,) = lcp.solve_lcp(np.array([[0.5]]), np.array([-1.0]), np.array([False]))
    assert lam == pytest.approx(2.0, rel=1e-5)


def test_a_separating_contact_gets_no_impulse():
    A = np.array([[1.0, 0.2], [0.2, 1.0]])
    q = np.array([-1.0, 2.0])                     # the second separates even after the first pushes
    lam = lcp.solve_lcp(A, q, np.array([True, True]))
    assert lam[1] == 0.0
    assert lam[0] == pytest.approx(1.0, rel=1e-5)


def test_four_coplanar_corners_share_the_weight():
    # A is singular (4 contacts, 3 degrees of freedom along the normal); by
    # symmetry each corner takes a quarter of m g dt, the rows of A summing to 4/m
    A = cube_corner_matrix(BOTTOM)
    assert np.linalg.matrix_rank(A) == 3
    lam = lcp.solve_lcp(A, np.full(4, -G * DT), np.zeros(4, bool))
    assert lam == pytest.approx(np.full(4, G * DT / 4), rel=1e-5)
    assert A @ lam - G * DT == pytest.approx(np.zeros(4), abs=1e-6)


def test_each_corner_held_twice_shares_it_evenly():
    # aligned boxes see every corner from both bodies: identical rows
    A = cube_corner_matrix(BOTTOM + BOTTOM)
    lam = lcp.solve_lcp(A, np.full(8, -G * DT), np.ones(8, bool))
    assert lam == pytest.approx(np.full(8, G * DT / 8), rel=1e-5)


def random_problem(seed: int):
    """Contacts between three rigid bodies (random Jacobians, random positive
    definite inverse masses), often more contacts than degrees of freedom, and
    a q that lam = x0 >= 0 makes feasible (A x0 + q = r >= 0)."""
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
    return A, r - A @ x0, x0, rs.random(n) < 0.5


@pytest.mark.parametrize("seed", range(20))
def test_random_problems_are_solved_complementarily(seed):
    A, q, x0, free = random_problem(seed)
    lam = lcp.solve_lcp(A, q, free)
    w = A @ lam + q
    scale = np.abs(q).max()
    assert lam.min() >= 0.0
    assert w.min() >= -1e-5 * scale
    assert np.abs(lam * w).max() <= 1e-5 * scale * max(lam.max(), 1.0)
    # and it is the minimum of 1/2 lam A lam + q lam over lam >= 0: no worse than x0
    assert 0.5 * lam @ A @ lam + q @ lam <= 0.5 * x0 @ A @ x0 + q @ x0 + 1e-9 * scale


@pytest.mark.parametrize("seed", range(5))
def test_the_start_changes_the_path_not_the_solution(seed):
    A, q, _, _ = random_problem(seed)
    n = len(q)
    cold = lcp.solve_lcp(A, q, np.zeros(n, bool))
    warm = lcp.solve_lcp(A, q, np.ones(n, bool))
    assert warm == pytest.approx(cold, abs=1e-6 * max(cold.max(), 1.0))


def test_gives_up_when_the_solves_run_out(monkeypatch):
    A = np.array([[1.0, 0.2], [0.2, 1.0]])
    q = np.array([-1.0, 2.0])
    monkeypatch.setattr(lcp, "MAX_SOLVES", 1)
    assert lcp.solve_lcp(A, q, np.array([True, True])) is None       # the first guess was wrong


def test_gauss_solves_a_regular_system_with_pivoting():
    A = np.array([[1e-3, 2.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 3.0]])
    b = np.array([1.0, 2.0, 3.0])
    x = friction.gauss_solve(A, b)
    assert A @ x == pytest.approx(b, abs=1e-12)


def test_gauss_skips_a_dependent_column_and_fails_on_an_inconsistent_row():
    # two equal contacts (a box corner held twice): the second column has no
    # pivot above 1e-9 after the first, its x is 0, the rows stay consistent
    A = np.array([[1.0, 1.0], [1.0, 1.0]])
    assert friction.gauss_solve(A, np.array([2.0, 2.0])).tolist() == [2.0, 0.0]
    assert friction.gauss_solve(A, np.array([2.0, 3.0])) is None


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
