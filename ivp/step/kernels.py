"""The dynamics kernels over the body table's rows (issue 11, ivp.state.layout):
dynamics 6.3 (the begin of the PSI and the head of do_sim_unit_PSI), 10.1 (the
sleep count-down and its RNG draw), 7.1 / 7.3 (gravity and damping), 10.2 (the
calm test) and 8.2 / 8.3 (the integration), in the object path's order of
operations with its f32 stores; the runs of lane units (ivp.step.runs) and
the object path call the same ones."""

from __future__ import annotations

import math

import numpy as np

from ..fp import (ASIN_S5_F, GYRO_144, GYRO_X_LIMIT, MINUS_FIVE_F, ONE_SIXTH_F, QUAT_NORM_EPS, RNG_SCALE_F,
                 SLEEP_LONG_WINDOW, SLEEP_POS0, SLEEP_POS1, SLEEP_ROT0, SLEEP_ROT1, isqrt_newton_k)
from ..jit import kernel
from ..kmath import f32_k, quat_mul_k, quat_to_matrix_k
from ..state.layout import (ABS_OMEGA, AXIS, CALM_P0, CALM_P1, CALM_Q0, CALM_Q1, CALM_T, CUR_SPEED, DAMP, DAMP_CALM,
                           DELTA, DEVIATION, EQUAL_I, HAS_MAX_ROT, I_DT, INV_I, M_POS, M_R, MAX_ROT, MAX_SURF_ROT,
                           POS, Q_LAST, Q_NEXT, RADIUS, ROT_I, ROT_SPEED, ROT_SPEED_CHANGE, SPEED, SPEED_CHANGE,
                           STATE, T_LAST)
from ..states import MT_CALM, MT_SLOW


@kernel
def _rng(seed):
    """rng.rng on an explicit seed: (new seed, value)."""
    seed = (seed * 75) & 0xFFFFFFFF
    return seed, (seed & 0xFFFF) * RNG_SCALE_F


@kernel
def calm_state(S, k, t, fct):
    """Core.calc_movement_state (10.2) on row k: 1 moving, 2 slow, 3 calm."""
    R = S[k, RADIUS]
    d0x = S[k, POS] - S[k, CALM_P0]
    d0y = S[k, POS + 1] - S[k, CALM_P0 + 1]
    d0z = S[k, POS + 2] - S[k, CALM_P0 + 2]
    if d0x * d0x + d0y * d0y + d0z * d0z <= SLEEP_POS0:
        dq = (S[k, CALM_Q0] * S[k, Q_NEXT] + S[k, CALM_Q0 + 1] * S[k, Q_NEXT + 1]
              + S[k, CALM_Q0 + 2] * S[k, Q_NEXT + 2] + S[k, CALM_Q0 + 3] * S[k, Q_NEXT + 3])
        if (1.0 - dq * dq) * 2.0 * R * R <= SLEEP_ROT0:
            return MT_CALM if t - S[k, CALM_T] > fct else MT_SLOW
    for i in range(4):
        S[k, CALM_Q0 + i] = f32_k(S[k, Q_NEXT + i])
    for i in range(3):
        S[k, CALM_P0 + i] = f32_k(S[k, POS + i])
    S[k, CALM_T] = t
    d1x = S[k, POS] - S[k, CALM_P1]
    d1y = S[k, POS + 1] - S[k, CALM_P1 + 1]
    d1z = S[k, POS + 2] - S[k, CALM_P1 + 2]
    dq = (S[k, CALM_Q1] * S[k, Q_LAST] + S[k, CALM_Q1 + 1] * S[k, Q_LAST + 1]
          + S[k, CALM_Q1 + 2] * S[k, Q_LAST + 2] + S[k, CALM_Q1 + 3] * S[k, Q_LAST + 3])
    if d1x * d1x + d1y * d1y + d1z * d1z > SLEEP_POS1 or (1.0 - dq * dq) * 2.0 * R * R > SLEEP_ROT1:
        for i in range(4):
            S[k, CALM_Q1 + i] = f32_k(S[k, Q_LAST + i])
        for i in range(3):
            S[k, CALM_P1 + i] = f32_k(S[k, POS + i])
        S[k, CALM_T + 1] = t
        return 1
    return MT_CALM if t - S[k, CALM_T + 1] > SLEEP_LONG_WINDOW else 1


