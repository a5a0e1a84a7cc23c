"""The friction system (ivp-contacts 5): contact points, their per-PSI update,
the normal and tangential solves, easing, deletion and splitting.

Every group of touching movable cores (with the fixed cores they touch)
owns one :class:`FrictionSystem`; its three controllers run on every movable
core of the group (5.4): the energy controller (2000) updates every contact
point (5.3), the dynamic friction (600) applies tangential friction (5.6) and
easing (5.7), the static friction (0) solves the normal forces (5.5) and
deletes dead contact points (5.9).
"""

from __future__ import annotations

import math
from itertools import chain
from operator import attrgetter, is_, itemgetter
from typing import NamedTuple

import numpy as np

from ..controllers.base import Controller
from ..core import ZERO3
from ..fp import f32
from ..state.layout import (BROKEN, GAP, IN_INV_VM_NO_DIR, IN_MU, IN_N, IN_SPAN, M_POS, M_R, NORMAL, POINT, RECHECK,
                            ROT_SPEED, ROT_SPEED_CHANGE, SPEED, SPEED_CHANGE, T0, T1)
from ..umath import dot as _dot
from .contact_point import ContactPoint, desired_separation, kernel_side
from .constants import ENERGY_DAMP_LOG, EASE_EVERY_NTH_PSI, MAX_DISTANCE_FOR_FRICTION, MAX_FRICTION_MATRIX
from .friction_kernels import (
    BALL_SIDE,
    contact_update_system_k,
    damp_system_k,
    moving_sides_k,
    normal_system_k,
    tangential_k,
    tangential_system_k,
)
from .points import point_rows
from .single_contact import system_inputs_k, system_results_k


class CorePair:
    """5.1 IVP_Friction_Core_Pair. ``made``: its number in its system (a pair
    lives in one system's dict, entered when made: the dict's order is that
    of ``made``)."""

    __slots__ = ("cores", "contacts", "next_ease_nr_psi", "integrated_anti_energy", "last_impact_time_pair",
                 "made")

    def __init__(self, c0, c1, made: int):
        self.made = made
        self.cores = (c0, c1)
        self.contacts = []
        self.next_ease_nr_psi = 1
        self.integrated_anti_energy = 0.0
        self.last_impact_time_pair = -1000.0


def pair_key(c0, c1):
    """The cores themselves (not their id(), which a copied world does not share)."""
    return frozenset((c0, c1))


class _Handle(Controller):
    """One of a friction system's three controllers (5.4), on every movable core."""

    links_cores = True

    def __init__(self, system):
        self.system = system

    def get_controlled_cores(self) -> list:
        return list(self.system.movable)

    def core_is_going_to_be_deleted_event(self, core) -> None:
        self.system.collision.core_deleted(core)


class EnergyHandle(_Handle):
    """Priority 2000: update every contact point (5.3); in multi-contact
    systems the anti-energy bookkeeping and the energy damping (5.8)."""

    priority = 2000

    def do_simulation_controller(self, ev, cores) -> None:
        fs = self.system
        now = ev.environment.current_time
        if len(fs.contacts) <= 1:
            for cp in fs.contacts:
                cp.update(now)
                cp.last_gap_len = cp.gap
            return
        update_system(fs, ev.environment, now)
        unit = ev.sim_unit
        if unit.fast:
            return
        if unit.fast_prev:
            for pair in fs.pairs.values():
                pair.integrated_anti_energy = 0.0
            return
        damp_system(fs, math.exp(ENERGY_DAMP_LOG * ev.delta_time))


class DynamicHandle(_Handle):
    """Priority 600: tangential friction (5.6), easing (5.7)."""

    priority = 600

    def do_simulation_controller(self, ev, cores) -> None:
        fs = self.system
        dt = ev.delta_time
        if len(fs.contacts) <= 1:
            for cp in fs.contacts:
                lam = cp.now_friction_pressure * cp.real_friction_factor * cp.inv_virt_mass_no_dir
                tangential_friction(cp, lam * dt * dt, dt)
            return
        due = []
        for pair in tangential_system(fs, ev.environment, dt):
            pair.next_ease_nr_psi -= 1
            if pair.next_ease_nr_psi <= 0:
                pair.next_ease_nr_psi = EASE_EVERY_NTH_PSI
                due.append(pair)
        ease_pairs(fs, due)


