"""IVP_Core: the simulated rigid body (spec 1.2, 2.2-2.8, 4.1, 5, 7.3, 8, 10.2-10.3).

Every field the dynamics read or write is here, under the spec's name; f32
fields hold floats rounded with ``f32`` at the store. Vector fields are tuples.
"""

from __future__ import annotations

import math

from . import umath
from .fp import (
    ASIN_S5_F,
    CALC_CALC_EPS,
    DAMP_LINEAR_LIMIT,
    DEFAULT_RADIUS_F,
    GYRO_144,
    GYRO_X_LIMIT,
    ONE_SIXTH_F,
    QUAT_NORM_EPS,
    SLEEP_LONG_WINDOW,
    SLEEP_POS0,
    SLEEP_POS1,
    SLEEP_ROT0,
    SLEEP_ROT1,
    TENTH_F,
    f32,
    f32q,
    f32v,
    f32v2,
    f32v6,
    isqrt_newton,
    sign_bit,
)
from .states import MT_CALM, MT_MOVING, MT_NOT_SIM, MT_SLOW, MT_STATIC, STATE_BETWEEN_PSIS  # noqa: F401  (ivp.core.MT_* stay importable)


ZERO3 = (0.0, 0.0, 0.0)
ZERO4 = (0.0, 0.0, 0.0, 0.0)