@kernel
def begin_row(S, k, t):
    """Spec 6.3, a core's step at the head of do_sim_unit_PSI, on row k: the
    pose at t (0x10012470), the pushes made since the last commit landed
    (5); returns the fast test, the sign bit of (f32)(1 - |speed|^2)
    (|speed| > 1 m/s: rounding to f32 keeps the sign, so it is read from
    the f64 value)."""
    dtp = t - S[k, T_LAST]
    R = quat_to_matrix_k((S[k, Q_NEXT], S[k, Q_NEXT + 1], S[k, Q_NEXT + 2], S[k, Q_NEXT + 3]))
    for i in range(9):
        S[k, M_R + i] = R[i]
    for i in range(3):
        S[k, M_POS + i] = S[k, POS + i] + S[k, DELTA + i] * dtp
    for i in range(3):
        S[k, ROT_SPEED + i] = f32_k(S[k, ROT_SPEED + i] + S[k, ROT_SPEED_CHANGE + i])
        S[k, SPEED + i] = f32_k(S[k, SPEED + i] + S[k, SPEED_CHANGE + i])
        S[k, ROT_SPEED_CHANGE + i] = 0.0
        S[k, SPEED_CHANGE + i] = 0.0
    sx = S[k, SPEED]
    sy = S[k, SPEED + 1]
    sz = S[k, SPEED + 2]
    return math.copysign(1.0, 1.0 - (sx * sx + sy * sy + sz * sz)) < 0.0


@kernel
def countdown_k(countdown, seed):
    """Spec 10.1 (0x10013610) on an explicit count-down and seed: whether
    the count-down reached zero (and was reloaded with 15 - trunc(r . -5),
    r the RNG's draw); (fired, count-down, seed)."""
    countdown = (countdown - 1) & 0xFFFF
    if countdown != 0:
        return False, countdown, seed
    seed, r = _rng(seed)
    return True, 15 - int(r * MINUS_FIVE_F), seed


@kernel
def unit_flags(flags, u, fast, valve, countdown, seed):
    """The rest of do_sim_unit_PSI's head (6.3) for a unit whose cores' fast
    tests gave ``fast``, its (fast, fast_prev) flags row u: the flags and the
    sleep count-down (10.1). Returns (whether the unit takes the sleep test,
    whether its cores' calm windows restart (0x1000cec0), count-down, seed)."""
    test_sleep = False
    reset = False
    if fast:
        flags[u, 0] = 1
        tick = valve
    else:
        flags[u, 1] = flags[u, 0]
        reset = flags[u, 1] != 0
        flags[u, 0] = 0
        tick = True
    if tick:
        fired, countdown, seed = countdown_k(countdown, seed)
        test_sleep = fired and not fast
    return test_sleep, reset, countdown, seed


@kernel
def begin_unit(S, k, flags, u, t, valve, countdown, seed):
    """The head of do_sim_unit_PSI (6.3) for a unit of one core, row k, its
    (fast, fast_prev) flags row u: begin_row, then unit_flags. Returns
    (whether the unit takes the sleep test, count-down, seed)."""
    fast = begin_row(S, k, t)
    test_sleep, reset, countdown, seed = unit_flags(flags, u, fast, valve, countdown, seed)
    if reset:
        S[k, CALM_T] = t
        S[k, CALM_T + 1] = t
    return test_sleep, countdown, seed


@kernel
def gravity_k(speed, rot_speed, speed_change, rot_speed_change, damp, gx, gy, gz):
    """The gravity controller (7.1) on a core's speeds: damp (7.3, ``damp``
    the rotation factors then the speed's), commit the pending changes (zero
    but for a several-point system's energy damping, 5.8: f32(x + 0) is
    x + 0 for an f32 x), speed += g dt, stored f32. Returns (speed,
    rot_speed)."""
    rx = f32_k(f32_k(rot_speed[0] * damp[0]) + rot_speed_change[0])
    ry = f32_k(f32_k(rot_speed[1] * damp[1]) + rot_speed_change[1])
    rz = f32_k(f32_k(rot_speed[2] * damp[2]) + rot_speed_change[2])
    sx = f32_k(f32_k(f32_k(speed[0] * damp[3]) + speed_change[0]) + gx)
    sy = f32_k(f32_k(f32_k(speed[1] * damp[3]) + speed_change[1]) + gy)
    sz = f32_k(f32_k(f32_k(speed[2] * damp[3]) + speed_change[2]) + gz)
    return (sx, sy, sz), (rx, ry, rz)


@kernel
def gravity_row(S, k, gx, gy, gz):
    """:func:`gravity_k` on row k (its damping by the row's movement
    state), the pending changes zeroed."""
    d = DAMP_CALM if S[k, STATE] >= MT_SLOW else DAMP
    v, w = gravity_k((S[k, SPEED], S[k, SPEED + 1], S[k, SPEED + 2]),
                     (S[k, ROT_SPEED], S[k, ROT_SPEED + 1], S[k, ROT_SPEED + 2]),
                     (S[k, SPEED_CHANGE], S[k, SPEED_CHANGE + 1], S[k, SPEED_CHANGE + 2]),
                     (S[k, ROT_SPEED_CHANGE], S[k, ROT_SPEED_CHANGE + 1], S[k, ROT_SPEED_CHANGE + 2]),
                     (S[k, d], S[k, d + 1], S[k, d + 2], S[k, d + 3]), gx, gy, gz)
    for i in range(3):
        S[k, SPEED + i] = v[i]
        S[k, ROT_SPEED + i] = w[i]
        S[k, ROT_SPEED_CHANGE + i] = 0.0
        S[k, SPEED_CHANGE + i] = 0.0


