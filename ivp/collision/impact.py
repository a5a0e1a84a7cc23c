"""Impacts (ivp-contacts 1.4, 4): bringing cores to the time of impact, the
single-impact solver (compression in 10 % steps inside the friction cone,
frictionless restitution, rescue push, delaying), propagation through
touching bodies (the impact system) and re-integration to the next PSI.
"""

from __future__ import annotations

import math

import numpy as np

from .. import umath
from ..fp import f32v
from ..state import layout
from ..state.bodies import locate
from ..states import STATE_BETWEEN_PSIS
from .constants import MAXIMUM_SYSTEM_PUSH_NUMBER
from .contact_point import update_points
from .impact_kernels import (
    BALL0, BALL1, CHANGED, CORE0, CORE1, CORE_FLOATS, CORE_INTS, COUNTED, FIXED, IMPACTS, KNOWN, LOOP_AFTER_IMPACT,
    LOOP_UNKNOWN_CORE, POINT_FLOATS, POINT_INTS, PUSHED, PUSHED_AGAIN, ROT_SPEED_CHANGE, SPEED, TEMP_UNMOVABLE,
    core_in_k, impact_of_point_k, impact_system_loop_k, points_in_k, points_out_k, rescue_addon_k, surface_turn_k,
)


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
    core.environment.sim_unit_manager.changed((core.sim_unit_of_core,))
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
        core.environment.sim_unit_manager.changed((core.sim_unit_of_core,))     # Lane.can_run and step.runs.lane_point read it


def reintegrate(env, core, t: float) -> None:
    """1.4: a pushed core moves with its new velocities from t to the next PSI
    (calc_next_psi_matrix between PSIs: the plain sine quaternion)."""
    s = core.impact_sync
    core.impact_sync = None
    core.environment.sim_unit_manager.changed((core.sim_unit_of_core,))
    core.q_world_f_core_next_psi = s[0]
    rest = env.time_of_next_psi - t
    state = env.state
    env.state = STATE_BETWEEN_PSIS
    core.calc_next_psi_matrix(rest, 1.0 / rest)
    env.state = state


# --- 4.2-4.7 the single impact --------------------------------------------------------------

