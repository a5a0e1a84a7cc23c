"""A resting ball's PSI controllers in one kernel (issue 11).

A unit of one movable core whose controllers are the friction system's three
handles and gravity, the system holding one contact point whose side 0 is
that core's ball and whose side 1 is a fixed body, runs its controllers as
:func:`_controllers` instead of the four ``do_simulation_controller`` calls:
ivp-contacts 5.3 (the energy handle's update of the contact point, 2000),
dynamics 7.1 (gravity, 1000), 5.6 (tangential friction, 600) and 5.5 (the
single-contact normal impulse, 0), in that order, with the object path's
order of operations and f32 stores, so the results are the same bits. The
point's deletion (5.9) and everything after the controllers stay Python.

In the object path the kernel takes the core's and the point's fields and
gives back their new values at every PSI. With the lane, a run of such units
whose cores the lane may hold is a *resting run* (:func:`run_resting`): the
head of the PSI (begin, count-down), the four controllers and the sleep test
are one pass over the run (:func:`_resting`) on the cores' rows of the body
table and the points' rows of the contact table, and the integration is the
lane's: nothing goes in or comes back.
"""

from __future__ import annotations

from .. import rng
from ..core import MT_CALM, MT_SLOW, ZERO3
from ..freeze import freeze_unit, try_to_freeze
from ..jit import kernel
from ..kmath import f32_k, push_core_k, rot_t_mul_v_k
from ..step import unit_pass as ln
from ..step.kernels import begin_unit, calm_state, gravity_k
from ..state.contacts import locate
from ..state.layout import (BROKEN, DAMP, DAMP_CALM, FRESH, GAP, IMPACTS, INV_I, INV_M, INV_VM, INV_VM_NO_DIR,
                            LAST_GAP, LAST_N, LAST_TIME, M_POS, M_R, MU, NO_LAST_N, NORMAL, POINT, PRESSURE, R_CS,
                            RECHECK, ROT_SPEED, RXN, SIDE1, SPAN, SPEED, STATE, T0, T1, X0, X1)
from .constants import DESCENDING_SPEEDUP, FRICTION_DIST, MAX_DISTANCE_FOR_FRICTION, NORMAL_SPEEDUP
from .friction_kernels import contact_update_k, tangential_k


def resting_contact(env, su):
    """The contact point when the unit is such a unit (see the module), else None."""
    entries = su.entries
    if len(entries) != 4 or len(su.cores) != 1:
        return None
    core = su.cores[0]
    fs = core.friction_system
    if fs is None or len(fs.contacts) != 1:
        return None
    cp = fs.contacts[0]
    if cp.core0 is not core or not cp.core1.physical_unmoveable or not cp.side0.shape.is_ball:
        return None
    static, dynamic, energy = fs.handles
    if (entries[0].controller is not static or entries[1].controller is not dynamic
            or entries[2].controller is not env.gravity_controller or entries[3].controller is not energy):
        return None
    return cp


def run_controllers(env, ev, su) -> bool:
    """The unit's four controllers as the kernel, then 5.9's deletion and the
    static handle's after_static, if the unit is such a unit; else False."""
    cp = resting_contact(env, su)
    if cp is None:
        return False
    fs = cp.system
    col = fs.collision
    _run(env, ev, su.cores[0], cp)
    if cp.gap >= MAX_DISTANCE_FOR_FRICTION or cp.broken:
        col.delete_contact(cp)
    col.after_static(fs)
    return True


def resting_unit(env, su):
    """The contact point when the lane may run the unit in a resting run: a
    resting_contact unit, unchanged, its system needing no split, its core
    movable and in no impact."""
    if su.changed:
        return None
    cp = resting_contact(env, su)
    if cp is None or cp.system.union_find_necessary:
        return None
    core = su.cores[0]
    if core.physical_unmoveable or core.impact_sync is not None:
        return None
    return cp


def run_resting(env, order, i: int, j: int, cps: list, cores_out: list, plan) -> int:
    """A resting run, ``order[i:j]`` with their contact points: their cores
    taken by the lane, then :func:`resting_rows`; the run is a step of
    ``plan`` when one is being recorded. Returns how many units ran."""
    units, cores, rows, flags = ln.lane_run(env, order, i, j, plan, cps)
    return resting_rows(env, units, cores, rows, flags, cps, cores_out)