@kernel
def unit_head_k(S, rows, flags, t, valve, countdown, seed):
    """The head of do_sim_unit_PSI (6.3) for a unit of the cores of
    ``rows``, its (fast, fast_prev) flags row 0: each core's begin_row,
    last first, then unit_flags, the calm windows of every core restarted
    when the unit slowed (0x1000cec0). Returns (whether the unit takes the
    sleep test, count-down, seed)."""
    n = rows.shape[0]
    fast = False
    for u in range(n - 1, -1, -1):
        if begin_row(S, rows[u], t):
            fast = True
    test_sleep, reset, countdown, seed = unit_flags(flags, 0, fast, valve, countdown, seed)
    if reset:
        for u in range(n - 1, -1, -1):
            S[rows[u], CALM_T] = t
            S[rows[u], CALM_T + 1] = t
    return test_sleep, countdown, seed


@kernel
def gravity_rows_k(S, rows, gx, gy, gz):
    """gravity_row on each of ``rows``."""
    for u in range(rows.shape[0]):
        gravity_row(S, rows[u], gx, gy, gz)


@kernel
def unit_calm_k(S, rows, t, fct):
    """try_to_freeze's test (10.2) on the unit's rows: each core's calm
    state (last first) into its row; whether every one is calm."""
    acc = 3
    for u in range(rows.shape[0] - 1, -1, -1):
        s = calm_state(S, rows[u], t, fct)
        S[rows[u], STATE] = s
        acc &= s
    return acc == 3


@kernel
def quat_from_rot_k(wx, wy, wz, dt, poly):
    """The rotation quaternion of the angular velocity w over dt (8.2),
    s_i = w_i h - (w_i h)^3 (f32)(1/6) with h = dt/2 (poly, 0x10018f80) or
    s_i = sin(w_i h) (0x10019010). Reconstructed past the cut: the scalar
    part completes the unit norm, sqrt(1 - |s|^2) (clamped at 0)."""
    h = dt * 0.5
    if poly:
        sx = wx * h
        sy = wy * h
        sz = wz * h
        sx = sx - sx * sx * sx * ONE_SIXTH_F
        sy = sy - sy * sy * sy * ONE_SIXTH_F
        sz = sz - sz * sz * sz * ONE_SIXTH_F
    else:
        sx = math.sin(wx * h)
        sy = math.sin(wy * h)
        sz = math.sin(wz * h)
    n = sx * sx + sy * sy + sz * sz
    if n < 1.0:
        return sx, sy, sz, math.sqrt(1.0 - n)
    kk = 1.0 / math.sqrt(n)
    return sx * kk, sy * kk, sz * kk, 0.0


@kernel
def gyro_sub_steps(w, dt):
    """Spec 8.2: n = trunc(sqrt(144 x)) + 1 when x = |w|^2 dt^2 > 1/36, else 1."""
    x = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * dt * dt
    return int(math.sqrt(x * GYRO_144)) + 1 if x > GYRO_X_LIMIT else 1


