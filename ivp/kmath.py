"""umath's vector helpers and the f32 store as kernels (ivp.jit), for the
compiled passes: 3-tuples of floats and 9-tuple rotations, in umath's order
of operations (umath.sub, dot, cross, rot_mul_v, rot_t_mul_v; fp.f32)."""

from __future__ import annotations

import numpy as np

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
