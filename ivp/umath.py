"""Spec 3 (and the helpers listed at the head of 12): quaternions and matrices
as plain data, so a world snapshots exactly: a vector ``(x, y, z)``, a
quaternion ``(x, y, z, w)``, a rotation a row-major 9-tuple (``R[r][c]`` at
``3*r + c``), a matrix (``IVP_U_Matrix``) a pair ``(R, vv)``, world =
R . local + vv (0.1). Four rows of the spec's table are cut short in the
text (iterative normalize, the polynomial and sine rotation quaternions, f64
normalize; the first three in ivp.step.kernels): their rest is
reconstructed from the spec (8.3 names the 1/sqrt scheme), as each says."""

from __future__ import annotations

import math

from .fp import QUAT_NORM_EPS, SLERP_LERP_LIMIT, isqrt_newton

IDENTITY_R = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
ZERO = (0.0, 0.0, 0.0)
IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)
IDENTITY_M = (IDENTITY_R, ZERO)


# --- vectors ---------------------------------------------------------------

def dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def scale(a, k: float):
    return (a[0] * k, a[1] * k, a[2] * k)


def length(a) -> float:
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


def normalize_f64(v):
    """0x1000e120: v / |v| with the Newton 1/sqrt; unchanged if |v|^2 < 1e-19.

    Reconstructed (the table row is cut): 13.1 gives the threshold, 8.3 the
    bit-trick guess and five Newton steps.
    """
    n = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
    if n < QUAT_NORM_EPS:
        return v
    y = isqrt_newton(n)
    return (v[0] * y, v[1] * y, v[2] * y)


def normalize_len(v):
    """0x1000df30: (v / |v|, |v|) with the Newton 1/sqrt; (v, 0) if |v|^2 < 1e-19."""
    n = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
    if n < QUAT_NORM_EPS:
        return v, 0.0
    y = isqrt_newton(n)
    return (v[0] * y, v[1] * y, v[2] * y), n * y


# --- quaternions -----------------------------------------------------------

def quat_to_matrix(q):
    """0x100190c0: rotation matrix of q (x2 = 2x etc., as the original computes).

    Each of the nine products appears in two entries; it is computed once.
    """
    x, y, z, w = q
    x2 = x + x
    y2 = y + y
    z2 = z + z
    xx = x2 * x
    yy = y2 * y
    zz = z2 * z
    xy = x2 * y
    zw = z2 * w
    yw = y2 * w
    zx = z2 * x
    zy = z2 * y
    xw = x2 * w
    return (1.0 - (zz + yy), xy - zw, yw + zx,
            zw + xy, 1.0 - (zz + xx), zy - xw,
            zx - yw, xw + zy, 1.0 - (yy + xx))


def quat_normalize(q):
    """Spec 2.3 (0x100194e0): the cheap normalize, skipped when |q|^2 <= 1e-19."""
    x, y, z, w = q
    n2 = x * x + y * y + z * z + w * w
    if n2 > QUAT_NORM_EPS:
        s = 1.0 / math.sqrt(n2)
        return (x * s, y * s, z * s, w * s)
    return q


def matrix_to_quat(R):
    """0x100191b0: quaternion of a rotation matrix, then normalize (2.3).

    Written without containers, so ivp.kmath compiles this same source."""
    t = R[0] + R[4] + R[8]
    if t > 0.0:
        s = math.sqrt(t + 1.0)
        w = s * 0.5
        s = 0.5 / s
        x, y, z = (R[7] - R[5]) * s, (R[2] - R[6]) * s, (R[3] - R[1]) * s
    else:
        i = 1 if R[0] < R[4] else 0
        if R[4 * i] < R[8]:
            i = 2
        j = (i + 1) % 3
        k = (j + 1) % 3
        s = math.sqrt(R[4 * i] - (R[4 * k] + R[4 * j]) + 1.0)
        vi = s * 0.5
        vj = 0.0
        vk = 0.0
        w = 0.0
        if s != 0.0:
            s = 0.5 / s
            w = (R[3 * k + j] - R[3 * j + k]) * s
            vj = (R[3 * j + i] + R[3 * i + j]) * s
            vk = (R[3 * k + i] + R[3 * i + k]) * s
        if i == 0:
            x, y, z = vi, vj, vk
        elif i == 1:
            x, y, z = vk, vi, vj
        else:
            x, y, z = vj, vk, vi
    n2 = x * x + y * y + z * z + w * w          # quat_normalize (2.3)
    if n2 > QUAT_NORM_EPS:
        s = 1.0 / math.sqrt(n2)
        return (x * s, y * s, z * s, w * s)
    return (x, y, z, w)


