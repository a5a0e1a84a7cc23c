"""Spec 12.4-12.6: constraints (hinge, slider, ball joint, limits) and their solver.

Usage::

    tmpl = ConstraintTemplate()
    tmpl.set_constraint_ws(env, target, anchor_ws, axis_ws, 3, 2, other)   # a hinge
    tmpl.limit_rotation(2, -0.5, 0.5)
    c = create_constraint(env, tmpl)
    ...
    c.delete()

or the building blocks' shortcuts create_hinge, create_slider, create_ball_joint.
Constraint space ("cs") is the constraint frame; its z axis (index 2) is the
free or limited axis of hinges and sliders.
"""

from __future__ import annotations

import numpy as np

from .. import umath
from ..fp import QUAT_NORM_EPS, f32, f32v, hexf32, hexf64
from ..limits import check
from .constraint_kernels import (AXIS_FIXED, AXIS_FREE, AXIS_LIMITED, SOLVED, ZERO3, angular_error, push_side,
                                 response_matrix, solve_rows_k, solve_step, unit_psi_k)
from .joint import Joint, check_joint_objects, joint_name

LIMIT_FACTOR_F = hexf32("3e99999a")            # 0.3f (12.4)
LIN_SOLVE_EPS = hexf64("3e112e0be0000000")     # (f64)1e-9f (0x10033e50)
INVERSE_EPS = 1e-19                            # 0x1000e8f0

OVER_MAX_MODES = {"scale": 1, "break": 2}


