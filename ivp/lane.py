"""The lane (issue 11): the per-PSI state of free bodies in arrays, with one
compiled pass per PSI over them.

A unit with one movable core whose only controller is gravity (a body in
flight: no contact, joint, spring or force) is run by :func:`run_units`
instead of :meth:`SimUnit.do_sim_unit_psi`, and its core is integrated by
:meth:`Lane.integrate` instead of :meth:`Core.calc_next_psi_matrix`: the same
steps (dynamics 6.3 begin of the PSI, the sleep count-down 10.1, gravity and
damping 7.1 / 7.3, the calm test 10.2, the integration 8.2 / 8.3) over rows of
one array, in the same order of operations with the same f32 stores, so the
results are bit-identical to the object path.

While a core's row is in the lane, the row is its state: the core is *on
loan*, its class is :class:`LoanedCore`, whose every state field is a property
that first gives the core back (writes the row into the core's fields and
makes it a plain :class:`Core` again). So any code that reads or writes a
loaned core's state sees exactly what the object path would have, and the lane
takes the core again at its next PSI. A snapshot gives every core back first
(``_before_snapshot``), so snapshot files never hold a loaned core.
"""

from __future__ import annotations

import math
import os
from itertools import chain
from operator import attrgetter

import numpy as np

from . import jit, rng
from .core import MT_NOT_SIM, Core, ZERO3, centre_at, damping_factors, pose_at
from .fp import TENTH_F, f32v
from .freeze import freeze_unit
from .lane_kernels import integrate_k, run_units_k
from .state.layout import (ABS_OMEGA, AXIS, BOUND, CALM_T, CUR_SPEED, DELTA, I_DT, INV_I, M_POS, M_R, MAX_SURF_ROT,
                           POS, Q_LAST, Q_NEXT, RADIUS, ROT_SPEED, ROT_SPEED_CHANGE, SPEED, SPEED_CHANGE, STATE,
                           T_LAST, WIDTH, free_row)

# the fields a loaned core keeps in its row; every other slot stays on the object
# (read-only for the pass, or bookkeeping the pass does not touch)
KEPT_ON_OBJECT = ("environment", "objects", "sim_unit_of_core", "controllers_of_core", "friction_system",
                  "impact_sync", "is_in_wakeup_vec", "physical_unmoveable", "fast_piling_allowed", "mass",
                  "inv_object_diameter", "damping_memo", "lane_slot", "lane_static", "impacts_since_last_psi",
                  "impact_count_psi", "temporarily_unmovable_psi")
LOANED = tuple(n for n in Core.__slots__ if n not in KEPT_ON_OBJECT)
# the loaned fields the passes write (give_back writes them into the core); the
# others are copied into the row at take and only read, so their slots stay true
WRITTEN = ("speed", "rot_speed", "speed_change", "rot_speed_change", "pos_world_f_core_last_psi",
           "delta_world_f_core_psis", "q_world_f_core_last_psi", "q_world_f_core_next_psi",
           "m_world_f_core_last_psi", "rotation_axis_world", "current_speed", "abs_omega",
           "max_surface_rot_speed", "time_of_last_psi", "i_delta_time", "time_calm_ref", "q_calm_ref",
           "pos_calm_ref", "movement_state")

ENABLED = jit.ENABLED and os.environ.get("IVP_LANE", "1") != "0"

_fast_flags = attrgetter("fast", "fast_prev")


