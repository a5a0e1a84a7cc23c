"""umath's vector, rotation and quaternion helpers compiled (ivp.jit) for the
compiled passes, and kernel forms of fp.f32 and of spec 5's pushes (push_core,
rot_push_core_cs) and surface speed, in their order of operations."""

from __future__ import annotations

import numpy as np

from . import umath
from .jit import kernel


# umath's own functions, compiled: one source for both paths
vsub = kernel(umath.sub)
vdot = kernel(umath.dot)
vcross = kernel(umath.cross)
rot_mul_v_k = kernel(umath.rot_mul_v)
rot_t_mul_v_k = kernel(umath.rot_t_mul_v)
rot_mul_k = kernel(umath.rot_mul)
rot_transpose_k = kernel(umath.rot_transpose)
mat_mul_point_k = kernel(umath.mat_mul_point)
quat_mul_k = kernel(umath.quat_mul)
quat_to_matrix_k = kernel(umath.quat_to_matrix)
quat_slerp_k = kernel(umath.quat_slerp)
matrix_to_quat_k = kernel(umath.matrix_to_quat)


@kernel
def f32_k(x):
    """fp.f32 in a kernel: round to the nearest IEEE single."""
    return np.float64(np.float32(x))


@kernel
def f32v_k(v):
    return f32_k(v[0]), f32_k(v[1]), f32_k(v[2])


@kernel
def push_core_k(speed, rot_speed, ii, im, p_cs, imp_cs, imp_ws):
    """push_core (spec 5, 0x1000c8b0) on a core's speeds: the new
    (speed, rot_speed), every store f32."""
    c = f32v_k(vcross(p_cs, imp_cs))
    dw = (f32_k(ii[0] * c[0]), f32_k(ii[1] * c[1]), f32_k(ii[2] * c[2]))
    dv = (f32_k(imp_ws[0] * im), f32_k(imp_ws[1] * im), f32_k(imp_ws[2] * im))
    return (f32v_k((speed[0] + dv[0], speed[1] + dv[1], speed[2] + dv[2])),
            f32v_k((rot_speed[0] + dw[0], rot_speed[1] + dw[1], rot_speed[2] + dw[2])))


@kernel
def rot_push_core_cs_k(rot_speed, ii, t_cs):
    """rot_push_core_cs (spec 5, 0x1000cb70): rot_speed + inv_rot_inertia (.) t_cs."""
    return (f32_k(rot_speed[0] + f32_k(ii[0] * t_cs[0])), f32_k(rot_speed[1] + f32_k(ii[1] * t_cs[1])),
            f32_k(rot_speed[2] + f32_k(ii[2] * t_cs[2])))


@kernel
def surface_speed_k(R, speed, rot_speed, p_cs):
    """get_surface_speed_on_test (spec 5, 0x1000c810 / 0x1000bf90): speed +
    R (rot_speed x p_cs), world, f32; Core.get_surface_speed_on_test runs it."""
    r = rot_mul_v_k(R, vcross(rot_speed, p_cs))
    return f32v_k((speed[0] + r[0], speed[1] + r[1], speed[2] + r[2]))