class Core:
    """Spec 1.2: the mass-centre frame of a body and its dynamic state."""

    __slots__ = (
        # flags (+0x00)
        "fast_piling_allowed", "physical_unmoveable", "is_in_wakeup_vec",
        "rot_inertias_are_equal",
        "upper_limit_radius", "max_surface_deviation", "environment",
        "rot_inertia", "mass", "rot_speed_damp_factor", "inv_rot_inertia",
        "inv_mass", "speed_damp_factor", "inv_object_diameter", "max_rot_speed",
        "objects", "movement_state", "time_of_last_psi", "i_delta_time",
        "rot_speed_change", "speed_change", "rot_speed", "speed",
        "pos_world_f_core_last_psi", "delta_world_f_core_psis",
        "q_world_f_core_last_psi", "q_world_f_core_next_psi",
        "m_world_f_core_last_psi",
        "rotation_axis_world", "current_speed", "abs_omega",
        "max_surface_rot_speed", "controllers_of_core", "sim_unit_of_core",
        "time_calm_ref", "q_calm_ref", "pos_calm_ref", "damping_memo",
        "friction_system", "impact_sync", "lane_slot", "lane_static",
        "impacts_since_last_psi", "impact_count_psi", "temporarily_unmovable_psi",
    )

    def __init__(self, env, q, pos, unmovable: bool, piling: bool):
        """Spec 2.2 (0x1000d400 with the init 0x1000d2f0); the caller adds the
        object, creates the sim unit and attaches gravity (sim_unit.py)."""
        self.environment = env
        self.fast_piling_allowed = bool(piling)
        self.physical_unmoveable = bool(unmovable)
        self.is_in_wakeup_vec = False
        self.rot_inertias_are_equal = False
        self.upper_limit_radius = DEFAULT_RADIUS_F
        self.max_surface_deviation = DEFAULT_RADIUS_F
        self.rot_inertia = ZERO3
        self.mass = 0.0
        self.rot_speed_damp_factor = ZERO3
        self.inv_rot_inertia = ZERO3
        self.inv_mass = 0.0
        self.speed_damp_factor = 0.0
        self.inv_object_diameter = 0.0
        self.max_rot_speed = None
        self.objects = []
        self.movement_state = MT_NOT_SIM
        self.time_of_last_psi = 0.0
        self.i_delta_time = 0.0
        self.rot_speed_change = ZERO3
        self.speed_change = ZERO3
        self.rot_speed = ZERO3
        self.speed = ZERO3
        qn = umath.quat_normalize(q)
        self.q_world_f_core_next_psi = qn
        self.q_world_f_core_last_psi = qn
        self.pos_world_f_core_last_psi = tuple(pos)
        self.delta_world_f_core_psis = ZERO3
        self.m_world_f_core_last_psi = (umath.quat_to_matrix(qn), tuple(pos))
        self.rotation_axis_world = ZERO3
        self.current_speed = 0.0
        self.abs_omega = 0.0
        self.max_surface_rot_speed = 0.0
        self.controllers_of_core = []
        self.sim_unit_of_core = None
        self.time_calm_ref = [0.0, 0.0]
        self.q_calm_ref = [ZERO4, ZERO4]
        self.pos_calm_ref = [ZERO3, ZERO3]
        self.damping_memo = None        # ((dt, calm, rf, lf), factors), see damping_of_object
        self.friction_system = None     # ivp-contacts 5.1: at most one per movable core
        self.impact_sync = None         # ivp-contacts 1.4: (q at t, saved rot_speed) while in an impact
        self.lane_slot = -1             # the core's row while the lane has it on loan (ivp.lane)
        self.lane_static = None         # the lane row's read-only part, with what it was made from
        # ivp-contacts 4.7: the impacts between two PSIs, counted for the PSI count
        # they belong to (a count of an older PSI reads as 0: the spec's clear at
        # the PSI start), and the PSI count in which the core was made unmovable
        self.impacts_since_last_psi = 0
        self.impact_count_psi = -1
        self.temporarily_unmovable_psi = -1

    # --- creation (2.6-2.8) ---------------------------------------------------

    def calc_calc(self) -> None:
        """Spec 2.6 (0x1000d1a0): inverses and the rot_inertias_are_equal quirk.

        Keeps the dimensionally odd comparison of the inverse-inertia spread
        with the squared inertia length.
        """
        I = self.rot_inertia
        a = f32v(1.0 / I[0], 1.0 / I[1], 1.0 / I[2])
        self.inv_rot_inertia = a
        self.inv_mass = f32(1.0 / self.mass)
        d = (a[1] - a[2]) ** 2 + (a[0] - a[1]) ** 2 + (a[2] - a[0]) ** 2
        self.rot_inertias_are_equal = d < (I[2] * I[2] + I[1] * I[1] + I[0] * I[0]) * CALC_CALC_EPS
        self.inv_object_diameter = f32(0.5 / self.upper_limit_radius)

    def transform_to_mass_center(self, m_object_f_core) -> None:
        """Spec 2.7 (0x1000d270): move the core frame to the mass centre."""
        m = umath.mat_mul(self.m_world_f_core_last_psi, m_object_f_core)
        self.m_world_f_core_last_psi = m
        self.pos_world_f_core_last_psi = m[1]
        q = umath.matrix_to_quat(m[0])
        self.q_world_f_core_last_psi = q
        self.q_world_f_core_next_psi = q

    def init_core_for_simulation(self, i_delta_time: float) -> None:
        """Spec 2.8 (0x1000cc70). rot_speed and time_of_last_psi are left alone."""
        self.i_delta_time = f32(i_delta_time)
        self.q_world_f_core_next_psi = self.q_world_f_core_last_psi
        self.abs_omega = 0.0
        self.speed = ZERO3
        self.delta_world_f_core_psis = ZERO3
        self.current_speed = 0.0
        self.max_surface_rot_speed = 0.0
        self.rotation_axis_world = (1.0, 0.0, 0.0)

    # --- poses (4.1) ------------------------------------------------------------

    def get_m_world_f_core_PSI(self, t: float):
        """Spec 4.1 (0x1000c510): the core pose at time t."""
        if self.movement_state < MT_NOT_SIM and t != self.time_of_last_psi:
            return pose_at(t, *self.pose_parts())
        return self.m_world_f_core_last_psi

    def look_values(self):
        """(max_surface_rot_speed, current_speed): what the look-ahead of a
        pair adds (ivp-contacts 3.5)."""
        return self.max_surface_rot_speed, self.current_speed

    def event_values(self):
        """(speed, rotation_axis_world, max_surface_rot_speed): what the
        approach speed of a pair reads (ivp-contacts 3.5)."""
        return self.speed, self.rotation_axis_world, self.max_surface_rot_speed

    def centre_at(self, t: float):
        """The centre of get_m_world_f_core_PSI(t) (4.1), its rotation not made."""
        return centre_at(t, self.time_of_last_psi, self.movement_state, self.pos_world_f_core_last_psi,
                         self.delta_world_f_core_psis, self.m_world_f_core_last_psi)

    def pose_parts(self):
        """What a pose at a time is made from (4.1, 4.2): time_of_last_psi,
        movement_state, q_world_f_core_last_psi and _next_psi, i_delta_time,
        pos_world_f_core_last_psi, delta_world_f_core_psis, m_world_f_core_last_psi."""
        return (self.time_of_last_psi, self.movement_state, self.q_world_f_core_last_psi,
                self.q_world_f_core_next_psi, self.i_delta_time, self.pos_world_f_core_last_psi,
                self.delta_world_f_core_psis, self.m_world_f_core_last_psi)

    def begin_psi(self, t: float) -> bool:
        """Spec 6.3, a core's step at the head of do_sim_unit_PSI: the pose at
        this PSI (0x10012470), the pushes made since the last commit landed
        (5); returns the fast test, the sign bit of (f32)(1 - |speed|^2)
        (|speed| > 1 m/s).

        Rounding to f32 keeps the sign, so the sign is read from the f64 value.
        """
        dt = t - self.time_of_last_psi
        px, py, pz = self.pos_world_f_core_last_psi
        dx, dy, dz = self.delta_world_f_core_psis
        self.m_world_f_core_last_psi = (umath.quat_to_matrix(self.q_world_f_core_next_psi),
                                        (px + dx * dt, py + dy * dt, pz + dz * dt))
        self.commit_all_async_pushs()
        sx, sy, sz = self.speed
        return sign_bit(1.0 - (sx * sx + sy * sy + sz * sz))

    # --- pushes (5) -------------------------------------------------------------

    def calc_push_core(self, p_cs, imp_cs, imp_ws):
        """Spec 5 (0x1000ca80): (dv, dw) of an impulse imp at core point p, f32."""
        wx, wy, wz, vx, vy, vz = self._push_changes(p_cs, imp_cs, imp_ws)
        return (vx, vy, vz), (wx, wy, wz)

    def _push_changes(self, p_cs, imp_cs, imp_ws):
        """calc_push_core's dw and dv as one flat tuple (dw.x, dw.y, dw.z, dv.x, dv.y, dv.z)."""
        px, py, pz = p_cs
        ix, iy, iz = imp_cs
        cx, cy, cz = f32v(py * iz - pz * iy, pz * ix - px * iz, px * iy - py * ix)
        ii = self.inv_rot_inertia
        im = self.inv_mass
        return f32v6(ii[0] * cx, ii[1] * cy, ii[2] * cz, imp_ws[0] * im, imp_ws[1] * im, imp_ws[2] * im)

    def async_push_core(self, p_cs, imp_cs, imp_ws) -> None:
        """Spec 5 (0x1000c830): accumulate into the *_change fields."""
        wx, wy, wz, vx, vy, vz = self._push_changes(p_cs, imp_cs, imp_ws)
        r = self.rot_speed_change
        s = self.speed_change
        self.rot_speed_change = f32v(r[0] + wx, r[1] + wy, r[2] + wz)
        self.speed_change = f32v(s[0] + vx, s[1] + vy, s[2] + vz)

    def push_core(self, p_cs, imp_cs, imp_ws) -> None:
        """Spec 5 (0x1000c8b0): immediate push (constraint solver, contacts)."""
        wx, wy, wz, vx, vy, vz = self._push_changes(p_cs, imp_cs, imp_ws)
        rx, ry, rz = self.rot_speed
        sx, sy, sz = self.speed
        rx, ry, rz, sx, sy, sz = f32v6(rx + wx, ry + wy, rz + wz, sx + vx, sy + vy, sz + vz)
        self.rot_speed = (rx, ry, rz)
        self.speed = (sx, sy, sz)

    def async_push_core_ws(self, p_ws, imp_ws) -> None:
        """Spec 5 (0x1000c940): world-space async push at the PSI pose."""
        R, vv = self.m_world_f_core_last_psi
        r = f32v(p_ws[0] - vv[0], p_ws[1] - vv[1], p_ws[2] - vv[2])
        t = f32v(r[1] * imp_ws[2] - r[2] * imp_ws[1],
                 r[2] * imp_ws[0] - r[0] * imp_ws[2],
                 r[0] * imp_ws[1] - r[1] * imp_ws[0])
        tc = f32v(*umath.rot_t_mul_v(R, t))
        ii = self.inv_rot_inertia
        im = self.inv_mass
        rc = self.rot_speed_change
        sc = self.speed_change
        self.rot_speed_change = f32v(rc[0] + f32(ii[0] * tc[0]), rc[1] + f32(ii[1] * tc[1]),
                                     rc[2] + f32(ii[2] * tc[2]))
        self.speed_change = f32v(sc[0] + f32(imp_ws[0] * im), sc[1] + f32(imp_ws[1] * im),
                                 sc[2] + f32(imp_ws[2] * im))

    def calc_rot_speed_change(self, dw_cs, k: float = 1.0):
        """Spec 5 (0x1000cb20): inv_rot_inertia (.) dw_cs . (f32)k."""
        ii = self.inv_rot_inertia
        kf = f32(k)
        return f32v(ii[0] * dw_cs[0] * kf, ii[1] * dw_cs[1] * kf, ii[2] * dw_cs[2] * kf)

    def rot_push_core_cs(self, t_cs) -> None:
        """Spec 5 (0x1000cb70): rot_speed += inv_rot_inertia (.) t_cs, immediate."""
        ii = self.inv_rot_inertia
        r = self.rot_speed
        self.rot_speed = f32v(r[0] + f32(ii[0] * t_cs[0]), r[1] + f32(ii[1] * t_cs[1]),
                              r[2] + f32(ii[2] * t_cs[2]))

    def async_rot_push_core_cs(self, t_cs) -> None:
        """An angular impulse t_cs (core axes) into rot_speed_change, committed
        with the other pending pushes (ivp-contacts 5.8's energy damping)."""
        ii = self.inv_rot_inertia
        r = self.rot_speed_change
        self.rot_speed_change = f32v(r[0] + ii[0] * t_cs[0], r[1] + ii[1] * t_cs[1], r[2] + ii[2] * t_cs[2])

    def get_surface_speed_on_test(self, p_cs, speed=None, rot_speed=None):
        """Spec 5 (0x1000c810 / 0x1000bf90): speed + R (rot_speed x p_cs), world, f32.

        ``speed`` and ``rot_speed`` default to the core's own (0x1000bf90 takes
        them as arguments, for the constraint solver's test impulses).
        """
        v = self.speed if speed is None else speed
        w = self.rot_speed if rot_speed is None else rot_speed
        c = umath.cross(w, p_cs)
        r = umath.rot_mul_v(self.m_world_f_core_last_psi[0], c)
        return f32v(v[0] + r[0], v[1] + r[1], v[2] + r[2])

    def commit_all_async_pushs(self) -> None:
        """Spec 5 (0x1000cbd0): land the pushes made since the last commit."""
        rx, ry, rz = self.rot_speed
        sx, sy, sz = self.speed
        cx, cy, cz = self.rot_speed_change
        dx, dy, dz = self.speed_change
        rx, ry, rz, sx, sy, sz = f32v6(rx + cx, ry + cy, rz + cz, sx + dx, sy + dy, sz + dz)
        self.rot_speed = (rx, ry, rz)
        self.speed = (sx, sy, sz)
        self.rot_speed_change = ZERO3
        self.speed_change = ZERO3

    # --- damping (7.3) and the gravity controller's pass (7.1) -------------------

    def damping_of_object(self, dt: float):
        """Spec 7.3 (damp_object, 0x1000c610): the damping factors, with +0.1 on
        both damp factors while slow or calm.

        They depend only on dt, the calm test and the damp factors, so the
        last ones are kept in damping_memo with their inputs.
        """
        calm = self.movement_state >= MT_SLOW
        key = (dt, calm, self.rot_speed_damp_factor, self.speed_damp_factor)
        memo = self.damping_memo
        if memo is not None and memo[0] == key:
            return memo[1]
        if calm:
            r = self.rot_speed_damp_factor
            rf = f32v(r[0] + TENTH_F, r[1] + TENTH_F, r[2] + TENTH_F)
            k = damping_factors(dt, rf, self.speed_damp_factor + TENTH_F)
        else:
            k = damping_factors(dt, self.rot_speed_damp_factor, self.speed_damp_factor)
        self.damping_memo = (key, k)
        return k

    def damp_commit_and_accelerate(self, dt: float, gx: float, gy: float, gz: float) -> None:
        """Spec 7.1 for one core: damp_object (7.3, damping_of_object's factors),
        commit_all_async_pushs (5),
        then speed += g.dt (stored f32), with (gx, gy, gz) = g.dt.

        One pass over local floats, every store rounded where the three steps
        round it. With no push to commit the damped values, already f32, only
        add zero (exact: f32(r + 0) = r + 0), and that store is left out.
        """
        kx, ky, kz, kl = self.damping_of_object(dt)
        rx, ry, rz = self.rot_speed
        sx, sy, sz = self.speed
        rx, ry, rz, sx, sy, sz = f32v6(rx * kx, ry * ky, rz * kz, sx * kl, sy * kl, sz * kl)
        rc = self.rot_speed_change
        sc = self.speed_change
        if rc is ZERO3 and sc is ZERO3:
            rx, ry, rz, sx, sy, sz = rx + 0.0, ry + 0.0, rz + 0.0, sx + 0.0, sy + 0.0, sz + 0.0
        else:
            rx, ry, rz, sx, sy, sz = f32v6(rx + rc[0], ry + rc[1], rz + rc[2],
                                           sx + sc[0], sy + sc[1], sz + sc[2])
        self.rot_speed = (rx, ry, rz)
        self.speed = f32v(sx + gx, sy + gy, sz + gz)
        self.rot_speed_change = ZERO3
        self.speed_change = ZERO3

    # --- integration (8.2, 8.3) -------------------------------------------------

    def calc_next_psi_matrix(self, delta_time: float, i_delta_time: float) -> None:
        """Spec 8.2 (0x1001e300): clamps, this PSI's rotation, advance the PSI."""
        env = self.environment
        lim = env.anomaly_limits
        rs = self.rot_speed
        m = self.max_rot_speed
        if m is not None:
            rs = _clamp_max_rot_speed(rs, m)
            self.rot_speed = rs
        else:
            wx, wy, wz = rs
            a = env.inv_delta_PSI_time * lim.max_angular_velocity_per_psi
            if wx * wx + wy * wy + wz * wz > a * a:
                env.anomaly_manager.max_angular_velocity_exceeded(lim, self)
                rs = self.rot_speed
        s = self.speed
        sx, sy, sz = s
        sp2 = sx * sx + sy * sy + sz * sz
        mv = lim.max_velocity
        if sp2 > mv * mv:
            env.anomaly_manager.max_velocity_exceeded(lim, self)
            s = self.speed
            sx, sy, sz = s
            sp2 = sx * sx + sy * sy + sz * sz
        self.current_speed, self.i_delta_time = f32v2(math.sqrt(sp2), i_delta_time)
        dt = delta_time
        if not self.rot_inertias_are_equal and env.state != STATE_BETWEEN_PSIS:
            Q, rs = self._gyro_rotation(rs, dt)
            self.rot_speed = rs
        else:
            Q = umath.quat_from_rot_sin(rs, dt)
        t = env.current_time
        dtp = t - self.time_of_last_psi
        self.time_of_last_psi = t
        px, py, pz = self.pos_world_f_core_last_psi
        dx, dy, dz = self.delta_world_f_core_psis
        self.pos_world_f_core_last_psi = (px + dx * dtp, py + dy * dtp, pz + dz * dtp)
        self.delta_world_f_core_psis = s
        q = self.q_world_f_core_next_psi
        self.q_world_f_core_last_psi = q
        self.q_world_f_core_next_psi = umath.quat_normalize_iter(umath.quat_mul(q, Q))
        self.calc_rotation_info(Q)

    def _gyro_rotation(self, rs, dt: float):
        """Spec 8.2: the gyroscopic sub-steps for unequal inertias.

        Returns the PSI's rotation quaternion and the updated rot_speed.
        """
        n = gyro_sub_steps(rs, dt)
        dt = dt / n
        Q = umath.quat_from_rot_poly(rs, dt)
        I = self.rot_inertia
        ii = self.inv_rot_inertia
        ex = (I[1] - I[2]) * ii[0]
        ey = (I[2] - I[0]) * ii[1]
        ez = (I[0] - I[1]) * ii[2]
        dtf = f32(dt)
        i = 1
        while True:
            wx, wy, wz = rs
            g = f32v(wz * wy * ex, wz * wx * ey, wx * wy * ez)
            rs = f32v(wx + g[0] * dtf, wy + g[1] * dtf, wz + g[2] * dtf)
            if i >= n:
                break
            Q = umath.quat_mul(umath.quat_from_rot_poly(rs, dt), Q)
            i += 1
        return Q, rs

    def calc_rotation_info(self, Q) -> None:
        """Spec 8.3 (0x1001e870): abs_omega, rotation axis, max_surface_rot_speed.

        abs_omega and the axis (R . Q.xyz y, R = m_world_f_core_last_psi.R) are
        rounded in one f32[4] store.
        """
        qx, qy, qz, _ = Q
        n = qx * qx + qy * qy + qz * qz
        if n <= QUAT_NORM_EPS:
            self.abs_omega = 0.0
            self.rotation_axis_world = (1.0, 0.0, 0.0)
        else:
            y = isqrt_newton(n)
            s = y * n
            s3 = s * s * s
            asin_s = s + s3 * ONE_SIXTH_F + s3 * s * s * ASIN_S5_F
            ax = qx * y
            ay = qy * y
            az = qz * y
            R = self.m_world_f_core_last_psi[0]
            w, x, y, z = f32q(2.0 * asin_s * self.i_delta_time,
                              R[0] * ax + R[1] * ay + R[2] * az,
                              R[3] * ax + R[4] * ay + R[5] * az,
                              R[6] * ax + R[7] * ay + R[8] * az)
            self.abs_omega = w
            self.rotation_axis_world = (x, y, z)
        self.max_surface_rot_speed = f32(self.abs_omega * self.max_surface_deviation)

    # --- sleep (10.2, 10.3) -----------------------------------------------------

    def calc_movement_state(self, t: float, freeze_check_time: float) -> int:
        """Spec 10.2 (0x1000d680): 1 moving, 2 slow, 3 calm; all tests as written.

        The short window compares with q_next, the long window with q_last.
        """
        R = self.upper_limit_radius
        pos = self.pos_world_f_core_last_psi
        r0 = self.pos_calm_ref[0]
        d0x = pos[0] - r0[0]
        d0y = pos[1] - r0[1]
        d0z = pos[2] - r0[2]
        qn = self.q_world_f_core_next_psi
        if d0x * d0x + d0y * d0y + d0z * d0z <= SLEEP_POS0:
            qr = self.q_calm_ref[0]
            dq = qr[0] * qn[0] + qr[1] * qn[1] + qr[2] * qn[2] + qr[3] * qn[3]
            if (1.0 - dq * dq) * 2.0 * R * R <= SLEEP_ROT0:
                return MT_CALM if t - self.time_calm_ref[0] > freeze_check_time else MT_SLOW
        self.q_calm_ref[0] = f32q(*qn)
        self.pos_calm_ref[0] = f32v(*pos)
        self.time_calm_ref[0] = t
        r1 = self.pos_calm_ref[1]
        d1x = pos[0] - r1[0]
        d1y = pos[1] - r1[1]
        d1z = pos[2] - r1[2]
        ql = self.q_world_f_core_last_psi
        qr = self.q_calm_ref[1]
        dq = qr[0] * ql[0] + qr[1] * ql[1] + qr[2] * ql[2] + qr[3] * ql[3]
        if (d1x * d1x + d1y * d1y + d1z * d1z > SLEEP_POS1
                or (1.0 - dq * dq) * 2.0 * R * R > SLEEP_ROT1):
            self.q_calm_ref[1] = f32q(*ql)
            self.pos_calm_ref[1] = f32v(*pos)
            self.time_calm_ref[1] = t
            return MT_MOVING
        return MT_CALM if t - self.time_calm_ref[1] > SLEEP_LONG_WINDOW else MT_MOVING

    def reset_freeze_check_values(self) -> None:
        """Spec 10.4 (0x1000cec0): restart both calm windows; references kept."""
        t = self.environment.current_time
        self.time_calm_ref[0] = t
        self.time_calm_ref[1] = t

    def stop_physical_movement(self) -> None:
        """Spec 10.3 (0x1000cd80): state 8, every velocity and change zeroed."""
        env = self.environment
        self.movement_state = MT_NOT_SIM
        self.speed = ZERO3
        self.rot_speed = ZERO3
        self.speed_change = ZERO3
        self.rot_speed_change = ZERO3
        self.delta_world_f_core_psis = ZERO3
        self.init_core_for_simulation(env.inv_delta_PSI_time)


