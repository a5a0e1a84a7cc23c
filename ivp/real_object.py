"""IVP_Real_Object: balls and polygons, their templates, object<->core frames,
poses at a time, wake-up and world pushes (spec 1.1, 1.3, 2.1, 2.4, 2.5, 4.2, 5, 10.4)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import umath
from .core import MT_NOT_SIM, MT_STATIC
from .freeze import enqueue_revive
from .fp import AUTO_CHECK_ROT_INERTIA, DEFAULT_DAMP, MIN_MASS, POINT_FOUR_F, SHIFT_ZERO_EPS, f32, f32v, inv_dt
from .jit import kernel
from .kmath import mat_mul_point_k, quat_mul_k, quat_slerp_k, quat_to_matrix_k
from .limits import check

OBJECT_POLYGON = 2
OBJECT_BALL = 3


@dataclass
class ObjectTemplate:
    """Spec 1.3 (IVP_Template_Real_Object), with the default ctor's values."""

    name: str = ""
    nocoll_group: str = ""                      # 8 characters are kept
    physical_unmoveable: bool = False
    enable_piling_optimization: bool = False
    material: object = None
    mass: float = 1.0
    rot_inertia_is_factor: bool = True
    rot_inertia: tuple = (1.0, 1.0, 1.0)
    auto_check_rot_inertia: float = AUTO_CHECK_ROT_INERTIA
    speed_damp_factor: float = DEFAULT_DAMP
    rot_speed_damp_factor: tuple = (DEFAULT_DAMP, DEFAULT_DAMP, DEFAULT_DAMP)
    extra_radius: float = 0.0
    mass_center_override: tuple | None = None   # only the translation is read (2.4)
    client_data: object = None
    collision_enabled: bool = True


@dataclass
class BallTemplate(ObjectTemplate):
    """Template of a ball: the radius (2 for every Ballance ball)."""

    radius: float = 1.0


def kept_mass(mass) -> float:
    """Spec 2.4: the mass a core keeps (one below MIN_MASS becomes 1)."""
    mass = float(mass)
    return 1.0 if mass < MIN_MASS else mass


@dataclass
class Anchor:
    """Spec 12.1: a point of an object kept in object and core space."""

    object: object
    object_pos: tuple
    core_pos: tuple
    owner: object = None