class StaticHandle(_Handle):
    """Priority 0: the normal solve (5.5), deletion and splitting (5.9)."""

    priority = 0

    def do_simulation_controller(self, ev, cores) -> None:
        fs = self.system
        col = fs.collision
        dt = ev.delta_time
        idt = 1.0 / dt
        if len(fs.contacts) <= 1:
            for cp in list(fs.contacts):
                j = desired_separation(cp.gap, cp.closing_speed()) / cp.inv_vm if cp.inv_vm > 0.0 else 0.0
                if j > 0.0:
                    cp.now_friction_pressure = f32(j * idt)
                    cp.apply_impulse(j)
                else:
                    cp.now_friction_pressure = 0.0
                if cp.gap >= MAX_DISTANCE_FOR_FRICTION or cp.broken:
                    col.delete_contact(cp)
        else:
            normal_solve_multi(fs, ev.environment, dt, idt)
        col.after_static(fs)


def tangential_friction(cp: ContactPoint, L: float, dt: float) -> float:
    """5.6 for one contact point with spring limit L (friction_kernels.tangential_k);
    returns the spring-energy increase (multi-contact bookkeeping)."""
    a = cp.core0
    b = cp.core1
    side0 = kernel_side(a)
    side1 = kernel_side(b)
    mov0 = side0[0]
    mov1 = side1[0]
    r0, r1 = cp.r_cs
    span, clipped, v0, w0, v1, w1, gain = tangential_k(
        cp.span_s, L, cp.now_friction_pressure, cp.real_friction_factor, dt, cp.t0, cp.t1, cp.p,
        *side0, *side1, ZERO3 if r0 is None else r0, ZERO3 if r1 is None else r1)
    if clipped:
        cp.span_s = span
        cp.needs_recheck = True
    if mov0:
        a.speed = v0
        a.rot_speed = w0
    if mov1:
        b.speed = v1
        b.rot_speed = w1
    return gain


_POSE = attrgetter("m_world_f_core_last_psi")
_SPEED = attrgetter("speed")
_ROT_SPEED = attrgetter("rot_speed")
_SPEED_CHANGE = attrgetter("speed_change")
_ROT_SPEED_CHANGE = attrgetter("rot_speed_change")
_ANTI = attrgetter("integrated_anti_energy")
_NEGATIVE_PULL = attrgetter("has_negative_pull_since")


def _columns(values, n: int, width: int):
    """The n values (each ``width`` floats) as an (n, width) float64 array."""
    return np.fromiter(chain.from_iterable(values), dtype=np.float64, count=n * width).reshape(n, width)


def _core_states(fs, lay, pending: bool = False) -> tuple:
    """The layout's cores' R, position, speed and rotation speed as (n, 9),
    (n, 3), (n, 3), (n, 3) arrays for the system passes; with ``pending`` also
    their pending changes (speed_change, rot_speed_change), two more (n, 3).
    The cores on loan to the lane (a system unit, collision.system_unit) are
    read from their rows at once. Of the others, R and position are made once
    while every core's pose is the same object (the passes of one PSI read
    one pose: they only read R and position)."""
    on = _lane_slots(fs, lay)
    if on is not None:
        return _row_states(fs, lay, on, pending)
    cores = lay.cores
    n = len(cores)
    ms = list(map(_POSE, cores))
    kept = fs._poses
    if kept is not None and kept[0] is lay and all(map(is_, ms, kept[1])):
        R, POS = kept[2], kept[3]
    else:
        R = _columns(map(itemgetter(0), ms), n, 9)
        POS = _columns(map(itemgetter(1), ms), n, 3)
        fs._poses = (lay, ms, R, POS)
    V = _columns(map(_SPEED, cores), n, 3)
    W = _columns(map(_ROT_SPEED, cores), n, 3)
    if not pending:
        return R, POS, V, W
    return R, POS, V, W, _columns(map(_SPEED_CHANGE, cores), n, 3), _columns(map(_ROT_SPEED_CHANGE, cores), n, 3)