class LoanedCore(Core):
    """A core whose state is in its lane row (see the module docstring)."""

    __slots__ = ()

    def _before_snapshot(self) -> None:
        self.environment.lane.give_back(self)

    def get_m_world_f_core_PSI(self, t: float):
        """Core.get_m_world_f_core_PSI (4.1) from the row: the core stays on
        loan; at its last PSI (or not simulated) the row's pose object
        (Lane.pose_of), as the object path returns its one pose object."""
        lane = self.environment.lane
        k = self.lane_slot
        r = lane.rows
        if r.item(k, STATE) < MT_NOT_SIM and t != r.item(k, T_LAST):
            return pose_at(t, *self.pose_parts())
        return lane.pose_of(k)

    def pose_parts(self):
        """Core.pose_parts read from the row (a pose asked for, as the glue's
        write-back does every frame, keeps the core on loan)."""
        lane = self.environment.lane
        v = lane.rows[self.lane_slot, POS:STATE + 1].tolist()
        return (v[T_LAST - POS], int(v[STATE - POS]), tuple(v[Q_LAST - POS:Q_LAST - POS + 4]),
                tuple(v[Q_NEXT - POS:Q_NEXT - POS + 4]), v[I_DT - POS], tuple(v[0:3]),
                tuple(v[DELTA - POS:DELTA - POS + 3]), lane.pose_of(self.lane_slot))

    def look_values(self):
        """Core.look_values from the row, read at once."""
        r = self.environment.lane.rows
        k = self.lane_slot
        return r.item(k, MAX_SURF_ROT), r.item(k, CUR_SPEED)

    def event_values(self):
        """Core.event_values from the row, read at once."""
        r = self.environment.lane.rows[self.lane_slot]
        return (tuple(r[SPEED:SPEED + 3].tolist()), tuple(r[AXIS:AXIS + 3].tolist()), float(r[MAX_SURF_ROT]))

    def centre_at(self, t: float):
        """Core.centre_at from the row."""
        v = self.environment.lane.rows[self.lane_slot, POS:STATE + 1].tolist()
        return centre_at(t, v[T_LAST - POS], v[STATE - POS], v[0:3], v[DELTA - POS:DELTA - POS + 3],
                         (None, tuple(v[M_POS - POS:M_POS - POS + 3])))

    def reset_freeze_check_values(self) -> None:
        """Core.reset_freeze_check_values (10.4) on the row: both calm windows
        restart now (wake() of an awake body keeps it on loan)."""
        row = self.environment.lane.rows[self.lane_slot]
        row[CALM_T] = row[CALM_T + 1] = self.environment.current_time


def _vec(at: int, n: int = 3):
    return lambda r: tuple(r[at:at + n].tolist())


def _change(at: int):
    return lambda r: _vec_or_zero(r[at:at + 3].tolist(), 0)


def _number(at: int):
    return lambda r: float(r[at])


# a written field's value as give_back would write it, read from the row
_READ = {
    "speed": _vec(SPEED), "rot_speed": _vec(ROT_SPEED), "speed_change": _change(SPEED_CHANGE),
    "rot_speed_change": _change(ROT_SPEED_CHANGE), "pos_world_f_core_last_psi": _vec(POS),
    "delta_world_f_core_psis": _vec(DELTA), "q_world_f_core_last_psi": _vec(Q_LAST, 4),
    "q_world_f_core_next_psi": _vec(Q_NEXT, 4),
    "rotation_axis_world": _vec(AXIS), "current_speed": _number(CUR_SPEED), "abs_omega": _number(ABS_OMEGA),
    "max_surface_rot_speed": _number(MAX_SURF_ROT), "time_of_last_psi": _number(T_LAST),
    "i_delta_time": _number(I_DT), "movement_state": lambda r: int(r[STATE]),
}


def _loaned_field(name: str):
    """A loaned core's field: a written one is read from the row (the calm
    references, lists a caller may change, give the core back first), a
    read-only one from its slot; any write gives the core back first."""
    slot = Core.__dict__[name]
    read = _READ.get(name)

    if name == "m_world_f_core_last_psi":
        def get(core):
            return core.environment.lane.pose_of(core.lane_slot)
    elif read is not None:
        def get(core):
            return read(core.environment.lane.rows[core.lane_slot])
    elif name in WRITTEN:
        def get(core):
            core.environment.lane.give_back(core)
            return slot.__get__(core, Core)
    else:
        get = slot.__get__

    def put(core, value):
        core.environment.lane.give_back(core)
        slot.__set__(core, value)

    return property(get, put, doc=f"Core.{name}, given back from the lane first")


for _name in LOANED:
    setattr(LoanedCore, _name, _loaned_field(_name))


