"""Contact points (ivp-contacts 5.1) and their update (5.3): a point's two
sides, its gap, normal, tangents and levers, the validity test, the single
point's normal push (5.5). A point's fields are its row of the environment's
contact table (ivp.state.contacts); ``ContactPoint`` is a view onto it."""

from __future__ import annotations

from array import array

import numpy as np

from ..core import ZERO3
from ..fp import f32
from ..jit import kernel
from ..state.bodies import locate as locate_core
from ..state.bodies import number_field, vector_field
from ..state.contacts import locate
from ..state.layout import (ADDON, BROKEN, ELASTICITY, FRESH, GAP, IMPACTS, INV_VM, INV_VM_NO_DIR, LAST_GAP, LAST_N,
                            LAST_TIME, M_POS, M_R, MU, NEG_PULL, NO_LAST_N, NORMAL, POINT, POINT_WIDTH, PRESSURE, R_CS,
                            R_CS1, REACHED, RECHECK, RXN, RXN1, SIDE1, SPAN, T0, T1, X0, X1)
from .constants import FRICTION_DIST
from .features import world_feature
from .friction_kernels import BALL_SIDE, contact_update_k, core_row, moving_sides_k, put_update, vec3


def worst_case_inv_virt_mass(core, r_cs) -> float:
    """5.3 calc_virt_mass_worst_case for one movable side: 1/m + max of the
    lever terms over the core axes."""
    x, y, z = r_cs
    ix, iy, iz = core.inv_rot_inertia
    return core.inv_mass + max((y * y + z * z) * ix, (x * x + z * z) * iy, (x * x + y * y) * iz)


def _span_field():
    """span_s: the friction spring's two floats (5.1), read as a tuple."""
    def get(cp):
        m, b = locate(cp, SPAN)
        return (m[b], m[b + 1])

    def put(cp, v):
        m, b = locate(cp, SPAN)
        m[b], m[b + 1] = v
    return property(get, put, doc="span_friction_s (5.1): the spring in the tangents t0, t1")


def _lever_field(at0: int, at1: int, doc: str):
    """A lever pair (r_cs or r x n, 5.1's info) read as a new list of the two
    sides' tuples, None for a fixed side (its columns hold zeros)."""
    def get(cp):
        m, b = locate(cp)
        a = b + at0
        c = b + at1
        return [None if cp.core0.physical_unmoveable else (m[a], m[a + 1], m[a + 2]),
                None if cp.core1.physical_unmoveable else (m[c], m[c + 1], m[c + 2])]
    return property(get, doc=doc + " (the last update's: friction_kernels.put_update writes it)")


def _last_n_field():
    """last_n: the last update's normal, None before the first (NO_LAST_N)."""
    def get(cp):
        m, b = locate(cp, LAST_N)
        return None if m[b + 3] != 0.0 else (m[b], m[b + 1], m[b + 2])

    def put(cp, v):
        m, b = locate(cp, LAST_N)
        m[b:b + 4] = array("d", (0.0, 0.0, 0.0, 1.0) if v is None else (*v, 0.0))
    return property(get, put, doc="the last update's normal (an edge pair keeps its side), None before any")