_LANE_SLOT = attrgetter("lane_slot")
_STATE_COLUMNS = (M_R, 9), (M_POS, 3), (SPEED, 3), (ROT_SPEED, 3), (SPEED_CHANGE, 3), \
    (ROT_SPEED_CHANGE, 3)
_STATE_FIELDS = (lambda c: c.m_world_f_core_last_psi[0], lambda c: c.m_world_f_core_last_psi[1], _SPEED, _ROT_SPEED,
                 _SPEED_CHANGE, _ROT_SPEED_CHANGE)


def _lane_slots(fs, lay):
    """(each layout core's lane row, -1 for a core not on loan; the indices
    of those; the movable cores on loan (a mask), their rows; the movable
    cores not on loan) when some core of the layout is on loan, else None;
    kept while nothing touches (a take or give-back touches: Epoch.touch)."""
    kept = fs._slots
    e = fs.collision.environment.epoch.value
    if kept is not None and kept[0] == e and kept[1] is lay:
        return kept[2]
    out = None
    lane = fs.collision.environment.lane
    if lane is not None and lane.cores:
        slots = np.fromiter(map(_LANE_SLOT, lay.cores), dtype=np.int64, count=len(lay.cores))
        off = np.flatnonzero(slots < 0)
        if off.shape[0] < slots.shape[0]:
            loaned = lay.MOV & (slots >= 0)
            out = slots, off.tolist(), loaned, slots[loaned], [i for i in off.tolist() if lay.MOV[i]]
    fs._slots = (e, lay, out)
    return out


def _row_states(fs, lay, on, pending: bool) -> tuple:
    """_core_states of a layout with cores on loan (``on``: _lane_slots):
    theirs from the lane rows, the others' (the fixed cores) from their fields."""
    slots, off = on[:2]
    S = fs.collision.environment.lane.rows
    out = [S[slots, at:at + n] for at, n in _STATE_COLUMNS[:6 if pending else 4]]
    for i in off:
        c = lay.cores[i]
        for X, field in zip(out, _STATE_FIELDS):
            X[i] = field(c)
    return tuple(out)


_SPEEDS = (("speed", SPEED), ("rot_speed", ROT_SPEED))
_PENDING = (("speed_change", SPEED_CHANGE), ("rot_speed_change", ROT_SPEED_CHANGE))


def _put_columns(fs, lay, fields, columns) -> None:
    """The movable cores' ``fields`` ((name, lane column) pairs) from their
    rows of ``columns`` (one (n, 3) array per field; None: zero, ZERO3):
    into the lane rows of the cores on loan, as tuples into the others' fields."""
    on = _lane_slots(fs, lay)
    if on is not None:
        _, _, loaned, k, idx = on
        S = fs.collision.environment.lane.rows
        for (_, at), X in zip(fields, columns):
            S[k, at:at + 3] = 0.0 if X is None else X[loaned]
    else:
        idx = np.flatnonzero(lay.MOV).tolist()
    if not idx:
        return
    cores = lay.cores
    for (name, _), X in zip(fields, columns):
        if X is None:
            for i in idx:
                setattr(cores[i], name, ZERO3)
        else:
            for i, v in zip(idx, X[idx].tolist()):
                setattr(cores[i], name, (v[0], v[1], v[2]))


def damp_system(fs, damp: float) -> None:
    """The energy handle's 5.8 in a multi-contact system: per core pair in
    the system's order, integrated_anti_energy times ``damp``, and while it
    is not negative, destroy_mutual_energy of that much (at most
    MAX_ENERGY_DESTROY of the pair's relative kinetic energy) by opposite
    pending pushes along the relative velocity and angular velocity, the
    energy removed taken off (one pass: friction_kernels.damp_system_k)."""
    lay = fs.layout()
    R, _, V, W, SC, WC = _core_states(fs, lay, pending=True)
    pairs = lay.pairs[::-1]
    anti = np.fromiter(map(_ANTI, pairs), dtype=np.float64, count=len(pairs))
    damp_system_k(lay.PC, anti, damp, lay.MOV, R, V, W, SC, WC, lay.II, lay.IM, lay.M, lay.RI)
    for pair, e in zip(pairs, anti.tolist()):
        pair.integrated_anti_energy = e
    _put_columns(fs, lay, _PENDING, (SC, WC))