class ConstraintTemplate:
    """Spec 12.4 (IVP template, init 0x10012570): frames, axis types, borders.

    Axis i < 3 is a translation along cs axis i, axis 3 + i a rotation about it.
    """

    def __init__(self):
        self.obj_r = None                          # +0x004, the reference (BB target)
        self.m_rfs_f_rcs = umath.IDENTITY_M        # +0x008
        self.has_m_rfs_f_rcs = False               # +0x088 pointer set
        self.obj_a = None                          # +0x0f4, Object2
        self.m_afs_f_acs = umath.IDENTITY_M        # +0x0f8
        self.has_m_afs_f_acs = False               # +0x178 pointer set
        self.force_factor = 1.0                    # +0x17c
        self.damp_factor = 1.0                     # +0x180
        self.limit_factor = LIMIT_FACTOR_F         # +0x184
        self.axis_type = [AXIS_FIXED] * 3 + [AXIS_FREE] * 3
        self.borders_low = [0.0] * 6
        self.borders_high = [0.0] * 6
        self.max_force = [0.0] * 6                 # 0 = none (outlined in the spec)
        self.over_max_mode = [0] * 6               # 1 scale, 2 break

    def set_constraint_ws(self, env, obj_r, anchor_ws, axis_ws, n_trans: int, n_rot: int,
                          obj_a, m_a=None) -> None:
        """Spec 12.4 (0x10012870): anchor and axis from world space into R's
        object space at the current time, then set_constraint_rfs."""
        what = f"constraint {joint_name(obj_r, obj_a)}"
        check_joint_objects(env, what, obj_r, obj_a)
        for name, n in (("translations", n_trans), ("rotations", n_rot)):
            if not (isinstance(n, int) and 0 <= n <= 3):
                raise ValueError(f"{what}: the number of locked {name} {n!r} must be 0..3")
        _check_frame(what, anchor_ws, axis_ws)
        if (axis_ws is not None and (n_trans in (1, 2) or n_rot in (1, 2))
                and umath.dot(axis_ws, axis_ws) < QUAT_NORM_EPS):
            raise ValueError(f"{what}: the axis {tuple(axis_ws)} has no direction (zero length)")
        M = umath.IDENTITY_M if obj_r is None else obj_r.get_m_world_f_object_AT(env.current_time)
        anchor = None if anchor_ws is None else umath.mat_inv_mul_point(M, anchor_ws)
        axis = None if axis_ws is None else umath.rot_t_mul_v(M[0], axis_ws)
        self.set_constraint_rfs(obj_r, anchor, axis, n_trans, n_rot, obj_a, m_a)

    def set_constraint_rfs(self, obj_r, anchor_rfs, axis_rfs, n_trans: int, n_rot: int,
                           obj_a, m_a=None) -> None:
        """Spec 12.4 (0x10012690): R's constraint frame from the anchor and the
        axis (orthonormal basis chosen by the number of locked axes); A's frame
        from m_a = m_Afs_f_Rfs, or derived at creation when m_a is None."""
        _check_frame(f"constraint {joint_name(obj_r, obj_a)}", anchor_rfs, axis_rfs)
        if anchor_rfs is None and axis_rfs is None:
            self.has_m_rfs_f_rcs = False
        else:
            self.has_m_rfs_f_rcs = True
            if axis_rfs is None:
                R = umath.IDENTITY_R
            elif n_rot == 2 or n_trans == 2:
                R = umath.orthonormal_basis(axis_rfs, 2)
            elif n_rot == 1 or n_trans == 1:
                R = umath.orthonormal_basis(axis_rfs, 0)
            else:
                R = umath.IDENTITY_R
            self.m_rfs_f_rcs = (R, ZERO3 if anchor_rfs is None else tuple(anchor_rfs))
        if m_a is not None:
            self.has_m_afs_f_acs = True
            self.m_afs_f_acs = umath.mat_mul(m_a, self.m_rfs_f_rcs)
        else:
            self.has_m_afs_f_acs = False
        self.obj_r = obj_r
        self.obj_a = obj_a
        for i in range(3):
            self.axis_type[i] = int(n_trans > i)
            self.axis_type[3 + i] = int(n_rot > i)

    def limit_translation(self, i: int, lo: float, hi: float) -> None:
        """0x10012960: translation axis i limited to [lo, hi] (metres, p_A - p_R)."""
        self._limit(i, i, lo, hi, "translation")

    def limit_rotation(self, i: int, lo: float, hi: float) -> None:
        """0x10012990: rotation axis i limited to [lo, hi] (radians)."""
        self._limit(i, 3 + i, lo, hi, "rotation")

    def _limit(self, i, k, lo, hi, what) -> None:
        name = f"constraint {joint_name(self.obj_r, self.obj_a)}"
        if i not in (0, 1, 2):
            raise ValueError(f"{name}: {what} axis {i!r} must be 0, 1 or 2")
        check(f"{name}: {what} limits", (lo, hi), size=2)
        if not lo <= hi:
            raise ValueError(f"{name}: {what} limits {lo!r} > {hi!r} (lower must not exceed upper)")
        self.axis_type[k] = AXIS_LIMITED
        self.borders_low[k] = f32(lo)
        self.borders_high[k] = f32(hi)

    def set_max_translation_force(self, i: int, max_force: float, mode: str = "scale") -> None:
        """Outlined in the spec (+0x1d0, +0x1e8): the largest force along
        translation axis i; beyond it the impulses are scaled down or the
        constraint breaks."""
        self._max(i, i, max_force, mode)

    def set_max_rotation_torque(self, i: int, max_torque: float, mode: str = "scale") -> None:
        """As set_max_translation_force, for the torque about rotation axis i."""
        self._max(i, 3 + i, max_torque, mode)

    def _max(self, i, k, value, mode) -> None:
        name = f"constraint {joint_name(self.obj_r, self.obj_a)}"
        if i not in (0, 1, 2):
            raise ValueError(f"{name}: axis {i!r} must be 0, 1 or 2")
        check(f"{name}: the maximum", value)
        if not value > 0.0:
            raise ValueError(f"{name}: the maximum {value!r} must be a positive number")
        if mode not in OVER_MAX_MODES:
            raise ValueError(f"{name}: over-maximum mode {mode!r} must be 'scale' or 'break'")
        self.max_force[k] = f32(value)
        self.over_max_mode[k] = OVER_MAX_MODES[mode]


