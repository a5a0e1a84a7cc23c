"""The single-impact solver (ivp-contacts 4.3-4.6) as a compiled kernel
(ivp.jit): the compression steps inside the friction cone, the frictionless
restitution and the rescue push on two trial bodies given as floats, in the
order of operations of the solver's description. A trial body is (fixed, R,
r, v, w, im, ii): rotation of its core, lever arm in core coordinates, trial
velocities (pending pushes included, 4.2), inverse mass and inverse rotation
inertia; a fixed one is never pushed and moves nowhere.
"""

from __future__ import annotations

import math

from ..jit import kernel
from ..kmath import f32_k, rot_mul_v_k, rot_t_mul_v_k, vcross, vdot
from ..umath import ZERO
from .constants import (
    COMPRESSION_STEP_LIMIT,
    FIXED_VIRTUAL_MASS_FACTOR,
    IMPACT_EPS,
    IMPACT_STEP_FRACTION,
    INV_HALF_CONSERVATION_STEPS,
    MIN_VERTICAL_SPEED_AT_COLLISION,
    SAFETY_FACTOR_FOR_DELAY,
    SPEED_ADDON_SYSTEM_IMPACT,
)


@kernel
def lever_speed(fixed, R, r, v, w):
    """v + R (w x r) at the lever point (a fixed body's: zero)."""
    if fixed:
        return ZERO
    o = rot_mul_v_k(R, vcross(w, r))
    return (v[0] + o[0], v[1] + o[1], v[2] + o[2])


@kernel
def impulse_change(R, r, im, ii, J, d):
    """(dv, dw) of the impulse J d at the lever point (4.4 push)."""
    t = vcross(r, rot_t_mul_v_k(R, d))
    return ((J * d[0] * im, J * d[1] * im, J * d[2] * im),
            (J * ii[0] * t[0], J * ii[1] * t[1], J * ii[2] * t[2]))


@kernel
def _lever_change(R, r, im, ii, J, d):
    """The lever point's speed change from the impulse J d: dv + R (dw x r)."""
    dv, dw = impulse_change(R, r, im, ii, J, d)
    o = rot_mul_v_k(R, vcross(dw, r))
    return (dv[0] + o[0], dv[1] + o[1], dv[2] + o[2])


@kernel
def _point_response(R, r, im, ii, d):
    """|speed change of the lever point| per unit impulse along d."""
    x = _lever_change(R, r, im, ii, 1.0, d)
    return math.sqrt(vdot(x, x))


@kernel
def _push(fixed, R, r, im, ii, v, w, J, d):
    """A trial body pushed by J d: its new (v, w) and the change (for undo)."""
    if fixed:
        return v, w, ZERO, ZERO
    dv, dw = impulse_change(R, r, im, ii, J, d)
    return (v[0] + dv[0], v[1] + dv[1], v[2] + dv[2]), (w[0] + dw[0], w[1] + dw[1], w[2] + dw[2]), dv, dw


@kernel
def _undo(v, w, dv, dw):
    """The last push taken back (a fixed body's change is zero)."""
    return (v[0] - dv[0], v[1] - dv[1], v[2] - dv[2]), (w[0] - dw[0], w[1] - dw[1], w[2] - dw[2])


@kernel
def approx_cos(phi):
    """4.4: 1 - phi^2/2 + phi^4/24, stored f32."""
    p2 = phi * phi
    return f32_k(1.0 - p2 * 0.5 + p2 * p2 / 24.0)


@kernel
def _normalize(v):
    d = math.sqrt(vdot(v, v))
    if d == 0.0:
        return v
    return (v[0] / d, v[1] / d, v[2] / d)


@kernel
def direction(u, N, cos_c, sin_c):
    """4.4 direction(u, N): u's direction, clipped to the friction cone around -N."""
    d = _normalize(u)
    c = vdot(d, N)
    if c > 0.0:
        return d
    if c > -cos_c:
        t = _normalize((d[0] - c * N[0], d[1] - c * N[1], d[2] - c * N[2]))
        return (sin_c * t[0] - cos_c * N[0], sin_c * t[1] - cos_c * N[1], sin_c * t[2] - cos_c * N[2])
    return d


@kernel
def _rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb):
    """The relative velocity of B's lever point against A's."""
    b = lever_speed(fb, Rb, rb, vb, wb)
    a = lever_speed(fa, Ra, ra, va, wa)
    return (b[0] - a[0], b[1] - a[1], b[2] - a[2])