def resting_rows(env, units, cores, rows, flags, cps, cores_out: list) -> int:
    """do_sim_unit_psi (6.3) with the four controllers for a resting run, in
    order, in one pass over the cores' and the points' rows; a unit whose
    point is to be deleted (5.9) or that is calm at its sleep test ends the
    run there, and the object path finishes it. Returns how many units ran."""
    lane = env.lane
    col = env.collision
    n = len(units)
    before = flags.copy()
    g = env.gravity_controller.gravity
    dt = env.delta_PSI_time
    t = env.current_time
    table = env.contacts
    stop, delete, test_sleep, countdown, seed = _resting(
        env.bodies.rows, rows, flags, table.rows, table.slots(cps), t, dt, g[0] * dt, g[1] * dt, g[2] * dt,
        env.freeze_check_time, env.valve_sleep_countdown, env.sleep_countdown_value, rng.get_seed())
    env.sleep_countdown_value = countdown
    rng.set_seed(seed)
    env.bodies.begun(rows)
    ran = n if stop < 0 else stop + 1
    ln.flags_back(units, flags, before, ran)
    cores_out.extend(cores[:ran])
    lane.record(rows[:ran], cores[:ran])
    col.update_after_controllers(None)
    if stop >= 0:
        su = units[stop]
        if delete:
            cp = cps[stop]
            fs = cp.system
            col.delete_contact(cp)
            col.after_static(fs)
            if test_sleep:
                try_to_freeze(env, su)
        else:
            freeze_unit(env, su)
        col.update_after_controllers(su)
        if su.changed and su.alive:
            env.sim_unit_manager.split(su)
    return ran


def _run(env, ev, core, cp) -> None:
    """The four controllers of the unit (see the module) on ``core`` and ``cp``."""
    kind, d1 = cp.side_data(1)
    dt = ev.delta_time
    now = ev.environment.current_time
    gv = env.gravity_controller.gravity
    rc = core.rot_speed_change
    sc = core.speed_change
    R, pos = core.m_world_f_core_last_psi
    m, b = locate(cp)
    (speed, rot_speed, gap, n, p, t0, t1, r, rxn, inv_vm, broken, span, N, recheck) = _controllers(
        now, dt, gv[0] * dt, gv[1] * dt, gv[2] * dt, core.damping_of_object(),
        R, pos, core.speed, core.rot_speed, rc, sc, core.inv_rot_inertia, core.inv_mass,
        kind, d1, m[b + X0], m[b + X1], (m[b + SPAN], m[b + SPAN + 1]), m[b + PRESSURE], m[b + MU],
        m[b + INV_VM_NO_DIR], m[b + LAST_TIME])
    core.speed = speed
    core.rot_speed = rot_speed
    core.rot_speed_change = ZERO3
    core.speed_change = ZERO3
    cp.updated(now, gap, n, p, t0, t1, r, ZERO3, rxn, ZERO3, inv_vm, broken, span)
    m[b + RECHECK] = 1.0 if recheck else 0.0
    m[b + LAST_GAP] = gap
    m[b + PRESSURE] = N


@kernel
def _controllers(now, dt, gx, gy, gz, damp, R, pos, speed, rot_speed, rc, sc, ii, im,
                 kind, d1, x0, x1, span, N, mu, ivm_nodir, last_time):
    """5.3, 7.1, 5.6 and 5.5 for the unit (see the module): the core's new
    speeds and the contact point's new fields."""
    # 5.3 recalc_friction_s_vals (a ball on side 0: the validity test every update)
    gap, n, p, t0, t1, r, _, rxn, _, inv_vm, broken, (sa, sb) = contact_update_k(
        3, (pos, ZERO3, ZERO3, ZERO3), kind, d1, True, False, ZERO3, x0, x1,
        True, R, pos, speed, rot_speed, ii, im, False, R, pos, ZERO3, ZERO3, ZERO3, 0.0, span, now - last_time)
    # 7.1 gravity: damp, commit, speed += g dt
    v, wr = gravity_k(speed, rot_speed, sc, rc, damp, gx, gy, gz)
    # 5.6 tangential friction with the spring limit N mu inv_virt_mass dt^2
    (sa, sb), recheck, v, wr, _, _, _ = tangential_k(
        (sa, sb), N * mu * ivm_nodir * dt * dt, N, mu, dt, t0, t1, p, True, R, pos, v, wr, ii, im,
        False, R, pos, ZERO3, ZERO3, ZERO3, 0.0, r, ZERO3)
    # 5.5 one contact: the normal impulse towards the desired separation
    closing = 0.0 + (v[0] * n[0] + v[1] * n[1] + v[2] * n[2] + wr[0] * rxn[0] + wr[1] * rxn[1] + wr[2] * rxn[2])
    ks = NORMAL_SPEEDUP if gap <= FRICTION_DIST else DESCENDING_SPEEDUP
    j = (closing + (FRICTION_DIST - gap) * ks) / inv_vm if inv_vm > 0.0 else 0.0
    if j > 0.0:
        N = f32_k(j * (1.0 / dt))
        kj = -j
        imp = (f32_k(n[0] * kj), f32_k(n[1] * kj), f32_k(n[2] * kj))
        v, wr = push_core_k(v, wr, ii, im, r, rot_t_mul_v_k(R, imp), imp)
    else:
        N = 0.0
    return v, wr, gap, n, p, t0, t1, r, rxn, inv_vm, broken, (sa, sb), N, recheck


