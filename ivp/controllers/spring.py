"""Spec 12.2, 12.3: the spring actuator (priority 1500) and its template.

Usage::

    tmpl = SpringTemplate(target, p0_ws, other, p1_ws, length=2.0, constant=15.0)
    spring = create_spring(env, tmpl)
    ...
    spring.delete()
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import umath
from ..core import MT_NOT_SIM
from ..fp import f32, f32v, hexf32
from ..limits import check
from .anchor import anchor_init, anchor_remove
from .joint import Joint, check_joint_objects, joint_name

SPRING_LEN_EPS_F = hexf32("2edbe6ff")       # 1e-10f (12.3)
NO_BREAK_LENGTH_F = hexf32("60ad78ec")      # 1e20f, template [9] (12.2)
ZERO3 = (0.0, 0.0, 0.0)


@dataclass
class SpringTemplate:
    """Spec 12.2: the spring template (0x10014200) with Set Physics Spring's pins.

    obj0 is the building block's target, obj1 its Object2; positions are world
    points (f64). ``relative`` scales k and both dampings by the reduced mass;
    a ``break_length`` enables breaking (never used by Ballance).
    """

    obj0: object
    pos0_ws: tuple
    obj1: object
    pos1_ws: tuple
    length: float = 1.0
    constant: float = 1.0
    damp_lin: float = 0.1
    damp_rel: float = 0.1
    relative: bool = False
    break_length: float | None = None


class Spring(Joint):
    """Spec 12.2 (ctor 0x10014250): two anchors, rest length, constant, dampings."""

    priority = 1500

    def __init__(self, env, tmpl: SpringTemplate):
        super().__init__(env, tmpl.obj0, tmpl.obj1)
        self.length = f32(tmpl.length)
        if tmpl.relative:
            self.rel_factor = f32(reduced_mass(tmpl.obj0.core, tmpl.obj1.core))
        else:
            self.rel_factor = 1.0
        f = self.rel_factor
        self.constant = f32(tmpl.constant * f)
        self.damp_lin = f32(tmpl.damp_lin * f)
        self.damp_rel = f32(tmpl.damp_rel * f)
        self.break_flag = tmpl.break_length is not None
        self.break_length = f32(tmpl.break_length) if self.break_flag else NO_BREAK_LENGTH_F
        self.anchors = (anchor_init(self, tmpl.obj0, tmpl.pos0_ws),
                        anchor_init(self, tmpl.obj1, tmpl.pos1_ws))

    def release(self) -> None:
        for a in self.anchors:
            anchor_remove(a)

    def do_simulation_controller(self, ev, cores) -> None:
        """Spec 12.3 (0x100146d0): F = (len - L) k along the spring, dampings,
        impulse x dt as async pushes (+ on Object2, - on the target)."""
        a0, a1 = self.anchors
        c0 = a0.object.core
        c1 = a1.object.core
        p0 = umath.mat_mul_point(c0.m_world_f_core_last_psi, a0.core_pos)
        p1 = umath.mat_mul_point(c1.m_world_f_core_last_psi, a1.core_pos)
        d, length = umath.normalize_len(f32v(p0[0] - p1[0], p0[1] - p1[1], p0[2] - p1[2]))
        d = f32v(*d)
        if length < SPRING_LEN_EPS_F:
            return
        if length > self.break_length and self.break_flag:
            self.break_joint()
            return
        force = (length - self.length) * self.constant
        u = relative_surface_speed(c1, c0, a1.core_pos, a0.core_pos)
        dt = ev.delta_time
        s = (force - self.damp_lin * umath.dot(d, u)) * dt
        r = self.damp_rel * dt
        imp = f32v(d[0] * s - r * u[0], d[1] * s - r * u[1], d[2] * s - r * u[2])
        if c1.movement_state < MT_NOT_SIM:
            c1.async_push_core_ws(p1, imp)
        if c0.movement_state < MT_NOT_SIM:
            c0.async_push_core_ws(p0, (-imp[0], -imp[1], -imp[2]))


def relative_surface_speed(c1, c0, p1_cs, p0_cs):
    """0x1000c0b0: v_surf(c1, p1) - v_surf(c0, p0), world f32; an unmovable
    core contributes 0."""
    v1 = ZERO3 if c1.physical_unmoveable else c1.get_surface_speed_on_test(p1_cs)
    v0 = ZERO3 if c0.physical_unmoveable else c0.get_surface_speed_on_test(p0_cs)
    return f32v(v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2])


def reduced_mass(c0, c1) -> float:
    """m0 m1 / (m0 + m1) for the 'values are relative' option (12.2).

    Beyond the spec: 0x1000c390's effective mass is not given; an unmovable
    core is taken as infinitely heavy, so the factor is the other's mass.
    """
    if c0.physical_unmoveable:
        return c1.mass
    if c1.physical_unmoveable:
        return c0.mass
    return c0.mass * c1.mass / (c0.mass + c1.mass)


def _check_template(env, tmpl: SpringTemplate) -> None:
    what = f"spring {joint_name(tmpl.obj0, tmpl.obj1)}"
    if tmpl.obj0 is None or tmpl.obj1 is None:
        raise ValueError(f"{what}: a spring needs two objects")
    check_joint_objects(env, what, tmpl.obj0, tmpl.obj1)
    for name, p in (("position 1", tmpl.pos0_ws), ("position 2", tmpl.pos1_ws)):
        check(f"{what}: {name}", p, high="MAX_POSITION", size=3)
    c = tmpl.constant
    check(f"{what}: the constant", c, high="MAX_SPRING_CONSTANT")
    if not c > 0.0:
        raise ValueError(f"{what}: the constant {c!r} must be a positive number")
    for name, v, high in (("length", tmpl.length, "MAX_POSITION"), ("linear dampening", tmpl.damp_lin,
                          "MAX_SPRING_CONSTANT"), ("global dampening", tmpl.damp_rel, "MAX_SPRING_CONSTANT")):
        check(f"{what}: the {name}", v, "MIN_DAMP", high)
    b = tmpl.break_length
    if b is not None:
        check(f"{what}: the break length", b, high="MAX_POSITION")
        if not b > 0.0:
            raise ValueError(f"{what}: the break length {b!r} must be a positive number")


def create_spring(env, tmpl: SpringTemplate) -> Spring:
    """Spec 12.2 (0x10013700): build the spring and register it with the
    controller manager (0x10011b30: the units merge, 10.0). Bad input raises
    ValueError before anything is created."""
    _check_template(env, tmpl)
    spring = Spring(env, tmpl)
    spring.register()
    return spring
