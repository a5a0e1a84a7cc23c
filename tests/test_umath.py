"""Spec 3: quaternion and matrix helpers, against hand-derived values."""

import math

import pytest

from ivp import umath
from ivp.step.kernels import quat_from_rot_k


def approx_seq(a, b, tol=1e-12):
    return all(abs(x - y) <= tol for x, y in zip(a, b)) and len(a) == len(b)


def axis_angle(axis, angle):
    s = math.sin(angle / 2)
    n = math.sqrt(sum(c * c for c in axis))
    return (axis[0] / n * s, axis[1] / n * s, axis[2] / n * s, math.cos(angle / 2))


def test_quat_to_matrix_rotates_x_to_y_about_z():
    R = umath.quat_to_matrix(axis_angle((0, 0, 1), math.pi / 2))
    assert approx_seq(umath.rot_mul_v(R, (1.0, 0.0, 0.0)), (0.0, 1.0, 0.0))
    assert approx_seq(R, (0, -1, 0, 1, 0, 0, 0, 0, 1))


@pytest.mark.parametrize("axis,angle", [((1, 2, 3), 0.7), ((0, 1, 0), 3.0), ((1, 0, 0), math.pi),
                                        ((0.3, -1, 0.2), 2.9), ((0, 0, 1), 0.0)])
def test_matrix_to_quat_round_trip_both_branches(axis, angle):
    q = axis_angle(axis, angle)
    r = umath.matrix_to_quat(umath.quat_to_matrix(q))
    if r[3] * q[3] + r[0] * q[0] + r[1] * q[1] + r[2] * q[2] < 0:
        r = tuple(-c for c in r)
    assert approx_seq(r, q, 1e-12)


def test_hamilton_product_composes_rotations():
    a = axis_angle((0, 0, 1), 0.4)
    b = axis_angle((0, 0, 1), 0.5)
    assert approx_seq(umath.quat_mul(a, b), axis_angle((0, 0, 1), 0.9))
    i = (1.0, 0.0, 0.0, 0.0)
    j = (0.0, 1.0, 0.0, 0.0)
    assert umath.quat_mul(i, j) == (0.0, 0.0, 1.0, 0.0)        # i j = k


def test_normalize_threshold_1e_19():
    assert umath.quat_normalize((0.0, 0.0, 0.0, 2.0)) == (0.0, 0.0, 0.0, 1.0)
    tiny = (1e-10, 0.0, 0.0, 0.0)                                # |q|^2 = 1e-20
    assert umath.quat_normalize(tiny) == tiny


def test_slerp_halfway_is_half_the_angle():
    a = axis_angle((0, 1, 0), 0.0)
    b = axis_angle((0, 1, 0), 1.2)
    assert approx_seq(umath.quat_slerp(a, b, 0.5), axis_angle((0, 1, 0), 0.6))


def test_slerp_takes_the_short_way_for_negative_dot():
    a = axis_angle((0, 1, 0), 0.0)
    b = tuple(-c for c in axis_angle((0, 1, 0), 1.0))
    r = umath.quat_slerp(a, b, 0.5)
    assert approx_seq(r, axis_angle((0, 1, 0), 0.5)) or approx_seq(r, tuple(-c for c in axis_angle((0, 1, 0), 0.5)))


def test_slerp_lerp_branch_below_0_999():
    # d >= (f64)0.999f: componentwise lerp and two Newton steps of 1/sqrt(2n).
    a = axis_angle((1, 0, 0), 0.0)
    b = axis_angle((1, 0, 0), 0.08)               # d = cos(0.04) = 0.9992 > 0.999f
    t = 0.25
    r = [(b[i] - a[i]) * t + a[i] for i in range(4)]
    n = sum(c * c for c in r) * 0.5
    y = 1.5 - n
    y = (0.5 - y * y * n) + y
    y = (0.5 - y * y * n) + y
    expected = tuple(c * y for c in r)
    assert umath.quat_slerp(a, b, t) == expected
    # and it is not the exact slerp (the approximation shows at 1e-9)
    exact = axis_angle((1, 0, 0), 0.02)
    assert max(abs(x - y) for x, y in zip(expected, exact)) > 1e-12


def test_rotation_quaternions_poly_and_sin_agree_to_fifth_order():
    w = (1.3, -0.4, 2.1)
    dt = 1.0 / 66.0
    qs = quat_from_rot_k(*w, dt, False)
    qp = quat_from_rot_k(*w, dt, True)
    h = dt / 2
    assert approx_seq(qs[:3], tuple(math.sin(c * h) for c in w), 1e-16)
    assert abs(sum(c * c for c in qs) - 1.0) < 1e-15
    assert max(abs(x - y) for x, y in zip(qs, qp)) < (2.5 * h) ** 5
    # the small-angle rotation agrees with the exact axis-angle one
    angle = math.sqrt(sum(c * c for c in w)) * dt
    assert approx_seq(qs, axis_angle(w, angle), 1e-6)


def test_matrix_product_inverse_and_basis():
    R = umath.quat_to_matrix(axis_angle((1, 1, 0), 0.8))
    M = (R, (1.0, -2.0, 3.0))
    inv = umath.mat_inverse_ortho(M)
    ident = umath.mat_mul(M, inv)
    assert approx_seq(ident[0], umath.IDENTITY_R) and approx_seq(ident[1], (0, 0, 0))
    g = umath.mat_inverse_general(M)
    assert approx_seq(g[0], inv[0]) and approx_seq(g[1], inv[1])
    assert umath.mat_inverse_general(((1, 0, 0, 0, 1, 0, 0, 0, 0), (0, 0, 0))) is None
    for k in range(3):
        B = umath.orthonormal_basis((0.0, 2.0, 0.0), k)
        assert approx_seq(umath.rot_column(B, k), (0.0, 1.0, 0.0))
        BtB = umath.rot_mul(umath.rot_transpose(B), B)
        assert approx_seq(BtB, umath.IDENTITY_R)
        det = umath.dot(umath.rot_column(B, 0), umath.cross(umath.rot_column(B, 1), umath.rot_column(B, 2)))
        assert abs(det - 1.0) < 1e-12
    # the fallback vector when (a.y, a.z - a.x, -a.y) vanishes: a = (1, 0, 1)/sqrt2
    B = umath.orthonormal_basis((1.0, 0.0, 1.0), 2)
    assert approx_seq(umath.rot_column(B, 2), (2 ** -0.5, 0.0, 2 ** -0.5))
    # v = normalize(a.z, -a.z, a.y - a.x) = (1, -1, -1)/sqrt3 lands in column (k+2)%3 = 1
    s3 = 3 ** -0.5
    assert approx_seq(umath.rot_column(B, 1), (s3, -s3, -s3), 1e-12)