class Lane:
    """The rows of the loaned cores of one environment."""

    def __init__(self, env):
        self.environment = env
        self.rows = np.zeros((64, WIDTH))
        self.cores = []                 # the core of each row
        self.poses = []                 # each row's pose object (pose_of), None until asked for
        self.ran = []                   # (rows, cores) of the runs of this PSI, to integrate
        self.ran_moved = False          # a row was given back since: ``rows`` are stale
        self.plan = None
        self.planned_psi = -1           # the PSI whose units all ran as the plan says

    def _before_snapshot(self) -> None:
        self.give_back_all()
        self.plan = None

    def can_take(self, core) -> bool:
        """A movable core with no friction system, impact in progress or pair
        being measured (its bodies far from everything)."""
        if core.physical_unmoveable or core.friction_system is not None or core.impact_sync is not None:
            return False
        for obj in core.objects:
            s = obj.collision_data
            if s is not None and s.mindists:
                return False
        return True

    def take(self, core) -> int:
        """Put the core's state in a new row; the core is on loan from now."""
        k = len(self.cores)
        if k == self.rows.shape[0]:
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
        m = core.m_world_f_core_last_psi
        ref_t, ref_q, ref_p = core.time_calm_ref, core.q_calm_ref, core.pos_calm_ref
        R = self.rows[k]
        R[:INV_I] = (*core.speed, *core.rot_speed, *core.speed_change, *core.rot_speed_change,
                     *core.pos_world_f_core_last_psi, *core.delta_world_f_core_psis,
                     *core.q_world_f_core_last_psi, *core.q_world_f_core_next_psi, *m[0], *m[1],
                     *core.rotation_axis_world, core.current_speed, core.abs_omega, core.max_surface_rot_speed,
                     core.time_of_last_psi, core.i_delta_time, ref_t[0], ref_t[1], *ref_q[0], *ref_q[1],
                     *ref_p[0], *ref_p[1], float(core.movement_state))
        R[INV_I:] = _static_part(core, self.environment.delta_PSI_time)
        self.cores.append(core)
        self.poses.append(m)
        core.lane_slot = k
        core.__class__ = LoanedCore
        self.environment.epoch.touch(())    # (a row is not what a unit's lane step is chosen by)
        return k

    def give_back(self, core) -> None:
        """The row into the core's fields; the core is a plain Core again."""
        k = core.lane_slot
        core.__class__ = Core
        r = self.rows[k].tolist()
        core.speed = (r[0], r[1], r[2])
        core.rot_speed = (r[3], r[4], r[5])
        core.speed_change = _vec_or_zero(r, SPEED_CHANGE)
        core.rot_speed_change = _vec_or_zero(r, ROT_SPEED_CHANGE)
        core.pos_world_f_core_last_psi = (r[12], r[13], r[14])
        core.delta_world_f_core_psis = (r[15], r[16], r[17])
        core.q_world_f_core_last_psi = (r[18], r[19], r[20], r[21])
        core.q_world_f_core_next_psi = (r[22], r[23], r[24], r[25])
        core.m_world_f_core_last_psi = self.pose_of(k)
        core.rotation_axis_world = (r[38], r[39], r[40])
        core.current_speed = r[41]
        core.abs_omega = r[42]
        core.max_surface_rot_speed = r[43]
        core.time_of_last_psi = r[44]
        core.i_delta_time = r[45]
        core.time_calm_ref = [r[46], r[47]]
        core.q_calm_ref = [(r[48], r[49], r[50], r[51]), (r[52], r[53], r[54], r[55])]
        core.pos_calm_ref = [(r[56], r[57], r[58]), (r[59], r[60], r[61])]
        core.movement_state = int(r[62])
        core.lane_slot = -1
        self.environment.epoch.touch(())
        free_row(self.rows, self.cores, k, "lane_slot")
        last = self.poses.pop()
        if k < len(self.poses):
            self.poses[k] = last
        self.ran_moved = bool(self.ran)

    def pose_of(self, k: int):
        """Row k's m_world_f_core_last_psi as one object from the row, made
        when first asked for after the row's begin of the PSI (``begun``):
        the caches keyed by a pose object (Shape.piece_world, a pair's hull
        record, the system passes') hold while it stays, as in the object path."""
        m = self.poses[k]
        if m is None:
            v = self.rows[k, M_R:M_POS + 3].tolist()
            m = self.poses[k] = (tuple(v[:9]), (v[9], v[10], v[11]))
        return m

    def begun(self, rows) -> None:
        """The rows' begin of the PSI ran (begin_row wrote their poses)."""
        poses = self.poses
        for k in rows.tolist():
            poses[k] = None

    def give_back_all(self) -> None:
        while self.cores:
            self.give_back(self.cores[-1])

    def runs_all(self, cores) -> bool:
        """Whether every one of the PSI's cores is on loan in a run of this
        PSI (none given back since): the object path integrates none of them."""
        return not self.ran_moved and sum(len(c) for _, c in self.ran) == len(cores)

    def integrate(self, delta_time: float, i_delta_time: float) -> list:
        """Dynamics 8.2 / 8.3 for the rows run this PSI; the cores whose speed
        is over an anomaly limit come back to be integrated by the object path
        (the anomaly manager's handlers are Python). Returns them."""
        env = self.environment
        ran = self.ran
        self.ran = []
        if not ran:
            return []
        if self.ran_moved:              # the runs' cores still on loan, in run order
            self.ran_moved = False
            rows = np.array([c.lane_slot for _, cores in ran for c in cores if c.lane_slot >= 0], dtype=np.int64)
        else:
            rows = ran[0][0] if len(ran) == 1 else np.concatenate([r for r, _ in ran])
        lim = env.anomaly_limits
        over = integrate_k(self.rows, rows, delta_time, i_delta_time, env.current_time,
                          env.inv_delta_PSI_time * lim.max_angular_velocity_per_psi, lim.max_velocity)
        out = [self.cores[k] for k in over.tolist()]
        for c in out:
            self.give_back(c)
        return out

    def pose_values(self, slots):
        """(time_of_last_psi, i_delta_time, q_world_f_core_last_psi,
        q_world_f_core_next_psi, pos_world_f_core_last_psi,
        delta_world_f_core_psis) of the rows ``slots``, as one (n, 16) array."""
        rows = self.rows
        return np.concatenate((rows[slots, T_LAST:I_DT + 1], rows[slots, Q_LAST:Q_NEXT + 4],
                               rows[slots, POS:DELTA + 3]), axis=1)

    def motion_values(self, slots):
        """(speed, rot_speed, pos_world_f_core_last_psi) of the rows ``slots``,
        as one (n, 9) array."""
        rows = self.rows
        return np.concatenate((rows[slots, SPEED:ROT_SPEED + 3], rows[slots, POS:POS + 3]), axis=1)

    def broad_values(self, slots):
        """(centre, upper_limit_radius, current_speed + max_surface_rot_speed,
        BOUND) of the rows ``slots``, for the broad phase."""
        rows = self.rows
        return (rows[slots, M_POS:M_POS + 3], rows[slots, RADIUS],
                rows[slots, CUR_SPEED] + rows[slots, MAX_SURF_ROT], rows[slots, BOUND])


