"""Contact points (ivp-contacts 5.1) and their update (5.3): a point's two
sides, its gap, normal, tangents and levers, the validity test, the single
point's normal push (5.5)."""

from __future__ import annotations

from ..core import ZERO3
from ..fp import f32, f32v
from .constants import DESCENDING_SPEEDUP, FRICTION_DIST, NORMAL_SPEEDUP
from .features import world_feature
from .friction_kernels import BALL_SIDE, contact_update_k


def _rt(R, v):
    """R^T v (world -> core axes)."""
    return (R[0] * v[0] + R[3] * v[1] + R[6] * v[2], R[1] * v[0] + R[4] * v[1] + R[7] * v[2],
            R[2] * v[0] + R[5] * v[1] + R[8] * v[2])


def kernel_side(core):
    """A contact side's core as the friction kernels take it: movable, R, pos,
    speed, rot_speed, inv_rot_inertia, inv_mass."""
    R, pos = core.m_world_f_core_last_psi
    return (not core.physical_unmoveable, R, pos, core.speed, core.rot_speed, core.inv_rot_inertia,
            core.inv_mass)


def worst_case_inv_virt_mass(core, r_cs) -> float:
    """5.3 calc_virt_mass_worst_case for one movable side: 1/m + max of the
    lever terms over the core axes."""
    x, y, z = r_cs
    ix, iy, iz = core.inv_rot_inertia
    return core.inv_mass + max((y * y + z * z) * ix, (x * x + z * z) * iy, (x * x + y * y) * iz)


class ContactPoint:
    """5.1 IVP_Contact_Point with its per-update data ("info")."""

    __slots__ = ("side0", "side1", "obj0", "obj1", "core0", "core1", "span_s", "now_friction_pressure",
                 "last_gap_len", "real_friction_factor", "elasticity", "inv_virt_mass_no_dir", "last_time",
                 "needs_recheck", "has_negative_pull_since", "system", "pair", "gap", "n", "p",
                 "t0", "t1", "r_cs", "rxn", "inv_vm", "broken", "impacts_while_system", "test_fresh",
                 "reached", "addon", "alive", "last_n", "fixed_world", "point_slot")

    def __init__(self, side0, side1, mu: float, e: float, t: float):
        self.side0 = side0
        self.side1 = side1
        self.obj0 = side0.shape.obj
        self.obj1 = side1.shape.obj
        self.core0 = self.obj0.core
        self.core1 = self.obj1.core
        self.span_s = (0.0, 0.0)
        self.now_friction_pressure = 0.0
        self.last_gap_len = FRICTION_DIST
        self.real_friction_factor = mu
        self.elasticity = e
        self.inv_virt_mass_no_dir = 0.0
        self.last_time = t
        self.needs_recheck = True
        self.has_negative_pull_since = 0
        self.system = None
        self.pair = None
        self.impacts_while_system = 0
        self.test_fresh = False
        self.reached = 1e20
        self.addon = 0.0
        self.alive = True
        self.last_n = None              # the last update's normal (an edge pair keeps its side)
        self.broken = False
        self.fixed_world = [None, None]  # side_data of a fixed side, made once
        self.point_slot = -1            # its row while on loan (points.PointRows: a resting run, a system's passes)

    def __repr__(self) -> str:
        return (f"<ContactPoint {self.obj0.name!r} {self.side0.feature} - {self.obj1.name!r} "
                f"{self.side1.feature} gap={self.gap:.4f} N={self.now_friction_pressure:.3f}>")

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
        (the arithmetic: friction_kernels.contact_update_k)."""
        check = self.needs_recheck or self.side0.shape.is_ball
        self.needs_recheck = False
        k0, d0 = self.side_data(0)
        k1, d1 = self.side_data(1)
        last_n = self.last_n
        side0 = kernel_side(self.core0)
        side1 = kernel_side(self.core1)
        mov0 = side0[0]
        mov1 = side1[0]
        (gap, n, p, t0, t1, r0, r1, c0, c1, inv_vm, broken, span) = contact_update_k(
            k0, d0, k1, d1, check, k0 == 1 and k1 == 1 and last_n is not None,
            ZERO3 if last_n is None else last_n, float(self.obj0.extra_radius), float(self.obj1.extra_radius),
            *side0, *side1, self.span_s, now - self.last_time)
        self.updated(now, gap, n, p, t0, t1, [r0 if mov0 else None, r1 if mov1 else None],
                     [c0 if mov0 else None, c1 if mov1 else None], inv_vm, broken, span)

    def updated(self, now, gap, n, p, t0, t1, r_cs, rxn, inv_vm, broken, span) -> None:
        """5.3's results into the point (update, and the resting-contact kernel)."""
        self.impacts_while_system = 0
        self.test_fresh = False
        self.last_n = n
        self.broken = broken
        self.gap = gap
        self.n = n
        self.p = p
        self.t0 = t0
        self.t1 = t1
        self.r_cs = r_cs
        self.rxn = rxn
        self.inv_vm = inv_vm
        self.last_time = now
        self.span_s = span

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

    def closing_speed(self) -> float:
        """5.5: (v0 n + w0 (r x n)0) - (v1 n + w1 (r x n)1), current velocities."""
        n = self.n
        s = 0.0
        for i, core in self.movable_sides():
            v = core.speed
            w = core.rot_speed
            c = self.rxn[i]
            x = v[0] * n[0] + v[1] * n[1] + v[2] * n[2] + w[0] * c[0] + w[1] * c[1] + w[2] * c[2]
            s += x if i == 0 else -x
        return s

    def apply_impulse(self, j: float, asynchronous: bool = False) -> None:
        """apply_impulse: side 0's core gets -j n at its lever, side 1's +j n."""
        n = self.n
        for i, core in self.movable_sides():
            k = -j if i == 0 else j
            imp = f32v(n[0] * k, n[1] * k, n[2] * k)
            imp_cs = _rt(core.m_world_f_core_last_psi[0], imp)
            if asynchronous:
                core.async_push_core(self.r_cs[i], imp_cs, imp)
            else:
                core.push_core(self.r_cs[i], imp_cs, imp)


def desired_separation(gap: float, closing: float) -> float:
    """5.5 desired(g, closing) = closing + (0.02 - g) k."""
    k = NORMAL_SPEEDUP if gap <= FRICTION_DIST else DESCENDING_SPEEDUP
    return closing + (FRICTION_DIST - gap) * k
