"""Impacts (ivp-contacts 1.4, 4): bringing cores to the time of impact, the
single-impact solver (compression in 10 % steps inside the friction cone,
frictionless restitution, rescue push, delaying), propagation through
touching bodies (the impact system) and re-integration to the next PSI.
"""

from __future__ import annotations

import math

from .. import umath
from ..fp import ANOMALY_V_FACTOR, ANOMALY_W_FACTOR, f32v
from ..states import STATE_BETWEEN_PSIS
from ..umath import IDENTITY_R as IDENTITY, ZERO, dot as _dot
from .constants import (
    COLL_DETECT_MIN_INV_TIME,
    MAX_DISTANCE_FOR_IMPACT_SYSTEM,
    MAXIMUM_SYSTEM_PUSH_NUMBER,
    MIN_COLL_DISTS,
    MINIMUM_FRICTION_DIST,
    ROT_MAX_UNCERTAINTY,
    SAFETY_FACTOR_FOR_DELAY,
)
from .impact_kernels import impact_solve, lever_speed


# --- 1.4 poses at an impact ---------------------------------------------------------------

def synchronize(core, t: float) -> None:
    """1.4 synchronize_with_rot_z: the core's pose at t becomes its
    m_world_f_core_last_psi; for unequal inertias rot_speed becomes the PSI
    step's average angular velocity. The old rot_speed is kept for undo."""
    if core.impact_sync is not None or core.physical_unmoveable:
        return
    dt = t - core.time_of_last_psi
    q_last = core.q_world_f_core_last_psi
    q_next = core.q_world_f_core_next_psi
    q_at = umath.quat_slerp(q_last, q_next, dt * core.i_delta_time)
    p = core.pos_world_f_core_last_psi
    d = core.delta_world_f_core_psis
    core.m_world_f_core_last_psi = (umath.quat_to_matrix(q_at), (p[0] + d[0] * dt, p[1] + d[1] * dt,
                                                                  p[2] + d[2] * dt))
    core.impact_sync = (q_at, core.rot_speed)
    core.environment.epoch.touch((core.sim_unit_of_core,))
    if not core.rot_inertias_are_equal:
        x, y, z, w = umath.quat_mul((-q_last[0], -q_last[1], -q_last[2], q_last[3]), q_next)
        k = 2.0 * core.i_delta_time
        core.rot_speed = f32v(k * math.asin(max(-1.0, min(1.0, x))), k * math.asin(max(-1.0, min(1.0, y))),
                              k * math.asin(max(-1.0, min(1.0, z))))


def undo_synchronize(core) -> None:
    """4.9: a core that took part but was not pushed gets its rot_speed back."""
    s = core.impact_sync
    if s is not None:
        core.rot_speed = s[1]
        core.impact_sync = None
        core.environment.epoch.touch((core.sim_unit_of_core,))     # lane.can_take and resting_unit read it


def reintegrate(env, core, t: float) -> None:
    """1.4: a pushed core moves with its new velocities from t to the next PSI
    (calc_next_psi_matrix between PSIs: the plain sine quaternion)."""
    s = core.impact_sync
    core.impact_sync = None
    core.environment.epoch.touch((core.sim_unit_of_core,))
    core.q_world_f_core_next_psi = s[0]
    rest = env.time_of_next_psi - t
    state = env.state
    env.state = STATE_BETWEEN_PSIS
    core.calc_next_psi_matrix(rest, 1.0 / rest)
    env.state = state


# --- 4.2-4.7 the single impact --------------------------------------------------------------

class Trial:
    """A core's trial velocities in an impact solve (pending pushes included,
    4.2); a fixed core has none and is never pushed."""

    __slots__ = ("core", "fixed", "r", "v", "w", "R")

    def __init__(self, core, r_cs):
        self.core = core
        self.fixed = core.physical_unmoveable
        if self.fixed:
            self.r = self.v = self.w = ZERO
            self.R = IDENTITY
            return
        self.r = r_cs
        s = core.speed
        ds = core.speed_change
        w = core.rot_speed
        dw = core.rot_speed_change
        self.v = (s[0] + ds[0], s[1] + ds[1], s[2] + ds[2])
        self.w = (w[0] + dw[0], w[1] + dw[1], w[2] + dw[2])
        self.R = core.m_world_f_core_last_psi[0]

    def body(self) -> tuple:
        """The trial body as impact_kernels reads it: (fixed, R, r, v, w, im, ii)."""
        if self.fixed:
            return True, IDENTITY, ZERO, ZERO, ZERO, 0.0, ZERO
        core = self.core
        return False, self.R, self.r, self.v, self.w, float(core.inv_mass), core.inv_rot_inertia

    def surface(self, v=None, w=None):
        """v + R (w x r) at the lever point."""
        return lever_speed(self.fixed, self.R, self.r, self.v if v is None else v, self.w if w is None else w)


