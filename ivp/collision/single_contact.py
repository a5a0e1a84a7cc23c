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

The state stays in the objects: it goes into the kernel and comes back at
every PSI.
"""

from __future__ import annotations

from ..core import ZERO3
from ..jit import kernel
from ..kmath import f32_k, push_core_k, rot_t_mul_v_k
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


def _run(env, ev, core, cp) -> None:
    """The four controllers of the unit (see the module) on ``core`` and ``cp``."""
    kind, d1 = cp.side_data(1)
    dt = ev.delta_time
    gv = env.gravity_controller.gravity
    rc = core.rot_speed_change
    sc = core.speed_change
    pending = not (rc is ZERO3 and sc is ZERO3)
    R, pos = core.m_world_f_core_last_psi
    (speed, rot_speed, gap, n, p, t0, t1, r, rxn, inv_vm, broken, span, N, recheck) = _controllers(
        ev.environment.current_time, dt, gv[0] * dt, gv[1] * dt, gv[2] * dt, core.damping_of_object(dt),
        R, pos, core.speed, core.rot_speed, rc, sc, pending, core.inv_rot_inertia, core.inv_mass,
        kind, d1, float(cp.obj0.extra_radius), float(cp.obj1.extra_radius),
        cp.span_s, cp.now_friction_pressure, cp.real_friction_factor, cp.inv_virt_mass_no_dir, cp.last_time)
    core.speed = speed
    core.rot_speed = rot_speed
    core.rot_speed_change = ZERO3
    core.speed_change = ZERO3
    cp.updated(ev.environment.current_time, gap, n, p, t0, t1, [r, None], [rxn, None], inv_vm, broken, span)
    cp.needs_recheck = recheck
    cp.last_gap_len = gap
    cp.now_friction_pressure = N


@kernel
def _controllers(now, dt, gx, gy, gz, damp, R, pos, speed, rot_speed, rc, sc, pending, ii, im,
                 kind, d1, x0, x1, span, N, mu, ivm_nodir, last_time):
    """5.3, 7.1, 5.6 and 5.5 for the unit (see the module): the core's new
    speeds and the contact point's new fields."""
    # 5.3 recalc_friction_s_vals (a ball on side 0: the validity test every update)
    gap, n, p, t0, t1, r, _, rxn, _, inv_vm, broken, (sa, sb) = contact_update_k(
        3, (pos, ZERO3, ZERO3, ZERO3), kind, d1, True, False, ZERO3, x0, x1,
        True, R, pos, speed, rot_speed, ii, im, False, R, pos, ZERO3, ZERO3, ZERO3, 0.0, span, now - last_time)
    # 7.1 gravity: damp, commit, speed += g dt
    rx = f32_k(rot_speed[0] * damp[0])
    ry = f32_k(rot_speed[1] * damp[1])
    rz = f32_k(rot_speed[2] * damp[2])
    sx = f32_k(speed[0] * damp[3])
    sy = f32_k(speed[1] * damp[3])
    sz = f32_k(speed[2] * damp[3])
    if pending:
        rx, ry, rz = f32_k(rx + rc[0]), f32_k(ry + rc[1]), f32_k(rz + rc[2])
        sx, sy, sz = f32_k(sx + sc[0]), f32_k(sy + sc[1]), f32_k(sz + sc[2])
    else:
        rx, ry, rz, sx, sy, sz = rx + 0.0, ry + 0.0, rz + 0.0, sx + 0.0, sy + 0.0, sz + 0.0
    v = (f32_k(sx + gx), f32_k(sy + gy), f32_k(sz + gz))
    wr = (rx, ry, rz)
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