class Constraint(Joint):
    """Spec 12.5 (ctor 0x10028270, init 0x100284d0): frames in core space,
    axis types, order bytes; the solver of 12.6 at priority 405."""

    priority = 405

    def __init__(self, env, tmpl: ConstraintTemplate):
        super().__init__(env, tmpl.obj_r, tmpl.obj_a)
        obj_r, obj_a = tmpl.obj_r, tmpl.obj_a
        self.obj_r = obj_r
        self.obj_a = obj_a
        t = env.current_time
        wl_r = umath.IDENTITY_M if obj_r is None else obj_r.get_m_world_f_object_AT(t)
        wl_a = umath.IDENTITY_M if obj_a is None else obj_a.get_m_world_f_object_AT(t)
        rfs_f_afs = umath.mat_mul(umath.mat_inverse_ortho(wl_r), wl_a)
        rcore_f_rfs = umath.IDENTITY_M if obj_r is None else obj_r.get_m_core_f_object()
        acore_f_afs = umath.IDENTITY_M if obj_a is None else obj_a.get_m_core_f_object()
        rcore_f_acore = umath.mat_mul(umath.mat_mul(rcore_f_rfs, rfs_f_afs),
                                      umath.mat_inverse_ortho(acore_f_afs))
        if tmpl.has_m_rfs_f_rcs:
            rcore_f_rcs = umath.mat_mul(rcore_f_rfs, tmpl.m_rfs_f_rcs)
        else:
            rcore_f_rcs = rcore_f_rfs
        self.m_rcs_f_rcore = _inverse(rcore_f_rcs, self, "R's constraint frame")
        if tmpl.has_m_afs_f_acs:
            self.m_acs_f_acore = _inverse(umath.mat_mul(acore_f_afs, tmpl.m_afs_f_acs), self,
                                          "A's constraint frame")
        else:
            self.m_acs_f_acore = umath.mat_mul(self.m_rcs_f_rcore, rcore_f_acore)
        self.force_factor = f32(tmpl.force_factor)
        self.damp_factor = f32(tmpl.damp_factor / tmpl.force_factor)
        self.limit_factor = f32(tmpl.limit_factor)
        self.axis_type = np.array(tmpl.axis_type, dtype=np.int64)     # the solve keeps AXIS_ACTIVE here
        self.borders_low = np.array(tmpl.borders_low, dtype=np.float64)
        self.borders_high = np.array(tmpl.borders_high, dtype=np.float64)
        self.max_force = list(tmpl.max_force) if any(tmpl.max_force) else None
        self.over_max_mode = list(tmpl.over_max_mode)
        rot = list(tmpl.axis_type[3:])
        # 0x100283f0: rotation axes fixed, then limited, then free
        self.rot_order = tuple([i for i in range(3) if rot[i] == AXIS_FIXED]
                               + [i for i in range(3) if rot[i] == AXIS_LIMITED]
                               + [i for i in range(3) if rot[i] == AXIS_FREE])
        self.n_fixed_rot = rot.count(AXIS_FIXED)
        self.n_limited_rot = rot.count(AXIS_LIMITED)
        # the anchors in core coordinates, (f32)(R^T (-vv)) (0x1000f370), fixed
        # for the constraint's life
        self.anchor_r = _frame_origin(self.m_rcs_f_rcore)
        self.anchor_a = _frame_origin(self.m_acs_f_acore)

    # --- the solver (12.6) -------------------------------------------------------

    def in_run(self) -> bool:
        """A constraint without a maximum force is solved in a ConstraintRun."""
        return self.max_force is None

    def do_simulation_controller(self, ev, cores) -> None:
        """Spec 12.6 (0x10028960): one exact velocity solve per PSI, applied at once."""
        core_r = None if self.obj_r is None else self.obj_r.core
        core_a = None if self.obj_a is None else self.obj_a.core
        r = _side_state(core_r)
        a = _side_state(core_a)
        limited = self.max_force is not None
        state, lam, cs_a, v_r, w_r, v_a, w_a = solve_step(
            *r, *a, self.m_rcs_f_rcore[0], self.m_acs_f_acore[0], self.n_fixed_rot + self.n_limited_rot,
            self.rot_order, self.anchor_r, self.anchor_a, self.axis_type, self.borders_low, self.borders_high,
            f32(ev.delta_time), self.damp_factor, self.force_factor, f32(ev.i_delta_time), self.limit_factor,
            LIN_SOLVE_EPS, not limited)
        if state != SOLVED:
            return                          # nothing active, or the failure path: nothing this PSI
        if limited:
            lam = lam.tolist()
            if not self.limit_to_max_force(lam, f32(ev.delta_time)):
                return
            lam = tuple(lam)
            if r[0]:
                v_r, w_r = push_side(core_r.speed, core_r.rot_speed, core_r.inv_rot_inertia, core_r.inv_mass,
                                      self.anchor_r, self.m_rcs_f_rcore[0], r[1], lam, 1.0)
            if a[0]:
                v_a, w_a = push_side(core_a.speed, core_a.rot_speed, core_a.inv_rot_inertia, core_a.inv_mass,
                                      self.anchor_a, cs_a, a[1], lam, -1.0)
        if r[0]:
            core_r.speed, core_r.rot_speed = v_r, w_r
        if a[0]:
            core_a.speed, core_a.rot_speed = v_a, w_a

    def angular_error(self, cs_a):
        """Spec 12.6: the rotation of A's constraint frame in R's, by the number
        of locked (fixed or limited) rotation axes (:func:`angular_error`)."""
        return angular_error(cs_a, self.m_acs_f_acore[0], self.n_fixed_rot + self.n_limited_rot, self.rot_order)

    def response_matrix(self, active, core_r, core_a, cs_w, cs_a):
        """Spec 12.6: M[k][a] = the change of measured axis k (relative anchor
        velocity, then relative rotation speed, in Rcs) under a unit test
        impulse on axis a, + on R and - on A; active axes only. None cores are
        fixed or missing and contribute nothing. An (n, n) array."""
        return response_matrix(np.array(active, dtype=np.int64), *_side_data(core_r, self.anchor_r),
                                self.m_rcs_f_rcore[0], *_side_data(core_a, self.anchor_a), cs_a, cs_w)

    def limit_to_max_force(self, lam, dt: float) -> bool:
        """Beyond the spec (the max-force block is outlined only): an impulse
        above max x dt on an axis scales all impulses down (mode 1) or breaks
        the constraint (mode 2, nothing applied). Returns False when broken."""
        scale = 1.0
        for i in range(6):
            m = self.max_force[i]
            if m <= 0.0 or abs(lam[i]) <= m * dt:
                continue
            if self.over_max_mode[i] == OVER_MAX_MODES["break"]:
                self.break_joint()
                return False
            scale = min(scale, m * dt / abs(lam[i]))
        for i in range(6):
            lam[i] *= scale
        return True