class ImpactSolver:
    """4.2-4.7 for one contact point: A, B in solver order, N from A to B."""

    def __init__(self, cp):
        fixed1 = cp.core1.physical_unmoveable
        if fixed1:
            self.A = Trial(cp.core1, None)
            self.B = Trial(cp.core0, cp.r_cs[0])
            n = cp.n
            self.N = (-n[0], -n[1], -n[2])
        else:
            self.A = Trial(cp.core0, cp.r_cs[0])
            self.B = Trial(cp.core1, cp.r_cs[1])
            self.N = cp.n

    def solve(self, mu: float, e: float, addon: float, system_pushes: int):
        """4.3-4.7 (impact_kernels.impact_solve, then the write-back); returns
        (u before the impact, the cores actually pushed)."""
        A = self.A
        B = self.B
        u_before, A.v, A.w, B.v, B.w, vm_A, vm_B, rescue, delaying = impact_solve(
            *A.body(), *B.body(), self.N, float(mu), float(e), float(addon), system_pushes)
        return u_before, self.write_back(vm_A, vm_B, rescue, delaying)

    def write_back(self, vm_A: float, vm_B: float, rescue: float, delaying: bool) -> list:
        """4.7: anomaly clipping, the delay test, the velocities to the cores."""
        for X in (self.A, self.B):
            if not X.fixed:
                X.v, X.w = _clip(X.core, X.v, X.w)
                _count_impact(X.core, 1)
        X, Y = (self.A, self.B) if vm_A > vm_B else (self.B, self.A)
        if delaying and not X.fixed:
            xs = X.surface(X.core.speed, X.core.rot_speed)
            ys = Y.surface()
            rel = (ys[0] - xs[0], ys[1] - xs[1], ys[2] - xs[2]) if Y is self.B else \
                (xs[0] - ys[0], xs[1] - ys[1], xs[2] - ys[2])
            closing = -_dot(rel, self.N)
            if closing < -rescue / SAFETY_FACTOR_FOR_DELAY:
                _set(Y)
                c = X.core
                s = c.speed
                w = c.rot_speed
                c.speed_change = f32v(X.v[0] - s[0], X.v[1] - s[1], X.v[2] - s[2])
                c.rot_speed_change = f32v(X.w[0] - w[0], X.w[1] - w[1], X.w[2] - w[2])
                _count_impact(c, -1)
                pushed = [] if Y.fixed else [Y.core]
                _limit_impacts(pushed)
                return pushed
        pushed = []
        for T in (self.A, self.B):
            if not T.fixed:
                _set(T)
                pushed.append(T.core)
        _limit_impacts(pushed)
        return pushed


def _count_impact(core, k: int) -> None:
    """4.7: impacts_since_last_PSI += k (a count of an earlier PSI is cleared first)."""
    psi = core.environment.psi_count
    if core.impact_count_psi != psi:
        core.impact_count_psi = psi
        core.impacts_since_last_psi = 0
    core.impacts_since_last_psi += k


def _limit_impacts(cores) -> None:
    """4.7: a core past max_collisions_per_psi is made temporarily unmovable
    by the anomaly manager (once per PSI)."""
    for core in cores:
        env = core.environment
        if (core.impacts_since_last_psi > env.anomaly_limits.max_collisions_per_psi
                and core.temporarily_unmovable_psi != env.psi_count):
            env.anomaly_manager.max_collisions_exceeded(core)


def temporarily_unmovable(core) -> bool:
    """4.8: made unmovable for the rest of this PSI (4.7); cleared at the next PSI start."""
    return core.temporarily_unmovable_psi == core.environment.psi_count


def _set(T: Trial) -> None:
    c = T.core
    if T.fixed:
        return
    c.speed = f32v(*T.v)
    c.rot_speed = f32v(*T.w)
    c.speed_change = (0.0, 0.0, 0.0)
    c.rot_speed_change = (0.0, 0.0, 0.0)


def _clip(core, v, w):
    """4.7: the anomaly limits of dynamics 9 on trial velocities."""
    env = core.environment
    lim = env.anomaly_limits
    v2 = _dot(v, v)
    if v2 > lim.max_velocity * lim.max_velocity:
        k = lim.max_velocity * ANOMALY_V_FACTOR / math.sqrt(v2)
        v = (v[0] * k, v[1] * k, v[2] * k)
    wmax = env.inv_delta_PSI_time * lim.max_angular_velocity_per_psi
    w2 = _dot(w, w)
    if w2 > wmax * wmax:
        k = wmax * ANOMALY_W_FACTOR / math.sqrt(w2)
        w = (w[0] * k, w[1] * k, w[2] * k)
    return v, w