_BALL_ROW = (BALL_SIDE, (ZERO3, ZERO3, ZERO3, ZERO3))


def update_system(fs, env, now: float) -> None:
    """The energy handle's 5.3 in a multi-contact system: every point's
    ContactPoint.update at ``now``, its last_gap_len the new gap, and each core
    pair's positive sum of N (last gap - gap) over its points added to its
    integrated_anti_energy (one pass: friction_kernels.contact_update_system_k).
    The points are on loan (points.LoanedPoint): their inputs are read from
    their rows and the new fields go into them, in one pass each
    (single_contact.system_inputs_k, system_results_k)."""
    lay = fs.layout()
    cores, cps, starts, I, MOV, II, IM, _, _, pairs, _, _ = lay
    R, POS, V, W = _core_states(fs, lay)
    S, moving, edges, L, AT, X = fs.side_columns(lay)
    n = len(cps)
    F = np.empty((n, 38))
    F[:, :26] = S
    moving_sides_k(L, AT, R, POS, F)
    for q, i in moving:
        k, (a, b, c, d) = cps[q].side_data(i)
        F[q, 13 * i:13 * i + 13] = (k, *a, *b, *c, *d)
    points = point_rows(fs.collision)
    slots = points.slots(cps)
    system_inputs_k(points.rows, slots, X, edges, now, F)
    O = np.empty((n, 29))
    anti = np.empty(len(pairs))
    contact_update_system_k(starts, I, F, MOV, R, POS, V, W, II, IM, O, anti)
    fs._updated = (lay, env.psi_count, O)
    system_results_k(points.rows, slots, O, MOV, I, now)
    for pair, e in zip(pairs, anti.tolist()):
        if e > 0.0:
            pair.integrated_anti_energy += e


def tangential_system(fs, env, dt: float) -> list:
    """5.6 for every point of a multi-contact system: per core pair, last to
    first, the spring limit L = sum of N mu inv_virt_mass_no_dir over its
    points times dt^2, then tangential_friction of its points last to first,
    the positive spring-energy gains added to the pair's
    integrated_anti_energy (one pass: friction_kernels.tangential_system_k).
    A clipped span and its recheck go into the points' rows. Returns the
    pairs in that order."""
    lay = fs.layout()
    cores, cps, starts, I, MOV, II, IM, _, _, pairs, _, _ = lay
    R, POS, V, W = _core_states(fs, lay)
    points = point_rows(fs.collision)
    slots = points.slots(cps)
    O = fs.updated_rows(lay, env.psi_count)
    if O is None:
        F = np.array([(cp.now_friction_pressure, cp.real_friction_factor, cp.inv_virt_mass_no_dir, *cp.span_s,
                       *cp.t0, *cp.t1, *cp.p, *(cp.r_cs[0] or ZERO3), *(cp.r_cs[1] or ZERO3)) for cp in cps],
                     dtype=np.float64).reshape(len(cps), 20)
    else:
        F = np.empty((len(cps), 20))
        F[:, 0:3] = points.rows[slots][:, (IN_N, IN_MU, IN_INV_VM_NO_DIR)]
        F[:, 3:5] = O[:, 27:29]                 # span_s
        F[:, 5:11] = O[:, 7:13]                 # t0, t1
        F[:, 11:14] = O[:, 4:7]                 # p
        F[:, 14:20] = _lever_columns(O, MOV, I, 13)
    anti = np.fromiter(map(_ANTI, pairs), dtype=np.float64, count=len(pairs))
    SPAN = np.empty((len(cps), 2))
    CLIP = np.zeros(len(cps), dtype=np.bool_)
    tangential_system_k(starts, I, F, MOV, R, POS, V, W, II, IM, anti, dt, SPAN, CLIP)
    clipped = slots[CLIP]
    points.rows[clipped, IN_SPAN:IN_SPAN + 2] = SPAN[CLIP]
    points.rows[clipped, RECHECK] = 1.0
    _put_columns(fs, lay, _SPEEDS, (V, W))
    for pair, e in zip(pairs, anti.tolist()):
        pair.integrated_anti_energy = e
    return pairs