class Rows:
    """The contact points of an impact system and their cores as the rows of
    impact_kernels (PF, PI: points; CF, CI: cores). Points are appended a
    pair at a time, oldest pair first, a pair's points in their order (the
    kernel reads them from the last: 4.8's order). ``put_back_cores`` and
    ``put_back_points`` store what the kernel changed."""

    def __init__(self, env):
        self.psi = env.psi_count
        self.table = env.contacts
        self.bodies = env.bodies
        self.points = []
        self.cores = []
        self.row_of = {}
        self.PF = np.zeros((8, POINT_FLOATS))
        self.PI = np.zeros((8, POINT_INTS), dtype=np.int64)
        self.CF = np.zeros((4, CORE_FLOATS))
        self.CI = np.zeros((4, CORE_INTS), dtype=np.int64)

    def views(self) -> tuple:
        m, n = len(self.points), len(self.cores)
        return self.CF[:n], self.CI[:n], self.PF[:m], self.PI[:m]

    def add_points(self, points) -> None:
        if not points:
            return
        m0 = len(self.points)
        m = m0 + len(points)
        if m > len(self.PF):
            self.PF = _grown(self.PF, m)
            self.PI = _grown(self.PI, m)
        PI = self.PI
        for k, cp in enumerate(points, m0):
            PI[k, CORE0] = self.row(cp.core0)
            PI[k, CORE1] = self.row(cp.core1)
            PI[k, BALL0] = cp.side0.shape.is_ball
            PI[k, BALL1] = cp.side1.shape.is_ball
        points_in_k(self.table.rows, self.table.slots(points), self.CI, self.PF, PI, m0)
        self.points.extend(points)

    def row(self, core) -> int:
        """The core's row (made, from the core, when new)."""
        c = self.row_of.get(core)
        if c is None:
            c = self.row_of[core] = len(self.cores)
            self.cores.append(core)
            if c >= len(self.CF):
                self.CF = _grown(self.CF, c + 1)
                self.CI = _grown(self.CI, c + 1)
            self.refresh(core)
        return c

    def refresh(self, core) -> None:
        """The core's row from the core (after Python changed it)."""
        c = self.row_of[core]
        CI = self.CI
        fixed = core.physical_unmoveable
        CI[c, FIXED] = fixed
        CI[c, TEMP_UNMOVABLE] = temporarily_unmovable(core)
        CI[c, IMPACTS] = impacts_this_psi(core)
        CI[c, COUNTED] = core.impact_count_psi == self.psi
        if not fixed:
            locate(core)                    # (a deleted core fails here)
            core_in_k(self.bodies.rows, core.row, self.CF, c)

    def mark(self, core, flag: int) -> None:
        """KNOWN or PUSHED for the core, if it has a row."""
        c = self.row_of.get(core)
        if c is not None:
            self.CI[c, flag] = 1

    def put_back_cores(self) -> None:
        """The changed cores' velocities and pending changes (their motion
        block of the body table) and impact counts (4.7)."""
        S = self.bodies.rows
        for c in np.flatnonzero(self.CI[:len(self.cores), CHANGED]).tolist():
            core = self.cores[c]
            locate(core)
            S[core.row, :layout.MOTION_END] = self.CF[c, SPEED:ROT_SPEED_CHANGE + 3]
            if self.CI[c, COUNTED]:
                core.impact_count_psi = self.psi
                core.impacts_since_last_psi = int(self.CI[c, IMPACTS])
            self.CI[c, CHANGED] = 0

    def put_back_points(self, fs) -> None:
        """The points' tests and system impacts; the points outside the rows
        of a core pushed again get a stale test too (4.8). A point deleted
        during the loop (an anomaly handler, a remeasured pair) is skipped:
        its row is no longer its own."""
        m = len(self.points)
        slots = np.fromiter([cp.row if cp.alive else -1 for cp in self.points], dtype=np.int64, count=m)
        points_out_k(self.table.rows, slots, self.PF[:m], self.PI[:m])
        again = np.flatnonzero(self.CI[:len(self.cores), PUSHED_AGAIN]).tolist()
        if again and fs is not None:
            mine = set(self.points)
            for c in again:
                for cp in fs.core_contacts.get(self.cores[c], ()):
                    if cp not in mine:
                        cp.test_fresh = False

    def core(self, c: int):
        return None if c < 0 else self.cores[c]


def _grown(A, n: int):
    """A with at least n rows, twice as many as it had (the new ones zero)."""
    B = np.zeros((max(n, 2 * len(A)), A.shape[1]), dtype=A.dtype)
    B[:len(A)] = A
    return B


def _limits(env) -> tuple:
    """The anomaly limits the kernel applies (4.7, dynamics 9)."""
    lim = env.anomaly_limits
    return (float(lim.max_velocity), env.inv_delta_PSI_time * lim.max_angular_velocity_per_psi,
            int(lim.max_collisions_per_psi))


def solve_single_impact(env, cp, addon: float, system_pushes: int):
    """4.2-4.7 on the contact point's data measured at the impact time;
    returns (u before the impact, the cores actually pushed)."""
    rows = Rows(env)
    rows.add_points([cp])
    max_v, max_w, _ = _limits(env)
    u, p0, p1 = impact_of_point_k(*rows.views(), 0, float(addon), int(system_pushes), max_v, max_w)
    rows.put_back_cores()
    pushed = [c for c in (rows.core(p0), rows.core(p1)) if c is not None]
    _limit_impacts(pushed)
    return u, pushed


def _limit_impacts(cores) -> None:
    """4.7: a core past max_collisions_per_psi is made temporarily unmovable
    by the anomaly manager (once per PSI)."""
    for core in cores:
        env = core.environment
        if (core.impacts_since_last_psi > env.anomaly_limits.max_collisions_per_psi
                and core.temporarily_unmovable_psi != env.psi_count):
            env.anomaly_manager.max_collisions_exceeded(core)


def impacts_this_psi(core) -> int:
    """4.7 impacts_since_last_PSI: a count of an earlier PSI reads 0 (1.2 a: cleared at the PSI start)."""
    return core.impacts_since_last_psi if core.impact_count_psi == core.environment.psi_count else 0


def temporarily_unmovable(core) -> bool:
    """4.8: made unmovable for the rest of this PSI (4.7); cleared at the next PSI start."""
    return core.temporarily_unmovable_psi == core.environment.psi_count