class RealObject:
    """Spec 1.1: a ball or polygon object with its (single) core."""

    __slots__ = (
        "type", "name", "environment", "object_state", "collision_enabled",
        "shift_is_zero", "q_core_f_object", "shift_core_f_object", "anchors",
        "surface", "ball_radius", "nocoll_group", "material", "extra_radius",
        "core", "client_data", "listeners", "deleted", "collision_data",
    )

    def __init__(self, env, kind: int, tmpl: ObjectTemplate, surface):
        """Spec 2.1 (0x10009690) with the subclass ctors; the core, which takes
        the ctor's quat and pos, is created by the environment (spec 2.2) and
        then init_object_core (2.4) runs."""
        self.type = kind
        self.name = tmpl.name
        self.environment = env
        self.object_state = MT_STATIC if tmpl.physical_unmoveable else MT_NOT_SIM
        self.collision_enabled = bool(tmpl.collision_enabled)
        self.shift_is_zero = True
        self.q_core_f_object = None
        self.shift_core_f_object = (0.0, 0.0, 0.0)
        self.anchors = []
        self.surface = surface
        self.ball_radius = 0.0
        self.nocoll_group = (tmpl.nocoll_group or "")[:8]
        self.material = tmpl.material
        self.extra_radius = f32(tmpl.extra_radius)
        self.core = None
        self.client_data = tmpl.client_data
        self.listeners = []
        self.deleted = False
        self.collision_data = None

    def __repr__(self) -> str:
        kind = "ball" if self.type == OBJECT_BALL else "polygon"
        return f"<RealObject {kind} {self.name!r}>"

    @property
    def is_ball(self) -> bool:
        return self.type == OBJECT_BALL

    @property
    def is_fixed(self) -> bool:
        return self.core.physical_unmoveable

    # --- frames (2.4, 2.5) ------------------------------------------------------

    def init_object_core(self, tmpl: ObjectTemplate) -> None:
        """Spec 2.4 (0x10009f00): mass centre, radius, mass, inertia, damping."""
        if tmpl.mass_center_override is not None:
            mc = f32v(*tmpl.mass_center_override)
        else:
            mc = f32v(*self.surface.get_mass_center())
        m_object_f_core = (umath.IDENTITY_R, mc)
        self.set_new_m_object_f_core(m_object_f_core)
        core = self.core
        if self.type == OBJECT_POLYGON:
            radius, radius_dev = self.surface.get_radius_and_radius_dev_to_given_center(mc)
        else:
            radius, radius_dev = 0.0, 0.0
        core.upper_limit_radius = f32(self.extra_radius + radius)
        core.max_surface_deviation = f32(radius_dev)
        mass = kept_mass(tmpl.mass)
        if tmpl.rot_inertia_is_factor:
            if self.type == OBJECT_POLYGON:
                I = self.surface.get_rotation_inertia()
            else:
                r = self.ball_radius
                I = (f32(r * r * POINT_FOUR_F),) * 3
            ri = tmpl.rot_inertia
            core.rot_inertia = f32v(I[0] * ri[0] * mass, I[1] * ri[1] * mass, I[2] * ri[2] * mass)
        else:
            core.rot_inertia = f32v(*tmpl.rot_inertia)
        if tmpl.auto_check_rot_inertia != 0.0:
            I = core.rot_inertia
            m = f32(math.sqrt(I[0] * I[0] + I[1] * I[1] + I[2] * I[2])) * tmpl.auto_check_rot_inertia
            core.rot_inertia = tuple(f32(m) if I[i] < m else I[i] for i in range(3))
        core.mass = f32(mass)
        core.speed_damp_factor = f32(tmpl.speed_damp_factor)
        core.rot_speed_damp_factor = f32v(*tmpl.rot_speed_damp_factor)
        core.rot_speed = (0.0, 0.0, 0.0)
        core.speed = (0.0, 0.0, 0.0)
        core.calc_calc()
        core.transform_to_mass_center(m_object_f_core)
        env = self.environment
        dt = env.time_of_next_psi - env.current_time
        core.init_core_for_simulation(inv_dt(dt))

    def set_new_m_object_f_core(self, m_object_f_core) -> None:
        """Spec 2.5 (0x100093d0): object<->core frame, anchors re-expressed."""
        m_core_f_object = umath.mat_inverse_ortho(m_object_f_core)
        for a in self.anchors:
            a.core_pos = f32v(*umath.mat_mul_point(m_core_f_object, a.object_pos))
        v = m_core_f_object[1]
        if v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < SHIFT_ZERO_EPS:
            self.shift_is_zero = True
            self.shift_core_f_object = (0.0, 0.0, 0.0)
        else:
            self.shift_core_f_object = f32v(*v)
            self.shift_is_zero = False
        R = m_object_f_core[0]
        if R[0] == 1.0 and R[4] == 1.0 and R[8] == 1.0:
            self.q_core_f_object = None
        else:
            self.q_core_f_object = umath.quat_normalize(umath.matrix_to_quat(m_core_f_object[0]))

    def get_m_core_f_object(self):
        """0x10009be0: rotation q_core_f_object (identity if None), vv = shift."""
        R = umath.IDENTITY_R if self.q_core_f_object is None else umath.quat_to_matrix(self.q_core_f_object)
        return R, self.shift_core_f_object

    # --- poses (4.2) --------------------------------------------------------------

    def get_m_world_f_object_AT(self, t: float):
        """Spec 4.2 (0x10009d70): the object pose at time t, no movement-state test."""
        t_last, _, q_last, q_next, i_dt, (px, py, pz), (dx, dy, dz), _ = self.core.pose_parts()
        dt = t - t_last
        q = umath.quat_slerp(q_last, q_next, dt * i_dt)
        vv = (px + dx * dt, py + dy * dt, pz + dz * dt)
        R = umath.quat_to_matrix(q)
        if not self.shift_is_zero:
            vv = umath.mat_mul_point((R, vv), self.shift_core_f_object)
        if self.q_core_f_object is not None:
            R = umath.quat_to_matrix(umath.quat_mul(q, self.q_core_f_object))
        return R, vv

    # --- wake-up and pushes (10.4, 5) -----------------------------------------------

    def _check_alive(self) -> None:
        if self.deleted:
            raise ValueError(f"object {self.name!r} was deleted")

    def wake(self) -> None:
        """Spec 10.4 (0x1000a460): restart the calm timers, or queue a revive."""
        self._check_alive()
        if self.object_state != MT_NOT_SIM:
            self.core.reset_freeze_check_values()
        else:
            enqueue_revive(self.environment, self.core)

    def async_push_object_ws(self, p_ws, imp_ws) -> None:
        """Spec 5 (0x1000a3e0): wake, then an async push at a world point."""
        self._check_alive()
        check(f"object {self.name!r}: push point", p_ws, high="MAX_POSITION", size=3)
        check(f"object {self.name!r}: push impulse", imp_ws, high="MAX_IMPULSE", size=3)
        self.wake()
        core = self.core
        M = core.get_m_world_f_core_PSI(self.environment.current_time)
        p_cs = f32v(*umath.mat_inv_mul_point(M, p_ws))
        imp = f32v(*imp_ws)
        imp_cs = f32v(*umath.rot_t_mul_v(M[0], imp))
        core.async_push_core(p_cs, imp_cs, imp)

    def async_add_speed_object_ws(self, dv) -> None:
        """Spec 5 (0x1000a350): wake; speed_change += dv."""
        self._check_alive()
        check(f"object {self.name!r}: speed change", dv, high="MAX_SPEED_CHANGE", size=3)
        self.wake()
        s = self.core.speed_change
        self.core.speed_change = f32v(s[0] + dv[0], s[1] + dv[1], s[2] + dv[2])

    def async_add_rot_speed_object_cs(self, dw) -> None:
        """Spec 5 (0x1000a3a0): wake; rot_speed_change += dw (core axes)."""
        self._check_alive()
        check(f"object {self.name!r}: rotation speed change", dw, high="MAX_ROT_SPEED_CHANGE", size=3)
        self.wake()
        r = self.core.rot_speed_change
        self.core.rot_speed_change = f32v(r[0] + dw[0], r[1] + dw[1], r[2] + dw[2])