def pose_at(t, t_last, state, q_last, q_next, i_dt, p, d, m):
    """Spec 4.1 (0x1000c510) on a core's pose_parts: the pose at time t
    (fixed and frozen cores, and t at the PSI, their last PSI's pose)."""
    dt = t - t_last
    if state < MT_NOT_SIM and dt != 0.0:
        q = umath.quat_slerp(q_last, q_next, i_dt * dt)
        return umath.quat_to_matrix(q), (p[0] + d[0] * dt, p[1] + d[1] * dt, p[2] + d[2] * dt)
    return m


def centre_at(t, t_last, state, p, d, m):
    """pose_at's centre alone (the same values)."""
    dt = t - t_last
    if state < MT_NOT_SIM and dt != 0.0:
        return (p[0] + d[0] * dt, p[1] + d[1] * dt, p[2] + d[2] * dt)
    return m[1]


def damping_factors(dt: float, rf, lf: float):
    """Spec 7.3 (apply_damping, 0x1000c6a0): the factors (k.x, k.y, k.z, kl) that
    rot_speed and speed are multiplied by: 1 - x below the limits, exp(-x) above.

    The rotational branch is chosen once from the length of a; a.y and a.z
    are rounded to f32 on the way, and k is stored f32.
    """
    ax = rf[0] * dt
    ay, az = f32v2(rf[1] * dt, rf[2] * dt)
    if ax * ax + ay * ay + az * az < DAMP_LINEAR_LIMIT:
        k = f32v(1.0 - ax, 1.0 - ay, 1.0 - az)
    else:
        k = f32v(math.exp(-ax), math.exp(-ay), math.exp(-az))
    b = dt * lf
    kl = 1.0 - b if b < 0.25 else math.exp(-b)
    return k[0], k[1], k[2], kl


def gyro_sub_steps(rs, dt: float) -> int:
    """Spec 8.2: n = trunc(sqrt(144 x)) + 1 when x = |w|^2 dt^2 > 1/36, else 1."""
    x = (rs[0] * rs[0] + rs[1] * rs[1] + rs[2] * rs[2]) * dt * dt
    if x > GYRO_X_LIMIT:
        return int(math.sqrt(x * GYRO_144)) + 1
    return 1


def _clamp_max_rot_speed(rs, m):
    """Spec 8.2: the per-axis box clamp, with the original's y-axis bug.

    On y a value below -m.y is set to +m.y (max_rot_speed_y_axis quirk).
    """
    x, y, z = rs
    if x > m[0]:
        x = m[0]
    elif x < -m[0]:
        x = -m[0]
    if y > m[1]:
        y = m[1]
    elif y < -m[1]:
        y = m[1]
    if z > m[2]:
        z = m[2]
    elif z < -m[2]:
        z = -m[2]
    return (x, y, z)