@kernel
def integrate_k(S, rows, delta_time, i_delta_time, t, max_w, max_v, gyro):
    """Spec 8.2 (calc_next_psi_matrix, 0x1001e300: the clamps, this PSI's
    rotation, the PSI advanced) and 8.3 (calc_rotation_info, 0x1001e870)
    for the rows; rows over an anomaly limit (9) are left as they are and
    returned. ``gyro``: the gyroscopic sub-steps for unequal inertias (a
    PSI's integration; between PSIs the plain sine quaternion). The
    normalize after q_next (x) Q is 0x10019540's, reconstructed (the table
    row is cut): the bit-trick guess and five Newton steps of 0x1000e120."""
    buf = np.empty(1)
    ibuf = buf.view(np.int64)
    over = np.empty(rows.shape[0], dtype=np.int64)
    n_over = 0
    for u in range(rows.shape[0]):
        k = rows[u]
        wx = S[k, ROT_SPEED]
        wy = S[k, ROT_SPEED + 1]
        wz = S[k, ROT_SPEED + 2]
        if S[k, HAS_MAX_ROT] != 0.0:
            m0 = S[k, MAX_ROT]
            m1 = S[k, MAX_ROT + 1]
            m2 = S[k, MAX_ROT + 2]
            if wx > m0:
                wx = m0
            elif wx < -m0:
                wx = -m0
            if wy > m1:
                wy = m1
            elif wy < -m1:
                wy = m1                 # the max_rot_speed_y_axis quirk (8.2)
            if wz > m2:
                wz = m2
            elif wz < -m2:
                wz = -m2
        elif wx * wx + wy * wy + wz * wz > max_w * max_w:
            over[n_over] = k
            n_over += 1
            continue
        sx = S[k, SPEED]
        sy = S[k, SPEED + 1]
        sz = S[k, SPEED + 2]
        sp2 = sx * sx + sy * sy + sz * sz
        if sp2 > max_v * max_v:
            over[n_over] = k
            n_over += 1
            continue
        S[k, ROT_SPEED] = wx
        S[k, ROT_SPEED + 1] = wy
        S[k, ROT_SPEED + 2] = wz
        S[k, CUR_SPEED] = f32_k(math.sqrt(sp2))
        S[k, I_DT] = f32_k(i_delta_time)
        dt = delta_time
        if gyro and S[k, EQUAL_I] == 0.0:
            # the gyroscopic sub-steps (8.2)
            ns = gyro_sub_steps((wx, wy, wz), dt)
            dt = dt / ns
            Q = quat_from_rot_k(wx, wy, wz, dt, True)
            I0 = S[k, ROT_I]
            I1 = S[k, ROT_I + 1]
            I2 = S[k, ROT_I + 2]
            ex = (I1 - I2) * S[k, INV_I]
            ey = (I2 - I0) * S[k, INV_I + 1]
            ez = (I0 - I1) * S[k, INV_I + 2]
            dtf = f32_k(dt)
            i = 1
            while True:
                g0 = f32_k(wz * wy * ex)
                g1 = f32_k(wz * wx * ey)
                g2 = f32_k(wx * wy * ez)
                wx, wy, wz = f32_k(wx + g0 * dtf), f32_k(wy + g1 * dtf), f32_k(wz + g2 * dtf)
                if i >= ns:
                    break
                Q = quat_mul_k(quat_from_rot_k(wx, wy, wz, dt, True), Q)
                i += 1
            S[k, ROT_SPEED] = wx
            S[k, ROT_SPEED + 1] = wy
            S[k, ROT_SPEED + 2] = wz
        else:
            Q = quat_from_rot_k(wx, wy, wz, dt, False)
        dtp = t - S[k, T_LAST]
        S[k, T_LAST] = t
        for i in range(3):
            S[k, POS + i] = S[k, POS + i] + S[k, DELTA + i] * dtp
            S[k, DELTA + i] = S[k, SPEED + i]
        q = (S[k, Q_NEXT], S[k, Q_NEXT + 1], S[k, Q_NEXT + 2], S[k, Q_NEXT + 3])
        for i in range(4):
            S[k, Q_LAST + i] = q[i]
        qn = quat_mul_k(q, Q)
        n2 = qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3]
        if n2 > QUAT_NORM_EPS:
            s = isqrt_newton_k(n2, buf, ibuf)
            qn = (qn[0] * s, qn[1] * s, qn[2] * s, qn[3] * s)
        for i in range(4):
            S[k, Q_NEXT + i] = qn[i]
        # calc_rotation_info (8.3)
        qx, qy, qz = Q[0], Q[1], Q[2]
        n = qx * qx + qy * qy + qz * qz
        if n <= QUAT_NORM_EPS:
            S[k, ABS_OMEGA] = 0.0
            S[k, AXIS] = 1.0
            S[k, AXIS + 1] = 0.0
            S[k, AXIS + 2] = 0.0
        else:
            y = isqrt_newton_k(n, buf, ibuf)
            s = y * n
            s3 = s * s * s
            asin_s = s + s3 * ONE_SIXTH_F + s3 * s * s * ASIN_S5_F
            ax = qx * y
            ay = qy * y
            az = qz * y
            r = M_R
            S[k, ABS_OMEGA] = f32_k(2.0 * asin_s * S[k, I_DT])
            S[k, AXIS] = f32_k(S[k, r] * ax + S[k, r + 1] * ay + S[k, r + 2] * az)
            S[k, AXIS + 1] = f32_k(S[k, r + 3] * ax + S[k, r + 4] * ay + S[k, r + 5] * az)
            S[k, AXIS + 2] = f32_k(S[k, r + 6] * ax + S[k, r + 7] * ay + S[k, r + 8] * az)
        S[k, MAX_SURF_ROT] = f32_k(S[k, ABS_OMEGA] * S[k, DEVIATION])
    return over[:n_over]


