"""Spec 12.1: anchors, the points by which an actuator holds its objects."""

from __future__ import annotations

from .. import umath
from ..fp import f32v
from ..real_object import Anchor


def anchor_init(actuator, obj, pos_ws) -> Anchor:
    """Spec 12.1 (0x10013ea0): an anchor at the world point pos_ws of obj,
    in object space from its pose now (4.4), in core space by m_core_f_object
    (0x10009be0); on the object's anchor list, so 2.5 re-expresses it."""
    m_world_f_object = obj.get_m_world_f_object_AT(obj.environment.current_time)
    p_object = f32v(*umath.mat_inv_mul_point(m_world_f_object, pos_ws))
    p_core = f32v(*umath.mat_mul_point(obj.get_m_core_f_object(), p_object))
    a = Anchor(obj, p_object, p_core, actuator)
    obj.anchors.append(a)
    return a


def anchor_remove(a: Anchor) -> None:
    """Spec 12.1: unlink the anchor from its object's list (the anchor destructor)."""
    if a in a.object.anchors:
        a.object.anchors.remove(a)