class ConstraintRun:
    """Consecutive constraints of a unit without a maximum force, solved in
    one compiled pass (:func:`solve_run_k`): 12.6 for each in turn, each
    reading the speeds the ones before it left, as their
    do_simulation_controller one after the other. Made once per unit
    structure (SimUnit.controller_steps); each constraint's axis types become a row of
    the run's array."""

    __slots__ = ("controllers", "cores", "IR", "IA", "RR", "RA", "NL", "RO", "AR", "AA", "TY", "LO", "HI", "F",
                 "slots", "fixed")

    def __init__(self, constraints):
        self.controllers = list(constraints)
        cores = []
        at = {}

        def index(obj):
            if obj is None:
                return -1
            c = obj.core
            if c not in at:
                at[c] = len(cores)
                cores.append(c)
            return at[c]

        self.IR = np.array([index(c.obj_r) for c in constraints], dtype=np.int64)
        self.IA = np.array([index(c.obj_a) for c in constraints], dtype=np.int64)
        self.cores = cores
        self.RR = np.array([c.m_rcs_f_rcore[0] for c in constraints], dtype=np.float64)
        self.RA = np.array([c.m_acs_f_acore[0] for c in constraints], dtype=np.float64)
        self.NL = np.array([c.n_fixed_rot + c.n_limited_rot for c in constraints], dtype=np.int64)
        self.RO = np.array([c.rot_order for c in constraints], dtype=np.int64)
        self.AR = np.array([c.anchor_r for c in constraints], dtype=np.float64)
        self.AA = np.array([c.anchor_a for c in constraints], dtype=np.float64)
        self.TY = np.array([c.axis_type for c in constraints], dtype=np.int64)
        for k, c in enumerate(constraints):
            c.axis_type = self.TY[k]            # the solve keeps AXIS_ACTIVE in the run's row
        self.LO = np.array([c.borders_low for c in constraints], dtype=np.float64)
        self.HI = np.array([c.borders_high for c in constraints], dtype=np.float64)
        self.F = np.array([(c.damp_factor, c.force_factor, c.limit_factor) for c in constraints],
                          dtype=np.float64)
        self.slots = np.array([-1 if c.physical_unmoveable else c.row for c in cores], dtype=np.int64)
        self.fixed = None                       # fixed_rows' rows of the fixed cores, and their inputs

    def do_simulation_controller(self, ev, cores) -> None:
        """Every constraint's 12.6 solve, in order, in one pass over the
        cores' rows of the body table (solve_rows_k)."""
        solve_rows_k(ev.environment.bodies.rows, self.slots, self.fixed_rows(), self.IR, self.IA, self.RR,
                     self.RA, self.NL, self.RO, self.AR, self.AA, self.TY, self.LO, self.HI, self.F,
                     f32(ev.delta_time), f32(ev.i_delta_time), LIN_SOLVE_EPS)


    def lane_psi(self, S, rows, flags, t, dt, i_dt, gx, gy, gz, fct, valve, countdown, seed):
        """do_sim_unit_PSI (6.3) of the run's unit, its cores' rows ``rows``
        of the body table S (unit_pass.run_joint_unit): :func:`unit_psi_k`.
        Returns (calm, count-down, seed)."""
        return unit_psi_k(S, rows, self.slots, self.fixed_rows(), flags, t, valve, countdown, seed, gx, gy, gz,
                          fct, self.IR, self.IA, self.RR, self.RA, self.NL, self.RO, self.AR, self.AA, self.TY,
                          self.LO, self.HI, self.F, f32(dt), f32(i_dt), LIN_SOLVE_EPS)

    def fixed_rows(self):
        """The solve's rows (_state_row) of the run's fixed cores (slot -1),
        zeros for the others; made again when such a core's pose
        or speeds are new objects."""
        slots = self.slots
        fixed = [i for i, k in enumerate(slots.tolist()) if k < 0]
        inputs = [x for i in fixed for x in (self.cores[i].m_world_f_core_last_psi, self.cores[i].speed,
                                             self.cores[i].rot_speed)]
        kept = self.fixed
        if kept is not None and len(kept[0]) == len(inputs) and all(a is b for a, b in zip(kept[0], inputs)):
            return kept[1]
        rows = np.zeros((slots.shape[0], 23))
        for i in fixed:
            rows[i] = _state_row(self.cores[i])
        self.fixed = (inputs, rows)
        return rows