def _lever_columns(O, MOV, I, at: int):
    """Both sides' three columns of update_system's rows O from ``at`` (r_cs
    at 13, r x n at 19), zero for a side that does not move (ContactPoint
    keeps None there, which the passes read as zero)."""
    out = O[:, at:at + 6].copy()
    out[~MOV[I[:, 0]], 0:3] = 0.0
    out[~MOV[I[:, 1]], 3:6] = 0.0
    return out


def ease(pair: CorePair) -> None:
    """5.7: the spring components along the line joining two contact points
    with parallel normals are pulled towards their mean. A loaned point's
    values are read from its row and its new span goes into it."""
    cps = pair.contacts
    n = len(cps)
    f = 1.0 / (n + 1e-10)
    vals = list(map(_ease_values, cps))
    diff = [[0.0, 0.0, 0.0] for _ in cps]
    for i in range(n - 1):
        a = cps[i]
        na, pa, _, _ = va = vals[i]
        for j in range(i + 1, n):
            b = cps[j]
            nb, pb, _, _ = vb = vals[j]
            if abs(abs(_dot(na, nb)) - 1.0) >= 1e-3:
                continue
            sgn = 1.0 if b.core0 is a.core0 else -1.0
            c = (pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2])
            cl = math.sqrt(_dot(c, c))
            if cl == 0.0:
                continue
            c = (c[0] / cl, c[1] / cl, c[2] / cl)
            Si = _spring_world(va)
            Sj = _spring_world(vb)
            ka = _dot(c, Sj)
            kb = sgn * _dot(c, Si)
            mean = 0.5 * (ka + kb)
            for k in range(3):
                diff[j][k] += f * (mean - ka) * c[k]
                diff[i][k] += f * sgn * (mean - kb) * c[k]
    for cp, (_, _, (sa, sb), (t0, t1)), dv in zip(cps, vals, diff):
        span = (f32(sa + _dot(dv, t0)), f32(sb + _dot(dv, t1)))
        if cp.point_slot >= 0:
            cp.core0.environment.collision.points.rows[cp.point_slot, IN_SPAN:IN_SPAN + 2] = span
        else:
            cp.span_s = span


def ease_pairs(fs, pairs) -> None:
    """ease of each pair (in order: easing reads and writes only its own
    pair's points); the pairs of one loaned point at once, as ease leaves
    a point with no partner: its span plus the zero change's dot products,
    span_s = (f32(sa + 0 . t0), f32(sb + 0 . t1))."""
    alone = []
    for pair in pairs:
        cps = pair.contacts
        if len(cps) == 1 and cps[0].point_slot >= 0:
            alone.append(cps[0].point_slot)
        else:
            ease(pair)
    if alone:
        rows = point_rows(fs.collision).rows
        k = np.array(alone, dtype=np.int64)
        for j, t in enumerate((T0, T1)):
            d = (0.0 * rows[k, t] + 0.0 * rows[k, t + 1]) + 0.0 * rows[k, t + 2]    # _dot(dv, t), dv zero
            rows[k, IN_SPAN + j] = (rows[k, IN_SPAN + j] + d).astype(np.float32).astype(np.float64)


def _ease_values(cp):
    """(n, p, span_s, (t0, t1)) of a point, a loaned one's from its row."""
    k = cp.point_slot
    if k < 0:
        return cp.n, cp.p, cp.span_s, (cp.t0, cp.t1)
    r = cp.core0.environment.collision.points.rows[k].tolist()
    return (tuple(r[NORMAL:NORMAL + 3]), tuple(r[POINT:POINT + 3]), (r[IN_SPAN], r[IN_SPAN + 1]),
            (tuple(r[T0:T0 + 3]), tuple(r[T1:T1 + 3])))