def quat_mul(a, b):
    """0x1001e7c0: Hamilton product a (x) b."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def quat_slerp(a, b, t: float):
    """0x10019320: slerp with the 0.999 lerp branch and two Newton steps."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    d = ax * bx + ay * by + az * bz + aw * bw
    if d <= 0.0:
        d = -d
        sign = -1.0
    else:
        sign = 1.0
    if d < SLERP_LERP_LIMIT:
        theta = math.acos(d)
        k = 1.0 / math.sqrt(1.0 - d * d)
        ca = math.sin((1.0 - t) * theta) * k
        cb = math.sin(t * theta) * sign * k
        return (cb * bx + ca * ax, cb * by + ca * ay, cb * bz + ca * az, cb * bw + ca * aw)
    rx = (sign * bx - ax) * t + ax
    ry = (sign * by - ay) * t + ay
    rz = (sign * bz - az) * t + az
    rw = (sign * bw - aw) * t + aw
    n = (rx * rx + ry * ry + rz * rz + rw * rw) * 0.5
    y = 1.5 - n
    y = (0.5 - y * y * n) + y
    y = (0.5 - y * y * n) + y
    return (rx * y, ry * y, rz * y, rw * y)


# --- rotations and matrices -------------------------------------------------

def rot_mul_v(R, v):
    """0x1000f6f0: R . v."""
    x, y, z = v
    return (R[0] * x + R[1] * y + R[2] * z,
            R[3] * x + R[4] * y + R[5] * z,
            R[6] * x + R[7] * y + R[8] * z)


def rot_t_mul_v(R, v):
    """0x1000f760: R^T . v."""
    x, y, z = v
    return (R[0] * x + R[3] * y + R[6] * z,
            R[1] * x + R[4] * y + R[7] * z,
            R[2] * x + R[5] * y + R[8] * z)


def rot_mul(A, B):
    """Rotation product A . B (0x1000ef10)."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6],
            A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8],
            A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
            A[3] * B[1] + A[4] * B[4] + A[5] * B[7],
            A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6],
            A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


def rot_transpose(R):
    return (R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8])


def rot_column(R, c: int):
    return (R[c], R[3 + c], R[6 + c])


def rot_from_columns(c0, c1, c2):
    return (c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2])


def mat_mul(A, B):
    """0x1000ec90: C = A . B; C.R = A.R B.R, C.vv = A.R B.vv + A.vv."""
    ra, va = A
    rb, vb = B
    return rot_mul(ra, rb), add(rot_mul_v(ra, vb), va)


def mat_inverse_ortho(M):
    """0x1000f2c0: inverse of an orthonormal matrix: R^T, -R^T vv."""
    R, vv = M
    rt = rot_transpose(R)
    v = rot_mul_v(rt, vv)
    return rt, (-v[0], -v[1], -v[2])


def mat_mul_point(M, p):
    """0x1000f5f0 / 0x1000f4c0: R . p + vv."""
    R, vv = M
    x, y, z = p
    return (R[0] * x + R[1] * y + R[2] * z + vv[0],
            R[3] * x + R[4] * y + R[5] * z + vv[1],
            R[6] * x + R[7] * y + R[8] * z + vv[2])


def mat_inv_mul_point(M, p):
    """0x1000f3e0: R^T . (p - vv)."""
    R, vv = M
    return rot_t_mul_v(R, (p[0] - vv[0], p[1] - vv[1], p[2] - vv[2]))


def mat_inverse_general(M, eps: float = 1e-19):
    """0x1000e8f0: general inverse by cofactors; None when |det| < eps."""
    R, vv = M
    a, b, c, d, e, f, g, h, i = R
    c00 = e * i - f * h
    c01 = f * g - d * i
    c02 = d * h - e * g
    det = a * c00 + b * c01 + c * c02
    if abs(det) < eps:
        return None
    k = 1.0 / det
    inv = (c00 * k, (c * h - b * i) * k, (b * f - c * e) * k,
           c01 * k, (a * i - c * g) * k, (c * d - a * f) * k,
           c02 * k, (b * g - a * h) * k, (a * e - b * d) * k)
    t = rot_mul_v(inv, vv)
    return inv, (-t[0], -t[1], -t[2])


def orthonormal_basis(axis, k: int):
    """0x1000eb60: rotation whose column k is the unit axis.

    v = normalize(a.y, a.z - a.x, -a.y), or normalize(a.z, -a.z, a.y - a.x)
    if that fails; col[(k+1)%3] = v x a, col[(k+2)%3] = v.
    """
    a = normalize_f64(axis)
    v = (a[1], a[2] - a[0], -a[1])
    if v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < QUAT_NORM_EPS:
        v = (a[2], -a[2], a[1] - a[0])
    v = normalize_f64(v)
    cols = [None, None, None]
    cols[k] = a
    cols[(k + 1) % 3] = cross(v, a)
    cols[(k + 2) % 3] = v
    return rot_from_columns(*cols)