Constraint.run_class = ConstraintRun


def _state_row(c):
    """A run's row of core c: world rotation and position, speed, rotation
    speed, inverse inertia and mass, moving (1.0) or not."""
    R, vv = c.m_world_f_core_last_psi
    return (*R, *vv, *c.speed, *c.rot_speed, *c.inv_rot_inertia, c.inv_mass, 0.0 if c.physical_unmoveable else 1.0)


def _side_data(core, anchor):
    """What the response kernel reads of one side: present, anchor, inverse
    inertia and mass, the core's world rotation (placeholders when None)."""
    if core is None:
        return False, ZERO3, ZERO3, 0.0, umath.IDENTITY_R
    return True, anchor, core.inv_rot_inertia, core.inv_mass, core.m_world_f_core_last_psi[0]


def _side_state(core):
    """What the solve reads of one side: moving, its world rotation and
    position (identity when there is no core), speed, rotation speed, inverse
    inertia and mass."""
    if core is None:
        return False, umath.IDENTITY_R, ZERO3, ZERO3, ZERO3, ZERO3, 0.0
    R, vv = core.m_world_f_core_last_psi
    return (not core.physical_unmoveable, R, vv, core.speed, core.rot_speed, core.inv_rot_inertia,
            core.inv_mass)


def _frame_origin(m_cs_f_core):
    """0x1000f370: the constraint frame's origin in core coordinates, f32."""
    R, vv = m_cs_f_core
    return f32v(*umath.rot_t_mul_v(R, (-vv[0], -vv[1], -vv[2])))


def _inverse(M, joint, what: str):
    inv = umath.mat_inverse_general(M, INVERSE_EPS)
    if inv is None:
        raise ValueError(f"{joint!r}: {what} is singular")
    return inv


def _check_frame(what: str, anchor, axis) -> None:
    """The anchor (a place: within MAX_POSITION) and the axis (a direction:
    finite f32 numbers) of a constraint frame; None is allowed for either."""
    if anchor is not None:
        check(f"{what}: the anchor", anchor, high="MAX_POSITION", size=3)
    if axis is not None:
        check(f"{what}: the axis", axis, size=3)


