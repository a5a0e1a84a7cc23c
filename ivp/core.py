"""IVP_Core: the simulated rigid body (spec 1.2, 2.2-2.8, 4.1, 5, 7.3, 8, 10.2-10.3).
Fields under the spec's names, f32 ones rounded with ``f32`` at the store,
vectors as tuples. The dynamic state is the core's row of the body table
(ivp.state.bodies), read and written through properties, so a kernel's write
is the next read; a core of a deleted object raises StaleCoreError."""

from __future__ import annotations

import math
from array import array

import numpy as np

from . import umath
from .kmath import surface_speed_k
from .fp import CALC_CALC_EPS, DAMP_LINEAR_LIMIT, DEFAULT_RADIUS_F, TENTH_F, f32, f32v, f32v2, f32v6
from .step.kernels import integrate_k
from .state.bodies import locate, number_field, pair_field, pose_field, vector_field
from .state.layout import (ABS_OMEGA, AXIS, CALM_P0, CALM_Q0, CALM_T, CUR_SPEED, DAMP, DELTA, DEVIATION,
                           EQUAL_I, HAS_MAX_ROT, I_DT, INV_I, INV_M, M_POS, MAX_ROT, MAX_SURF_ROT, MOTION_END, POS, Q_LAST,
                           Q_NEXT, RADIUS, ROT_I, ROT_SPEED, ROT_SPEED_CHANGE, SPEED, SPEED_CHANGE, STATE, T_LAST)
from .states import MT_CALM, MT_MOVING, MT_NOT_SIM, MT_SLOW, MT_STATIC, STATE_BETWEEN_PSIS  # noqa: F401  (ivp.core.MT_* stay importable)


ZERO3 = (0.0, 0.0, 0.0)
ZERO4 = (0.0, 0.0, 0.0, 0.0)