def _vec_or_zero(r, i):
    """A pending change as the object path keeps it: ZERO3 itself when it is +0."""
    v = (r[i], r[i + 1], r[i + 2])
    if v == ZERO3 and math.copysign(1.0, v[0]) + math.copysign(1.0, v[1]) + math.copysign(1.0, v[2]) == 3.0:
        return ZERO3
    return v


def _static_part(core, dt: float):
    """The row from INV_I on (the fields the passes only read, the damping
    factors for dt, the bound), kept on the core while its inputs stay."""
    key = (dt, core.inv_rot_inertia, core.inv_mass, core.rot_inertia, core.rot_inertias_are_equal,
           core.max_rot_speed, core.max_surface_deviation, core.upper_limit_radius, core.rot_speed_damp_factor,
           core.speed_damp_factor, [o.collision_data for o in core.objects])
    kept = core.lane_static
    if kept is not None and kept[0] == key:
        return kept[1]
    m = core.max_rot_speed
    r = core.rot_speed_damp_factor
    part = np.array(core.inv_rot_inertia + (core.inv_mass,) + core.rot_inertia
                    + (1.0 if core.rot_inertias_are_equal else 0.0,)
                    + ((0.0, 0.0, 0.0, 0.0) if m is None else tuple(m) + (1.0,))
                    + (core.max_surface_deviation, core.upper_limit_radius)
                    + damping_factors(dt, r, core.speed_damp_factor)
                    + damping_factors(dt, f32v(r[0] + TENTH_F, r[1] + TENTH_F, r[2] + TENTH_F),
                                      core.speed_damp_factor + TENTH_F)
                    + (_bound(core),))
    core.lane_static = (key, part)
    return part


