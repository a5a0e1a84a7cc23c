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

import math

from ..core import ZERO3
from ..jit import kernel
from ..kmath import f32_k, push_core_k, rot_mul_v_k, rot_t_mul_v_k, vcross, vdot
from .constants import DESCENDING_SPEEDUP, FRICTION_DIST, MAX_DISTANCE_FOR_FRICTION, NORMAL_SPEEDUP, P_FLOAT_RES
from .feature_kernels import point_edge, point_face, point_point
from .features import feature_points
from .friction_kernels import spring_impulse

KIND = {"P": 0, "K": 1, "F": 2}


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


def _side1_data(cp):
    """Side 1's feature in world coordinates (kind, four points: F a, b, c and
    its outward normal; K the two ends; P the point). A fixed body's pieces are
    kept in world coordinates and a contact point keeps its sides, so it is
    made once per point."""
    data = cp.side1_world
    if data is None:
        s1 = cp.side1
        kind = s1.feature[0]
        pts = feature_points(s1.shape.piece_world(s1.piece_key, cp.core1.m_world_f_core_last_psi), s1.feature)
        if kind == "P":
            pts = (pts,)
        pts = tuple(tuple(float(x) for x in v) for v in pts)
        data = cp.side1_world = (KIND[kind],) + pts + (ZERO3,) * (4 - len(pts))
    return data


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
    kind, a, b, c, g = _side1_data(cp)
    dt = ev.delta_time
    gv = env.gravity_controller.gravity
    rc = core.rot_speed_change
    sc = core.speed_change
    pending = not (rc is ZERO3 and sc is ZERO3)
    R, pos = core.m_world_f_core_last_psi
    (speed, rot_speed, gap, n, p, t0, t1, r, rxn, inv_vm, broken, span, N, recheck) = _controllers(
        ev.environment.current_time, dt, gv[0] * dt, gv[1] * dt, gv[2] * dt, core.damping_of_object(dt),
        R, pos, core.speed, core.rot_speed, rc, sc, pending, core.inv_rot_inertia, core.inv_mass,
        kind, a, b, c, g, float(cp.obj0.extra_radius), float(cp.obj1.extra_radius),
        cp.span_s, cp.now_friction_pressure, cp.real_friction_factor, cp.inv_virt_mass_no_dir, cp.last_time)
    core.speed = speed
    core.rot_speed = rot_speed
    core.rot_speed_change = ZERO3
    core.speed_change = ZERO3
    cp.impacts_while_system = 0
    cp.test_fresh = False
    cp.needs_recheck = recheck
    cp.last_n = n
    cp.broken = broken
    cp.gap = gap
    cp.n = n
    cp.p = p
    cp.t0 = t0
    cp.t1 = t1
    cp.r_cs = [r, None]
    cp.rxn = [rxn, None]
    cp.inv_vm = inv_vm
    cp.last_time = ev.environment.current_time
    cp.span_s = span
    cp.last_gap_len = gap
    cp.now_friction_pressure = N


@kernel
def _controllers(now, dt, gx, gy, gz, damp, R, pos, speed, rot_speed, rc, sc, pending, ii, im,
                 kind, a, b, c, g, x0, x1, span, N, mu, ivm_nodir, last_time):
    """5.3, 7.1, 5.6 and 5.5 for the unit (see the module): the core's new
    speeds and the contact point's new fields."""
    # 5.3 recalc_friction_s_vals (a ball on side 0: the validity test every update)
    if kind == 2:
        gap0, n, p, t0, broken = point_face(pos, a, b, c, g, True)
    elif kind == 1:
        gap0, n, p, t0, broken = point_edge(pos, a, b, True)
    else:
        gap0, n, p, t0, broken = point_point(pos, a)
    if x0 != 0.0:
        p = (p[0] + n[0] * x0, p[1] + n[1] * x0, p[2] + n[2] * x0)
    gap = gap0 - x0 - x1
    gap = f32_k(gap if gap > 0.0 else 0.0)
    k = math.sqrt(vdot(t0, t0))
    t0 = (t0[0] / k, t0[1] / k, t0[2] / k) if k > 0.0 else (1.0, 0.0, 0.0)
    t1 = vcross(n, t0)
    q = rot_t_mul_v_k(R, (p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]))
    r = (f32_k(q[0]), f32_k(q[1]), f32_k(q[2]))
    rxn = vcross(r, rot_t_mul_v_k(R, n))
    o = rot_mul_v_k(R, vcross(rot_speed, r))
    w = (speed[0] + o[0], speed[1] + o[1], speed[2] + o[2])
    inv_vm = 0.0 + (im + rxn[0] * rxn[0] * ii[0] + rxn[1] * rxn[1] * ii[1] + rxn[2] * rxn[2] * ii[2])
    sa = span[0]
    sb = span[1]
    du = now - last_time
    if du != 0.0:
        u = (w[0] - 0.0, w[1] - 0.0, w[2] - 0.0)
        sa, sb = f32_k(sa - vdot(u, t0) * du), f32_k(sb - vdot(u, t1) * du)
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
    recheck = False
    L = N * mu * ivm_nodir * dt * dt
    s2 = sa * sa + sb * sb
    if s2 > L * L + P_FLOAT_RES:
        s = math.sqrt(s2)
        kk = L / s
        sa, sb = f32_k(sa * kk), f32_k(sb * kk)
        recheck = True
    cap = N * mu * dt
    if cap >= P_FLOAT_RES:
        rel = (f32_k(p[0] - pos[0]), f32_k(p[1] - pos[1]), f32_k(p[2] - pos[2]))
        g0 = rot_t_mul_v_k(R, vcross(rel, t0))
        g1 = rot_t_mul_v_k(R, vcross(rel, t1))
        K00 = 0.0 + (ii[0] * g0[0] * g0[0] + ii[1] * g0[1] * g0[1] + ii[2] * g0[2] * g0[2] + im)
        K01 = 0.0 + (ii[0] * g0[0] * g1[0] + ii[1] * g0[1] * g1[1] + ii[2] * g0[2] * g1[2])
        K11 = 0.0 + (ii[0] * g1[0] * g1[0] + ii[1] * g1[1] * g1[1] + ii[2] * g1[2] * g1[2] + im)
        u0 = 0.0 + 1.0 * (vdot(wr, g0) + vdot(v, t0))
        u1 = 0.0 + 1.0 * (vdot(wr, g1) + vdot(v, t1))
        ok, y0, y1 = spring_impulse(K00, K01, K11, sa, sb, u0, u1, dt, cap)
        if ok:
            imp = (f32_k(1.0 * (y0 * t0[0] + y1 * t1[0])), f32_k(1.0 * (y0 * t0[1] + y1 * t1[1])),
                   f32_k(1.0 * (y0 * t0[2] + y1 * t1[2])))
            v, wr = push_core_k(v, wr, ii, im, r, rot_t_mul_v_k(R, imp), imp)
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