class Core:
    """Spec 1.2: the mass-centre frame of a body and its dynamic state."""

    __slots__ = (
        # flags (+0x00)
        "fast_piling_allowed", "physical_unmoveable", "is_in_wakeup_vec",
        "environment", "mass", "_rot_speed_damp_factor", "_speed_damp_factor", "inv_object_diameter",
        "objects", "controllers_of_core", "sim_unit_of_core",
        "friction_system", "impact_sync",
        "impacts_since_last_psi", "impact_count_psi", "temporarily_unmovable_psi",
        # the view onto the body table (ivp.state.bodies): the table, the row, its generation
        "_bodies", "row", "_gen",
    )

    def __init__(self, env, q, pos, unmovable: bool, piling: bool):
        """Spec 2.2 (0x1000d400 with the init 0x1000d2f0); the caller adds the
        object, creates the sim unit and attaches gravity (sim_unit.py)."""
        self.environment = env
        bodies = self._bodies = env.bodies
        self.row = bodies.add(self)
        self._gen = bodies.gen[self.row]
        self.fast_piling_allowed = bool(piling)
        self.physical_unmoveable = bool(unmovable)
        self.is_in_wakeup_vec = False
        self.rot_inertias_are_equal = False
        self.upper_limit_radius = DEFAULT_RADIUS_F
        self.max_surface_deviation = DEFAULT_RADIUS_F
        self.rot_inertia = ZERO3
        self.mass = 0.0
        self._rot_speed_damp_factor = ZERO3
        self._speed_damp_factor = 0.0
        write_damping(self)
        self.inv_rot_inertia = ZERO3
        self.inv_mass = 0.0
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
        self.friction_system = None     # ivp-contacts 5.1: at most one per movable core
        self.impact_sync = None         # ivp-contacts 1.4: (q at t, saved rot_speed) while in an impact
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
        m, b = locate(self)
        if m[b + STATE] < MT_NOT_SIM and t != m[b + T_LAST]:
            return pose_at(t, *self.pose_parts())
        return self._bodies.pose(self.row)

    def look_values(self):
        """(max_surface_rot_speed, current_speed): what the look-ahead of a
        pair adds (ivp-contacts 3.5)."""
        m, b = locate(self)
        return m[b + MAX_SURF_ROT], m[b + CUR_SPEED]

    def event_values(self):
        """(speed, rotation_axis_world, max_surface_rot_speed): what the
        approach speed of a pair reads (ivp-contacts 3.5)."""
        m, b = locate(self)
        a = b + AXIS
        return (m[b + SPEED], m[b + SPEED + 1], m[b + SPEED + 2]), (m[a], m[a + 1], m[a + 2]), m[b + MAX_SURF_ROT]

    def centre_at(self, t: float):
        """The centre of get_m_world_f_core_PSI(t) (4.1), its rotation not made."""
        m, b = locate(self, POS)
        v = m[b:b + STATE - POS + 1].tolist()
        return centre_at(t, v[T_LAST - POS], v[STATE - POS], v[0:3], v[DELTA - POS:DELTA - POS + 3],
                         (None, tuple(v[M_POS - POS:M_POS - POS + 3])))

    def pose_parts(self):
        """What a pose at a time is made from (4.1, 4.2): time_of_last_psi,
        movement_state, q_world_f_core_last_psi and _next_psi, i_delta_time,
        pos_world_f_core_last_psi, delta_world_f_core_psis, m_world_f_core_last_psi."""
        m, b = locate(self, POS)
        v = m[b:b + STATE - POS + 1].tolist()
        return (v[T_LAST - POS], int(v[STATE - POS]), tuple(v[Q_LAST - POS:Q_LAST - POS + 4]),
                tuple(v[Q_NEXT - POS:Q_NEXT - POS + 4]), v[I_DT - POS], tuple(v[0:3]),
                tuple(v[DELTA - POS:DELTA - POS + 3]), self._bodies.pose(self.row))

    # --- pushes (5) -------------------------------------------------------------

    def _push_changes(self, p_cs, imp_cs, imp_ws):
        """Spec 5 (calc_push_core, 0x1000ca80): dw and dv of an impulse imp at
        core point p, f32, as one flat tuple (dw.x, dw.y, dw.z, dv.x, dv.y, dv.z)."""
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

    def async_rot_push_core_cs(self, t_cs) -> None:
        """An angular impulse t_cs (core axes) into rot_speed_change, committed
        with the other pending pushes (ivp-contacts 5.8's energy damping)."""
        ii = self.inv_rot_inertia
        r = self.rot_speed_change
        self.rot_speed_change = f32v(r[0] + ii[0] * t_cs[0], r[1] + ii[1] * t_cs[1], r[2] + ii[2] * t_cs[2])

    def get_surface_speed_on_test(self, p_cs):
        """Spec 5 (0x1000c810): the surface speed at core point p_cs
        (kmath.surface_speed_k on the core's speeds and PSI pose)."""
        return surface_speed_k(self.m_world_f_core_last_psi[0], self.speed, self.rot_speed, tuple(p_cs))

    def commit_all_async_pushs(self) -> None:
        """Spec 5 (0x1000cbd0): land the pushes made since the last commit
        (speed, rot_speed and their changes: one block of the row)."""
        m, b = locate(self)
        sx, sy, sz, rx, ry, rz, dx, dy, dz, cx, cy, cz = m[b:b + MOTION_END].tolist()
        rx, ry, rz, sx, sy, sz = f32v6(rx + cx, ry + cy, rz + cz, sx + dx, sy + dy, sz + dz)
        m[b:b + MOTION_END] = array("d", (sx, sy, sz, rx, ry, rz, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))

    # --- integration (8.2, 8.3) -------------------------------------------------

    def calc_next_psi_matrix(self, delta_time: float, i_delta_time: float) -> None:
        """Spec 8.2 (0x1001e300) for this core: the anomaly manager's handlers
        (9) for a rotation (no max_rot_speed clamp) or a speed over its limit,
        then step.kernels.integrate_k on the row (between PSIs, the plain
        sine quaternion)."""
        env = self.environment
        lim = env.anomaly_limits
        m, b = locate(self)
        if not m[b + HAS_MAX_ROT]:
            wx, wy, wz = m[b + ROT_SPEED:b + ROT_SPEED + 3].tolist()
            a = env.inv_delta_PSI_time * lim.max_angular_velocity_per_psi
            if wx * wx + wy * wy + wz * wz > a * a:
                env.anomaly_manager.max_angular_velocity_exceeded(lim, self)
        sx, sy, sz = self.speed
        mv = lim.max_velocity
        if sx * sx + sy * sy + sz * sz > mv * mv:
            env.anomaly_manager.max_velocity_exceeded(lim, self)
        integrate_k(self._bodies.rows, np.array([self.row], dtype=np.int64), delta_time, i_delta_time,
                    env.current_time, math.inf, math.inf, env.state != STATE_BETWEEN_PSIS)

    # --- sleep (10.2, 10.3) -----------------------------------------------------

    def reset_freeze_check_values(self) -> None:
        """Spec 10.4 (0x1000cec0): restart both calm windows; references kept."""
        self.time_calm_ref = (self.environment.current_time,) * 2

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