@kernel
def _object_poses_k(G, S, QC, shifted, turned, t):
    """get_m_world_f_object_AT (4.2) per row of G (time_of_last_psi,
    i_delta_time, q_last, q_next, position, delta: BodyTable.pose_values' columns),
    S the object shifts and QC its rotations from the core where ``shifted``
    / ``turned``: the rotations (n, 9) and positions (n, 3)."""
    n = G.shape[0]
    R = np.empty((n, 9))
    V = np.empty((n, 3))
    for k in range(n):
        g = G[k]
        dt = t - g[0]
        q = quat_slerp_k((g[2], g[3], g[4], g[5]), (g[6], g[7], g[8], g[9]), dt * g[1])
        vv = (g[10] + g[13] * dt, g[11] + g[14] * dt, g[12] + g[15] * dt)
        M = quat_to_matrix_k(q)
        if shifted[k]:
            vv = mat_mul_point_k((M, vv), (S[k, 0], S[k, 1], S[k, 2]))
        if turned[k]:
            M = quat_to_matrix_k(quat_mul_k(q, (QC[k, 0], QC[k, 1], QC[k, 2], QC[k, 3])))
        for j in range(9):
            R[k, j] = M[j]
        for j in range(3):
            V[k, j] = vv[j]
    return R, V


def object_poses(objs, t: float):
    """Each object's get_m_world_f_object_AT(t) (4.2, the same values) in one
    compiled pass, as rotations (n, 9) and positions (n, 3), the cores' rows
    read at once (the glue's write-back of every awake body, each frame)."""
    n = len(objs)
    G = objs[0].environment.bodies.pose_values(np.array([o.core.row for o in objs], dtype=np.int64)) if n \
        else np.empty((0, 16))
    shifted = np.array([not o.shift_is_zero for o in objs], dtype=np.bool_)
    turned = np.array([o.q_core_f_object is not None for o in objs], dtype=np.bool_)
    S = np.array([o.shift_core_f_object for o in objs], dtype=np.float64).reshape(n, 3)
    QC = np.array([o.q_core_f_object or umath.IDENTITY_Q for o in objs], dtype=np.float64).reshape(n, 4)
    return _object_poses_k(G, S, QC, shifted, turned, t)