@kernel
def _resting(S, rows, flags, P, slots, t, dt, gx, gy, gz, fct, valve, countdown, seed):
    """The resting run's pass: per unit, step.kernels.begin_unit, the four controllers
    (:func:`_controllers`) on the core's row and the point's row of the
    contact table (``P[slots[u]]``: its results written into it as
    ContactPoint.updated and the handles store them), then 5.9's deletion
    test and the sleep test. Returns (the index of the unit that ends the
    run or -1, whether its point is to be deleted, whether it takes the sleep
    test, count-down, seed)."""
    for u in range(rows.shape[0]):
        k = rows[u]
        test_sleep, countdown, seed = begin_unit(S, k, flags, u, t, valve, countdown, seed)
        c = P[slots[u]]
        d = DAMP_CALM if S[k, STATE] >= MT_SLOW else DAMP
        R = (S[k, M_R], S[k, M_R + 1], S[k, M_R + 2], S[k, M_R + 3], S[k, M_R + 4],
             S[k, M_R + 5], S[k, M_R + 6], S[k, M_R + 7], S[k, M_R + 8])
        a = SIDE1
        v, wr, gap, n, p, t0, t1, r, rxn, inv_vm, broken, span, N, recheck = _controllers(
            t, dt, gx, gy, gz, (S[k, d], S[k, d + 1], S[k, d + 2], S[k, d + 3]), R,
            (S[k, M_POS], S[k, M_POS + 1], S[k, M_POS + 2]),
            (S[k, SPEED], S[k, SPEED + 1], S[k, SPEED + 2]),
            (S[k, ROT_SPEED], S[k, ROT_SPEED + 1], S[k, ROT_SPEED + 2]), ZERO3, ZERO3,
            (S[k, INV_I], S[k, INV_I + 1], S[k, INV_I + 2]), S[k, INV_M], int(c[a]),
            ((c[a + 1], c[a + 2], c[a + 3]), (c[a + 4], c[a + 5], c[a + 6]), (c[a + 7], c[a + 8], c[a + 9]),
             (c[a + 10], c[a + 11], c[a + 12])),
            c[X0], c[X1], (c[SPAN], c[SPAN + 1]), c[PRESSURE], c[MU], c[INV_VM_NO_DIR], c[LAST_TIME])
        for i in range(3):
            S[k, SPEED + i] = v[i]
            S[k, ROT_SPEED + i] = wr[i]
        c[GAP] = gap
        c[LAST_GAP] = gap
        for i in range(3):
            c[NORMAL + i] = n[i]
            c[LAST_N + i] = n[i]
            c[POINT + i] = p[i]
            c[T0 + i] = t0[i]
            c[T1 + i] = t1[i]
            c[R_CS + i] = r[i]
            c[RXN + i] = rxn[i]
        c[NO_LAST_N] = 0.0
        c[INV_VM] = inv_vm
        c[BROKEN] = 1.0 if broken else 0.0
        c[SPAN] = span[0]
        c[SPAN + 1] = span[1]
        c[PRESSURE] = N
        c[LAST_TIME] = t
        c[RECHECK] = 1.0 if recheck else 0.0
        c[IMPACTS] = 0.0
        c[FRESH] = 0.0
        if gap >= MAX_DISTANCE_FOR_FRICTION or broken:
            return u, True, test_sleep, countdown, seed
        if test_sleep:
            s = calm_state(S, k, t, fct)
            S[k, STATE] = s
            if s == MT_CALM:
                return u, False, True, countdown, seed
    return -1, False, False, countdown, seed