def write_damping(core) -> None:
    """The row's damping factors for the PSI length (7.3), plain and with +0.1
    while slow or calm (DAMP, DAMP_CALM), from the core's damp factors."""
    r = core._rot_speed_damp_factor
    lf = core._speed_damp_factor
    m, b = locate(core, DAMP)
    m[b:b + 8] = array("d", damping_factors(core.environment.delta_PSI_time, r, lf)
                       + damping_factors(core.environment.delta_PSI_time,
                                         f32v(r[0] + TENTH_F, r[1] + TENTH_F, r[2] + TENTH_F), lf + TENTH_F))


def _damp_field(name: str):
    """A damp factor (spec 1.2): a write computes the row's damping columns again."""
    slot = Core.__dict__["_" + name]

    def put(core, v):
        slot.__set__(core, v)
        write_damping(core)
    return property(slot.__get__, put, doc=f"{name} (spec 1.2, 7.3)")


def _max_rot_speed():
    """max_rot_speed (8.3): None, or the clamp in MAX_ROT with HAS_MAX_ROT set."""
    def get(core):
        m, b = locate(core, MAX_ROT)
        return (m[b], m[b + 1], m[b + 2]) if m[b + 3] else None

    def put(core, v):
        m, b = locate(core, MAX_ROT)
        m[b:b + 4] = array("d", (0.0, 0.0, 0.0, 0.0) if v is None else (*v, 1.0))
    return property(get, put, doc="max_rot_speed (8.3): None or a clamp per axis")


Core.rot_speed_damp_factor = _damp_field("rot_speed_damp_factor")
Core.speed_damp_factor = _damp_field("speed_damp_factor")
Core.max_rot_speed = _max_rot_speed()
Core.inv_rot_inertia = vector_field(INV_I, 3, "inv_rot_inertia (2.6, f32)")
Core.inv_mass = number_field(INV_M, "inv_mass (2.6, f32)")
Core.rot_inertia = vector_field(ROT_I, 3, "rot_inertia (2.6, f32)")
Core.rot_inertias_are_equal = number_field(EQUAL_I, "rot_inertias_are_equal (2.6)", bool)
Core.max_surface_deviation = number_field(DEVIATION, "max_surface_deviation (8.3)")
Core.upper_limit_radius = number_field(RADIUS, "upper_limit_radius (1.2)")
Core.speed = vector_field(SPEED, 3, "speed (world, f32)")
Core.rot_speed = vector_field(ROT_SPEED, 3, "rot_speed (core axes, f32)")
Core.speed_change = vector_field(SPEED_CHANGE, 3, "speed_change: pushes since the last commit (5)")
Core.rot_speed_change = vector_field(ROT_SPEED_CHANGE, 3, "rot_speed_change: pushes since the last commit (5)")
Core.pos_world_f_core_last_psi = vector_field(POS, 3, "pos_world_f_core_last_psi")
Core.delta_world_f_core_psis = vector_field(DELTA, 3, "delta_world_f_core_psis")
Core.q_world_f_core_last_psi = vector_field(Q_LAST, 4, "q_world_f_core_last_psi (x, y, z, w)")
Core.q_world_f_core_next_psi = vector_field(Q_NEXT, 4, "q_world_f_core_next_psi (x, y, z, w)")
Core.m_world_f_core_last_psi = pose_field()
Core.rotation_axis_world = vector_field(AXIS, 3, "rotation_axis_world (8.3, f32)")
Core.current_speed = number_field(CUR_SPEED, "current_speed (8.2, f32)")
Core.abs_omega = number_field(ABS_OMEGA, "abs_omega (8.3, f32)")
Core.max_surface_rot_speed = number_field(MAX_SURF_ROT, "max_surface_rot_speed (8.3, f32)")
Core.time_of_last_psi = number_field(T_LAST, "time_of_last_psi")
Core.i_delta_time = number_field(I_DT, "i_delta_time (f32)")
Core.movement_state = number_field(STATE, "movement_state (ivp.states MT_*)", int)
Core.time_calm_ref = pair_field(CALM_T, 1, "time_calm_ref [short window, long window] (10.2)")
Core.q_calm_ref = pair_field(CALM_Q0, 4, "q_calm_ref [short, long] (10.2, f32)")
Core.pos_calm_ref = pair_field(CALM_P0, 3, "pos_calm_ref [short, long] (10.2, f32)")


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
