"""The lane's runs (issue 11, 39): do_sim_unit_PSI (dynamics 6.3) of
consecutive units of the 6.2 order in one compiled pass over their rows.

A lane unit is one movable core whose controllers are gravity (7.1 / 7.3)
and, resting on one contact point, that point's friction handles
(:func:`lane_point`). :func:`run_units_k` runs per unit 6.3's begin and
10.1's count-down, the controllers in priority order (5.3, 7.1, 5.6, 5.5)
and the sleep test (10.2), in the object path's order with its f32 stores.
A point to delete (5.9) or a calm unit ends the run and Python finishes it;
the integration is unit_pass.integrate."""

from __future__ import annotations

from itertools import chain
from operator import attrgetter

import numpy as np

from .. import rng
from ..collision.friction_kernels import point_friction_row, point_update_row
from ..freeze import freeze_unit, try_to_freeze
from ..jit import kernel
from ..states import MT_CALM
from ..state.layout import STATE
from .kernels import begin_unit, calm_state, gravity_row

_fast_flags = attrgetter("fast", "fast_prev")


def lane_point(env, su):
    """Whether the lane runs the unit, and its point: None (the object
    path), -1 (one movable core in flight, gravity its only controller:
    Lane.can_run) or the contact table's row of its one resting point (a
    ball's friction system holding that point against a fixed body, its
    controllers the system's handles and gravity, no split pending, no
    impact)."""
    cores = su.cores
    if su.changed or len(cores) != 1:
        return None
    core = cores[0]
    entries = su.entries
    if len(entries) == 1:
        return -1 if entries[0].controller is env.gravity_controller and env.lane.can_run(core) else None
    fs = core.friction_system
    if len(entries) != 4 or fs is None or len(fs.contacts) != 1 or fs.union_find_necessary:
        return None
    cp = fs.contacts[0]
    if (cp.core0 is not core or not cp.core1.physical_unmoveable or not cp.side0.shape.is_ball
            or core.physical_unmoveable or core.impact_sync is not None):
        return None
    static, dynamic, energy = fs.handles
    if (entries[0].controller is not static or entries[1].controller is not dynamic
            or entries[2].controller is not env.gravity_controller or entries[3].controller is not energy):
        return None
    return cp.row


def run_units(env, order, i: int, j: int, slots: list, cores_out: list, plan) -> int:
    """A run of lane units, ``order[i:j]`` with their points' rows ``slots``
    (lane_point's), made into arrays, recorded as a step of ``plan`` when
    one is being recorded, and run (:func:`run_rows`). Returns how many
    units ran."""
    units = order[i:j]
    cores = [su.cores[0] for su in units]
    rows = np.array([c.row for c in cores], dtype=np.int64)
    flags = np.fromiter(chain.from_iterable(map(_fast_flags, units)), dtype=np.int64,
                        count=2 * len(units)).reshape(len(units), 2)
    slots = np.array(slots, dtype=np.int64)
    if plan is not None:
        plan.steps.append((i, None, units, cores, rows, flags, slots))
    return run_rows(env, units, cores, rows, flags, slots, cores_out)


def run_rows(env, units, cores, rows, flags, slots, cores_out: list) -> int:
    """do_sim_unit_PSI (6.3) of the run's units, in order, in one pass
    (:func:`run_units_k`) over the cores' rows, their (fast, fast_prev)
    flags (those that change written back to the units) and their points'
    rows; the unit that ends the run is finished here: its point deleted
    (5.9; then the sleep test when due: try_to_freeze), or frozen (10.3).
    Returns how many units ran."""
    lane = env.lane
    col = env.collision
    before = flags.copy()
    g = env.gravity_controller.gravity
    dt = env.delta_PSI_time
    stop, delete, test_sleep, countdown, seed = run_units_k(
        env.bodies.rows, rows, flags, env.contacts.rows, slots, env.current_time, dt, g[0] * dt, g[1] * dt,
        g[2] * dt, env.freeze_check_time, env.valve_sleep_countdown, env.sleep_countdown_value, rng.get_seed())
    env.sleep_countdown_value = countdown
    rng.set_seed(seed)
    env.bodies.begun(rows)
    ran = len(units) if stop < 0 else stop + 1
    _flags_back(units, flags, before, ran)
    cores_out.extend(cores[:ran])
    lane.record(rows[:ran], cores[:ran])
    if col is not None:
        col.update_after_controllers(None)
    if stop >= 0:
        su = units[stop]
        if delete:
            cp = env.contacts.points[slots[stop]]
            fs = cp.system
            col.delete_contact(cp)
            col.after_static(fs)
            if test_sleep:
                try_to_freeze(env, su)
        else:
            freeze_unit(env, su)
        if col is not None:
            col.update_after_controllers(su)
        if su.changed and su.alive:
            env.sim_unit_manager.split(su)
    return ran


def _flags_back(units, flags, before, ran: int) -> None:
    """The (fast, fast_prev) flags a pass changed, back into the first ran units."""
    if flags[:ran].tobytes() == before[:ran].tobytes():
        return                          # (mostly none changed)
    for i in np.flatnonzero((flags[:ran] != before[:ran]).any(axis=1)).tolist():
        units[i].fast = bool(flags[i, 0])
        units[i].fast_prev = bool(flags[i, 1])


@kernel
def run_units_k(S, rows, flags, P, slots, t, dt, gx, gy, gz, fct, valve, countdown, seed):
    """do_sim_unit_PSI (6.3) for the lane units of ``rows`` (the body table
    S), their flags rows, in order: begin_unit, the controllers from the
    highest priority (a unit's point, row ``slots[u]`` of the contact table
    P or -1: 5.3 at 2000; gravity 7.1 at 1000; the point's 5.6 at 600 and
    5.5 at 0), the sleep test (10.2), until a unit's point is to be deleted
    or it is calm at its sleep test. Returns (that unit's index or -1,
    whether its point is to be deleted, whether it takes the sleep test,
    count-down, seed)."""
    for u in range(rows.shape[0]):
        k = rows[u]
        c = slots[u]
        test_sleep, countdown, seed = begin_unit(S, k, flags, u, t, valve, countdown, seed)
        if c >= 0:
            point_update_row(S, k, P, c, t)
        gravity_row(S, k, gx, gy, gz)
        if c >= 0 and point_friction_row(S, k, P, c, dt):
            return u, True, test_sleep, countdown, seed
        if test_sleep:
            s = calm_state(S, k, t, fct)
            S[k, STATE] = s
            if s == MT_CALM:
                return u, False, True, countdown, seed
    return -1, False, False, countdown, seed
