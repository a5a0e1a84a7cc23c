"""Freeze and revive (spec 10.2-10.4): a calm unit's cores stopped and its
objects frozen, a core queued for revive and revived at the next PSI, a
frozen unit made active again with its resting partners."""

from __future__ import annotations

import numpy as np

from .core import MT_MOVING, MT_NOT_SIM
from .fp import inv_dt
from .step.kernels import unit_calm_k
from .states import SU_ACTIVE, SU_FROZEN


# --- freeze (10.2, 10.3) -------------------------------------------------------

def try_to_freeze(env, su) -> bool:
    """Spec 10.2 (0x100120f0): each core's movement state (last first,
    step.kernels.unit_calm_k on the unit's rows); freeze the unit when every
    core is calm (state 3)."""
    rows = np.array([c.row for c in su.cores], dtype=np.int64)
    if not unit_calm_k(env.bodies.rows, rows, env.current_time, env.freeze_check_time):
        return False
    freeze_unit(env, su)
    return True


def freeze_unit(env, su) -> None:
    """10.2's freeze of a calm unit: every core (from the end), then the frozen list."""
    cores = su.cores
    for i in range(len(cores) - 1, -1, -1):
        freeze_core(env, cores[i])
    env.sim_unit_manager.set_state(su, SU_FROZEN)


def freeze_core(env, c) -> None:
    """Spec 10.3 (0x1000afe0): stop the core, objects to state 8, frozen listeners."""
    c.stop_physical_movement()
    objs = c.objects
    for i in range(len(objs) - 1, -1, -1):
        o = objs[i]
        o.object_state = MT_NOT_SIM
        if env.collision is not None:
            env.collision.object_frozen(o)
    for i in range(len(objs) - 1, -1, -1):
        env.fire_object_frozen(objs[i])


# --- wake and revive (10.4) ------------------------------------------------------

def enqueue_revive(env, c) -> None:
    """0x1000b540: queue the core for revive at the next PSI (once)."""
    if not c.is_in_wakeup_vec:
        env.core_revive_list.append(c)
        c.is_in_wakeup_vec = True


def revive_cores_psi(env) -> None:
    """0x1000b590: revive every queued core (from the end), then clear the list."""
    lst = env.core_revive_list
    for i in range(len(lst) - 1, -1, -1):
        c = lst[i]
        ensure_in_simulation(env, c)
        c.is_in_wakeup_vec = False
    lst.clear()


def ensure_in_simulation(env, c) -> None:
    """0x1000dab0."""
    if c.physical_unmoveable:
        return
    if c.movement_state != MT_NOT_SIM:
        for k in c.sim_unit_of_core.cores:
            k.reset_freeze_check_values()
    else:
        revive_sim_unit(env, c.sim_unit_of_core)


def revive_sim_unit(env, su) -> None:
    """0x10011f80: revive every frozen core (restart when the unit changed), then
    move the unit to the active list.

    A listener told of the revive (friction created, 5.2; object revived,
    10.5) may delete a body of the unit: a unit left empty has gone from the
    manager and stays gone."""
    while True:
        restarted = False
        for i in range(len(su.cores) - 1, -1, -1):
            c = su.cores[i]
            if c.movement_state < MT_NOT_SIM:
                continue
            if revive_core(env, c):
                restarted = True
                break
        if not restarted:
            break
        su = c.sim_unit_of_core
    if su.alive and su.state == SU_FROZEN:
        env.sim_unit_manager.set_state(su, SU_ACTIVE)


def revive_core(env, c) -> bool:
    """0x1000aea0: objects to state 1, timers restarted, velocities cleared,
    resting partners pulled in (collision), revived listeners.

    Returns True when the unit changed (merged) and the caller must restart.
    """
    objs = c.objects
    c.movement_state = MT_MOVING
    c.reset_freeze_check_values()
    c.time_of_last_psi = env.current_time
    for o in objs:
        o.object_state = MT_MOVING
        if env.collision is not None:
            env.collision.object_revived(o)
    dt = env.time_of_next_psi - env.current_time
    c.init_core_for_simulation(inv_dt(dt))
    changed = env.collision.revive_partners(c) if env.collision is not None else False
    for o in objs:
        if not o.deleted:               # a friction-created listener may have deleted it
            env.fire_object_revived(o)
    return changed
