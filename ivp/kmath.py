"""umath's vector helpers, the f32 store and a core's pushes as kernels
(ivp.jit), for the compiled passes: 3-tuples of floats and 9-tuple rotations,
in the order of operations of umath (sub, dot, cross, rot_mul_v, rot_t_mul_v,
rot_mul, mat_mul_point, matrix_to_quat), fp.f32 and Core (push_core,
rot_push_core_cs, get_surface_speed_on_test)."""

from __future__ import annotations

import math

import numpy as np

from .fp import QUAT_NORM_EPS
from .jit import kernel


@kernel
def vsub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel
def vdot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def vcross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel
def f32_k(x):
    """fp.f32 in a kernel: round to the nearest IEEE single."""
    return np.float64(np.float32(x))


@kernel
def f32v_k(v):
    return f32_k(v[0]), f32_k(v[1]), f32_k(v[2])


@kernel
def rot_mul_v_k(R, v):
    return (R[0] * v[0] + R[1] * v[1] + R[2] * v[2],
            R[3] * v[0] + R[4] * v[1] + R[5] * v[2],
            R[6] * v[0] + R[7] * v[1] + R[8] * v[2])


@kernel
def rot_t_mul_v_k(R, v):
    return (R[0] * v[0] + R[3] * v[1] + R[6] * v[2],
            R[1] * v[0] + R[4] * v[1] + R[7] * v[2],
            R[2] * v[0] + R[5] * v[1] + R[8] * v[2])


@kernel
def rot_mul_k(A, B):
    """umath.rot_mul: A . B of two 9-tuple rotations."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6],
            A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8],
            A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
            A[3] * B[1] + A[4] * B[4] + A[5] * B[7],
            A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6],
            A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


@kernel
def rot_transpose_k(R):
    return (R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8])


@kernel
def mat_mul_point_k(R, vv, p):
    """umath.mat_mul_point: R . p + vv."""
    return (R[0] * p[0] + R[1] * p[1] + R[2] * p[2] + vv[0],
            R[3] * p[0] + R[4] * p[1] + R[5] * p[2] + vv[1],
            R[6] * p[0] + R[7] * p[1] + R[8] * p[2] + vv[2])


@kernel
def matrix_to_quat_k(R):
    """umath.matrix_to_quat (0x100191b0, then quat_normalize)."""
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
        v = np.zeros(3)
        v[i] = s * 0.5
        w = 0.0
        if s != 0.0:
            s = 0.5 / s
            w = (R[3 * k + j] - R[3 * j + k]) * s
            v[j] = (R[3 * j + i] + R[3 * i + j]) * s
            v[k] = (R[3 * k + i] + R[3 * i + k]) * s
        x, y, z = v[0], v[1], v[2]
    n2 = x * x + y * y + z * z + w * w
    if n2 > QUAT_NORM_EPS:
        s = 1.0 / math.sqrt(n2)
        return (x * s, y * s, z * s, w * s)
    return (x, y, z, w)


@kernel
def push_core_k(speed, rot_speed, ii, im, p_cs, imp_cs, imp_ws):
    """Core.push_core (spec 5, 0x1000c8b0) on a core's speeds: the new
    (speed, rot_speed), every store f32."""
    c = f32v_k(vcross(p_cs, imp_cs))
    dw = (f32_k(ii[0] * c[0]), f32_k(ii[1] * c[1]), f32_k(ii[2] * c[2]))
    dv = (f32_k(imp_ws[0] * im), f32_k(imp_ws[1] * im), f32_k(imp_ws[2] * im))
    return (f32v_k((speed[0] + dv[0], speed[1] + dv[1], speed[2] + dv[2])),
            f32v_k((rot_speed[0] + dw[0], rot_speed[1] + dw[1], rot_speed[2] + dw[2])))


@kernel
def rot_push_core_cs_k(rot_speed, ii, t_cs):
    """Core.rot_push_core_cs (spec 5, 0x1000cb70): rot_speed + inv_rot_inertia (.) t_cs."""
    return (f32_k(rot_speed[0] + f32_k(ii[0] * t_cs[0])), f32_k(rot_speed[1] + f32_k(ii[1] * t_cs[1])),
            f32_k(rot_speed[2] + f32_k(ii[2] * t_cs[2])))


@kernel
def surface_speed_k(R, speed, rot_speed, p_cs):
    """Core.get_surface_speed_on_test (spec 5): speed + R (rot_speed x p_cs), f32."""
    r = rot_mul_v_k(R, vcross(rot_speed, p_cs))
    return f32v_k((speed[0] + r[0], speed[1] + r[1], speed[2] + r[2]))