def rescue_addon(env, cp) -> float:
    """4.6 get_rescue_speed_impact (impact_kernels.rescue_addon_k) of a contact point."""
    c0, c1 = cp.core0, cp.core1
    return rescue_addon_k(cp.gap, env.inv_delta_PSI_time,
                          surface_turn_k(c0.rot_speed, c0.upper_limit_radius),
                          not (c0.physical_unmoveable or cp.side0.shape.is_ball),
                          surface_turn_k(c1.rot_speed, c1.upper_limit_radius),
                          not (c1.physical_unmoveable or cp.side1.shape.is_ball))


# --- 4.8 the impact system -------------------------------------------------------------------

def _made(pair):
    return pair.made


class ImpactSystem:
    """4.8 IVP_Impact_System: propagation over the contact points of the
    friction system reachable through pushed bodies (fires no events). The
    loop runs in impact_kernels.impact_system_loop_k over the system's rows;
    it returns here for what needs the objects: a core to synchronise, a core
    pushed for the first time (its pairs join, re-measured) or past the
    collision limit (the anomaly manager). ``loops``: loop_once's count."""

    def __init__(self, env, collision, fs, t: float):
        self.env = env
        self.collision = collision
        self.fs = fs
        self.t = t
        self.pushed = []
        self.known = []
        self.pairs = []
        self.loops = 0

    def remeasure(self, cps) -> None:
        """Update the contact points at t (5.3, in one pass), then delete the broken ones."""
        update_points(cps, self.t)
        for cp in cps:
            if cp.alive and cp.broken:
                self.collision.delete_contact(cp)

    def add_pushed(self, core, except_pair) -> None:
        if core in self.pushed:
            return
        self.pushed.append(core)
        if self.fs is None or core not in self.fs.core_contacts:
            return
        # the system's pairs of the core, in the system's order
        pairs = [pair for pair in sorted({cp.pair for cp in self.fs.core_contacts[core]}, key=_made)
                 if pair is not except_pair and pair not in self.pairs]
        self.remeasure([cp for pair in pairs for cp in pair.contacts])
        for pair in pairs:
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
            self.remeasure([cp for cp in start_pair.contacts if cp is not start_cp])
        env = self.env
        limits = _limits(env)
        rows = Rows(env)
        in_rows = 0                         # self.pairs[-in_rows:] have rows
        n = 0
        best = -1
        while True:
            rows.add_points([cp for pair in reversed(self.pairs[:len(self.pairs) - in_rows])   # the pairs added
                             for cp in pair.contacts if cp.alive])                               # since, oldest first
            in_rows = len(self.pairs)
            for core in self.known:
                rows.mark(core, KNOWN)
            for core in self.pushed:
                rows.mark(core, PUSHED)
            answer, best, n, p0, p1 = impact_system_loop_k(
                *rows.views(), best, n, MAXIMUM_SYSTEM_PUSH_NUMBER, env.inv_delta_PSI_time, env.delta_PSI_time,
                *limits)
            rows.put_back_cores()
            if answer == LOOP_UNKNOWN_CORE:
                for _, core in rows.points[best].movable_sides():
                    if core not in self.known:
                        self.known.append(core)
                        synchronize(core, self.t)
                        rows.refresh(core)
                continue                    # the same contact point, its cores now at t
            k, best = best, -1
            if answer == LOOP_AFTER_IMPACT:
                self.after_impact(rows, rows.points[k], [c for c in (rows.core(p0), rows.core(p1)) if c is not None])
                if n <= MAXIMUM_SYSTEM_PUSH_NUMBER:
                    continue
            break
        rows.put_back_points(self.fs)
        self.loops = n
        self.finish()
        return n > MAXIMUM_SYSTEM_PUSH_NUMBER

    def after_impact(self, rows, cp, pushed) -> None:
        """The tail of loop_once (4.7, 4.8) the kernel leaves: the anomaly
        manager for a core past max_collisions, the pairs of a core pushed
        for the first time (the kernel marked the others' tests stale)."""
        _limit_impacts(pushed)
        for core in pushed:
            rows.refresh(core)
            if core not in self.pushed:
                self.add_pushed(core, cp.pair)

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