def rescue_addon(env, cp) -> float:
    """4.6 get_rescue_speed_impact: catch up a gap below 1 cm within a PSI,
    plus the worst-case surface rotation of a non-ball side in 1/200 s; doubled."""
    idt = env.inv_delta_PSI_time
    a = 0.0
    if cp.gap < MIN_COLL_DISTS:
        a = (MIN_COLL_DISTS - cp.gap) * idt
    for i, core in cp.movable_sides():
        side = cp.side0 if i == 0 else cp.side1
        if side.shape.is_ball:
            continue
        w = core.rot_speed
        a2 = min(_dot(w, w) / (COLL_DETECT_MIN_INV_TIME * COLL_DETECT_MIN_INV_TIME),
                 ROT_MAX_UNCERTAINTY * ROT_MAX_UNCERTAINTY)
        a += (1.0 - math.cos(math.sqrt(a2))) * core.upper_limit_radius * idt
    return 2.0 * a


def solve_single_impact(env, cp, addon: float, system_pushes: int):
    """4.2-4.7 on the contact point's data measured at the impact time."""
    return ImpactSolver(cp).solve(cp.real_friction_factor, cp.elasticity, addon, system_pushes)


# --- 4.8 the impact system -------------------------------------------------------------------

def _made(pair):
    return pair.made


class ImpactSystem:
    """4.8 IVP_Impact_System: propagation over the contact points of the
    friction system reachable through pushed bodies (fires no events)."""

    def __init__(self, env, collision, fs, t: float):
        self.env = env
        self.collision = collision
        self.fs = fs
        self.t = t
        self.pushed = []
        self.known = []
        self.pairs = []

    def coll_distance(self, cp) -> None:
        """calc_coll_distance: the gap left after one PSI at the current speeds."""
        cp.test_fresh = True
        if cp.gap > MAX_DISTANCE_FOR_IMPACT_SYSTEM:
            cp.reached = 1e20
            return
        cp.addon = rescue_addon(self.env, cp)
        cp.reached = cp.gap - (cp.closing_speed() + 0.5 * cp.addon) * self.env.delta_PSI_time

    def remeasure(self, pair) -> None:
        """Update the pair's contact points at t; delete the broken ones."""
        for cp in list(pair.contacts):
            cp.update(self.t)
            if cp.broken:
                self.collision.delete_contact(cp)

    def add_pushed(self, core, except_pair) -> None:
        if core in self.pushed:
            return
        self.pushed.append(core)
        if self.fs is None or not self.fs.has_core(core):
            return
        # the system's pairs of the core, in the system's order
        for pair in sorted({cp.pair for cp in self.fs.core_contacts[core]}, key=_made):
            if pair is except_pair or pair in self.pairs:
                continue
            self.remeasure(pair)
            if pair.contacts:
                self.pairs.insert(0, pair)

    def run(self, start_cp, pushed, synced) -> bool:
        """4.8-4.9; True if the loop ran past MAXIMUM_SYSTEM_PUSH_NUMBER (the
        caller then deletes the triggering mindist, 8.2)."""
        self.known = list(synced)
        start_pair = start_cp.pair
        for core in pushed:
            self.add_pushed(core, start_pair)
        if start_pair is not None:
            self.pairs.insert(0, start_pair)
            for cp in list(start_pair.contacts):
                if cp is not start_cp:
                    cp.update(self.t)
                    if cp.broken:
                        self.collision.delete_contact(cp)
        n = 0
        while self.loop_once():
            n += 1
            if n > MAXIMUM_SYSTEM_PUSH_NUMBER:
                break
        self.finish()
        return n > MAXIMUM_SYSTEM_PUSH_NUMBER

    def loop_once(self) -> bool:
        best = None
        best_d = MINIMUM_FRICTION_DIST
        for pair in self.pairs:
            if not pair.contacts:
                continue
            a, b = pair.cores
            if ((a.physical_unmoveable or temporarily_unmovable(a))
                    and (b.physical_unmoveable or temporarily_unmovable(b))):
                continue
            for cp in reversed(pair.contacts):
                if not cp.alive:
                    continue
                if not cp.test_fresh:
                    self.coll_distance(cp)
                if cp.reached < best_d:
                    best = cp
                    best_d = cp.reached
        if best is None:
            return False
        for _, core in best.movable_sides():
            if core not in self.known:
                self.known.append(core)
                synchronize(core, self.t)
        best.impacts_while_system += 1
        _, pushed = solve_single_impact(self.env, best, best.addon, best.impacts_while_system)
        for core in pushed:
            if core not in self.pushed:
                self.add_pushed(core, best.pair)
            elif self.fs is not None and self.fs.has_core(core):
                for cp in self.fs.core_contacts[core]:
                    cp.test_fresh = False
        return True

    def finish(self) -> None:
        """4.9: undo the unpushed synchronisations, re-integrate the pushed
        cores, then recompute the events of every pair of a pushed body."""
        for core in self.known:
            if core not in self.pushed:
                undo_synchronize(core)
        for core in self.pushed:
            if core.impact_sync is not None:
                reintegrate(self.env, core, self.t)
        self.collision.update_events_of_cores(self.pushed)