def _spring_world(v):
    """The spring of a point's ease values in world space: sa t0 + sb t1."""
    _, _, (sa, sb), (t0, t1) = v
    return (sa * t0[0] + sb * t1[0], sa * t0[1] + sb * t1[1], sa * t0[2] + sb * t1[2])


# --- 5.5 several contacts -----------------------------------------------------------------

def normal_solve_multi(fs, env, dt: float, idt: float) -> None:
    """5.5 do_friction_system: the sort, deletion and the panic here; the
    solve (Gauss on the active set, else the LCP), the async impulses and
    the energy check in one pass (friction_kernels.normal_system_k). The
    deletion test and the new N read and write the points' rows."""
    col = fs.collision
    points = point_rows(col)
    fs.contacts.sort(key=_NEGATIVE_PULL)      # stable
    cps = list(fs.contacts)
    slots = points.slots(cps)
    G = points.rows[slots][:, (GAP, BROKEN)].tolist()
    dead = [q for q, (gap, broken) in enumerate(G) if gap >= MAX_DISTANCE_FOR_FRICTION or broken != 0.0]
    for q in dead:
        col.delete_contact(cps[q])
    if dead:                            # a deletion gives its row back: the others' may move
        cps = list(fs.contacts)
        slots = points.slots(cps)
    if not cps:
        return
    lay = fs.layout()
    if len(cps) > MAX_FRICTION_MATRIX:
        for core in fs.movable:
            core.fast_piling_allowed = True
        _put_columns(fs, lay, _SPEEDS, (None, None))
        return
    R, _, V, W, SC, WC = _core_states(fs, lay, pending=True)
    row = lay.row
    rows = list(map(row.__getitem__, cps))
    I = lay.I[rows]
    O = fs.updated_rows(lay, env.psi_count)
    if O is None:
        P = np.array([(cp.gap, cp.inv_vm, *cp.n, *(cp.rxn[0] or ZERO3), *(cp.rxn[1] or ZERO3),
                       *(cp.r_cs[0] or ZERO3), *(cp.r_cs[1] or ZERO3)) for cp in cps],
                     dtype=np.float64).reshape(len(cps), 17)
    else:
        O = O[rows]
        P = np.empty((len(cps), 17))
        P[:, 0] = O[:, 0]                       # gap
        P[:, 1] = O[:, 25]                      # inv_vm
        P[:, 2:5] = O[:, 1:4]                   # n
        P[:, 5:11] = _lever_columns(O, lay.MOV, I, 19)
        P[:, 11:17] = _lever_columns(O, lay.MOV, I, 13)
    H = np.fromiter(map(_NEGATIVE_PULL, cps), dtype=np.int64, count=len(cps))
    NP = np.empty(len(cps))
    g = math.sqrt(sum(c * c for c in env.gravity))
    done = normal_system_k(I, lay.MOV, R, V, W, SC, WC, lay.II, lay.IM, lay.M, lay.RI, P, H, g, idt, NP)
    if done == 0:
        return
    for cp, h in zip(cps, H.tolist()):
        cp.has_negative_pull_since = h
    points.rows[slots, IN_N] = NP
    if done == 1:
        _put_columns(fs, lay, _SPEEDS + _PENDING, (V, W, None, None))
    else:
        _put_columns(fs, lay, _PENDING, (None, None))


class SystemLayout(NamedTuple):
    """What the system passes read of a friction system's shape
    (FrictionSystem.layout)."""
    cores: list          # the system's cores
    cps: list            # the points of the core pairs, last pair to first
    starts: np.ndarray   # each pair's first row of cps
    I: np.ndarray        # each point's cores (indices into cores)
    MOV: np.ndarray      # per core: movable
    II: np.ndarray       # inv_rot_inertia
    IM: np.ndarray       # inv_mass
    M: np.ndarray        # mass
    RI: np.ndarray       # rot_inertia
    pairs: list          # the core pairs, last to first
    row: dict            # a point's row of cps
    PC: np.ndarray       # each pair's cores (indices, the pair's order), the pairs first to last


