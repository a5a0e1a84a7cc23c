"""A unit of one several-point friction system run on its rows (issue 11).

A heap (balls in a bowl, a stack of boxes) is one unit whose controllers are
one friction system's three handles and gravity, the system holding more
than one contact point. Such a *system unit* runs its PSI on its cores' rows
(:func:`run_system_unit`) instead of
:meth:`SimUnit._object_psi`: the head of the PSI (each core's begin of the
PSI, last first, the flags and the count-down: lane_kernels.unit_head_k), the energy
handle, gravity (committing the energy damping's pending pushes), the dynamic
and static handles, the sleep test (freeze.try_to_freeze), in that order; the
handles' system passes read and write the cores' rows (friction_passes._core_states,
friction_passes._put_columns) and their points' (the points are on loan). The
results are the object path's bits.

Python between the passes (a point deleted, a listener) reads and writes the
same rows (the body table is the cores' state).
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from ..lane import unit_head
from ..freeze import try_to_freeze

_ROW = attrgetter("row")
MIN_CORES = 32          # a smaller system runs on the object path: the row passes' numpy calls cost more
                        # than its few cores' Python (a stack of 10 boxes: 0.54 -> 0.60 ms a step on loan;
                        # 100 balls in a bowl: 2.5 -> 1.8)


def system_unit(env, su):
    """The unit's friction system when it is a system unit (see the module):
    unchanged, its controller steps the energy handle, gravity, the dynamic
    and static handles of one system of more than one point on every core
    of the unit, MIN_CORES cores or more, every core movable and in no
    impact; kept while nothing changes (env.epoch)."""
    kept = su.system_step
    if kept is not None and kept[0] == env.epoch.value:
        return kept[1]
    fs = _system_of(env, su)
    su.system_step = (env.epoch.value, fs)
    return fs


def _system_of(env, su):
    steps = su.controller_steps()
    if len(steps) != 4:
        return None
    (energy, _), (gravity, on), (dynamic, _), (static, _) = steps
    fs = getattr(energy, "system", None)
    if (gravity is not env.gravity_controller or fs is None or getattr(fs, "handles", None) != (static, dynamic, energy)
            or len(fs.contacts) <= 1):
        return None
    cores = su.cores
    if len(cores) < MIN_CORES or len(on) != len(cores) or len(fs.movable) != len(cores):
        return None
    for c in cores:
        if c.physical_unmoveable or c.impact_sync is not None or c.friction_system is not fs:
            return None
    return fs


def run_system_unit(env, su, fs, ev, cores_out: list) -> None:
    """do_sim_unit_PSI (6.3) of a system unit (:func:`system_unit`) on its
    cores' rows: the head, the four controllers, the sleep test."""
    lane = env.lane
    cores = su.cores
    rows = np.fromiter(map(_ROW, cores), dtype=np.int64, count=len(cores))
    lane.record(rows, list(cores))
    test_sleep = unit_head(env, su, rows)
    static, dynamic, energy = fs.handles
    energy.do_simulation_controller(ev, cores)
    env.gravity_controller.do_simulation_controller(ev, cores)
    dynamic.do_simulation_controller(ev, cores)
    static.do_simulation_controller(ev, cores)
    cores_out.extend(reversed(cores))
    if test_sleep:
        try_to_freeze(env, su)
    fs.collision.update_after_controllers(su)