def _bound(core) -> float:
    """The radius about the core's centre of a sphere holding every piece's
    bounding sphere (rigid in the core frame), a little enlarged: a conservative
    stand-in for the pieces in the broad phase's box test."""
    c = core.m_world_f_core_last_psi[1]
    b = 0.0
    col = core.environment.collision
    for obj in core.objects if col is not None else ():
        s = obj.collision_data
        if s is None:
            continue
        for _, p, r in col._piece_spheres(s):
            b = max(b, math.sqrt((p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2 + (p[2] - c[2]) ** 2) + r)
    return b * (1.0 + 1e-9) + 1e-9


def lane_unit(env, su) -> bool:
    """Whether the lane runs this unit: one movable core, gravity its only
    controller, no split pending, and the core on loan or free to be taken."""
    entries = su.entries
    if su.changed or len(entries) != 1 or entries[0].controller is not env.gravity_controller:
        return False
    cores = su.cores
    return len(cores) == 1 and env.lane.can_take(cores[0])


def joint_unit(env, su):
    """The lane's step for a unit of joints it runs whole, or None: the
    unit's controllers are gravity on every core, then one step that runs on
    rows (``lane_psi``: a ConstraintRun, or a constraint of one), every core
    may be taken (can_take) and is taken on loan, and the step's other cores
    are fixed. The step, (run, rows, cores, the run's cores' rows or -1),
    is kept while nothing changes (env.epoch)."""
    kept = su._lane
    if kept is not None and kept[0] == env.epoch.value:
        return kept[1]
    step = _joint_step(env, su)
    su._lane = (env.epoch.value, step)
    return step


def _joint_step(env, su):
    entries = su.entries
    if len(entries) < 2 or entries[-1].controller is not env.gravity_controller:
        return None                     # gravity is not the first step: no steps made for nothing
    steps = su.controller_steps()
    cores = tuple(su.cores)
    if len(steps) != 2 or steps[0][0] is not env.gravity_controller or len(steps[0][1]) != len(cores):
        return None
    run = steps[1][0]
    lane = env.lane
    if not all(lane.can_take(c) for c in cores):
        return None
    if not hasattr(run, "lane_psi"):
        cls = type(run).run_class
        if cls is None or not hasattr(cls, "lane_psi") or not run.in_run():
            return None
        kept = su._lane                 # a constraint of its own: its run of one kept
        old = None if kept is None or kept[1] is None else kept[1][0]
        run = old if old is not None and old.controllers == [run] else cls([run])
    if any(c.sim_unit_of_core is not su and not c.physical_unmoveable for c in run.cores):
        return None
    for c in cores:
        if c.lane_slot < 0:
            lane.take(c)
    rows = np.array([c.lane_slot for c in cores], dtype=np.int64)
    slots = np.array([c.lane_slot if c.sim_unit_of_core is su else -1 for c in run.cores], dtype=np.int64)
    return run, rows, cores, slots


def run_joint_unit(env, su, step, cores_out: list) -> None:
    """do_sim_unit_PSI (6.3) of a unit of joints (:func:`joint_unit`) on its
    rows in one pass (the step's ``lane_psi``: the head, gravity, the
    constraints, the sleep test); a unit calm at its sleep test is given
    back and frozen by the object path."""
    run, rows, cores, slots = step
    lane = env.lane
    flags = np.array([[su.fast, su.fast_prev]], dtype=np.int64)
    g = env.gravity_controller.gravity
    dt = env.delta_PSI_time
    calm, countdown, seed = run.lane_psi(lane.rows, rows, slots, flags, env.current_time, dt,
                                         env.inv_delta_PSI_time, g[0] * dt, g[1] * dt, g[2] * dt,
                                         env.freeze_check_time, env.valve_sleep_countdown,
                                         env.sleep_countdown_value, rng.get_seed())
    env.sleep_countdown_value = countdown
    rng.set_seed(seed)
    lane.begun(rows)
    su.fast = bool(flags[0, 0])
    su.fast_prev = bool(flags[0, 1])
    cores_out.extend(reversed(cores))
    lane.ran.append((rows, cores))
    if calm:
        for c in cores:
            lane.give_back(c)
        freeze_unit(env, su)
    if env.collision is not None:
        env.collision.update_after_controllers(su)


def run_units(env, order, i: int, j: int, cores_out: list, plan: "Plan | None") -> int:
    """Spec 6.3 for a run of lane units, in order: the rows' begin of the PSI,
    count-down, gravity and calm test in one pass. A unit found calm is given
    back and frozen by the object path, and the run ends there (the caller
    looks at the next units again: a frozen listener may have changed them).
    The run, ``order[i:j]``, is a step of ``plan`` when one is being
    recorded. Returns how many units ran."""
    return run_rows(env, *take_run(env, order, i, j, plan, None), cores_out)


def take_run(env, order, i: int, j: int, plan: "Plan | None", cps):
    """A run's units ``order[i:j]``, their cores (taken on loan), rows and
    (fast, fast_prev) flags; the run (with its contact points ``cps``, a
    resting run) recorded as a step of ``plan`` when one is being recorded."""
    lane = env.lane
    units = order[i:j]
    cores = [su.cores[0] for su in units]
    rows = []
    for c in cores:
        if c.lane_slot < 0:
            lane.take(c)
            if plan is not None:
                plan.takes += 1
        rows.append(c.lane_slot)
    rows = np.array(rows, dtype=np.int64)
    flags = np.fromiter(chain.from_iterable(map(_fast_flags, units)), dtype=np.int64,
                        count=2 * len(units)).reshape(len(units), 2)
    if plan is not None:
        plan.steps.append((i, None, units, cores, rows, flags, cps))
    return units, cores, rows, flags


def run_rows(env, units, cores, rows, flags, cores_out: list) -> int:
    """run_units on the units' rows and their (fast, fast_prev) flags; a
    unit's flags that change are written back to it."""
    lane = env.lane
    col = env.collision
    before = flags.copy()
    g = env.gravity_controller.gravity
    dt = env.delta_PSI_time
    stop, countdown, seed = run_units_k(lane.rows, rows, flags, env.current_time, dt, g[0] * dt, g[1] * dt, g[2] * dt,
                                 env.freeze_check_time, env.valve_sleep_countdown, env.sleep_countdown_value,
                                 rng.get_seed())
    env.sleep_countdown_value = countdown
    rng.set_seed(seed)
    lane.begun(rows)
    ran = len(units) if stop < 0 else stop + 1
    flags_back(units, flags, before, ran)
    cores_out.extend(cores[:ran])
    lane.ran.append((rows[:ran], cores[:ran]))
    if col is not None:
        col.update_after_controllers(None)
    if stop >= 0:
        su = units[stop]
        lane.give_back(su.cores[0])
        freeze_unit(env, su)
        if col is not None:
            col.update_after_controllers(su)
    return ran


def flags_back(units, flags, before, ran: int) -> None:
    """The (fast, fast_prev) flags a pass changed, back into the first ran units."""
    if flags[:ran].tobytes() == before[:ran].tobytes():
        return                          # (mostly none changed)
    for i in np.flatnonzero((flags[:ran] != before[:ran]).any(axis=1)).tolist():
        units[i].fast = bool(flags[i, 0])
        units[i].fast_prev = bool(flags[i, 1])


def planned_psi(env) -> "Plan | None":
    """The plan, when this PSI's units all ran as planned (or recorded) and
    nothing changed since: the PSI's cores are the plan's."""
    lane = env.lane
    if lane is None or lane.planned_psi != env.psi_count:
        return None
    plan = lane.plan
    return plan if plan is not None and plan.holds() else None