class ContactPoint:
    """5.1 IVP_Contact_Point with its per-update data ("info"): the sides and
    their objects and cores, its friction system and core pair are the
    object's; every number is a column of its row (``row``) of the contact
    table, and reading one after the point was deleted raises
    StaleContactError."""

    __slots__ = ("side0", "side1", "obj0", "obj1", "core0", "core1", "system", "pair", "alive", "fixed_world",
                 "_contacts", "row", "_gen")

    def __init__(self, side0, side1, mu: float, e: float, t: float):
        self.side0 = side0
        self.side1 = side1
        self.obj0 = side0.shape.obj
        self.obj1 = side1.shape.obj
        self.core0 = self.obj0.core
        self.core1 = self.obj1.core
        self.system = None
        self.pair = None
        self.alive = True
        self.fixed_world = [None, None]  # side_data of a fixed side, made once
        table = self._contacts = self.core0.environment.contacts
        k = self.row = table.add(self)
        self._gen = table.gen[k]
        m, b = table.mv, k * POINT_WIDTH
        m[b + X0] = float(self.obj0.extra_radius)      # (set when an object is made)
        m[b + X1] = float(self.obj1.extra_radius)
        m[b + MU] = mu
        m[b + ELASTICITY] = e
        m[b + LAST_GAP] = FRICTION_DIST
        m[b + LAST_TIME] = t
        m[b + RECHECK] = 1.0
        m[b + REACHED] = 1e20
        m[b + NO_LAST_N] = 1.0

    span_s = _span_field()
    now_friction_pressure = number_field(PRESSURE, "N of the last normal solve (impulse idt, 5.5)", locate=locate)
    last_gap_len = number_field(LAST_GAP, "the gap at the last update of the energy handle (5.3)", locate=locate)
    real_friction_factor = number_field(MU, "mu of the two materials (5.1)", locate=locate)
    elasticity = number_field(ELASTICITY, "e of the two materials (5.1)", locate=locate)
    inv_virt_mass_no_dir = number_field(INV_VM_NO_DIR, "1 / the worst-case virtual mass (5.3)", locate=locate)
    last_time = number_field(LAST_TIME, "last_time_of_recalc_friction_s_vals (5.3)", locate=locate)
    needs_recheck = number_field(RECHECK, "cp_status NEEDS_RECHECK (5.3)", kind=bool, locate=locate)
    has_negative_pull_since = number_field(NEG_PULL, "the normal solve's history (5.5)", kind=int, locate=locate)
    gap = number_field(GAP, "the gap of the last update, >= 0 (5.3)", locate=locate)
    n = vector_field(NORMAL, 3, "surf_normal, side 0 -> side 1 (5.1's info)", locate=locate)
    p = vector_field(POINT, 3, "contact_point_ws (5.1's info)", locate=locate)
    t0 = vector_field(T0, 3, "span_friction_v[0], the first tangent (5.1's info)", locate=locate)
    t1 = vector_field(T1, 3, "span_friction_v[1], the second tangent (5.1's info)", locate=locate)
    r_cs = _lever_field(R_CS, R_CS1, "contact_point_cs: p in each movable side's core frame")
    rxn = _lever_field(RXN, RXN1, "contact_cross_nomal_cs: r_cs x n_cs of each movable side")
    inv_vm = number_field(INV_VM, "inv_virtual_mass along n (5.1's info)", locate=locate)
    broken = number_field(BROKEN, "friction_is_broken (5.3)", kind=bool, locate=locate)
    impacts_while_system = number_field(IMPACTS, "impacts_while_system (4.8)", kind=int, locate=locate)
    test_fresh = number_field(FRESH, "coll_time_is_valid (4.8)", kind=bool, locate=locate)
    reached = number_field(REACHED, "distance_reached_in_time (4.8)", locate=locate)
    addon = number_field(ADDON, "rescue_speed_addon (4.6)", locate=locate)
    last_n = _last_n_field()

    def __repr__(self) -> str:
        head = f"<ContactPoint {self.obj0.name!r} {self.side0.feature} - {self.obj1.name!r} {self.side1.feature}"
        if self._contacts.gen[self.row] != self._gen:
            return head + " deleted>"
        return f"{head} gap={self.gap:.4f} N={self.now_friction_pressure:.3f}>"

    @property
    def point_ws(self):
        return self.p

    @property
    def normal_force(self) -> float:
        """N of the last normal solve (now_friction_pressure, 5.1; IVP's get_vert_force)."""
        return self.now_friction_pressure

    @property
    def normal_ws(self):
        return self.n

    def movable_sides(self):
        """(index, core) of the movable sides."""
        out = []
        if not self.core0.physical_unmoveable:
            out.append((0, self.core0))
        if not self.core1.physical_unmoveable:
            out.append((1, self.core1))
        return out

    def update(self, now: float) -> None:
        """5.3 recalc_friction_s_vals at the cores' m_world_f_core_last_psi
        (:func:`update_points` of this point)."""
        update_points([self], now)

    def side_data(self, i: int):
        """Side i's feature for the kernels: its kind (0 P, 1 K, 2 F, 3 ball) and
        four world points (F a, b, c and its outward normal; K its ends; P or
        a ball's centre first). A fixed side's is made once: a fixed body's
        pieces are kept in world coordinates and a contact point keeps its sides."""
        kept = self.fixed_world[i]
        if kept is not None:
            return kept
        side = self.side0 if i == 0 else self.side1
        core = self.core0 if i == 0 else self.core1
        d = world_feature(side, core.m_world_f_core_last_psi)
        kind = side.feature[0]
        if kind == "F":
            out = 2, d
        elif kind == "K":
            out = 1, (d[0], d[1], ZERO3, ZERO3)
        else:
            out = (BALL_SIDE if kind == "B" else 0), (d, ZERO3, ZERO3, ZERO3)
        if core.physical_unmoveable:
            out = out[0], tuple(tuple(float(x) for x in v) for v in out[1])
            self.fixed_world[i] = out
            if i == 1:                  # (the resting pass reads it from the row)
                m, b = locate(self, SIDE1)
                m[b:b + 13] = array("d", (out[0], *out[1][0], *out[1][1], *out[1][2], *out[1][3]))
        return out

    def side_local(self, i: int):
        """Movable side i's feature in its core's frame, for friction_kernels.
        moving_sides_k: its kind (0 P, 1 K, 2 F) and three points (P first; K's
        ends; F's corners as face_data orders them), or None where side_data
        makes it (a ball, a two-sided triangle, whose normal is its moved plane's)."""
        side = self.side0 if i == 0 else self.side1
        shape = side.shape
        if shape.is_ball or side.piece_key[0] != "p":
            return None
        piece = shape.pieces[side.piece_key[1]]
        if piece.two_sided:
            return None
        kind, idx = side.feature
        V = piece.verts
        if kind == "P":
            return 0, V[idx], ZERO3, ZERO3
        if kind == "K":
            return 1, V[idx[0]], V[idx[1]], ZERO3
        a, b, c = piece.tris[idx]
        return 2, V[a], V[b], V[c]

    def init_virt_mass(self) -> None:
        """5.3: 1/vm of the worst case, computed once at creation."""
        vms = [1.0 / worst_case_inv_virt_mass(c, self.r_cs[i]) for i, c in self.movable_sides()]
        if len(vms) == 2:
            vm = vms[0] * vms[1] / (vms[0] + vms[1])
        else:
            vm = vms[0]
        self.inv_virt_mass_no_dir = f32(1.0 / vm)


