"""The lane (issue 11): the unit pass's compiled steps over the body table's
rows that are not a run of lane units (ivp.step.runs): the head of
do_sim_unit_PSI (6.3) on the object path, a unit of joints on its rows, and
the PSI's integration (8.2 / 8.3) of every core in one pass
(:func:`integrate`). A row is its core's state whoever runs it. Which units
the lane runs is decided at every PSI (runs.lane_point, :func:`joint_unit`,
ivp.sim_unit.Plan); when the lane ran every core of the PSI, the integration
takes the runs' rows (:meth:`Lane.record`) as they are."""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from .. import jit, rng
from ..freeze import freeze_unit
from .kernels import integrate_k, unit_head_k

ENABLED = jit.ENABLED                   # the lane's passes need the compiled kernels

_ROW = attrgetter("row")


class Lane:
    """The lane's runs of one environment's PSI: the cores they ran (rows and
    cores, in order), kept until the next PSI's unit pass begins
    (:meth:`start`)."""

    def __init__(self, env):
        self.environment = env
        self.ran = []                   # (rows, cores) of the runs of this PSI
        self.dropped = False            # a core was deleted since the pass began (:meth:`drop`)
        self.plan = None
        self.planned_psi = -1           # the PSI whose units all ran as the plan says

    def _before_snapshot(self) -> None:
        self.plan = None                # made again at the next PSI: no part of a snapshot

    def start(self) -> None:
        """A PSI's unit pass begins: no core has run in the lane yet."""
        self.ran = []
        self.dropped = False

    def can_run(self, core) -> bool:
        """A movable core with no friction system or impact in progress (its
        pairs being measured or not: collision reads and writes the same rows)."""
        return not (core.physical_unmoveable or core.friction_system is not None or core.impact_sync is not None)

    def record(self, rows, cores) -> None:
        """A run of this PSI ran the cores of ``rows`` (``cores``, in order)."""
        self.ran.append((rows, cores))

    def drop(self) -> None:
        """A core was deleted: the runs' rows may hold its row."""
        self.dropped = True

    def psi_rows(self, cores):
        """The rows of the PSI's cores (``cores``, the unit pass's: every
        run's cores are some of them) when every one ran in the lane (and no
        core was deleted since), in run order; else None."""
        ran = self.ran
        if self.dropped or not ran or sum(len(c) for _, c in ran) != len(cores):
            return None
        return ran[0][0] if len(ran) == 1 else np.concatenate([r for r, _ in ran])


def integrate(env, cores, delta_time: float, i_delta_time: float) -> None:
    """Dynamics 8.2 / 8.3 for the PSI's cores (the unit pass's, a core of an
    object deleted since left out) in one pass over their rows
    (kernels.integrate_k); a core whose speed is over an anomaly limit
    is integrated after the anomaly manager's handlers (9, Python:
    Core.calc_next_psi_matrix)."""
    if not cores:
        return                          # (every unit asleep: no pass to call)
    lane = env.lane
    bodies = env.bodies
    rows = None if lane is None else lane.psi_rows(cores)
    if rows is None:
        own = bodies.cores
        rows = np.array([c.row for c in reversed(cores) if own[c.row] is c], dtype=np.int64)
    lim = env.anomaly_limits
    over = integrate_k(bodies.rows, rows, delta_time, i_delta_time, env.current_time,
                       env.inv_delta_PSI_time * lim.max_angular_velocity_per_psi, lim.max_velocity, True)
    for k in over.tolist():
        bodies.cores[k].calc_next_psi_matrix(delta_time, i_delta_time)


def unit_head(env, su, rows=None) -> bool:
    """The head of do_sim_unit_PSI (6.3) for the unit: kernels.unit_head_k
    on its cores' rows (``rows``, made when not given), its flags and the
    count-down written back; whether the unit takes the sleep test."""
    if rows is None:
        rows = np.fromiter(map(_ROW, su.cores), dtype=np.int64, count=len(su.cores))
    flags = np.array([[su.fast, su.fast_prev]], dtype=np.int64)
    test_sleep, countdown, seed = unit_head_k(env.bodies.rows, rows, flags, env.current_time,
                                              env.valve_sleep_countdown, env.sleep_countdown_value, rng.get_seed())
    _head_written(env, su, rows, flags, countdown, seed)
    return test_sleep


def _head_written(env, su, rows, flags, countdown, seed) -> None:
    """A unit head's (6.3) outputs kept: the count-down, the RNG seed, the
    rows begun and the unit's fast flags."""
    env.sleep_countdown_value = countdown
    rng.set_seed(seed)
    env.bodies.begun(rows)
    su.fast = bool(flags[0, 0])
    su.fast_prev = bool(flags[0, 1])


def joint_unit(env, su):
    """The lane's step for a unit of joints it runs whole, or None: the
    unit's controllers are gravity on every core, then one step that runs on
    rows (``lane_psi``: a ConstraintRun, or a constraint of one), every core
    movable, in no friction system or impact (Lane.can_run), and the step's
    other cores fixed. The step, (run, rows, cores), is kept on the unit
    until it changes (SimUnit.forget)."""
    kept = su._lane
    if kept is not None:
        return kept[0]
    step = _joint_step(env, su)
    su._lane = (step,)
    su._joint_run = None if step is None else step[0]
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
    if not all(lane.can_run(c) for c in cores):
        return None
    if not hasattr(run, "lane_psi"):
        cls = type(run).run_class
        if cls is None or not hasattr(cls, "lane_psi") or not run.in_run():
            return None
        old = su._joint_run             # a constraint of its own: its run of one kept
        run = old if old is not None and old.controllers == [run] else cls([run])
    if any(c.sim_unit_of_core is not su and not c.physical_unmoveable for c in run.cores):
        return None
    return run, np.array([c.row for c in cores], dtype=np.int64), cores


def run_joint_unit(env, su, step, cores_out: list) -> None:
    """do_sim_unit_PSI (6.3) of a unit of joints (:func:`joint_unit`) on its
    rows in one pass (the step's ``lane_psi``: the head, gravity, the
    constraints, the sleep test); a unit calm at its sleep test is frozen
    by the object path."""
    run, rows, cores = step
    lane = env.lane
    flags = np.array([[su.fast, su.fast_prev]], dtype=np.int64)
    g = env.gravity_controller.gravity
    dt = env.delta_PSI_time
    calm, countdown, seed = run.lane_psi(env.bodies.rows, rows, flags, env.current_time, dt,
                                         env.inv_delta_PSI_time, g[0] * dt, g[1] * dt, g[2] * dt,
                                         env.freeze_check_time, env.valve_sleep_countdown,
                                         env.sleep_countdown_value, rng.get_seed())
    _head_written(env, su, rows, flags, countdown, seed)
    cores_out.extend(reversed(cores))
    lane.record(rows, cores)
    if calm:
        freeze_unit(env, su)
    if env.collision is not None:
        env.collision.update_after_controllers(su)


def planned_psi(env) -> "Plan | None":
    """The plan, when this PSI's units all ran as planned (or recorded) and
    nothing changed since: the PSI's cores are the plan's."""
    lane = env.lane
    if lane is None or lane.planned_psi != env.psi_count:
        return None
    plan = lane.plan
    return plan if plan is not None and plan.complete else None