def _check_template(env, tmpl: ConstraintTemplate) -> None:
    what = f"constraint {joint_name(tmpl.obj_r, tmpl.obj_a)}"
    check_joint_objects(env, what, tmpl.obj_r, tmpl.obj_a)
    ff = tmpl.force_factor
    check(f"{what}: the force factor", ff)
    if not ff > 0.0:
        raise ValueError(f"{what}: the force factor {ff!r} must be a positive number")
    for name, v in (("damp factor", tmpl.damp_factor), ("limit factor", tmpl.limit_factor)):
        check(f"{what}: the {name}", v)
        if not v >= 0.0:
            raise ValueError(f"{what}: the {name} {v!r} must be a number >= 0")
    for k, t in enumerate(tmpl.axis_type):
        if t not in (AXIS_FREE, AXIS_FIXED, AXIS_LIMITED):
            raise ValueError(f"{what}: axis {k} has the type {t!r} (0 free, 1 fixed, 2 limited)")
        if t == AXIS_LIMITED and not tmpl.borders_low[k] <= tmpl.borders_high[k]:
            raise ValueError(f"{what}: axis {k} limits {tmpl.borders_low[k]!r} > {tmpl.borders_high[k]!r}")


def create_constraint(env, tmpl: ConstraintTemplate):
    """Spec 12.4 (0x100129c0): None when both objects are None; else build the
    constraint (12.5) and register it (units merged, revived if one body is
    awake). Bad input raises ValueError before anything is attached."""
    if tmpl.obj_r is None and tmpl.obj_a is None:
        return None
    _check_template(env, tmpl)
    c = Constraint(env, tmpl)
    c.register()
    return c


def create_hinge(env, obj_r, obj_a, anchor_ws, axis_ws=None, limits=None):
    """Set Physics Hinge (12.4 glue, 0x100059d0): 3 translations and 2 rotations
    locked about the axis (world (0,0,1) without one); ``limits`` = (lo, hi) in
    radians on rotation axis 2."""
    tmpl = ConstraintTemplate()
    tmpl.set_constraint_ws(env, obj_r, anchor_ws, (0.0, 0.0, 1.0) if axis_ws is None else axis_ws,
                           3, 2, obj_a)
    if limits is not None:
        tmpl.limit_rotation(2, limits[0], limits[1])
    return create_constraint(env, tmpl)


def create_slider(env, obj_r, obj_a, first_point_ws, second_point_ws, limits=None):
    """Set Physics Slider (12.4 glue, 0x10005f10): the axis is second - first
    (unnormalized), anchored at the first point; all rotations and the two
    perpendicular translations locked. Like the original, set_constraint_ws
    runs twice, (3, 2) then (2, 3): only the second counts. ``limits`` =
    (lo, hi) in metres on translation axis 2, measured as p_A - p_R."""
    what = f"slider {joint_name(obj_r, obj_a)}"
    for name, p in (("first point", first_point_ws), ("second point", second_point_ws)):
        check(f"{what}: the {name}", p, high="MAX_POSITION", size=3)
    axis = umath.sub(second_point_ws, first_point_ws)
    if umath.dot(axis, axis) < QUAT_NORM_EPS:
        raise ValueError(f"{what}: the axis points {tuple(first_point_ws)} and "
                         f"{tuple(second_point_ws)} coincide (zero-length axis)")
    tmpl = ConstraintTemplate()
    tmpl.set_constraint_ws(env, obj_r, first_point_ws, axis, 3, 2, obj_a)
    tmpl.set_constraint_ws(env, obj_r, first_point_ws, axis, 2, 3, obj_a)
    if limits is not None:
        tmpl.limit_translation(2, limits[0], limits[1])
    return create_constraint(env, tmpl)


def create_ball_joint(env, obj_r, obj_a, anchor_ws):
    """Set Physics Ball Joint (12.4 glue, 0x100052f0): 3 translations locked at
    the anchor, no axis."""
    tmpl = ConstraintTemplate()
    tmpl.set_constraint_ws(env, obj_r, anchor_ws, None, 3, 0, obj_a)
    return create_constraint(env, tmpl)