def update_points(cps, now: float) -> None:
    """5.3 recalc_friction_s_vals of each of the points ``cps`` at the cores'
    m_world_f_core_last_psi, in one pass over their rows (update_rows_k):
    a movable hull side's feature moved from its core's frame in one pass
    (friction_kernels.moving_sides_k, as the system's update moves them),
    the other sides' from side_data, the rest from the tables."""
    n = len(cps)
    if n == 0:
        return
    D = np.empty((n, 26))
    C = np.empty((n, 3), dtype=np.int64)
    local = []
    at = []
    moved = {}                          # core -> its index in the rows moving_sides_k reads
    for q, cp in enumerate(cps):
        locate(cp)                      # (a deleted point fails here)
        C[q] = (_body_row(cp.core0), _body_row(cp.core1), cp.side0.shape.is_ball)
        for i, core in enumerate((cp.core0, cp.core1)):
            loc = None if core.physical_unmoveable else cp.side_local(i)
            if loc is None:
                k, (a, b, c, d) = cp.side_data(i)
                D[q, 13 * i:13 * i + 13] = (k, *a, *b, *c, *d)
            else:
                local.append((loc[0], *loc[1], *loc[2], *loc[3]))
                at.append((q, 13 * i, moved.setdefault(core, len(moved))))
    S = cps[0].core0._bodies.rows
    if local:
        rows = [core.row for core in moved]
        moving_sides_k(np.array(local, dtype=np.float64), np.array(at, dtype=np.int64), S[rows, M_R:M_R + 9],
                       S[rows, M_POS:M_POS + 3], D)
    table = cps[0]._contacts
    update_rows_k(S, table.rows, table.slots(cps), C, D, now)


def _body_row(core) -> int:
    """A movable core's row of the body table, -1 for a fixed one."""
    if core.physical_unmoveable:
        return -1
    locate_core(core)                   # (a deleted core fails here)
    return core.row


@kernel
def update_rows_k(S, P, slots, C, D, t):
    """5.3 recalc_friction_s_vals (ContactPoint.update) of the points at rows
    ``slots`` of the contact table P, at time t: per point, C its sides'
    rows of the body table S (-1: a fixed side) and 1 if side 0 is a ball,
    D its two sides as ContactPoint.side_data packs them (kind and four
    points each); the results into the point's row (put_update), its
    recheck off."""
    for q in range(slots.shape[0]):
        c = slots[q]
        check = P[c, RECHECK] != 0.0 or C[q, 2] != 0
        P[c, RECHECK] = 0.0
        k0 = int(D[q, 0])
        k1 = int(D[q, 13])
        mov0 = C[q, 0] >= 0
        mov1 = C[q, 1] >= 0
        R0, pos0, v0, w0, ii0, im0 = core_row(S, C[q, 0] if mov0 else 0)
        R1, pos1, v1, w1, ii1, im1 = core_row(S, C[q, 1] if mov1 else 0)
        gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, span = contact_update_k(
            k0, (vec3(D, q, 1), vec3(D, q, 4), vec3(D, q, 7), vec3(D, q, 10)), k1,
            (vec3(D, q, 14), vec3(D, q, 17), vec3(D, q, 20), vec3(D, q, 23)), check,
            k0 == 1 and k1 == 1 and P[c, NO_LAST_N] == 0.0, vec3(P, c, LAST_N),      # (zero while there is none)
            P[c, X0], P[c, X1], mov0, R0, pos0, v0, w0, ii0, im0, mov1, R1, pos1, v1, w1, ii1, im1,
            (P[c, SPAN], P[c, SPAN + 1]), t - P[c, LAST_TIME])
        put_update(P, c, t, gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, span)