class FrictionSystem:
    """5.1 IVP_Friction_System: contact points (newest first), all cores and the
    movable ones, core pairs, and the three controllers."""

    def __init__(self, collision):
        self.collision = collision
        self.contacts = []
        self.cores = []
        self.movable = []
        self.pairs = {}
        self.pairs_made = 0             # the pairs made in it so far (CorePair.made)
        self.core_contacts = {}          # core -> its contact points in this system
        self.union_find_necessary = False
        self.handles = (StaticHandle(self), DynamicHandle(self), EnergyHandle(self))
        self._layout = None
        self._sides = None
        self._updated = None
        self._poses = None              # _core_states' R and position, and the poses they were made from
        self._slots = None              # _lane_slots' answer, its epoch and layout

    def _before_snapshot(self) -> None:
        self._layout = None             # its epoch means nothing in another process
        self._sides = None
        self._updated = None
        self._poses = None
        self._slots = None

    def updated_rows(self, lay: SystemLayout, psi: int):
        """update_system's result rows (its O) when made at PSI ``psi`` for
        the layout ``lay``: the points' values as the energy handle left them
        (the handles after it in a PSI read them; nothing between them
        changes a point), else None."""
        kept = self._updated
        if kept is not None and kept[0] is lay and kept[1] == psi:
            return kept[2]
        return None

    def side_columns(self, lay: SystemLayout):
        """update_system's side columns of the layout's points, made once per
        layout: (S, moving, edges, L, AT, X). S (n, 26): each side's kind and
        points as ContactPoint.side_data packs them, a ball's as _BALL_ROW (the
        kernel reads its centre), a fixed side's as it stays; the movable hull
        sides, whose points move, made again at each update by moving_sides_k
        from L (their side_local rows) and AT (point row, first column, core
        row); ``moving``: the (row, side) of the other movable sides that are
        not balls (side_data makes them); ``edges``: both sides edges (a
        bool array); X (n, 3): both objects' extra_radius (set when an object
        is made) and 1.0 where side 0 is a ball."""
        kept = self._sides
        if kept is not None and kept[0] is lay:
            return kept[1]
        S = np.empty((len(lay.cps), 26))
        moving = []
        local = []
        at = []
        edges = []
        for q, cp in enumerate(lay.cps):
            kinds = []
            for i, (side, core) in enumerate(((cp.side0, cp.core0), (cp.side1, cp.core1))):
                if side.shape.is_ball:
                    k, (a, b, c, d) = _BALL_ROW
                else:
                    k, (a, b, c, d) = cp.side_data(i)
                    if not core.physical_unmoveable:
                        loc = cp.side_local(i)
                        if loc is None:
                            moving.append((q, i))
                        else:
                            local.append((loc[0], *loc[1], *loc[2], *loc[3]))
                            at.append((q, 13 * i, int(lay.I[q, i])))
                S[q, 13 * i:13 * i + 13] = (k, *a, *b, *c, *d)
                kinds.append(k)
            edges.append(kinds[0] == 1 and kinds[1] == 1)
        L = np.array(local, dtype=np.float64).reshape(len(local), 10)
        AT = np.array(at, dtype=np.int64).reshape(len(at), 3)
        X = np.array([(float(cp.obj0.extra_radius), float(cp.obj1.extra_radius), float(cp.side0.shape.is_ball))
                      for cp in lay.cps], dtype=np.float64).reshape(len(lay.cps), 3)
        out = (S, moving, np.array(edges, dtype=np.bool_), L, AT, X)
        self._sides = (lay, out)
        return out

    def layout(self) -> SystemLayout:
        """The system's shape for the system passes (update_system,
        tangential_system, normal_solve_multi), made again after any change
        (Epoch.touch); the cores' masses and inertias are set when a body
        is made."""
        epoch = self.collision.environment.epoch
        kept = self._layout
        if kept is not None and kept[0] == epoch.value:
            return kept[1]
        pairs = list(reversed(list(self.pairs.values())))
        cores = list(self.cores)
        at = {c: i for i, c in enumerate(cores)}
        cps = [cp for pair in pairs for cp in pair.contacts]
        starts = np.zeros(len(pairs) + 1, dtype=np.int64)
        np.cumsum([len(pair.contacts) for pair in pairs], out=starts[1:])
        I = np.array([(at[cp.core0], at[cp.core1]) for cp in cps], dtype=np.int64).reshape(len(cps), 2)
        MOV = np.array([not c.physical_unmoveable for c in cores], dtype=np.bool_)
        II = np.array([c.inv_rot_inertia for c in cores], dtype=np.float64).reshape(len(cores), 3)
        IM = np.array([c.inv_mass for c in cores], dtype=np.float64)
        M = np.array([c.mass for c in cores], dtype=np.float64)
        RI = np.array([c.rot_inertia for c in cores], dtype=np.float64).reshape(len(cores), 3)
        PC = np.array([(at[pair.cores[0]], at[pair.cores[1]]) for pair in reversed(pairs)],
                      dtype=np.int64).reshape(len(pairs), 2)
        out = SystemLayout(cores, cps, starts, I, MOV, II, IM, M, RI, pairs, {cp: k for k, cp in enumerate(cps)}, PC)
        self._layout = (epoch.value, out)
        return out

    def has_core(self, core) -> bool:
        return core in self.core_contacts

    def add_core(self, core) -> None:
        """A core joins the system; a movable one gets the three controllers (5.2)."""
        if core in self.core_contacts:
            return
        self.core_contacts[core] = []
        self.cores.append(core)
        if core.physical_unmoveable:
            return
        self.movable.append(core)
        mgr = core.environment.sim_unit_manager
        for h in self.handles:
            mgr.add_controller_to_core(h, core)
        core.friction_system = self
        core.environment.epoch.touch((core.sim_unit_of_core,))

    def remove_core(self, core) -> None:
        """A core leaves the system; a movable one loses the controllers and its
        unit is flagged for a split (5.9)."""
        if self.core_contacts.pop(core, None) is None:
            return
        self.cores.remove(core)
        if core.physical_unmoveable:
            return
        self.movable.remove(core)
        for h in self.handles:
            if h in core.controllers_of_core:
                core.controllers_of_core.remove(h)
                core.sim_unit_of_core.remove_controller_core(h, core)
        core.sim_unit_of_core.changed = True
        core.environment.epoch.touch((core.sim_unit_of_core,))
        if getattr(core, "friction_system", None) is self:
            core.friction_system = None

    def add_contact(self, cp: ContactPoint) -> None:
        """The contact point at the front of the list, in its core pair."""
        self.collision.environment.epoch.touch_cores(self.movable)  # resting_unit reads the first point, the count
        self.add_core(cp.core0)
        self.add_core(cp.core1)
        cp.system = self
        self.contacts.insert(0, cp)
        self.core_contacts[cp.core0].append(cp)
        self.core_contacts[cp.core1].append(cp)
        key = pair_key(cp.core0, cp.core1)
        pair = self.pairs.get(key)
        if pair is None:
            self.pairs_made += 1
            pair = self.pairs[key] = CorePair(cp.core0, cp.core1, self.pairs_made)
        pair.contacts.append(cp)
        cp.pair = pair

    def remove_contact(self, cp: ContactPoint) -> None:
        """5.9's bookkeeping of a deletion (events and timers are the caller's)."""
        self.collision.environment.epoch.touch_cores(self.movable)
        self.contacts.remove(cp)
        pair = cp.pair
        pair.contacts.remove(cp)
        if not pair.contacts:
            del self.pairs[pair_key(*pair.cores)]
            self.union_find_necessary = True
        for core in (cp.core0, cp.core1):
            lst = self.core_contacts.get(core)
            if lst is None:
                continue
            lst.remove(cp)
            if not lst:
                self.remove_core(core)
        cp.system = None

    def components(self) -> list:
        """5.9: the core pairs' connected parts, fixed cores not connecting."""
        parent = {id(c): id(c) for c in self.movable}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for pair in self.pairs.values():
            a, b = pair.cores
            if a.physical_unmoveable or b.physical_unmoveable:
                continue
            parent[find(id(a))] = find(id(b))
        groups = {}
        for c in self.movable:
            groups.setdefault(find(id(c)), []).append(c)
        return list(groups.values())