@kernel
def _rescue_push(fa, Ra, ra, ima, iia, va, wa, fb, Rb, rb, imb, iib, vb, wb, N, rescue, panic):
    """4.6 rescue_push(-N, panic): at least the rescue speed of separation;
    the new (va, wa, vb, wb)."""
    sep = vdot(_rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb), N)
    if panic and sep > 0.0:
        sep = 0.0
    want = rescue - sep
    if want < 0.0:
        return va, wa, vb, wb
    k = 0.0                             # s (change of s N) . N for B (s = 1), then A (s = -1)
    if not fb:
        k += vdot(_lever_change(Rb, rb, imb, iib, 1.0, N), N)
    if not fa:
        k -= vdot(_lever_change(Ra, ra, ima, iia, -1.0, N), N)
    J = want / (k + 1e-15)
    if J < 0.0:
        return va, wa, vb, wb
    vb, wb, _, _ = _push(fb, Rb, rb, imb, iib, vb, wb, J, N)
    va, wa, _, _ = _push(fa, Ra, ra, ima, iia, va, wa, -J, N)
    return va, wa, vb, wb


@kernel
def impact_solve(fa, Ra, ra, va, wa, ima, iia, fb, Rb, rb, vb, wb, imb, iib, N, mu, e, addon, system_pushes):
    """4.3-4.6 for trial bodies A and B (N from A to B): (u before the
    impact, A's and B's new v and w, vm_A, vm_B, the rescue speed, delaying)."""
    u = _rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb)
    u_before = u
    used_e = 1.0 - (1.0 - e) / (INV_HALF_CONSERVATION_STEPS * system_pushes + 1.0)
    rescue = (MIN_VERTICAL_SPEED_AT_COLLISION + addon) * SAFETY_FACTOR_FOR_DELAY
    minus_N = (-N[0], -N[1], -N[2])
    if fb:
        vm_A = 1.0 / _point_response(Ra, ra, ima, iia, minus_N)
        vm_B = FIXED_VIRTUAL_MASS_FACTOR * vm_A
    else:
        vm_B = 1.0 / _point_response(Rb, rb, imb, iib, N)
        vm_A = FIXED_VIRTUAL_MASS_FACTOR * vm_B if fa else 1.0 / _point_response(Ra, ra, ima, iia, minus_N)
    un = vdot(u, N)
    delaying = True
    if un > -IMPACT_EPS:
        va, wa, vb, wb = _rescue_push(fa, Ra, ra, ima, iia, va, wa, fb, Rb, rb, imb, iib, vb, wb, N, rescue, True)
        if system_pushes > 10:
            delaying = False
        return u_before, va, wa, vb, wb, vm_A, vm_B, rescue, delaying
    J0 = 2.0 * vm_A * vm_B / (vm_A + vm_B) * (-un)
    step = IMPACT_STEP_FRACTION * J0
    se = math.sqrt(used_e)
    tan_c = mu * (1.0 + se)
    phi = math.atan(tan_c)
    cos_c = approx_cos(phi)
    sin_c = cos_c * tan_c
    vn = -un
    give = vn * se + SPEED_ADDON_SYSTEM_IMPACT * math.sqrt(system_pushes)
    d = direction(u, N, cos_c, sin_c)
    count = 0
    while vn > 0.0 and count < COMPRESSION_STEP_LIMIT:
        count += 1
        va, wa, _, _ = _push(fa, Ra, ra, ima, iia, va, wa, step, d)
        vb, wb, _, _ = _push(fb, Rb, rb, imb, iib, vb, wb, -step, d)
        u = _rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb)
        vn = -vdot(u, N)
        d = direction(u, N, cos_c, sin_c)
    # 4.5 restitution, frictionless
    give += vn
    if give > 0.0 and count != COMPRESSION_STEP_LIMIT:
        va, wa, dva, dwa = _push(fa, Ra, ra, ima, iia, va, wa, 1.0, minus_N)
        vb, wb, dvb, dwb = _push(fb, Rb, rb, imb, iib, vb, wb, -1.0, minus_N)
        s1 = vdot(_rel(fa, Ra, ra, va, wa, fb, Rb, rb, vb, wb), N)
        ds = s1 + vn
        J = give / ds if abs(ds) > 1e-4 else 0.0
        va, wa = _undo(va, wa, dva, dwa)
        vb, wb = _undo(vb, wb, dvb, dwb)
        va, wa, _, _ = _push(fa, Ra, ra, ima, iia, va, wa, J, minus_N)
        vb, wb, _, _ = _push(fb, Rb, rb, imb, iib, vb, wb, -J, minus_N)
    va, wa, vb, wb = _rescue_push(fa, Ra, ra, ima, iia, va, wa, fb, Rb, rb, imb, iib, vb, wb, N, rescue, False)
    return u_before, va, wa, vb, wb, vm_A, vm_B, rescue, delaying
